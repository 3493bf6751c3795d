#include "agent/subagentrun.h"

#include "agent/workerthread.h"
#include "conversation/toolcalltext.h"
#include "loop/llmclient.h"
#include "tools/toolregistry.h"

#include <QJsonObject>

namespace keen {

namespace {

constexpr qsizetype MaxActivityLine = 160;
constexpr qsizetype MaxKeptActivity = 64; // lines not yet taken; older ones are dropped

// One line of what a call acts on: its path, pattern, command or address.
// Activity is shown on the parent's card: one line, no control characters, bounded.
QString oneLine(const QString &text)
{
    QString line;
    line.reserve(std::min(text.size(), MaxActivityLine + 1));
    for (const QChar c : text) {
        if (line.size() > MaxActivityLine)
            break;
        line += c.isPrint() ? c : QLatin1Char(' ');
    }
    line = line.simplified();
    if (line.size() > MaxActivityLine)
        line = line.left(MaxActivityLine - 1) + QStringLiteral("…");
    return line;
}

} // namespace

SubagentRun::SubagentRun(const QString &label, std::shared_ptr<LlmClient> client, const MessageList &request,
                         std::shared_ptr<const ToolRegistry> tools, int timeoutSeconds)
    : m_label(label)
    , m_client(std::move(client))
    , m_request(request)
    , m_tools(std::move(tools))
    , m_timeoutSeconds(timeoutSeconds)
{}

SubagentRun::~SubagentRun()
{
    m_cancel.cancel();
    m_thread.reset(); // waits for the job, which uses the members
}

void SubagentRun::start()
{
    m_started.start();
    m_thread = std::make_unique<WorkerThread>(QStringLiteral("keen-subagent"));
    {
        QMutexLocker lock(&m_mutex);
        m_activity.append(QStringLiteral("[%1] started").arg(m_label));
    }
    m_thread->post([this] {
        StreamOptions options;
        options.oneShot = true; // no pending state, no automatic compaction (reference 7.3)
        m_client->streamChat(m_request, m_tools.get(), options, m_cancel,
                             [this](const StreamEvent &event) { onEvent(event); });
        {
            QMutexLocker lock(&m_mutex);
            if (m_status == Status::Running) {
                // Cancelled: the client stops sending events, so no terminal event came.
                m_status = Status::Cancelled;
                if (m_error.isEmpty())
                    m_error = tr("cancelled");
            }
        }
        m_done.release();
    });
}

bool SubagentRun::wait(int ms)
{
    if (m_ended)
        return true;
    if (m_done.tryAcquire(1, ms)) {
        m_ended = true;
        return true;
    }
    if (m_started.isValid() && m_started.elapsed() >= qint64(m_timeoutSeconds) * 1000 &&
        !m_cancel.isCancelled()) {
        {
            QMutexLocker lock(&m_mutex);
            if (m_status == Status::Running) {
                m_status = Status::TimedOut;
                m_error = tr("timed out after %1 s").arg(m_timeoutSeconds);
            }
        }
        m_cancel.cancel();
    }
    return false;
}

void SubagentRun::cancel()
{
    m_cancel.cancel();
}

SubagentRun::Status SubagentRun::status() const
{
    QMutexLocker lock(&m_mutex);
    return m_status;
}

QString SubagentRun::answer() const
{
    QMutexLocker lock(&m_mutex);
    return m_text.trimmed();
}

QString SubagentRun::error() const
{
    QMutexLocker lock(&m_mutex);
    return m_error;
}

int SubagentRun::toolCalls() const
{
    QMutexLocker lock(&m_mutex);
    return m_toolCalls;
}

std::optional<TokenUsage> SubagentRun::usage() const
{
    QMutexLocker lock(&m_mutex);
    return m_usage;
}

QStringList SubagentRun::takeActivity()
{
    QMutexLocker lock(&m_mutex);
    return std::exchange(m_activity, {});
}

void SubagentRun::onEvent(const StreamEvent &event)
{
    QMutexLocker lock(&m_mutex);
    const auto note = [this](const QString &text) {
        m_activity.append(QStringLiteral("[%1] %2").arg(m_label, oneLine(text)));
        if (m_activity.size() > MaxKeptActivity)
            m_activity.remove(0, m_activity.size() - MaxKeptActivity);
    };
    switch (event.type) {
    case StreamEvent::Type::Chunk:
        m_text += event.content;
        break;
    case StreamEvent::Type::ToolStart:
        ++m_toolCalls;
        m_text.clear(); // the answer is what the child says after its last tool call
        if (event.toolCall)
            note(ToolCallText::line(event.toolCall->name, event.toolCall->input));
        break;
    case StreamEvent::Type::ToolEnd:
        if (event.toolCall && !event.toolCall->error.isEmpty())
            note(tr("%1 failed: %2").arg(ToolCallText::label(event.toolCall->name), event.toolCall->error));
        break;
    case StreamEvent::Type::ToolRejected:
        if (event.toolCall)
            note(tr("%1 refused: %2").arg(ToolCallText::label(event.toolCall->name), event.toolCall->error));
        break;
    case StreamEvent::Type::Retry:
        note(tr("retrying (attempt %1): %2").arg(event.attempt).arg(event.error));
        break;
    case StreamEvent::Type::Usage:
        if (event.usage) {
            if (!m_usage)
                m_usage = TokenUsage();
            *m_usage += *event.usage;
        }
        break;
    case StreamEvent::Type::Done:
        if (m_status == Status::Running) {
            m_status = Status::Completed;
            note(tr("done"));
        }
        break;
    case StreamEvent::Type::Error:
    case StreamEvent::Type::Incomplete:
        if (m_status == Status::Running) {
            m_status = Status::Failed;
            m_error = event.error.isEmpty() ? tr("the provider ended the reply early") : event.error;
            note(tr("failed: %1").arg(m_error));
        }
        break;
    default:
        break;
    }
}

} // namespace keen
