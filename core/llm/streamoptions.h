#pragma once

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
    // Every tool call is refused at execution with a tool error (compaction requests).
    bool disableToolCalls = false;
    // write_file and edit_file are refused at execution (plan mode); definitions stay the same.
    bool disableWriteToolCalls = false;
};

} // namespace keen

Q_DECLARE_METATYPE(keen::StreamOptions)
