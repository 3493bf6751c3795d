#include "auth/awscontainercredentials.h"

#include "auth/blockinghttp.h"
#include "base/controlcharacters.h"
#include "base/regularfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>

namespace keen {

AwsContainerCredentials::Endpoint AwsContainerCredentials::endpoint(const QProcessEnvironment &environment)
{
    Endpoint result;
    const QString relative =
        environment.value(QStringLiteral("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")).trimmed();
    if (!relative.isEmpty()) {
        result.url = relativeEndpoint(relative);
        return result;
    }
    const QString full = environment.value(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI")).trimmed();
    if (full.isEmpty())
        return result;
    const QUrl url(full, QUrl::StrictMode);
    if (isAllowedFullUri(url)) {
        result.url = url.toString(QUrl::FullyEncoded);
        return result;
    }
    // Only the scheme and host are named: the path and query may identify the credentials.
    const QString named = url.isValid() && !url.host().isEmpty()
                              ? url.toString(QUrl::RemoveUserInfo | QUrl::RemovePort | QUrl::RemovePath |
                                             QUrl::RemoveQuery | QUrl::RemoveFragment)
                              : tr("an address that cannot be read");
    result.error = tr("AWS_CONTAINER_CREDENTIALS_FULL_URI names %1, which Keen does not ask for AWS keys: it "
                      "must be https, or http to a loopback address or to a container credentials host "
                      "(169.254.170.2, 169.254.170.23, fd00:ec2::23).")
                       .arg(named);
    return result;
}

QString AwsContainerCredentials::relativeEndpoint(const QString &relativeUri)
{
    const QString path = relativeUri.trimmed();
    return QStringLiteral("http://") + EcsHost +
           (path.startsWith(QLatin1Char('/')) ? path : QLatin1Char('/') + path);
}

bool AwsContainerCredentials::isAllowedFullUri(const QUrl &url)
{
    if (!url.isValid() || url.host().isEmpty())
        return false;
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("https"))
        return true;
    if (scheme != QLatin1String("http"))
        return false;
    const QString host = url.host().toLower();
    if (host == QLatin1String("localhost"))
        return true;
    const QHostAddress address(host);
    if (address.isNull())
        return false; // another host name: it could resolve anywhere
    return address.isLoopback() || address == QHostAddress(EcsHost) ||
           address == QHostAddress(QStringLiteral("169.254.170.23")) ||
           address == QHostAddress(QStringLiteral("fd00:ec2::23"));
}

QString AwsContainerCredentials::describe(const QString &url)
{
    const QUrl parsed(url);
    return parsed.port() == -1 ? parsed.host()
                               : parsed.host() + QLatin1Char(':') + QString::number(parsed.port());
}

bool AwsContainerCredentials::authorizationToken(const QProcessEnvironment &environment, QByteArray &token,
                                                 QString &error)
{
    const QString tokenFile =
        environment.value(QStringLiteral("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")).trimmed();
    QString from = QStringLiteral("AWS_CONTAINER_AUTHORIZATION_TOKEN");
    if (!tokenFile.isEmpty()) {
        from = QDir::toNativeSeparators(tokenFile);
        const RegularFile::Read read = RegularFile::read(tokenFile, 64 * 1024);
        if (!read.ok()) {
            const QString why = read.problem == RegularFile::Problem::Missing
                                    ? tr("it is not there, or not a file")
                                    : read.reason;
            error = tr("Cannot read the AWS container authorization token file %1: %2").arg(from, why);
            return false;
        }
        token = read.bytes.trimmed();
    } else {
        token = environment.value(QStringLiteral("AWS_CONTAINER_AUTHORIZATION_TOKEN")).toUtf8().trimmed();
    }
    // A line break (or another control character) would end the header and start another one of the
    // token's choosing.
    if (ControlCharacters::inUtf8(token)) {
        token.clear();
        error = tr("The AWS container authorization token from %1 contains a line break or another control "
                   "character, which Keen does not send.")
                    .arg(from);
        return false;
    }
    return true;
}

AwsCredentials::Result AwsContainerCredentials::fetch(const AwsCredentials &base,
                                                      const QProcessEnvironment &environment,
                                                      const CancellationToken &cancel, int timeoutMs)
{
    AwsCredentials::Result result;
    result.credentials = base;
    QByteArray token;
    if (!authorizationToken(environment, token, result.error))
        return result;
    QNetworkRequest request{QUrl(base.containerEndpoint)};
    request.setRawHeader("accept", "application/json");
    if (!token.isEmpty())
        request.setRawHeader("authorization", token);
    // A redirect would take the token elsewhere: it is an error like any other answer that is not 2xx.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(timeoutMs);
    const BlockingHttp::Reply reply = BlockingHttp::send(request, "GET", {}, cancel);
    if (reply.cancelled) {
        result.error = tr("cancelled");
        return result;
    }
    if (reply.status == 0) {
        result.error = tr("Cannot reach the AWS container credentials endpoint %1: %2")
                           .arg(describe(base.containerEndpoint), reply.error);
        return result;
    }
    return parse(base, reply.status, reply.body, token);
}

AwsCredentials::Result AwsContainerCredentials::parse(const AwsCredentials &base, int httpStatus,
                                                      const QByteArray &json,
                                                      const QByteArray &authorizationToken)
{
    AwsCredentials::Result result;
    result.credentials = base;
    const QJsonObject answer = QJsonDocument::fromJson(json).object();
    const QString where = describe(base.containerEndpoint);
    if (httpStatus < 200 || httpStatus > 299) {
        // What the endpoint said (ECS and the EKS agent answer {"code", "message"}), unless it repeats the
        // token.
        QString said = answer.value(QStringLiteral("message"))
                           .toString(answer.value(QStringLiteral("Message")).toString())
                           .simplified()
                           .left(300);
        if (!authorizationToken.isEmpty() && said.contains(QString::fromUtf8(authorizationToken)))
            said.clear();
        result.error = tr("The AWS container credentials endpoint %1 answered HTTP %2%3")
                           .arg(where, QString::number(httpStatus),
                                said.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + said);
        return result;
    }
    AwsCredentials &c = result.credentials;
    const QStringList missing = c.takeTemporaryKeys(answer);
    c.source = QStringLiteral("container");
    if (missing.isEmpty())
        return result;
    result.error = tr("The AWS container credentials endpoint %1 gave no %2.")
                       .arg(where, missing.join(QStringLiteral(", ")));
    return result;
}

} // namespace keen
