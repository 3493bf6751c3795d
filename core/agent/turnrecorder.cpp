#include "agent/turnrecorder.h"

#include "conversation/historyreplay.h"
#include "tools/outputcompressor.h"

#include <QDir>
#include <QJsonDocument>

#include <algorithm>

namespace keen {

namespace {

const QStringList &retainedInputTools()
{
    static const QStringList tools{QStringLiteral("read_file"),     QStringLiteral("grep"),
                                   QStringLiteral("glob"),          QStringLiteral("web_fetch"),
                                   QStringLiteral("bash"),          QStringLiteral("delegate_task"),
                                   QStringLiteral("call_mcp_tool"), QStringLiteral("write_file"),
                                   QStringLiteral("edit_file"),     QStringLiteral("ask_user")};
    return tools;
}

QString truncateUtf8(const QString &text, qsizetype maxBytes)
{
    QByteArray bytes = text.toUtf8();
    if (bytes.size() <= maxBytes)
        return text;
    bytes.truncate(maxBytes);
    // Do not cut a character in half.
    while (!bytes.isEmpty() && (static_cast<unsigned char>(bytes.back()) & 0xC0) == 0x80)
        bytes.chop(1);
    if (!bytes.isEmpty() && (static_cast<unsigned char>(bytes.back()) & 0x80))
        bytes.chop(1);
    return QString::fromUtf8(bytes);
}

} // namespace

void TurnRecorder::clear()
{
    m_items.clear();
    m_openKind = TranscriptItem::Kind::Text;
    m_openText.clear();
    m_memory = TurnMemory();
    m_running.clear();
    m_permissions.clear();
    m_sealedItems = 0;
    m_sealedTextBytes = 0;
}

RecordedTurn TurnRecorder::current() const
{
    RecordedTurn turn;
    turn.transcript = m_items;
    if (!m_openText.isEmpty())
        turn.transcript.append(m_openKind == TranscriptItem::Kind::Text
                                   ? TranscriptItem::text(m_openText)
                                   : TranscriptItem::reasoning(m_openText));
    for (const TranscriptItem &item : std::as_const(turn.transcript)) {
        if (item.isText())
            turn.message += item.content;
    }
    turn.turnMemory = m_memory;
    return turn;
}

RecordedTurn TurnRecorder::checkpoint()
{
    RecordedTurn turn = current();
    clear();
    return turn;
}

QString TurnRecorder::textAfterLastToolActivity() const
{
    QString text;
    for (qsizetype i = m_sealedItems; i < m_items.size(); ++i) {
        if (m_items.at(i).isText())
            text += m_items.at(i).content;
    }
    if (m_openKind == TranscriptItem::Kind::Text)
        text += m_openText;
    return text;
}

void TurnRecorder::appendChunk(TranscriptItem::Kind kind, const QString &text)
{
    if (text.isEmpty())
        return;
    ++m_counters.chunks;
    // Consecutive chunks of the same kind form one transcript item.
    if (kind != m_openKind)
        closeOpenItem();
    m_openKind = kind;
    m_openText += text;
}

void TurnRecorder::closeOpenItem()
{
    if (m_openText.isEmpty())
        return;
    m_items.append(m_openKind == TranscriptItem::Kind::Text ? TranscriptItem::text(m_openText)
                                                            : TranscriptItem::reasoning(m_openText));
    m_openText.clear();
    ++m_counters.itemsClosed;
}

void TurnRecorder::seal()
{
    // Each text item is measured once, when it is sealed: the UTF-8 offsets of turn memory (reference 5.5).
    for (qsizetype i = m_sealedItems; i < m_items.size(); ++i) {
        if (m_items.at(i).isText())
            m_sealedTextBytes += m_items.at(i).content.toUtf8().size();
    }
    m_sealedItems = m_items.size();
}

void TurnRecorder::record(const StreamEvent &event)
{
    switch (event.type) {
    case StreamEvent::Type::Chunk:
        appendChunk(TranscriptItem::Kind::Text, event.content);
        break;
    case StreamEvent::Type::ReasoningChunk:
        appendChunk(TranscriptItem::Kind::Reasoning, event.content);
        break;
    case StreamEvent::Type::ToolStart:
        closeOpenItem();
        if (event.toolCall) {
            const ToolCallInfo &call = *event.toolCall;
            m_items.append(TranscriptItem::toolStart(call.name, call.input.isEmpty()
                                                                    ? QJsonValue(QJsonValue::Undefined)
                                                                    : QJsonValue(call.input)));
            m_running.append({call, m_items.size() - 1});
        }
        seal();
        break;
    case StreamEvent::Type::ToolEnd:
        closeOpenItem();
        seal();
        if (event.toolCall) {
            const ToolCallInfo &call = *event.toolCall;
            const QString reasoning = reasoningSinceLastCall();
            QJsonValue output;
            if (!call.output.isUndefined() && !call.output.isNull()) {
                const QString serialized = serializeJson(call.output);
                output = serialized.toUtf8().size() <= MaxTranscriptOutputBytes
                             ? call.output
                             : QJsonValue(truncateUtf8(serialized, MaxTranscriptOutputBytes));
            } else {
                output = QJsonValue(QJsonValue::Undefined);
            }
            TranscriptItem end = TranscriptItem::toolEnd(
                call.name, call.input.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(call.input),
                output, call.error, call.durationNs);
            if (const auto answer = m_permissions.constFind(call.callId);
                !call.callId.isEmpty() && answer != m_permissions.cend()) {
                end.permission = *answer;
                m_permissions.erase(answer);
            }
            m_items.append(std::move(end));
            if (!call.diff.isEmpty())
                m_items.append(TranscriptItem::diffOf(DiffLine::parseUnified(call.diff)));
            ToolActivity activity = activityFor(call);
            activity.reasoning = reasoning;
            m_memory.toolActivity.append(std::move(activity));
            const auto started =
                std::find_if(m_running.cbegin(), m_running.cend(), [&](const RunningCall &running) {
                    return call.callId.isEmpty() ? running.call.name == call.name
                                                 : running.call.callId == call.callId;
                });
            if (started != m_running.cend())
                m_running.erase(started);
        }
        seal();
        break;
    case StreamEvent::Type::ToolRejected:
        // A call refused before it ran (unknown tool, bad arguments) has no start or end event, but its card
        // shows live: it is kept as a call that ended at once with its error, so a reopened session shows the
        // same card. No tool activity, as the reference agent keeps none for it.
        closeOpenItem();
        seal();
        if (event.toolCall) {
            const ToolCallInfo &call = *event.toolCall;
            const QJsonValue input =
                call.input.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(call.input);
            m_items.append(TranscriptItem::toolStart(call.name, input));
            m_items.append(
                TranscriptItem::toolEnd(call.name, input, QJsonValue(QJsonValue::Undefined), call.error, 0));
        }
        seal();
        break;
    case StreamEvent::Type::Notice:
        // Said to the person beside the reply (it stopped at the output limit or by the provider's filter):
        // kept in place, so a reopened session says it too. Never part of the assistant's message.
        closeOpenItem();
        m_items.append(TranscriptItem::notice(event.content));
        seal();
        break;
    default:
        break;
    }
}

void TurnRecorder::recordPermission(const QString &callId, const AnsweredPermission &answer)
{
    if (!callId.isEmpty())
        m_permissions.insert(callId, answer);
}

void TurnRecorder::interruptRunningTools(const QString &reason)
{
    QString reasoning = reasoningSinceLastCall(); // the first of them was called after it
    for (const RunningCall &running : std::as_const(m_running)) {
        ToolCallInfo call = running.call;
        call.error = reason;
        ToolActivity activity = activityFor(call);
        activity.reasoning = std::exchange(reasoning, QString());
        m_memory.toolActivity.append(std::move(activity));
        if (const auto asked = m_permissions.constFind(call.callId);
            !call.callId.isEmpty() && asked != m_permissions.cend() && running.startItem < m_items.size())
            m_items[running.startItem].permission = *asked;
    }
    m_running.clear();
}

void TurnRecorder::rewindForRetry()
{
    m_openText.clear();
    m_items.resize(m_sealedItems);
}

QJsonValue TurnRecorder::retainedInput(const QString &tool, const QJsonObject &input) const
{
    if (!retainedInputTools().contains(tool))
        return QJsonValue();
    if (tool == QLatin1String("ask_user"))
        return input; // kept in full
    QJsonObject kept;
    for (auto it = input.begin(); it != input.end(); ++it) {
        QJsonValue value = it.value();
        if (it.key() == QLatin1String("path") && value.isString() && !m_workspace.isEmpty()) {
            const QString path = value.toString();
            if (QDir::isAbsolutePath(path))
                value = QDir(m_workspace).relativeFilePath(path);
        }
        const bool isWrite = tool == QLatin1String("write_file") || tool == QLatin1String("edit_file");
        if (value.isString()) {
            if (value.toString().toUtf8().size() > MaxRetainedFieldBytes) {
                if (!isWrite)
                    continue;
                value = truncateUtf8(value.toString(), MaxRetainedFieldBytes);
            }
        } else if (serializeJson(value).toUtf8().size() > MaxRetainedFieldBytes) {
            continue;
        }
        kept.insert(it.key(), value);
    }
    return kept;
}

QString TurnRecorder::reasoningSinceLastCall() const
{
    qsizetype first = m_items.size();
    while (first > 0 && m_items.at(first - 1).kind != TranscriptItem::Kind::ToolEnd)
        --first;
    QString reasoning;
    for (qsizetype i = first; i < m_items.size(); ++i) {
        if (m_items.at(i).kind == TranscriptItem::Kind::Reasoning)
            reasoning += m_items.at(i).content;
    }
    return reasoning;
}

ToolActivity TurnRecorder::activityFor(const ToolCallInfo &call) const
{
    ToolActivity activity;
    activity.textOffset = int(m_sealedTextBytes);
    activity.tool = call.name;
    activity.input = retainedInput(call.name, call.input);
    activity.status = call.error.isEmpty() ? QStringLiteral("success") : QStringLiteral("error");
    if (call.name == QLatin1String("bash") && call.output.isObject()) {
        const QJsonValue exit = call.output.toObject().value(QStringLiteral("exit_code"));
        if (exit.isDouble() && exit.toInt() != 0)
            activity.exitCode = exit.toInt();
    }
    const bool alwaysRetain = call.name == QLatin1String("ask_user");
    if (m_retainOutputs || alwaysRetain) {
        activity.retainedOutput = call.error.isEmpty()
                                      ? OutputCompressor::forLlm(call.name, call.output)
                                      : QJsonValue(QJsonObject{{QStringLiteral("error"), call.error}});
    }
    return activity;
}

} // namespace keen
