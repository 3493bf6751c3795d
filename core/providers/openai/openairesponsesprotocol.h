#pragma once

#include "providers/providerprotocol.h"

namespace keen {

// The OpenAI Responses API for provider openai (reference 1.3): POST <base>/responses with store:false and
// prompt_cache_key; historical tools as function_call / function_call_output items; the output items of a
// response (message, reasoning with its encrypted content, function_call) replayed verbatim on continuation.
// OpenAiCodexProtocol derives from it for the ChatGPT backend.
class OpenAiResponsesProtocol : public ProviderProtocol
{
public:
    explicit OpenAiResponsesProtocol(ClientConfig config);

    static QString defaultBaseUrl();
    // The session id without hyphens (reference 1.1, promptCacheKey).
    static QString promptCacheKey(const QString &sessionId);

    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const override;
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
    // Yes (Codex too, it replays the same items): a pending turn replays reasoning items whose
    // encrypted_content the API decrypts and checks against the model and account (store:false).
    bool compactionWaitsForReconciledPending() const override { return true; }

protected:
    // Input items for the neutral messages; system messages are skipped when the API takes them apart.
    static QJsonArray inputItems(const MessageList &messages, bool includeSystem, qsizetype firstIndex);
    // The body both endpoints share: model, stream, store, input, tools, prompt_cache_key, reasoning.
    QJsonObject requestBody(const NativeHistory &history, const ToolSpecList &tools,
                            const RequestContext &context) const;
    static QString joinUrl(QString base, const QString &path);
    // Headers from the settings win over the built-in ones of the same name.
    static void addExtraHeaders(HeaderList &headers, const HeaderList &extra);
};

} // namespace keen
