#include "chat/chatitem.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>

namespace keen {

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

DiffLine DiffLine::fromJson(const QJsonObject &object)
{
    DiffLine line;
    const int kind = object.value(QStringLiteral("Kind")).toInt();
    line.kind = kind >= 0 && kind <= 3 ? Kind(kind) : Kind::Context;
    line.oldLine = object.value(QStringLiteral("OldLineNum")).toInt();
    line.newLine = object.value(QStringLiteral("NewLineNum")).toInt();
    line.content = object.value(QStringLiteral("Content")).toString();
    return line;
}

QString ChatItem::plainText() const
{
    switch (kind) {
    case Kind::Tool: {
        const QString glyph = toolState == ToolState::Running ? QStringLiteral("●")
                              : toolState == ToolState::Done  ? QStringLiteral("✓")
                                                              : QStringLiteral("✗");
        QStringList parts{glyph, label};
        if (!detail.isEmpty())
            parts << detail;
        if (!metadata.isEmpty())
            parts << metadata;
        QString line = parts.join(QLatin1Char(' '));
        if (toolState == ToolState::Running)
            line += QStringLiteral("...");
        if (!toolError.isEmpty())
            line += QLatin1Char('\n') + toolError;
        if (!output.isEmpty())
            line += QLatin1Char('\n') + output;
        return line;
    }
    case Kind::Permission: {
        QString line = permission.command.isEmpty() ? permission.toolName + QLatin1Char(' ') + permission.path
                                                    : permission.command;
        if (settled)
            line += QStringLiteral(" (") + outcome + QLatin1Char(')');
        return line;
    }
    case Kind::Question:
        return settled ? text + QLatin1Char('\n') + outcome : text;
    default:
        return text;
    }
}

} // namespace keen
