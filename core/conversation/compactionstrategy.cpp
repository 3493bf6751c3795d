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
        parts.append(tr("summarised in %1 parts").arg(slices));
    if (cutOutputs > 0) {
        const QString characters = QLocale().toString(cutCharacters);
        if (cutMessages <= 0)
            parts.append(cutOutputs == 1
                             ? tr("1 long output cut by %1 characters").arg(characters)
                             : tr("%1 long outputs cut by %2 characters").arg(cutOutputs).arg(characters));
        else if (cutMessages >= cutOutputs)
            parts.append(cutOutputs == 1
                             ? tr("1 long message cut by %1 characters").arg(characters)
                             : tr("%1 long messages cut by %2 characters").arg(cutOutputs).arg(characters));
        else
            parts.append(
                tr("%1 long messages and outputs cut by %2 characters").arg(cutOutputs).arg(characters));
    }
    if (droppedOutputs > 0) {
        const QString characters = QLocale().toString(droppedCharacters);
        QString left =
            droppedOutputs == 1
                ? tr("1 oldest tool output left out (%1 characters)").arg(characters)
                : tr("%1 oldest tool outputs left out (%2 characters)").arg(droppedOutputs).arg(characters);
        // Named, so the person knows what the summary never saw; a long list is shortened.
        constexpr int Named = 5;
        if (!dropped.isEmpty()) {
            QStringList names = dropped.mid(0, Named);
            if (dropped.size() > Named)
                names.append(tr("%1 more").arg(dropped.size() - Named));
            left += QStringLiteral(": ") + names.join(QStringLiteral(", "));
        }
        parts.append(left);
    }
    if (parts.isEmpty())
        parts.append(tr("rebuilt as one request without the tool definitions"));
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
    if (cutMessages > 0)
        object.insert(QStringLiteral("cut_messages"), cutMessages);
    if (!dropped.isEmpty())
        object.insert(QStringLiteral("dropped"), QJsonArray::fromStringList(dropped));
    return object;
}

CompactionStrategy CompactionStrategy::fromJson(const QJsonObject &object)
{
    CompactionStrategy strategy;
    strategy.rebuilt = !object.isEmpty(); // written only for a rebuilt request
    strategy.slices = qMax(1, object.value(QStringLiteral("slices")).toInt(1));
    strategy.cutOutputs = object.value(QStringLiteral("cut_outputs")).toInt();
    strategy.cutMessages =
        qBound(0, object.value(QStringLiteral("cut_messages")).toInt(), strategy.cutOutputs);
    strategy.cutCharacters = object.value(QStringLiteral("cut_characters")).toInteger();
    strategy.droppedOutputs = object.value(QStringLiteral("dropped_outputs")).toInt();
    strategy.droppedCharacters = object.value(QStringLiteral("dropped_characters")).toInteger();
    const QJsonArray dropped = object.value(QStringLiteral("dropped")).toArray();
    for (const QJsonValue &name : dropped)
        strategy.dropped.append(name.toString());
    return strategy;
}

} // namespace keen
