#pragma once

#include "mcp/mcptransport.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QPointer>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

namespace keen {

// A remote MCP server over MCP's Streamable HTTP transport: every message is a POST to the server's URL; the
// answer is a JSON body or a text/event-stream of messages. The server's Mcp-Session-Id goes with every later
// request, and so does the protocol version. The entry's headers (its auth header among them) go with each
// request; error texts never repeat their values. Messages reach the server in the order sent, as on stdio:
// a message sent while a notification is on its way waits for it (the server must see "initialized" before
// the tool list is asked for).
class McpHttpTransport final : public McpTransport
{
    Q_OBJECT

public:
    static constexpr qsizetype MaxBodyBytes = 64 * 1024 * 1024;
    static constexpr qsizetype ErrorExcerptChars = 300;

    McpHttpTransport(const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                     QObject *parent = nullptr);
    ~McpHttpTransport() override;

    void start() override;
    void send(const QJsonObject &message) override;
    void close() override;
    void setProtocolVersion(const QString &version) override { m_protocolVersion = version.toUtf8(); }
    // Sets (or replaces) a header of every later request: a renewed sign-in's token.
    void setHeader(const QByteArray &name, const QByteArray &value);
    // What a 401 or 403 tells the person to do.
    void setRefusalHint(const QString &hint) { m_refusalHint = hint; }

private:
    void post(const QJsonObject &message);
    void finish(QNetworkReply *reply, const QJsonValue &id, bool answered, const QByteArray &body,
                bool stream);
    QString redacted(QString text) const;

    QUrl m_url;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QNetworkAccessManager *m_network = nullptr;
    QString m_refusalHint;
    QByteArray m_sessionId;
    QByteArray m_protocolVersion;
    QList<QPointer<QNetworkReply>> m_replies;
    QList<QJsonObject> m_waiting; // sent while a notification was on its way
    bool m_notificationInFlight = false;
    bool m_closed = false;
};

} // namespace keen
