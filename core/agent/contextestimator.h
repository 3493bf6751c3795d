#pragma once

#include "agent/contextbreakdown.h"
#include "conversation/message.h"
#include "conversation/tokenusage.h"

#include <optional>

namespace keen {

class ToolRegistry;

// The /context breakdown (reference 3.4): chars/3 estimates per category, scaled to the provider's last
// reported input tokens when there is one.
class ContextEstimator
{
public:
    static ContextBreakdown breakdown(const QString &systemPrompt, const ToolRegistry &tools,
                                      const MessageList &history, qint64 contextWindow,
                                      const std::optional<TokenUsage> &lastUsage);
};

} // namespace keen
