#include "mcp/mcpoauthcredentials.h"

namespace keen {

QJsonObject McpOAuthCredentials::toJson() const
{
    QJsonObject object{
        {QStringLiteral("resource"), resource},
        {QStringLiteral("token_endpoint"), tokenEndpoint},
        {QStringLiteral("client_id"), clientId},
        {QStringLiteral("access_token"), accessToken},
    };
    if (!clientSecret.isEmpty())
        object.insert(QStringLiteral("client_secret"), clientSecret);
    if (!refreshToken.isEmpty())
        object.insert(QStringLiteral("refresh_token"), refreshToken);
    if (expiresAt.isValid())
        object.insert(QStringLiteral("expires_at"), expiresAt.toSecsSinceEpoch());
    if (!scope.isEmpty())
        object.insert(QStringLiteral("scope"), scope);
    return object;
}

std::optional<McpOAuthCredentials> McpOAuthCredentials::fromJson(const QJsonObject &object)
{
    McpOAuthCredentials credentials;
    credentials.resource = object.value(QLatin1String("resource")).toString();
    credentials.tokenEndpoint = object.value(QLatin1String("token_endpoint")).toString();
    credentials.clientId = object.value(QLatin1String("client_id")).toString();
    credentials.clientSecret = object.value(QLatin1String("client_secret")).toString();
    credentials.accessToken = object.value(QLatin1String("access_token")).toString();
    credentials.refreshToken = object.value(QLatin1String("refresh_token")).toString();
    credentials.scope = object.value(QLatin1String("scope")).toString();
    const QJsonValue expires = object.value(QLatin1String("expires_at"));
    if (expires.isDouble())
        credentials.expiresAt = QDateTime::fromSecsSinceEpoch(expires.toInteger(), Qt::UTC);
    if (credentials.accessToken.isEmpty() || credentials.resource.isEmpty())
        return std::nullopt;
    return credentials;
}

} // namespace keen
