#pragma once

#include "base/result.h"
#include "session/sessionevent.h"

#include <QList>
#include <QSet>

namespace keen {

// Undo of a compaction (issue 16): an appended compaction_reverted event names the compaction_applied it
// reverts, and the projection then goes on as if that compaction had never applied: the history from before
// it plus every turn after it. Nothing is rewritten; the reference agent ignores the kind.
namespace CompactionUndo {

// The seqs of the compaction_applied events that a later compaction_reverted names.
QSet<quint64> revertedSeqs(const QList<SessionEvent> &events);
// The compaction an undo would revert: appliedSeq when given, else the latest one in effect. Only the latest
// compaction in effect can be undone (an earlier one is already replaced by it); fails with the reason.
Result<quint64> target(const QList<SessionEvent> &events, quint64 appliedSeq = 0);
// The latest compaction_applied in effect (not reverted), or 0.
quint64 latestInEffect(const QList<SessionEvent> &events);

} // namespace CompactionUndo
} // namespace keen
