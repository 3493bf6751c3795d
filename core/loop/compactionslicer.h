#pragma once

#include "conversation/compactionstrategy.h"
#include "conversation/message.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace keen {

// A conversation too large for one compaction request, split into parts that each fit one (issue 16, "no
// dead end at 100%"). The conversation is rendered as text, oldest first; every part is summarised with the
// summary so far in front, so the last summary covers everything. A single message or tool output larger than
// a whole part is cut to its head and tail with a note of how much was cut; when the parts would be too many,
// the oldest tool outputs are left out first, each with a note. Sizes are JSON-escaped UTF-8 bytes, what
// ContextBudget estimates from.
class CompactionSlicer
{
    Q_DECLARE_TR_FUNCTIONS(CompactionSlicer)

public:
    // More parts than this and the oldest tool outputs are left out: each part is one more request.
    static constexpr int MaxParts = 8;
    // A part smaller than this cannot carry anything useful.
    static constexpr qint64 MinPartBytes = 600;

    // conversation: the history to summarise; system messages are skipped (they go into every request).
    explicit CompactionSlicer(const MessageList &conversation);

    // Leaves out the oldest tool outputs until the rest fills at most MaxParts parts of partBytes; an item
    // larger than a part counts as one part (it is cut to fit one).
    void leaveOutOldestOutputs(qint64 partBytes);
    bool atEnd() const { return m_next >= m_items.size(); }
    // The next part, at most maxBytes long; an item longer than a whole part is cut to fit.
    QString nextPart(qint64 maxBytes);
    const CompactionStrategy &strategy() const { return m_strategy; }

    // The user message of one part's request: the summary so far (when there is one), then the part.
    static QString partMessage(const QString &summarySoFar, const QString &part, int number, bool last);
    // The head and tail of text in at most maxBytes, with a note of how many characters were cut between.
    static QString cutToFit(const QString &text, qint64 maxBytes, qint64 *cutCharacters);
    // JSON-escaped UTF-8 size of text.
    static qint64 escapedBytes(const QString &text);

private:
    struct Item
    {
        QString text;
        bool toolOutput = false;
        QString label; // the tool, for the note when its output is left out
        qint64 bytes = 0;
    };

    QList<Item> m_items;
    qsizetype m_next = 0;
    CompactionStrategy m_strategy;
};

} // namespace keen
