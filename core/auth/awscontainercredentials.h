#pragma once

#include "auth/awscredentials.h"
#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QProcessEnvironment>
#include <QUrl>

namespace keen {

// The keys a container is given (ECS tasks, CodeBuild, EKS Pod Identity, Greengrass), asked the way the SDKs
// do: a GET to http://169.254.170.2 + AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, else to
// AWS_CONTAINER_CREDENTIALS_FULL_URI, which must be https, or http to a loopback host or to the ECS/EKS hosts
// 169.254.170.2, 169.254.170.23 or [fd00:ec2::23]. The Authorization header is the contents of
// AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read anew each time, as it is rotated), else
// AWS_CONTAINER_AUTHORIZATION_TOKEN; a token with a line break is refused. The answer is JSON with
// AccessKeyId, SecretAccessKey, Token and Expiration. Blocking (one HTTP request, 5 s at most): run it on a
// worker thread, never the GUI's. No error message holds a key or the authorization token.
class AwsContainerCredentials
{
    Q_DECLARE_TR_FUNCTIONS(AwsContainerCredentials)

public:
    static constexpr int DefaultTimeoutMs = 5 * 1000;
    static constexpr QLatin1StringView EcsHost{"169.254.170.2"};

    struct Endpoint
    {
        QString url;   // where the keys are asked; empty when the environment names no endpoint
        QString error; // why the environment's endpoint is refused; empty when allowed
        bool isSet() const { return !url.isEmpty() || !error.isEmpty(); }
    };
    // The endpoint the environment names (RELATIVE_URI first, as the SDKs read it), checked. Pure.
    static Endpoint endpoint(const QProcessEnvironment &environment);
    // http://169.254.170.2 followed by relativeUri (a leading '/' added if it lacks one).
    static QString relativeEndpoint(const QString &relativeUri);
    // Whether a full URI may be asked for keys (the SDKs' rule; see the class comment).
    static bool isAllowedFullUri(const QUrl &url);

    // base.containerEndpoint: where the keys are asked; environment: the authorization token's variables.
    static AwsCredentials::Result fetch(const AwsCredentials &base, const QProcessEnvironment &environment,
                                        const CancellationToken &cancel, int timeoutMs = DefaultTimeoutMs);
    // The endpoint's answer: the keys, or why there are none (never the answer's keys nor token).
    static AwsCredentials::Result parse(const AwsCredentials &base, int httpStatus, const QByteArray &json,
                                        const QByteArray &authorizationToken = {});

private:
    // The Authorization header's value (empty: none is sent), or why it cannot be sent.
    static bool authorizationToken(const QProcessEnvironment &environment, QByteArray &token, QString &error);
    // host[:port] of the endpoint, for messages (its path may identify the task's credentials).
    static QString describe(const QString &url);
};

} // namespace keen
