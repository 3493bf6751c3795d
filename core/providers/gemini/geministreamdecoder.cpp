#include "providers/gemini/geministreamdecoder.h"

#include "conversation/historyreplay.h"
#include "providers/gemini/geminiprotocol.h"
#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace keen {

namespace {

QString providerName()
{
    return QStringLiteral("Gemini");
}

bool isPlainTextPart(const QJsonObject &part)
{
    return part.contains(QStringLiteral("text")) && !part.contains(QStringLiteral("thought")) &&
           !part.contains(QStringLiteral("thoughtSignature"));
}

} // namespace

GeminiStreamDecoder::GeminiStreamDecoder(EventSink sink)
    : m_sink(std::move(sink))
{}

void GeminiStreamDecoder::fail(const ProviderError &error)
{
    if (m_failed)
        return;
    m_failed = true;
    m_error = error;
}

void GeminiStreamDecoder::feed(const QByteArray &bytes)
{
    if (m_failed)
        return;
    m_parser.feed(bytes, [this](const SseParser::Event &event) {
        if (!m_failed)
            handle(event);
    });
    if (m_parser.hasError())
        fail(WireSupport::makeError(ProviderError::Kind::Stream, providerName(), m_parser.error()));
}

void GeminiStreamDecoder::handlePart(const QJsonObject &part)
{
    const QString signature = part.value(QStringLiteral("thoughtSignature")).toString();
    if (part.contains(QStringLiteral("functionCall"))) {
        const QJsonObject functionCall = part.value(QStringLiteral("functionCall")).toObject();
        const QJsonObject args = functionCall.value(QStringLiteral("args")).toObject();
        ToolCallRequest call;
        const QString nativeId = functionCall.value(QStringLiteral("id")).toString();
        // The Gemini API usually sends no call id; results are matched by order and name.
        call.id = nativeId.isEmpty() ? QStringLiteral("gemini_call_%1").arg(m_callCount) : nativeId;
        ++m_callCount;
        call.name = functionCall.value(QStringLiteral("name")).toString();
        call.arguments = serializeJson(args);
        call.input = args;
        if (!signature.isEmpty())
            call.native.insert(QStringLiteral("thoughtSignature"), signature);
        if (!nativeId.isEmpty())
            call.native.insert(QStringLiteral("id"), nativeId);
        m_turn.toolCalls.append(call);
        m_parts.append(part); // verbatim: the signature must come back on this very part
        return;
    }
    if (!part.contains(QStringLiteral("text"))) {
        // Parts this app does not use (inline data, code execution...): only a signature is worth keeping.
        if (!signature.isEmpty())
            m_parts.append(QJsonObject{{QStringLiteral("text"), QString()},
                                       {QStringLiteral("thoughtSignature"), signature}});
        return;
    }
    const QString text = part.value(QStringLiteral("text")).toString();
    if (part.value(QStringLiteral("thought")).toBool()) {
        m_turn.reasoning += text;
        if (!text.isEmpty())
            m_sink(StreamEvent::reasoning(text));
        // Thought summaries are not needed again; a signed one is replayed as it came.
        if (!signature.isEmpty())
            m_parts.append(part);
        return;
    }
    m_turn.text += text;
    if (!text.isEmpty())
        m_sink(StreamEvent::chunk(text));
    // Deltas merge into one part, but never into or out of a signed part (Google's rule for signatures).
    if (signature.isEmpty() && !m_parts.isEmpty() && isPlainTextPart(m_parts.last().toObject())) {
        if (text.isEmpty())
            return;
        QJsonObject last = m_parts.last().toObject();
        last.insert(QStringLiteral("text"), QString(last.value(QStringLiteral("text")).toString() + text));
        m_parts[m_parts.size() - 1] = last;
        return;
    }
    if (text.isEmpty() && signature.isEmpty())
        return;
    QJsonObject stored{{QStringLiteral("text"), text}};
    if (!signature.isEmpty())
        stored.insert(QStringLiteral("thoughtSignature"), signature);
    m_parts.append(stored);
}

void GeminiStreamDecoder::handle(const SseParser::Event &event)
{
    if (event.data.trimmed().isEmpty())
        return;
    bool ok = false;
    const QJsonObject object = WireSupport::parseTextObject(event.data, &ok);
    if (!ok) {
        // The last event had no blank line after it and does not parse: the body was cut inside it.
        fail(m_bodyEnded ? truncated()
                         : WireSupport::makeError(ProviderError::Kind::Stream, providerName(),
                                                  QCoreApplication::translate("keen::GeminiStreamDecoder",
                                                                              "malformed event data: %1")
                                                      .arg(event.text().left(200))));
        return;
    }
    if (object.contains(QStringLiteral("error"))) {
        fail(GeminiProtocol::errorFromObject(object.value(QStringLiteral("error")).toObject(), 0));
        return;
    }
    if (object.contains(QStringLiteral("usageMetadata"))) {
        // Cumulative and sometimes revised downwards: the last report is the right one.
        const QJsonObject metadata = object.value(QStringLiteral("usageMetadata")).toObject();
        TokenUsage usage;
        usage.inputTokens = TokenUsage::count(metadata.value(QStringLiteral("promptTokenCount")));
        usage.outputTokens = TokenUsage::count(metadata.value(QStringLiteral("candidatesTokenCount")));
        usage.reasoningTokens = TokenUsage::count(metadata.value(QStringLiteral("thoughtsTokenCount")));
        usage.cachedTokens = TokenUsage::count(metadata.value(QStringLiteral("cachedContentTokenCount")));
        usage.cacheReadTokens = usage.cachedTokens;
        usage.totalTokens = TokenUsage::count(metadata.value(QStringLiteral("totalTokenCount")));
        m_turn.usage = usage;
    }
    const QJsonArray candidates = object.value(QStringLiteral("candidates")).toArray();
    if (candidates.isEmpty()) {
        const QString blockReason = object.value(QStringLiteral("promptFeedback"))
                                        .toObject()
                                        .value(QStringLiteral("blockReason"))
                                        .toString();
        if (!blockReason.isEmpty())
            fail(WireSupport::makeError(
                ProviderError::Kind::InvalidRequest, providerName(),
                QCoreApplication::translate("keen::GeminiStreamDecoder", "the prompt was blocked (%1)")
                    .arg(blockReason)));
        return;
    }
    // One candidate is asked for; others, if any, are not shown.
    const QJsonObject candidate = candidates.first().toObject();
    const QJsonArray parts =
        candidate.value(QStringLiteral("content")).toObject().value(QStringLiteral("parts")).toArray();
    for (const QJsonValue &part : parts)
        handlePart(part.toObject());
    const QString finishReason = candidate.value(QStringLiteral("finishReason")).toString();
    if (!finishReason.isEmpty()) {
        m_finished = true;
        m_turn.stopReason = finishReason;
    }
}

ProviderError GeminiStreamDecoder::truncated() const
{
    return WireSupport::makeError(
        ProviderError::Kind::Truncated, providerName(),
        QCoreApplication::translate("keen::GeminiStreamDecoder",
                                    "the response ended without a finish reason (truncated)"));
}

Result<ModelTurn> GeminiStreamDecoder::finish()
{
    if (!m_failed) {
        m_bodyEnded = true;
        m_parser.finish([this](const SseParser::Event &event) {
            if (!m_failed)
                handle(event);
        });
        if (m_parser.hasError())
            fail(WireSupport::makeError(ProviderError::Kind::Stream, providerName(), m_parser.error()));
    }
    if (!m_failed && !m_finished)
        fail(truncated());
    if (m_failed)
        return Result<ModelTurn>::failure(m_error.message);
    ModelTurn turn = m_turn;
    if (!m_parts.isEmpty())
        turn.assistantNative.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("model")},
                                                {QStringLiteral("parts"), m_parts}});
    return turn;
}

} // namespace keen
