#pragma once

#include "base/cancellationtoken.h"

#include <QByteArray>
#include <QNetworkRequest>
#include <QString>

namespace keen {

// One HTTP request that the calling thread waits for in a local event loop, for the credential helpers that
// run inside a provider's prepare() (AWS SSO, STS, the ChatGPT sign-in's refresh). Never on the GUI thread.
// cancel aborts it; the token may be cancelled from another thread.
class BlockingHttp
{
public:
    struct Reply
    {
        int status = 0; // 0: no HTTP answer (see error)
        QByteArray body;
        QString error; // the network error, when status is 0
        bool cancelled = false;
    };

    // method "GET", or any other ("POST", "PUT") with body sent.
    static Reply send(const QNetworkRequest &request, const QByteArray &method, const QByteArray &body,
                      const CancellationToken &cancel);
};

} // namespace keen
