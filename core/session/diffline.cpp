#include "session/diffline.h"

#include <QRegularExpression>

namespace keen {

namespace {
const QString kKind = QStringLiteral("Kind");
const QString kOldLine = QStringLiteral("OldLineNum");
const QString kNewLine = QStringLiteral("NewLineNum");
const QString kContent = QStringLiteral("Content");
} // namespace

QList<DiffLine> DiffLine::parseUnified(const QString &diff)
{
    static const QRegularExpression hunk(QStringLiteral("^@@ -(\\d+)(?:,\\d+)? \\+(\\d+)(?:,\\d+)? @@"));
    QList<DiffLine> lines;
    int oldLine = 0;
    int newLine = 0;
    bool inHunk = false;
    const QStringList raw = diff.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const QString &line = raw.at(i);
        if (line.isEmpty() && i == raw.size() - 1)
            break;
        if (line.startsWith(QLatin1String("@@"))) {
            const auto match = hunk.match(line);
            if (match.hasMatch()) {
                oldLine = match.captured(1).toInt();
                newLine = match.captured(2).toInt();
                inHunk = true;
                lines.append(DiffLine{Kind::Hunk, 0, 0, line});
            }
            continue;
        }
        if (!inHunk)
            continue; // ---/+++ and other headers
        if (line.startsWith(QLatin1Char('+'))) {
            lines.append(DiffLine{Kind::Added, 0, newLine++, line.mid(1)});
        } else if (line.startsWith(QLatin1Char('-'))) {
            lines.append(DiffLine{Kind::Removed, oldLine++, 0, line.mid(1)});
        } else if (line.startsWith(QLatin1Char('\\'))) {
            continue; // "\ No newline at end of file"
        } else {
            lines.append(DiffLine{Kind::Context, oldLine++, newLine++, line.mid(1)});
        }
    }
    return lines;
}

QJsonObject DiffLine::toJson() const
{
    return QJsonObject{{kKind, int(kind)}, {kOldLine, oldLine}, {kNewLine, newLine}, {kContent, content}};
}

DiffLine DiffLine::fromJson(const QJsonObject &object)
{
    DiffLine line;
    const int kind = object.value(kKind).toInt();
    line.kind = kind >= 0 && kind <= 3 ? Kind(kind) : Kind::Context;
    line.oldLine = object.value(kOldLine).toInt();
    line.newLine = object.value(kNewLine).toInt();
    line.content = object.value(kContent).toString();
    return line;
}

} // namespace keen
