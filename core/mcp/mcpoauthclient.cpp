#include "mcp/mcpoauthclient.h"

#include "base/secretredaction.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>

#include <memory>

namespace keen {

namespace {

QByteArray formField(const char *name, const QString &value)
{
    return QByteArray(name) + '=' + QUrl::toPercentEncoding(value);
}

QUrl originOf(const QUrl &url)
{
    QUrl origin;
    origin.setScheme(url.scheme());
    origin.setHost(url.host());
    origin.setPort(url.port());
    return origin;
}

bool sameOrigin(const QUrl &a, const QUrl &b)
{
    return a.scheme().compare(b.scheme(), Qt::CaseInsensitive) == 0 &&
           a.host().compare(b.host(), Qt::CaseInsensitive) == 0 &&
           a.port(a.scheme() == QLatin1String("https") ? 443 : 80) ==
               b.port(b.scheme() == QLatin1String("https") ? 443 : 80);
}

QString pathWithoutTrailingSlash(const QUrl &url)
{
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

// {"error": "invalid_grant", "error_description": "..."} as RFC 6749 words it, or the body's start.
QString oauthError(const QByteArray &body)
{
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    QString detail = object.value(QLatin1String("error_description")).toString();
    const QString code = object.value(QLatin1String("error")).toString();
    if (!code.isEmpty())
        detail = detail.isEmpty() ? code : code + QStringLiteral(": ") + detail;
    if (detail.isEmpty())
        detail = QString::fromUtf8(body).simplified().left(300);
    return detail.isEmpty() ? McpOAuthClient::tr("no details") : detail;
}

} // namespace

McpOAuthClient::McpOAuthClient(QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
{}

McpOAuthClient::~McpOAuthClient()
{
    abort();
}

void McpOAuthClient::abort()
{
    ++m_generation;
    for (QNetworkReply *reply : m_network->findChildren<QNetworkReply *>())
        reply->abort();
}

void McpOAuthClient::send(const QNetworkRequest &prepared, const QByteArray &verb, const QByteArray &body,
                          Reply handler)
{
    QNetworkRequest request = prepared;
    request.setTransferTimeout(RequestTimeoutMs);
    // Metadata and tokens come from where they were asked: a redirect elsewhere is not followed.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    QNetworkReply *reply = m_network->sendCustomRequest(request, verb, body);
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, handler = std::move(handler), generation = m_generation] {
                reply->deleteLater();
                if (generation != m_generation)
                    return;
                const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                handler(status, reply, reply->read(1024 * 1024));
            });
}

void McpOAuthClient::firstJson(QList<QUrl> urls, std::function<bool(const QJsonObject &)> accept,
                               std::function<void(std::optional<QJsonObject>)> done)
{
    if (urls.isEmpty()) {
        done(std::nullopt);
        return;
    }
    const QUrl url = urls.takeFirst();
    QNetworkRequest request(url);
    request.setRawHeader("Accept", "application/json");
    request.setRawHeader("MCP-Protocol-Version", "2025-06-18");
    send(request, "GET", {}, [this, urls, accept, done](int status, QNetworkReply *, const QByteArray &body) {
        const QJsonDocument document = QJsonDocument::fromJson(body);
        if (status == 200 && document.isObject() && accept(document.object())) {
            done(document.object());
            return;
        }
        firstJson(urls, accept, done);
    });
}

void McpOAuthClient::discover(const McpServerConfig &server, Done<Endpoints> done)
{
    // An unsigned request: a server that wants a sign-in answers 401 and says where its metadata is.
    QNetworkRequest probe(server.url);
    probe.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    probe.setRawHeader("Accept", "application/json, text/event-stream");
    const QJsonObject initialize{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("id"), 0},
        {QStringLiteral("method"), QStringLiteral("initialize")},
        {QStringLiteral("params"),
         QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                     {QStringLiteral("capabilities"), QJsonObject()},
                     {QStringLiteral("clientInfo"),
                      QJsonObject{{QStringLiteral("name"), QStringLiteral("keen-desktop")}}}}},
    };
    send(probe, "POST", QJsonDocument(initialize).toJson(QJsonDocument::Compact),
         [this, server, done](int status, QNetworkReply *reply, const QByteArray &) {
             if (status == 0) {
                 done(Result<Endpoints>::failure(
                     tr("cannot reach %1: %2").arg(server.url.host(), reply->errorString())));
                 return;
             }
             const Challenge challenge = parseChallenge(reply->rawHeader("WWW-Authenticate"));
             QList<QUrl> candidates;
             if (challenge.resourceMetadata.isValid())
                 candidates.append(challenge.resourceMetadata);
             candidates += resourceMetadataUrls(server.url);
             firstJson(
                 candidates,
                 [](const QJsonObject &metadata) {
                     const QJsonArray servers =
                         metadata.value(QLatin1String("authorization_servers")).toArray();
                     return !servers.isEmpty() && servers.first().isString();
                 },
                 [this, server, challenge, done](std::optional<QJsonObject> resourceMetadata) {
                     Endpoints endpoints;
                     endpoints.resource = canonicalResource(server.url);
                     endpoints.scopes = server.oauthScopes;
                     if (endpoints.scopes.isEmpty())
                         endpoints.scopes = challenge.scope.split(QLatin1Char(' '), Qt::SkipEmptyParts);
                     QUrl issuer = originOf(server.url); // 2025-03-26: the server's origin signs in
                     if (resourceMetadata) {
                         const QString named = resourceMetadata->value(QLatin1String("resource")).toString();
                         if (!named.isEmpty()) {
                             // RFC 9728 3.3: metadata for another resource must not be used.
                             if (!sameOrigin(QUrl(named), server.url)) {
                                 done(Result<Endpoints>::failure(
                                     tr("%1's metadata is for another server (%2)")
                                         .arg(server.url.host(), QUrl(named).host())));
                                 return;
                             }
                             endpoints.resource = named;
                         }
                         issuer = QUrl(resourceMetadata->value(QLatin1String("authorization_servers"))
                                           .toArray()
                                           .first()
                                           .toString());
                         if (endpoints.scopes.isEmpty()) {
                             for (const QJsonValue &scope :
                                  resourceMetadata->value(QLatin1String("scopes_supported")).toArray())
                                 endpoints.scopes.append(scope.toString());
                         }
                     }
                     const bool legacy = !resourceMetadata;
                     firstJson(
                         authorizationServerMetadataUrls(issuer),
                         [](const QJsonObject &metadata) {
                             return metadata.value(QLatin1String("authorization_endpoint")).isString() &&
                                    metadata.value(QLatin1String("token_endpoint")).isString();
                         },
                         [server, issuer, legacy, endpoints,
                          done](std::optional<QJsonObject> metadata) mutable {
                             if (metadata) {
                                 endpoints.authorization = QUrl(
                                     metadata->value(QLatin1String("authorization_endpoint")).toString());
                                 endpoints.token =
                                     QUrl(metadata->value(QLatin1String("token_endpoint")).toString());
                                 endpoints.registration =
                                     QUrl(metadata->value(QLatin1String("registration_endpoint")).toString());
                                 const QJsonArray methods =
                                     metadata->value(QLatin1String("code_challenge_methods_supported"))
                                         .toArray();
                                 if (!methods.isEmpty() && !methods.contains(QStringLiteral("S256"))) {
                                     done(Result<Endpoints>::failure(
                                         tr("the authorization server %1 does not offer PKCE with S256, "
                                            "which MCP requires")
                                             .arg(issuer.host())));
                                     return;
                                 }
                             } else if (legacy) {
                                 // 2025-03-26 without metadata: the default endpoints at the origin.
                                 const QString base = issuer.toString(QUrl::StripTrailingSlash);
                                 endpoints.authorization = QUrl(base + QStringLiteral("/authorize"));
                                 endpoints.token = QUrl(base + QStringLiteral("/token"));
                                 endpoints.registration = QUrl(base + QStringLiteral("/register"));
                             } else {
                                 done(Result<Endpoints>::failure(
                                     tr("%1 names the authorization server %2, which publishes no OAuth "
                                        "metadata")
                                         .arg(server.url.host(), issuer.toString())));
                                 return;
                             }
                             for (const QUrl &endpoint : {endpoints.authorization, endpoints.token}) {
                                 if (!endpoint.isValid() || !isSecureEndpoint(endpoint)) {
                                     done(Result<Endpoints>::failure(
                                         tr("the sign-in address %1 is not HTTPS; tokens are only sent "
                                            "over HTTPS (or to this computer)")
                                             .arg(endpoint.toString(QUrl::RemoveQuery))));
                                     return;
                                 }
                             }
                             if (!endpoints.registration.isEmpty() &&
                                 !isSecureEndpoint(endpoints.registration))
                                 endpoints.registration.clear();
                             done(endpoints);
                         });
                 });
         });
}

void McpOAuthClient::registerClient(const Endpoints &endpoints, const QString &redirect,
                                    Done<Registration> done)
{
    if (endpoints.registration.isEmpty()) {
        done(Result<Registration>::failure(
            tr("the server does not register clients itself; register Keen Desktop with it (redirect %1) and "
               "put its \"client_id\" in the server's \"auth\" entry")
                .arg(redirect)));
        return;
    }
    QNetworkRequest request(endpoints.registration);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json");
    QJsonObject body{
        {QStringLiteral("client_name"), QStringLiteral("Keen Desktop")},
        {QStringLiteral("redirect_uris"), QJsonArray{redirect}},
        {QStringLiteral("grant_types"),
         QJsonArray{QStringLiteral("authorization_code"), QStringLiteral("refresh_token")}},
        {QStringLiteral("response_types"), QJsonArray{QStringLiteral("code")}},
        {QStringLiteral("token_endpoint_auth_method"), QStringLiteral("none")},
    };
    if (!endpoints.scopes.isEmpty())
        body.insert(QStringLiteral("scope"), endpoints.scopes.join(QLatin1Char(' ')));
    send(request, "POST", QJsonDocument(body).toJson(QJsonDocument::Compact),
         [done](int status, QNetworkReply *reply, const QByteArray &answer) {
             if (status == 0) {
                 done(Result<Registration>::failure(
                     tr("cannot reach the client registration: %1").arg(reply->errorString())));
                 return;
             }
             const QJsonObject object = QJsonDocument::fromJson(answer).object();
             const QString clientId = object.value(QLatin1String("client_id")).toString();
             if (status < 200 || status >= 300 || clientId.isEmpty()) {
                 done(Result<Registration>::failure(
                     tr("the client registration failed (HTTP %1): %2").arg(status).arg(oauthError(answer))));
                 return;
             }
             done(Registration{clientId, object.value(QLatin1String("client_secret")).toString()});
         });
}

void McpOAuthClient::exchangeCode(const McpOAuthCredentials &client, const QString &code,
                                  const QByteArray &verifier, const QString &redirect,
                                  Done<McpOAuthCredentials> done)
{
    const QByteArray form = formField("grant_type", QStringLiteral("authorization_code")) + '&' +
                            formField("code", code) + '&' + formField("redirect_uri", redirect) + '&' +
                            formField("code_verifier", QString::fromLatin1(verifier));
    postToken(client, form, std::move(done));
}

void McpOAuthClient::refresh(const McpOAuthCredentials &current, Done<McpOAuthCredentials> done)
{
    if (current.refreshToken.isEmpty()) {
        done(Result<McpOAuthCredentials>::failure(tr("the sign-in has expired")));
        return;
    }
    const QByteArray form = formField("grant_type", QStringLiteral("refresh_token")) + '&' +
                            formField("refresh_token", current.refreshToken);
    postToken(current, form, std::move(done));
}

void McpOAuthClient::postToken(const McpOAuthCredentials &base, const QByteArray &grant,
                               Done<McpOAuthCredentials> done)
{
    const QUrl endpoint(base.tokenEndpoint);
    if (!endpoint.isValid() || !isSecureEndpoint(endpoint)) {
        done(Result<McpOAuthCredentials>::failure(tr("the token address is not HTTPS")));
        return;
    }
    QByteArray form =
        grant + '&' + formField("client_id", base.clientId) + '&' + formField("resource", base.resource);
    if (!base.clientSecret.isEmpty())
        form += '&' + formField("client_secret", base.clientSecret);
    QNetworkRequest request(endpoint);
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      QByteArrayLiteral("application/x-www-form-urlencoded"));
    request.setRawHeader("Accept", "application/json");
    send(request, "POST", form, [base, done](int status, QNetworkReply *reply, const QByteArray &body) {
        if (status == 0) {
            done(Result<McpOAuthCredentials>::failure(
                tr("cannot reach %1: %2").arg(QUrl(base.tokenEndpoint).host(), reply->errorString())));
            return;
        }
        done(parseTokenResponse(status, body, base));
    });
}

McpOAuthClient::Challenge McpOAuthClient::parseChallenge(const QByteArray &wwwAuthenticate)
{
    // Bearer realm="x", resource_metadata="https://...", scope="a b", error="invalid_token"
    Challenge challenge;
    static const QRegularExpression parameter(
        QStringLiteral("([A-Za-z_]+)\\s*=\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|([^\\s,]+))"));
    const QString header = QString::fromLatin1(wwwAuthenticate);
    for (auto it = parameter.globalMatch(header); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        const QString name = match.captured(1).toLower();
        QString value = match.captured(2).isNull() ? match.captured(3) : match.captured(2);
        value.replace(QStringLiteral("\\\""), QStringLiteral("\""));
        if (name == QLatin1String("resource_metadata"))
            challenge.resourceMetadata = QUrl(value);
        else if (name == QLatin1String("scope"))
            challenge.scope = value;
    }
    if (!challenge.resourceMetadata.isValid() || challenge.resourceMetadata.isRelative())
        challenge.resourceMetadata = QUrl();
    return challenge;
}

QList<QUrl> McpOAuthClient::resourceMetadataUrls(const QUrl &server)
{
    const QString origin = originOf(server).toString();
    const QString path = pathWithoutTrailingSlash(server);
    QList<QUrl> urls;
    if (!path.isEmpty())
        urls.append(QUrl(origin + QStringLiteral("/.well-known/oauth-protected-resource") + path));
    urls.append(QUrl(origin + QStringLiteral("/.well-known/oauth-protected-resource")));
    return urls;
}

QList<QUrl> McpOAuthClient::authorizationServerMetadataUrls(const QUrl &issuer)
{
    const QString origin = originOf(issuer).toString();
    const QString path = pathWithoutTrailingSlash(issuer);
    if (path.isEmpty())
        return {QUrl(origin + QStringLiteral("/.well-known/oauth-authorization-server")),
                QUrl(origin + QStringLiteral("/.well-known/openid-configuration"))};
    return {QUrl(origin + QStringLiteral("/.well-known/oauth-authorization-server") + path),
            QUrl(origin + QStringLiteral("/.well-known/openid-configuration") + path),
            QUrl(origin + path + QStringLiteral("/.well-known/openid-configuration"))};
}

QString McpOAuthClient::canonicalResource(const QUrl &server)
{
    QUrl url = server.adjusted(QUrl::RemoveFragment | QUrl::RemoveUserInfo);
    url.setScheme(url.scheme().toLower());
    url.setHost(url.host().toLower());
    return url.toString(QUrl::StripTrailingSlash);
}

bool McpOAuthClient::isSecureEndpoint(const QUrl &url)
{
    if (url.scheme() == QLatin1String("https"))
        return true;
    if (url.scheme() != QLatin1String("http"))
        return false;
    const QHostAddress address(url.host());
    return url.host().compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0 ||
           (!address.isNull() && address.isLoopback());
}

QUrl McpOAuthClient::authorizeUrl(const Endpoints &endpoints, const QString &clientId,
                                  const QString &challenge, const QString &state, const QString &redirect)
{
    QList<QPair<QString, QString>> items{
        {QStringLiteral("response_type"), QStringLiteral("code")},
        {QStringLiteral("client_id"), clientId},
        {QStringLiteral("redirect_uri"), redirect},
        {QStringLiteral("code_challenge"), challenge},
        {QStringLiteral("code_challenge_method"), QStringLiteral("S256")},
        {QStringLiteral("state"), state},
        {QStringLiteral("resource"), endpoints.resource},
    };
    if (!endpoints.scopes.isEmpty())
        items.append({QStringLiteral("scope"), endpoints.scopes.join(QLatin1Char(' '))});
    // Appended to a query the endpoint may already have; every value percent-encoded.
    QByteArray query = endpoints.authorization.query(QUrl::FullyEncoded).toLatin1();
    for (const auto &[key, value] : std::as_const(items)) {
        if (!query.isEmpty())
            query += '&';
        query += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    QUrl url = endpoints.authorization;
    url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    return url;
}

Result<McpOAuthCredentials> McpOAuthClient::parseTokenResponse(int status, const QByteArray &body,
                                                               const McpOAuthCredentials &base,
                                                               const QDateTime &now)
{
    using R = Result<McpOAuthCredentials>;
    if (status < 200 || status >= 300) {
        // The server may quote the token it refused.
        const QString detail = SecretRedaction::redact(
            SecretRedaction::redact(oauthError(body), base.refreshToken), base.accessToken);
        return R::failure(tr("the token request failed (HTTP %1): %2").arg(status).arg(detail));
    }
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    McpOAuthCredentials credentials = base;
    credentials.accessToken = object.value(QLatin1String("access_token")).toString();
    if (credentials.accessToken.isEmpty())
        return R::failure(tr("the token response had no access token"));
    const QString type = object.value(QLatin1String("token_type")).toString(QStringLiteral("Bearer"));
    if (type.compare(QLatin1String("Bearer"), Qt::CaseInsensitive) != 0)
        return R::failure(tr("the server issued a \"%1\" token; MCP uses Bearer tokens").arg(type.left(40)));
    if (const QString refresh = object.value(QLatin1String("refresh_token")).toString(); !refresh.isEmpty())
        credentials.refreshToken = refresh;
    const double expiresIn = object.value(QLatin1String("expires_in")).toDouble(-1);
    credentials.expiresAt =
        expiresIn > 0 && expiresIn < 10.0 * 365 * 24 * 3600 ? now.addSecs(qint64(expiresIn)) : QDateTime();
    if (const QString scope = object.value(QLatin1String("scope")).toString(); !scope.isEmpty())
        credentials.scope = scope;
    return credentials;
}

} // namespace keen
