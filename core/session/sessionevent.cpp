#include "session/sessionevent.h"

#include "base/jsonlist.h"

#include <QJsonArray>
#include <QLocale>
#include <QRegularExpression>
#include <QVariant>

#include <cmath>

namespace keen {

namespace {

constexpr QLatin1StringView kSeq("seq");
constexpr QLatin1StringView kKind("kind");
constexpr QLatin1StringView kSessionUsage("session_usage");
constexpr QLatin1StringView kSessionStarted("session_started");
constexpr QLatin1StringView kUserMessage("user_message");
constexpr QLatin1StringView kAssistantTurn("assistant_turn");
constexpr QLatin1StringView kCompactionApplied("compaction_applied");
constexpr QLatin1StringView kCompactionReverted("compaction_reverted");
constexpr QLatin1StringView kCompactionPolicy("compaction_policy");
constexpr QLatin1StringView kRevertsSeq("reverts_seq");
constexpr QLatin1StringView kPinAdded("pin_added");
constexpr QLatin1StringView kPinRemoved("pin_removed");
constexpr QLatin1StringView kPinnedContext("pinned_context");
constexpr QLatin1StringView kPinIds("pin_ids");
constexpr QLatin1StringView kId("id");
constexpr QLatin1StringView kText("text");
constexpr QLatin1StringView kHeadline("headline");
constexpr QLatin1StringView kSource("source");
constexpr QLatin1StringView kSessionId("session_id");
constexpr QLatin1StringView kCreatedAt("created_at");
constexpr QLatin1StringView kCwd("cwd");
constexpr QLatin1StringView kContent("content");
constexpr QLatin1StringView kTranscript("transcript");
constexpr QLatin1StringView kMessage("message");
constexpr QLatin1StringView kTurnMemory("turn_memory");
constexpr QLatin1StringView kInterrupted("interrupted");
constexpr QLatin1StringView kError("error");
constexpr QLatin1StringView kStatus("status");
constexpr QLatin1StringView kMessages("messages");
constexpr QLatin1StringView kStrategy("strategy");
constexpr QLatin1StringView kDroppedDetails("dropped_details");
constexpr QLatin1StringView kSummaryEdited("summary_edited");

QLatin1StringView payloadKey(SessionEvent::Kind kind)
{
    switch (kind) {
    case SessionEvent::Kind::SessionStarted:
        return kSessionStarted;
    case SessionEvent::Kind::UserMessage:
        return kUserMessage;
    case SessionEvent::Kind::AssistantTurn:
        return kAssistantTurn;
    case SessionEvent::Kind::CompactionApplied:
        return kCompactionApplied;
    case SessionEvent::Kind::CompactionReverted:
        return kCompactionReverted;
    case SessionEvent::Kind::CompactionPolicy:
        return kCompactionPolicy;
    case SessionEvent::Kind::PinAdded:
        return kPinAdded;
    case SessionEvent::Kind::PinRemoved:
        return kPinRemoved;
    case SessionEvent::Kind::PinnedContext:
        return kPinnedContext;
    case SessionEvent::Kind::Unknown:
        break;
    }
    return {};
}

// transcript?: an array of items, written only when not empty. Entries that are not objects (which no
// writer produces) make the whole array come back as it was.
QList<TranscriptItem> readTranscript(const QJsonObject &payload, JsonFields &extras)
{
    const QJsonValue value = payload.value(kTranscript);
    if (value.isUndefined())
        return {};
    if (!value.isArray()) {
        extras.keep(kTranscript, value);
        return {};
    }
    const QJsonArray array = value.toArray();
    if (array.isEmpty())
        extras.keep(kTranscript, value);
    QList<TranscriptItem> items;
    items.reserve(array.size());
    bool allObjects = true;
    for (const QJsonValue &entry : array) {
        allObjects = allObjects && entry.isObject();
        items.append(TranscriptItem::fromJson(entry.toObject()));
    }
    if (!allObjects)
        extras.keep(kTranscript, value);
    return items;
}

MessageList readMessages(const QJsonObject &payload, JsonFields &extras)
{
    const QJsonValue value = payload.value(kMessages);
    if (value.isUndefined()) {
        extras.keepAbsent(kMessages);
        return {};
    }
    const MessageList messages = messagesFromJson(value.toArray());
    // Messages are Go structs without tags: anything the typed values would write differently is kept.
    if (!value.isArray() || messagesToJson(messages) != value.toArray())
        extras.keep(kMessages, value);
    return messages;
}

SessionEvent::Started readStarted(const QJsonObject &payload)
{
    SessionEvent::Started started;
    started.sessionId = started.extras.readString(payload, kSessionId, JsonFields::Write::Always);
    started.createdAt = started.extras.readString(payload, kCreatedAt, JsonFields::Write::Always);
    started.cwd = started.extras.readString(payload, kCwd, JsonFields::Write::Always);
    started.extras.keepUnknown(payload, {kSessionId, kCreatedAt, kCwd});
    return started;
}

SessionEvent::User readUser(const QJsonObject &payload)
{
    SessionEvent::User user;
    user.content = user.extras.readString(payload, kContent, JsonFields::Write::Always);
    user.extras.keepUnknown(payload, {kContent});
    return user;
}

SessionEvent::Assistant readAssistant(const QJsonObject &payload)
{
    SessionEvent::Assistant turn;
    turn.transcript = readTranscript(payload, turn.extras);
    turn.message = turn.extras.readString(payload, kMessage, JsonFields::Write::OmitEmpty);
    turn.turnMemory = turn.extras.readObject<TurnMemory>(payload, kTurnMemory);
    turn.interrupted = turn.extras.readBool(payload, kInterrupted);
    turn.error = turn.extras.readString(payload, kError, JsonFields::Write::OmitEmpty);
    turn.extras.keepUnknown(payload, {kTranscript, kMessage, kTurnMemory, kInterrupted, kError});
    return turn;
}

SessionEvent::Compaction readCompaction(const QJsonObject &payload)
{
    SessionEvent::Compaction compaction;
    compaction.status = compaction.extras.readString(payload, kStatus, JsonFields::Write::Always);
    compaction.transcript = readTranscript(payload, compaction.extras);
    compaction.messages = readMessages(payload, compaction.extras);
    if (const auto strategy = compaction.extras.readObject<CompactionStrategy>(payload, kStrategy))
        compaction.strategy = *strategy;
    const QJsonValue dropped = payload.value(kDroppedDetails);
    if (dropped.isArray() && !dropped.toArray().isEmpty()) {
        compaction.dropped = fromJsonArray<DroppedDetail>(dropped.toArray());
        if (toJsonArray(compaction.dropped) != dropped.toArray())
            compaction.extras.keep(kDroppedDetails, dropped); // written back as it came
    } else if (!dropped.isUndefined()) {
        compaction.extras.keep(kDroppedDetails, dropped);
    }
    compaction.summaryEdited = compaction.extras.readBool(payload, kSummaryEdited);
    compaction.extras.keepUnknown(
        payload, {kStatus, kTranscript, kMessages, kStrategy, kDroppedDetails, kSummaryEdited});
    return compaction;
}

SessionEvent::Revert readRevert(const QJsonObject &payload)
{
    SessionEvent::Revert revert;
    revert.revertsSeq =
        quint64(std::max<qint64>(0, revert.extras.readInteger(payload, kRevertsSeq).value_or(0)));
    revert.status = revert.extras.readString(payload, kStatus, JsonFields::Write::Always);
    revert.extras.keepUnknown(payload, {kRevertsSeq, kStatus});
    return revert;
}

SessionEvent::Policy readPolicy(const QJsonObject &payload)
{
    SessionEvent::Policy policy;
    policy.policy = CompactionPolicy::fromJson(payload);
    // What the typed policy would not write back the same way (a value out of range, a missing field).
    const QJsonObject written = policy.policy.toJson();
    for (auto it = written.begin(); it != written.end(); ++it) {
        const QJsonValue original = payload.value(it.key());
        if (original.isUndefined())
            policy.extras.keepAbsent(QLatin1StringView(it.key().toLatin1()));
        else if (original != it.value())
            policy.extras.keep(it.key(), original);
    }
    QStringList known = written.keys();
    for (auto it = payload.begin(); it != payload.end(); ++it) {
        if (!known.contains(it.key()))
            policy.extras.keep(it.key(), it.value());
    }
    return policy;
}

SessionEvent::PinAdd readPinAdd(const QJsonObject &payload)
{
    SessionEvent::PinAdd added;
    added.pin.id = added.extras.readString(payload, kId, JsonFields::Write::Always);
    const QString kind = added.extras.readString(payload, kKind, JsonFields::Write::Always);
    if (const auto known = Pin::kindFromName(kind))
        added.pin.kind = *known;
    else
        added.extras.keep(kKind, payload.value(kKind)); // a newer kind: kept, shown as a note
    added.pin.text = added.extras.readString(payload, kText, JsonFields::Write::Always);
    added.pin.source = added.extras.readString(payload, kSource, JsonFields::Write::OmitEmpty);
    added.extras.keepUnknown(payload, {kId, kKind, kText, kSource});
    return added;
}

SessionEvent::PinRemove readPinRemove(const QJsonObject &payload)
{
    SessionEvent::PinRemove removed;
    removed.id = removed.extras.readString(payload, kId, JsonFields::Write::Always);
    removed.headline = removed.extras.readString(payload, kHeadline, JsonFields::Write::OmitEmpty);
    removed.extras.keepUnknown(payload, {kId, kHeadline});
    return removed;
}

SessionEvent::PinContext readPinnedContext(const QJsonObject &payload)
{
    SessionEvent::PinContext context;
    const QJsonValue ids = payload.value(kPinIds);
    for (const QJsonValue &id : ids.toArray())
        context.pinIds.append(id.toString());
    if (ids.isUndefined())
        context.extras.keepAbsent(kPinIds);
    else if (QJsonValue(QJsonArray::fromStringList(context.pinIds)) != ids)
        context.extras.keep(kPinIds, ids); // not a list of strings: written back as it came
    context.content = context.extras.readString(payload, kContent, JsonFields::Write::Always);
    context.extras.keepUnknown(payload, {kPinIds, kContent});
    return context;
}

QJsonObject payloadJson(const SessionEvent &event)
{
    QJsonObject payload;
    if (const auto *started = event.started()) {
        payload.insert(kSessionId, started->sessionId);
        payload.insert(kCreatedAt, started->createdAt);
        payload.insert(kCwd, started->cwd);
        started->extras.applyTo(payload);
    } else if (const auto *user = event.user()) {
        payload.insert(kContent, user->content);
        user->extras.applyTo(payload);
    } else if (const auto *turn = event.assistant()) {
        if (!turn->transcript.isEmpty())
            payload.insert(kTranscript, toJsonArray(turn->transcript));
        if (!turn->message.isEmpty())
            payload.insert(kMessage, turn->message);
        if (turn->turnMemory)
            payload.insert(kTurnMemory, turn->turnMemory->toJson());
        if (turn->interrupted)
            payload.insert(kInterrupted, true);
        if (!turn->error.isEmpty())
            payload.insert(kError, turn->error);
        turn->extras.applyTo(payload);
    } else if (const auto *compaction = event.compaction()) {
        payload.insert(kStatus, compaction->status);
        payload.insert(kMessages, messagesToJson(compaction->messages));
        if (!compaction->transcript.isEmpty())
            payload.insert(kTranscript, toJsonArray(compaction->transcript));
        if (!compaction->strategy.isSingleRequest())
            payload.insert(kStrategy, compaction->strategy.toJson());
        if (!compaction->dropped.isEmpty())
            payload.insert(kDroppedDetails, toJsonArray(compaction->dropped));
        if (compaction->summaryEdited)
            payload.insert(kSummaryEdited, true);
        compaction->extras.applyTo(payload);
    } else if (const auto *revert = event.revert()) {
        payload.insert(kRevertsSeq, qint64(revert->revertsSeq));
        payload.insert(kStatus, revert->status);
        revert->extras.applyTo(payload);
    } else if (const auto *policy = event.policy()) {
        payload = policy->policy.toJson();
        policy->extras.applyTo(payload);
    } else if (const auto *added = event.pinAdd()) {
        payload.insert(kId, added->pin.id);
        payload.insert(kKind, Pin::kindName(added->pin.kind));
        payload.insert(kText, added->pin.text);
        if (!added->pin.source.isEmpty())
            payload.insert(kSource, added->pin.source);
        added->extras.applyTo(payload);
    } else if (const auto *removed = event.pinRemove()) {
        payload.insert(kId, removed->id);
        if (!removed->headline.isEmpty())
            payload.insert(kHeadline, removed->headline);
        removed->extras.applyTo(payload);
    } else if (const auto *context = event.pinContext()) {
        payload.insert(kPinIds, QJsonArray::fromStringList(context->pinIds));
        payload.insert(kContent, context->content);
        context->extras.applyTo(payload);
    }
    return payload;
}

} // namespace

QDateTime SessionEvent::Started::createdTime() const
{
    QDateTime time = QDateTime::fromString(createdAt, Qt::ISODateWithMs);
    if (time.isValid())
        return time;
    // RFC 3339 from the reference agent may carry nanoseconds; Qt reads at most milliseconds.
    static const QRegularExpression fraction(QStringLiteral("(\\.\\d{3})\\d+"));
    QString trimmed = createdAt;
    trimmed.replace(fraction, QStringLiteral("\\1"));
    return QDateTime::fromString(trimmed, Qt::ISODateWithMs);
}

QString SessionEvent::kindName(Kind kind)
{
    return QString(payloadKey(kind));
}

std::optional<SessionEvent::Kind> SessionEvent::kindFromName(const QString &name)
{
    for (const Kind kind : {Kind::SessionStarted, Kind::UserMessage, Kind::AssistantTurn,
                            Kind::CompactionApplied, Kind::CompactionReverted, Kind::CompactionPolicy,
                            Kind::PinAdded, Kind::PinRemoved, Kind::PinnedContext}) {
        if (name == payloadKey(kind))
            return kind;
    }
    return std::nullopt;
}

QString SessionEvent::kindName() const
{
    if (kind == Kind::Unknown)
        return extras.value(QString(kKind)).toString();
    return kindName(kind);
}

QJsonObject SessionEvent::toJson() const
{
    QJsonObject object{{kSeq, qint64(seq)}};
    if (kind != Kind::Unknown) {
        object.insert(kKind, payloadKey(kind));
        object.insert(payloadKey(kind), payloadJson(*this));
    }
    if (sessionUsage)
        object.insert(kSessionUsage, sessionUsage->toJson());
    extras.applyTo(object);
    return object;
}

namespace {

// A number as the file has it, as near as the parsed value allows: an integer that fits 64 bits exactly
// (2^63 - 1 read as a double printed 9223372036854775808), a whole double in full, else its shortest form.
QString writtenNumber(const QJsonValue &value)
{
    if (value.toVariant().typeId() == QMetaType::LongLong)
        return QString::number(value.toInteger());
    const double number = value.toDouble();
    if (number == std::floor(number) && std::fabs(number) < 1e21)
        return QString::number(number, 'f', 0);
    return QString::number(number, 'g', QLocale::FloatingPointShortest);
}

} // namespace

std::optional<SessionEvent> SessionEvent::fromJson(const QJsonObject &object, QString *problem)
{
    auto invalid = [problem](const QString &why) -> std::optional<SessionEvent> {
        if (problem)
            *problem = why;
        return std::nullopt;
    };
    const QJsonValue seqValue = object.value(kSeq);
    const double seqNumber = seqValue.toDouble();
    if (!seqValue.isDouble())
        return invalid(tr("it has no seq"));
    // Beyond 2^53 a JSON number is no longer exact, and the next event's seq could not be written above it.
    if (seqNumber < 1 || seqNumber > double(MaxSeq) || seqNumber != std::floor(seqNumber))
        return invalid(tr("its seq %1 is not a whole number from 1 to 2^53").arg(writtenNumber(seqValue)));

    SessionEvent event;
    event.seq = quint64(seqNumber);
    if (QJsonValue(qint64(event.seq)) != seqValue)
        event.extras.keep(kSeq, seqValue); // written back as it came
    const auto kind = kindFromName(object.value(kKind).toString());
    if (!kind) {
        // Another writer's event kind: kept whole, ignored by the projection and the replay.
        event.kind = Kind::Unknown;
        event.payload = Other();
        event.extras.keepUnknown(object, {kSeq});
        return event;
    }
    event.kind = *kind;
    const QLatin1StringView key = payloadKey(*kind);
    const QJsonValue payloadValue = object.value(key);
    if (!payloadValue.isObject())
        return invalid(tr("its %1 payload is missing or not an object").arg(key));
    const QJsonObject payload = payloadValue.toObject();
    if (*kind == Kind::CompactionApplied) {
        // The event replaces the whole history: a damaged one must never wipe it (issue 14).
        const QJsonValue messages = payload.value(kMessages);
        if (!messages.isArray())
            return invalid(tr("compaction_applied has no list of messages"));
        for (const QJsonValue &message : messages.toArray()) {
            if (!message.isObject() || !Message::fromJson(message.toObject()))
                return invalid(tr("compaction_applied holds an item that is not a message"));
        }
    }
    switch (*kind) {
    case Kind::SessionStarted:
        event.payload = readStarted(payload);
        break;
    case Kind::UserMessage:
        event.payload = readUser(payload);
        break;
    case Kind::AssistantTurn:
        event.payload = readAssistant(payload);
        break;
    case Kind::CompactionApplied:
        event.payload = readCompaction(payload);
        break;
    case Kind::CompactionReverted:
        event.payload = readRevert(payload);
        break;
    case Kind::CompactionPolicy:
        event.payload = readPolicy(payload);
        break;
    case Kind::PinAdded:
        event.payload = readPinAdd(payload);
        break;
    case Kind::PinRemoved:
        event.payload = readPinRemove(payload);
        break;
    case Kind::PinnedContext:
        event.payload = readPinnedContext(payload);
        break;
    case Kind::Unknown:
        break;
    }
    event.sessionUsage = event.extras.readObject<SessionUsage>(object, kSessionUsage);
    event.extras.keepUnknown(object, {kSeq, kKind, key, kSessionUsage});
    return event;
}

SessionEvent SessionEvent::sessionStarted(const QString &sessionId, const QDateTime &createdAt,
                                          const QString &cwd)
{
    SessionEvent event;
    event.kind = Kind::SessionStarted;
    event.payload = Started{sessionId, createdAt.toUTC().toString(Qt::ISODateWithMs), cwd, {}};
    return event;
}

SessionEvent SessionEvent::userMessage(const QString &content)
{
    SessionEvent event;
    event.kind = Kind::UserMessage;
    event.payload = User{content, {}};
    return event;
}

SessionEvent SessionEvent::assistantTurn(const QList<TranscriptItem> &transcript, const QString &message,
                                         const std::optional<TurnMemory> &turnMemory, bool interrupted,
                                         const QString &error)
{
    SessionEvent event;
    event.kind = Kind::AssistantTurn;
    Assistant turn;
    turn.transcript = transcript;
    turn.message = message;
    if (turnMemory && !turnMemory->isEmpty())
        turn.turnMemory = turnMemory;
    turn.interrupted = interrupted;
    turn.error = error;
    event.payload = std::move(turn);
    return event;
}

SessionEvent SessionEvent::compactionApplied(const QString &status, const QList<TranscriptItem> &transcript,
                                             const MessageList &messages, const CompactionStrategy &strategy,
                                             const QList<DroppedDetail> &dropped, bool summaryEdited)
{
    SessionEvent event;
    event.kind = Kind::CompactionApplied;
    event.payload = Compaction{status, transcript, messages, strategy, dropped, summaryEdited, {}};
    return event;
}

SessionEvent SessionEvent::compactionReverted(quint64 revertsSeq, const QString &status)
{
    SessionEvent event;
    event.kind = Kind::CompactionReverted;
    event.payload = Revert{revertsSeq, status, {}};
    return event;
}

SessionEvent SessionEvent::compactionPolicy(const keen::CompactionPolicy &policy)
{
    SessionEvent event;
    event.kind = Kind::CompactionPolicy;
    event.payload = Policy{policy, {}};
    return event;
}

keen::CompactionPolicy SessionEvent::latestPolicy(const QList<SessionEvent> &events)
{
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (const Policy *policy = it->policy())
            return policy->policy;
    }
    return {};
}

SessionEvent SessionEvent::pinAdded(const Pin &pin)
{
    SessionEvent event;
    event.kind = Kind::PinAdded;
    event.payload = PinAdd{pin, {}};
    return event;
}

SessionEvent SessionEvent::pinRemoved(const QString &id, const QString &headline)
{
    SessionEvent event;
    event.kind = Kind::PinRemoved;
    event.payload = PinRemove{id, headline, {}};
    return event;
}

SessionEvent SessionEvent::pinnedContext(const QStringList &pinIds, const QString &content)
{
    SessionEvent event;
    event.kind = Kind::PinnedContext;
    event.payload = PinContext{pinIds, content, {}};
    return event;
}

QString SessionEvent::content() const
{
    const User *message = user();
    return message ? message->content : QString();
}

QString SessionEvent::assistantMessage() const
{
    const Assistant *turn = assistant();
    return turn ? turn->message : QString();
}

const QList<TranscriptItem> &SessionEvent::transcript() const
{
    static const QList<TranscriptItem> none;
    if (const Assistant *turn = assistant())
        return turn->transcript;
    if (const Compaction *applied = compaction())
        return applied->transcript;
    return none;
}

bool SessionEvent::interrupted() const
{
    const Assistant *turn = assistant();
    return turn && turn->interrupted;
}

QString SessionEvent::error() const
{
    const Assistant *turn = assistant();
    return turn ? turn->error : QString();
}

QString SessionEvent::status() const
{
    const Compaction *applied = compaction();
    return applied ? applied->status : QString();
}

MessageList SessionEvent::messages() const
{
    const Compaction *applied = compaction();
    return applied ? applied->messages : MessageList();
}

std::optional<TurnMemory> SessionEvent::turnMemory() const
{
    const Assistant *turn = assistant();
    return turn ? turn->turnMemory : std::nullopt;
}

} // namespace keen
