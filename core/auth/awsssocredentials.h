#pragma once

#include "auth/awscredentials.h"
#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QProcessEnvironment>

namespace keen {

// A profile signed in with IAM Identity Center (`aws sso login`): the CLI keeps the sign-in's access token in
// ~/.aws/sso/cache/<sha1 of the sso-session name, or of the start URL>.json, and the role's keys are asked
// from the SSO portal (GetRoleCredentials) with it, as the SDKs do. An sso-session sign-in about to expire is
// renewed with its refresh token (the OIDC service, AWS_ENDPOINT_URL_SSO_OIDC honoured) and written back for
// the CLI; otherwise an expired or missing sign-in says to run `aws sso login`. Blocking (a file and one or
// two HTTPS requests): run it on a worker thread, never the GUI's. No error message holds a token or a key.
class AwsSsoCredentials
{
    Q_DECLARE_TR_FUNCTIONS(AwsSsoCredentials)

public:
    static constexpr int DefaultTimeoutMs = 30 * 1000;

    // base: the resolved profile with its sso settings; homePath locates ~/.aws. AWS_ENDPOINT_URL_SSO in
    // environment replaces the portal's address, as it does for the SDKs.
    static AwsCredentials::Result fetch(const AwsCredentials &base, const QProcessEnvironment &environment,
                                        const QString &homePath, const CancellationToken &cancel,
                                        int timeoutMs = DefaultTimeoutMs);
    // The cache file's name for an sso-session name (or a legacy profile's start URL).
    static QString cacheFileName(const QString &sessionOrStartUrl);
};

} // namespace keen
