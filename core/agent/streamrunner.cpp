#include "agent/streamrunner.h"

#include "agent/workerthread.h"
#include "loop/llmclient.h"
#include "tools/toolregistry.h"

#include <QPointer>

namespace keen {

namespace {

bool mergeable(const StreamEvent &last, const StreamEvent &next)
{
    return last.type == next.type &&
           (next.type == StreamEvent::Type::Chunk || next.type == StreamEvent::Type::ReasoningChunk);
}

// A command's output so far replaces the report of it that still waits: only the newest is shown.
bool supersedes(const StreamEvent &last, const StreamEvent &next)
{
    return last.type == StreamEvent::Type::ToolOutput && next.type == StreamEvent::Type::ToolOutput &&
           last.toolCall && next.toolCall && last.toolCall->callId == next.toolCall->callId;
}

} // namespace

StreamRunner::StreamRunner(WorkerThread &worker, QObject *parent)
    : QObject(parent)
    , m_worker(worker)
{
    m_deliveryTimer.setSingleShot(true);
    m_deliveryTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_deliveryTimer, &QTimer::timeout, this, [this] { deliverPending(); });
}

StreamRunner::~StreamRunner()
{
    m_cancel.cancel();
    waitForJob(); // the run never outlives the object its events are posted to
}

void StreamRunner::waitForJob()
{
    if (m_job) {
        m_job->done.acquire();
        m_job.reset();
    }
}

bool StreamRunner::isRunning() const
{
    return m_job && !m_job->finished;
}

void StreamRunner::start(std::shared_ptr<LlmClient> client, const MessageList &messages,
                         std::shared_ptr<const ToolRegistry> tools, const StreamOptions &options,
                         const CancellationToken &cancel, Prepare prepare)
{
    waitForJob();
    {
        QMutexLocker lock(&m_mutex);
        m_pending.clear();
    }
    m_cancel = cancel;
    auto job = std::make_shared<Job>();
    m_job = job;
    m_worker.post([this, job, client, messages, tools, options, cancel, prepare] {
        MessageList request = messages;
        if (!prepare || prepare(request, [this](const StreamEvent &event) { post(event); }))
            client->streamChat(request, tools.get(), options, cancel,
                               [this](const StreamEvent &event) { post(event); });
        job->finished = true;
        // Queued behind every drain the run posted: it delivers what still waits, so finished() comes last.
        QMetaObject::invokeMethod(this, &StreamRunner::workerFinished, Qt::QueuedConnection);
        job->done.release(); // after this, the runner may be gone
    });
}

void StreamRunner::post(const StreamEvent &event)
{
    {
        QMutexLocker lock(&m_mutex);
        if (!m_pending.isEmpty() && mergeable(m_pending.constLast(), event))
            m_pending.last().content += event.content;
        else if (!m_pending.isEmpty() && supersedes(m_pending.constLast(), event))
            m_pending.last() = event;
        else
            m_pending.append(event);
        if (m_drainPosted)
            return;
        m_drainPosted = true;
    }
    QMetaObject::invokeMethod(this, &StreamRunner::drain, Qt::QueuedConnection);
}

void StreamRunner::drain()
{
    if (m_sinceDelivery.isValid() && m_sinceDelivery.elapsed() < DrainIntervalMs) {
        // Delivered moments ago: deliver at the end of the interval instead. m_drainPosted stays set, so the
        // worker keeps appending to the pending list without posting (and waking this thread) again.
        if (!m_deliveryTimer.isActive())
            m_deliveryTimer.start(DrainIntervalMs - int(m_sinceDelivery.elapsed()));
        return;
    }
    deliverPending();
}

bool StreamRunner::deliverPending()
{
    m_deliveryTimer.stop();
    m_sinceDelivery.start();
    QList<StreamEvent> events;
    {
        QMutexLocker lock(&m_mutex);
        events.swap(m_pending);
        m_drainPosted = false;
    }
    const QPointer<StreamRunner> alive(this);
    for (const StreamEvent &event : std::as_const(events)) {
        Q_EMIT this->event(event);
        if (!alive)
            return false; // a receiver ended the run
    }
    return true;
}

void StreamRunner::workerFinished()
{
    if (deliverPending())
        Q_EMIT finished();
}

} // namespace keen
