#pragma once

#include <QString>

namespace keen {

// Helpers for the Markdown tables the slash commands show (/skills, /subagents, /usage).
class MarkdownTable
{
public:
    // Text that stays in its cell: a '|' would end it.
    static QString cell(QString text);
    // The first count words of text on one line, with "…" when there were more.
    static QString firstWords(const QString &text, int count);
};

} // namespace keen
