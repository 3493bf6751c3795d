#pragma once

#include "session/answeredpermission.h"
#include "session/diffline.h"
#include "session/jsonfields.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

namespace keen {

// One entry of an assistant turn's (or a manual compaction's) transcript, for replay (reference 5.2):
// {kind:"text"|"reasoning"|"notice"|"tool_start"|"tool_end"|"bash"|"diff", content?, tool_start?:{name,
// input?,
//  permission?}, tool_end?:{name, input?, output?, error?, duration_ns?, permission?}, bash?:{command,
//  summary?, output?, error?, duration_ns?}, diff?:{lines:[EditDiffLine]}}. The only code that knows this
// JSON; an item of a kind this app does not know is kept whole and written back unchanged.
struct TranscriptItem
{
    // Notice: what the app told the person about the turn (the reply stopped at the output limit or by the
    // provider's filter, a memory file it could not read); shown again on replay, never sent to the model.
    enum class Kind { Text, Reasoning, Notice, ToolStart, ToolEnd, Bash, Diff, Unknown };

    Kind kind = Kind::Text;
    QString content;                          // text, reasoning, notice
    QString name;                             // tool_start, tool_end
    QJsonValue input{QJsonValue::Undefined};  // tool_start, tool_end; undefined when absent
    QJsonValue output{QJsonValue::Undefined}; // tool_end (any JSON), bash (a string); undefined when absent
    QString error;                            // tool_end, bash
    std::optional<qint64> durationNs;         // tool_end, bash
    QString command;                          // bash
    QString summary;                          // bash
    QList<DiffLine> diff;                     // diff
    // tool_end: what the person was asked before it ran; tool_start: a question still open when the turn
    // was stopped (the call has no tool_end)
    std::optional<AnsweredPermission> permission;
    JsonFields extras;        // beside kind, content and the payload; for an unknown kind, the whole item
    JsonFields payloadExtras; // inside tool_start, tool_end, bash or diff

    bool operator==(const TranscriptItem &) const = default;

    static TranscriptItem text(const QString &text);
    static TranscriptItem reasoning(const QString &text);
    static TranscriptItem notice(const QString &text);
    static TranscriptItem toolStart(const QString &name, const QJsonValue &input);
    static TranscriptItem toolEnd(const QString &name, const QJsonValue &input, const QJsonValue &output,
                                  const QString &error, qint64 durationNs);
    static TranscriptItem diffOf(const QList<DiffLine> &lines);

    bool isText() const { return kind == Kind::Text; }
    // The bash output (a string in the reference schema).
    QString bashOutput() const { return output.toString(); }

    QJsonObject toJson() const;
    static TranscriptItem fromJson(const QJsonObject &object);
};

} // namespace keen
