#pragma once

#include "conversation/message.h"
#include "conversation/streamevent.h"
#include "session/transcriptitem.h"

#include <QHash>
#include <QList>
#include <QString>

namespace keen {

// What one assistant turn (or the part of it before an automatic compaction) leaves behind: the transcript
// items for replay, the assistant text, and the turn memory for later requests (reference 5.2, 5.5).
struct RecordedTurn
{
    QList<TranscriptItem> transcript;
    QString message; // the text items joined
    TurnMemory turnMemory;

    bool isEmpty() const { return transcript.isEmpty() && message.isEmpty() && turnMemory.isEmpty(); }
};

// Follows the visible events of a turn and builds its RecordedTurn. A chunk costs what it carries: text and
// reasoning accumulate in one open string, and a transcript item is made only when the open one closes (a
// tool event, another kind of chunk, a checkpoint or the end). No JSON is built here; the session store
// writes it.
class TurnRecorder
{
public:
    static constexpr qsizetype MaxRetainedFieldBytes = 4 * 1024;
    static constexpr qsizetype MaxTranscriptOutputBytes = 64 * 1024;

    // What the recorder did, for tests that prove a chunk costs O(chunk).
    struct Counters
    {
        qint64 chunks = 0;      // text and reasoning chunks recorded
        qint64 itemsClosed = 0; // transcript items made
    };

    void setWorkspace(const QString &workspace) { m_workspace = workspace; }
    // /tool-history full keeps the LLM-facing output in turn memory; none keeps only the status.
    void setRetainOutputs(bool retain) { m_retainOutputs = retain; }

    void record(const StreamEvent &event);
    // The person answered a permission question of call callId: kept with that call's tool_end when it
    // comes (a replayed session shows the settled card).
    void recordPermission(const QString &callId, const AnsweredPermission &answer);
    // A retry drops what the failed attempt streamed after the last tool activity.
    void rewindForRetry();
    // The turn was interrupted while tools ran: each is kept in the turn memory as a call that failed with
    // reason, so the history (and a reopened session) still tells the model it ran and was stopped, as the
    // replayed pending state did for the next request. A question one of them still waited for goes on its
    // tool_start (it has no tool_end), so a reopened session shows the card that was open.
    void interruptRunningTools(const QString &reason);
    // Returns what was recorded so far and starts afresh (an automatic compaction's checkpoint).
    RecordedTurn checkpoint();
    // What was recorded so far (O(turn): for checkpoints and the end of a turn, not per chunk).
    RecordedTurn current() const;
    // The assistant text after the last tool activity (a manual compaction's summary, S24).
    QString textAfterLastToolActivity() const;
    bool hasToolActivity() const { return !m_memory.isEmpty(); }
    Counters counters() const { return m_counters; }
    void clear();

private:
    void appendChunk(TranscriptItem::Kind kind, const QString &text);
    void closeOpenItem();
    // Marks everything so far as sealed: a retry no longer drops it.
    void seal();
    ToolActivity activityFor(const ToolCallInfo &call) const;
    // The reasoning items since the last call ended, joined: what the model thought before this call.
    QString reasoningSinceLastCall() const;
    QJsonValue retainedInput(const QString &tool, const QJsonObject &input) const;

    QString m_workspace;
    bool m_retainOutputs = false;
    QList<TranscriptItem> m_items; // closed items
    // A call started and not ended, with the index of its tool_start in m_items.
    struct RunningCall
    {
        ToolCallInfo call;
        qsizetype startItem = 0;
    };
    QList<RunningCall> m_running;
    QHash<QString, AnsweredPermission> m_permissions; // by call id, until the call's tool_end
    TranscriptItem::Kind m_openKind = TranscriptItem::Kind::Text;
    QString m_openText; // the text or reasoning item still growing
    TurnMemory m_memory;
    qsizetype m_sealedItems = 0;  // items up to the last tool activity
    qint64 m_sealedTextBytes = 0; // UTF-8 bytes of the assistant text up to the last tool activity
    Counters m_counters;
};

} // namespace keen
