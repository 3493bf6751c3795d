#include "providers/anthropic/anthropicstreamdecoder.h"

#include "providers/anthropic/anthropicprotocol.h"
#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace keen {

AnthropicStreamDecoder::AnthropicStreamDecoder(EventSink sink, QString providerName)
    : m_sink(std::move(sink))
    , m_provider(std::move(providerName))
{}

void AnthropicStreamDecoder::feed(const QByteArray &bytes)
{
    if (m_failed || m_stopped)
        return;
    m_parser.feed(bytes, [this](const SseParser::Event &event) {
        if (!m_failed && !m_stopped)
            handle(event);
    });
    if (m_parser.hasError())
        fail(WireSupport::makeError(ProviderError::Kind::Stream, m_provider, m_parser.error()));
}

void AnthropicStreamDecoder::fail(const ProviderError &error)
{
    if (m_failed)
        return;
    m_failed = true;
    m_error = error;
}

AnthropicStreamDecoder::Block &AnthropicStreamDecoder::block(int index, const QString &typeIfNew)
{
    auto it = m_blocks.find(index);
    if (it == m_blocks.end()) {
        // A delta without its start: assume the block type the delta implies.
        it = m_blocks.insert(index, Block{});
        it->type = typeIfNew;
    }
    return *it;
}

void AnthropicStreamDecoder::handleUsage(const QJsonObject &usage)
{
    auto take = [&usage](const char *key, std::optional<qint64> &into) {
        const QJsonValue value = usage.value(QLatin1String(key));
        if (value.isDouble())
            into = TokenUsage::count(value);
    };
    take("input_tokens", m_input);
    take("output_tokens", m_output);
    take("cache_creation_input_tokens", m_cacheCreation);
    take("cache_read_input_tokens", m_cacheRead);
}

void AnthropicStreamDecoder::handle(const SseParser::Event &event)
{
    if (event.data.isEmpty())
        return;
    bool ok = false;
    const QJsonObject object = WireSupport::parseTextObject(event.data, &ok);
    if (!ok) {
        // The last event had no blank line after it and does not parse: the body was cut inside it.
        fail(m_bodyEnded ? truncated()
                         : WireSupport::makeError(ProviderError::Kind::Stream, m_provider,
                                                  QCoreApplication::translate("keen::AnthropicStreamDecoder",
                                                                              "malformed event data: %1")
                                                      .arg(event.text().left(200))));
        return;
    }
    // The JSON type is authoritative; the event: line only duplicates it.
    QString type = object.value(QStringLiteral("type")).toString();
    if (type.isEmpty())
        type = event.event;
    const int index = object.value(QStringLiteral("index")).toInt();

    if (type == QLatin1String("message_start")) {
        handleUsage(
            object.value(QStringLiteral("message")).toObject().value(QStringLiteral("usage")).toObject());
    } else if (type == QLatin1String("content_block_start")) {
        const QJsonObject start = object.value(QStringLiteral("content_block")).toObject();
        Block fresh;
        fresh.type = start.value(QStringLiteral("type")).toString();
        fresh.text = start
                         .value(fresh.type == QLatin1String("thinking") ? QStringLiteral("thinking")
                                                                        : QStringLiteral("text"))
                         .toString();
        fresh.signature = start.value(QStringLiteral("signature")).toString();
        fresh.data = start.value(QStringLiteral("data")).toString();
        fresh.id = start.value(QStringLiteral("id")).toString();
        fresh.name = start.value(QStringLiteral("name")).toString();
        fresh.startInput = start.value(QStringLiteral("input")).toObject();
        m_blocks.insert(index, fresh);
        if (!fresh.text.isEmpty()) {
            if (fresh.type == QLatin1String("text"))
                m_sink(StreamEvent::chunk(fresh.text));
            else if (fresh.type == QLatin1String("thinking"))
                m_sink(StreamEvent::reasoning(fresh.text));
        }
    } else if (type == QLatin1String("content_block_delta")) {
        const QJsonObject delta = object.value(QStringLiteral("delta")).toObject();
        const QString deltaType = delta.value(QStringLiteral("type")).toString();
        if (deltaType == QLatin1String("text_delta")) {
            const QString text = delta.value(QStringLiteral("text")).toString();
            block(index, QStringLiteral("text")).text += text;
            if (!text.isEmpty())
                m_sink(StreamEvent::chunk(text));
        } else if (deltaType == QLatin1String("thinking_delta")) {
            const QString text = delta.value(QStringLiteral("thinking")).toString();
            block(index, QStringLiteral("thinking")).text += text;
            if (!text.isEmpty())
                m_sink(StreamEvent::reasoning(text));
        } else if (deltaType == QLatin1String("signature_delta")) {
            block(index, QStringLiteral("thinking")).signature =
                delta.value(QStringLiteral("signature")).toString();
        } else if (deltaType == QLatin1String("input_json_delta")) {
            block(index, QStringLiteral("tool_use")).json +=
                delta.value(QStringLiteral("partial_json")).toString();
        }
        // citations_delta and future delta types carry nothing this app shows.
    } else if (type == QLatin1String("message_delta")) {
        const QString stopReason =
            object.value(QStringLiteral("delta")).toObject().value(QStringLiteral("stop_reason")).toString();
        if (!stopReason.isEmpty())
            m_stopReason = stopReason;
        handleUsage(object.value(QStringLiteral("usage")).toObject());
    } else if (type == QLatin1String("message_stop")) {
        m_stopped = true;
    } else if (type == QLatin1String("error")) {
        fail(AnthropicProtocol::errorFromObject(object.value(QStringLiteral("error")).toObject(), 0,
                                                m_provider));
    }
    // ping, content_block_stop (blocks are assembled at the end) and unknown events are ignored.
}

ModelTurn AnthropicStreamDecoder::buildTurn() const
{
    ModelTurn turn;
    turn.stopReason = m_stopReason;
    QJsonArray content;
    for (const Block &b : m_blocks) {
        if (b.type == QLatin1String("text")) {
            turn.text += b.text;
            if (!b.text.isEmpty())
                content.append(
                    QJsonObject{{QStringLiteral("type"), b.type}, {QStringLiteral("text"), b.text}});
        } else if (b.type == QLatin1String("thinking")) {
            // Replayed verbatim: the API checks the signature against the thinking text.
            turn.reasoning += b.text;
            content.append(QJsonObject{{QStringLiteral("type"), b.type},
                                       {QStringLiteral("thinking"), b.text},
                                       {QStringLiteral("signature"), b.signature}});
        } else if (b.type == QLatin1String("redacted_thinking")) {
            content.append(QJsonObject{{QStringLiteral("type"), b.type}, {QStringLiteral("data"), b.data}});
        } else if (b.type == QLatin1String("tool_use")) {
            if (b.id.isEmpty() && b.name.isEmpty())
                continue;
            ToolCallRequest call;
            call.id = b.id;
            call.name = b.name;
            call.arguments = b.json;
            call.input = b.json.trimmed().isEmpty() ? b.startInput : WireSupport::toolInput(b.json);
            turn.toolCalls.append(call);
            content.append(QJsonObject{{QStringLiteral("type"), b.type},
                                       {QStringLiteral("id"), b.id},
                                       {QStringLiteral("name"), b.name},
                                       {QStringLiteral("input"), call.input}});
        }
    }
    if (!content.isEmpty())
        turn.assistantNative.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                                {QStringLiteral("content"), content}});
    if (m_input || m_output || m_cacheCreation || m_cacheRead) {
        TokenUsage usage;
        const qint64 creation = m_cacheCreation.value_or(0);
        const qint64 read = m_cacheRead.value_or(0);
        usage.inputTokens = TokenUsage::add(TokenUsage::add(m_input.value_or(0), creation), read);
        usage.outputTokens = m_output.value_or(0);
        usage.totalTokens = TokenUsage::add(usage.inputTokens, usage.outputTokens);
        usage.cachedTokens = TokenUsage::add(creation, read);
        usage.cacheReadTokens = read;
        usage.cacheWriteTokens = creation;
        turn.usage = usage;
    }
    return turn;
}

ProviderError AnthropicStreamDecoder::truncated() const
{
    return WireSupport::makeError(
        ProviderError::Kind::Truncated, m_provider,
        QCoreApplication::translate("keen::AnthropicStreamDecoder",
                                    "the response ended before message_stop (truncated)"));
}

Result<ModelTurn> AnthropicStreamDecoder::finish()
{
    if (!m_failed && !m_stopped) {
        m_bodyEnded = true;
        m_parser.finish([this](const SseParser::Event &event) {
            if (!m_failed && !m_stopped)
                handle(event);
        });
        if (m_parser.hasError())
            fail(WireSupport::makeError(ProviderError::Kind::Stream, m_provider, m_parser.error()));
    }
    if (!m_failed && !m_stopped)
        fail(truncated());
    if (m_failed)
        return Result<ModelTurn>::failure(m_error.message);
    return buildTurn();
}

} // namespace keen
