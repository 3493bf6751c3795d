#include "fakeoauthmcpserver.h"

#include "auth/pkce.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QUrlQuery>

namespace keen::test {

namespace {

QUrlQuery formOf(const FakeProviderServer::Request &request)
{
    return QUrlQuery(QString::fromLatin1(request.body).replace(QLatin1Char('+'), QLatin1Char(' ')));
}

FakeProviderServer::Response json(int status, const QJsonObject &body,
                                  const FakeProviderServer::HeaderList &headers = {})
{
    return FakeProviderServer::jsonResponse(status, QJsonDocument(body).toJson(QJsonDocument::Compact),
                                            headers);
}

} // namespace

FakeOAuthMcpServer::FakeOAuthMcpServer()
{
    mcp.setResponder([this](const FakeProviderServer::Request &request)
                         -> std::optional<FakeProviderServer::Response> {
        if (request.path == "/.well-known/oauth-protected-resource/mcp")
            return json(200, {{QStringLiteral("resource"), mcpUrl()},
                              {QStringLiteral("authorization_servers"), QJsonArray{issuer()}},
                              {QStringLiteral("scopes_supported"), QJsonArray{QStringLiteral("files")}}});
        if (request.path != "/mcp")
            return json(404, {{QStringLiteral("error"), QStringLiteral("not found")}});
        const QByteArray authorization = request.header("Authorization");
        if (!authorization.startsWith("Bearer ") ||
            !validTokens.contains(QString::fromLatin1(authorization.mid(7))))
            return json(401, {{QStringLiteral("error"), QStringLiteral("invalid_token")}},
                        {{"WWW-Authenticate", "Bearer resource_metadata=\"" + mcp.baseUrl().toEncoded() +
                                                  "/.well-known/oauth-protected-resource/mcp\", "
                                                  "scope=\"files:read\""}});
        const QJsonObject message = request.json.object();
        const QString method = message.value(QStringLiteral("method")).toString();
        const QJsonValue id = message.value(QStringLiteral("id"));
        if (id.isUndefined())
            return FakeProviderServer::Response{202, {}, {}, {}, {}, 1, false};
        QJsonObject result;
        if (method == QLatin1String("initialize"))
            result = {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                      {QStringLiteral("capabilities"), QJsonObject{{QStringLiteral("tools"), QJsonObject()}}},
                      {QStringLiteral("serverInfo"),
                       QJsonObject{{QStringLiteral("name"), QStringLiteral("cloud")},
                                   {QStringLiteral("version"), QStringLiteral("1")}}}};
        else if (method == QLatin1String("tools/list"))
            result = {
                {QStringLiteral("tools"),
                 QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("files_list")},
                                        {QStringLiteral("inputSchema"),
                                         QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}}}};
        return json(200, {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                          {QStringLiteral("id"), id},
                          {QStringLiteral("result"), result}});
    });
    auth.setResponder(
        [this](const FakeProviderServer::Request &request) -> std::optional<FakeProviderServer::Response> {
            const QString base = auth.baseUrl().toString();
            if (request.path == "/.well-known/oauth-authorization-server/tenant") {
                QJsonObject metadata{
                    {QStringLiteral("issuer"), issuer()},
                    {QStringLiteral("authorization_endpoint"), endpoint(QStringLiteral("/authorize"))},
                    {QStringLiteral("token_endpoint"), endpoint(QStringLiteral("/token"))},
                    {QStringLiteral("code_challenge_methods_supported"), QJsonArray{QStringLiteral("S256")}},
                };
                if (registration)
                    metadata.insert(QStringLiteral("registration_endpoint"),
                                    endpoint(QStringLiteral("/register")));
                return json(200, metadata);
            }
            if (request.path == "/tenant/register")
                return json(201, {{QStringLiteral("client_id"), QStringLiteral("client-7")}});
            if (request.path == "/tenant/token") {
                const QUrlQuery form = formOf(request);
                const QString grant = form.queryItemValue(QStringLiteral("grant_type"));
                const bool forServer =
                    form.queryItemValue(QStringLiteral("resource"), QUrl::FullyDecoded) == mcpUrl();
                bool granted = false;
                if (grant == QLatin1String("authorization_code")) {
                    lastVerifier = form.queryItemValue(QStringLiteral("code_verifier"));
                    granted =
                        form.queryItemValue(QStringLiteral("code")) == QLatin1String("code-1") &&
                        QString::fromLatin1(Pkce::challengeForVerifier(lastVerifier.toLatin1())) == challenge;
                } else if (grant == QLatin1String("refresh_token")) {
                    granted =
                        form.queryItemValue(QStringLiteral("refresh_token")) == QLatin1String("refresh-1");
                }
                if (!granted || !forServer ||
                    form.queryItemValue(QStringLiteral("client_id")) != QLatin1String("client-7"))
                    return json(400, {{QStringLiteral("error"), QStringLiteral("invalid_grant")},
                                      {QStringLiteral("error_description"),
                                       QStringLiteral("refresh-1 is not valid")}});
                const QString token = QStringLiteral("access-%1").arg(++issued);
                validTokens.insert(token);
                return json(200, {{QStringLiteral("access_token"), token},
                                  {QStringLiteral("token_type"), QStringLiteral("Bearer")},
                                  {QStringLiteral("expires_in"), expiresIn},
                                  {QStringLiteral("refresh_token"), QStringLiteral("refresh-1")}});
            }
            Q_UNUSED(base)
            return json(404, {{QStringLiteral("error"), QStringLiteral("not found")}});
        });
}

McpServerConfig FakeOAuthMcpServer::config() const
{
    McpServerConfig server;
    server.name = QStringLiteral("cloud");
    server.transport = McpServerConfig::Transport::Http;
    server.url = QUrl(mcpUrl());
    server.authType = QStringLiteral("oauth");
    return server;
}

McpOAuthCredentials FakeOAuthMcpServer::signIn(const QString &accessToken, qint64 expiresInSeconds)
{
    McpOAuthCredentials credentials;
    credentials.resource = mcpUrl();
    credentials.tokenEndpoint = endpoint(QStringLiteral("/token"));
    credentials.clientId = QStringLiteral("client-7");
    credentials.accessToken = accessToken;
    credentials.refreshToken = QStringLiteral("refresh-1");
    credentials.expiresAt = QDateTime::currentDateTimeUtc().addSecs(expiresInSeconds);
    validTokens.insert(accessToken);
    return credentials;
}

int FakeOAuthMcpServer::followRedirect(const QUrl &page, const QString &code, const QString &state)
{
    const QUrlQuery query(page);
    QUrl back(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded));
    back.setQuery(QStringLiteral("code=%1&state=%2")
                      .arg(code, state.isEmpty() ? query.queryItemValue(QStringLiteral("state")) : state));
    QNetworkAccessManager browser;
    QNetworkReply *reply = browser.get(QNetworkRequest(back));
    FakeProviderServer::spinUntil([&] { return reply->isFinished(); });
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    delete reply;
    return status;
}

} // namespace keen::test
