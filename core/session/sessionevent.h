#pragma once

#include "conversation/message.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace keen {

// One line of transcript_events.jsonl, in the reference agent's schema (reference 5.2):
// {"seq":N,"kind":K,"<kind>":{payload}}. The payload is kept as JSON so transcripts stay interchangeable.
struct SessionEvent
{
    enum class Kind { SessionStarted, UserMessage, AssistantTurn, CompactionApplied };

    quint64 seq = 0; // assigned by SessionStore when written
    Kind kind = Kind::UserMessage;
    QJsonObject payload;

    static QString kindName(Kind kind);
    static std::optional<Kind> kindFromName(const QString &name);

    QJsonObject toJson() const;
    // Returns nullopt for a line that is not a valid event (unknown kind, missing payload, bad seq).
    static std::optional<SessionEvent> fromJson(const QJsonObject &object);

    static SessionEvent sessionStarted(const QString &sessionId, const QDateTime &createdAt,
                                       const QString &cwd);
    static SessionEvent userMessage(const QString &content);
    // transcript: TranscriptItem objects
    // ({"kind":"text"|"reasoning"|"tool_start"|"tool_end"|"bash"|"diff",...}).
    static SessionEvent assistantTurn(const QJsonArray &transcript, const QString &message,
                                      const std::optional<TurnMemory> &turnMemory, bool interrupted,
                                      const QString &error);
    static SessionEvent compactionApplied(const QString &status, const QJsonArray &transcript,
                                          const MessageList &messages);

    // Convenience accessors for the payload fields.
    QString content() const;          // user_message.content
    QString assistantMessage() const; // assistant_turn.message
    QJsonArray transcript() const;    // assistant_turn / compaction_applied transcript
    bool interrupted() const;
    QString error() const;
    QString status() const;       // compaction_applied.status
    MessageList messages() const; // compaction_applied.messages
    std::optional<TurnMemory> turnMemory() const;
};

} // namespace keen
