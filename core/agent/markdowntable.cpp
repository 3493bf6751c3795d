#include "agent/markdowntable.h"

#include <QStringList>

namespace keen {

QString MarkdownTable::cell(QString text)
{
    return text.replace(QLatin1Char('|'), QStringLiteral("\\|"));
}

QString MarkdownTable::firstWords(const QString &text, int count)
{
    const QStringList words = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.size() <= count)
        return words.join(QLatin1Char(' '));
    return words.mid(0, count).join(QLatin1Char(' ')) + QStringLiteral(" …");
}

} // namespace keen
