#pragma once

#include "conversation/message.h"
#include "conversation/streamevent.h"

#include <QJsonArray>
#include <QString>

namespace keen {

// What one assistant turn (or the part of it before an automatic compaction) leaves behind: the transcript
// items for replay, the assistant text, and the turn memory for later requests (reference 5.2, 5.5).
struct RecordedTurn
{
    QJsonArray transcript;
    QString message;
    TurnMemory turnMemory;

    bool isEmpty() const { return transcript.isEmpty() && message.isEmpty() && turnMemory.isEmpty(); }
};

// Follows the visible events of a turn and builds its RecordedTurn.
class TurnRecorder
{
public:
    static constexpr qsizetype MaxRetainedFieldBytes = 4 * 1024;
    static constexpr qsizetype MaxTranscriptOutputBytes = 64 * 1024;

    void setWorkspace(const QString &workspace) { m_workspace = workspace; }
    // /tool-history full keeps the LLM-facing output in turn memory; none keeps only the status.
    void setRetainOutputs(bool retain) { m_retainOutputs = retain; }

    void record(const StreamEvent &event);
    // A retry drops what the failed attempt streamed after the last tool activity.
    void rewindForRetry();
    // Returns what was recorded so far and starts afresh (an automatic compaction's checkpoint).
    RecordedTurn checkpoint();
    const RecordedTurn &current() const { return m_turn; }
    // The assistant text after the last tool activity (a manual compaction's summary, S24).
    QString textAfterLastToolActivity() const { return m_textSinceTool; }
    bool hasToolActivity() const { return !m_turn.turnMemory.isEmpty(); }
    void clear();

private:
    void appendText(const QString &kind, const QString &text);
    ToolActivity activityFor(const ToolCallInfo &call) const;
    QJsonValue retainedInput(const QString &tool, const QJsonObject &input) const;

    QString m_workspace;
    bool m_retainOutputs = false;
    RecordedTurn m_turn;
    QString m_textSinceTool;
    qsizetype m_sealedItems = 0;   // transcript items up to the last tool activity
    qsizetype m_sealedMessage = 0; // message length up to the last tool activity
};

// Transcript "diff" item lines from a unified diff: {Kind 0 context|1 added|2 removed|3 hunk, OldLineNum,
// NewLineNum, Content}.
QJsonArray diffLinesFromUnifiedDiff(const QString &diff);

} // namespace keen
