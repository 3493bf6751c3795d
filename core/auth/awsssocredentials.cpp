#include "auth/awsssocredentials.h"

#include "auth/blockinghttp.h"
#include "base/regularfile.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QUrlQuery>

#include <optional>

namespace keen {

namespace {

QString signInAgain(const QString &profile)
{
    return AwsSsoCredentials::tr("run \"aws sso login --profile %1\" and try again").arg(profile);
}

// "2026-12-06T20:00:00Z"; older CLIs wrote "2026-12-06T20:00:00UTC".
QDateTime parseTime(QString text)
{
    if (text.endsWith(QLatin1String("UTC")))
        text = text.chopped(3) + QLatin1Char('Z');
    return QDateTime::fromString(text, Qt::ISODateWithMs);
}

QString endpoint(const QProcessEnvironment &environment, const char *variable, const QString &fallback)
{
    QString url = environment.value(QLatin1String(variable)).trimmed();
    if (url.isEmpty())
        url = fallback;
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    return url;
}

// An sso-session sign-in holds a refresh token, as the SDKs use it: a new access token from the OIDC service,
// written back to the cache so the CLI shares it. Returns the new token object, or why it could not be had.
std::optional<QJsonObject> refreshed(const QJsonObject &token, const AwsCredentials::Sso &sso,
                                     const QProcessEnvironment &environment, const QString &cachePath,
                                     const CancellationToken &cancel, int timeoutMs, QString &why)
{
    const QString refreshToken = token.value(QStringLiteral("refreshToken")).toString();
    const QString clientId = token.value(QStringLiteral("clientId")).toString();
    const QString clientSecret = token.value(QStringLiteral("clientSecret")).toString();
    const QDateTime registrationExpires =
        parseTime(token.value(QStringLiteral("registrationExpiresAt")).toString());
    if (sso.session.isEmpty() || refreshToken.isEmpty() || clientId.isEmpty() || clientSecret.isEmpty() ||
        (registrationExpires.isValid() && registrationExpires <= QDateTime::currentDateTimeUtc()))
        return std::nullopt; // a legacy profile, or nothing to refresh with
    QNetworkRequest request(QUrl(endpoint(environment, "AWS_ENDPOINT_URL_SSO_OIDC",
                                          QStringLiteral("https://oidc.%1.amazonaws.com").arg(sso.region)) +
                                 QStringLiteral("/token")));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setTransferTimeout(timeoutMs);
    const QByteArray body =
        QJsonDocument(QJsonObject{{QStringLiteral("grantType"), QStringLiteral("refresh_token")},
                                  {QStringLiteral("clientId"), clientId},
                                  {QStringLiteral("clientSecret"), clientSecret},
                                  {QStringLiteral("refreshToken"), refreshToken}})
            .toJson(QJsonDocument::Compact);
    const BlockingHttp::Reply reply = BlockingHttp::send(request, "POST", body, cancel);
    const QJsonObject answer = QJsonDocument::fromJson(reply.body).object();
    const QString accessToken = answer.value(QStringLiteral("accessToken")).toString();
    const double expiresIn = answer.value(QStringLiteral("expiresIn")).toDouble();
    if (reply.cancelled || reply.status != 200 || accessToken.isEmpty() ||
        !(expiresIn > 0 && expiresIn < 1e9)) {
        why = reply.cancelled
                  ? AwsSsoCredentials::tr("cancelled")
                  : (reply.status == 0 ? reply.error : AwsSsoCredentials::tr("HTTP %1").arg(reply.status));
        return std::nullopt;
    }
    QJsonObject renewed = token;
    renewed.insert(QStringLiteral("accessToken"), accessToken);
    renewed.insert(QStringLiteral("expiresAt"), QDateTime::currentDateTimeUtc()
                                                    .addSecs(qint64(expiresIn))
                                                    .toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss'Z'")));
    const QString nextRefresh = answer.value(QStringLiteral("refreshToken")).toString();
    if (!nextRefresh.isEmpty())
        renewed.insert(QStringLiteral("refreshToken"), nextRefresh);
    // Written back (owner-only, as the CLI keeps it): a refresh token that was spent must not be used again.
    QSaveFile file(cachePath);
    if (file.open(QIODevice::WriteOnly)) {
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write(QJsonDocument(renewed).toJson(QJsonDocument::Indented));
        file.commit();
    }
    return renewed;
}

} // namespace

QString AwsSsoCredentials::cacheFileName(const QString &sessionOrStartUrl)
{
    return QString::fromLatin1(
               QCryptographicHash::hash(sessionOrStartUrl.toUtf8(), QCryptographicHash::Sha1).toHex()) +
           QStringLiteral(".json");
}

AwsCredentials::Result AwsSsoCredentials::fetch(const AwsCredentials &base,
                                                const QProcessEnvironment &environment,
                                                const QString &homePath, const CancellationToken &cancel,
                                                int timeoutMs)
{
    AwsCredentials::Result result;
    result.credentials = base;
    const AwsCredentials::Sso &sso = base.sso;
    const QString profile = base.profile;
    const QString home = homePath.isEmpty() ? QDir::homePath() : homePath;
    const QString cachePath = home + QStringLiteral("/.aws/sso/cache/") +
                              cacheFileName(sso.session.isEmpty() ? sso.startUrl : sso.session);

    const RegularFile::Read cache = RegularFile::read(cachePath, 1024 * 1024);
    if (cache.problem == RegularFile::Problem::Missing) {
        result.error =
            AwsSsoCredentials::tr("The AWS profile \"%1\" signs in with SSO and there is no sign-in yet: %2.")
                .arg(profile, signInAgain(profile));
        return result;
    }
    if (!cache.ok()) {
        result.error = AwsSsoCredentials::tr("Cannot read the AWS SSO sign-in %1: %2")
                           .arg(QDir::toNativeSeparators(cachePath), cache.reason);
        return result;
    }
    QJsonObject token = QJsonDocument::fromJson(cache.bytes).object();
    const QDateTime expiresAt = parseTime(token.value(QStringLiteral("expiresAt")).toString());
    // Renewed a little early, as the SDKs do, so a request does not go out with a token about to lapse.
    if (!expiresAt.isValid() ||
        QDateTime::currentDateTimeUtc().secsTo(expiresAt) < AwsCredentials::RefreshSecondsBeforeExpiry) {
        QString why;
        const std::optional<QJsonObject> renewed =
            refreshed(token, sso, environment, cachePath, cancel, timeoutMs, why);
        if (renewed) {
            token = *renewed;
        } else if (!expiresAt.isValid() || expiresAt <= QDateTime::currentDateTimeUtc()) {
            if (why == AwsSsoCredentials::tr("cancelled"))
                result.error = why;
            else
                result.error =
                    why.isEmpty()
                        ? AwsSsoCredentials::tr("The AWS SSO sign-in of the profile \"%1\" has expired: %2.")
                              .arg(profile, signInAgain(profile))
                        : AwsSsoCredentials::tr("The AWS SSO sign-in of the profile \"%1\" has expired and "
                                                "could not be renewed (%2): %3.")
                              .arg(profile, why, signInAgain(profile));
            return result;
        }
    }
    const QString accessToken = token.value(QStringLiteral("accessToken")).toString();
    if (accessToken.isEmpty()) {
        result.error = AwsSsoCredentials::tr("The AWS SSO sign-in of the profile \"%1\" has expired: %2.")
                           .arg(profile, signInAgain(profile));
        return result;
    }

    QUrl url(endpoint(environment, "AWS_ENDPOINT_URL_SSO",
                      QStringLiteral("https://portal.sso.%1.amazonaws.com").arg(sso.region)) +
             QStringLiteral("/federation/credentials"));
    url.setQuery(QUrlQuery{{QStringLiteral("account_id"), sso.accountId},
                           {QStringLiteral("role_name"), sso.roleName}});
    QNetworkRequest request(url);
    request.setRawHeader("x-amz-sso_bearer_token", accessToken.toUtf8());
    request.setTransferTimeout(timeoutMs);
    const BlockingHttp::Reply reply = BlockingHttp::send(request, "GET", {}, cancel);
    if (reply.cancelled) {
        result.error = AwsSsoCredentials::tr("cancelled");
        return result;
    }
    if (reply.status == 401 || reply.status == 403) {
        result.error =
            AwsSsoCredentials::tr(
                "The AWS SSO portal refused the sign-in of the profile \"%1\" for the role %2 in account "
                "%3 (HTTP %4): %5.")
                .arg(profile, sso.roleName, sso.accountId, QString::number(reply.status),
                     signInAgain(profile));
        return result;
    }
    if (reply.status != 200) {
        result.error =
            reply.status == 0
                ? AwsSsoCredentials::tr("Cannot reach the AWS SSO portal at %1: %2")
                      .arg(url.host(), reply.error)
                : AwsSsoCredentials::tr("The AWS SSO portal answered HTTP %1 for the profile \"%2\".")
                      .arg(QString::number(reply.status), profile);
        return result;
    }
    const QJsonObject role =
        QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("roleCredentials")).toObject();
    AwsCredentials &c = result.credentials;
    c.accessKeyId = role.value(QStringLiteral("accessKeyId")).toString();
    c.secretAccessKey = role.value(QStringLiteral("secretAccessKey")).toString();
    c.sessionToken = role.value(QStringLiteral("sessionToken")).toString();
    const double expiration = role.value(QStringLiteral("expiration")).toDouble(); // milliseconds since 1970
    c.expiration = expiration > 0 && expiration < 4.0e15
                       ? QDateTime::fromMSecsSinceEpoch(qint64(expiration), Qt::UTC)
                       : QDateTime();
    c.source = QStringLiteral("sso");
    if (!c.isValid())
        result.error =
            AwsSsoCredentials::tr("The AWS SSO portal gave no keys for the profile \"%1\".").arg(profile);
    return result;
}

} // namespace keen
