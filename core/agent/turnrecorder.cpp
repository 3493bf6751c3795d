#include "agent/turnrecorder.h"

#include "conversation/historyreplay.h"
#include "tools/outputcompressor.h"

#include <QDir>
#include <QJsonDocument>
#include <QRegularExpression>

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

QJsonArray diffLinesFromUnifiedDiff(const QString &diff)
{
    static const QRegularExpression hunk(QStringLiteral(R"(^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@)"));
    QJsonArray lines;
    int oldLine = 0;
    int newLine = 0;
    const QStringList rows = diff.split(QLatin1Char('\n'));
    for (const QString &row : rows) {
        if (row.startsWith(QLatin1String("---")) || row.startsWith(QLatin1String("+++")))
            continue;
        const auto match = hunk.match(row);
        if (match.hasMatch()) {
            oldLine = match.captured(1).toInt();
            newLine = match.captured(2).toInt();
            lines.append(QJsonObject{{QStringLiteral("Kind"), 3},
                                     {QStringLiteral("OldLineNum"), 0},
                                     {QStringLiteral("NewLineNum"), 0},
                                     {QStringLiteral("Content"), row}});
            continue;
        }
        if (row.isEmpty() && oldLine == 0 && newLine == 0)
            continue;
        if (row.startsWith(QLatin1Char('+'))) {
            lines.append(QJsonObject{{QStringLiteral("Kind"), 1},
                                     {QStringLiteral("OldLineNum"), 0},
                                     {QStringLiteral("NewLineNum"), newLine++},
                                     {QStringLiteral("Content"), row.mid(1)}});
        } else if (row.startsWith(QLatin1Char('-'))) {
            lines.append(QJsonObject{{QStringLiteral("Kind"), 2},
                                     {QStringLiteral("OldLineNum"), oldLine++},
                                     {QStringLiteral("NewLineNum"), 0},
                                     {QStringLiteral("Content"), row.mid(1)}});
        } else if (row.startsWith(QLatin1Char(' '))) {
            lines.append(QJsonObject{{QStringLiteral("Kind"), 0},
                                     {QStringLiteral("OldLineNum"), oldLine++},
                                     {QStringLiteral("NewLineNum"), newLine++},
                                     {QStringLiteral("Content"), row.mid(1)}});
        }
    }
    return lines;
}

void TurnRecorder::clear()
{
    m_turn = RecordedTurn();
    m_textSinceTool.clear();
    m_sealedItems = 0;
    m_sealedMessage = 0;
}

RecordedTurn TurnRecorder::checkpoint()
{
    RecordedTurn turn = m_turn;
    clear();
    return turn;
}

void TurnRecorder::appendText(const QString &kind, const QString &text)
{
    if (text.isEmpty())
        return;
    // Consecutive chunks of the same kind form one transcript item.
    if (!m_turn.transcript.isEmpty() && m_turn.transcript.size() > m_sealedItems) {
        QJsonObject last = m_turn.transcript.last().toObject();
        if (last.value(QStringLiteral("kind")).toString() == kind) {
            last.insert(QStringLiteral("content"),
                        QString(last.value(QStringLiteral("content")).toString() + text));
            m_turn.transcript.replace(m_turn.transcript.size() - 1, last);
            return;
        }
    }
    m_turn.transcript.append(QJsonObject{{QStringLiteral("kind"), kind}, {QStringLiteral("content"), text}});
}

void TurnRecorder::record(const StreamEvent &event)
{
    switch (event.type) {
    case StreamEvent::Type::Chunk:
        appendText(QStringLiteral("text"), event.content);
        m_turn.message += event.content;
        m_textSinceTool += event.content;
        break;
    case StreamEvent::Type::ReasoningChunk:
        appendText(QStringLiteral("reasoning"), event.content);
        break;
    case StreamEvent::Type::ToolStart:
        if (event.toolCall) {
            QJsonObject start{{QStringLiteral("name"), event.toolCall->name}};
            if (!event.toolCall->input.isEmpty())
                start.insert(QStringLiteral("input"), event.toolCall->input);
            m_turn.transcript.append(QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_start")},
                                                 {QStringLiteral("tool_start"), start}});
        }
        m_sealedItems = m_turn.transcript.size();
        m_sealedMessage = m_turn.message.size();
        m_textSinceTool.clear();
        break;
    case StreamEvent::Type::ToolEnd:
        if (event.toolCall) {
            const ToolCallInfo &call = *event.toolCall;
            QJsonObject end{{QStringLiteral("name"), call.name},
                            {QStringLiteral("duration_ns"), call.durationNs}};
            if (!call.input.isEmpty())
                end.insert(QStringLiteral("input"), call.input);
            if (!call.output.isUndefined() && !call.output.isNull()) {
                const QString serialized = serializeJson(call.output);
                end.insert(QStringLiteral("output"),
                           serialized.toUtf8().size() <= MaxTranscriptOutputBytes
                               ? call.output
                               : QJsonValue(truncateUtf8(serialized, MaxTranscriptOutputBytes)));
            }
            if (!call.error.isEmpty())
                end.insert(QStringLiteral("error"), call.error);
            m_turn.transcript.append(QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_end")},
                                                 {QStringLiteral("tool_end"), end}});
            if (!call.diff.isEmpty())
                m_turn.transcript.append(QJsonObject{
                    {QStringLiteral("kind"), QStringLiteral("diff")},
                    {QStringLiteral("diff"),
                     QJsonObject{{QStringLiteral("lines"), diffLinesFromUnifiedDiff(call.diff)}}}});
            m_turn.turnMemory.toolActivity.append(activityFor(call));
        }
        m_sealedItems = m_turn.transcript.size();
        m_sealedMessage = m_turn.message.size();
        m_textSinceTool.clear();
        break;
    default:
        break;
    }
}

void TurnRecorder::rewindForRetry()
{
    while (m_turn.transcript.size() > m_sealedItems)
        m_turn.transcript.removeLast();
    m_turn.message.truncate(m_sealedMessage);
    m_textSinceTool.clear();
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

ToolActivity TurnRecorder::activityFor(const ToolCallInfo &call) const
{
    ToolActivity activity;
    activity.textOffset = int(m_turn.message.toUtf8().size());
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
