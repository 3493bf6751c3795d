#pragma once

#include "providers/providerprotocol.h"
#include "stream/eventstreamdecoder.h"

#include <QMap>

namespace keen {

// Decodes a Bedrock ConverseStream body (WIRE_NOTES 5): AWS event-stream frames carrying JSON events. Text
// and reasoning deltas go out live; tool input is buffered per content block and parsed at the end.
//
// The terminal marker is messageStop followed by metadata (the last frame, with usage). A body that ends
// after messageStop but without metadata is accepted: the answer itself is complete, only the usage is
// missing, and failing it would retry (and pay for) a finished answer. A body that ends before messageStop is
// an error.
class BedrockStreamDecoder final : public StreamDecoder
{
public:
    explicit BedrockStreamDecoder(EventSink sink);

    void feed(const QByteArray &bytes) override;
    bool failed() const override { return m_failed; }
    Result<ModelTurn> finish() override;
    ProviderError error() const override { return m_error; }

private:
    struct Block
    {
        QString text;
        QString reasoning;
        QString signature;
        QString redacted; // base64, replayed as it came
        bool isTool = false;
        QString toolUseId;
        QString name;
        QString input; // concatenated partial JSON
    };

    void handle(const EventStreamDecoder::Message &message);
    void handleEvent(const QString &type, const QJsonObject &payload);
    void fail(const ProviderError &error);

    EventSink m_sink;
    EventStreamDecoder m_frames;
    QMap<int, Block> m_blocks;
    QString m_stopReason;
    std::optional<TokenUsage> m_usage;
    bool m_messageStopped = false;
    bool m_metadataSeen = false;
    bool m_failed = false;
    ProviderError m_error;
};

} // namespace keen
