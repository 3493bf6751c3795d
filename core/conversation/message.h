#pragma once

#include "conversation/toolactivity.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace keen {

// The tool activity of one assistant turn.
struct TurnMemory
{
    QList<ToolActivity> toolActivity;

    bool operator==(const TurnMemory &) const = default;
    bool isEmpty() const { return toolActivity.isEmpty(); }
    QJsonObject toJson() const;
    static TurnMemory fromJson(const QJsonObject &object);
};

// One provider-neutral conversation message. Each client maps these to its wire format at request time.
struct Message
{
    enum class Role { System, User, Assistant };

    Role role = Role::User;
    QString content;
    std::optional<TurnMemory> turnMemory;

    bool operator==(const Message &) const = default;

    static Message system(const QString &text) { return Message{Role::System, text, std::nullopt}; }
    static Message user(const QString &text) { return Message{Role::User, text, std::nullopt}; }
    static Message assistant(const QString &text, std::optional<TurnMemory> memory = std::nullopt)
    {
        return Message{Role::Assistant, text, std::move(memory)};
    }

    bool hasToolActivity() const { return turnMemory && !turnMemory->isEmpty(); }

    static QString roleName(Role role);
    static std::optional<Role> roleFromName(const QString &name);

    // The reference agent's JSON shape: {"Role","Content","TurnMemory":{"tool_activity":[...]}|null}.
    // Raw tool outputs are never written.
    QJsonObject toJson() const;
    static std::optional<Message> fromJson(const QJsonObject &object);
};

using MessageList = QList<Message>;

QJsonArray messagesToJson(const MessageList &messages);
MessageList messagesFromJson(const QJsonArray &array);
MessageList withoutSystemMessages(const MessageList &messages);
// Index of the last user message, or -1.
qsizetype lastUserMessageIndex(const MessageList &messages);

} // namespace keen

Q_DECLARE_METATYPE(keen::Message)
