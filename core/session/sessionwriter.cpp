#include "session/sessionwriter.h"

#include <QMutex>
#include <QPromise>
#include <QWaitCondition>

#include <deque>

namespace keen {

namespace {

using Written = Result<QList<quint64>>;

struct Job
{
    QList<SessionEvent> events;
    std::shared_ptr<QPromise<Written>> promise;
};

} // namespace

struct SessionWriter::State
{
    std::shared_ptr<SessionStore> store;
    Session session; // the writer thread's: nextSeq moves on there
    QMutex mutex;    // guards the two below
    QWaitCondition wake;
    std::deque<Job> queue;
    bool stopping = false;

    Written run(const QList<SessionEvent> &events)
    {
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
            job.promise->addResult(run(job.events));
            job.promise->finish();
        }
    }
};

SessionWriter::SessionWriter(std::shared_ptr<SessionStore> store, const Session &session)
    : m_state(std::make_shared<State>())
{
    m_state->store = std::move(store);
    m_state->session = session;
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
    auto promise = std::make_shared<QPromise<Written>>();
    promise->start(); // started here, so waiting on the future waits for the write
    QFuture<Written> future = promise->future();
    QMutexLocker lock(&m_state->mutex);
    m_state->queue.push_back(Job{events, std::move(promise)});
    m_state->wake.wakeOne();
    return future;
}

} // namespace keen
