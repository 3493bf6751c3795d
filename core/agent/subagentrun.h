#pragma once

#include "base/cancellationtoken.h"
#include "conversation/message.h"
#include "conversation/streamevent.h"
#include "conversation/tokenusage.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMutex>
#include <QSemaphore>
#include <QStringList>

#include <memory>
#include <optional>

namespace keen {

class LlmClient;
class ToolRegistry;
class WorkerThread;

// One delegated task (delegate_task, reference 7.3): a one-shot tool loop of its own client on a thread of
// its own, so several run side by side while the parent's tool call waits. It keeps what the parent needs:
// the final answer (the text after the child's last tool call), what it is doing for the card's live lines,
// and its token usage. Destroying it cancels the child and waits for its thread.
class SubagentRun
{
    Q_DECLARE_TR_FUNCTIONS(SubagentRun)

public:
    enum class Status { Running, Completed, Failed, Cancelled, TimedOut };

    // label: the name its activity lines carry ("reviewer", or "reviewer-2" when a call uses a profile
    // twice).
    SubagentRun(const QString &label, std::shared_ptr<LlmClient> client, const MessageList &request,
                std::shared_ptr<const ToolRegistry> tools, int timeoutSeconds);
    ~SubagentRun();
    SubagentRun(const SubagentRun &) = delete;
    SubagentRun &operator=(const SubagentRun &) = delete;

    void start();
    // Waits up to ms for the child to end; true when it has. A child past its timeout is cancelled here.
    bool wait(int ms);
    void cancel();

    const QString &label() const { return m_label; }
    Status status() const;
    QString answer() const;
    QString error() const;
    qint64 elapsedMs() const { return m_started.isValid() ? m_started.elapsed() : 0; }
    int toolCalls() const;
    std::optional<TokenUsage> usage() const;
    // The lines of activity ("[reviewer] Read src/main.cpp") since the last call.
    QStringList takeActivity();

private:
    void onEvent(const StreamEvent &event); // the child's thread

    const QString m_label;
    std::shared_ptr<LlmClient> m_client;
    const MessageList m_request;
    std::shared_ptr<const ToolRegistry> m_tools;
    const int m_timeoutSeconds;
    CancellationToken m_cancel;
    QElapsedTimer m_started;
    QSemaphore m_done;
    bool m_ended = false;

    mutable QMutex m_mutex; // guards the members below, which the child's thread writes
    Status m_status = Status::Running;
    QString m_text; // the answer so far: the text after the last tool call
    QString m_error;
    int m_toolCalls = 0;
    std::optional<TokenUsage> m_usage;
    QStringList m_activity;

    std::unique_ptr<WorkerThread> m_thread; // last: goes first, after the job has ended
};

} // namespace keen
