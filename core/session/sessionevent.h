#pragma once

#include "conversation/compactionpolicy.h"
#include "conversation/compactionstrategy.h"
#include "conversation/droppeddetail.h"
#include "conversation/message.h"
#include "conversation/pin.h"
#include "session/jsonfields.h"
#include "session/sessionusage.h"
#include "session/transcriptitem.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <variant>

namespace keen {

// One line of transcript_events.jsonl as a typed value (reference 5.2):
// {"seq":N,"kind":K,"<kind>":{payload}}. The only code that knows the event JSON. Fields and event kinds this
// app does not know are kept and written back unchanged, so sessions stay interchangeable with the reference
// agent (and with newer Keens).
struct SessionEvent
{
    enum class Kind {
        SessionStarted,
        UserMessage,
        AssistantTurn,
        CompactionApplied,
        CompactionReverted,
        CompactionPolicy,
        PinAdded,
        PinRemoved,
        PinnedContext,
        Unknown
    };

    struct Started
    {
        QString sessionId;
        QString createdAt; // RFC 3339 as written (the reference writes nanoseconds)
        QString cwd;
        JsonFields extras;

        QDateTime createdTime() const; // invalid when createdAt does not parse
        bool operator==(const Started &) const = default;
    };
    struct User
    {
        QString content;
        JsonFields extras;
        bool operator==(const User &) const = default;
    };
    struct Assistant
    {
        QList<TranscriptItem> transcript;
        QString message;
        std::optional<TurnMemory> turnMemory;
        bool interrupted = false;
        QString error;
        JsonFields extras;
        bool operator==(const Assistant &) const = default;
    };
    struct Compaction
    {
        QString status; // empty for an automatic compaction (S64)
        QList<TranscriptItem> transcript;
        MessageList messages;
        // How an automatic compaction fit the input budget (issue 16); written only when it was not the
        // seed's single request.
        CompactionStrategy strategy;
        // What the summary left out (issue 16); written only when there is something.
        QList<DroppedDetail> dropped;
        // A reviewed manual summary the person changed before accepting it (issue 16); written only when
        // true.
        bool summaryEdited = false;
        JsonFields extras;
        bool operator==(const Compaction &) const = default;
    };
    // Undo of a compaction (issue 16, docs/SESSION_FORMAT.md): names the compaction_applied it reverts.
    struct Revert
    {
        quint64 revertsSeq = 0;
        QString status;
        JsonFields extras;
        bool operator==(const Revert &) const = default;
    };
    // The session's compaction policy from here on (issue 16, docs/SESSION_FORMAT.md); the latest one holds.
    struct Policy
    {
        keen::CompactionPolicy policy;
        JsonFields extras;
        bool operator==(const Policy &) const = default;
    };
    // A pin (issue 16, docs/SESSION_FORMAT.md): pin_added carries the pinned text, pin_removed its id.
    struct PinAdd
    {
        Pin pin;
        JsonFields extras;
        bool operator==(const PinAdd &) const = default;
    };
    struct PinRemove
    {
        QString id;
        QString headline; // the removed pin's Pin::headline(), for its chat row; empty in older transcripts
        JsonFields extras;
        bool operator==(const PinRemove &) const = default;
    };
    // Pins added to the conversation itself (docs/SESSION_FORMAT.md, pinned_context): content is one user
    // message, appended to the history where the event stands, so a pin whose text the history does not hold
    // reaches the model with the next request and not only with the next compaction.
    struct PinContext
    {
        QStringList pinIds;
        QString content;
        JsonFields extras;
        bool operator==(const PinContext &) const = default;
    };
    // An event kind this app does not know: everything but seq is in SessionEvent::extras.
    struct Other
    {
        bool operator==(const Other &) const = default;
    };

    quint64 seq = 0; // assigned by the session store when written
    Kind kind = Kind::UserMessage;
    std::variant<User, Started, Assistant, Compaction, Revert, Policy, PinAdd, PinRemove, PinContext, Other>
        payload;
    // The session's token totals as of this event (on assistant_turn and compaction_applied); written only
    // when set.
    std::optional<SessionUsage> sessionUsage;
    // Fields beside seq, kind, the payload and session_usage; for an unknown kind, every field but seq.
    JsonFields extras;

    bool operator==(const SessionEvent &) const = default;

    static QString kindName(Kind kind); // empty for Unknown
    static std::optional<Kind> kindFromName(const QString &name);
    QString kindName() const; // the name as written, also for an unknown kind

    QJsonObject toJson() const;
    // The largest seq read or written: JSON numbers are exact up to 2^53.
    static constexpr quint64 MaxSeq = quint64(1) << 53;

    // nullopt for an object that is not an event at all (no seq from 1 to MaxSeq, a known kind without its
    // payload object, a compaction_applied without a list of messages or with an item that is not a message),
    // with the reason in problem. An unknown kind is an event of Kind::Unknown.
    static std::optional<SessionEvent> fromJson(const QJsonObject &object, QString *problem = nullptr);

    static SessionEvent sessionStarted(const QString &sessionId, const QDateTime &createdAt,
                                       const QString &cwd);
    static SessionEvent userMessage(const QString &content);
    static SessionEvent assistantTurn(const QList<TranscriptItem> &transcript, const QString &message,
                                      const std::optional<TurnMemory> &turnMemory, bool interrupted,
                                      const QString &error);
    static SessionEvent compactionApplied(const QString &status, const QList<TranscriptItem> &transcript,
                                          const MessageList &messages,
                                          const CompactionStrategy &strategy = CompactionStrategy(),
                                          const QList<DroppedDetail> &dropped = {},
                                          bool summaryEdited = false);
    static SessionEvent compactionReverted(quint64 revertsSeq, const QString &status);
    static SessionEvent compactionPolicy(const keen::CompactionPolicy &policy);
    // The policy the latest compaction_policy of events set; the defaults (the seed's) when there is none.
    static keen::CompactionPolicy latestPolicy(const QList<SessionEvent> &events);
    static SessionEvent pinAdded(const Pin &pin);
    static SessionEvent pinRemoved(const QString &id, const QString &headline = QString());
    static SessionEvent pinnedContext(const QStringList &pinIds, const QString &content);

    // The payload of the event's kind, or nullptr.
    const Started *started() const { return std::get_if<Started>(&payload); }
    const User *user() const { return std::get_if<User>(&payload); }
    const Assistant *assistant() const { return std::get_if<Assistant>(&payload); }
    const Compaction *compaction() const { return std::get_if<Compaction>(&payload); }
    const Revert *revert() const { return std::get_if<Revert>(&payload); }
    const Policy *policy() const { return std::get_if<Policy>(&payload); }
    const PinAdd *pinAdd() const { return std::get_if<PinAdd>(&payload); }
    const PinRemove *pinRemove() const { return std::get_if<PinRemove>(&payload); }
    const PinContext *pinContext() const { return std::get_if<PinContext>(&payload); }

    // Shortcuts to payload fields; empty when the event has no such field.
    QString content() const;                         // user_message.content
    QString assistantMessage() const;                // assistant_turn.message
    const QList<TranscriptItem> &transcript() const; // assistant_turn / compaction_applied
    bool interrupted() const;
    QString error() const;
    QString status() const;       // compaction_applied.status
    MessageList messages() const; // compaction_applied.messages
    std::optional<TurnMemory> turnMemory() const;

    Q_DECLARE_TR_FUNCTIONS(SessionEvent)
};

} // namespace keen
