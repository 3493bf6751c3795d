#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QQueue>
#include <QTcpServer>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

class QTcpSocket;

namespace keen::test {

// A loopback fake LLM provider, in the spirit of qtbase's MiniHttpServer: a QTcpServer on 127.0.0.1, port 0,
// that records every HTTP/1.1 request and answers each from a queue of scripted responses, writing the body
// in awkward pieces (each one its own HTTP chunk, flushed on its own timer tick) so the client really reads
// it piecewise. Every response says "Connection: close", so each request comes on a new connection.
//
// Threading: the server lives in the thread that created it (the test's main thread) and only works while
// that thread's event loop runs. A client in the same thread is driven by QSignalSpy::wait or spinUntil(); a
// client in a worker QThread (with its own event loop, as the provider clients run) works too, as long as the
// main thread spins meanwhile (spinUntil(), spy.wait()). Never block the main thread on the worker (QThread::
// wait before it is done, a blocking queued call): the server would stop answering. QTRY_* works but crawls
// with split bodies, because it sleeps 10 ms between polls; prefer spinUntil().
//
// Example:
//   FakeProviderServer server;
//   server.enqueueFixture(QStringLiteral("anthropic/text.sse"), SplitMode::randomSplits(7));
//   client.setBaseUrl(server.baseUrl()); // http://127.0.0.1:<port>
//   ... start the client, then FakeProviderServer::spinUntil([&] { return finished; });
//   QCOMPARE(server.lastRequest().json[QStringLiteral("stream")], true);
class FakeProviderServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FakeProviderServer)

public:
    using HeaderList = QList<QPair<QByteArray, QByteArray>>;

    // How the body is cut into pieces; each non-empty piece is one HTTP chunk written on its own timer tick.
    struct SplitMode
    {
        enum class Kind { AllAtOnce, OneByteAtATime, RandomSplits, ChunkSizes };
        Kind kind = Kind::AllAtOnce;
        quint32 seed = 0;        // RandomSplits
        int maxRandomPiece = 64; // RandomSplits: piece sizes are drawn from [1, maxRandomPiece]
        QList<qsizetype> sizes;  // ChunkSizes: used in turn, cycling; sizes below 1 are skipped

        static SplitMode allAtOnce() { return {}; }
        static SplitMode oneByteAtATime() { return {Kind::OneByteAtATime, 0, 1, {}}; }
        static SplitMode randomSplits(quint32 seed, int maxPiece = 64)
        {
            return {Kind::RandomSplits, seed, maxPiece, {}};
        }
        static SplitMode chunkSizes(const QList<qsizetype> &sizes) { return {Kind::ChunkSizes, 0, 1, sizes}; }
    };

    struct Response
    {
        int status = 200;
        QByteArray contentType; // no Content-Type header when empty
        HeaderList headers;     // extra headers, e.g. {"retry-after", "2"}
        QByteArray body;
        SplitMode split;
        // Pause before each piece, so the client reads it on its own. 0 writes the pieces back to back
        // (each still its own chunk and flush), which the client then mostly reads merged.
        int delayMs = 1;
        // Transfer-Encoding: chunked, as real providers stream; false sends Content-Length instead.
        bool chunked = true;
        // >= 0: close the connection after this many body bytes, without the terminating chunk (a dropped
        // stream). QNetworkReply may then finish with NoError or RemoteHostClosedError: a client must notice
        // the missing terminal event itself.
        qsizetype closeAfterBytes = -1;
        // >= 0: stop sending after this many body bytes and keep the connection open (an inactivity timeout
        // test); closeAllConnections() or the destructor ends it.
        qsizetype stallAfterBytes = -1;
        // >= 0: reset the connection (TCP RST, as a crashed proxy does) after this many body bytes.
        qsizetype resetAfterBytes = -1;
        // Not empty: after the body, this piece is sent again and again, forever (a body that never ends),
        // until the client closes the connection.
        QByteArray endlessPiece;
    };

    struct Request
    {
        QByteArray method;
        QByteArray target;  // path and query as sent, e.g. "/v1beta/models/x:streamGenerateContent?alt=sse"
        QByteArray path;    // before '?'
        QByteArray query;   // after '?', without it
        HeaderList headers; // in the order sent, names as sent
        QByteArray body;
        QJsonDocument json; // the body parsed as JSON; null when it is not JSON

        // The first header with that name, compared case-insensitively; empty when absent.
        QByteArray header(QByteArrayView name) const;
        bool hasHeader(QByteArrayView name) const;
    };

    explicit FakeProviderServer(QObject *parent = nullptr); // listens at once on 127.0.0.1, port 0
    ~FakeProviderServer() override;

    bool isListening() const { return m_server.isListening(); }
    quint16 port() const { return m_server.serverPort(); }
    QUrl baseUrl() const; // http://127.0.0.1:<port>, no trailing slash

    void enqueue(const Response &response);
    // A response serving tests/fixtures/<relativePath>: .sse as text/event-stream, .bin as
    // application/vnd.amazon.eventstream, .json as application/json, anything else as
    // application/octet-stream.
    static Response fixtureResponse(const QString &relativePath, SplitMode split = SplitMode::allAtOnce(),
                                    int status = 200);
    void enqueueFixture(const QString &relativePath, SplitMode split = SplitMode::allAtOnce(),
                        int status = 200);
    static Response jsonResponse(int status, const QByteArray &body, const HeaderList &headers = {});
    // A 200 text/event-stream body in random pieces of 1-40 bytes (seeded by its size), written back to back.
    static Response sseResponse(const QByteArray &body);
    qsizetype pendingResponses() const { return m_responses.size(); }
    // Answers by what was asked (a server of several endpoints, as an OAuth authorization server): a request
    // the responder answers with nullopt takes the next scripted response of the queue.
    using Responder = std::function<std::optional<Response>(const Request &request)>;
    void setResponder(Responder responder) { m_responder = std::move(responder); }

    // Every request received so far, in order. A request that found no scripted response got a 500.
    QList<Request> requests() const { return m_requests; }
    Request lastRequest() const { return m_requests.isEmpty() ? Request() : m_requests.constLast(); }
    void clearRequests() { m_requests.clear(); }
    // Spins the event loop until count requests arrived (or the timeout passed).
    bool waitForRequests(qsizetype count, int timeoutMs = 10000);
    // Spins this thread's event loop until done() is true; false on timeout. Unlike QTRY_* it sleeps only
    // until the next event, and it polls done() at least every 5 ms for state that other threads set.
    static bool spinUntil(const std::function<bool()> &done, int timeoutMs = 10000);

    // Closes every open connection, including stalled ones.
    void closeAllConnections();
    // Resets every open connection (TCP RST, as a crashed proxy does), including stalled ones: with
    // stallAfterBytes, a test resets a stream at the moment it chooses (after the client showed its text).
    void resetAllConnections();

    // Keep-alive: a connection stays open after a complete response ("Connection: keep-alive") and serves the
    // next request, as real providers do. Off by default: every response closes its connection.
    void setKeepAlive(bool keepAlive) { m_keepAlive = keepAlive; }
    // How many connections clients have opened so far.
    int connectionCount() const { return m_connectionCount; }

Q_SIGNALS:
    void requestReceived(int index);  // index into requests()
    void responseFinished(int index); // the whole scripted response (or its truncated part) was written

private:
    struct Connection;

    void onNewConnection();
    void onReadyRead(const std::shared_ptr<Connection> &connection);
    void startResponse(const std::shared_ptr<Connection> &connection);
    void sendNextPiece(const std::shared_ptr<Connection> &connection);

    QTcpServer m_server;
    QQueue<Response> m_responses;
    Responder m_responder;
    QList<Request> m_requests;
    QList<QPointer<QTcpSocket>> m_sockets;
    bool m_keepAlive = false;
    int m_connectionCount = 0;
};

} // namespace keen::test
