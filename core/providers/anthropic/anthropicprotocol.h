#pragma once

#include "providers/alternatinghistory.h"
#include "providers/providerprotocol.h"

namespace keen {

// The Anthropic Messages API (reference 1.5), also used for MiniMax's Anthropic-compatible endpoint.
class AnthropicProtocol final : public ProviderProtocol
{
public:
    explicit AnthropicProtocol(ClientConfig config);

    static constexpr int MaxTokens = 64000;

    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const override;
    NativeHistory rebuildAfterCompaction(const NativeHistory &current,
                                         const MessageList &replacement) const override;
    void appendUserText(NativeHistory &history, const QString &text) const override;
    QJsonArray assistantMessages(const ModelTurn &turn) const override;
    QJsonArray toolResultMessages(const QList<ToolOutcome> &outcomes) const override;
    QJsonValue toolDefinitions(const ToolSpecList &tools) const override;
    HttpRequestSpec buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                 const RequestContext &context) const override;
    HttpRequestSpec modelsListRequest() const override;
    std::unique_ptr<StreamDecoder> createDecoder(const EventSink &sink) const override;
    ProviderError classifyHttpError(int status, const QByteArray &body,
                                    const HeaderList &headers) const override;
    // Yes: a pending turn replays thinking blocks whose signatures the API verifies, and redacted_thinking
    // blocks it decrypts.
    bool compactionWaitsForReconciledPending() const override { return true; }

    // The endpoint: <base>/v1/messages, base defaulting per provider (api.anthropic.com, MiniMax's).
    QUrl endpoint() const;
    // <base>/v1<path>, or <base><path> when the base already ends in /v1.
    QUrl url(const QString &path) const;
    // The body of one request, cache markers included (exposed for tests).
    QJsonObject requestBody(const NativeHistory &history, const ToolSpecList &tools,
                            const RequestContext &context) const;
    // The thinking fields of reference 1.5 for an effort setting, merged into the body.
    void applyThinking(QJsonObject &body) const;
    // Clears every cache marker, then marks the last system block, the last tool, the last block of the
    // stable message and the last block of the last message (reference 1.5).
    static void applyCacheControl(QJsonObject &body, int stableIndex);

    // The error of an Anthropic error object ({"type","message"}), shared by HTTP errors and `error` events.
    static ProviderError errorFromObject(const QJsonObject &error, int httpStatus, const QString &provider);
    QString providerName() const;

private:
    AlternatingHistory m_history;
};

} // namespace keen
