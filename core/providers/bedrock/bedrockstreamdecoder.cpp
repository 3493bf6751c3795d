#include "providers/bedrock/bedrockstreamdecoder.h"

#include "providers/bedrock/bedrockprotocol.h"
#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace keen {

namespace {

QString providerName()
{
    return QStringLiteral("Amazon Bedrock");
}

} // namespace

BedrockStreamDecoder::BedrockStreamDecoder(EventSink sink)
    : m_sink(std::move(sink))
{}

void BedrockStreamDecoder::fail(const ProviderError &error)
{
    if (m_failed)
        return;
    m_failed = true;
    m_error = error;
}

void BedrockStreamDecoder::feed(const QByteArray &bytes)
{
    if (m_failed)
        return;
    const QList<EventStreamDecoder::Message> messages = m_frames.feed(bytes);
    for (const EventStreamDecoder::Message &message : messages) {
        if (m_failed)
            return;
        handle(message);
    }
    if (m_frames.hasError())
        fail(WireSupport::makeError(ProviderError::Kind::Stream, providerName(), m_frames.error()));
}

void BedrockStreamDecoder::handle(const EventStreamDecoder::Message &message)
{
    if (message.isException()) {
        const QJsonObject payload = WireSupport::parseObject(message.payload);
        QString text = payload.value(QStringLiteral("message")).toString();
        if (text.isEmpty())
            text = QString::fromUtf8(message.payload.left(500));
        fail(BedrockProtocol::errorFor(message.exceptionType(), text, 0));
        return;
    }
    if (message.isError()) {
        fail(WireSupport::makeError(ProviderError::Kind::Stream, providerName(),
                                    message.errorCode() + QStringLiteral(": ") + message.errorMessage()));
        return;
    }
    if (!message.isEvent())
        return;
    bool ok = false;
    const QJsonObject payload = WireSupport::parseObject(message.payload, &ok);
    if (!ok) {
        fail(WireSupport::makeError(
            ProviderError::Kind::Stream, providerName(),
            QCoreApplication::translate("keen::BedrockStreamDecoder", "malformed %1 event")
                .arg(message.eventType())));
        return;
    }
    handleEvent(message.eventType(), payload);
}

void BedrockStreamDecoder::handleEvent(const QString &type, const QJsonObject &payload)
{
    const int index = payload.value(QStringLiteral("contentBlockIndex")).toInt();
    if (type == QLatin1String("contentBlockStart")) {
        const QJsonObject toolUse =
            payload.value(QStringLiteral("start")).toObject().value(QStringLiteral("toolUse")).toObject();
        if (!toolUse.isEmpty()) {
            Block &block = m_blocks[index];
            block.isTool = true;
            block.toolUseId = toolUse.value(QStringLiteral("toolUseId")).toString();
            block.name = toolUse.value(QStringLiteral("name")).toString();
        }
    } else if (type == QLatin1String("contentBlockDelta")) {
        const QJsonObject delta = payload.value(QStringLiteral("delta")).toObject();
        Block &block = m_blocks[index];
        if (delta.contains(QStringLiteral("text"))) {
            const QString text = delta.value(QStringLiteral("text")).toString();
            block.text += text;
            if (!text.isEmpty())
                m_sink(StreamEvent::chunk(text));
        } else if (delta.contains(QStringLiteral("toolUse"))) {
            block.isTool = true;
            block.input +=
                delta.value(QStringLiteral("toolUse")).toObject().value(QStringLiteral("input")).toString();
        } else if (delta.contains(QStringLiteral("reasoningContent"))) {
            const QJsonObject reasoning = delta.value(QStringLiteral("reasoningContent")).toObject();
            const QString text = reasoning.value(QStringLiteral("text")).toString();
            block.reasoning += text;
            if (!text.isEmpty())
                m_sink(StreamEvent::reasoning(text));
            if (reasoning.contains(QStringLiteral("signature")))
                block.signature += reasoning.value(QStringLiteral("signature")).toString();
            if (reasoning.contains(QStringLiteral("redactedContent")))
                block.redacted += reasoning.value(QStringLiteral("redactedContent")).toString();
        }
        // citation deltas carry nothing this app shows.
    } else if (type == QLatin1String("messageStop")) {
        m_messageStopped = true;
        m_stopReason = payload.value(QStringLiteral("stopReason")).toString();
    } else if (type == QLatin1String("metadata")) {
        m_metadataSeen = true;
        const QJsonObject usage = payload.value(QStringLiteral("usage")).toObject();
        auto count = [&usage](const char *key) { return TokenUsage::count(usage.value(QLatin1String(key))); };
        TokenUsage tokens;
        const qint64 read = count("cacheReadInputTokens");
        const qint64 write = count("cacheWriteInputTokens");
        // inputTokens excludes cached tokens; count them in, as for Anthropic (reference 1.5).
        tokens.inputTokens = TokenUsage::add(TokenUsage::add(count("inputTokens"), read), write);
        tokens.outputTokens = count("outputTokens");
        tokens.cachedTokens = TokenUsage::add(read, write);
        tokens.cacheReadTokens = read;
        tokens.cacheWriteTokens = write;
        tokens.totalTokens =
            qMax(count("totalTokens"), TokenUsage::add(tokens.inputTokens, tokens.outputTokens));
        m_usage = tokens;
    }
    // messageStart and contentBlockStop carry nothing needed: blocks are assembled at the end.
}

Result<ModelTurn> BedrockStreamDecoder::finish()
{
    // The body ended inside a frame, or between frames before messageStop: cut short, so retried.
    if (!m_failed && !m_frames.finish() && !m_messageStopped)
        fail(WireSupport::makeError(ProviderError::Kind::Truncated, providerName(), m_frames.error()));
    if (!m_failed && !m_messageStopped)
        fail(WireSupport::makeError(
            ProviderError::Kind::Truncated, providerName(),
            QCoreApplication::translate("keen::BedrockStreamDecoder",
                                        "the response ended before messageStop (truncated)")));
    if (m_failed)
        return Result<ModelTurn>::failure(m_error.message);

    ModelTurn turn;
    turn.stopReason = m_stopReason;
    turn.usage = m_usage;
    QJsonArray content;
    for (const Block &block : std::as_const(m_blocks)) {
        if (!block.reasoning.isEmpty() || !block.signature.isEmpty()) {
            // Replayed verbatim: Claude checks the signature when a tool loop continues with thinking on.
            turn.reasoning += block.reasoning;
            QJsonObject reasoningText{{QStringLiteral("text"), block.reasoning}};
            if (!block.signature.isEmpty())
                reasoningText.insert(QStringLiteral("signature"), block.signature);
            content.append(QJsonObject{{QStringLiteral("reasoningContent"),
                                        QJsonObject{{QStringLiteral("reasoningText"), reasoningText}}}});
        }
        if (!block.redacted.isEmpty())
            content.append(QJsonObject{{QStringLiteral("reasoningContent"),
                                        QJsonObject{{QStringLiteral("redactedContent"), block.redacted}}}});
        if (!block.text.isEmpty()) {
            turn.text += block.text;
            content.append(QJsonObject{{QStringLiteral("text"), block.text}});
        }
        if (block.isTool && !(block.toolUseId.isEmpty() && block.name.isEmpty())) {
            ToolCallRequest call;
            call.id = block.toolUseId;
            call.name = block.name;
            call.arguments = block.input;
            call.input = WireSupport::toolInput(block.input);
            turn.toolCalls.append(call);
            content.append(
                QJsonObject{{QStringLiteral("toolUse"), QJsonObject{{QStringLiteral("toolUseId"), call.id},
                                                                    {QStringLiteral("name"), call.name},
                                                                    {QStringLiteral("input"), call.input}}}});
        }
    }
    if (!content.isEmpty())
        turn.assistantNative.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                                {QStringLiteral("content"), content}});
    return turn;
}

} // namespace keen
