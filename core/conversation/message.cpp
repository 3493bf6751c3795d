#include "conversation/message.h"

#include "base/jsonlist.h"

#include <QJsonArray>

namespace keen {

QJsonObject TurnMemory::toJson() const
{
    return QJsonObject{{QStringLiteral("tool_activity"), toJsonArray(toolActivity)}};
}

TurnMemory TurnMemory::fromJson(const QJsonObject &object)
{
    TurnMemory memory;
    memory.toolActivity =
        fromJsonArray<ToolActivity>(object.value(QStringLiteral("tool_activity")).toArray());
    return memory;
}

QString Message::roleName(Role role)
{
    switch (role) {
    case Role::System:
        return QStringLiteral("system");
    case Role::User:
        return QStringLiteral("user");
    case Role::Assistant:
        return QStringLiteral("assistant");
    }
    return QStringLiteral("user");
}

std::optional<Message::Role> Message::roleFromName(const QString &name)
{
    if (name == QLatin1String("system"))
        return Role::System;
    if (name == QLatin1String("user"))
        return Role::User;
    if (name == QLatin1String("assistant"))
        return Role::Assistant;
    return std::nullopt;
}

QJsonObject Message::toJson() const
{
    return QJsonObject{
        {QStringLiteral("Role"), roleName(role)},
        {QStringLiteral("Content"), content},
        {QStringLiteral("TurnMemory"),
         turnMemory ? QJsonValue(turnMemory->toJson()) : QJsonValue(QJsonValue::Null)},
    };
}

std::optional<Message> Message::fromJson(const QJsonObject &object)
{
    const auto role = roleFromName(object.value(QStringLiteral("Role")).toString());
    if (!role)
        return std::nullopt;
    Message message;
    message.role = *role;
    message.content = object.value(QStringLiteral("Content")).toString();
    const QJsonValue memory = object.value(QStringLiteral("TurnMemory"));
    if (memory.isObject())
        message.turnMemory = TurnMemory::fromJson(memory.toObject());
    return message;
}

QJsonArray messagesToJson(const MessageList &messages)
{
    QJsonArray array;
    for (const Message &message : messages)
        array.append(message.toJson());
    return array;
}

MessageList messagesFromJson(const QJsonArray &array)
{
    MessageList messages;
    for (const QJsonValue &value : array) {
        if (auto message = Message::fromJson(value.toObject()))
            messages.append(*message);
    }
    return messages;
}

MessageList withoutSystemMessages(const MessageList &messages)
{
    MessageList result;
    for (const Message &message : messages) {
        if (message.role != Message::Role::System)
            result.append(message);
    }
    return result;
}

qsizetype lastUserMessageIndex(const MessageList &messages)
{
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        if (messages.at(i).role == Message::Role::User)
            return i;
    }
    return -1;
}

} // namespace keen
