#include "tokenformat.h"

#include <QCoreApplication>

namespace keen {

QString TokenFormat::compact(qint64 tokens)
{
    if (tokens < 1000)
        return QString::number(tokens);
    auto trimmed = [](double value, const char *suffix) -> QString {
        QString text = QString::number(value, 'f', 1);
        if (text.endsWith(QLatin1String(".0")))
            text.chop(2);
        return text + QLatin1String(suffix);
    };
    if (tokens < 1000000)
        return trimmed(tokens / 1000.0, "k");
    return trimmed(tokens / 1000000.0, "M");
}

QString TokenFormat::percent(double value)
{
    QString text = QString::number(value, 'f', 2);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.')))
            text.append(QLatin1Char('0'));
    }
    return text + QLatin1Char('%');
}

QString TokenFormat::elapsed(qint64 milliseconds)
{
    const qint64 seconds = milliseconds / 1000;
    if (seconds < 60)
        return QCoreApplication::translate("TokenFormat", "%1s").arg(seconds);
    if (seconds < 3600)
        return QCoreApplication::translate("TokenFormat", "%1m %2s")
            .arg(seconds / 60)
            .arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return QCoreApplication::translate("TokenFormat", "%1h %2m")
        .arg(seconds / 3600)
        .arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
}

qint64 TokenFormat::inputBudget(qint64 contextWindow)
{
    if (contextWindow <= 0)
        return 0;
    return contextWindow - qMax<qint64>(4096, contextWindow / 20);
}

qint64 TokenFormat::autoCompactionThreshold(qint64 contextWindow, const CompactionPolicy &policy)
{
    return policy.thresholdTokens(inputBudget(contextWindow));
}

} // namespace keen
