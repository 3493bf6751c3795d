#include "chat/chatitem.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace keen {

QString ChatItem::toolGlyph(ToolState state)
{
    switch (state) {
    case ToolState::Running:
        return QStringLiteral("●");
    case ToolState::Done:
        return QStringLiteral("✓");
    case ToolState::Failed:
        return QStringLiteral("✗");
    case ToolState::Interrupted:
        return QStringLiteral("■");
    }
    return {};
}

void ChatItem::setDiff(const QString &unified)
{
    diff = DiffLine::parseUnified(unified, MaxDiffLines, &diffOmitted);
}

void ChatItem::setDiff(const QList<DiffLine> &lines)
{
    diff = lines.size() > MaxDiffLines ? lines.first(MaxDiffLines) : lines;
    diffOmitted = lines.size() - diff.size();
}

QString ChatItem::plainText() const
{
    switch (kind) {
    case Kind::Tool: {
        QStringList parts{toolGlyph(toolState), label};
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
