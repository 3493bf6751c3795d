#include "auth/awsinstancemetadata.h"

#include "auth/blockinghttp.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QUrl>

namespace keen {

namespace {

constexpr char TokenHeader[] = "x-aws-ec2-metadata-token";
constexpr char RolesPath[] = "/latest/meta-data/iam/security-credentials/";

BlockingHttp::Reply ask(const QString &url, const QByteArray &method, const QByteArray &token,
                        const CancellationToken &cancel, int timeoutMs)
{
    QNetworkRequest request{QUrl(url)};
    if (method == "PUT")
        request.setRawHeader("x-aws-ec2-metadata-token-ttl-seconds", "21600");
    else
        request.setRawHeader(TokenHeader, token);
    // A redirect would take the token elsewhere: it is an error like any other answer that is not 2xx.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(timeoutMs);
    return BlockingHttp::send(request, method, {}, cancel);
}

} // namespace

QString AwsInstanceMetadata::endpoint(const QProcessEnvironment &environment)
{
    if (environment.value(QStringLiteral("AWS_EC2_METADATA_DISABLED"))
            .trimmed()
            .compare(QLatin1String("true"), Qt::CaseInsensitive) == 0)
        return {};
    QString url = environment.value(QStringLiteral("AWS_EC2_METADATA_SERVICE_ENDPOINT")).trimmed();
    if (url.isEmpty())
        url = environment.value(QStringLiteral("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"))
                          .trimmed()
                          .compare(QLatin1String("IPv6"), Qt::CaseInsensitive) == 0
                  ? QString(Ipv6Endpoint)
                  : QString(DefaultEndpoint);
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    return url;
}

AwsCredentials::Result AwsInstanceMetadata::fetch(const AwsCredentials &base, const CancellationToken &cancel,
                                                  int timeoutMs)
{
    AwsCredentials::Result result;
    result.credentials = base;
    const QString where = base.instanceMetadataEndpoint;
    auto failed = [&](const BlockingHttp::Reply &reply, const QString &step) {
        if (reply.cancelled)
            result.error = tr("cancelled");
        else if (reply.status == 0)
            result.error = tr("the EC2 instance metadata at %1 did not answer: %2").arg(where, reply.error);
        else
            result.error = tr("the EC2 instance metadata at %1 answered HTTP %2 to %3")
                               .arg(where, QString::number(reply.status), step);
        return result;
    };

    const BlockingHttp::Reply tokenReply =
        ask(where + QStringLiteral("/latest/api/token"), "PUT", {}, cancel, timeoutMs);
    if (tokenReply.status != 200)
        return failed(tokenReply, tr("the session token request (IMDSv2)"));
    const QByteArray token = tokenReply.body.trimmed();
    if (token.isEmpty() || token.contains('\n') || token.contains('\r') || token.contains('\0')) {
        result.error =
            tr("the EC2 instance metadata at %1 gave a session token Keen does not send").arg(where);
        return result;
    }

    const BlockingHttp::Reply roles = ask(where + QLatin1String(RolesPath), "GET", token, cancel, timeoutMs);
    if (roles.status == 404) {
        result.error = tr("this EC2 instance has no IAM role (its instance metadata lists none)");
        return result;
    }
    if (roles.status != 200)
        return failed(roles, tr("the request for its IAM role"));
    const QString role = QString::fromUtf8(roles.body).section(QLatin1Char('\n'), 0, 0).trimmed();
    if (role.isEmpty() || role.contains(QLatin1Char('/'))) {
        result.error = tr("this EC2 instance has no IAM role (its instance metadata lists none)");
        return result;
    }

    const BlockingHttp::Reply keys =
        ask(where + QLatin1String(RolesPath) + QString::fromUtf8(QUrl::toPercentEncoding(role)), "GET", token,
            cancel, timeoutMs);
    if (keys.status != 200)
        return failed(keys, tr("the request for the keys of its role %1").arg(role));
    const QJsonObject object = QJsonDocument::fromJson(keys.body).object();
    const QString code = object.value(QStringLiteral("Code")).toString(QStringLiteral("Success"));
    if (code != QLatin1String("Success")) {
        result.error =
            tr("the EC2 instance metadata has no keys for the role %1 (%2)").arg(role, code.left(100));
        return result;
    }
    AwsCredentials &c = result.credentials;
    const QStringList missing = c.takeTemporaryKeys(object);
    c.source = QStringLiteral("instance-metadata");
    if (!missing.isEmpty())
        result.error = tr("the EC2 instance metadata gave no %1 for the role %2")
                           .arg(missing.join(QStringLiteral(", ")), role);
    return result;
}

} // namespace keen
