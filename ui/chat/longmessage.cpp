#include "chat/longmessage.h"

#include <QLocale>

namespace keen {

bool LongMessage::isLong(const QString &text)
{
    if (text.size() > 2 * FoldedChars)
        return true;
    int lines = 1;
    for (qsizetype at = text.indexOf(QLatin1Char('\n')); at >= 0;
         at = text.indexOf(QLatin1Char('\n'), at + 1)) {
        if (++lines > FoldedLines + 5)
            return true;
    }
    return false;
}

QString LongMessage::head(const QString &text)
{
    qsizetype end = -1;
    for (int line = 0; line < FoldedLines; ++line) {
        end = text.indexOf(QLatin1Char('\n'), end + 1);
        if (end < 0 || end > FoldedChars)
            break;
    }
    if (end < 0 || end > FoldedChars) {
        end = qMin(text.size(), FoldedChars);
        if (end < text.size() && end > 0 && text.at(end - 1).isHighSurrogate())
            --end;
    }
    return text.left(end);
}

QString LongMessage::toggleText(const QString &text, bool folded)
{
    if (!folded)
        return tr("▾ Show less");
    const qsizetype lines = text.count(QLatin1Char('\n')) + (text.endsWith(QLatin1Char('\n')) ? 0 : 1);
    const QString size = QLocale().formattedDataSize(text.toUtf8().size(), 1, QLocale::DataSizeSIFormat);
    return lines > 1 ? tr("▸ Show all %1 lines (%2)").arg(QLocale().toString(lines), size)
                     : tr("▸ Show all of it (%1)").arg(size);
}

bool LongMessage::isToggleLine(const QString &line, bool folded)
{
    if (!folded)
        return line == tr("▾ Show less");
    const QString allLines = tr("▸ Show all %1 lines (%2)");
    const QString allOfIt = tr("▸ Show all of it (%1)");
    return line.startsWith(allLines.left(allLines.indexOf(QLatin1Char('%')))) ||
           line.startsWith(allOfIt.left(allOfIt.indexOf(QLatin1Char('%'))));
}

} // namespace keen
