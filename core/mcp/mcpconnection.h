#pragma once

#include "mcp/mcpoauthcredentials.h"
#include "mcp/mcpserverconfig.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QThreadPool>
#include <QTimer>

#include <functional>
#include <optional>

namespace keen {

class McpHttpTransport;
class McpOAuthClient;
class McpTransport;

// One MCP server's session (MCP 2025-06-18, older servers' 2025-03-26 and 2024-11-05 accepted): initialize,
// the initialized notification, the tool list (all its pages, again when the server says it changed), then
// tools/call requests as the model makes them. The server's own requests get an answer (ping) or "method not
// found". A server signed in to with OAuth gets the stored token, renewed a minute before it expires (and
// once when the server refuses it at initialize). Lives on the MCP thread.
class McpConnection final : public QObject
{
    Q_OBJECT

public:
    static constexpr int ConnectTimeoutMs = 60 * 1000; // npx may fetch the server first
    static constexpr int MaxToolPages = 50;
    static constexpr qint64 RenewSeconds = 60;

    enum class State { Connecting, Ready, Failed, Disabled };

    struct Tool
    {
        QString name;
        QString description;
        QJsonObject inputSchema;
        bool readOnly = false; // annotations.readOnlyHint: plan mode may call it

        bool operator==(const Tool &other) const = default;
    };

    // result is the JSON-RPC result; error is set instead when the request failed.
    using Callback = std::function<void(const QJsonObject &result, const QString &error)>;

    // dataDir holds the OAuth sign-ins (McpOAuthStore).
    McpConnection(const McpServerConfig &config, const QString &workspace, const QString &dataDir,
                  const QStringList &hiddenEnvironment, QObject *parent = nullptr);
    ~McpConnection() override;

    const McpServerConfig &config() const { return m_config; }
    State state() const { return m_state; }
    QString detail() const { return m_detail; } // why it failed; the server's name and version when ready
    const QList<Tool> &tools() const { return m_tools; }

    void start();
    // Sends a request; callback runs once, on this thread. Returns the request's id.
    qint64 request(const QString &method, const QJsonObject &params, Callback callback);
    // The caller gave up on a request: the server hears of it, the callback never runs.
    void cancelRequest(qint64 id, const QString &reason);

Q_SIGNALS:
    void changed(); // state, detail or tools

private:
    void initialize();
    static QJsonObject initializeParams();
    // A new session after the server let the old one go (HTTP 404): initialize again, then resend.
    void onSessionExpired(const QJsonObject &request);
    void send(const QJsonObject &message);
    // Renews the OAuth token, then runs then; a failure fails the connection.
    void renewToken(std::function<void()> then);
    void useToken();
    void onMessage(const QJsonObject &message);
    void answerServerRequest(const QJsonObject &message);
    void notify(const QString &method, const QJsonObject &params = {});
    void listTools(const QString &cursor, QList<Tool> collected, int page);
    void fail(const QString &message);

    McpServerConfig m_config;
    QString m_dataDir;
    McpTransport *m_transport = nullptr;
    McpHttpTransport *m_http = nullptr; // the same object when the server is remote
    std::optional<McpOAuthCredentials> m_credentials;
    McpOAuthClient *m_oauth = nullptr;
    // Saves renewed sign-ins one at a time, in the order they were renewed: two renewals saved side by side
    // on the global pool could leave the older (its refresh token perhaps already spent) as the one kept.
    // Its destructor waits, so the last renewal is kept when the connection ends.
    QThreadPool m_credentialSaver;
    bool m_renewing = false;
    bool m_renewedAfterRefusal = false;
    QList<QJsonObject> m_afterRenewal;    // sent while the token was being renewed
    QList<QJsonObject> m_awaitingSession; // refused with the old session, sent again in the new one
    QSet<qint64> m_resent;                // requests already sent again once: a second refusal is an error
    bool m_reopening = false;
    State m_state = State::Connecting;
    QString m_detail;
    QList<Tool> m_tools;
    QHash<qint64, Callback> m_pending;
    qint64 m_nextId = 1;
    QTimer m_connectTimer;
};

} // namespace keen
