#pragma once

#include "base/cancellationtoken.h"
#include "stream/httprequest.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

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
    bool stalled = false;           // nothing arrived for the inactivity timeout
    bool stoppedByReader = false;   // the data callback asked to stop
    QString networkError;           // empty when the transport worked
    bool connectionRefused = false; // nothing listens at the address
    bool hostNotFound = false;      // the name does not resolve: a typo far more often than a passing fault
    bool tlsFailed = false;         // the TLS handshake failed (for one, https to a plain-http port)
    QString invalidRequest;         // the request was not sent: a header name or value is not allowed
    QUrl redirectedTo;              // a redirect to another origin, not followed (the key stays here)
};

// Sends a request (POST, or the method the spec names) and streams the response body to a callback,
// synchronously, on a worker thread. Owns its QNetworkAccessManager, so it must be created, used and
// destroyed on that one thread. A local event loop runs the transfer; the GUI thread is never involved.
class HttpStreamer
{
public:
    HttpStreamer();
    ~HttpStreamer();
    // The calling thread's own, created on first use and destroyed when the thread ends. Its
    // QNetworkAccessManager keeps the provider's connection open between requests: within a tool loop, for a
    // compaction's request in it, and for the next turn when the thread runs turn after turn (WorkerThread).
    static HttpStreamer &forCurrentThread();
    HttpStreamer(const HttpStreamer &) = delete;
    HttpStreamer &operator=(const HttpStreamer &) = delete;

    // onData gets each piece of a 2xx body as it arrives; return false to stop reading.
    HttpOutcome send(const HttpRequestSpec &request, const CancellationToken &cancel, int inactivityTimeoutMs,
                     const std::function<bool(const QByteArray &)> &onData);

    // Empty when every header can be sent; otherwise why not. A line break in a value would start a new
    // header (a multi-line key from a helper would send its other lines to the server), so control
    // characters are refused, never sent. Values are never quoted back: they may hold the key.
    static QString checkHeaders(const HeaderList &headers);

private:
    std::unique_ptr<QNetworkAccessManager> m_network;
};

} // namespace keen
