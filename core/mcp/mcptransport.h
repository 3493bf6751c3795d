#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>

namespace keen {

// How JSON-RPC messages reach one MCP server and come back: a local program's stdin and stdout, or HTTP
// requests to a remote server. Lives on the MCP thread (McpHub).
class McpTransport : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    // Starts the program or checks nothing (HTTP): started() or failed() follows.
    virtual void start() = 0;
    // One JSON-RPC request, response or notification. A request that cannot be delivered (an HTTP error)
    // comes back as a JSON-RPC error response for its id, so the caller waits on one path only.
    virtual void send(const QJsonObject &message) = 0;
    // Ends the connection: the program is asked to exit and killed if it does not. No signal follows.
    virtual void close() = 0;
    // The protocol version both sides agreed on in initialize: HTTP sends it with every later request.
    virtual void setProtocolVersion(const QString &version) { Q_UNUSED(version) }

    static QJsonObject errorResponse(const QJsonValue &id, int code, const QString &message)
    {
        return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                           {QStringLiteral("id"), id},
                           {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code},
                                                                 {QStringLiteral("message"), message}}}};
    }

Q_SIGNALS:
    void started();
    void messageReceived(const QJsonObject &message);
    // The connection is gone (the program exited, could not start); what it said last is in the message.
    void failed(const QString &message);
    // HTTP: the server no longer knows the session this request was sent in (404 to a request carrying
    // Mcp-Session-Id). MCP says to start a new session with initialize; the request comes back to be sent
    // again in it. Its id gets no answer until then.
    void sessionExpired(const QJsonObject &request);
};

} // namespace keen
