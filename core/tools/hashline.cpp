#include "tools/hashline.h"

#include <QRegularExpression>

namespace keen {

quint32 Hashline::fnv1a32(QByteArrayView bytes)
{
    quint32 hash = 2166136261u;
    for (const char c : bytes) {
        hash ^= quint8(c);
        hash *= 16777619u;
    }
    return hash;
}

QString Hashline::hash(QByteArrayView rawLine)
{
    return QStringLiteral("%1").arg(fnv1a32(rawLine), 8, 16, QLatin1Char('0')).left(3);
}

QList<QByteArray> Hashline::splitLines(const QByteArray &content)
{
    QList<QByteArray> lines;
    if (content.isEmpty())
        return lines;
    qsizetype start = 0;
    while (start < content.size()) {
        qsizetype end = content.indexOf('\n', start);
        if (end < 0)
            end = content.size();
        QByteArray line = content.mid(start, end - start);
        if (line.endsWith('\r'))
            line.chop(1);
        lines.append(line);
        start = end + 1;
    }
    return lines;
}

Hashline::Anchor Hashline::parseAnchor(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d+):([0-9a-fA-F]{3})\\s*$"));
    const auto match = pattern.match(text);
    if (!match.hasMatch())
        return {};
    return {match.captured(1).toInt(), match.captured(2).toLower()};
}

} // namespace keen
