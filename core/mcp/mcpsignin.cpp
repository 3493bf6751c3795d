#include "mcp/mcpsignin.h"

#include "auth/oauthcallbackserver.h"
#include "auth/pkce.h"
#include "base/whenfinished.h"
#include "mcp/mcpoauthstore.h"

#include <QtConcurrent/QtConcurrentRun>

namespace keen {

McpSignIn::McpSignIn(const McpServerConfig &server, const QString &dataDir, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_dataDir(dataDir)
    , m_client(new McpOAuthClient(this))
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this,
            [this] { fail(tr("no sign-in within %1 minutes").arg(TimeoutMs / 60000)); });
}

McpSignIn::~McpSignIn()
{
    cancel();
}

void McpSignIn::start()
{
    m_timeout.start(TimeoutMs);
    // The loopback address first: registration names it as the redirect.
    m_state = Pkce::generateState();
    auto *callback = new OAuthCallbackServer(m_state, this);
    if (Result<void> listening = callback->listen(m_server.oauthCallbackPort); !listening) {
        delete callback;
        fail(listening.error());
        return;
    }
    m_callback = callback;
    m_redirect = QStringLiteral("http://127.0.0.1:%1/auth/callback").arg(callback->port());
    connect(callback, &OAuthCallbackServer::failed, this, &McpSignIn::fail);

    m_client->discover(m_server, [this](const Result<McpOAuthClient::Endpoints> &endpoints) {
        if (!endpoints) {
            fail(endpoints.error());
            return;
        }
        if (!m_server.oauthClientId.isEmpty()) {
            authorize(endpoints.value(), m_server.oauthClientId, m_server.oauthClientSecret);
            return;
        }
        m_client->registerClient(
            endpoints.value(), m_redirect,
            [this, endpoints = endpoints.value()](const Result<McpOAuthClient::Registration> &registration) {
                if (!registration) {
                    fail(registration.error());
                    return;
                }
                authorize(endpoints, registration->clientId, registration->clientSecret);
            });
    });
}

void McpSignIn::authorize(const McpOAuthClient::Endpoints &endpoints, const QString &clientId,
                          const QString &clientSecret)
{
    if (!m_callback)
        return;
    const QByteArray verifier = Pkce::generateVerifier();
    McpOAuthCredentials client;
    client.resource = endpoints.resource;
    client.tokenEndpoint = endpoints.token.toString();
    client.clientId = clientId;
    client.clientSecret = clientSecret;
    connect(m_callback, &OAuthCallbackServer::codeReceived, this,
            [this, client, verifier](const QString &code) {
                m_client->exchangeCode(client, code, verifier, m_redirect,
                                       [this](const Result<McpOAuthCredentials> &signedIn) {
                                           if (!signedIn) {
                                               fail(signedIn.error());
                                               return;
                                           }
                                           store(signedIn.value());
                                       });
            });
    const QString challenge = QString::fromLatin1(Pkce::challengeForVerifier(verifier));
    Q_EMIT browserNeeded(McpOAuthClient::authorizeUrl(endpoints, clientId, challenge, m_state, m_redirect));
}

void McpSignIn::store(McpOAuthCredentials credentials)
{
    credentials.resource = McpOAuthClient::canonicalResource(m_server.url);
    // The keychain answers over D-Bus and the file is synced: not on the window's thread.
    whenFinished(QtConcurrent::run([dataDir = m_dataDir, name = m_server.name, credentials] {
                     return McpOAuthStore::save(dataDir, name, credentials);
                 }),
                 this, [this](const Result<McpOAuthStore::Place> &saved) {
                     if (m_done)
                         return;
                     m_done = true;
                     m_timeout.stop();
                     if (!saved) {
                         Q_EMIT finished(false, tr("Signed in to MCP server %1, but the sign-in could not be "
                                                   "saved: %2")
                                                    .arg(m_server.name, saved.error()));
                         return;
                     }
                     Q_EMIT finished(true, *saved == McpOAuthStore::Place::Keychain
                                               ? tr("Signed in to MCP server %1.").arg(m_server.name)
                                               : tr("Signed in to MCP server %1 (kept in a file only you can "
                                                    "read: no keychain is available).")
                                                     .arg(m_server.name));
                 });
}

void McpSignIn::cancel()
{
    m_done = true;
    m_timeout.stop();
    m_client->abort();
    if (m_callback) {
        m_callback->close();
        m_callback->deleteLater();
    }
}

void McpSignIn::fail(const QString &reason)
{
    if (m_done)
        return;
    cancel();
    Q_EMIT finished(false, tr("Sign-in to MCP server %1 failed: %2").arg(m_server.name, reason));
}

} // namespace keen
