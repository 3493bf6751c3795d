#include "session/diffline.h"

#include <QRegularExpression>

namespace keen {

namespace {
const QString kKind = QStringLiteral("Kind");
const QString kOldLine = QStringLiteral("OldLineNum");
const QString kNewLine = QStringLiteral("NewLineNum");
const QString kContent = QStringLiteral("Content");
} // namespace

QList<DiffLine> DiffLine::parseUnified(const QString &diff, qsizetype maxLines, qsizetype *omitted)
{
    static const QRegularExpression hunk(QStringLiteral("^@@ -(\\d+)(?:,\\d+)? \\+(\\d+)(?:,\\d+)? @@"));
    QList<DiffLine> lines;
    qsizetype left = 0; // lines past maxLines: counted, not copied
    auto add = [&](Kind kind, int oldLine, int newLine, QStringView content) {
        if (maxLines >= 0 && lines.size() >= maxLines)
            ++left;
        else
            lines.append(DiffLine{kind, oldLine, newLine, content.toString()});
    };
    int oldLine = 0;
    int newLine = 0;
    bool inHunk = false;
    for (qsizetype start = 0; start <= diff.size();) {
        qsizetype end = diff.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = diff.size();
        const QStringView line = QStringView(diff).sliced(start, end - start);
        const bool last = end == diff.size();
        start = end + 1;
        if (line.isEmpty() && last)
            break;
        if (line.startsWith(QLatin1String("@@"))) {
            const auto match = hunk.match(line);
            if (match.hasMatch()) {
                oldLine = match.capturedView(1).toInt();
                newLine = match.capturedView(2).toInt();
                inHunk = true;
                add(Kind::Hunk, 0, 0, line);
            }
            continue;
        }
        if (!inHunk)
            continue; // ---/+++ and other headers
        if (line.startsWith(QLatin1Char('+')))
            add(Kind::Added, 0, newLine++, line.sliced(1));
        else if (line.startsWith(QLatin1Char('-')))
            add(Kind::Removed, oldLine++, 0, line.sliced(1));
        else if (line.startsWith(QLatin1Char('\\')))
            continue; // "\ No newline at end of file"
        else
            add(Kind::Context, oldLine++, newLine++, line.isEmpty() ? line : line.sliced(1));
    }
    if (omitted)
        *omitted = left;
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
