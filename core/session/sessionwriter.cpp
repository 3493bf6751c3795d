#include "session/sessionwriter.h"

#include <QCoreApplication>
#include <QLockFile>
#include <QMutex>
#include <QPromise>
#include <QWaitCondition>

#include <chrono>
#include <deque>
#include <vector>

namespace keen {

namespace {

using Written = Result<QList<quint64>>;

// A lock file with no process id in it this long after it was made is one whose maker died (QLockFile writes
// the id right after creating the file).
constexpr std::chrono::milliseconds kUnwrittenLockAge{500};

} // namespace

struct SessionWriter::Job
{
    bool create = false; // create the planned session's files (events empty)
    bool lock = false;   // take the transcript's lock (an existing session; events empty)
    QList<SessionEvent> events;
    std::shared_ptr<QPromise<Written>> promise;
};

struct SessionWriter::State
{
    std::shared_ptr<SessionStore> store;
    Session session;      // the writer thread's: nextSeq moves on there
    QFuture<void> after;  // the writers retired before this one: their end comes before this one's first job
    QPromise<void> ended; // finished on the writer thread once everything is written and the lock let go
    QMutex mutex;         // guards the two below
    QWaitCondition wake;
    std::deque<Job> queue;
    bool stopping = false; // retired or being destroyed: no more writes
    QString broken;        // the writer thread's: why the session could not be created or locked
    // Held while this writer lives: a second process (or window) appending to the same transcript would
    // interleave its events with ours and repeat seqs.
    std::unique_ptr<QLockFile> transcriptLock;

    // On the writer thread. Only a live process keeps it: the lock of one that crashed is taken over.
    QString takeLock()
    {
        auto lockFile = std::make_unique<QLockFile>(lockPath(session.transcriptPath));
        lockFile->setStaleLockTime(0); // a window may keep its session for days: stale only when dead
        // A holder that lets go at this moment (a run ending, a retired writer of this process) leaves for a
        // moment a lock file that cannot be read yet or any more: asked again for up to a second before it
        // counts as held.
        for (int attempt = 0; attempt < 20; ++attempt) {
            if (lockFile->tryLock(attempt == 0 ? 0 : 50)) {
                transcriptLock = std::move(lockFile);
                return {};
            }
            if (lockFile->error() != QLockFile::LockFailedError)
                break;
            qint64 pid = 0;
            QString host;
            QString application;
            if (!lockFile->getLockInfo(&pid, &host, &application) || pid <= 0) {
                // Being written or removed: ask again. One that stays unreadable was left by a process that
                // died between creating it and writing its id in it, which QLockFile does at once (seen: a
                // run killed 34 ms after it started, whose session then could not be resumed): once it is
                // that old, QLockFile takes it over as stale. Only here: by age alone, the lock of a live
                // process (readable) would count as stale too.
                lockFile->setStaleLockTime(kUnwrittenLockAge);
                continue;
            }
            lockFile->setStaleLockTime(0);
            // The app keeps one writer per session (a retired one lets go of the lock before the next one of
            // its session takes it: `after`); only tests run several runners of one session in one process,
            // one after the other. The lock is about other processes.
            if (pid == QCoreApplication::applicationPid())
                return {};
            return QCoreApplication::translate(
                       "SessionWriter", "The session %1 is in use by another Keen Desktop (process %2): "
                                        "close it there, or wait for that run to end")
                .arg(session.id)
                .arg(pid);
        }
        return QCoreApplication::translate("SessionWriter",
                                           "Cannot lock the session's transcript %1: its lock file %2 can be "
                                           "neither read nor replaced")
            .arg(session.transcriptPath, lockPath(session.transcriptPath));
    }

    // Appends that queued up behind `first` while the disk was busy, taken off the queue to be written with
    // it under one fsync (group commit). Atomic batches keep their own write.
    std::vector<Job> takeGroup()
    {
        std::vector<Job> group;
        QMutexLocker lock(&mutex);
        while (!queue.empty() && !queue.front().create && !queue.front().lock &&
               queue.front().events.size() == 1) {
            group.push_back(std::move(queue.front()));
            queue.pop_front();
        }
        return group;
    }

    // Runs `job` with the appends grouped behind it and settles every promise.
    void run(Job &job)
    {
        std::vector<Job> group;
        if (job.create || (!job.lock && job.events.size() == 1))
            group = takeGroup();
        QList<SessionEvent> grouped;
        for (const Job &each : group)
            grouped.append(each.events.first());

        Written written = Written::failure(broken);
        if (job.lock) {
            if (broken.isEmpty())
                broken = takeLock();
            written = broken.isEmpty() ? Written(QList<quint64>()) : Written::failure(broken);
        } else if (broken.isEmpty()) {
            if (job.create) {
                written = store->createFiles(session, grouped);
                if (!written)
                    broken = written.error();
                else
                    broken = takeLock();
            } else if (job.events.size() == 1) {
                written = store->appendGroup(session, job.events + grouped);
            } else {
                written = store->appendBatch(session, job.events);
            }
        }
        if (!written) {
            settle(job, written);
            for (Job &each : group)
                settle(each, written);
            return;
        }
        // The seqs in order: the first job's (session_started's for a creation), then one per grouped append.
        const QList<quint64> &seqs = *written;
        const qsizetype own = seqs.size() - qsizetype(group.size());
        settle(job, seqs.first(own));
        for (size_t i = 0; i < group.size(); ++i)
            settle(group[i], QList<quint64>{seqs.at(own + qsizetype(i))});
    }

    static void settle(Job &job, const Written &written)
    {
        job.promise->addResult(written);
        job.promise->finish();
    }

    void loop()
    {
        // The previous writers' events are on disk before any of this one's, and their locks are free (the
        // same session opened again takes the lock its last writer held).
        after.waitForFinished();
        after = QFuture<void>(); // lets go of the previous writer's state
        while (true) {
            Job job;
            {
                QMutexLocker lock(&mutex);
                while (queue.empty() && !stopping)
                    wake.wait(&mutex);
                if (queue.empty())
                    break; // stopping, and every queued write is done
                job = std::move(queue.front());
                queue.pop_front();
            }
            run(job);
        }
        transcriptLock.reset(); // here, not with the last owner of this state: the next writer may take it
        ended.finish();
    }
};

SessionWriter::SessionWriter(std::shared_ptr<SessionStore> store, const Session &session, Start start,
                             QFuture<void> after)
    : m_state(std::make_shared<State>())
{
    m_state->store = std::move(store);
    m_state->session = session;
    m_state->after = std::move(after);
    m_state->ended.start();
    m_ended = m_state->ended.future();
    if (start == Start::Create)
        m_created = enqueue(Job{true, false, {}, nullptr});
    else
        m_locked = enqueue(Job{false, true, {}, nullptr});
    m_thread.reset(QThread::create([state = m_state] { state->loop(); }));
    m_thread->setObjectName(QStringLiteral("keen-transcript"));
    m_thread->start();
}

SessionWriter::~SessionWriter()
{
    retire();
    m_thread->wait(); // after the end retire() returned, only the thread's last instructions
}

QFuture<void> SessionWriter::retire()
{
    QMutexLocker lock(&m_state->mutex);
    m_state->stopping = true;
    m_state->wake.wakeAll();
    return m_ended;
}

QFuture<Result<QList<quint64>>> SessionWriter::write(const QList<SessionEvent> &events)
{
    return enqueue(Job{false, false, events, nullptr});
}

QFuture<Result<QList<quint64>>> SessionWriter::enqueue(Job job)
{
    job.promise = std::make_shared<QPromise<Written>>();
    job.promise->start(); // started here, so waiting on the future waits for the write
    QFuture<Written> future = job.promise->future();
    QMutexLocker lock(&m_state->mutex);
    if (m_state->stopping) { // retired (a mistake of the caller's): its thread may have ended already
        Q_ASSERT_X(false, "SessionWriter::write", "the writer was retired");
        State::settle(job, Written::failure(QStringLiteral("the session's writer was retired")));
        return future;
    }
    m_state->queue.push_back(std::move(job));
    m_state->wake.wakeOne();
    return future;
}

} // namespace keen
