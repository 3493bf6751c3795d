#pragma once

#include "conversation/tokenusage.h"

#include <QString>

namespace keen {

// The /context table (reference 3.4).
struct ContextBreakdown
{
    qint64 systemPromptTokens = 0;
    int toolDefinitionCount = 0;
    qint64 toolDefinitionTokens = 0;
    qint64 userTokens = 0;
    qint64 assistantTokens = 0;
    qint64 toolResultTokens = 0;
    qint64 totalTokens = 0;
    qint64 contextWindow = 0;        // 0: unknown
    bool anchoredToProvider = false; // scaled to the provider's last reported input tokens
    // Not anchored, although the provider reported usage in this session: the history changed since (a
    // compaction, an undo) or the session was opened again.
    bool reportedEarlier = false;
    // What the session's compaction requests cost; not part of the context, shown apart.
    TokenUsage compactionUsage;

    qint64 freeTokens() const { return contextWindow > 0 ? qMax<qint64>(0, contextWindow - totalTokens) : 0; }
    double percentOfWindow(qint64 tokens) const
    {
        return contextWindow > 0 ? 100.0 * tokens / contextWindow : 0;
    }
    // Footnote saying where the numbers come from.
    QString note() const;
};

} // namespace keen
