#include "conversation/tokenusage.h"

namespace keen {

QJsonObject TokenUsage::toJson() const
{
    return QJsonObject{
        {QStringLiteral("input_tokens"), inputTokens},
        {QStringLiteral("output_tokens"), outputTokens},
        {QStringLiteral("reasoning_tokens"), reasoningTokens},
        {QStringLiteral("total_tokens"), totalTokens},
        {QStringLiteral("cached_tokens"), cachedTokens},
    };
}

} // namespace keen
