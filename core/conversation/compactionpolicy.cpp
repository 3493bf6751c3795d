#include "conversation/compactionpolicy.h"

namespace keen {

namespace {

constexpr QLatin1StringView kAutomatic("automatic");
constexpr QLatin1StringView kThresholdPercent("threshold_percent");
constexpr QLatin1StringView kDetail("detail");

bool inRange(int percent)
{
    return percent >= CompactionPolicy::MinThresholdPercent &&
           percent <= CompactionPolicy::MaxThresholdPercent;
}

} // namespace

qint64 CompactionPolicy::thresholdTokens(qint64 inputBudget) const
{
    return inputBudget - inputBudget * (100 - thresholdPercent) / 100;
}

QString CompactionPolicy::detailName(Detail detail)
{
    switch (detail) {
    case Detail::Brief:
        return QStringLiteral("brief");
    case Detail::Normal:
        break;
    case Detail::Detailed:
        return QStringLiteral("detailed");
    }
    return QStringLiteral("normal");
}

std::optional<CompactionPolicy::Detail> CompactionPolicy::detailFromName(const QString &name)
{
    for (const Detail detail : {Detail::Brief, Detail::Normal, Detail::Detailed}) {
        if (name == detailName(detail))
            return detail;
    }
    return std::nullopt;
}

Result<CompactionPolicy> CompactionPolicy::withThreshold(CompactionPolicy policy, const QString &text)
{
    if (text == QLatin1String("off")) {
        policy.automatic = false;
        return policy;
    }
    QString digits = text;
    if (digits.endsWith(QLatin1Char('%')))
        digits.chop(1);
    bool ok = false;
    const int percent = digits.toInt(&ok);
    if (!ok || !inRange(percent))
        return Result<CompactionPolicy>::failure(
            tr("the compaction threshold must be off or a percentage from %1 to %2, not \"%3\"")
                .arg(MinThresholdPercent)
                .arg(MaxThresholdPercent)
                .arg(text));
    policy.automatic = true;
    policy.thresholdPercent = percent;
    return policy;
}

QString CompactionPolicy::describe() const
{
    const QString when = automatic
                             ? tr("automatic compaction at %1% of the input budget").arg(thresholdPercent)
                             : tr("automatic compaction off");
    switch (detail) {
    case Detail::Brief:
        return tr("%1, brief summaries").arg(when);
    case Detail::Normal:
        break;
    case Detail::Detailed:
        return tr("%1, detailed summaries").arg(when);
    }
    return tr("%1, normal summaries").arg(when);
}

QJsonObject CompactionPolicy::toJson() const
{
    return {{kAutomatic, automatic}, {kThresholdPercent, thresholdPercent}, {kDetail, detailName(detail)}};
}

CompactionPolicy CompactionPolicy::fromJson(const QJsonObject &object)
{
    CompactionPolicy policy;
    policy.automatic = object.value(kAutomatic).toBool(true);
    const int percent = object.value(kThresholdPercent).toInt(DefaultThresholdPercent);
    policy.thresholdPercent = inRange(percent) ? percent : DefaultThresholdPercent;
    policy.detail = detailFromName(object.value(kDetail).toString()).value_or(Detail::Normal);
    return policy;
}

} // namespace keen
