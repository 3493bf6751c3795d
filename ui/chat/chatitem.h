#pragma once

#include "conversation/droppeddetail.h"
#include "conversation/permissionrequest.h"
#include "conversation/userquestion.h"
#include "session/diffline.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

namespace keen {

// One row of the chat transcript, keyed by a stable id.
struct ChatItem
{
    enum class Kind {
        User,
        AssistantText,
        Reasoning,
        Tool,
        Permission,
        Question,
        Retry,
        Interrupted,
        Error,
        Status,
        Info, // Markdown shown by a command (/help)
    };
    // Every card ends in Done, Failed or Interrupted (the turn stopped while the tool ran).
    enum class ToolState { Running, Done, Failed, Interrupted };

    quint64 id = 0;
    Kind kind = Kind::User;
    QString text;          // the body (Markdown for assistant text and info)
    quint64 revision = 0;  // bumped on every change, so a view cache knows what is stale
    bool sealed = false;   // part of a checkpoint or finished turn: a retry never drops it
    bool streamed = false; // its text came in live (flushed chunks), not from a replay: rendered in steps
    bool collapsed = true; // reasoning, and a long user message (LongMessage)
    // Assistant text: this row goes on with the row before it, one reply cut at ChatModel::MaxRowChars.
    bool continued = false;
    // Info: a side stream's row (a /btw answer, a /adversary review), drawn with a bar of its own.
    bool aside = false;

    // Tool card
    QString callId;
    QString toolName;
    ToolState toolState = ToolState::Running;
    QString label;
    QString detail;
    QString metadata;
    qint64 durationNs = 0;
    QString toolError;
    // At most MaxDiffLines lines of the file change; a rewrite of a 100,000-line file has 200,000, which the
    // card counts (diffOmitted, after the last line kept) instead of keeping. When the removed lines would
    // fill the card before any added one (a file rewritten), half shows the start of what was removed and
    // half the start of what was added, with the diffGap lines between them left out before diff[diffGapAt].
    static constexpr int MaxDiffLines = 400;
    QList<DiffLine> diff;
    qsizetype diffOmitted = 0;
    qsizetype diffGapAt = -1;
    qsizetype diffGap = 0;
    QString command; // bash
    // bash output: the result's, or while it runs what it has printed so far; web_fetch: the page's text
    QString output;
    qint64 outputEarlierLines = 0; // while it runs: lines printed before those in output
    // What the tool returned, as the model got it (issue 16: Pin Tool Result pins it verbatim).
    QJsonValue result;

    // The status row of an applied compaction (`✓ Context compacted.`, `✓ Context compacted automatically.`):
    // the compaction_applied it undoes (issue 16), and whether it was undone.
    quint64 compactionSeq = 0;
    bool compactionUndone = false;
    // The latest compaction in effect, while nothing runs: its row offers "Undo" as a link.
    bool undoOffered = false;
    static inline const QString UndoCompactionLink = QStringLiteral("keen:undo-compaction");
    // Pinned from this row (issue 16): the row shows a pin mark.
    bool pinned = false;
    // The row under a compaction that lists what its summary left out (issue 16).
    QList<DroppedDetail> dropped;

    // Permission card / question
    PermissionRequest permission;
    quint64 questionId = 0;
    UserQuestionList questions;
    bool settled = false;
    // An error that ended a turn: the prompt its "Try again" link sends once more (empty: no link).
    QString retryPrompt;
    // The target of that link: the view takes it as the offer, never opens it.
    static inline const QString RetryLink = QStringLiteral("keen:retry");
    // A link of the app's own (Try again, Undo): the view acts on it, never opens or copies it as an address.
    static bool isActionLink(const QString &link) { return link.startsWith(QLatin1String("keen:")); }
    QString outcome;     // "Allowed", "Denied", the answers...
    QStringList answers; // a question's answers, one per question, when they were given

    // What a person would read, as plain text (copy, accessibility, tests).
    QString plainText() const;
    // Sets diff, diffOmitted and the gap from a unified diff, or from diff lines a transcript holds.
    void setDiff(const QString &unified);
    void setDiff(const QList<DiffLine> &lines);
    void clearDiff();
    // The state mark in front of a tool card: a dot while it runs, then a check, a cross or a stop square.
    static QString toolGlyph(ToolState state);
};

} // namespace keen
