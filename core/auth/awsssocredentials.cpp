#include "auth/awsssocredentials.h"

#include "base/cancellationwatch.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrlQuery>

#include <memory>

namespace keen {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("keen::AwsSsoCredentials", text);
}

QString signInAgain(const QString &profile)
{
    return tr("run \"aws sso login --profile %1\" and try again").arg(profile);
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

    QFile cache(cachePath);
    if (!cache.exists()) {
        result.error = tr("The AWS profile \"%1\" signs in with SSO and there is no sign-in yet: %2.")
                           .arg(profile, signInAgain(profile));
        return result;
    }
    if (!cache.open(QIODevice::ReadOnly) || cache.size() > 1024 * 1024) {
        result.error = tr("Cannot read the AWS SSO sign-in %1: %2")
                           .arg(QDir::toNativeSeparators(cachePath), cache.errorString());
        return result;
    }
    const QJsonObject token = QJsonDocument::fromJson(cache.readAll()).object();
    const QString accessToken = token.value(QStringLiteral("accessToken")).toString();
    // "2026-12-06T20:00:00Z"; older CLIs wrote "2026-12-06T20:00:00UTC".
    QString expiry = token.value(QStringLiteral("expiresAt")).toString();
    if (expiry.endsWith(QLatin1String("UTC")))
        expiry = expiry.chopped(3) + QLatin1Char('Z');
    const QDateTime expiresAt = QDateTime::fromString(expiry, Qt::ISODateWithMs);
    if (accessToken.isEmpty() || !expiresAt.isValid() || expiresAt <= QDateTime::currentDateTimeUtc()) {
        result.error = tr("The AWS SSO sign-in of the profile \"%1\" has expired: %2.")
                           .arg(profile, signInAgain(profile));
        return result;
    }

    QString portal = environment.value(QStringLiteral("AWS_ENDPOINT_URL_SSO")).trimmed();
    if (portal.isEmpty())
        portal = QStringLiteral("https://portal.sso.%1.amazonaws.com").arg(sso.region);
    while (portal.endsWith(QLatin1Char('/')))
        portal.chop(1);
    QUrl url(portal + QStringLiteral("/federation/credentials"));
    url.setQuery(QUrlQuery{{QStringLiteral("account_id"), sso.accountId},
                           {QStringLiteral("role_name"), sso.roleName}});
    QNetworkRequest request(url);
    request.setRawHeader("x-amz-sso_bearer_token", accessToken.toUtf8());
    request.setTransferTimeout(timeoutMs);
    QNetworkAccessManager network;
    QEventLoop loop;
    const std::unique_ptr<QNetworkReply> reply(network.get(request));
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    {
        const CancellationWatch watch(cancel, [&reply] { reply->abort(); });
        if (!reply->isFinished())
            loop.exec();
    }
    if (cancel.isCancelled()) {
        result.error = tr("cancelled");
        return result;
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
    if (status == 401 || status == 403) {
        result.error =
            tr("The AWS SSO portal refused the sign-in of the profile \"%1\" for the role %2 in account "
               "%3 (HTTP %4): %5.")
                .arg(profile, sso.roleName, sso.accountId, QString::number(status), signInAgain(profile));
        return result;
    }
    if (status != 200) {
        result.error =
            status == 0
                ? tr("Cannot reach the AWS SSO portal at %1: %2").arg(url.host(), reply->errorString())
                : tr("The AWS SSO portal answered HTTP %1 for the profile \"%2\".")
                      .arg(QString::number(status), profile);
        return result;
    }
    const QJsonObject role = answer.value(QStringLiteral("roleCredentials")).toObject();
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
        result.error = tr("The AWS SSO portal gave no keys for the profile \"%1\".").arg(profile);
    return result;
}

} // namespace keen
