#include "session/sessionwriter.h"

#include <QMutex>
#include <QPromise>
#include <QWaitCondition>

#include <deque>

namespace keen {

namespace {

using Written = Result<QList<quint64>>;

} // namespace

struct SessionWriter::Job
{
    bool create = false; // create the planned session's files (events empty)
    QList<SessionEvent> events;
    std::shared_ptr<QPromise<Written>> promise;
};

struct SessionWriter::State
{
    std::shared_ptr<SessionStore> store;
    Session session; // the writer thread's: nextSeq moves on there
    QMutex mutex;    // guards the two below
    QWaitCondition wake;
    std::deque<Job> queue;
    bool stopping = false;
    QString broken; // the writer thread's: why the session could not be created

    Written run(const Job &job)
    {
        if (!broken.isEmpty())
            return Written::failure(broken);
        if (job.create) {
            if (const Result<void> made = store->createFiles(session); !made) {
                broken = made.error();
                return Written::failure(broken);
            }
            return QList<quint64>{session.nextSeq - 1};
        }
        const QList<SessionEvent> &events = job.events;
        if (events.size() == 1) {
            const Result<quint64> seq = store->append(session, events.first());
            if (!seq)
                return Written::failure(seq.error());
            return QList<quint64>{*seq};
        }
        return store->appendBatch(session, events);
    }

    void loop()
    {
        while (true) {
            Job job;
            {
                QMutexLocker lock(&mutex);
                while (queue.empty() && !stopping)
                    wake.wait(&mutex);
                if (queue.empty())
                    return; // stopping, and every queued write is done
                job = std::move(queue.front());
                queue.pop_front();
            }
            job.promise->addResult(run(job));
            job.promise->finish();
        }
    }
};

SessionWriter::SessionWriter(std::shared_ptr<SessionStore> store, const Session &session, Start start)
    : m_state(std::make_shared<State>())
{
    m_state->store = std::move(store);
    m_state->session = session;
    if (start == Start::Create)
        m_created = enqueue(Job{true, {}, nullptr});
    m_thread.reset(QThread::create([state = m_state] { state->loop(); }));
    m_thread->setObjectName(QStringLiteral("keen-transcript"));
    m_thread->start();
}

SessionWriter::~SessionWriter()
{
    {
        QMutexLocker lock(&m_state->mutex);
        m_state->stopping = true;
        m_state->wake.wakeAll();
    }
    m_thread->wait();
}

QFuture<Result<QList<quint64>>> SessionWriter::write(const QList<SessionEvent> &events)
{
    return enqueue(Job{false, events, nullptr});
}

QFuture<Result<QList<quint64>>> SessionWriter::enqueue(Job job)
{
    job.promise = std::make_shared<QPromise<Written>>();
    job.promise->start(); // started here, so waiting on the future waits for the write
    QFuture<Written> future = job.promise->future();
    QMutexLocker lock(&m_state->mutex);
    m_state->queue.push_back(std::move(job));
    m_state->wake.wakeOne();
    return future;
}

} // namespace keen
