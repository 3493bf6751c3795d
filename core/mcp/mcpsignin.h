#pragma once

#include "mcp/mcpoauthclient.h"
#include "mcp/mcpoauthcredentials.h"
#include "mcp/mcpserverconfig.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QUrl>

namespace keen {

class OAuthCallbackServer;

// Signing in to one MCP server with the browser (/mcp connect on a server whose auth is "oauth"): find where
// it signs in, register this app as a client when the server allows it, wait on a loopback address for the
// browser's redirect (5 minutes at most), exchange the code (PKCE), and store the tokens (McpOAuthStore, off
// this thread). Lives on the window's thread and never blocks it; the window opens the page it names.
class McpSignIn final : public QObject
{
    Q_OBJECT

public:
    static constexpr int TimeoutMs = 5 * 60 * 1000;

    McpSignIn(const McpServerConfig &server, const QString &dataDir, QObject *parent = nullptr);
    ~McpSignIn() override;

    const QString &serverName() const { return m_server.name; }
    void start();
    // Ends the sign-in without a finished signal; nothing is stored.
    void cancel();

Q_SIGNALS:
    // The page where the person signs in: the window opens it in the browser.
    void browserNeeded(const QUrl &url);
    // ok: the tokens are stored. message is for the person either way.
    void finished(bool ok, const QString &message);

private:
    void authorize(const McpOAuthClient::Endpoints &endpoints, const QString &clientId,
                   const QString &clientSecret);
    // Keeps the tokens (McpOAuthStore, off this thread), then says how it ended.
    void store(McpOAuthCredentials credentials);
    void fail(const QString &reason);

    McpServerConfig m_server;
    QString m_dataDir;
    McpOAuthClient *m_client = nullptr;
    QPointer<OAuthCallbackServer> m_callback;
    QString m_redirect;
    QString m_state; // ties the browser's redirect to this sign-in
    QTimer m_timeout;
    bool m_done = false;
};

} // namespace keen
