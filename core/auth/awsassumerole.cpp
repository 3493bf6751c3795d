#include "auth/awsassumerole.h"

#include "auth/blockinghttp.h"
#include "auth/sigv4signer.h"
#include "base/regularfile.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QNetworkRequest>
#include <QUrl>
#include <QXmlStreamReader>

namespace keen {

namespace {

QByteArray formValue(const QString &value)
{
    return QUrl::toPercentEncoding(value);
}

} // namespace

AwsCredentials::Result AwsAssumeRole::fetch(const AwsCredentials &base, const AwsCredentials &source,
                                            const QProcessEnvironment &environment,
                                            const CancellationToken &cancel, int timeoutMs)
{
    const AwsCredentials::AssumeRole &role = base.assumeRole;
    QByteArray body = "Action=AssumeRole&Version=2011-06-15&RoleArn=" + formValue(role.roleArn) +
                      "&RoleSessionName=" + formValue(sessionName(role));
    if (!role.externalId.isEmpty())
        body += "&ExternalId=" + formValue(role.externalId);
    if (role.durationSeconds > 0)
        body += "&DurationSeconds=" + QByteArray::number(role.durationSeconds);
    return post(base, body, &source, environment, cancel, timeoutMs);
}

AwsCredentials::Result AwsAssumeRole::fetchWithWebIdentity(const AwsCredentials &base,
                                                           const QProcessEnvironment &environment,
                                                           const CancellationToken &cancel, int timeoutMs)
{
    const AwsCredentials::AssumeRole &role = base.assumeRole;
    // The token a CI job or a Kubernetes pod was given; read anew each time, as it is rotated.
    const RegularFile::Read read = RegularFile::read(role.webIdentityTokenFile, 64 * 1024);
    const QByteArray token = read.bytes.trimmed();
    QString why;
    if (read.problem == RegularFile::Problem::Missing)
        why = AwsAssumeRole::tr("it is not there, or not a file");
    else if (!read.ok())
        why = read.reason;
    else if (token.isEmpty())
        why = AwsAssumeRole::tr("it is empty");
    if (!why.isEmpty()) {
        AwsCredentials::Result result;
        result.credentials = base;
        result.error =
            AwsAssumeRole::tr("Cannot read the web identity token %1 of the AWS profile \"%2\": %3")
                .arg(role.webIdentityTokenFile, base.profile, why);
        return result;
    }
    QByteArray body =
        "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" + formValue(role.roleArn) +
        "&RoleSessionName=" + formValue(sessionName(role)) +
        "&WebIdentityToken=" + QUrl::toPercentEncoding(QString::fromLatin1(token));
    if (role.durationSeconds > 0)
        body += "&DurationSeconds=" + QByteArray::number(role.durationSeconds);
    return post(base, body, nullptr, environment, cancel, timeoutMs);
}

QString AwsAssumeRole::sessionName(const AwsCredentials::AssumeRole &role)
{
    return role.sessionName.isEmpty()
               ? QStringLiteral("keen-desktop-%1").arg(QDateTime::currentSecsSinceEpoch())
               : role.sessionName;
}

AwsCredentials::Result AwsAssumeRole::post(const AwsCredentials &base, const QByteArray &body,
                                           const AwsCredentials *signer,
                                           const QProcessEnvironment &environment,
                                           const CancellationToken &cancel, int timeoutMs)
{
    const QString region = base.region.isEmpty() ? QString(AwsCredentials::DefaultRegion) : base.region;
    QString endpoint = environment.value(QStringLiteral("AWS_ENDPOINT_URL_STS")).trimmed();
    if (endpoint.isEmpty())
        endpoint = QStringLiteral("https://sts.%1.amazonaws.com").arg(region);
    while (endpoint.endsWith(QLatin1Char('/')))
        endpoint.chop(1);
    QNetworkRequest request(QUrl(endpoint + QLatin1Char('/')));
    request.setRawHeader("content-type", "application/x-www-form-urlencoded; charset=utf-8");
    request.setTransferTimeout(timeoutMs);
    if (signer) // AssumeRoleWithWebIdentity is not signed: the token is the proof
        SigV4Signer(*signer, region, QStringLiteral("sts")).signRequest(request, "POST", body);
    const BlockingHttp::Reply reply = BlockingHttp::send(request, "POST", body, cancel);
    if (reply.cancelled || reply.status == 0) {
        AwsCredentials::Result result;
        result.credentials = base;
        result.error =
            reply.cancelled
                ? AwsAssumeRole::tr("cancelled")
                : AwsAssumeRole::tr(
                      "Cannot reach AWS STS at %1 to assume the role of the AWS profile \"%2\": %3")
                      .arg(QUrl(endpoint).host(), base.profile, reply.error);
        return result;
    }
    return parse(base, reply.status, reply.body);
}

AwsCredentials::Result AwsAssumeRole::parse(const AwsCredentials &base, int httpStatus, const QByteArray &xml)
{
    AwsCredentials::Result result;
    result.credentials = base;
    QMap<QString, QString> values; // the text of the leaf elements that matter
    QXmlStreamReader reader(xml);
    while (!reader.atEnd()) {
        if (reader.readNext() != QXmlStreamReader::StartElement)
            continue;
        const QString name = reader.name().toString();
        if (name == QLatin1String("AccessKeyId") || name == QLatin1String("SecretAccessKey") ||
            name == QLatin1String("SessionToken") || name == QLatin1String("Expiration") ||
            name == QLatin1String("Code") || name == QLatin1String("Message"))
            values.insert(name, reader.readElementText().trimmed());
    }
    AwsCredentials &c = result.credentials;
    if (httpStatus == 200) {
        c.accessKeyId = values.value(QStringLiteral("AccessKeyId"));
        c.secretAccessKey = values.value(QStringLiteral("SecretAccessKey"));
        c.sessionToken = values.value(QStringLiteral("SessionToken"));
        c.expiration = QDateTime::fromString(values.value(QStringLiteral("Expiration")), Qt::ISODateWithMs);
        c.source = QStringLiteral("assume-role");
        if (c.isValid())
            return result;
        c.accessKeyId.clear();
        c.secretAccessKey.clear();
        c.sessionToken.clear();
        result.error = AwsAssumeRole::tr("AWS STS gave no keys for the role %1 of the AWS profile \"%2\".")
                           .arg(base.assumeRole.roleArn, base.profile);
        return result;
    }
    const QString code = values.value(QStringLiteral("Code"));
    const QString message = values.value(QStringLiteral("Message")).left(300);
    result.error =
        AwsAssumeRole::tr("AWS STS refused to let the AWS profile \"%1\" assume the role %2 (HTTP %3%4)%5")
            .arg(base.profile, base.assumeRole.roleArn, QString::number(httpStatus),
                 code.isEmpty() ? QString() : QStringLiteral(", ") + code,
                 message.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + message);
    return result;
}

} // namespace keen
