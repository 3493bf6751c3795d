#pragma once

#include "auth/awscredentials.h"
#include "providers/alternatinghistory.h"
#include "providers/providerprotocol.h"

#include <QProcessEnvironment>

#include <optional>

namespace keen {

// Amazon Bedrock ConverseStream (reference 1.7, WIRE_NOTES 5), provider `amazon-bedrock`. Authenticates with
// a Bedrock API key as a bearer token when ClientConfig::apiKey is set, otherwise signs each request with
// SigV4 (service "bedrock") using the standard AWS credential chain.
class BedrockProtocol final : public ProviderProtocol
{
public:
    // environment and homePath are where the AWS credential chain looks (tests point them elsewhere).
    explicit BedrockProtocol(ClientConfig config,
                             QProcessEnvironment environment = QProcessEnvironment::systemEnvironment(),
                             QString homePath = {});

    static constexpr int MaxTokens = 64000;

    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const override;
    NativeHistory rebuildAfterCompaction(const NativeHistory &current,
                                         const MessageList &replacement) const override;
    void appendUserText(NativeHistory &history, const QString &text) const override;
    QJsonArray assistantMessages(const ModelTurn &turn) const override;
    QJsonArray toolResultMessages(const QList<ToolOutcome> &outcomes) const override;
    QJsonValue toolDefinitions(const ToolSpecList &tools) const override;
    // Signs with the current time, so a retry gets a fresh signature.
    HttpRequestSpec buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                 const RequestContext &context) const override;
    // GET /foundation-models on the control-plane endpoint (bedrock.<region>), signed for "bedrock".
    HttpRequestSpec modelsListRequest() const override;
    // None: ListFoundationModels names foundation models, while the newer models are called through inference
    // profiles ("global.anthropic..."), which it does not list. The registry's ids are the ones to offer.
    QStringList modelIds(const QByteArray &modelsList) const override;
    std::unique_ptr<StreamDecoder> createDecoder(const EventSink &sink) const override;
    ProviderError classifyHttpError(int status, const QByteArray &body,
                                    const HeaderList &headers) const override;
    // Yes: a pending turn of a reasoning model (Claude on Bedrock) replays reasoningContent with its
    // signature or redactedContent, which the service verifies.
    bool compactionWaitsForReconciledPending() const override { return true; }
    // Resolves the AWS credentials (again before each attempt, so rotated keys are picked up).
    Result<void> prepare(const CancellationToken &cancel) override;

    QString region() const;
    QUrl endpoint() const;
    QJsonObject requestBody(const NativeHistory &history, const ToolSpecList &tools,
                            const RequestContext &context) const;
    // The same request signed at a given time (tests compare against a fixed clock).
    HttpRequestSpec buildRequestAt(const NativeHistory &history, const ToolSpecList &tools,
                                   const RequestContext &context, const QDateTime &time) const;

    // A Bedrock exception (an HTTP error's x-amzn-ErrorType, or an exception frame's :exception-type).
    static ProviderError errorFor(const QString &exceptionType, const QString &message, int httpStatus);

private:
    AwsCredentials::Result resolveCredentials() const;
    // Adds the bearer key, or the SigV4 headers for exactly this method, URL, headers and body.
    void authorize(HttpRequestSpec &spec, const QDateTime &time) const;

    AlternatingHistory m_history;
    QProcessEnvironment m_environment;
    QString m_homePath;
    std::optional<AwsCredentials::Result> m_credentials; // from prepare()
};

} // namespace keen
