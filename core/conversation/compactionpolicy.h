#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <optional>

namespace keen {

// When automatic compaction fires and how much detail a summary keeps, per session (issue 16, "Policy per
// session"). The defaults are the seed's: automatic at 90% of the input budget (S3), the seed prompt alone.
struct CompactionPolicy
{
    Q_DECLARE_TR_FUNCTIONS(CompactionPolicy)

public:
    enum class Detail { Brief, Normal, Detailed };

    static constexpr int DefaultThresholdPercent = 90;
    static constexpr int MinThresholdPercent = 50;
    static constexpr int MaxThresholdPercent = 95;

    bool automatic = true;
    // Kept while automatic is off, so turning it on again restores the person's choice.
    int thresholdPercent = DefaultThresholdPercent;
    Detail detail = Detail::Normal;

    bool operator==(const CompactionPolicy &) const = default;
    bool isDefault() const { return *this == CompactionPolicy(); }

    // budget - budget * (100 - percent) / 100 in integers: at 90% exactly the seed's budget - budget / 10.
    qint64 thresholdTokens(qint64 inputBudget) const;

    static QString detailName(Detail detail); // "brief", "normal", "detailed"
    static std::optional<Detail> detailFromName(const QString &name);
    // "70" or "off" (headless --compact-threshold); fails outside 50..95 with the reason.
    static Result<CompactionPolicy> withThreshold(CompactionPolicy policy, const QString &text);
    // For the chat and stderr: "automatic compaction at 70%, brief summaries".
    QString describe() const;

    // {"automatic":bool,"threshold_percent":N,"detail":"normal"}; out-of-range or unknown values read as the
    // defaults.
    QJsonObject toJson() const;
    static CompactionPolicy fromJson(const QJsonObject &object);
};

} // namespace keen

Q_DECLARE_METATYPE(keen::CompactionPolicy)
