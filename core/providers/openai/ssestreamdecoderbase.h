#pragma once

#include "providers/providerprotocol.h"
#include "stream/sseparser.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QJsonParseError>
#include <QString>

#include <optional>

namespace keen {

// What the OpenAI Chat Completions and Responses decoders share: SSE parsing of the fed bytes, events handed
// on one at a time until one fails, the first error kept, JSON event data parsed (a last event the body cut
// off is a truncation, other bad data is malformed), and the end of the body flushed through the parser.
class SseStreamDecoderBase : public StreamDecoder
{
    Q_DECLARE_TR_FUNCTIONS(SseStreamDecoderBase)

public:
    void feed(const QByteArray &bytes) final;
    bool failed() const final { return m_error.has_value(); }
    ProviderError error() const final;

protected:
    explicit SseStreamDecoderBase(EventSink sink);

    // One parsed event; handled in order until the decoder fails.
    virtual void handleEvent(const SseParser::Event &event) = 0;
    // The error for event data that is not a JSON object (and not cut off by the end of the body).
    virtual ProviderError malformed(const SseParser::Event &event, const QByteArray &data,
                                    const QJsonParseError &parseError) const;

    // data (the event's trimmed data) as a JSON object; std::nullopt after failing.
    std::optional<QJsonObject> parseObject(const SseParser::Event &event, const QByteArray &data);
    // For finish(): flushes the parser's last event, then fails as truncated unless complete() says the
    // terminal marker came. True when the turn can be built.
    template<typename Complete> bool endStream(Complete complete)
    {
        if (!failed()) {
            m_bodyEnded = true;
            m_parser.finish([this](const SseParser::Event &event) { handleParsed(event); });
            failOnParserError();
        }
        if (!failed() && !complete())
            fail(truncated());
        return !failed();
    }
    void fail(const ProviderError &error);
    static ProviderError truncated();

    EventSink m_sink;

private:
    void handleParsed(const SseParser::Event &event);
    void failOnParserError();

    SseParser m_parser;
    bool m_bodyEnded = false;
    std::optional<ProviderError> m_error;
};

} // namespace keen
