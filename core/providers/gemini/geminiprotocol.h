#pragma once

#include "providers/alternatinghistory.h"
#include "providers/providerprotocol.h"

namespace keen {

// The Gemini API's streamGenerateContent with alt=sse (reference 1.6, WIRE_NOTES 4), provider `googleai`.
class GeminiProtocol final : public ProviderProtocol
{
public:
    explicit GeminiProtocol(ClientConfig config);

    // Gemini 3 rejects a function call in history without a signature; Google documents this value for calls
    // that did not come from the model (our historical replay).
    static constexpr const char *HistoricalSignature = "skip_thought_signature_validator";

    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const override;
    void appendUserText(NativeHistory &history, const QString &text) const override;
    QJsonArray assistantMessages(const ModelTurn &turn) const override;
    QJsonArray toolResultMessages(const QList<ToolOutcome> &outcomes) const override;
    QJsonValue toolDefinitions(const ToolSpecList &tools) const override;
    HttpRequestSpec buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                 const RequestContext &context) const override;
    HttpRequestSpec modelsListRequest() const override;
    // {"models": [{"name": "models/<id>", "supportedGenerationMethods": [...]}]}: the ids that generate
    // content.
    QStringList modelIds(const QByteArray &modelsList) const override;
    std::unique_ptr<StreamDecoder> createDecoder(const EventSink &sink) const override;
    ProviderError classifyHttpError(int status, const QByteArray &body,
                                    const HeaderList &headers) const override;
    // Yes: a pending turn replays the model's parts with their thoughtSignature, which Gemini validates on
    // function calls.
    bool compactionWaitsForReconciledPending() const override { return true; }

    QUrl endpoint() const;
    QJsonObject requestBody(const NativeHistory &history, const ToolSpecList &tools) const;
    // thinkingLevel for an effort setting; empty: send includeThoughts without a level.
    static QString thinkingLevel(const QString &effort);
    // A Google RPC error envelope's "error" object ({code,message,status,details}), from HTTP or in-stream.
    static ProviderError errorFromObject(const QJsonObject &error, int httpStatus,
                                         const HeaderList &headers = {});
    // A functionResponse.response: the result as an object, anything else wrapped as {"result": ...}.
    static QJsonObject responseObject(const QString &result);

private:
    AlternatingHistory m_history;
};

} // namespace keen
