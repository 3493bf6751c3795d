#pragma once

#include "base/result.h"
#include "conversation/compactionstrategy.h"
#include "conversation/message.h"
#include "loop/llmclient.h"
#include "providers/clientconfig.h"

#include <QList>
#include <QMutex>
#include <QSet>
#include <QString>
#include <QWaitCondition>

#include <functional>
#include <memory>

namespace keen::test {

// A provider stand-in for AgentSession and UI tests: each streamChat call plays the next scripted turn on
// the worker thread. Steps can wait on named gates the test opens, and can run an automatic compaction whose
// child token the test (or the UI) may cancel.
class ScriptedLlmClient final : public LlmClient
{
public:
    struct Step
    {
        // Tool: what the tool loop does for a call that asks the person: its tool_start, a permission
        // request through the session's tools (the window's prompt), then its tool_end with the decision.
        // RunTool: runs the call with the real tool of the registry the stream got (as the tool loop does,
        // without the loop's checks) and sends tool_start and tool_end; an unknown tool ends in an error.
        enum class Kind { Event, Gate, AutoCompaction, Tool, RunTool };
        Kind kind = Kind::Event;
        StreamEvent event;
        QString gate;            // Gate: wait until open(gate) or the stream is cancelled (then stop)
        MessageList replacement; // AutoCompaction: applied unless the child is cancelled or failWith is set
        QString failWith;
        QString compactionGate;      // AutoCompaction: waits here (child cancel wakes it) before deciding
        CompactionStrategy strategy; // AutoCompaction: reported with the applied event
    };
    using Turn = QList<Step>;

    static Step event(const StreamEvent &event) { return Step{Step::Kind::Event, event, {}, {}, {}, {}}; }
    static Step chunk(const QString &text) { return event(StreamEvent::chunk(text)); }
    static Step gate(const QString &name) { return Step{Step::Kind::Gate, {}, name, {}, {}, {}}; }
    // A bash call (input.command) that asks for permission before it "runs".
    static Step askingTool(const ToolCallInfo &call)
    {
        return Step{Step::Kind::Tool, StreamEvent::tool(StreamEvent::Type::ToolStart, call), {}, {}, {}, {}};
    }
    static Step runTool(const QString &name, const QJsonObject &input)
    {
        ToolCallInfo call;
        call.callId = name + QStringLiteral("-call");
        call.name = name;
        call.input = input;
        return Step{
            Step::Kind::RunTool, StreamEvent::tool(StreamEvent::Type::ToolStart, call), {}, {}, {}, {}};
    }
    static Step autoCompaction(const MessageList &replacement, const QString &waitGate = QString(),
                               const QString &failWith = QString())
    {
        return Step{Step::Kind::AutoCompaction, {}, {}, replacement, failWith, waitGate};
    }

    // For AgentSession::setClientFactory: every client the session asks for is this one.
    static std::function<Result<std::shared_ptr<LlmClient>>(const ClientConfig &)>
    factory(const std::shared_ptr<ScriptedLlmClient> &client);

    void addTurn(const Turn &turn);
    void open(const QString &gate);

    // What each call received.
    QList<MessageList> requests() const;
    QList<StreamOptions> options() const;
    // The names of the tools each call was offered.
    QList<QStringList> toolNames() const;
    // What each RunTool step's tool_end carried.
    QList<ToolCallInfo> toolResults() const;
    int resetCount() const;
    // How many Tool steps have sent their tool_start and are about to ask.
    int toolsStarted() const;
    // Set when an applied compaction's commit was rejected by the app.
    bool commitRejected() const;

    void streamChat(const MessageList &messages, const ToolRegistry *tools, const StreamOptions &options,
                    const CancellationToken &cancel, const EventSink &sink) override;
    void reset() override;

private:
    bool waitFor(const QString &gate, const CancellationToken &cancel);

    mutable QMutex m_mutex;
    QWaitCondition m_changed;
    QList<Turn> m_turns;
    QSet<QString> m_open;
    QList<MessageList> m_requests;
    QList<StreamOptions> m_options;
    QList<QStringList> m_toolNames;
    QList<ToolCallInfo> m_toolResults;
    int m_resets = 0;
    int m_toolsStarted = 0;
    bool m_commitRejected = false;
};

} // namespace keen::test
