#include "fakeproviderserver.h"

#include "testenvironment.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QHostAddress>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QTimer>

#include <sys/socket.h>

namespace keen::test {

namespace {

// A request head larger than this is answered with 431 and the connection closed, so a runaway client cannot
// make the test eat memory.
constexpr qsizetype MaxHeadBytes = 1024 * 1024;

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 413:
        return "Payload Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 529:
        return "Overloaded";
    default:
        return "Status";
    }
}

QList<QByteArray> splitBody(const QByteArray &body, const FakeProviderServer::SplitMode &mode)
{
    using Kind = FakeProviderServer::SplitMode::Kind;
    QList<QByteArray> pieces;
    if (body.isEmpty())
        return pieces;
    switch (mode.kind) {
    case Kind::AllAtOnce:
        pieces.append(body);
        break;
    case Kind::OneByteAtATime:
        for (qsizetype i = 0; i < body.size(); ++i)
            pieces.append(body.mid(i, 1));
        break;
    case Kind::RandomSplits: {
        QRandomGenerator random(mode.seed);
        const int maxPiece = std::max(1, mode.maxRandomPiece);
        for (qsizetype pos = 0; pos < body.size();) {
            const qsizetype n = std::min<qsizetype>(random.bounded(1, maxPiece + 1), body.size() - pos);
            pieces.append(body.mid(pos, n));
            pos += n;
        }
        break;
    }
    case Kind::ChunkSizes: {
        QList<qsizetype> sizes;
        for (qsizetype s : mode.sizes) {
            if (s > 0)
                sizes.append(s);
        }
        if (sizes.isEmpty()) {
            pieces.append(body);
            break;
        }
        qsizetype turn = 0;
        for (qsizetype pos = 0; pos < body.size(); ++turn) {
            const qsizetype n = std::min(sizes.at(turn % sizes.size()), body.size() - pos);
            pieces.append(body.mid(pos, n));
            pos += n;
        }
        break;
    }
    }
    return pieces;
}

// Keeps the first `limit` bytes of the pieces, cutting the last one kept.
QList<QByteArray> cutPieces(const QList<QByteArray> &pieces, qsizetype limit)
{
    QList<QByteArray> out;
    qsizetype total = 0;
    for (const QByteArray &piece : pieces) {
        if (total >= limit)
            break;
        out.append(piece.left(limit - total));
        total += out.constLast().size();
    }
    return out;
}

// Sends what is written, then resets the connection: SO_LINGER with a zero timeout makes close() send RST
// instead of FIN.
void resetSocket(QTcpSocket *socket)
{
    socket->flush();
    const linger hard{1, 0};
    ::setsockopt(int(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    socket->abort();
}

} // namespace

struct FakeProviderServer::Connection
{
    QPointer<QTcpSocket> socket;
    QByteArray buffer;
    bool requestComplete = false;
    int requestIndex = -1;
    Response response;
    QList<QByteArray> pieces;
    qsizetype nextPiece = 0;
    enum class Ending { Complete, Close, Stall, Reset, Endless } ending = Ending::Complete;
};

QByteArray FakeProviderServer::Request::header(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool FakeProviderServer::Request::hasHeader(QByteArrayView name) const
{
    for (const auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

FakeProviderServer::FakeProviderServer(QObject *parent)
    : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FakeProviderServer::onNewConnection);
    if (!m_server.listen(QHostAddress::LocalHost, 0))
        qWarning("FakeProviderServer: cannot listen: %s", qPrintable(m_server.errorString()));
}

FakeProviderServer::~FakeProviderServer()
{
    closeAllConnections();
}

QUrl FakeProviderServer::baseUrl() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port()));
}

void FakeProviderServer::enqueue(const Response &response)
{
    m_responses.enqueue(response);
}

FakeProviderServer::Response FakeProviderServer::fixtureResponse(const QString &relativePath, SplitMode split,
                                                                 int status)
{
    Response response;
    response.status = status;
    response.body = readFixture(relativePath);
    response.split = split;
    if (relativePath.endsWith(QLatin1String(".sse")))
        response.contentType = "text/event-stream";
    else if (relativePath.endsWith(QLatin1String(".bin")))
        response.contentType = "application/vnd.amazon.eventstream";
    else if (relativePath.endsWith(QLatin1String(".json")))
        response.contentType = "application/json";
    else
        response.contentType = "application/octet-stream";
    return response;
}

void FakeProviderServer::enqueueFixture(const QString &relativePath, SplitMode split, int status)
{
    enqueue(fixtureResponse(relativePath, split, status));
}

FakeProviderServer::Response FakeProviderServer::jsonResponse(int status, const QByteArray &body,
                                                              const HeaderList &headers)
{
    Response response;
    response.status = status;
    response.contentType = "application/json";
    response.headers = headers;
    response.body = body;
    return response;
}

FakeProviderServer::Response FakeProviderServer::sseResponse(const QByteArray &body)
{
    Response response;
    response.contentType = "text/event-stream";
    response.body = body;
    response.split = SplitMode::randomSplits(quint32(body.size()), 40);
    response.delayMs = 0;
    return response;
}

bool FakeProviderServer::waitForRequests(qsizetype count, int timeoutMs)
{
    return spinUntil([&] { return m_requests.size() >= count; }, timeoutMs);
}

bool FakeProviderServer::spinUntil(const std::function<bool()> &done, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    QTimer poll; // wakes the loop for state that other threads change without posting an event
    poll.start(5);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    return true;
}

void FakeProviderServer::closeAllConnections()
{
    const QList<QPointer<QTcpSocket>> sockets = std::exchange(m_sockets, {});
    for (const QPointer<QTcpSocket> &socket : sockets) {
        if (socket) {
            socket->abort();
            socket->deleteLater();
        }
    }
}

void FakeProviderServer::resetAllConnections()
{
    const QList<QPointer<QTcpSocket>> sockets = std::exchange(m_sockets, {});
    for (const QPointer<QTcpSocket> &socket : sockets) {
        if (socket) {
            resetSocket(socket);
            socket->deleteLater();
        }
    }
}

void FakeProviderServer::onNewConnection()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        ++m_connectionCount;
        auto connection = std::make_shared<Connection>();
        connection->socket = socket;
        // Without this, Nagle's algorithm holds each small piece back until the previous one is acknowledged.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        m_sockets.removeAll(QPointer<QTcpSocket>());
        m_sockets.append(socket);
        connect(socket, &QTcpSocket::readyRead, this, [this, connection] { onReadyRead(connection); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }
}

void FakeProviderServer::onReadyRead(const std::shared_ptr<Connection> &connection)
{
    QTcpSocket *socket = connection->socket;
    if (!socket)
        return;
    connection->buffer.append(socket->readAll());
    if (connection->requestComplete)
        return; // the next request on a kept-alive connection is read when this response has ended

    const qsizetype headEnd = connection->buffer.indexOf("\r\n\r\n");
    if (headEnd < 0) {
        if (connection->buffer.size() > MaxHeadBytes) {
            socket->write("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: "
                          "close\r\n\r\n");
            socket->disconnectFromHost();
        }
        return;
    }

    Request request;
    const QList<QByteArray> lines = connection->buffer.left(headEnd).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    request.method = requestLine.value(0);
    request.target = requestLine.value(1);
    const qsizetype question = request.target.indexOf('?');
    request.path = question < 0 ? request.target : request.target.left(question);
    request.query = question < 0 ? QByteArray() : request.target.mid(question + 1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            request.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }

    // Bodies come with Content-Length (QNetworkAccessManager sends one for a QByteArray body).
    const qsizetype bodyStart = headEnd + 4;
    bool ok = false;
    const qsizetype contentLength = request.header("content-length").toLongLong(&ok);
    const qsizetype bodyLength = ok ? contentLength : 0;
    if (connection->buffer.size() - bodyStart < bodyLength)
        return;
    request.body = connection->buffer.mid(bodyStart, bodyLength);
    request.json = QJsonDocument::fromJson(request.body);
    connection->requestComplete = true;
    connection->buffer.remove(0, bodyStart + bodyLength); // a kept-alive connection may hold the next one

    m_requests.append(request);
    connection->requestIndex = int(m_requests.size() - 1);
    Q_EMIT requestReceived(connection->requestIndex);
    startResponse(connection);
}

void FakeProviderServer::startResponse(const std::shared_ptr<Connection> &connection)
{
    QTcpSocket *socket = connection->socket;
    if (!socket)
        return;
    std::optional<Response> routed;
    if (m_responder)
        routed = m_responder(m_requests.at(connection->requestIndex));
    if (routed) {
        connection->response = *routed;
    } else if (m_responses.isEmpty()) {
        const Request &request = m_requests.at(connection->requestIndex);
        qWarning("FakeProviderServer: no scripted response for %s %s", request.method.constData(),
                 request.target.constData());
        connection->response =
            jsonResponse(500, R"({"error":{"message":"FakeProviderServer: no scripted response"}})");
    } else {
        connection->response = m_responses.dequeue();
    }
    const Response &response = connection->response;

    QList<QByteArray> pieces = splitBody(response.body, response.split);
    if (response.stallAfterBytes >= 0) {
        pieces = cutPieces(pieces, response.stallAfterBytes);
        connection->ending = Connection::Ending::Stall;
    } else if (response.closeAfterBytes >= 0) {
        pieces = cutPieces(pieces, response.closeAfterBytes);
        connection->ending = Connection::Ending::Close;
    } else if (response.resetAfterBytes >= 0) {
        pieces = cutPieces(pieces, response.resetAfterBytes);
        connection->ending = Connection::Ending::Reset;
    } else if (!response.endlessPiece.isEmpty()) {
        connection->ending = Connection::Ending::Endless;
    }
    connection->pieces = pieces;

    QByteArray head =
        "HTTP/1.1 " + QByteArray::number(response.status) + ' ' + reasonPhrase(response.status) + "\r\n";
    if (!response.contentType.isEmpty())
        head += "Content-Type: " + response.contentType + "\r\n";
    for (const auto &[name, value] : response.headers)
        head += name + ": " + value + "\r\n";
    if (response.chunked)
        head += "Transfer-Encoding: chunked\r\n";
    else
        head += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n";
    head += m_keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    socket->write(head);
    socket->flush();
    sendNextPiece(connection);
}

void FakeProviderServer::sendNextPiece(const std::shared_ptr<Connection> &connection)
{
    QTcpSocket *socket = connection->socket;
    if (!socket || socket->state() != QAbstractSocket::ConnectedState)
        return; // the client hung up: nothing more to write
    const Response &response = connection->response;

    if (connection->nextPiece >= connection->pieces.size()) {
        switch (connection->ending) {
        case Connection::Ending::Complete:
            if (response.chunked)
                socket->write("0\r\n\r\n");
            if (m_keepAlive) {
                // Ready for the next request on this connection, which may already be buffered.
                const int index = connection->requestIndex;
                connection->requestComplete = false;
                connection->pieces.clear();
                connection->nextPiece = 0;
                socket->flush();
                Q_EMIT responseFinished(index);
                if (!connection->buffer.isEmpty())
                    onReadyRead(connection);
                return;
            }
            socket->disconnectFromHost(); // after the pending bytes are written
            break;
        case Connection::Ending::Close:
            socket->disconnectFromHost(); // no terminating chunk: the body is cut short
            break;
        case Connection::Ending::Stall:
            break; // keep the connection open and silent
        case Connection::Ending::Reset:
            resetSocket(socket);
            break;
        case Connection::Ending::Endless:
            connection->pieces = {response.endlessPiece};
            connection->nextPiece = 0;
            sendNextPiece(connection);
            return;
        }
        Q_EMIT responseFinished(connection->requestIndex);
        return;
    }

    // Each piece is written and flushed on its own timer tick, so it reaches the client as its own read. A
    // body that never ends waits at least 1 ms between pieces: back-to-back zero timers would never let this
    // thread return to its event loop.
    const int minimumDelay = connection->ending == Connection::Ending::Endless ? 1 : 0;
    QTimer::singleShot(
        std::max(minimumDelay, response.delayMs), Qt::PreciseTimer, socket, [this, connection] {
            QTcpSocket *s = connection->socket;
            // The client may have hung up (a decoder that stopped reading aborts its reply): the socket is
            // closed before it is deleted, and writing to it would only warn "device not open".
            if (!s || s->state() != QAbstractSocket::ConnectedState)
                return;
            // A body that never ends waits while the client has not read what was sent: the socket's buffer
            // would otherwise grow without bound and the timer ticks would starve everything else.
            if (connection->ending == Connection::Ending::Endless && s->bytesToWrite() > 256 * 1024) {
                QTimer::singleShot(1, s, [this, connection] { sendNextPiece(connection); });
                return;
            }
            const QByteArray &piece = connection->pieces.at(connection->nextPiece++);
            if (connection->response.chunked)
                s->write(QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n");
            else
                s->write(piece);
            s->flush();
            sendNextPiece(connection);
        });
}

} // namespace keen::test
