#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace keen {

// One tool call of an assistant turn, kept so later requests can replay it as a native call/result pair
// (reference 1.1 and 5.5). rawOutput is transient: it lives only in the active loop's compaction history
// and is never persisted.
struct ToolActivity
{
    int textOffset = 0; // byte offset into the assistant text (UTF-8) where the call happened
    QString tool;
    QJsonValue input; // undefined when not retained
    QString status;   // "success" or "error"
    std::optional<int> exitCode;
    QJsonValue retainedOutput; // undefined when not retained
    bool hasRawOutput = false;
    QJsonValue rawOutput;
    // The model's reasoning just before this call, on the first call after it: thinking models of the Chat
    // Completions API (DeepSeek's) refuse a history whose tool-call turns lack it. Kept as "reasoning".
    QString reasoning;

    bool operator==(const ToolActivity &) const = default;

    QJsonObject toJson() const;
    static ToolActivity fromJson(const QJsonObject &object);
};

} // namespace keen
