#pragma once

#include "auth/awscredentials.h"
#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QProcessEnvironment>

namespace keen {

// A profile that assumes a role (role_arn with source_profile, or credential_source = Environment): STS
// AssumeRole is asked, signed with the source's keys, for the role's temporary keys, as the CLI and SDKs do;
// with a web identity token (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, or web_identity_token_file),
// AssumeRoleWithWebIdentity.
// Blocking (one HTTPS request): run it on a worker thread, never the GUI's. No error message holds a key.
class AwsAssumeRole
{
    Q_DECLARE_TR_FUNCTIONS(AwsAssumeRole)

public:
    static constexpr int DefaultTimeoutMs = 30 * 1000;

    // base: the profile with its assumeRole settings (its region picks the STS endpoint; AWS_ENDPOINT_URL_STS
    // in environment replaces it, as it does for the SDKs); source: keys allowed to assume the role.
    static AwsCredentials::Result fetch(const AwsCredentials &base, const AwsCredentials &source,
                                        const QProcessEnvironment &environment,
                                        const CancellationToken &cancel, int timeoutMs = DefaultTimeoutMs);
    // AssumeRoleWithWebIdentity: base.assumeRole.webIdentityTokenFile holds the token (a CI job's or a
    // Kubernetes service account's), which is the proof; the request is not signed.
    static AwsCredentials::Result fetchWithWebIdentity(const AwsCredentials &base,
                                                       const QProcessEnvironment &environment,
                                                       const CancellationToken &cancel,
                                                       int timeoutMs = DefaultTimeoutMs);
    // STS's XML answer: the role's keys, or what STS said (its error code and message).
    static AwsCredentials::Result parse(const AwsCredentials &base, int httpStatus, const QByteArray &xml);

private:
    static QString sessionName(const AwsCredentials::AssumeRole &role);
    // Sends body to STS, signed with signer's keys unless it is null.
    static AwsCredentials::Result post(const AwsCredentials &base, const QByteArray &body,
                                       const AwsCredentials *signer, const QProcessEnvironment &environment,
                                       const CancellationToken &cancel, int timeoutMs);
};

} // namespace keen
