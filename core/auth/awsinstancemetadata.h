#pragma once

#include "auth/awscredentials.h"
#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QProcessEnvironment>

namespace keen {

// The keys of an EC2 instance's IAM role, asked from its instance metadata service the way the SDKs do
// (IMDSv2): a PUT to /latest/api/token for a session token, a GET of
// /latest/meta-data/iam/security-credentials/ for the role's name, then a GET of that role's keys (JSON:
// Code, AccessKeyId, SecretAccessKey, Token, Expiration), each with the token and within 1 s, no redirect
// followed. The service is at http://169.254.169.254, or AWS_EC2_METADATA_SERVICE_ENDPOINT, or
// http://[fd00:ec2::254] with AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6; AWS_EC2_METADATA_DISABLED=true
// turns it off. It is the last source of the chain (AwsCredentials) and the one credential_source =
// Ec2InstanceMetadata names. Blocking: run it on a worker thread, never the GUI's. No error message holds a
// key or the session token.
class AwsInstanceMetadata
{
    Q_DECLARE_TR_FUNCTIONS(AwsInstanceMetadata)

public:
    static constexpr int DefaultTimeoutMs = 1000; // the SDKs' default: a machine off EC2 is not kept waiting
    static constexpr QLatin1StringView DefaultEndpoint{"http://169.254.169.254"};
    static constexpr QLatin1StringView Ipv6Endpoint{"http://[fd00:ec2::254]"};

    // Where the service is asked (without a trailing '/'); empty when AWS_EC2_METADATA_DISABLED is true.
    static QString endpoint(const QProcessEnvironment &environment);

    // base.instanceMetadataEndpoint: where the keys are asked.
    static AwsCredentials::Result fetch(const AwsCredentials &base, const CancellationToken &cancel,
                                        int timeoutMs = DefaultTimeoutMs);
};

} // namespace keen
