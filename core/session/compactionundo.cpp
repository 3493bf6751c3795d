#include "session/compactionundo.h"

#include <QCoreApplication>

namespace keen::CompactionUndo {

QSet<quint64> revertedSeqs(const QList<SessionEvent> &events)
{
    QSet<quint64> applied;
    QSet<quint64> reverted;
    for (const SessionEvent &event : events) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            applied.insert(event.seq);
        else if (const SessionEvent::Revert *revert = event.revert();
                 revert && applied.contains(revert->revertsSeq))
            reverted.insert(revert->revertsSeq); // only a compaction written before it
    }
    return reverted;
}

quint64 latestInEffect(const QList<SessionEvent> &events)
{
    const QSet<quint64> reverted = revertedSeqs(events);
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (it->kind == SessionEvent::Kind::CompactionApplied && !reverted.contains(it->seq))
            return it->seq;
    }
    return 0;
}

Result<quint64> target(const QList<SessionEvent> &events, quint64 appliedSeq)
{
    const quint64 latest = latestInEffect(events);
    if (appliedSeq == 0) {
        if (latest == 0)
            return Result<quint64>::failure(QCoreApplication::translate(
                "CompactionUndo", "This conversation has no compaction to undo."));
        return latest;
    }
    bool exists = false;
    for (const SessionEvent &event : events)
        exists = exists || (event.kind == SessionEvent::Kind::CompactionApplied && event.seq == appliedSeq);
    if (!exists)
        return Result<quint64>::failure(
            QCoreApplication::translate("CompactionUndo", "There is no compaction %1 in this conversation.")
                .arg(appliedSeq));
    if (revertedSeqs(events).contains(appliedSeq))
        return Result<quint64>::failure(
            QCoreApplication::translate("CompactionUndo", "That compaction is already undone."));
    if (appliedSeq != latest)
        return Result<quint64>::failure(QCoreApplication::translate(
            "CompactionUndo", "A later compaction replaced this one; undo the later compaction first."));
    return appliedSeq;
}

} // namespace keen::CompactionUndo
