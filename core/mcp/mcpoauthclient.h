#pragma once

#include "base/result.h"
#include "mcp/mcpoauthcredentials.h"
#include "mcp/mcpserverconfig.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;
class QNetworkRequest;

namespace keen {

// The network half of signing in to an MCP server (MCP authorization, 2025-06-18, with 2025-03-26 servers
// still found): where to sign in (the server's 401 challenge, its protected resource metadata of RFC 9728,
// the authorization server's metadata of RFC 8414 or OpenID discovery), dynamic client registration (RFC
// 7591), the authorization code exchange with PKCE and the resource indicator (RFC 8707), and renewing a
// token. Asynchronous: it lives on the thread that made it (the window's for a sign-in, the MCP thread for a
// renewal) and never blocks it. Error texts never hold a token.
class McpOAuthClient final : public QObject
{
    Q_OBJECT

public:
    static constexpr int RequestTimeoutMs = 30 * 1000;

    struct Endpoints
    {
        QUrl authorization;
        QUrl token;
        QUrl registration; // empty: the server registers no clients (client_id must be configured)
        QString resource;  // the MCP server, as tokens are asked for it
        QStringList scopes;
    };
    struct Registration
    {
        QString clientId;
        QString clientSecret;
    };
    // What a 401's WWW-Authenticate header says: where the resource metadata is, which scope is needed.
    struct Challenge
    {
        QUrl resourceMetadata;
        QString scope;
    };

    template<typename T> using Done = std::function<void(const Result<T> &result)>;

    explicit McpOAuthClient(QObject *parent = nullptr);
    ~McpOAuthClient() override;

    void discover(const McpServerConfig &server, Done<Endpoints> done);
    void registerClient(const Endpoints &endpoints, const QString &redirect, Done<Registration> done);
    // client carries the resource, token endpoint and client of the sign-in; the result adds the tokens.
    void exchangeCode(const McpOAuthCredentials &client, const QString &code, const QByteArray &verifier,
                      const QString &redirect, Done<McpOAuthCredentials> done);
    void refresh(const McpOAuthCredentials &current, Done<McpOAuthCredentials> done);
    // Drops every request in flight; their callbacks never run.
    void abort();

    static Challenge parseChallenge(const QByteArray &wwwAuthenticate);
    // Where a server's protected resource metadata may be: with its path, then at its origin.
    static QList<QUrl> resourceMetadataUrls(const QUrl &server);
    // Where an authorization server's metadata may be (RFC 8414 and OpenID Connect discovery, with a path
    // inserted or appended).
    static QList<QUrl> authorizationServerMetadataUrls(const QUrl &issuer);
    // The server's URL as a resource indicator: scheme and host in lower case, no fragment.
    static QString canonicalResource(const QUrl &server);
    // Tokens and codes travel only over HTTPS, or to this machine.
    static bool isSecureEndpoint(const QUrl &url);
    static QUrl authorizeUrl(const Endpoints &endpoints, const QString &clientId, const QString &challenge,
                             const QString &state, const QString &redirect);
    static Result<McpOAuthCredentials>
    parseTokenResponse(int status, const QByteArray &body, const McpOAuthCredentials &base,
                       const QDateTime &now = QDateTime::currentDateTimeUtc());

private:
    using Reply = std::function<void(int status, QNetworkReply *reply, const QByteArray &body)>;
    void send(const QNetworkRequest &request, const QByteArray &verb, const QByteArray &body, Reply handler);
    void firstJson(QList<QUrl> urls, std::function<bool(const QJsonObject &)> accept,
                   std::function<void(std::optional<QJsonObject>)> done);
    void postToken(const McpOAuthCredentials &base, const QByteArray &form, Done<McpOAuthCredentials> done);

    QNetworkAccessManager *m_network = nullptr;
    quint64 m_generation = 0; // abort() moves it on: callbacks of older requests are dropped
};

} // namespace keen
