#pragma once

#include "providers/providerprotocol.h"

namespace keen {

// OpenAI Chat Completions and the servers that speak it (reference 1.2): providers openai-compatible,
// deepseek, moonshotai and zai. POST <base>/chat/completions with stream_options.include_usage; tool calls
// and their results as assistant tool_calls plus role "tool" messages; reasoning re-sent as
// reasoning_content.
class OpenAiChatProtocol final : public ProviderProtocol
{
public:
    // How a provider/model pair is asked to think (reference 1.2, openAIThinkingMode).
    enum class ThinkingMode {
        None,                     // no thinking parameters
        ReasoningEffort,          // reasoning_effort: <effort>
        Type,                     // thinking: {type: <effort>}
        ToggleAndReasoningEffort, // thinking disabled, or reasoning_effort + thinking enabled
    };

    explicit OpenAiChatProtocol(ClientConfig config);

    // The built-in endpoint of a chat-completions provider; empty for openai-compatible, which needs a base
    // URL.
    static QString defaultBaseUrl(const QString &providerId);
    static ThinkingMode thinkingMode(const QString &providerId, const QString &model);

    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const override;
    void appendUserText(NativeHistory &history, const QString &text) const override;
    QJsonArray assistantMessages(const ModelTurn &turn) const override;
    QJsonArray toolResultMessages(const QList<ToolOutcome> &outcomes) const override;
    QJsonValue toolDefinitions(const ToolSpecList &tools) const override;
    HttpRequestSpec buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                 const RequestContext &context) const override;
    HttpRequestSpec modelsListRequest() const override;
    std::unique_ptr<StreamDecoder> createDecoder(const EventSink &sink) const override;
    // A chat.completion (or an error object) as the one chunk and [DONE] a streaming server would send.
    std::optional<QByteArray> documentAsStream(const QByteArray &document) const override;
    ProviderError classifyHttpError(int status, const QByteArray &body,
                                    const HeaderList &headers) const override;
    // No: a pending turn is assistant tool_calls and role "tool" messages, reasoning_content is plain
    // unsigned text, so there is nothing the API verifies beyond the shape the loop itself built.
    bool compactionWaitsForReconciledPending() const override { return false; }
};

} // namespace keen
