#include "auth/codexcredentials.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>

namespace keen {

bool CodexCredentials::expiresWithin(qint64 marginMs, const QDateTime &now) const
{
    if (accessToken.isEmpty())
        return true;
    if (!expiresAt.isValid())
        return false; // unknown expiry: use it and let a 401 tell
    return now.msecsTo(expiresAt) < marginMs;
}

QJsonObject CodexCredentials::toJson() const
{
    QJsonObject object{
        {QStringLiteral("type"), QStringLiteral("oauth")},
        {QStringLiteral("access_token"), accessToken},
        {QStringLiteral("refresh_token"), refreshToken},
    };
    if (expiresAt.isValid())
        object.insert(QStringLiteral("expires_at"), expiresAt.toUTC().toString(Qt::ISODateWithMs));
    if (!accountId.isEmpty())
        object.insert(QStringLiteral("account_id"), accountId);
    return object;
}

std::optional<CodexCredentials> CodexCredentials::fromJson(const QJsonObject &object)
{
    CodexCredentials credentials;
    credentials.accessToken = object.value(QLatin1String("access_token")).toString();
    if (credentials.accessToken.isEmpty())
        return std::nullopt;
    credentials.refreshToken = object.value(QLatin1String("refresh_token")).toString();
    credentials.accountId = object.value(QLatin1String("account_id")).toString();
    const QJsonValue expires = object.value(QLatin1String("expires_at"));
    if (expires.isString())
        credentials.expiresAt = QDateTime::fromString(expires.toString(), Qt::ISODateWithMs).toUTC();
    else if (expires.isDouble()) // unix seconds, as some tools write it
        credentials.expiresAt = QDateTime::fromSecsSinceEpoch(expires.toInteger(), Qt::UTC);
    return credentials;
}

QJsonObject CodexCredentials::jwtClaims(const QString &jwt)
{
    const QStringList parts = jwt.split(QLatin1Char('.'));
    if (parts.size() != 3)
        return {};
    const auto decoded = QByteArray::fromBase64Encoding(
        parts.at(1).toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    if (!decoded)
        return {};
    return QJsonDocument::fromJson(*decoded).object();
}

QString CodexCredentials::accountIdFromJwt(const QString &jwt)
{
    const QJsonObject claims = jwtClaims(jwt);
    QString id = claims.value(QLatin1String("chatgpt_account_id")).toString();
    if (id.isEmpty())
        id = claims.value(QLatin1String("https://api.openai.com/auth"))
                 .toObject()
                 .value(QLatin1String("chatgpt_account_id"))
                 .toString();
    if (id.isEmpty())
        id = claims.value(QLatin1String("organizations"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QLatin1String("id"))
                 .toString();
    return id;
}

} // namespace keen
