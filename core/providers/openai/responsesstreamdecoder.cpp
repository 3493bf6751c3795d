#include "providers/openai/responsesstreamdecoder.h"

#include "providers/openai/openaierrorclassifier.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace keen {

namespace {

QString str(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString();
}

QString textKey(const QString &itemId, int contentIndex)
{
    return itemId + QLatin1Char(':') + QString::number(contentIndex);
}

TokenUsage usageFrom(const QJsonObject &usage)
{
    TokenUsage result;
    result.inputTokens = TokenUsage::count(usage.value(QLatin1String("input_tokens")));
    result.outputTokens = TokenUsage::count(usage.value(QLatin1String("output_tokens")));
    result.totalTokens = TokenUsage::count(usage.value(QLatin1String("total_tokens")));
    if (result.totalTokens == 0)
        result.totalTokens = TokenUsage::add(result.inputTokens, result.outputTokens);
    result.reasoningTokens = TokenUsage::count(usage.value(QLatin1String("output_tokens_details"))
                                                   .toObject()
                                                   .value(QLatin1String("reasoning_tokens")));
    result.cachedTokens = TokenUsage::count(
        usage.value(QLatin1String("input_tokens_details")).toObject().value(QLatin1String("cached_tokens")));
    result.cacheReadTokens = result.cachedTokens;
    return result;
}

bool isReplayedItem(const QJsonObject &item)
{
    const QString type = str(item, "type");
    return type == QLatin1String("message") || type == QLatin1String("reasoning") ||
           type == QLatin1String("function_call");
}

// The identity of an output item across output_item.done and response.completed.
QString itemIdentity(const QJsonObject &item)
{
    const QString callId = str(item, "call_id");
    if (!callId.isEmpty())
        return QStringLiteral("call:") + callId;
    const QString id = str(item, "id");
    if (!id.isEmpty())
        return QStringLiteral("id:") + id;
    return QString::fromUtf8(QJsonDocument(item).toJson(QJsonDocument::Compact));
}

} // namespace

ResponsesStreamDecoder::ResponsesStreamDecoder(EventSink sink)
    : SseStreamDecoderBase(std::move(sink))
{}

void ResponsesStreamDecoder::handleEvent(const SseParser::Event &event)
{
    const QByteArray data = event.data.trimmed();
    if (data.isEmpty() || data == "[DONE]")
        return;
    const std::optional<QJsonObject> parsed = parseObject(event, data);
    if (!parsed)
        return;
    const QJsonObject &object = *parsed;
    // The JSON type is authoritative; the event: line only duplicates it.
    QString type = str(object, "type");
    if (type.isEmpty())
        type = event.event;

    if (type == QLatin1String("response.output_text.delta") ||
        type == QLatin1String("response.refusal.delta")) {
        handleTextDelta(object);
    } else if (type == QLatin1String("response.output_text.done") ||
               type == QLatin1String("response.refusal.done")) {
        const QString text =
            object.value(QLatin1String(type == QLatin1String("response.refusal.done") ? "refusal" : "text"))
                .toString();
        handleFullText(textKey(str(object, "item_id"), object.value(QLatin1String("content_index")).toInt()),
                       text);
    } else if (type == QLatin1String("response.content_part.done")) {
        const QJsonObject part = object.value(QLatin1String("part")).toObject();
        const QString text = part.contains(QLatin1String("text")) ? str(part, "text") : str(part, "refusal");
        handleFullText(textKey(str(object, "item_id"), object.value(QLatin1String("content_index")).toInt()),
                       text);
    } else if (type == QLatin1String("response.reasoning_summary_text.delta") ||
               type == QLatin1String("response.reasoning_text.delta") ||
               type == QLatin1String("response.reasoning.delta") ||
               type == QLatin1String("response.reasoning_summary.delta")) {
        handleReasoningDelta(object);
    } else if (type == QLatin1String("response.output_item.done")) {
        const QJsonObject item = object.value(QLatin1String("item")).toObject();
        if (str(item, "type") == QLatin1String("message"))
            handleMessageItem(item);
        m_doneItems[object.value(QLatin1String("output_index")).toInt(int(m_doneItems.size()))] = item;
    } else if (type == QLatin1String("response.completed")) {
        handleCompleted(object.value(QLatin1String("response")).toObject());
    } else if (type == QLatin1String("response.failed")) {
        const QJsonObject response = object.value(QLatin1String("response")).toObject();
        QJsonObject error = response.value(QLatin1String("error")).toObject();
        if (error.isEmpty())
            error =
                QJsonObject{{QStringLiteral("message"), ResponsesStreamDecoder::tr("the response failed")}};
        fail(OpenAiErrorClassifier::classifyStreamError(error));
    } else if (type == QLatin1String("response.incomplete")) {
        const QJsonObject response = object.value(QLatin1String("response")).toObject();
        QString reason = response.value(QLatin1String("incomplete_details"))
                             .toObject()
                             .value(QLatin1String("reason"))
                             .toString();
        if (reason.isEmpty())
            reason = ResponsesStreamDecoder::tr("unknown reason");
        fail(ProviderError{ProviderError::Kind::Stream,
                           ResponsesStreamDecoder::tr("response incomplete (%1)").arg(reason), 0,
                           std::nullopt});
    } else if (type == QLatin1String("error")) {
        // Nested {"type":"error","error":{...}} or the flat {"type":"error","code","message"} form.
        QJsonObject error = object.value(QLatin1String("error")).toObject();
        if (error.isEmpty()) {
            error = object;
            error.remove(QStringLiteral("type"));
        }
        fail(OpenAiErrorClassifier::classifyStreamError(error));
    }
    // Everything else (created, in_progress, added events, argument deltas, web search...) carries nothing
    // the turn needs: function calls are taken whole from output_item.done and response.completed.
}

void ResponsesStreamDecoder::handleTextDelta(const QJsonObject &event)
{
    const QString delta = str(event, "delta");
    if (delta.isEmpty())
        return;
    m_streamed[textKey(str(event, "item_id"), event.value(QLatin1String("content_index")).toInt())] += delta;
    m_text += delta;
    m_sink(StreamEvent::chunk(delta));
}

void ResponsesStreamDecoder::handleFullText(const QString &key, const QString &text)
{
    QString &streamed = m_streamed[key];
    // Only the tail the deltas did not deliver; a text that disagrees with what was shown is not repeated.
    if (text.size() <= streamed.size() || !text.startsWith(streamed))
        return;
    const QString tail = text.mid(streamed.size());
    streamed = text;
    m_text += tail;
    m_sink(StreamEvent::chunk(tail));
}

void ResponsesStreamDecoder::handleMessageItem(const QJsonObject &item)
{
    const QString id = str(item, "id");
    const QJsonArray content = item.value(QLatin1String("content")).toArray();
    for (qsizetype i = 0; i < content.size(); ++i) {
        const QJsonObject part = content.at(i).toObject();
        const QString type = str(part, "type");
        if (type == QLatin1String("output_text"))
            handleFullText(textKey(id, int(i)), str(part, "text"));
        else if (type == QLatin1String("refusal"))
            handleFullText(textKey(id, int(i)), str(part, "refusal"));
    }
}

void ResponsesStreamDecoder::handleReasoningDelta(const QJsonObject &event)
{
    const QJsonValue value = event.value(QLatin1String("delta"));
    const QString delta =
        value.isString() ? value.toString() : value.toObject().value(QLatin1String("text")).toString();
    if (delta.isEmpty())
        return;
    // Summary parts are separate paragraphs; without a break they would run into each other.
    const QJsonValue index = event.contains(QLatin1String("summary_index"))
                                 ? event.value(QLatin1String("summary_index"))
                                 : event.value(QLatin1String("content_index"));
    const QString part = str(event, "item_id") + QLatin1Char(':') + QString::number(index.toInt());
    QString text = delta;
    if (part != m_reasoningPart && !m_reasoning.isEmpty())
        text.prepend(QStringLiteral("\n\n"));
    m_reasoningPart = part;
    m_reasoning += text;
    m_sink(StreamEvent::reasoning(text));
}

void ResponsesStreamDecoder::handleCompleted(const QJsonObject &response)
{
    m_completed = true;
    m_status = str(response, "status");
    m_completedOutput = response.value(QLatin1String("output")).toArray();
    for (const QJsonValue &value : std::as_const(m_completedOutput)) {
        const QJsonObject item = value.toObject();
        if (str(item, "type") == QLatin1String("message"))
            handleMessageItem(item);
    }
    const QJsonValue usage = response.value(QLatin1String("usage"));
    if (usage.isObject())
        m_usage = usageFrom(usage.toObject());
}

Result<ModelTurn> ResponsesStreamDecoder::finish()
{
    if (!endStream([this] { return m_completed; }))
        return Result<ModelTurn>::failure(error().message);

    // The completed output is the final word; items only seen in output_item.done (the Codex backend may
    // complete with an empty output) are added after it.
    QList<QJsonObject> items;
    QSet<QString> seen;
    auto take = [&](const QJsonObject &item) {
        if (!isReplayedItem(item))
            return;
        const QString identity = itemIdentity(item);
        if (seen.contains(identity))
            return;
        seen.insert(identity);
        items.append(item);
    };
    for (const QJsonValue &value : std::as_const(m_completedOutput))
        take(value.toObject());
    for (const auto &[index, item] : m_doneItems)
        take(item);

    ModelTurn turn;
    turn.text = m_text;
    turn.reasoning = m_reasoning;
    turn.usage = m_usage;
    turn.stopReason = m_status;
    for (const QJsonObject &item : std::as_const(items)) {
        turn.assistantNative.append(item);
        if (str(item, "type") != QLatin1String("function_call") || str(item, "name").isEmpty())
            continue;
        ToolCallRequest call;
        call.id = str(item, "call_id");
        if (call.id.isEmpty())
            call.id = str(item, "id");
        call.name = str(item, "name");
        call.arguments = str(item, "arguments");
        call.input = QJsonDocument::fromJson(call.arguments.toUtf8()).object();
        call.native = QJsonObject{{QStringLiteral("id"), str(item, "id")}};
        turn.toolCalls.append(call);
    }
    return turn;
}

} // namespace keen
