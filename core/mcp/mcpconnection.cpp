#include "mcp/mcpconnection.h"

#include "base/logcategories.h"
#include "base/whenfinished.h"
#include "mcp/mcphttptransport.h"
#include "mcp/mcpoauthclient.h"
#include "mcp/mcpoauthstore.h"
#include "mcp/mcpstdiotransport.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QtConcurrent/QtConcurrentRun>

namespace keen {

namespace {

const QString LatestProtocol = QStringLiteral("2025-06-18");
const QStringList SupportedProtocols{LatestProtocol, QStringLiteral("2025-03-26"),
                                     QStringLiteral("2024-11-05")};

// JSON-RPC ids are numbers here; a server echoes them as numbers (or, wrongly, as strings).
qint64 idOf(const QJsonValue &id)
{
    if (id.isDouble())
        return id.toInteger(-1);
    if (id.isString())
        return id.toString().toLongLong();
    return -1;
}

} // namespace

McpConnection::McpConnection(const McpServerConfig &config, const QString &workspace, const QString &dataDir,
                             const QStringList &hiddenEnvironment, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_dataDir(dataDir)
{
    m_credentialSaver.setMaxThreadCount(1);
    m_connectTimer.setSingleShot(true);
    connect(&m_connectTimer, &QTimer::timeout, this,
            [this] { fail(tr("no answer to initialize within %1 s").arg(ConnectTimeoutMs / 1000)); });
    if (!config.problem.isEmpty()) {
        m_state = State::Failed;
        m_detail = config.problem;
        return;
    }
    if (config.disabled) {
        m_state = State::Disabled;
        m_detail = tr("disabled in mcp/configs.json");
        return;
    }
    if (config.transport == McpServerConfig::Transport::Http) {
        m_http = new McpHttpTransport(config.url, config.headers, this);
        if (config.usesOAuth())
            m_http->setRefusalHint(tr("/mcp connect %1 signs in again").arg(config.name));
        m_transport = m_http;
    } else {
        m_transport = new McpStdioTransport(config.command, config.args, config.env, workspace,
                                            hiddenEnvironment, this);
    }
    connect(m_transport, &McpTransport::messageReceived, this, &McpConnection::onMessage);
    connect(m_transport, &McpTransport::failed, this, &McpConnection::fail);
    connect(m_transport, &McpTransport::started, this, &McpConnection::initialize);
    connect(m_transport, &McpTransport::sessionExpired, this, &McpConnection::onSessionExpired);
}

QJsonObject McpConnection::initializeParams()
{
    return {
        {QStringLiteral("protocolVersion"), LatestProtocol},
        {QStringLiteral("capabilities"), QJsonObject()},
        {QStringLiteral("clientInfo"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("keen-desktop")},
                     {QStringLiteral("version"), QCoreApplication::applicationVersion()}}},
    };
}

void McpConnection::onSessionExpired(const QJsonObject &refused)
{
    const qint64 id = idOf(refused.value(QLatin1String("id")));
    const auto pending = m_pending.find(id);
    if (pending == m_pending.end())
        return; // given up on meanwhile
    if (m_resent.contains(id) || m_state != State::Ready) {
        // Refused in the new session too, or while the first one was still being set up.
        const Callback callback = std::move(pending.value());
        m_pending.erase(pending);
        m_resent.remove(id);
        callback({}, tr("the server ended its session (HTTP 404) and did not take the request in a new one"));
        return;
    }
    m_resent.insert(id);
    m_awaitingSession.append(refused);
    if (m_reopening)
        return;
    m_reopening = true;
    qCInfo(LogCategories::mcp()).noquote()
        << "server" << m_config.name << "ended its session; starting a new one";
    request(QStringLiteral("initialize"), initializeParams(),
            [this](const QJsonObject &result, const QString &error) {
                m_reopening = false;
                if (!error.isEmpty()) {
                    m_awaitingSession.clear();
                    fail(tr("the server ended its session and a new one could not start: %1").arg(error));
                    return;
                }
                m_transport->setProtocolVersion(result.value(QLatin1String("protocolVersion")).toString());
                notify(QStringLiteral("notifications/initialized"));
                for (const QJsonObject &again : std::exchange(m_awaitingSession, {})) {
                    if (m_pending.contains(idOf(again.value(QLatin1String("id")))))
                        send(again);
                }
            });
}

void McpConnection::initialize()
{
    request(
        QStringLiteral("initialize"), initializeParams(),
        [this](const QJsonObject &result, const QString &error) {
            if (!error.isEmpty()) {
                // A token refused before its time (revoked, or the server gave no lifetime): renew it
                // once and ask again.
                if (m_credentials && !m_credentials->refreshToken.isEmpty() && !m_renewedAfterRefusal &&
                    error.contains(QLatin1String("HTTP 401"))) {
                    m_renewedAfterRefusal = true;
                    renewToken([this] { initialize(); });
                    return;
                }
                fail(tr("initialize failed: %1").arg(error));
                return;
            }
            const QString version = result.value(QLatin1String("protocolVersion")).toString();
            if (!SupportedProtocols.contains(version)) {
                fail(tr("the server speaks MCP version \"%1\", which this app does not (it knows %2)")
                         .arg(version, SupportedProtocols.join(QStringLiteral(", "))));
                return;
            }
            m_transport->setProtocolVersion(version);
            const QJsonObject info = result.value(QLatin1String("serverInfo")).toObject();
            m_detail = QString(info.value(QLatin1String("name")).toString() + QLatin1Char(' ') +
                               info.value(QLatin1String("version")).toString())
                           .trimmed();
            notify(QStringLiteral("notifications/initialized"));
            if (!result.value(QLatin1String("capabilities")).toObject().contains(QLatin1String("tools"))) {
                m_connectTimer.stop();
                m_state = State::Ready; // a server of prompts or resources only: nothing to call
                Q_EMIT changed();
                return;
            }
            listTools({}, {}, 0);
        });
}

McpConnection::~McpConnection()
{
    // A call still waiting (the server was removed, changed or connected again) ends now, not at its timeout.
    const QHash<qint64, Callback> pending = std::exchange(m_pending, {});
    for (const Callback &callback : pending)
        callback({}, tr("the server was stopped (mcp/configs.json changed or /mcp connect)"));
    if (m_transport)
        m_transport->close();
}

void McpConnection::start()
{
    if (!m_transport || m_state != State::Connecting)
        return;
    m_connectTimer.start(ConnectTimeoutMs);
    if (!m_config.usesOAuth()) {
        m_transport->start();
        return;
    }
    // The keychain answers over D-Bus: asked on the pool, so this thread goes on serving the other servers.
    whenFinished(
        QtConcurrent::run(
            [dataDir = m_dataDir, name = m_config.name] { return McpOAuthStore::load(dataDir, name); }),
        this, [this](const std::optional<McpOAuthCredentials> &stored) {
            if (m_state != State::Connecting)
                return; // timed out meanwhile
            m_credentials = stored;
            if (!m_credentials ||
                m_credentials->resource != McpOAuthClient::canonicalResource(m_config.url)) {
                m_credentials.reset();
                fail(tr("not signed in: /mcp connect %1 signs in with the browser").arg(m_config.name));
                return;
            }
            if (m_credentials->expiresWithin(RenewSeconds)) {
                renewToken([this] { m_transport->start(); });
                return;
            }
            useToken();
            m_transport->start();
        });
}

void McpConnection::useToken()
{
    m_http->setHeader("Authorization", "Bearer " + m_credentials->accessToken.toUtf8());
}

void McpConnection::renewToken(std::function<void()> then)
{
    if (!m_oauth)
        m_oauth = new McpOAuthClient(this);
    m_renewing = true;
    m_oauth->refresh(
        *m_credentials, [this, then = std::move(then)](const Result<McpOAuthCredentials> &renewed) {
            m_renewing = false;
            if (!renewed) {
                m_afterRenewal.clear();
                fail(tr("the sign-in could not be renewed (%1); /mcp connect %2 signs in again")
                         .arg(renewed.error(), m_config.name));
                return;
            }
            m_credentials = renewed.value();
            // Kept for the next start, on the pool (the keychain may take a moment); this connection goes on.
            (void)QtConcurrent::run(&m_credentialSaver, [dataDir = m_dataDir, name = m_config.name,
                                                         credentials = *m_credentials] {
                if (const auto saved = McpOAuthStore::save(dataDir, name, credentials); !saved)
                    qWarning("%s", qPrintable(saved.error()));
            });
            qCInfo(LogCategories::mcp()).noquote() << "server" << m_config.name << "sign-in renewed";
            useToken();
            then();
        });
}

void McpConnection::send(const QJsonObject &message)
{
    if (m_renewing) {
        m_afterRenewal.append(message);
        return;
    }
    // A long session outlives its token: renew it before the request that would be refused.
    if (m_credentials && m_state == State::Ready && !m_credentials->refreshToken.isEmpty() &&
        m_credentials->expiresWithin(RenewSeconds)) {
        m_afterRenewal.append(message);
        renewToken([this] {
            for (const QJsonObject &waiting : std::exchange(m_afterRenewal, {}))
                m_transport->send(waiting);
        });
        return;
    }
    m_transport->send(message);
}

qint64 McpConnection::request(const QString &method, const QJsonObject &params, Callback callback)
{
    const qint64 id = m_nextId++;
    if (!m_transport || m_state == State::Failed || m_state == State::Disabled) {
        callback({}, m_detail.isEmpty() ? tr("the server is not connected") : m_detail);
        return id;
    }
    m_pending.insert(id, std::move(callback));
    send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                     {QStringLiteral("id"), id},
                     {QStringLiteral("method"), method},
                     {QStringLiteral("params"), params}});
    return id;
}

void McpConnection::cancelRequest(qint64 id, const QString &reason)
{
    if (!m_pending.remove(id))
        return;
    notify(QStringLiteral("notifications/cancelled"),
           QJsonObject{{QStringLiteral("requestId"), id}, {QStringLiteral("reason"), reason}});
}

void McpConnection::notify(const QString &method, const QJsonObject &params)
{
    if (!m_transport || m_state == State::Failed)
        return;
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    send(message);
}

void McpConnection::onMessage(const QJsonObject &message)
{
    const QString method = message.value(QLatin1String("method")).toString();
    if (!method.isEmpty()) {
        if (message.contains(QLatin1String("id"))) {
            answerServerRequest(message);
        } else if (method == QLatin1String("notifications/tools/list_changed") && m_state == State::Ready) {
            listTools({}, {}, 0);
        }
        return; // progress, log messages and the like: nothing to show
    }
    const auto it = m_pending.find(idOf(message.value(QLatin1String("id"))));
    if (it == m_pending.end())
        return; // an answer to a request given up on
    const Callback callback = std::move(it.value());
    m_pending.erase(it);
    m_resent.remove(idOf(message.value(QLatin1String("id"))));
    if (message.contains(QLatin1String("error"))) {
        const QJsonObject error = message.value(QLatin1String("error")).toObject();
        QString text = error.value(QLatin1String("message")).toString();
        if (text.isEmpty())
            text = tr("error %1").arg(error.value(QLatin1String("code")).toInt());
        callback({}, text);
        return;
    }
    callback(message.value(QLatin1String("result")).toObject(), {});
}

void McpConnection::answerServerRequest(const QJsonObject &message)
{
    const QJsonValue id = message.value(QLatin1String("id"));
    if (message.value(QLatin1String("method")).toString() == QLatin1String("ping")) {
        m_transport->send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("id"), id},
                                      {QStringLiteral("result"), QJsonObject()}});
        return;
    }
    // This client offers no sampling, roots or elicitation.
    m_transport->send(McpTransport::errorResponse(id, -32601, QStringLiteral("Method not found")));
}

void McpConnection::listTools(const QString &cursor, QList<Tool> collected, int page)
{
    QJsonObject params;
    if (!cursor.isEmpty())
        params.insert(QStringLiteral("cursor"), cursor);
    request(QStringLiteral("tools/list"), params,
            [this, collected, page](const QJsonObject &result, const QString &error) mutable {
                if (!error.isEmpty()) {
                    fail(tr("tools/list failed: %1").arg(error));
                    return;
                }
                for (const QJsonValue &value : result.value(QLatin1String("tools")).toArray()) {
                    const QJsonObject object = value.toObject();
                    Tool tool;
                    tool.name = object.value(QLatin1String("name")).toString();
                    if (tool.name.isEmpty())
                        continue;
                    tool.description = object.value(QLatin1String("description")).toString();
                    tool.inputSchema = object.value(QLatin1String("inputSchema")).toObject();
                    tool.readOnly = object.value(QLatin1String("annotations"))
                                        .toObject()
                                        .value(QLatin1String("readOnlyHint"))
                                        .toBool();
                    collected.append(tool);
                }
                const QString next = result.value(QLatin1String("nextCursor")).toString();
                if (!next.isEmpty() && page + 1 < MaxToolPages) {
                    listTools(next, collected, page + 1);
                    return;
                }
                m_connectTimer.stop();
                qCInfo(LogCategories::mcp()).noquote()
                    << "server" << m_config.name << "ready:" << collected.size() << "tools," << m_detail;
                const bool same = m_state == State::Ready && m_tools == collected;
                m_tools = collected;
                m_state = State::Ready;
                if (!same)
                    Q_EMIT changed();
            });
}

void McpConnection::fail(const QString &message)
{
    if (m_state == State::Failed)
        return;
    m_connectTimer.stop();
    qCInfo(LogCategories::mcp()).noquote() << "server" << m_config.name << "failed:" << message;
    m_state = State::Failed;
    m_detail = message;
    const QHash<qint64, Callback> pending = std::exchange(m_pending, {});
    if (m_transport)
        m_transport->close();
    // The status says so before a waiting call hears it: whoever it was looks at /mcp next.
    Q_EMIT changed();
    for (const Callback &callback : pending)
        callback({}, message);
}

} // namespace keen
