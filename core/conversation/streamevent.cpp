#include "conversation/streamevent.h"

namespace keen {

QString StreamEvent::typeName(Type type)
{
    switch (type) {
    case Type::Chunk:
        return QStringLiteral("chunk");
    case Type::ReasoningChunk:
        return QStringLiteral("reasoning_chunk");
    case Type::Done:
        return QStringLiteral("done");
    case Type::Error:
        return QStringLiteral("error");
    case Type::ToolStart:
        return QStringLiteral("tool_start");
    case Type::ToolEnd:
        return QStringLiteral("tool_end");
    case Type::Usage:
        return QStringLiteral("usage");
    case Type::Retry:
        return QStringLiteral("retry");
    case Type::Incomplete:
        return QStringLiteral("incomplete");
    case Type::AutoCompactionStarted:
        return QStringLiteral("auto_compaction_started");
    case Type::AutoCompactionApplied:
        return QStringLiteral("auto_compaction_applied");
    case Type::AutoCompactionCancelled:
        return QStringLiteral("auto_compaction_cancelled");
    case Type::AutoCompactionFailed:
        return QStringLiteral("auto_compaction_failed");
    case Type::ToolRejected:
        return QStringLiteral("tool_rejected");
    case Type::ToolOutput:
        return QStringLiteral("tool_output");
    case Type::CompactionSliced:
        return QStringLiteral("compaction_sliced");
    case Type::Notice:
        return QStringLiteral("notice");
    }
    return {};
}

} // namespace keen
