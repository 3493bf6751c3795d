#pragma once

#include "conversation/message.h"

#include <QString>

namespace keen {

// What one message of the history is, for a list that shows it to the person (the compaction review's
// "Replaces N messages"): the replacement and the pin block compaction wrote are user messages whose
// tags mean nothing to a reader, so they are named for what they are.
struct HistoryMessage
{
    enum class Kind {
        Ordinary,
        CompactedContext, // an automatic compaction's replacement; text is the person's words it kept
        PinnedContext,    // the pinned items added to the history; pins is how many
    };

    Kind kind = Kind::Ordinary;
    QString text; // what to show of the message
    qsizetype pins = 0;

    static HistoryMessage of(const Message &message);
};

} // namespace keen
