#pragma once

#include "base/cancellationtoken.h"
#include "conversation/message.h"
#include "conversation/streamevent.h"
#include "conversation/streamoptions.h"

#include <QElapsedTimer>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QSemaphore>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>

namespace keen {

class LlmClient;
class ToolRegistry;
class WorkerThread;

// Runs one LlmClient::streamChat on a worker thread (WorkerThread) and re-emits its events on the runner's
// thread, in order, followed by finished(). Events cross threads through one pending list: the worker appends
// (a chunk right after a chunk of the same kind is merged into it) and posts a drain only when none is
// pending, so a fast stream costs the receiving thread one queued call and one chunk signal per drain,
// however many provider events arrived meanwhile. Drains are also paced: one at most every DrainIntervalMs,
// so a stream that the receiver keeps up with does not wake it for every few events either (each wake-up
// costs both threads about as much as parsing a dozen events). Destroying the runner cancels the stream and
// waits.
class StreamRunner final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StreamRunner)

public:
    // Far below what a person notices, and below the chat panel's own 8 ms repaint pace.
    static constexpr int DrainIntervalMs = 4;

    // Runs on worker, which must outlive this runner (AgentSession keeps one for all its turns, so the
    // provider's connection serves turn after turn).
    explicit StreamRunner(WorkerThread &worker, QObject *parent = nullptr);
    ~StreamRunner() override;

    // prepare, when set, runs on the worker before the request is sent (work that reads files, such as the
    // system prompt's project instructions, stays off the caller's thread). When it returns false nothing is
    // sent and the run finishes at once. notify delivers an event (a notice about a file it could not read)
    // in order with the run's own.
    using Notify = std::function<void(const StreamEvent &event)>;
    using Prepare = std::function<bool(MessageList &messages, const Notify &notify)>;
    void start(std::shared_ptr<LlmClient> client, const MessageList &messages,
               std::shared_ptr<const ToolRegistry> tools, const StreamOptions &options,
               const CancellationToken &cancel, Prepare prepare = {});
    bool isRunning() const;
    CancellationToken cancelToken() const { return m_cancel; }
    // Delivers what the worker has posted so far, now rather than at the pace (before something that came
    // another way and must follow it). False when a receiver destroyed the runner.
    bool deliverPending();

Q_SIGNALS:
    void event(const keen::StreamEvent &event);
    void finished();

private:
    void post(const StreamEvent &event); // worker thread
    void drain();                        // runner thread: delivers, or waits for the interval to pass
    void workerFinished();

    // One run on the worker: done is released when it has ended.
    struct Job
    {
        QSemaphore done;
        std::atomic_bool finished{false};
    };
    void waitForJob();

    WorkerThread &m_worker;
    std::shared_ptr<Job> m_job;
    CancellationToken m_cancel;
    QMutex m_mutex; // guards the two below
    QList<StreamEvent> m_pending;
    bool m_drainPosted = false;
    QElapsedTimer m_sinceDelivery; // runner thread only, like the timer
    QTimer m_deliveryTimer;
};

} // namespace keen
