#include "loop/contextbudget.h"

#include "conversation/compactionpolicy.h"

#include <algorithm>

namespace keen::ContextBudget {

qint64 estimateTokens(qint64 bytes)
{
    if (bytes <= 0)
        return 0;
    return std::max<qint64>(1, (bytes + 2) / 3);
}

qint64 utf8Bytes(QStringView text)
{
    // Branch-free so the compiler can vectorise it: 1 byte, +1 from U+0080, +1 from U+0800, and each half of
    // a surrogate pair 2 (the pair is 4).
    const char16_t *units = text.utf16();
    qint64 bytes = text.size();
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t unit = units[i];
        bytes += (unit >= 0x80) + (unit >= 0x800) - (unit >= 0xD800 && unit <= 0xDFFF);
    }
    return bytes;
}

qint64 inputBudget(qint64 contextWindow)
{
    const qint64 margin = std::max<qint64>(4096, contextWindow / 20);
    return std::max<qint64>(1, contextWindow - margin);
}

qint64 autoCompactionThreshold(qint64 budget, int percent)
{
    CompactionPolicy policy;
    policy.thresholdPercent = percent;
    return policy.thresholdTokens(budget);
}

bool shouldAutoCompact(qint64 estimatedTokens, qint64 budget, int percent)
{
    if (budget <= 0)
        return estimatedTokens > 0;
    return estimatedTokens >= autoCompactionThreshold(budget, percent);
}

} // namespace keen::ContextBudget
