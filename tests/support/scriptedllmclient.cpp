#include "scriptedllmclient.h"

#include "loop/compactioncommit.h"
#include "tools/permissionrequester.h"
#include "tools/toolregistry.h"

namespace keen::test {

std::function<Result<std::shared_ptr<LlmClient>>(const ClientConfig &)>
ScriptedLlmClient::factory(const std::shared_ptr<ScriptedLlmClient> &client)
{
    return [client](const ClientConfig &) {
        return Result<std::shared_ptr<LlmClient>>(std::static_pointer_cast<LlmClient>(client));
    };
}

void ScriptedLlmClient::addTurn(const Turn &turn)
{
    QMutexLocker lock(&m_mutex);
    m_turns.append(turn);
}

void ScriptedLlmClient::open(const QString &gate)
{
    QMutexLocker lock(&m_mutex);
    m_open.insert(gate);
    m_changed.wakeAll();
}

QList<MessageList> ScriptedLlmClient::requests() const
{
    QMutexLocker lock(&m_mutex);
    return m_requests;
}

QList<StreamOptions> ScriptedLlmClient::options() const
{
    QMutexLocker lock(&m_mutex);
    return m_options;
}

QList<QStringList> ScriptedLlmClient::toolNames() const
{
    QMutexLocker lock(&m_mutex);
    return m_toolNames;
}

QList<ToolCallInfo> ScriptedLlmClient::toolResults() const
{
    QMutexLocker lock(&m_mutex);
    return m_toolResults;
}

int ScriptedLlmClient::resetCount() const
{
    QMutexLocker lock(&m_mutex);
    return m_resets;
}

bool ScriptedLlmClient::commitRejected() const
{
    QMutexLocker lock(&m_mutex);
    return m_commitRejected;
}

int ScriptedLlmClient::toolsStarted() const
{
    QMutexLocker lock(&m_mutex);
    return m_toolsStarted;
}

void ScriptedLlmClient::reset()
{
    QMutexLocker lock(&m_mutex);
    ++m_resets;
}

bool ScriptedLlmClient::waitFor(const QString &gate, const CancellationToken &cancel)
{
    QMutexLocker lock(&m_mutex);
    while (!m_open.contains(gate)) {
        if (cancel.isCancelled())
            return false;
        m_changed.wait(&m_mutex, 20);
    }
    return true;
}

void ScriptedLlmClient::streamChat(const MessageList &messages, const ToolRegistry *tools,
                                   const StreamOptions &options, const CancellationToken &cancel,
                                   const EventSink &sink)
{
    Turn turn;
    {
        QMutexLocker lock(&m_mutex);
        m_requests.append(messages);
        m_options.append(options);
        m_toolNames.append(tools ? tools->names() : QStringList());
        if (!m_turns.isEmpty())
            turn = m_turns.takeFirst();
    }
    if (turn.isEmpty()) {
        sink(StreamEvent::failure(QStringLiteral("no scripted turn left")));
        return;
    }
    auto send = [&](const StreamEvent &event) {
        if (!cancel.isCancelled())
            sink(event);
    };
    for (const Step &step : std::as_const(turn)) {
        if (cancel.isCancelled())
            return;
        switch (step.kind) {
        case Step::Kind::Event:
            send(step.event);
            break;
        case Step::Kind::Gate:
            if (!waitFor(step.gate, cancel))
                return;
            break;
        case Step::Kind::Tool: {
            send(step.event);
            {
                QMutexLocker lock(&m_mutex);
                ++m_toolsStarted;
            }
            ToolCallInfo call = *step.event.toolCall;
            PermissionRequest request;
            request.toolName = call.name;
            request.command = call.input.value(QStringLiteral("command")).toString();
            PermissionRequester *permissions = tools ? tools->context().permissions : nullptr;
            const PermissionDecision decision =
                permissions ? permissions->request(request, cancel) : PermissionDecision::Deny;
            if (cancel.isCancelled())
                return;
            if (decision == PermissionDecision::Allow || decision == PermissionDecision::AllowForSession)
                call.output = QJsonObject{{QStringLiteral("output"), QString()}};
            else
                call.error = QStringLiteral("permission denied");
            send(StreamEvent::tool(StreamEvent::Type::ToolEnd, call));
            break;
        }
        case Step::Kind::RunTool: {
            send(step.event);
            ToolCallInfo call = *step.event.toolCall;
            const std::shared_ptr<Tool> tool = tools ? tools->find(call.name) : nullptr;
            if (tool) {
                ToolContext context = tools->context();
                context.cancel = cancel;
                // As the tool loop does: what a running tool reports goes out as tool_output events.
                context.outputProgress = [&](const QString &recentOutput, qint64 earlierLines) {
                    ToolCallInfo progress;
                    progress.callId = call.callId;
                    progress.name = call.name;
                    progress.recentOutput = recentOutput;
                    progress.earlierLines = earlierLines;
                    send(StreamEvent::tool(StreamEvent::Type::ToolOutput, progress));
                };
                const ToolResult result = tool->execute(call.input, context);
                call.output = result.output;
                call.error = result.error;
            } else {
                call.error = QStringLiteral("unknown tool: ") + call.name;
            }
            {
                QMutexLocker lock(&m_mutex);
                m_toolResults.append(call);
            }
            send(StreamEvent::tool(StreamEvent::Type::ToolEnd, call));
            break;
        }
        case Step::Kind::AutoCompaction: {
            const CancellationToken child = cancel.child();
            AutoCompactionInfo started;
            started.cancel = child;
            send(StreamEvent::compaction(StreamEvent::Type::AutoCompactionStarted, started));
            if (!step.compactionGate.isEmpty())
                waitFor(step.compactionGate, child);
            if (cancel.isCancelled())
                return;
            if (child.isCancelled() || !step.failWith.isEmpty()) {
                AutoCompactionInfo stopped;
                stopped.error =
                    child.isCancelled() ? QStringLiteral("automatic compaction cancelled") : step.failWith;
                send(StreamEvent::compaction(child.isCancelled() ? StreamEvent::Type::AutoCompactionCancelled
                                                                 : StreamEvent::Type::AutoCompactionFailed,
                                             stopped));
                break;
            }
            AutoCompactionInfo applied;
            applied.replacement = step.replacement;
            applied.strategy = step.strategy;
            if (options.awaitCompactionCommit)
                applied.commit = std::make_shared<CompactionCommit>();
            send(StreamEvent::compaction(StreamEvent::Type::AutoCompactionApplied, applied));
            if (applied.commit) {
                QString reason;
                if (!applied.commit->wait(cancel, &reason)) {
                    QMutexLocker lock(&m_mutex);
                    m_commitRejected = true;
                    return;
                }
            }
            break;
        }
        }
    }
}

} // namespace keen::test
