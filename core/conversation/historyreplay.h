#pragma once

#include "conversation/message.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace keen {

// One piece of an assistant message replayed to a provider: prose, or a tool call with its result.
struct ReplayStep
{
    enum class Kind { Text, ToolCall };
    Kind kind = Kind::Text;
    QString text;   // Text
    QString callId; // ToolCall: historical_<messageIndex>_<activityIndex>
    QString tool;
    QJsonObject input; // the retained input, or {}
    QString result;    // JSON text of the result
    bool isError = false;
    QString reasoning; // ToolCall: the model's reasoning before it (ToolActivity::reasoning)
};

// Splits an assistant message at its tool activities' text offsets (reference 1.1, history.MessageSteps).
// Activities with a negative or decreasing offset, an offset past the end or not on a UTF-8 boundary, or
// no tool name are skipped.
QList<ReplayStep> replaySteps(const Message &message, int messageIndex);

// The result a replayed call carries: retained output, else the transient raw output, else
// {"status":...,"exit_code":N}.
QString replayResult(const ToolActivity &activity);

// Compact JSON with no HTML escaping and no trailing newline (the reference's SerializeJSON).
QString serializeJson(const QJsonValue &value);

} // namespace keen
