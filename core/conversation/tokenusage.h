#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QMetaType>

namespace keen {

// Token counts reported by a provider for one request.
struct TokenUsage
{
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 totalTokens = 0;
    qint64 reasoningTokens = 0;
    qint64 cachedTokens = 0;
    qint64 cacheReadTokens = 0;
    qint64 cacheWriteTokens = 0;

    bool operator==(const TokenUsage &) const = default;
    // Adds another request's counts (saturating, see add), for totals over several requests.
    TokenUsage &operator+=(const TokenUsage &other);
    QJsonObject toJson() const;

    // Counts come from a provider's JSON and are untrusted (issue 14: 2^63 made the sums overflow). A count
    // is a number in [0, MaxCount]: larger ones are clamped, negative or non-numeric ones are 0, and sums
    // saturate, so no reply can overflow a total.
    static constexpr qint64 MaxCount = qint64(1) << 53;
    static qint64 count(const QJsonValue &value);
    static qint64 add(qint64 a, qint64 b);
};

} // namespace keen

Q_DECLARE_METATYPE(keen::TokenUsage)
