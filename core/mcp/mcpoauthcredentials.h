#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace keen {

// What signing in to one MCP server leaves behind (MCP authorization, OAuth 2.1): the tokens, and what is
// needed to renew them without the browser (the token endpoint, the client registered at sign-in, the
// resource they were issued for).
struct McpOAuthCredentials
{
    QString resource; // the server's URL as signed in to; another URL in configs.json needs a new sign-in
    QString tokenEndpoint; // where the refresh token is exchanged
    QString clientId;
    QString clientSecret; // empty for a public client (the usual case)
    QString accessToken;
    QString refreshToken;
    QDateTime expiresAt; // invalid when the server gave no lifetime
    QString scope;

    bool operator==(const McpOAuthCredentials &other) const = default;

    // True when the access token is gone within `seconds` (renewed a minute early, as ChatGPT's is).
    bool expiresWithin(qint64 seconds, const QDateTime &now = QDateTime::currentDateTimeUtc()) const
    {
        return expiresAt.isValid() && now.secsTo(expiresAt) <= seconds;
    }

    QJsonObject toJson() const;
    // nullopt when the object lacks an access token or the resource.
    static std::optional<McpOAuthCredentials> fromJson(const QJsonObject &object);
};

} // namespace keen
