#include "conversation/tokenusage.h"

#include <algorithm>

#include <cmath>

namespace keen {

qint64 TokenUsage::count(const QJsonValue &value)
{
    if (!value.isDouble())
        return 0;
    // Range-checked before any conversion: casting a double outside qint64 is undefined.
    const double number = value.toDouble();
    if (!std::isfinite(number) || number <= 0)
        return 0;
    if (number >= double(MaxCount))
        return MaxCount;
    // Integers that fit qint64 exactly are kept exact (a double would round above 2^53).
    const qint64 integer = value.toInteger(-1);
    return integer >= 0 ? std::min(integer, MaxCount) : qint64(number);
}

qint64 TokenUsage::add(qint64 a, qint64 b)
{
    a = std::clamp<qint64>(a, 0, MaxCount);
    b = std::clamp<qint64>(b, 0, MaxCount);
    return std::min(a + b, MaxCount); // cannot overflow: both are at most 2^53
}

TokenUsage &TokenUsage::operator+=(const TokenUsage &other)
{
    // Saturating, like every other sum of provider counts.
    inputTokens = add(inputTokens, other.inputTokens);
    outputTokens = add(outputTokens, other.outputTokens);
    totalTokens = add(totalTokens, other.totalTokens);
    reasoningTokens = add(reasoningTokens, other.reasoningTokens);
    cachedTokens = add(cachedTokens, other.cachedTokens);
    cacheReadTokens = add(cacheReadTokens, other.cacheReadTokens);
    cacheWriteTokens = add(cacheWriteTokens, other.cacheWriteTokens);
    return *this;
}

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
