#pragma once

#include "base/cancellationtoken.h"
#include "base/result.h"
#include "mcp/mcpconnection.h"
#include "mcp/mcpserverconfig.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QThread>
#include <QWaitCondition>

#include <functional>
#include <optional>

namespace keen {

class McpHubWorker;

// The MCP servers of a session (reference 8.3, mcp/configs.json): each one connected on the hub's own thread,
// so a slow or hung server never holds up the window or a turn that does not use it. Thread-safe: the status
// is a snapshot any thread may read, and callTool blocks only the calling thread (a tool run on a turn's
// worker). When a server's tools are known they are written as the skill mcp:<server> (McpSkillFiles), which
// is how the model learns what it can call. Not a QObject: whoever owns it may end it on any thread but the
// hub's own (stopping the servers waits for their programs to exit, which the window does off its thread).
class McpHub final
{
    Q_DECLARE_TR_FUNCTIONS(McpHub)
    Q_DISABLE_COPY_MOVE(McpHub)

public:
    struct ServerStatus
    {
        McpServerConfig config;
        McpConnection::State state = McpConnection::State::Connecting;
        QString detail;
        QList<McpConnection::Tool> tools;
    };

    // hiddenEnvironment: variables a server's program never sees (the providers' keys).
    McpHub(const QString &workspace, const QString &dataDir, const QStringList &hiddenEnvironment);
    ~McpHub();

    // Called on the hub's thread whenever a server connected, failed or changed its tools (its skill files
    // are written by then). Set it before configure().
    void setStatusListener(std::function<void()> listener);

    // Starts the servers that are new or whose entry changed, stops those gone; the others keep running.
    void configure(const QList<McpServerConfig> &servers);
    // Stops and starts one server again (/mcp connect); false when no server has that name.
    bool reconnect(const QString &name);

    QList<ServerStatus> status() const;
    std::optional<ServerStatus> server(const QString &name) const;
    bool isEmpty() const;
    // Blocks until no server is still connecting, or timeoutMs passed; false on timeout. Never on the GUI
    // thread.
    bool waitUntilSettled(int timeoutMs) const;

    // The server once it is no longer starting (waited for, up to McpConnection::ConnectTimeoutMs, or until
    // cancel); an error when it is unknown, disabled or failed. Never on the GUI thread.
    Result<ServerStatus> readyServer(const QString &name, const CancellationToken &cancel) const;
    // Calls a tool and waits for its result (the MCP CallToolResult), the server's call timeout, or cancel.
    // A server still connecting is waited for. Never on the GUI thread.
    Result<QJsonObject> callTool(const QString &server, const QString &tool, const QJsonObject &arguments,
                                 const CancellationToken &cancel);

    // What /mcp shows: Server, Status, Auth, Detail; with no server, where to add them (configPath).
    static QString markdownTable(const QList<ServerStatus> &servers, const QString &configPath);

private:
    friend class McpHubWorker;
    void publish(const QList<ServerStatus> &servers); // from the worker

    mutable QMutex m_mutex;
    mutable QWaitCondition m_changed;
    QList<ServerStatus> m_status;
    std::function<void()> m_listener;
    QThread m_thread;
    McpHubWorker *m_worker = nullptr;
};

} // namespace keen
