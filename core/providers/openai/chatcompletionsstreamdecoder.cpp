#include "providers/openai/chatcompletionsstreamdecoder.h"

#include "providers/openai/chatchunkscanner.h"
#include "providers/openai/openaierrorclassifier.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace keen {

namespace {

TokenUsage usageFrom(const QJsonObject &usage)
{
    TokenUsage result;
    result.inputTokens = TokenUsage::count(usage.value(QLatin1String("prompt_tokens")));
    result.outputTokens = TokenUsage::count(usage.value(QLatin1String("completion_tokens")));
    result.totalTokens = TokenUsage::count(usage.value(QLatin1String("total_tokens")));
    if (result.totalTokens == 0)
        result.totalTokens = TokenUsage::add(result.inputTokens, result.outputTokens);
    result.reasoningTokens = TokenUsage::count(usage.value(QLatin1String("completion_tokens_details"))
                                                   .toObject()
                                                   .value(QLatin1String("reasoning_tokens")));
    // OpenAI's cached prompt tokens are cache reads; there is no separate write count.
    result.cachedTokens = TokenUsage::count(
        usage.value(QLatin1String("prompt_tokens_details")).toObject().value(QLatin1String("cached_tokens")));
    result.cacheReadTokens = result.cachedTokens;
    return result;
}

} // namespace

ChatCompletionsStreamDecoder::ChatCompletionsStreamDecoder(EventSink sink)
    : SseStreamDecoderBase(std::move(sink))
{}

void ChatCompletionsStreamDecoder::handleEvent(const SseParser::Event &event)
{
    const QByteArray data = event.data.trimmed();
    if (data.isEmpty())
        return;
    if (data == "[DONE]") {
        m_sawDone = true;
        return;
    }
    if (event.event != QLatin1String("error")) {
        // Almost every event is a chunk of text: read without a JSON document. The rest is parsed in full.
        if (const std::optional<ChatChunkScanner::Chunk> chunk = ChatChunkScanner::scan(data)) {
            appendTexts(chunk->reasoning, chunk->content, chunk->refusal);
            setFinishReason(chunk->finishReason);
            return;
        }
    }
    const std::optional<QJsonObject> parsed = parseObject(event, data);
    if (!parsed)
        return;
    const QJsonObject &object = *parsed;
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

ProviderError ChatCompletionsStreamDecoder::malformed(const SseParser::Event &event, const QByteArray &data,
                                                      const QJsonParseError &parseError) const
{
    // Some servers send `event: error` with plain text: that text is the error.
    if (event.event == QLatin1String("error"))
        return ProviderError{ProviderError::Kind::Stream, QString::fromUtf8(data).left(500), 0, std::nullopt};
    return SseStreamDecoderBase::malformed(event, data, parseError);
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
        setFinishReason(choice.value(QLatin1String("finish_reason")).toString());
    }
}

void ChatCompletionsStreamDecoder::appendTexts(const QString &reasoning, const QString &content,
                                               const QString &refusal)
{
    if (!reasoning.isEmpty()) {
        m_reasoning += reasoning;
        m_sink(StreamEvent::reasoning(reasoning));
    }
    // A refusal is what the model says instead of an answer: the person sees it as the reply.
    for (const QString *text : {&content, &refusal}) {
        if (!text->isEmpty()) {
            m_text += *text;
            m_sink(StreamEvent::chunk(*text));
        }
    }
}

void ChatCompletionsStreamDecoder::setFinishReason(const QString &reason)
{
    if (!reason.isEmpty())
        m_finishReason = reason;
}

bool ChatCompletionsStreamDecoder::startsAnotherCall(const PendingCall &current, const QString &id,
                                                     const QString &name)
{
    // Ollama sends each parallel call whole, every one with index 0 (older builds with none, which reads as
    // 0 too): another id is another call. vLLM repeats a call's id on each of its fragments, so only a
    // different one counts. Without ids, another name after arguments that are complete JSON is the next
    // call.
    if (!id.isEmpty() && !current.id.isEmpty())
        return id != current.id;
    if (name.isEmpty() || current.name.isEmpty() || name == current.name)
        return false;
    QJsonParseError error;
    QJsonDocument::fromJson(current.arguments.toUtf8(), &error);
    return error.error == QJsonParseError::NoError;
}

void ChatCompletionsStreamDecoder::handleDelta(const QJsonObject &delta)
{
    // Reasoning: the first non-empty of the names compatible servers use (DeepSeek, Groq/OpenRouter, others).
    QString reasoning;
    for (const QLatin1String key :
         {QLatin1String("reasoning_content"), QLatin1String("reasoning"), QLatin1String("reasoning_text")}) {
        reasoning = delta.value(key).toString();
        if (!reasoning.isEmpty())
            break;
    }
    appendTexts(reasoning, delta.value(QLatin1String("content")).toString(),
                delta.value(QLatin1String("refusal")).toString());
    const QJsonArray toolCalls = delta.value(QLatin1String("tool_calls")).toArray();
    for (qsizetype i = 0; i < toolCalls.size(); ++i) {
        const QJsonObject call = toolCalls.at(i).toObject();
        const int index = call.value(QLatin1String("index")).toInt(int(i));
        const QString id = call.value(QLatin1String("id")).toString();
        const QJsonObject function = call.value(QLatin1String("function")).toObject();
        const QString name = function.value(QLatin1String("name")).toString();
        const auto continued = m_callOfIndex.find(index);
        if (continued == m_callOfIndex.end() || startsAnotherCall(m_calls.at(continued->second), id, name)) {
            m_calls.push_back({});
            m_callOfIndex[index] = m_calls.size() - 1;
        }
        PendingCall &pending = m_calls.at(m_callOfIndex.at(index));
        if (!id.isEmpty())
            pending.id = id;
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

Result<ModelTurn> ChatCompletionsStreamDecoder::finish()
{
    if (!endStream([this] { return m_sawDone || !m_finishReason.isEmpty(); }))
        return Result<ModelTurn>::failure(error().message);

    ModelTurn turn;
    turn.text = m_text;
    turn.reasoning = m_reasoning;
    turn.usage = m_usage;
    turn.stopReason = m_finishReason;

    QJsonArray nativeCalls;
    for (std::size_t position = 0; position < m_calls.size(); ++position) {
        const PendingCall &pending = m_calls.at(position);
        // Servers sometimes open an index they never name; such a call cannot be run or answered.
        if (pending.name.isEmpty())
            continue;
        ToolCallRequest call;
        call.id = pending.id.isEmpty() ? QStringLiteral("call_%1").arg(position) : pending.id;
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
