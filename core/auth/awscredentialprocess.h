#pragma once

#include "auth/awscredentials.h"
#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QProcessEnvironment>

namespace keen {

// A profile's credential_process (the AWS CLI's and SDKs' way to get keys from a helper such as aws-vault,
// granted or a password manager): the command runs with `sh -c` as the SDKs run it, and prints one JSON
// object, {"Version": 1, "AccessKeyId", "SecretAccessKey", "SessionToken"?, "Expiration"?}. Blocking: run it
// on a worker thread, never the GUI's. No error message holds what the command printed on stdout.
class AwsCredentialProcess
{
    Q_DECLARE_TR_FUNCTIONS(AwsCredentialProcess)

public:
    static constexpr int DefaultTimeoutMs = 60 * 1000; // as the Go SDK waits

    // base: the resolved profile (its region, profile name and credentialProcess). The result's keys and
    // expiration come from the command.
    static AwsCredentials::Result run(const AwsCredentials &base, const QProcessEnvironment &environment,
                                      const CancellationToken &cancel, int timeoutMs = DefaultTimeoutMs);
    // Parses the command's stdout into credentials, or says what is wrong with it (never quoting it).
    static AwsCredentials::Result parse(const AwsCredentials &base, const QByteArray &output);
};

} // namespace keen
