#include "agent/shellcommand.h"

#include "tools/bashtool.h"

#include <QPointer>
#include <QThreadPool>
#include <QtConcurrent>

#include <atomic>

namespace keen {

namespace {

QString nextCallId()
{
    static std::atomic<quint64> counter{0};
    return QStringLiteral("shell-%1").arg(++counter);
}

} // namespace

ShellCommand::ShellCommand(const QString &command, ToolContext context, CancellationToken cancel,
                           QObject *parent)
    : QObject(parent)
    , m_context(std::move(context))
    , m_cancel(std::move(cancel))
{
    m_info.callId = nextCallId();
    m_info.name = QStringLiteral("bash");
    m_info.input = QJsonObject{{QStringLiteral("command"), command}};
    // The person typed it: no prompt, also for what the classifier calls dangerous; the filesystem guard
    // still holds. Nobody answers questions here either.
    m_context.mode = AgentMode::Yolo;
    m_context.permissions = nullptr;
    m_context.interactive = false;
    m_context.askUser = nullptr;
    m_context.cancel = m_cancel;
    connect(&m_watcher, &QFutureWatcher<ToolResult>::finished, this, [this] {
        const ToolResult result = m_watcher.result();
        ToolCallInfo end = m_info;
        end.output = result.output;
        end.error = result.error;
        end.durationNs = m_context.running.nsecsElapsed();
        Q_EMIT toolEvent(StreamEvent::tool(StreamEvent::Type::ToolEnd, end));
        Q_EMIT finished();
    });
}

ShellCommand::~ShellCommand()
{
    if (m_watcher.isRunning()) {
        m_cancel.cancel();
        m_watcher.waitForFinished();
    }
}

namespace {

// A thread of its own: a command may run for minutes, and on the shared pool (two threads on a two-core
// machine) it would hold one of the workers every disk read of the window waits for.
QThreadPool &commandThread()
{
    static QThreadPool pool;
    static const bool configured = [] {
        pool.setMaxThreadCount(1); // AgentSession runs one `!command` at a time
        return true;
    }();
    Q_UNUSED(configured)
    return pool;
}

} // namespace

void ShellCommand::start()
{
    Q_EMIT toolEvent(StreamEvent::tool(StreamEvent::Type::ToolStart, m_info));
    ToolContext context = m_context;
    // Progress comes from the pool thread: it is handed to this object's thread, and dropped once the
    // command is gone.
    QPointer<ShellCommand> self(this);
    const ToolCallInfo info = m_info;
    context.outputProgress = [self, info](const QString &recentOutput, qint64 earlierLines) {
        ToolCallInfo progress;
        progress.callId = info.callId;
        progress.name = info.name;
        progress.recentOutput = recentOutput;
        progress.earlierLines = earlierLines;
        QMetaObject::invokeMethod(
            self.data(),
            [self, progress] {
                if (self)
                    Q_EMIT self->toolEvent(StreamEvent::tool(StreamEvent::Type::ToolOutput, progress));
            },
            Qt::QueuedConnection);
    };
    m_context.running.start();
    context.running = m_context.running;
    const QJsonObject input = m_info.input;
    m_watcher.setFuture(QtConcurrent::run(&commandThread(), [input, context]() mutable {
        BashTool tool;
        tool.setTimeoutMs(TimeoutMs);
        return tool.execute(input, context);
    }));
}

void ShellCommand::cancel()
{
    m_cancel.cancel();
}

bool ShellCommand::isCancelled() const
{
    return m_cancel.isCancelled();
}

} // namespace keen
