#pragma once

#include <QJsonObject>
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
    QJsonObject toJson() const;
};

} // namespace keen

Q_DECLARE_METATYPE(keen::TokenUsage)
