#include "session/sessionevent.h"

namespace keen {

namespace {
const QString kSessionStarted = QStringLiteral("session_started");
const QString kUserMessage = QStringLiteral("user_message");
const QString kAssistantTurn = QStringLiteral("assistant_turn");
const QString kCompactionApplied = QStringLiteral("compaction_applied");
} // namespace

QString SessionEvent::kindName(Kind kind)
{
    switch (kind) {
    case Kind::SessionStarted:
        return kSessionStarted;
    case Kind::UserMessage:
        return kUserMessage;
    case Kind::AssistantTurn:
        return kAssistantTurn;
    case Kind::CompactionApplied:
        return kCompactionApplied;
    }
    return {};
}

std::optional<SessionEvent::Kind> SessionEvent::kindFromName(const QString &name)
{
    if (name == kSessionStarted)
        return Kind::SessionStarted;
    if (name == kUserMessage)
        return Kind::UserMessage;
    if (name == kAssistantTurn)
        return Kind::AssistantTurn;
    if (name == kCompactionApplied)
        return Kind::CompactionApplied;
    return std::nullopt;
}

QJsonObject SessionEvent::toJson() const
{
    const QString name = kindName(kind);
    return QJsonObject{
        {QStringLiteral("seq"), qint64(seq)},
        {QStringLiteral("kind"), name},
        {name, payload},
    };
}

std::optional<SessionEvent> SessionEvent::fromJson(const QJsonObject &object)
{
    const auto kind = kindFromName(object.value(QStringLiteral("kind")).toString());
    const QJsonValue seq = object.value(QStringLiteral("seq"));
    if (!kind || !seq.isDouble() || seq.toDouble() < 1)
        return std::nullopt;
    const QJsonValue payload = object.value(kindName(*kind));
    if (!payload.isObject())
        return std::nullopt;
    return SessionEvent{quint64(seq.toDouble()), *kind, payload.toObject()};
}

SessionEvent SessionEvent::sessionStarted(const QString &sessionId, const QDateTime &createdAt,
                                          const QString &cwd)
{
    return SessionEvent{0, Kind::SessionStarted,
                        QJsonObject{
                            {QStringLiteral("session_id"), sessionId},
                            {QStringLiteral("created_at"), createdAt.toUTC().toString(Qt::ISODateWithMs)},
                            {QStringLiteral("cwd"), cwd},
                        }};
}

SessionEvent SessionEvent::userMessage(const QString &content)
{
    return SessionEvent{0, Kind::UserMessage, QJsonObject{{QStringLiteral("content"), content}}};
}

SessionEvent SessionEvent::assistantTurn(const QJsonArray &transcript, const QString &message,
                                         const std::optional<TurnMemory> &turnMemory, bool interrupted,
                                         const QString &error)
{
    QJsonObject payload;
    if (!transcript.isEmpty())
        payload.insert(QStringLiteral("transcript"), transcript);
    if (!message.isEmpty())
        payload.insert(QStringLiteral("message"), message);
    if (turnMemory && !turnMemory->isEmpty())
        payload.insert(QStringLiteral("turn_memory"), turnMemory->toJson());
    if (interrupted)
        payload.insert(QStringLiteral("interrupted"), true);
    if (!error.isEmpty())
        payload.insert(QStringLiteral("error"), error);
    return SessionEvent{0, Kind::AssistantTurn, payload};
}

SessionEvent SessionEvent::compactionApplied(const QString &status, const QJsonArray &transcript,
                                             const MessageList &messages)
{
    QJsonObject payload{
        {QStringLiteral("status"), status},
        {QStringLiteral("messages"), messagesToJson(messages)},
    };
    if (!transcript.isEmpty())
        payload.insert(QStringLiteral("transcript"), transcript);
    return SessionEvent{0, Kind::CompactionApplied, payload};
}

QString SessionEvent::content() const
{
    return payload.value(QStringLiteral("content")).toString();
}

QString SessionEvent::assistantMessage() const
{
    return payload.value(QStringLiteral("message")).toString();
}

QJsonArray SessionEvent::transcript() const
{
    return payload.value(QStringLiteral("transcript")).toArray();
}

bool SessionEvent::interrupted() const
{
    return payload.value(QStringLiteral("interrupted")).toBool();
}

QString SessionEvent::error() const
{
    return payload.value(QStringLiteral("error")).toString();
}

QString SessionEvent::status() const
{
    return payload.value(QStringLiteral("status")).toString();
}

MessageList SessionEvent::messages() const
{
    return messagesFromJson(payload.value(QStringLiteral("messages")).toArray());
}

std::optional<TurnMemory> SessionEvent::turnMemory() const
{
    const QJsonValue memory = payload.value(QStringLiteral("turn_memory"));
    if (!memory.isObject())
        return std::nullopt;
    return TurnMemory::fromJson(memory.toObject());
}

} // namespace keen
