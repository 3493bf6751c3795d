#include "providers/alternatinghistory.h"

#include "conversation/historyreplay.h"

namespace keen {

AlternatingHistory::AlternatingHistory(Shape shape)
    : m_shape(std::move(shape))
{}

QJsonArray AlternatingHistory::systemBlocks(const MessageList &messages) const
{
    QJsonArray blocks;
    for (const Message &message : messages) {
        if (message.role == Message::Role::System && !message.content.isEmpty())
            blocks.append(m_shape.textBlock(message.content));
    }
    return blocks;
}

NativeHistory AlternatingHistory::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    return NativeHistory{systemBlocks(messages), build(messages, firstIndex)};
}

NativeHistory AlternatingHistory::rebuildAfterCompaction(const NativeHistory &current,
                                                         const MessageList &replacement) const
{
    return NativeHistory{current.system, build(withoutSystemMessages(replacement))};
}

QJsonArray AlternatingHistory::assistantMessages(const ModelTurn &turn) const
{
    if (!turn.assistantNative.isEmpty())
        return turn.assistantNative;
    QJsonArray content;
    if (!turn.text.isEmpty())
        content.append(m_shape.textBlock(turn.text));
    for (const ToolCallRequest &call : turn.toolCalls)
        content.append(m_shape.callBlock(call.id, call.name, call.input));
    if (content.isEmpty())
        return {};
    return QJsonArray{message(m_shape.assistantRole, content)};
}

QJsonArray AlternatingHistory::toolResultMessages(const QList<ToolOutcome> &outcomes) const
{
    QJsonArray content;
    for (const ToolOutcome &outcome : outcomes)
        content.append(
            m_shape.resultBlock(outcome.call.id, outcome.call.name, outcome.content, outcome.isError));
    if (content.isEmpty())
        return {};
    return QJsonArray{message(m_shape.userRole, content)};
}

QJsonObject AlternatingHistory::message(const QString &role, const QJsonArray &blocks) const
{
    return QJsonObject{{QStringLiteral("role"), role}, {m_shape.contentKey, blocks}};
}

void AlternatingHistory::append(QJsonArray &messages, const QJsonObject &message) const
{
    const QString role = message.value(QStringLiteral("role")).toString();
    if (!messages.isEmpty()) {
        QJsonObject last = messages.last().toObject();
        if (last.value(QStringLiteral("role")).toString() == role) {
            QJsonArray blocks = last.value(m_shape.contentKey).toArray();
            const QJsonArray added = message.value(m_shape.contentKey).toArray();
            for (const QJsonValue &block : added)
                blocks.append(block);
            last.insert(m_shape.contentKey, blocks);
            messages[messages.size() - 1] = last;
            return;
        }
    }
    messages.append(message);
}

QJsonArray AlternatingHistory::normalized(const QJsonArray &messages, int *stableIndex) const
{
    QJsonArray result;
    int mappedStable = -1;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        append(result, messages.at(i).toObject());
        if (stableIndex && i == *stableIndex)
            mappedStable = int(result.size()) - 1;
    }
    if (stableIndex && *stableIndex >= 0)
        *stableIndex = mappedStable;
    return result;
}

void AlternatingHistory::appendUserText(QJsonArray &messages, const QString &text) const
{
    if (text.isEmpty())
        return;
    append(messages, message(m_shape.userRole, QJsonArray{m_shape.textBlock(text)}));
}

void AlternatingHistory::appendAssistant(QJsonArray &messages, const Message &source, int index) const
{
    // A call must be answered by the very next (user) message, so prose after a call starts a new
    // assistant message once the results of the calls before it are out.
    QJsonArray blocks;
    QJsonArray results;
    auto flush = [&] {
        if (!blocks.isEmpty())
            append(messages, message(m_shape.assistantRole, blocks));
        if (!results.isEmpty())
            append(messages, message(m_shape.userRole, results));
        blocks = QJsonArray();
        results = QJsonArray();
    };
    const QList<ReplayStep> steps = replaySteps(source, index);
    for (const ReplayStep &step : steps) {
        if (step.kind == ReplayStep::Kind::Text) {
            if (!results.isEmpty())
                flush();
            if (!step.text.isEmpty())
                blocks.append(m_shape.textBlock(step.text));
            continue;
        }
        blocks.append(m_shape.callBlock(step.callId, step.tool, step.input));
        results.append(m_shape.resultBlock(step.callId, step.tool, step.result, step.isError));
    }
    flush();
}

QJsonArray AlternatingHistory::build(const MessageList &messages, qsizetype firstIndex) const
{
    QJsonArray native;
    for (int i = 0; i < messages.size(); ++i) {
        const Message &source = messages.at(i);
        switch (source.role) {
        case Message::Role::System:
            break;
        case Message::Role::User:
            appendUserText(native, source.content);
            break;
        case Message::Role::Assistant:
            appendAssistant(native, source, int(firstIndex) + i);
            break;
        }
    }
    return native;
}

} // namespace keen
