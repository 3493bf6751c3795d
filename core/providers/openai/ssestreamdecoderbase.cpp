#include "providers/openai/ssestreamdecoderbase.h"

#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>

namespace keen {

SseStreamDecoderBase::SseStreamDecoderBase(EventSink sink)
    : m_sink(std::move(sink))
{}

void SseStreamDecoderBase::feed(const QByteArray &bytes)
{
    if (failed())
        return;
    m_parser.feed(bytes, [this](const SseParser::Event &event) { handleParsed(event); });
    failOnParserError();
}

void SseStreamDecoderBase::handleParsed(const SseParser::Event &event)
{
    if (!failed()) // events after a failure are parsed but not handled
        handleEvent(event);
}

void SseStreamDecoderBase::failOnParserError()
{
    if (!failed() && m_parser.hasError())
        fail(ProviderError{ProviderError::Kind::Stream, m_parser.error(), 0, std::nullopt});
}

ProviderError SseStreamDecoderBase::malformed(const SseParser::Event &event, const QByteArray &data,
                                              const QJsonParseError &parseError) const
{
    Q_UNUSED(event);
    Q_UNUSED(data);
    // Valid JSON that is not an object (an array, a number) has no parse error to show.
    const QString why = parseError.error == QJsonParseError::NoError
                            ? SseStreamDecoderBase::tr("an event's data is JSON but not an object")
                            : parseError.errorString();
    return ProviderError{ProviderError::Kind::Stream,
                         SseStreamDecoderBase::tr("the provider sent malformed stream data: %1").arg(why), 0,
                         std::nullopt};
}

std::optional<QJsonObject> SseStreamDecoderBase::parseObject(const SseParser::Event &event,
                                                             const QByteArray &data)
{
    QJsonParseError parseError;
    const QJsonDocument document = WireSupport::parseTextDocument(data, &parseError);
    if (parseError.error == QJsonParseError::NoError && document.isObject())
        return document.object();
    // The last event had no blank line after it and does not parse: the body was cut inside it.
    fail(m_bodyEnded ? truncated() : malformed(event, data, parseError));
    return std::nullopt;
}

void SseStreamDecoderBase::fail(const ProviderError &error)
{
    if (!m_error)
        m_error = error;
}

ProviderError SseStreamDecoderBase::error() const
{
    return m_error.value_or(ProviderError{});
}

ProviderError SseStreamDecoderBase::truncated()
{
    return ProviderError{ProviderError::Kind::Truncated,
                         SseStreamDecoderBase::tr("stream ended before the response was complete"), 0,
                         std::nullopt};
}

} // namespace keen
