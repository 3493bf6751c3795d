#pragma once

#include "chat/chatitem.h"
#include "conversation/streamevent.h"
#include "session/sessionevent.h"

#include <QAbstractListModel>
#include <QMap>
#include <QTimer>

namespace keen {

// The transcript of the chat window (STYLE.md, chat view): one row per item, keyed by a stable id. Streamed
// text is queued and flushed by a short single-shot timer, appending to the last row and announcing only that
// row. The private automatic compaction summary never reaches this model: the agent never emits it, and the
// auto_compaction_* stream events are control events this model ignores.
class ChatModel final : public QAbstractListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatModel)

public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        KindRole,
        TextRole,
        RevisionRole,
        SealedRole,
        ToolStateRole,
        ToolLabelRole,
        ToolDetailRole,
        ToolMetadataRole,
        CollapsedRole,
        SettledRole,
        OutcomeRole,
        RequestIdRole,
    };
    Q_ENUM(Role)

    static constexpr int FlushIntervalMs = 8;
    static constexpr int MaxCharsPerFlush = 10000;
    // Assistant text longer than this continues in a new row at the next Markdown block boundary.
    static constexpr int MaxRowChars = 12000;

    explicit ChatModel(QObject *parent = nullptr);
    ~ChatModel() override;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    const ChatItem &item(int row) const { return m_items.at(row); }
    int rowOf(quint64 id) const;
    QString plainText() const; // every row, for copy and tests
    // The text of the message row belongs to: a long reply's rows joined (ChatItem::continued), else its own.
    QString wholeText(int row) const;

    // --- live turn ---
    quint64 addUserMessage(const QString &text);
    void appendText(const QString &chunk);      // queued
    void appendReasoning(const QString &chunk); // queued
    void toolStarted(const ToolCallInfo &info);
    void toolFinished(const ToolCallInfo &info);
    // A call refused before it ran (unknown tool, invalid input): a card in its failed state.
    void toolRejected(const ToolCallInfo &info);
    void toolOutput(const ToolCallInfo &info);
    // The turn ended while tools still ran (Ctrl+C, an error): their cards end as interrupted.
    void endRunningTools();
    // Drops the unsealed text and reasoning of the attempt that failed, then notes the retry.
    void retry(int attempt, const QString &reason, int delayMs = 0);
    // Renders one event of the parent stream. Usage and auto_compaction_* events are ignored here.
    void handleStreamEvent(const StreamEvent &event);
    // Seals everything shown so far (an automatic compaction's checkpoint, the end of a turn).
    void seal();
    // Removes the rows from row on (issue 16: a reviewed summary that was regenerated or cancelled is gone).
    void removeRowsFrom(int row);
    // Issue 16: the text a reviewed compaction applied, edited by the person, replaces the text and reasoning
    // that streamed from row on, as the replayed transcript has it; tool cards before it stay.
    void replaceTrailingText(int row, const QString &text);
    quint64 addLine(ChatItem::Kind kind, const QString &text);
    // /btw: a row with a side question, then its answer as it streams; it is no part of the turn around it.
    // A /btw question's row ("btw" and the question), or a /adversary review's ("review" and its focus).
    enum class Aside { Question, Review };
    quint64 addAside(const QString &question, Aside kind = Aside::Question);
    void appendAside(quint64 id, const QString &chunk);
    // Says how it ended when it did not answer: failed (error), cancelled, or nothing came.
    void finishAside(quint64 id, const QString &error, bool cancelled);
    // The error a turn ended with, offering "Try again" with the turn's prompt; any earlier offer goes.
    quint64 addTurnError(const QString &text, const QString &prompt);
    // The prompt the open "Try again" offer would send, and taking the offer away (a turn starts).
    QString retryPrompt() const;
    void dropRetryOffer();
    quint64 addInterrupted();
    quint64 addPermission(const PermissionRequest &request);
    // An allowed change drops its diff from the card: the tool's card below shows the same diff.
    void settlePermission(quint64 requestId, const QString &outcome, bool allowed = false);
    // What a settled permission card says of the answer: "Allowed", "Denied", ...
    static QString permissionOutcome(PermissionDecision decision);
    // What a permission card or a question of the agent says when it was cancelled (with the turn, or the
    // question by the person).
    static QString cancelledOutcome();
    bool hasPendingPermission() const;
    quint64 pendingPermissionId() const; // the oldest unsettled, or 0
    quint64 addQuestion(quint64 questionId, const UserQuestionList &questions);
    // answers: one per question when they were given (each is then shown beside its question).
    void settleQuestion(quint64 questionId, const QString &outcome, const QStringList &answers = {});
    // What a settled question card says: the answers, or that it was cancelled.
    static QString questionOutcome(const UserAnswer &answer);
    void toggleCollapsed(int row);

    // Applies every queued chunk now (before a tool card, a checkpoint or the end of a turn).
    void flush();
    bool hasPendingChunks() const { return !m_pending.isEmpty(); }

    // --- sessions ---
    void clear();
    // Renders a saved session the way the reference replays it (reference 5.3, 4.6).
    void replay(const QList<SessionEvent> &events);
    // The status row of an applied compaction; how is CompactionStrategy::describe(), empty for the seed's
    // single request (issue 16).
    // The row above a manual compaction's streamed summary, live and replayed.
    static QString compactionHeadingText();
    static QString compactionRowText(bool automatic, const QString &how);
    // The row of what an undone compaction's summary left out, once the undo brought it back.
    static QString droppedBackText();
    // Part of a manual compaction's row when the person edited the reviewed summary (issue 16).
    static QString editedSummaryNote();
    // Issue 16: the last row is where the compaction_applied seq happened (its Undo action lives there).
    void markCompaction(quint64 seq);
    // That compaction was undone: its rows lose their Undo action.
    void markCompactionUndone(quint64 seq);
    // The checkpoint row of this compaction offers Undo as a link; any other row's offer goes (0: none).
    void offerCompactionUndo(quint64 seq);
    // Issue 16, what was dropped: a row after the compaction's rows that says how many details its summary
    // left out and holds them (its action opens the list). Nothing for an empty list.
    quint64 addDroppedDetails(const QList<DroppedDetail> &details);
    static QString droppedRowText(const QList<DroppedDetail> &details);
    // The row with this id was pinned (issue 16): it shows the pin mark.
    void markPinned(quint64 itemId);
    // The status row a pin leaves (issue 16): its first line.
    static QString pinnedText(const Pin &pin);
    // The status row an unpin leaves: "Unpinned: " and the pin's headline; "Pin removed." for a pin_removed
    // written before the event carried it.
    static QString unpinnedText(const QString &headline);
    // The status row an undo leaves.
    static QString compactionUndoneText();
    // The status row of a compaction_policy event, live and replayed (issue 16).
    static QString compactionPolicyText(const CompactionPolicy &policy);
    // After replay(): the first row that the event with this seq (or the next one that has rows) produced,
    // or -1. The session browser opens a search hit there.
    int rowForSeq(quint64 seq) const;

    // The rows replay(events) makes, built on any thread (no view sees them): the whole history of a long
    // session is built on a worker while the window shows its last screen.
    struct Rows
    {
        QList<ChatItem> items;
        QMap<quint64, int> firstRowOfSeq;
    };
    static Rows replayRows(const QList<SessionEvent> &events);
    // What is shown now, and shows it again in place of whatever is shown then.
    Rows rows() const { return Rows{m_items, m_firstRowOfSeq}; }
    void restore(Rows rows);
    // The rows shown now start with shownRows rows replayed from the session's last events (from the event
    // firstShownSeq on); full is the replay of all its events. The rows above come in at the top, at most
    // PrependBatchRows per turn of the event loop, so no turn stalls the window, and a shown row that the
    // whole replay shows otherwise (an undo further down marks a compaction above) takes the whole replay's
    // content. Afterwards the rows are what replay(all events) makes; historyCompleted() then. Returns false
    // and changes nothing when full does not end in rows matching the shown ones.
    bool completeHistory(Rows full, quint64 firstShownSeq, int shownRows);
    bool isCompletingHistory() const { return m_prependTimer.isActive(); }
    static constexpr int PrependBatchRows = 2000;

Q_SIGNALS:
    void historyCompleted();

private:
    // A permission card's answer: its buttons go, the outcome shows.
    void settleRow(int row, const QString &outcome, bool allowed);
    // A settled card read back from the transcript, below the tool card just added.
    void addAnsweredPermission(const AnsweredPermission &answer);
    void settleQuestionRow(int row, const UserAnswer &answer);
    struct Pending
    {
        ChatItem::Kind kind;
        QString text;
    };

    void enqueue(ChatItem::Kind kind, const QString &chunk);
    void flushSome(qsizetype budget);
    void appendToLast(ChatItem::Kind kind, const QString &text);
    void splitLongText();
    quint64 insert(ChatItem item);
    void removeItem(int row);
    void changed(int row);
    void settleRetryRow();
    int findRunningTool(const QString &callId, const QString &toolName) const;
    void replayTranscript(const QList<TranscriptItem> &transcript);
    void prependSome();

    QList<ChatItem> m_items;
    QMap<quint64, int> m_firstRowOfSeq; // filled by replay()
    Rows m_prepend; // rows still to go above (completeHistory), and the whole replay's firstRowOfSeq
    QTimer m_prependTimer;
    QList<Pending> m_pending;
    QTimer m_flushTimer;
    quint64 m_nextId = 1;
    quint64 m_retryItem = 0; // the error row offering "Try again", 0 for none
    struct WaitingRetry
    {
        quint64 item = 0; // the "Retrying in…" row while it is the latest row, 0 for none
        int attempt = 0;
        QString reason;
    } m_waitingRetry;
    int m_attemptStart = 0;    // first row of the current provider request
    bool m_flushing = false;   // flushSome() is applying streamed chunks
    int m_sealedRows = 0;      // the rows before it are all sealed
    int m_settledToolRows = 0; // no tool card before it is still running
};

} // namespace keen
