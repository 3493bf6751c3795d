#include "conversation/compactionstrategy.h"

#include <QJsonArray>
#include <QLocale>
#include <QStringList>

namespace keen {

QString CompactionStrategy::describe() const
{
    if (isSingleRequest())
        return {};
    QStringList parts;
    if (slices > 1)
        parts.append(tr("summarised in %n part(s)", nullptr, slices));
    if (cutOutputs > 0)
        parts.append(tr("%n long output(s) cut by %1 characters", nullptr, cutOutputs)
                         .arg(QLocale().toString(cutCharacters)));
    if (droppedOutputs > 0) {
        QString left = tr("%n oldest tool output(s) left out (%1 characters)", nullptr, droppedOutputs)
                           .arg(QLocale().toString(droppedCharacters));
        // Named, so the person knows what the summary never saw; a long list is shortened.
        constexpr int Named = 5;
        if (!dropped.isEmpty()) {
            QStringList names = dropped.mid(0, Named);
            if (dropped.size() > Named)
                names.append(tr("%n more", nullptr, int(dropped.size() - Named)));
            left += QStringLiteral(": ") + names.join(QStringLiteral(", "));
        }
        parts.append(left);
    }
    return parts.join(QStringLiteral("; "));
}

QJsonObject CompactionStrategy::toJson() const
{
    if (isSingleRequest())
        return {};
    QJsonObject object{{QStringLiteral("slices"), slices},
                       {QStringLiteral("cut_outputs"), cutOutputs},
                       {QStringLiteral("cut_characters"), cutCharacters},
                       {QStringLiteral("dropped_outputs"), droppedOutputs},
                       {QStringLiteral("dropped_characters"), droppedCharacters}};
    if (!dropped.isEmpty())
        object.insert(QStringLiteral("dropped"), QJsonArray::fromStringList(dropped));
    return object;
}

CompactionStrategy CompactionStrategy::fromJson(const QJsonObject &object)
{
    CompactionStrategy strategy;
    strategy.slices = qMax(1, object.value(QStringLiteral("slices")).toInt(1));
    strategy.cutOutputs = object.value(QStringLiteral("cut_outputs")).toInt();
    strategy.cutCharacters = object.value(QStringLiteral("cut_characters")).toInteger();
    strategy.droppedOutputs = object.value(QStringLiteral("dropped_outputs")).toInt();
    strategy.droppedCharacters = object.value(QStringLiteral("dropped_characters")).toInteger();
    const QJsonArray dropped = object.value(QStringLiteral("dropped")).toArray();
    for (const QJsonValue &name : dropped)
        strategy.dropped.append(name.toString());
    return strategy;
}

} // namespace keen
