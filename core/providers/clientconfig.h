#pragma once

#include "base/result.h"

#include <QList>
#include <QPair>
#include <QString>

#include <functional>

namespace keen {

// Everything a provider client needs to talk to its API. Built by the config layer; holds the secret, so
// it is never logged or written anywhere.
struct ClientConfig
{
    QString providerId; // anthropic, openai, openai-codex, openai-compatible, googleai, amazon-bedrock, ...
    QString model;
    QString baseUrl;                              // empty: the provider's default endpoint
    QList<QPair<QByteArray, QByteArray>> headers; // extra headers from the settings
    QString apiKey;                               // may be empty (openai-compatible, Bedrock with SigV4)
    QString thinkingEffort;
    qint64 contextWindow = 200000;
    int inactivityTimeoutMs = 5 * 60 * 1000;
    int maxAttempts = 6;
    int retryBaseDelayMs = 1000; // backoff = attempt * base
    // A response body larger than this is an error: a body that never ends cannot grow memory without bound.
    qint64 maxResponseBytes = qint64(256) * 1024 * 1024;
    QString awsRegion;  // Bedrock
    QString awsProfile; // Bedrock
    // Set when the key comes from an api_key_helper: on an authentication error the loop asks for a fresh key
    // and retries once (reference 1.5). Runs on the worker thread.
    std::function<Result<QString>()> refreshApiKey;
};

} // namespace keen
