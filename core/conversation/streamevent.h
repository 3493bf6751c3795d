#pragma once

#include "base/cancellationtoken.h"
#include "conversation/compactionstrategy.h"
#include "conversation/droppeddetail.h"
#include "conversation/message.h"
#include "conversation/tokenusage.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QMetaType>
#include <QString>

#include <memory>
#include <optional>

namespace keen {

class CompactionCommit;

// The tool part of a tool_start / tool_end event.
struct ToolCallInfo
{
    QString callId; // the provider's call id, so a view can merge start and end
    QString name;
    QJsonObject input;
    QJsonValue output; // raw output (tool_end only)
    QString error;     // tool_end only; empty on success
    qint64 durationNs = 0;
    QString diff; // unified diff of a file change, when the tool made one
    // tool_output only: the last lines a running command has printed so far (at most a few KB, whole
    // lines, stdout and stderr as they arrived) and how many lines it printed before them.
    QString recentOutput;
    qint64 earlierLines = 0;
};

// The payload of the four auto_compaction_* events.
struct AutoCompactionInfo
{
    CancellationToken cancel; // started: cancels only the child compaction
    MessageList replacement;  // applied: system message(s) + the compacted user message
    std::optional<TokenUsage> usage;
    QString error;
    // applied (and compaction_sliced): how the compaction request(s) fit the input budget; the seed's single
    // request by default.
    CompactionStrategy strategy;
    // applied: what the summary left out of the compacted range (issue 16, DroppedDetails).
    QList<DroppedDetail> dropped;
    // applied: accept once the checkpoint and compaction are persisted, reject otherwise.
    std::shared_ptr<CompactionCommit> commit;
};

// One event of a provider stream (reference 1.1). Values only: safe to queue across threads.
struct StreamEvent
{
    enum class Type {
        Chunk,
        ReasoningChunk,
        Done,
        Error,
        ToolStart,
        ToolEnd,
        Usage,
        Retry,
        Incomplete,
        AutoCompactionStarted,
        AutoCompactionApplied,
        AutoCompactionCancelled,
        AutoCompactionFailed,
        // A call the loop refused before running it (unknown tool, invalid input, skipped after a stop).
        // Display only: the reference emits no tool_start/tool_end for it, so transcripts never record it.
        ToolRejected,
        // A manual compaction too large for one request (issue 16): the earlier parts were summarised
        // privately; autoCompaction carries the strategy and their usage. The last part streams as usual.
        CompactionSliced,
        // A line for the person beside the reply, not part of it (content): the reply stopped at the
        // model's output limit, so it may be cut short.
        Notice,
        // What a running command has printed so far (toolCall->recentOutput), a few times a second, for its
        // card. Display only, like tool_rejected: never recorded; tool_end carries the result.
        ToolOutput,
    };

    Type type = Type::Chunk;
    QString content;
    QString error;
    std::optional<ToolCallInfo> toolCall;
    std::optional<TokenUsage> usage;
    int attempt = 0;
    std::optional<AutoCompactionInfo> autoCompaction;
    int retryDelayMs = 0; // retry: how long the loop waits before the attempt

    static QString typeName(Type type);
    QString typeName() const { return typeName(type); }
    bool isTerminal() const { return type == Type::Done || type == Type::Error || type == Type::Incomplete; }

    static StreamEvent chunk(const QString &text)
    {
        return StreamEvent{Type::Chunk, text, {}, {}, {}, 0, {}};
    }
    static StreamEvent reasoning(const QString &text)
    {
        return StreamEvent{Type::ReasoningChunk, text, {}, {}, {}, 0, {}};
    }
    static StreamEvent done() { return StreamEvent{Type::Done, {}, {}, {}, {}, 0, {}}; }
    static StreamEvent failure(const QString &message)
    {
        return StreamEvent{Type::Error, {}, message, {}, {}, 0, {}};
    }
    static StreamEvent incomplete(const QString &message)
    {
        return StreamEvent{Type::Incomplete, {}, message, {}, {}, 0, {}};
    }
    static StreamEvent notice(const QString &text)
    {
        return StreamEvent{Type::Notice, text, {}, {}, {}, 0, {}};
    }
    static StreamEvent usageReport(const TokenUsage &usage)
    {
        return StreamEvent{Type::Usage, {}, {}, {}, usage, 0, {}};
    }
    static StreamEvent retry(int attempt, const QString &reason, int delayMs = 0)
    {
        return StreamEvent{Type::Retry, {}, reason, {}, {}, attempt, {}, delayMs};
    }
    static StreamEvent tool(Type type, const ToolCallInfo &info)
    {
        return StreamEvent{type, {}, info.error, info, {}, 0, {}};
    }
    static StreamEvent compaction(Type type, const AutoCompactionInfo &info)
    {
        return StreamEvent{type, {}, info.error, {}, info.usage, 0, info};
    }
};

} // namespace keen

Q_DECLARE_METATYPE(keen::StreamEvent)
