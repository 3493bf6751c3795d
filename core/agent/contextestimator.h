#pragma once

#include "agent/contextbreakdown.h"
#include "conversation/message.h"
#include "conversation/tokenusage.h"

#include <optional>

namespace keen {

class ToolRegistry;

// The /context breakdown (reference 3.4): chars/3 estimates per category, scaled to the provider's last
// reported input tokens when there is one.
//
// An estimator object remembers each message's estimate, so /context on a long history measures only what
// changed since its last breakdown. It keeps a shallow copy of every message it measured: Qt's implicit
// sharing means no text is duplicated, and any edit of a history message detaches it from that copy, so a
// message still sharing its text and tool activity with the copy is unchanged. Compaction, undo, an opened
// session and edits therefore need no notification; what no longer matches is measured again.
class ContextEstimator
{
public:
    // From scratch, remembering nothing.
    static ContextBreakdown breakdown(const QString &systemPrompt, const ToolRegistry &tools,
                                      const MessageList &history, qint64 contextWindow,
                                      const std::optional<TokenUsage> &lastUsage);

    // The same numbers, measuring only the messages that changed since the last call.
    ContextBreakdown estimate(const QString &systemPrompt, const ToolRegistry &tools,
                              const MessageList &history, qint64 contextWindow,
                              const std::optional<TokenUsage> &lastUsage);

    // How many messages this object has measured (serialised) so far: what the incremental work is.
    qint64 measuredMessages() const { return m_measured; }

private:
    struct Entry
    {
        Message message; // shares its data with the history's message while that is unchanged
        qint64 systemTokens = 0;
        qint64 userTokens = 0;
        qint64 assistantTokens = 0;
        qint64 toolResultTokens = 0;
    };

    static bool unchanged(const Message &current, const Message &measured);
    static Entry measure(const Message &message);

    QList<Entry> m_entries; // m_entries[i] is history[i] as last measured
    qint64 m_measured = 0;
};

} // namespace keen
