#pragma once

#include "conversation/compactionpolicy.h"

#include <QMetaType>
#include <QString>

namespace keen {

// Per-call switches for LlmClient::streamChat (reference 1.1).
struct StreamOptions
{
    QString sessionId;
    // No pending-state injection or saving, and no automatic compaction.
    bool oneShot = false;
    bool disableAutoCompaction = false;
    // Every tool call is refused at execution with a tool error (compaction requests); the model gets a few
    // rounds of refusals, then the request fails (ToolLoopClient::MaxCompactionToolRounds).
    bool disableToolCalls = false;
    // Pending state is replayed but left in place, and none is saved: a manual compaction that does not
    // apply leaves the provider-side state exactly as it was (S30).
    bool keepPendingState = false;
    // write_file and edit_file are refused at execution (plan mode); definitions stay the same.
    bool disableWriteToolCalls = false;
    // An applied automatic compaction waits for AutoCompactionInfo::commit before the loop switches to the
    // replacement (the app persists first). Off for callers that do not persist.
    bool awaitCompactionCommit = false;
    // A manual compaction request (history + prompt as the last user message): when it would not fit the
    // input budget, the loop summarises it in parts that each fit (issue 16, CompactionSlicer).
    bool manualCompaction = false;
    // The session's threshold and summary detail (issue 16); the defaults are the seed's. With automatic
    // compaction off, a request over the input budget is not sent: the turn stops with a message instead.
    CompactionPolicy compactionPolicy;
    // The pinned items (CompactionPrompts::pinnedContext) an automatic compaction puts after its summary
    // (issue 16, "Pins"). Empty: the seed's replacement, byte for byte.
    QString pinnedContext;
};

} // namespace keen

Q_DECLARE_METATYPE(keen::StreamOptions)
