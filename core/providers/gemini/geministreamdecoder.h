#pragma once

#include "providers/providerprotocol.h"
#include "stream/sseparser.h"

namespace keen {

// Decodes a Gemini alt=sse stream (WIRE_NOTES 4): every event is a GenerateContentResponse; text parts are
// deltas, thought parts are reasoning, function calls arrive whole, usage is cumulative and may be revised
// (the last one wins), and a candidate with a finishReason is the terminal marker.
class GeminiStreamDecoder final : public StreamDecoder
{
public:
    explicit GeminiStreamDecoder(EventSink sink);

    void feed(const QByteArray &bytes) override;
    bool failed() const override { return m_failed; }
    Result<ModelTurn> finish() override;
    ProviderError error() const override { return m_error; }

private:
    void handle(const SseParser::Event &event);
    void handlePart(const QJsonObject &part);
    void fail(const ProviderError &error);
    // The body ended without a finish reason (retried, unlike malformed data).
    ProviderError truncated() const;

    EventSink m_sink;
    SseParser m_parser;
    ModelTurn m_turn;
    QJsonArray m_parts; // the model content to replay, signatures on the parts they came with
    int m_callCount = 0;
    bool m_finished = false;  // a finishReason was seen
    bool m_bodyEnded = false; // finish() is flushing the last event: data cut off there is a truncation
    bool m_failed = false;
    ProviderError m_error;
};

} // namespace keen
