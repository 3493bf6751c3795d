#include "loop/contextbudget.h"

#include <algorithm>

namespace keen::ContextBudget {

qint64 estimateTokens(qint64 bytes)
{
    if (bytes <= 0)
        return 0;
    return std::max<qint64>(1, (bytes + 2) / 3);
}

qint64 inputBudget(qint64 contextWindow)
{
    const qint64 margin = std::max<qint64>(4096, contextWindow / 20);
    return std::max<qint64>(1, contextWindow - margin);
}

qint64 autoCompactionThreshold(qint64 budget)
{
    return budget - budget / 10;
}

bool shouldAutoCompact(qint64 estimatedTokens, qint64 budget)
{
    if (budget <= 0)
        return estimatedTokens > 0;
    return estimatedTokens >= autoCompactionThreshold(budget);
}

} // namespace keen::ContextBudget
