#include "mcp/mcphttptransport.h"

#include "base/secretredaction.h"
#include "stream/sseparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

#include <memory>

namespace keen {

namespace {

QByteArray mimeTypeOf(const QNetworkReply *reply)
{
    return reply->header(QNetworkRequest::ContentTypeHeader)
        .toByteArray()
        .split(';')
        .constFirst()
        .trimmed()
        .toLower();
}

// Messages of one JSON body: an object, or a batch (a list of them).
QList<QJsonObject> messagesOf(const QByteArray &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (document.isObject())
        return {document.object()};
    QList<QJsonObject> messages;
    for (const QJsonValue &value : document.array()) {
        if (value.isObject())
            messages.append(value.toObject());
    }
    return messages;
}

} // namespace

McpHttpTransport::McpHttpTransport(const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                                   QObject *parent)
    : McpTransport(parent)
    , m_url(url)
    , m_headers(headers)
    , m_network(new QNetworkAccessManager(this))
    , m_refusalHint(tr("check the server's auth in mcp/configs.json"))
{}

void McpHttpTransport::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &[existing, existingValue] : m_headers) {
        if (existing.compare(name, Qt::CaseInsensitive) == 0) {
            existingValue = value;
            return;
        }
    }
    m_headers.append({name, value});
}

McpHttpTransport::~McpHttpTransport()
{
    close();
}

void McpHttpTransport::start()
{
    // Nothing to open: the first request (initialize) says whether the server is there.
    QTimer::singleShot(0, this, &McpTransport::started);
}

void McpHttpTransport::send(const QJsonObject &message)
{
    if (m_closed)
        return;
    if (m_notificationInFlight) {
        m_waiting.append(message);
        return;
    }
    post(message);
}

void McpHttpTransport::post(const QJsonObject &message)
{
    QNetworkRequest request(m_url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    for (const auto &[name, value] : std::as_const(m_headers))
        request.setRawHeader(name, value);
    if (!m_sessionId.isEmpty())
        request.setRawHeader("Mcp-Session-Id", m_sessionId);
    if (!m_protocolVersion.isEmpty())
        request.setRawHeader("MCP-Protocol-Version", m_protocolVersion);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    // A tool call may take minutes; the caller's deadline ends it, not the network layer.
    request.setTransferTimeout(0);

    const QJsonValue id = message.value(QLatin1String("id"));
    const bool isRequest = !id.isUndefined() && message.contains(QLatin1String("method"));
    const QByteArray sentInSession = m_sessionId;
    const bool isNotification = id.isUndefined();
    m_notificationInFlight = isNotification;
    QNetworkReply *reply = m_network->post(request, QJsonDocument(message).toJson(QJsonDocument::Compact));
    m_replies.append(reply);

    // The answer to a request arrives as JSON or as events; the request's own answer ends it.
    struct State
    {
        SseParser parser;
        QByteArray body;
        bool answered = false;
        bool stream = false;
    };
    auto state = std::make_shared<State>();
    auto deliver = [this, state, id](const QJsonObject &received) {
        if (received.value(QLatin1String("id")) == id && !received.contains(QLatin1String("method")))
            state->answered = true;
        Q_EMIT messageReceived(received);
    };
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply, state] {
        if (const QByteArray session = reply->rawHeader("Mcp-Session-Id"); !session.isEmpty())
            m_sessionId = session;
        state->stream = mimeTypeOf(reply) == "text/event-stream";
    });
    connect(reply, &QNetworkReply::readyRead, this, [this, reply, state, deliver] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray bytes = reply->readAll();
        if (status < 200 || status >= 300 || !state->stream) {
            if (state->body.size() < MaxBodyBytes)
                state->body += bytes;
            return;
        }
        state->parser.feed(bytes, [&](const SseParser::Event &event) {
            if (m_closed || event.data.isEmpty())
                return;
            for (const QJsonObject &received : messagesOf(event.data))
                deliver(received);
        });
    });
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, state, deliver, id, isRequest, isNotification, message, sentInSession] {
                if (m_closed)
                    return;
                const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                if (status == 404 && isRequest && !sentInSession.isEmpty() && !state->answered) {
                    // The server restarted or let the session go: a new one, then this request again.
                    m_replies.removeAll(reply);
                    reply->deleteLater();
                    if (m_sessionId == sentInSession)
                        m_sessionId.clear();
                    Q_EMIT sessionExpired(message);
                    return;
                }
                if (status >= 200 && status < 300 && !state->stream) {
                    for (const QJsonObject &received : messagesOf(state->body))
                        deliver(received);
                }
                finish(reply, isRequest ? id : QJsonValue(QJsonValue::Undefined), state->answered,
                       state->body, state->stream);
                if (isNotification) {
                    m_notificationInFlight = false;
                    while (!m_notificationInFlight && !m_waiting.isEmpty() && !m_closed)
                        post(m_waiting.takeFirst());
                }
            });
}

void McpHttpTransport::finish(QNetworkReply *reply, const QJsonValue &id, bool answered,
                              const QByteArray &body, bool stream)
{
    m_replies.removeAll(reply);
    reply->deleteLater();
    if (id.isUndefined() || answered)
        return; // a notification or a response (202 Accepted), or a request answered
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    QString message;
    if (status == 0) {
        message = tr("could not reach %1: %2").arg(m_url.host(), reply->errorString());
    } else if (status < 200 || status >= 300) {
        const QString reason =
            QString::fromUtf8(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray());
        message = tr("HTTP %1 %2 from %3")
                      .arg(QString::number(status), reason, m_url.toString(QUrl::RemoveUserInfo));
        if (status == 401 || status == 403)
            message += QStringLiteral(" (%1)").arg(m_refusalHint);
        if (const QString excerpt = QString::fromUtf8(body).simplified().left(ErrorExcerptChars);
            !excerpt.isEmpty())
            message += QStringLiteral(": ") + excerpt;
    } else {
        message = stream ? tr("%1 ended its event stream without an answer").arg(m_url.host())
                         : tr("%1 answered with no JSON-RPC response").arg(m_url.host());
    }
    Q_EMIT messageReceived(errorResponse(id, -32000, redacted(message)));
}

QString McpHttpTransport::redacted(QString text) const
{
    for (const auto &[name, value] : m_headers) {
        text = SecretRedaction::redact(text, QString::fromUtf8(value));
        // "Bearer <key>": the key alone may be quoted too.
        const qsizetype space = value.indexOf(' ');
        if (space > 0)
            text = SecretRedaction::redact(text, QString::fromUtf8(value.mid(space + 1)));
    }
    return text;
}

void McpHttpTransport::close()
{
    if (m_closed)
        return;
    m_closed = true;
    for (const QPointer<QNetworkReply> &reply : std::as_const(m_replies)) {
        if (reply)
            reply->abort();
    }
    m_replies.clear();
}

} // namespace keen
