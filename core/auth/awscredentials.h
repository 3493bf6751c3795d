#pragma once

#include "base/cancellationtoken.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>

namespace keen {

// AWS credentials and region for signing Bedrock requests, resolved the way the AWS CLI and SDKs do.
// Keys, in this order: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN) from the environment;
// a web identity token with its role (AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN: a CI job, a Kubernetes
// pod); the profile (AWS_PROFILE, default "default") in the shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials, section "[name]"), else in the config file
// (AWS_CONFIG_FILE, default ~/.aws/config, section "[profile name]", or "[default]"); else, when the profile
// holds nothing of the kind, the container's keys (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI: ECS,
// CodeBuild, EKS Pod Identity; AwsContainerCredentials); else the EC2 instance's role (its instance metadata,
// AwsInstanceMetadata; AWS_EC2_METADATA_DISABLED=true skips it). A profile without keys of its own may name a
// helper, which withKeys() runs: a role to assume (role_arn with source_profile, with
// web_identity_token_file, or with credential_source = Environment, EcsContainer or Ec2InstanceMetadata;
// AwsAssumeRole), a credential_process (AwsCredentialProcess) or an SSO sign-in (sso_session or
// sso_start_url, sso_account_id, sso_role_name; AwsSsoCredentials). An MFA code is reported as unsupported.
// Region: AWS_REGION, else AWS_DEFAULT_REGION, else the profile's region in the config file, else us-east-1.
// No error message ever contains a key or token.
class AwsCredentials
{
public:
    QString accessKeyId;
    QString secretAccessKey;
    QString sessionToken; // empty for long-term keys
    QString region;
    QString profile;           // the profile consulted
    QString source;            // where the keys came from, for messages: "environment" or a file path
    QString credentialProcess; // the profile's command that prints the keys (AwsCredentialProcess), if any
    // The container endpoint the keys are asked from (AwsContainerCredentials), if any: for the container's
    // own keys, or for a role whose credential_source is EcsContainer.
    QString containerEndpoint;
    // The EC2 instance metadata service the keys are asked from (AwsInstanceMetadata), if any: for the
    // instance's own role, or for a role whose credential_source is Ec2InstanceMetadata.
    QString instanceMetadataEndpoint;
    struct Sso
    {
        QString session;  // the [sso-session NAME] the profile names; empty for a legacy profile
        QString startUrl; // the sign-in portal's start URL
        QString region;   // the portal's region
        QString accountId;
        QString roleName;
        bool isSet() const { return !accountId.isEmpty(); }
        bool operator==(const Sso &) const = default;
    } sso; // the profile's IAM Identity Center sign-in (AwsSsoCredentials), if any
    struct AssumeRole
    {
        QString roleArn;
        QString sourceProfile;        // whose keys ask for the role
        bool fromEnvironment = false; // credential_source = Environment: the environment's keys ask
        bool fromContainer = false;   // credential_source = EcsContainer: the container's keys ask
        bool fromInstanceMetadata =
            false;                    // credential_source = Ec2InstanceMetadata: the instance's role asks
        QString webIdentityTokenFile; // a token file that asks instead (AssumeRoleWithWebIdentity)
        QString externalId;
        QString sessionName;
        int durationSeconds = 0; // 0: STS's default
        bool isSet() const { return !roleArn.isEmpty(); }
        bool operator==(const AssumeRole &) const = default;
    } assumeRole;         // the role the profile assumes (AwsAssumeRole), if any
    QDateTime expiration; // when temporary keys expire; invalid for long-term keys

    static constexpr QLatin1StringView DefaultRegion{"us-east-1"};
    static constexpr QLatin1StringView DefaultProfile{"default"};

    bool isValid() const { return !accessKeyId.isEmpty() && !secretAccessKey.isEmpty(); }
    // Keys from a helper are taken again this long before they expire.
    static constexpr int RefreshSecondsBeforeExpiry = 5 * 60;
    // Still usable at now: long-term keys always, temporary ones until RefreshSecondsBeforeExpiry before
    // they expire.
    bool isFreshAt(const QDateTime &now) const
    {
        return isValid() && (!expiration.isValid() || now.secsTo(expiration) > RefreshSecondsBeforeExpiry);
    }

    struct Result; // below: it holds an AwsCredentials

    // homePath locates ~/.aws; both arguments exist so tests can point them elsewhere.
    static Result resolve(const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
                          const QString &homePath = {});
    // resolved with keys: those it holds, or what its helper gives (credential_process, the SSO portal, the
    // container endpoint, STS for a role, with the source's keys got the same way). Blocking: a worker
    // thread's call.
    static Result withKeys(const Result &resolved, const QProcessEnvironment &environment,
                           const QString &homePath, const CancellationToken &cancel);
    // Whether other's keys come from the same helper, so that a cache can tell one profile's from another's.
    bool sameHelperAs(const AwsCredentials &other) const
    {
        return credentialProcess == other.credentialProcess && sso == other.sso &&
               assumeRole == other.assumeRole && containerEndpoint == other.containerEndpoint &&
               instanceMetadataEndpoint == other.instanceMetadataEndpoint;
    }
    // Temporary keys from a JSON answer (AccessKeyId, SecretAccessKey, Token, Expiration: the container
    // endpoint's and the instance metadata's shape). Returns the names of the fields missing; with any
    // missing, no key is kept.
    QStringList takeTemporaryKeys(const QJsonObject &answer);

    // The sections of an AWS INI file: section name -> (lower-case key -> value). Indented lines (nested
    // sub-sections such as "s3 =" blocks) and comments are skipped.
    using IniSections = QMap<QString, QMap<QString, QString>>;
    static IniSections parseIni(const QByteArray &text);
};

struct AwsCredentials::Result
{
    AwsCredentials credentials; // region and profile are filled in even on error
    QString error;              // empty on success
    bool ok() const { return error.isEmpty(); }
};

} // namespace keen
