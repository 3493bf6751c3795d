#pragma once

#include <QStringView>
#include <QtGlobal>

namespace keen {

// Local size estimates and the automatic-compaction threshold (seed "Context budget", reference 3.1-3.2).
// No tokenizer and no provider call: ceil(bytes / 3).
namespace ContextBudget {

constexpr qint64 DefaultContextWindow = 200000;

// 0 for nothing, else max(1, ceil(bytes / 3)). Proves S1.
qint64 estimateTokens(qint64 bytes);
// The UTF-8 size of text without converting it (a history of a megabyte is measured often): a surrogate
// pair counts 4, a lone surrogate 2 instead of the 3 of its replacement character.
qint64 utf8Bytes(QStringView text);
// window - max(4096, 5% of window), at least 1. Proves S2.
qint64 inputBudget(qint64 contextWindow);
// estimate >= budget - budget / 10 (integer division): 95,000 triggers at 85,500, not at 85,499. Proves S3.
// A session's policy may move it (issue 16): budget - budget * (100 - percent) / 100, the seed's at 90.
qint64 autoCompactionThreshold(qint64 inputBudget, int percent = 90);
bool shouldAutoCompact(qint64 estimatedTokens, qint64 inputBudget, int percent = 90);

} // namespace ContextBudget
} // namespace keen
