#pragma once

#include "conversation/compactionpolicy.h"

#include <QString>

namespace keen {

// Number formats of the status bar (reference 3.3).
class TokenFormat
{
public:
    // Below 1000 as-is, then "1.2k", then "3.4M".
    static QString compact(qint64 tokens);
    // Two decimals with trailing zeros trimmed: "12.5%".
    static QString percent(double value);
    // "12s", "3m 04s", "1h 02m".
    static QString elapsed(qint64 milliseconds);
    // input budget = window - max(4096, 5% of window); the automatic threshold is 90% of it (S2, S3).
    static qint64 inputBudget(qint64 contextWindow);
    // A session's policy moves the threshold (issue 16); by default it is the seed's.
    static qint64 autoCompactionThreshold(qint64 contextWindow,
                                          const CompactionPolicy &policy = CompactionPolicy());
};

} // namespace keen
