#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace keen {

// A ChatGPT sign-in for the Codex backend (reference 1.4). Holds secrets: never logged or shown.
struct CodexCredentials
{
    QString accessToken;
    QString refreshToken;
    QDateTime expiresAt; // UTC
    QString accountId;   // ChatGPT-Account-Id, empty when the token does not say

    bool operator==(const CodexCredentials &) const = default;

    bool isValid() const { return !accessToken.isEmpty(); }
    // True when the access token is gone or within `marginMs` of expiring.
    bool expiresWithin(qint64 marginMs, const QDateTime &now = QDateTime::currentDateTimeUtc()) const;

    // The auth.json entry: {type:"oauth", access_token, refresh_token, expires_at (RFC 3339), account_id}.
    QJsonObject toJson() const;
    static std::optional<CodexCredentials> fromJson(const QJsonObject &object);

    // The claims of a JWT (its middle part, base64url), or {} when the text is not one. Not verified: the
    // server does that; the app only reads the account id.
    static QJsonObject jwtClaims(const QString &jwt);
    // chatgpt_account_id, https://api.openai.com/auth.chatgpt_account_id, or organizations[0].id.
    static QString accountIdFromJwt(const QString &jwt);
};

} // namespace keen
