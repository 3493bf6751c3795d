#include "session/sessionusage.h"

namespace keen {

namespace {

QJsonObject sessionUsageCounts(const TokenUsage &usage)
{
    return {{QStringLiteral("input_tokens"), usage.inputTokens},
            {QStringLiteral("output_tokens"), usage.outputTokens}};
}

TokenUsage sessionUsageFrom(const QJsonObject &object)
{
    TokenUsage usage;
    usage.inputTokens = TokenUsage::count(object.value(QLatin1String("input_tokens")));
    usage.outputTokens = TokenUsage::count(object.value(QLatin1String("output_tokens")));
    return usage;
}

bool hasCounts(const TokenUsage &usage)
{
    return usage.inputTokens != 0 || usage.outputTokens != 0;
}

} // namespace

QJsonObject SessionUsage::toJson() const
{
    QJsonObject object = sessionUsageCounts(turns);
    if (hasCounts(compaction))
        object.insert(QStringLiteral("compaction"), sessionUsageCounts(compaction));
    if (hasCounts(subagents))
        object.insert(QStringLiteral("subagents"), sessionUsageCounts(subagents));
    return object;
}

SessionUsage SessionUsage::fromJson(const QJsonObject &object)
{
    SessionUsage usage;
    usage.turns = sessionUsageFrom(object);
    usage.compaction = sessionUsageFrom(object.value(QLatin1String("compaction")).toObject());
    usage.subagents = sessionUsageFrom(object.value(QLatin1String("subagents")).toObject());
    return usage;
}

} // namespace keen
