#include "chatcompletionsstreamdecoder.h"

#include "openaierrorclassifier.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace keen {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("ChatCompletionsStreamDecoder", text);
}

TokenUsage usageFrom(const QJsonObject &usage)
{
    TokenUsage result;
    result.inputTokens = usage.value(QLatin1String("prompt_tokens")).toInteger();
    result.outputTokens = usage.value(QLatin1String("completion_tokens")).toInteger();
    result.totalTokens = usage.value(QLatin1String("total_tokens")).toInteger();
    if (result.totalTokens == 0)
        result.totalTokens = result.inputTokens + result.outputTokens;
    result.reasoningTokens = usage.value(QLatin1String("completion_tokens_details"))
                                 .toObject()
                                 .value(QLatin1String("reasoning_tokens"))
                                 .toInteger();
    // OpenAI's cached prompt tokens are cache reads; there is no separate write count.
    result.cachedTokens = usage.value(QLatin1String("prompt_tokens_details"))
                              .toObject()
                              .value(QLatin1String("cached_tokens"))
                              .toInteger();
    result.cacheReadTokens = result.cachedTokens;
    return result;
}

ProviderError truncated()
{
    return ProviderError{ProviderError::Kind::Stream, tr("stream ended before the response was complete"), 0,
                         std::nullopt};
}

} // namespace

ChatCompletionsStreamDecoder::ChatCompletionsStreamDecoder(EventSink sink)
    : m_sink(std::move(sink))
{}

void ChatCompletionsStreamDecoder::feed(const QByteArray &bytes)
{
    if (failed())
        return;
    handleEvents(m_parser.feed(bytes));
}

void ChatCompletionsStreamDecoder::handleEvents(const QList<SseParser::Event> &events)
{
    for (const SseParser::Event &event : events) {
        if (failed())
            return;
        handleEvent(event);
    }
    if (!failed() && m_parser.hasError())
        fail(ProviderError{ProviderError::Kind::Stream, m_parser.error(), 0, std::nullopt});
}

void ChatCompletionsStreamDecoder::handleEvent(const SseParser::Event &event)
{
    const QString data = event.data.trimmed();
    if (data.isEmpty())
        return;
    if (data == QLatin1String("[DONE]")) {
        m_sawDone = true;
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(data.toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        if (m_bodyEnded) {
            // The last event had no blank line after it and does not parse: the body was cut inside it.
            fail(truncated());
            return;
        }
        if (event.event == QLatin1String("error")) {
            fail(ProviderError{ProviderError::Kind::Stream, data.left(500), 0, std::nullopt});
            return;
        }
        fail(ProviderError{ProviderError::Kind::Stream,
                           tr("the provider sent malformed stream data: %1").arg(parseError.errorString()), 0,
                           std::nullopt});
        return;
    }
    const QJsonObject object = document.object();
    // Groq sends `event: error`; OpenRouter puts a top-level "error" on an ordinary chunk.
    const QJsonValue error = object.value(QLatin1String("error"));
    const bool hasError = (error.isObject() && !error.toObject().isEmpty()) ||
                          (error.isString() && !error.toString().isEmpty());
    if (event.event == QLatin1String("error") || hasError) {
        fail(OpenAiErrorClassifier::classifyStreamError(object));
        return;
    }
    handleChunk(object);
}

void ChatCompletionsStreamDecoder::handleChunk(const QJsonObject &chunk)
{
    const QJsonValue usage = chunk.value(QLatin1String("usage"));
    if (usage.isObject())
        m_usage = usageFrom(usage.toObject());

    const QJsonArray choices = chunk.value(QLatin1String("choices")).toArray();
    for (const QJsonValue &value : choices) {
        const QJsonObject choice = value.toObject();
        // n is always 1 here; another index would be a second, independent answer.
        if (choice.value(QLatin1String("index")).toInt(0) != 0)
            continue;
        handleDelta(choice.value(QLatin1String("delta")).toObject());
        const QJsonValue finish = choice.value(QLatin1String("finish_reason"));
        if (finish.isString() && !finish.toString().isEmpty())
            m_finishReason = finish.toString();
    }
}

void ChatCompletionsStreamDecoder::handleDelta(const QJsonObject &delta)
{
    // Reasoning: the first non-empty of the names compatible servers use (DeepSeek, Groq/OpenRouter, others).
    for (const QLatin1String key :
         {QLatin1String("reasoning_content"), QLatin1String("reasoning"), QLatin1String("reasoning_text")}) {
        const QString reasoning = delta.value(key).toString();
        if (!reasoning.isEmpty()) {
            m_reasoning += reasoning;
            m_sink(StreamEvent::reasoning(reasoning));
            break;
        }
    }
    // A refusal is what the model says instead of an answer: the person sees it as the reply.
    for (const QLatin1String key : {QLatin1String("content"), QLatin1String("refusal")}) {
        const QString text = delta.value(key).toString();
        if (!text.isEmpty()) {
            m_text += text;
            m_sink(StreamEvent::chunk(text));
        }
    }
    const QJsonArray toolCalls = delta.value(QLatin1String("tool_calls")).toArray();
    for (qsizetype i = 0; i < toolCalls.size(); ++i) {
        const QJsonObject call = toolCalls.at(i).toObject();
        const int index = call.value(QLatin1String("index")).toInt(int(i));
        PendingCall &pending = m_calls[index];
        const QString id = call.value(QLatin1String("id")).toString();
        if (!id.isEmpty())
            pending.id = id;
        const QJsonObject function = call.value(QLatin1String("function")).toObject();
        const QString name = function.value(QLatin1String("name")).toString();
        if (!name.isEmpty() && pending.name.isEmpty())
            pending.name = name;
        const QJsonValue arguments = function.value(QLatin1String("arguments"));
        if (arguments.isString())
            pending.arguments += arguments.toString();
        else if (arguments.isObject()) // a few servers send the object itself
            pending.arguments +=
                QString::fromUtf8(QJsonDocument(arguments.toObject()).toJson(QJsonDocument::Compact));
    }
}

void ChatCompletionsStreamDecoder::fail(const ProviderError &error)
{
    if (!m_error)
        m_error = error;
}

ProviderError ChatCompletionsStreamDecoder::error() const
{
    return m_error.value_or(ProviderError{});
}

Result<ModelTurn> ChatCompletionsStreamDecoder::finish()
{
    if (!failed()) {
        m_bodyEnded = true;
        handleEvents(m_parser.finish());
    }
    if (!failed() && !m_sawDone && m_finishReason.isEmpty())
        fail(truncated());
    if (failed())
        return Result<ModelTurn>::failure(m_error->message);

    ModelTurn turn;
    turn.text = m_text;
    turn.reasoning = m_reasoning;
    turn.usage = m_usage;
    turn.stopReason = m_finishReason;

    QJsonArray nativeCalls;
    for (const auto &[index, pending] : m_calls) {
        // Servers sometimes open an index they never name; such a call cannot be run or answered.
        if (pending.name.isEmpty())
            continue;
        ToolCallRequest call;
        call.id = pending.id.isEmpty() ? QStringLiteral("call_%1").arg(index) : pending.id;
        call.name = pending.name;
        call.arguments = pending.arguments;
        call.input = QJsonDocument::fromJson(pending.arguments.toUtf8()).object();
        turn.toolCalls.append(call);
        nativeCalls.append(QJsonObject{
            {QStringLiteral("id"), call.id},
            {QStringLiteral("type"), QStringLiteral("function")},
            {QStringLiteral("function"),
             QJsonObject{{QStringLiteral("name"), call.name},
                         {QStringLiteral("arguments"),
                          call.arguments.isEmpty() ? QStringLiteral("{}") : call.arguments}}},
        });
    }

    QJsonObject assistant{{QStringLiteral("role"), QStringLiteral("assistant")}};
    assistant.insert(QStringLiteral("content"),
                     m_text.isEmpty() && !nativeCalls.isEmpty() ? QJsonValue() : QJsonValue(m_text));
    // Reasoning goes back on the assistant message so thinking models keep their chain across tool turns.
    if (!m_reasoning.isEmpty())
        assistant.insert(QStringLiteral("reasoning_content"), m_reasoning);
    if (!nativeCalls.isEmpty())
        assistant.insert(QStringLiteral("tool_calls"), nativeCalls);
    turn.assistantNative.append(assistant);
    return turn;
}

} // namespace keen
