#pragma once

#include "providers/openai/ssestreamdecoderbase.h"

#include <QJsonObject>
#include <QString>

#include <map>
#include <optional>
#include <vector>

namespace keen {

// Decodes an OpenAI Chat Completions stream (chat.completion.chunk events, then [DONE]) from any
// OpenAI-compatible server: text and refusal deltas, reasoning under its three non-standard names, tool
// calls assembled by index, usage on its own chunk or on the finish chunk, and error objects inside the
// stream.
class ChatCompletionsStreamDecoder final : public SseStreamDecoderBase
{
public:
    explicit ChatCompletionsStreamDecoder(EventSink sink);

    Result<ModelTurn> finish() override;

private:
    struct PendingCall
    {
        QString id;
        QString name;
        QString arguments;
    };

    void handleEvent(const SseParser::Event &event) override;
    ProviderError malformed(const SseParser::Event &event, const QByteArray &data,
                            const QJsonParseError &parseError) const override;
    void handleChunk(const QJsonObject &chunk);
    void handleDelta(const QJsonObject &delta);
    // Whether a fragment with this id and name, under the index of current, begins a call of its own.
    static bool startsAnotherCall(const PendingCall &current, const QString &id, const QString &name);
    void appendTexts(const QString &reasoning, const QString &content, const QString &refusal);
    void setFinishReason(const QString &reason);

    QString m_text;
    QString m_reasoning;
    // In the order they began. Fragments go to a call by the delta's index, so parallel calls never mix; an
    // index a server reuses for the next call (Ollama numbers every parallel call 0) starts a new one.
    std::vector<PendingCall> m_calls;
    std::map<int, std::size_t> m_callOfIndex; // the delta's index -> the call in m_calls it continues
    std::optional<TokenUsage> m_usage;
    QString m_finishReason;
    bool m_sawDone = false;
};

} // namespace keen
