#pragma once

#include "providers/providerprotocol.h"
#include "stream/sseparser.h"

#include <QMap>

namespace keen {

// Decodes an Anthropic Messages SSE stream (WIRE_NOTES 3): text and thinking deltas go out live, blocks are
// assembled by index, tool input JSON is buffered per block, and message_stop is the terminal marker.
class AnthropicStreamDecoder final : public StreamDecoder
{
public:
    AnthropicStreamDecoder(EventSink sink, QString providerName);

    void feed(const QByteArray &bytes) override;
    bool failed() const override { return m_failed; }
    Result<ModelTurn> finish() override;
    ProviderError error() const override { return m_error; }

private:
    struct Block
    {
        QString type; // text, thinking, redacted_thinking, tool_use, or an ignored server block
        QString text; // text or thinking
        QString signature;
        QString data; // redacted_thinking
        QString id;
        QString name;
        QString json;
        QJsonObject startInput;
    };

    void handle(const SseParser::Event &event);
    void handleUsage(const QJsonObject &usage);
    Block &block(int index, const QString &typeIfNew);
    void fail(const ProviderError &error);
    // The body ended before message_stop (retried, unlike malformed data).
    ProviderError truncated() const;
    ModelTurn buildTurn() const;

    EventSink m_sink;
    QString m_provider;
    SseParser m_parser;
    QMap<int, Block> m_blocks;
    QString m_stopReason;
    std::optional<qint64> m_input;
    std::optional<qint64> m_output;
    std::optional<qint64> m_cacheCreation;
    std::optional<qint64> m_cacheRead;
    bool m_stopped = false;   // message_stop seen
    bool m_bodyEnded = false; // finish() is flushing the last event: data cut off there is a truncation
    bool m_failed = false;
    ProviderError m_error;
};

} // namespace keen
