#pragma once

#include "conversation/tokenusage.h"

#include <QJsonObject>

namespace keen {

// The session's token totals as of one event (docs/SESSION_FORMAT.md, session_usage), so a session opened
// again shows what it has cost: the turns' requests, and apart from them the compactions' and subagents'.
// Only the input and output counts are written.
struct SessionUsage
{
    TokenUsage turns;
    TokenUsage compaction;
    TokenUsage subagents;

    bool operator==(const SessionUsage &) const = default;

    // {"input_tokens", "output_tokens", "compaction": {...}?, "subagents": {...}?}: the last two only when
    // they are not zero.
    QJsonObject toJson() const;
    // Counts are untrusted (a hand-edited transcript): clamped as a provider's are (TokenUsage::count).
    static SessionUsage fromJson(const QJsonObject &object);
};

} // namespace keen
