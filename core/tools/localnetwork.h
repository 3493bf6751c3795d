#pragma once

#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QString>

namespace keen {

// Addresses on this computer or the local network (loopback, private, link-local, shared, unspecified),
// which a page on the internet must not reach through web_fetch: a redirect from a public page into
// 127.0.0.1 or a cloud's 169.254.169.254 is how a fetched page would read what only this machine can.
class LocalNetwork
{
    Q_DECLARE_TR_FUNCTIONS(LocalNetwork)

public:
    static bool contains(const QHostAddress &address);
    // The first local address host stands for ("localhost" and *.localhost without asking DNS), or empty
    // when it names none (or cannot be resolved: then the fetch itself says so). Resolves on the calling
    // (worker) thread, until cancel or the deadline.
    static QString localAddressOf(const QString &host, const CancellationToken &cancel,
                                  const QDeadlineTimer &deadline);
};

} // namespace keen
