#include "auth/awscredentials.h"

#include "auth/awsassumerole.h"
#include "auth/awscontainercredentials.h"
#include "auth/awscredentialprocess.h"
#include "auth/awsinstancemetadata.h"
#include "auth/awsssocredentials.h"
#include "base/regularfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>

namespace keen {

namespace {

QString envValue(const QProcessEnvironment &environment, const QString &name)
{
    return environment.value(name).trimmed();
}

// A missing file is not an error (most people have only one of the two); an unreadable one is.
bool readFile(const QString &path, QByteArray &contents, QString &error)
{
    // Profiles are small; a FIFO or device in its place is named, never waited on.
    constexpr qint64 MaxFileBytes = 4 * 1024 * 1024;
    const RegularFile::Read read = RegularFile::read(path, MaxFileBytes);
    if (read.problem == RegularFile::Problem::Missing)
        return true;
    if (!read.ok()) {
        error = QCoreApplication::translate("keen::AwsCredentials", "Cannot read the AWS file %1: %2")
                    .arg(QDir::toNativeSeparators(path), read.reason);
        return false;
    }
    contents = read.bytes;
    return true;
}

bool takeKeys(const QMap<QString, QString> &section, AwsCredentials &out)
{
    const QString id = section.value(QStringLiteral("aws_access_key_id"));
    const QString secret = section.value(QStringLiteral("aws_secret_access_key"));
    if (id.isEmpty() || secret.isEmpty())
        return false;
    out.accessKeyId = id;
    out.secretAccessKey = secret;
    // aws_security_token is the name older tools wrote.
    out.sessionToken = section.value(QStringLiteral("aws_session_token"),
                                     section.value(QStringLiteral("aws_security_token")));
    return true;
}

// The first key that makes a profile need a helper. Keen runs the last three itself (SSO, credential_process)
// and reads role_arn before asking; the others it does not support.
QString unsupportedKey(const QMap<QString, QString> &section)
{
    for (const char *key : {"role_arn", "web_identity_token_file", "credential_source", "sso_start_url",
                            "sso_session", "credential_process"}) {
        if (section.contains(QLatin1String(key)))
            return QLatin1String(key);
    }
    return {};
}

// The shared credentials file and the config file the environment names (or ~/.aws's).
std::pair<QString, QString> sharedFilePaths(const QProcessEnvironment &environment, const QString &home)
{
    QString credentialsPath = envValue(environment, QStringLiteral("AWS_SHARED_CREDENTIALS_FILE"));
    if (credentialsPath.isEmpty())
        credentialsPath = home + QStringLiteral("/.aws/credentials");
    QString configPath = envValue(environment, QStringLiteral("AWS_CONFIG_FILE"));
    if (configPath.isEmpty())
        configPath = home + QStringLiteral("/.aws/config");
    if (credentialsPath.startsWith(QStringLiteral("~/")))
        credentialsPath = home + credentialsPath.mid(1);
    if (configPath.startsWith(QStringLiteral("~/")))
        configPath = home + configPath.mid(1);
    return {credentialsPath, configPath};
}

// Nothing gives keys: what to set, and why the last source, the instance metadata, gave none (if asked).
QString noCredentials(const QString &profile, const QString &credentialsPath, const QString &lastSource)
{
    const QString path = QDir::toNativeSeparators(credentialsPath);
    if (lastSource.isEmpty())
        return QCoreApplication::translate("keen::AwsCredentials",
                                           "No AWS credentials found: set AWS_ACCESS_KEY_ID and "
                                           "AWS_SECRET_ACCESS_KEY, or add aws_access_key_id and "
                                           "aws_secret_access_key to the profile \"%1\" in %2.")
            .arg(profile, path);
    return QCoreApplication::translate(
               "keen::AwsCredentials",
               "No AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
               "or add aws_access_key_id and aws_secret_access_key to the profile \"%1\" "
               "in %2 (and %3).")
        .arg(profile, path, lastSource);
}

QString unsupported(const QString &profile, const QString &what)
{
    return QCoreApplication::translate("keen::AwsCredentials",
                                       "The AWS profile \"%1\" uses %2, which Keen does not support. Export "
                                       "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (for "
                                       "example with \"aws configure export-credentials\"), or use a Bedrock "
                                       "API key.")
        .arg(profile, what);
}

} // namespace

AwsCredentials::IniSections AwsCredentials::parseIni(const QByteArray &text)
{
    IniSections sections;
    QString current;
    bool inSection = false;
    const QList<QByteArray> lines = text.split('\n');
    for (QByteArray raw : lines) {
        if (raw.endsWith('\r'))
            raw.chop(1);
        if (raw.startsWith("\xEF\xBB\xBF"))
            raw.remove(0, 3);
        // Indented lines continue a nested sub-section ("s3 =\n  max_concurrent_requests = 10"): not ours.
        if (!raw.isEmpty() && (raw.front() == ' ' || raw.front() == '\t'))
            continue;
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')) || line.startsWith(QLatin1Char(';')))
            continue;
        if (line.startsWith(QLatin1Char('['))) {
            const qsizetype close = line.indexOf(QLatin1Char(']'));
            inSection = close > 0;
            if (inSection) {
                current = line.mid(1, close - 1).simplified();
                sections[current]; // an empty section still exists
            }
            continue;
        }
        const qsizetype equals = line.indexOf(QLatin1Char('='));
        if (!inSection || equals <= 0)
            continue;
        sections[current].insert(line.left(equals).trimmed().toLower(), line.mid(equals + 1).trimmed());
    }
    return sections;
}

AwsCredentials::Result AwsCredentials::resolve(const QProcessEnvironment &environment,
                                               const QString &homePath)
{
    Result result;
    AwsCredentials &c = result.credentials;
    const QString home = homePath.isEmpty() ? QDir::homePath() : homePath;

    const QString profileFromEnv = envValue(environment, QStringLiteral("AWS_PROFILE"));
    c.profile = profileFromEnv.isEmpty() ? QString(DefaultProfile) : profileFromEnv;

    const auto [credentialsPath, configPath] = sharedFilePaths(environment, home);

    QByteArray credentialsText;
    QByteArray configText;
    QString fileError;
    if (!readFile(credentialsPath, credentialsText, fileError) ||
        !readFile(configPath, configText, fileError)) {
        c.region = QString(DefaultRegion);
        result.error = fileError;
        return result;
    }
    const IniSections credentialsFile = parseIni(credentialsText);
    const IniSections configFile = parseIni(configText);
    const QString configSectionName =
        c.profile == DefaultProfile && !configFile.contains(QStringLiteral("profile default"))
            ? QString(DefaultProfile)
            : QStringLiteral("profile ") + c.profile;
    const bool inCredentials = credentialsFile.contains(c.profile);
    const bool inConfig = configFile.contains(configSectionName);
    const QMap<QString, QString> credentialsSection = credentialsFile.value(c.profile);
    const QMap<QString, QString> configSection = configFile.value(configSectionName);

    c.region = envValue(environment, QStringLiteral("AWS_REGION"));
    if (c.region.isEmpty())
        c.region = envValue(environment, QStringLiteral("AWS_DEFAULT_REGION"));
    if (c.region.isEmpty())
        c.region = configSection.value(QStringLiteral("region"));
    if (c.region.isEmpty())
        c.region = credentialsSection.value(QStringLiteral("region"));
    if (c.region.isEmpty())
        c.region = QString(DefaultRegion);

    // 1. The environment.
    const QString envId = envValue(environment, QStringLiteral("AWS_ACCESS_KEY_ID"));
    const QString envSecret = envValue(environment, QStringLiteral("AWS_SECRET_ACCESS_KEY"));
    if (!envId.isEmpty() || !envSecret.isEmpty()) {
        if (envId.isEmpty() || envSecret.isEmpty()) {
            result.error =
                QCoreApplication::translate(
                    "keen::AwsCredentials",
                    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together; only %1 is set.")
                    .arg(envId.isEmpty() ? QStringLiteral("AWS_SECRET_ACCESS_KEY")
                                         : QStringLiteral("AWS_ACCESS_KEY_ID"));
            return result;
        }
        c.accessKeyId = envId;
        c.secretAccessKey = envSecret;
        c.sessionToken = envValue(environment, QStringLiteral("AWS_SESSION_TOKEN"));
        c.source = QStringLiteral("environment");
        return result;
    }

    // 1b. A web identity token with its role in the environment (CI jobs, Kubernetes service accounts).
    const QString tokenFile = envValue(environment, QStringLiteral("AWS_WEB_IDENTITY_TOKEN_FILE"));
    const QString roleFromEnv = envValue(environment, QStringLiteral("AWS_ROLE_ARN"));
    if (!tokenFile.isEmpty() && !roleFromEnv.isEmpty()) {
        c.assumeRole.roleArn = roleFromEnv;
        c.assumeRole.webIdentityTokenFile = tokenFile;
        c.assumeRole.sessionName = envValue(environment, QStringLiteral("AWS_ROLE_SESSION_NAME"));
        c.source = QStringLiteral("web-identity");
        return result;
    }

    // 2. The shared credentials file, 3. the config file.
    if (takeKeys(credentialsSection, c)) {
        c.source = QDir::toNativeSeparators(credentialsPath);
        return result;
    }
    if (takeKeys(configSection, c)) {
        c.source = QDir::toNativeSeparators(configPath);
        return result;
    }

    // 4. A role to assume with another profile's keys (or the environment's).
    const QMap<QString, QString> roleSection =
        configSection.contains(QStringLiteral("role_arn")) ? configSection : credentialsSection;
    if (roleSection.contains(QStringLiteral("role_arn"))) {
        AwsCredentials::AssumeRole &role = c.assumeRole;
        role.roleArn = roleSection.value(QStringLiteral("role_arn"));
        role.sourceProfile = roleSection.value(QStringLiteral("source_profile"));
        role.externalId = roleSection.value(QStringLiteral("external_id"));
        role.sessionName = roleSection.value(QStringLiteral("role_session_name"));
        role.durationSeconds = roleSection.value(QStringLiteral("duration_seconds")).toInt();
        const QString credentialSource = roleSection.value(QStringLiteral("credential_source"));
        role.fromEnvironment = credentialSource == QLatin1String("Environment");
        role.fromContainer = credentialSource == QLatin1String("EcsContainer");
        role.fromInstanceMetadata = credentialSource == QLatin1String("Ec2InstanceMetadata");
        const bool fromCredentialSource =
            role.fromEnvironment || role.fromContainer || role.fromInstanceMetadata;
        QString why;
        if (roleSection.contains(QStringLiteral("mfa_serial")))
            why = QStringLiteral("mfa_serial");
        else if (!credentialSource.isEmpty() && !fromCredentialSource)
            why = QStringLiteral("credential_source = ") + credentialSource;
        role.webIdentityTokenFile = roleSection.value(QStringLiteral("web_identity_token_file"));
        if (why.isEmpty() && role.sourceProfile.isEmpty() && !fromCredentialSource &&
            role.webIdentityTokenFile.isEmpty())
            why = QStringLiteral("role_arn without source_profile");
        if (why.isEmpty() && role.fromContainer) {
            // The container's keys ask for the role: its endpoint must be named, and allowed.
            const AwsContainerCredentials::Endpoint container =
                AwsContainerCredentials::endpoint(environment);
            if (!container.isSet() || !container.error.isEmpty()) {
                c.assumeRole = AwsCredentials::AssumeRole();
                result.error =
                    container.isSet()
                        ? container.error
                        : QCoreApplication::translate(
                              "keen::AwsCredentials",
                              "The AWS profile \"%1\" uses credential_source = EcsContainer, but neither "
                              "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor AWS_CONTAINER_CREDENTIALS_FULL_URI "
                              "is set (they are, inside an ECS task, a CodeBuild job or an EKS pod).")
                              .arg(c.profile);
                return result;
            }
            c.containerEndpoint = container.url;
        }
        if (why.isEmpty() && role.fromInstanceMetadata) {
            c.instanceMetadataEndpoint = AwsInstanceMetadata::endpoint(environment);
            if (c.instanceMetadataEndpoint.isEmpty()) {
                c.assumeRole = AwsCredentials::AssumeRole();
                result.error = QCoreApplication::translate(
                                   "keen::AwsCredentials",
                                   "The AWS profile \"%1\" uses credential_source = Ec2InstanceMetadata, but "
                                   "AWS_EC2_METADATA_DISABLED turns the instance metadata off.")
                                   .arg(c.profile);
                return result;
            }
        }
        if (why.isEmpty()) {
            c.source = QStringLiteral("assume-role");
            return result;
        }
        c.assumeRole = AwsCredentials::AssumeRole();
        result.error = unsupported(c.profile, why);
        return result;
    }

    // 5. A command that prints them (the config file's profile first, as the SDKs read it).
    const QString process = configSection.value(
        QStringLiteral("credential_process"), credentialsSection.value(QStringLiteral("credential_process")));
    const QString helper = !unsupportedKey(credentialsSection).isEmpty() ? unsupportedKey(credentialsSection)
                                                                         : unsupportedKey(configSection);
    if (!process.trimmed().isEmpty() && helper == QLatin1String("credential_process")) {
        c.credentialProcess = process.trimmed();
        c.source = QStringLiteral("credential_process");
        return result;
    }
    // 6. An SSO sign-in (config file): sso_session names an [sso-session NAME] section holding the start URL
    // and region; a legacy profile holds them itself.
    if (helper == QLatin1String("sso_session") || helper == QLatin1String("sso_start_url")) {
        AwsCredentials::Sso &sso = c.sso;
        sso.session = configSection.value(QStringLiteral("sso_session"));
        const QMap<QString, QString> session =
            sso.session.isEmpty() ? configSection
                                  : configFile.value(QStringLiteral("sso-session ") + sso.session);
        sso.startUrl = session.value(QStringLiteral("sso_start_url"));
        sso.region = session.value(QStringLiteral("sso_region"));
        sso.accountId = configSection.value(QStringLiteral("sso_account_id"));
        sso.roleName = configSection.value(QStringLiteral("sso_role_name"));
        QStringList missing;
        if (sso.startUrl.isEmpty())
            missing.append(QStringLiteral("sso_start_url"));
        if (sso.region.isEmpty())
            missing.append(QStringLiteral("sso_region"));
        if (sso.accountId.isEmpty())
            missing.append(QStringLiteral("sso_account_id"));
        if (sso.roleName.isEmpty())
            missing.append(QStringLiteral("sso_role_name"));
        if (missing.isEmpty()) {
            c.source = QStringLiteral("sso");
            return result;
        }
        c.sso = AwsCredentials::Sso();
        result.error =
            QCoreApplication::translate("keen::AwsCredentials",
                                        "The AWS profile \"%1\" signs in with SSO but %2 lacks %3.")
                .arg(c.profile, QDir::toNativeSeparators(configPath), missing.join(QStringLiteral(", ")));
        return result;
    }
    if (!helper.isEmpty()) {
        result.error = unsupported(c.profile, helper);
        return result;
    }
    if (!inCredentials && !inConfig && !profileFromEnv.isEmpty()) {
        result.error =
            QCoreApplication::translate("keen::AwsCredentials",
                                        "The AWS profile \"%1\" (from AWS_PROFILE) is not in %2 or %3.")
                .arg(c.profile, QDir::toNativeSeparators(credentialsPath),
                     QDir::toNativeSeparators(configPath));
        return result;
    }
    // 7. The container's keys (an ECS task, a CodeBuild job, an EKS pod), asked from its endpoint.
    const AwsContainerCredentials::Endpoint container = AwsContainerCredentials::endpoint(environment);
    if (container.isSet()) {
        if (container.error.isEmpty()) {
            c.containerEndpoint = container.url;
            c.source = QStringLiteral("container");
        } else {
            result.error = container.error;
        }
    } else if (const QString imds = AwsInstanceMetadata::endpoint(environment); !imds.isEmpty()) {
        // 8. The EC2 instance's role, asked last: off EC2 it does not answer, and the error says what to set.
        c.instanceMetadataEndpoint = imds;
        c.source = QStringLiteral("instance-metadata");
    } else {
        result.error = noCredentials(c.profile, credentialsPath, QString());
    }
    return result;
}

namespace {

// stsRegion: the region of the profile asked for, where every role of its chain is assumed (as the SDKs do).
AwsCredentials::Result keysOf(const AwsCredentials::Result &resolved, const QProcessEnvironment &environment,
                              const QString &homePath, const CancellationToken &cancel, int depth,
                              const QString &stsRegion)
{
    if (!resolved.ok() || resolved.credentials.isValid())
        return resolved;
    const AwsCredentials &profile = resolved.credentials;
    if (!profile.credentialProcess.isEmpty())
        return AwsCredentialProcess::run(profile, environment, cancel);
    if (profile.sso.isSet())
        return AwsSsoCredentials::fetch(profile, environment, homePath, cancel);
    if (!profile.assumeRole.webIdentityTokenFile.isEmpty())
        return AwsAssumeRole::fetchWithWebIdentity(profile, environment, cancel);
    if (!profile.containerEndpoint.isEmpty() && !profile.assumeRole.isSet())
        return AwsContainerCredentials::fetch(profile, environment, cancel);
    if (!profile.instanceMetadataEndpoint.isEmpty() && !profile.assumeRole.isSet()) {
        AwsCredentials::Result instance = AwsInstanceMetadata::fetch(profile, cancel);
        if (!instance.ok() && !cancel.isCancelled())
            instance.error = noCredentials(
                profile.profile,
                sharedFilePaths(environment, homePath.isEmpty() ? QDir::homePath() : homePath).first,
                instance.error);
        return instance;
    }
    AwsCredentials::Result failed = resolved;
    if (profile.assumeRole.isSet() && depth < 5) { // a role's source may be a role too, within reason
        AwsCredentials::Result source;
        if (profile.assumeRole.fromContainer) {
            AwsCredentials container = profile;
            container.assumeRole = AwsCredentials::AssumeRole();
            source = AwsContainerCredentials::fetch(container, environment, cancel);
        } else if (profile.assumeRole.fromInstanceMetadata) {
            AwsCredentials instance = profile;
            instance.assumeRole = AwsCredentials::AssumeRole();
            source = AwsInstanceMetadata::fetch(instance, cancel);
        } else {
            // The source's own keys: not the environment's (unless they are the source), not AWS_PROFILE's.
            QProcessEnvironment sourceEnvironment = environment;
            if (!profile.assumeRole.fromEnvironment) {
                for (const char *name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"})
                    sourceEnvironment.remove(QLatin1String(name));
                sourceEnvironment.insert(QStringLiteral("AWS_PROFILE"), profile.assumeRole.sourceProfile);
            }
            AwsCredentials::Result sourceProfile = AwsCredentials::resolve(sourceEnvironment, homePath);
            // A source_profile without keys is not made up for by the container's (nor is it by the SDKs).
            if (!profile.assumeRole.fromEnvironment && sourceProfile.ok() &&
                (sourceProfile.credentials.source == QLatin1String("container") ||
                 sourceProfile.credentials.source == QLatin1String("instance-metadata"))) {
                sourceProfile.credentials.containerEndpoint.clear();
                sourceProfile.credentials.instanceMetadataEndpoint.clear();
                sourceProfile.error =
                    QCoreApplication::translate("keen::AwsCredentials",
                                                "The AWS profile \"%1\" has no keys and no way to get them.")
                        .arg(profile.assumeRole.sourceProfile);
            }
            source = keysOf(sourceProfile, environment, homePath, cancel, depth + 1, stsRegion);
        }
        AwsCredentials role = profile;
        role.region = stsRegion;
        if (source.ok())
            return AwsAssumeRole::fetch(role, source.credentials, environment, cancel);
        failed.error =
            QCoreApplication::translate("keen::AwsCredentials", "The source of the AWS profile \"%1\": %2")
                .arg(profile.profile, source.error);
        return failed;
    }
    failed.error = QCoreApplication::translate("keen::AwsCredentials",
                                               "The AWS profile \"%1\" leads to no keys (its source_profile "
                                               "chain is too long or loops).")
                       .arg(profile.profile);
    return failed;
}

} // namespace

AwsCredentials::Result AwsCredentials::withKeys(const Result &resolved,
                                                const QProcessEnvironment &environment,
                                                const QString &homePath, const CancellationToken &cancel)
{
    return keysOf(resolved, environment, homePath, cancel, 0, resolved.credentials.region);
}

QStringList AwsCredentials::takeTemporaryKeys(const QJsonObject &answer)
{
    accessKeyId = answer.value(QStringLiteral("AccessKeyId")).toString();
    secretAccessKey = answer.value(QStringLiteral("SecretAccessKey")).toString();
    sessionToken = answer.value(QStringLiteral("Token")).toString();
    expiration =
        QDateTime::fromString(answer.value(QStringLiteral("Expiration")).toString(), Qt::ISODateWithMs);
    QStringList missing;
    if (accessKeyId.isEmpty())
        missing.append(QStringLiteral("AccessKeyId"));
    if (secretAccessKey.isEmpty())
        missing.append(QStringLiteral("SecretAccessKey"));
    if (sessionToken.isEmpty())
        missing.append(QStringLiteral("Token"));
    if (!expiration.isValid())
        missing.append(QStringLiteral("Expiration"));
    if (!missing.isEmpty()) {
        accessKeyId.clear();
        secretAccessKey.clear();
        sessionToken.clear();
        expiration = QDateTime();
    }
    return missing;
}

} // namespace keen
