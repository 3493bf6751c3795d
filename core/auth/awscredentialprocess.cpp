#include "auth/awscredentialprocess.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

namespace keen {

namespace {

// The last line the command wrote to stderr, where helpers say what went wrong ("run aws sso login"), unless
// it could be a key.
QString lastErrorLine(const QByteArray &stderrBytes)
{
    const QStringList lines = QString::fromUtf8(stderrBytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (qsizetype i = lines.size() - 1; i >= 0; --i) {
        const QString line = lines.at(i).trimmed();
        if (line.isEmpty())
            continue;
        static const QRegularExpression keyLike(
            QStringLiteral("(AKIA|ASIA)[A-Z0-9]{12,}|[A-Za-z0-9/+=]{40,}"));
        if (line.size() > 300 || keyLike.match(line).hasMatch())
            return {};
        return line;
    }
    return {};
}

} // namespace

AwsCredentials::Result AwsCredentialProcess::run(const AwsCredentials &base,
                                                 const QProcessEnvironment &environment,
                                                 const CancellationToken &cancel, int timeoutMs)
{
    AwsCredentials::Result result;
    result.credentials = base;
    const QString profile = base.profile;
    QProcess process;
    process.setProgram(QStringLiteral("/bin/sh"));
    process.setArguments({QStringLiteral("-c"), base.credentialProcess});
    process.setProcessEnvironment(environment.isEmpty() ? QProcessEnvironment::systemEnvironment()
                                                        : environment);
    process.setStandardInputFile(QProcess::nullDevice());
    process.start();
    if (!process.waitForStarted(timeoutMs)) {
        result.error = AwsCredentialProcess::tr(
                           "The credential_process of the AWS profile \"%1\" could not be started: %2")
                           .arg(profile, process.errorString());
        return result;
    }
    // In slices, so that Esc stops a helper waiting for a person (a password prompt, a browser).
    QElapsedTimer waited;
    waited.start();
    while (!process.waitForFinished(100)) {
        if (process.state() == QProcess::NotRunning)
            break;
        if (cancel.isCancelled() || waited.elapsed() >= timeoutMs) {
            process.kill();
            process.waitForFinished(1000);
            result.error =
                cancel.isCancelled()
                    ? AwsCredentialProcess::tr("cancelled")
                    : AwsCredentialProcess::tr(
                          "The credential_process of the AWS profile \"%1\" did not finish within %2 "
                          "seconds")
                          .arg(profile)
                          .arg(timeoutMs / 1000);
            return result;
        }
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        const QString why = lastErrorLine(process.readAllStandardError());
        const QString code = process.exitStatus() != QProcess::NormalExit
                                 ? AwsCredentialProcess::tr("it crashed")
                                 : AwsCredentialProcess::tr("exit code %1").arg(process.exitCode());
        result.error =
            why.isEmpty()
                ? AwsCredentialProcess::tr("The credential_process of the AWS profile \"%1\" failed (%2).")
                      .arg(profile, code)
                : AwsCredentialProcess::tr("The credential_process of the AWS profile \"%1\" failed (%2): %3")
                      .arg(profile, code, why);
        return result;
    }
    return parse(base, process.readAllStandardOutput());
}

AwsCredentials::Result AwsCredentialProcess::parse(const AwsCredentials &base, const QByteArray &output)
{
    AwsCredentials::Result result;
    result.credentials = base;
    const QJsonObject object = QJsonDocument::fromJson(output.trimmed()).object();
    const QString id = object.value(QStringLiteral("AccessKeyId")).toString();
    const QString secret = object.value(QStringLiteral("SecretAccessKey")).toString();
    if (object.value(QStringLiteral("Version")).toInt() != 1 || id.isEmpty() || secret.isEmpty()) {
        result.error =
            AwsCredentialProcess::tr(
                "The credential_process of the AWS profile \"%1\" did not print credentials: one JSON "
                "object with \"Version\": 1, \"AccessKeyId\" and \"SecretAccessKey\" is expected (its "
                "output is not shown because it may hold keys).")
                .arg(base.profile);
        return result;
    }
    AwsCredentials &c = result.credentials;
    c.accessKeyId = id;
    c.secretAccessKey = secret;
    c.sessionToken = object.value(QStringLiteral("SessionToken")).toString();
    c.source = QStringLiteral("credential_process");
    const QString expiration = object.value(QStringLiteral("Expiration")).toString();
    c.expiration = expiration.isEmpty() ? QDateTime() : QDateTime::fromString(expiration, Qt::ISODateWithMs);
    if (!expiration.isEmpty() && !c.expiration.isValid()) {
        result.error =
            AwsCredentialProcess::tr(
                "The credential_process of the AWS profile \"%1\" printed an Expiration that is not an "
                "ISO 8601 time.")
                .arg(base.profile);
        c.accessKeyId.clear();
        c.secretAccessKey.clear();
        c.sessionToken.clear();
    }
    return result;
}

} // namespace keen
