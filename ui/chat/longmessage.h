#pragma once

#include <QCoreApplication>
#include <QString>

namespace keen {

// A message of thousands of pasted lines, shown whole, pushes the conversation out of sight and costs
// seconds of layout on the GUI thread each time its session opens. Such a message is shown folded: its
// first lines and a line that shows all of it (ChatItem::collapsed; a click on that line toggles it). What
// is sent, saved, copied, pinned and searched is always the whole message.
class LongMessage
{
    Q_DECLARE_TR_FUNCTIONS(LongMessage)

public:
    static constexpr int FoldedLines = 20;
    static constexpr qsizetype FoldedChars = 4000;

    // More than a few lines beyond what folding keeps, or more than twice its characters. Reads at most
    // the start of the text.
    static bool isLong(const QString &text);
    // The first FoldedLines lines, at most FoldedChars characters (never between a surrogate pair).
    static QString head(const QString &text);
    // "▸ Show all 10,000 lines (7.6 MB)" when folded, "▾ Show less" when open. Counts the lines.
    static QString toggleText(const QString &text, bool folded);
    // Whether a line the row shows is its toggle line, without counting anything (asked on every move of
    // the pointer).
    static bool isToggleLine(const QString &line, bool folded);
};

} // namespace keen
