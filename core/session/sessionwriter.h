#pragma once

#include "base/result.h"
#include "session/sessionevent.h"
#include "session/sessionstore.h"

#include <QFuture>
#include <QList>
#include <QThread>

#include <memory>

namespace keen {

// Writes one session's transcript on a thread of its own, in the order the writes were asked for (issue 11:
// no disk work on the GUI thread). A write of one event is an append, of several the atomic batch; each keeps
// the store's flush and fsync. The future carries the seqs or the error; continue it with a context object,
// or wait for it where the caller needs the write done first. Waiting never runs the write on the waiting
// thread. The destructor finishes every queued write. A writer of a planned session (SessionStore::plan)
// creates its files first, on its thread; when that fails, every write after it fails with the same error.
// Appends that queue up while the disk is busy are written together under one fsync (group commit), a new
// session's first ones with its session_started; each future still resolves once its own event is on disk.
// The writer holds the transcript's lock file (<transcript>.lock) while it lives, so two processes never
// append to one session at once; the second one's writes fail with a message naming the first.
//
// Handing over without waiting (the GUI thread never blocks on the disk): retire() the old writer, which then
// finishes its queued writes and lets go of its lock on its own thread, and give the new one its end
// (`after`). The new writer's thread waits for it before its first job, so the old writer's events are on
// disk (fsynced) before any of the new one's, and its lock is free before the new one takes it: the same
// session opened again is never "in use". Keep the retired object until its end (or destroy it: that waits).
class SessionWriter final
{
public:
    enum class Start { Existing, Create };
    // after: the end of retired writers (retire()) that this one's jobs must come after; empty: none.
    SessionWriter(std::shared_ptr<SessionStore> store, const Session &session, Start start = Start::Existing,
                  QFuture<void> after = {});
    // Finishes every queued write (waits for them on the calling thread unless retire()d and ended).
    ~SessionWriter();
    SessionWriter(const SessionWriter &) = delete;
    SessionWriter &operator=(const SessionWriter &) = delete;

    QFuture<Result<QList<quint64>>> write(const QList<SessionEvent> &events);
    // Takes no more writes and returns at once. The thread writes what is queued, lets go of the lock and
    // ends; the future finishes then, after `after`'s end (so it stands for every writer before this one).
    QFuture<void> retire();
    // The lock file a writer holds beside the transcript while the session is open.
    static QString lockPath(const QString &transcriptPath)
    {
        return transcriptPath + QStringLiteral(".lock");
    }
    // Start::Create: resolves with session_started's seq once the session exists on disk, or the error.
    QFuture<Result<QList<quint64>>> created() const { return m_created; }
    // Start::Existing: resolves (no seqs) once this writer holds the transcript's lock, or with the error
    // that every write then fails with (another process is writing the session).
    QFuture<Result<QList<quint64>>> locked() const { return m_locked; }
    // The thread the writes run on (tests).
    QThread *thread() const { return m_thread.get(); }

private:
    struct Job;
    struct State;
    QFuture<Result<QList<quint64>>> enqueue(Job job);
    std::shared_ptr<State> m_state;
    std::unique_ptr<QThread> m_thread;
    QFuture<Result<QList<quint64>>> m_created;
    QFuture<Result<QList<quint64>>> m_locked;
    QFuture<void> m_ended;
};

} // namespace keen
