#pragma once

#include "conversation/streamevent.h"
#include "tools/tool.h"

#include <QFutureWatcher>
#include <QObject>

namespace keen {

// A command the person typed after "!" (reference 6.1, `!<shell cmd>`): run with `bash -c` in the
// workspace as the bash tool runs it, but without the model and without a permission prompt (the person
// typed it), for at most TimeoutMs. It runs on a pool thread; its card follows from the tool events it
// emits, as a tool call's does. Nothing of it enters the history or the transcript.
class ShellCommand final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShellCommand)

public:
    static constexpr int TimeoutMs = 180 * 1000;

    // context: the session's tool context (workspace, data folder, hidden key variables); cancel: what
    // stops it (a child of the session's shutdown token).
    ShellCommand(const QString &command, ToolContext context, CancellationToken cancel,
                 QObject *parent = nullptr);
    // Cancels a command still running and waits for it to end (its process group is killed at once).
    ~ShellCommand() override;

    void start();
    void cancel();
    bool isCancelled() const;
    // "shell-N": the call id of its tool events.
    QString callId() const { return m_info.callId; }

Q_SIGNALS:
    // ToolStart, then ToolOutput while it prints, then ToolEnd (exit code and output, or the error).
    void toolEvent(const keen::StreamEvent &event);
    void finished();

private:
    ToolCallInfo m_info;
    ToolContext m_context;
    CancellationToken m_cancel;
    QFutureWatcher<ToolResult> m_watcher;
};

} // namespace keen
