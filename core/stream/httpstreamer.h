#pragma once

#include "base/cancellationtoken.h"
#include "stream/httprequest.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <memory>

class QNetworkAccessManager;

namespace keen {

// What one HTTP exchange ended with.
struct HttpOutcome
{
    int status = 0;
    HeaderList headers;
    QByteArray errorBody; // the body of a non-2xx reply, capped
    bool cancelled = false;
    bool stalled = false;         // nothing arrived for the inactivity timeout
    bool stoppedByReader = false; // the data callback asked to stop
    QString networkError;         // empty when the transport worked
};

// Sends a request (POST, or the method the spec names) and streams the response body to a callback,
// synchronously, on a worker thread. Owns its QNetworkAccessManager, so it must be created, used and
// destroyed on that one thread. A local event loop runs the transfer; the GUI thread is never involved.
class HttpStreamer
{
public:
    HttpStreamer();
    ~HttpStreamer();
    HttpStreamer(const HttpStreamer &) = delete;
    HttpStreamer &operator=(const HttpStreamer &) = delete;

    // onData gets each piece of a 2xx body as it arrives; return false to stop reading.
    HttpOutcome send(const HttpRequestSpec &request, const CancellationToken &cancel, int inactivityTimeoutMs,
                     const std::function<bool(const QByteArray &)> &onData);

private:
    std::unique_ptr<QNetworkAccessManager> m_network;
};

} // namespace keen
