#include "mcp/mcphub.h"

#include "mcp/mcpskillfiles.h"

#include <QDeadlineTimer>
#include <QMap>
#include <QPointer>

#include <memory>

namespace keen {

// The hub's half on its thread: owns the connections, publishes their state and writes their skills.
class McpHubWorker final : public QObject
{
public:
    McpHubWorker(McpHub *hub, const QString &workspace, const QString &dataDir, const QStringList &hidden)
        : m_hub(hub)
        , m_workspace(workspace)
        , m_dataDir(dataDir)
        , m_hidden(hidden)
    {}

    void configure(const QList<McpServerConfig> &servers)
    {
        QMap<QString, McpServerConfig> wanted;
        for (const McpServerConfig &server : servers)
            wanted.insert(server.name, server);
        bool changed = false;
        for (auto it = m_connections.begin(); it != m_connections.end();) {
            if (wanted.value(it.key()) == it.value()->config() && wanted.contains(it.key())) {
                ++it;
                continue;
            }
            delete it.value();
            it = m_connections.erase(it);
            changed = true;
        }
        for (const McpServerConfig &server : std::as_const(wanted)) {
            if (m_connections.contains(server.name))
                continue;
            add(server);
            changed = true;
        }
        McpSkillFiles::keepOnly(m_dataDir, servers);
        if (changed)
            publish();
    }

    bool reconnect(const QString &name)
    {
        McpConnection *old = m_connections.value(name);
        if (!old)
            return false;
        const McpServerConfig config = old->config();
        m_connections.remove(name);
        delete old;
        add(config);
        publish();
        return true;
    }

    McpConnection *connection(const QString &name) const { return m_connections.value(name); }

    void shutdown()
    {
        qDeleteAll(m_connections);
        m_connections.clear();
    }

private:
    void add(const McpServerConfig &server)
    {
        auto *connection = new McpConnection(server, m_workspace, m_dataDir, m_hidden, this);
        m_connections.insert(server.name, connection);
        connect(connection, &McpConnection::changed, this, [this, connection] {
            if (connection->state() == McpConnection::State::Ready) {
                if (const Result<void> written =
                        McpSkillFiles::write(m_dataDir, connection->config().name, connection->tools());
                    !written)
                    qWarning("%s", qPrintable(written.error()));
            }
            publish();
        });
        connection->start();
    }

    void publish()
    {
        QList<McpHub::ServerStatus> servers;
        for (const McpConnection *connection : std::as_const(m_connections))
            servers.append(
                {connection->config(), connection->state(), connection->detail(), connection->tools()});
        m_hub->publish(servers);
    }

    McpHub *m_hub;
    QString m_workspace;
    QString m_dataDir;
    QStringList m_hidden;
    QMap<QString, McpConnection *> m_connections; // name order
};

McpHub::McpHub(const QString &workspace, const QString &dataDir, const QStringList &hiddenEnvironment)
    : m_worker(new McpHubWorker(this, workspace, dataDir, hiddenEnvironment))
{
    m_thread.setObjectName(QStringLiteral("keen-mcp"));
    m_worker->moveToThread(&m_thread);
    m_thread.start();
}

McpHub::~McpHub()
{
    // The programs are asked to exit on the hub's thread, then the thread ends.
    QMetaObject::invokeMethod(
        m_worker,
        [worker = m_worker] {
            worker->shutdown();
            delete worker;
        },
        Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void McpHub::setStatusListener(std::function<void()> listener)
{
    const QMutexLocker lock(&m_mutex);
    m_listener = std::move(listener);
}

void McpHub::configure(const QList<McpServerConfig> &servers)
{
    {
        // Known at once, before the worker gets to it: a call made right after waits for these servers.
        const QMutexLocker lock(&m_mutex);
        QList<ServerStatus> next;
        for (const McpServerConfig &config : servers) {
            ServerStatus status{config, McpConnection::State::Connecting, {}, {}};
            for (const ServerStatus &known : std::as_const(m_status)) {
                if (known.config == config)
                    status = known;
            }
            if (!config.problem.isEmpty() && status.state == McpConnection::State::Connecting) {
                status.state = McpConnection::State::Failed;
                status.detail = config.problem;
            } else if (config.disabled) {
                status.state = McpConnection::State::Disabled;
            }
            next.append(status);
        }
        m_status = next;
    }
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, servers] { worker->configure(servers); }, Qt::QueuedConnection);
}

bool McpHub::reconnect(const QString &name)
{
    {
        const QMutexLocker lock(&m_mutex);
        auto it = std::find_if(m_status.begin(), m_status.end(),
                               [&](const ServerStatus &status) { return status.config.name == name; });
        if (it == m_status.end())
            return false;
        if (it->state != McpConnection::State::Disabled && it->config.problem.isEmpty()) {
            it->state = McpConnection::State::Connecting;
            it->detail.clear();
        }
    }
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, name] { worker->reconnect(name); }, Qt::QueuedConnection);
    return true;
}

void McpHub::publish(const QList<ServerStatus> &servers)
{
    std::function<void()> listener;
    {
        const QMutexLocker lock(&m_mutex);
        m_status = servers;
        listener = m_listener;
    }
    m_changed.wakeAll();
    if (listener)
        listener();
}

QList<McpHub::ServerStatus> McpHub::status() const
{
    const QMutexLocker lock(&m_mutex);
    return m_status;
}

std::optional<McpHub::ServerStatus> McpHub::server(const QString &name) const
{
    const QMutexLocker lock(&m_mutex);
    for (const ServerStatus &status : m_status) {
        if (status.config.name == name)
            return status;
    }
    return std::nullopt;
}

bool McpHub::isEmpty() const
{
    const QMutexLocker lock(&m_mutex);
    return m_status.isEmpty();
}

bool McpHub::waitUntilSettled(int timeoutMs) const
{
    const QDeadlineTimer deadline(timeoutMs);
    QMutexLocker lock(&m_mutex);
    auto connecting = [this] {
        return std::any_of(m_status.cbegin(), m_status.cend(), [](const ServerStatus &status) {
            return status.state == McpConnection::State::Connecting;
        });
    };
    while (connecting()) {
        if (!m_changed.wait(&m_mutex, deadline))
            return !connecting();
    }
    return true;
}

Result<McpHub::ServerStatus> McpHub::readyServer(const QString &name, const CancellationToken &cancel) const
{
    using R = Result<ServerStatus>;
    // A server still starting (the first turn after the window opened) is worth waiting for.
    const QDeadlineTimer connectDeadline(McpConnection::ConnectTimeoutMs);
    for (;;) {
        const std::optional<ServerStatus> status = server(name);
        if (!status) {
            QStringList names;
            for (const ServerStatus &known : this->status())
                names.append(known.config.name);
            return R::failure(names.isEmpty() ? tr("no MCP server is configured")
                                              : tr("no MCP server is named %1; the servers are %2")
                                                    .arg(name, names.join(QStringLiteral(", "))));
        }
        switch (status->state) {
        case McpConnection::State::Ready:
            return *status;
        case McpConnection::State::Disabled:
            return R::failure(tr("the MCP server %1 is disabled in mcp/configs.json").arg(name));
        case McpConnection::State::Failed:
            return R::failure(tr("the MCP server %1 is not available: %2").arg(name, status->detail));
        case McpConnection::State::Connecting:
            break;
        }
        if (cancel.isCancelled())
            return R::failure(tr("Cancelled while waiting for the MCP server %1 to start.").arg(name));
        if (connectDeadline.hasExpired())
            return R::failure(tr("the MCP server %1 is still starting after %2 s")
                                  .arg(name)
                                  .arg(McpConnection::ConnectTimeoutMs / 1000));
        QMutexLocker lock(&m_mutex);
        m_changed.wait(&m_mutex, QDeadlineTimer(100));
    }
}

Result<QJsonObject> McpHub::callTool(const QString &server, const QString &tool, const QJsonObject &arguments,
                                     const CancellationToken &cancel)
{
    using R = Result<QJsonObject>;
    const Result<ServerStatus> status = readyServer(server, cancel);
    if (!status)
        return R::failure(status.error());

    // The answer is handed over from the hub's thread.
    struct Pending
    {
        QMutex mutex;
        QWaitCondition done;
        bool finished = false;
        QJsonObject result;
        QString error;
        qint64 requestId = -1;
        bool abandoned = false; // the caller gave up before the request went out
    };
    auto pending = std::make_shared<Pending>();
    auto finish = [pending](const QJsonObject &result, const QString &error) {
        const QMutexLocker lock(&pending->mutex);
        pending->finished = true;
        pending->result = result;
        pending->error = error;
        pending->done.wakeAll();
    };
    QMetaObject::invokeMethod(
        m_worker,
        [worker = m_worker, server, tool, arguments, pending, finish] {
            McpConnection *connection = worker->connection(server);
            {
                const QMutexLocker lock(&pending->mutex);
                if (pending->abandoned)
                    return;
            }
            if (!connection) {
                finish({}, McpHub::tr("no MCP server is named %1").arg(server));
                return;
            }
            const qint64 id = connection->request(
                QStringLiteral("tools/call"),
                QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}},
                finish);
            const QMutexLocker lock(&pending->mutex);
            pending->requestId = id;
        },
        Qt::QueuedConnection);

    const int timeoutSeconds = status->config.callTimeoutSeconds;
    const QDeadlineTimer deadline(qint64(timeoutSeconds) * 1000);
    QMutexLocker lock(&pending->mutex);
    while (!pending->finished) {
        const bool cancelled = cancel.isCancelled();
        if (cancelled || deadline.hasExpired()) {
            const qint64 id = pending->requestId;
            pending->abandoned = true;
            lock.unlock();
            const QString reason =
                cancelled ? QStringLiteral("cancelled by the user") : QStringLiteral("timed out");
            QMetaObject::invokeMethod(
                m_worker,
                [worker = m_worker, server, id, reason] {
                    if (McpConnection *connection = worker->connection(server))
                        connection->cancelRequest(id, reason);
                },
                Qt::QueuedConnection);
            if (cancelled)
                return R::failure(tr("Cancelled while %1/%2 ran.").arg(server, tool));
            return R::failure(tr("%1/%2 did not answer within %3 s (timeout_seconds in mcp/configs.json).")
                                  .arg(server, tool)
                                  .arg(timeoutSeconds));
        }
        pending->done.wait(&pending->mutex, QDeadlineTimer(100));
    }
    if (!pending->error.isEmpty())
        return R::failure(tr("%1/%2 failed: %3").arg(server, tool, pending->error));
    return pending->result;
}

QString McpHub::markdownTable(const QList<ServerStatus> &servers, const QString &configPath)
{
    if (servers.isEmpty())
        return tr("No MCP servers are configured. Add them to `%1`, e.g. "
                  "`{\"servers\": {\"files\": {\"command\": \"npx\", \"args\": [\"-y\", "
                  "\"@modelcontextprotocol/server-filesystem\", \".\"]}}}`.")
            .arg(configPath);
    auto cell = [](QString text) {
        return text.replace(QLatin1Char('|'), QStringLiteral("\\|"))
            .replace(QLatin1Char('\n'), QLatin1Char(' '));
    };
    QString text = QStringLiteral("| %1 | %2 | %3 | %4 |\n|---|---|---|---|\n")
                       .arg(tr("Server"), tr("Status"), tr("Auth"), tr("Detail"));
    for (const ServerStatus &server : servers) {
        QString state;
        QString detail = server.detail;
        switch (server.state) {
        case McpConnection::State::Connecting:
            state = tr("connecting");
            detail = server.config.endpoint();
            break;
        case McpConnection::State::Ready:
            state = tr("connected");
            detail = (server.tools.size() == 1 ? tr("1 tool") : tr("%1 tools").arg(server.tools.size())) +
                     (server.detail.isEmpty() ? QString() : QStringLiteral(" · ") + server.detail);
            break;
        case McpConnection::State::Failed:
            state = tr("failed");
            break;
        case McpConnection::State::Disabled:
            state = tr("disabled");
            break;
        }
        text += QStringLiteral("| %1 | %2 | %3 | %4 |\n")
                    .arg(cell(server.config.name), state, cell(server.config.authSummary()), cell(detail));
    }
    return text;
}

} // namespace keen
