#include "chat/chatitem.h"

#include <QCoreApplication>

#include <algorithm>

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

namespace {

bool isAdded(const DiffLine &line)
{
    return line.kind == DiffLine::Kind::Added;
}

} // namespace

void ChatItem::setDiff(const QString &unified)
{
    qsizetype omitted = 0;
    const QList<DiffLine> head = DiffLine::parseUnified(unified, MaxDiffLines, &omitted);
    if (omitted == 0 || std::any_of(head.cbegin(), head.cend(), isAdded)) {
        clearDiff();
        diff = head;
        diffOmitted = omitted;
        return;
    }
    setDiff(DiffLine::parseUnified(unified)); // only for a change that removes more than a card shows
}

void ChatItem::setDiff(const QList<DiffLine> &lines)
{
    clearDiff();
    const auto firstAdded = std::find_if(lines.cbegin(), lines.cend(), isAdded);
    const qsizetype addedAt = firstAdded - lines.cbegin();
    if (lines.size() <= MaxDiffLines || addedAt < MaxDiffLines) {
        diff = lines.first(qMin<qsizetype>(lines.size(), MaxDiffLines));
        diffOmitted = lines.size() - diff.size();
        return;
    }
    const qsizetype half = MaxDiffLines / 2;
    diff = lines.first(half);
    if (firstAdded == lines.cend()) { // removals only
        diffOmitted = lines.size() - half;
        return;
    }
    diffGapAt = half;
    diffGap = addedAt - half;
    diff.append(lines.mid(addedAt, half));
    diffOmitted = lines.size() - addedAt - (diff.size() - half);
}

void ChatItem::clearDiff()
{
    diff.clear();
    diffOmitted = 0;
    diffGapAt = -1;
    diffGap = 0;
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
