#pragma once

#include "providerprotocol.h"
#include "sseparser.h"

#include <QJsonObject>
#include <QString>

#include <map>
#include <optional>

namespace keen {

// Decodes an OpenAI Chat Completions stream (chat.completion.chunk events, then [DONE]) from any
// OpenAI-compatible server: text and refusal deltas, reasoning under its three non-standard names, tool
// calls assembled by index, usage on its own chunk or on the finish chunk, and error objects inside the
// stream.
class ChatCompletionsStreamDecoder final : public StreamDecoder
{
public:
    explicit ChatCompletionsStreamDecoder(EventSink sink);

    void feed(const QByteArray &bytes) override;
    bool failed() const override { return m_error.has_value(); }
    Result<ModelTurn> finish() override;
    ProviderError error() const override;

private:
    struct PendingCall
    {
        QString id;
        QString name;
        QString arguments;
    };

    void handleEvents(const QList<SseParser::Event> &events);
    void handleEvent(const SseParser::Event &event);
    void handleChunk(const QJsonObject &chunk);
    void handleDelta(const QJsonObject &delta);
    void fail(const ProviderError &error);

    EventSink m_sink;
    SseParser m_parser;
    QString m_text;
    QString m_reasoning;
    std::map<int, PendingCall> m_calls; // by the delta's index, so parallel calls never mix
    std::optional<TokenUsage> m_usage;
    QString m_finishReason;
    bool m_sawDone = false;
    bool m_bodyEnded = false;
    std::optional<ProviderError> m_error;
};

} // namespace keen
