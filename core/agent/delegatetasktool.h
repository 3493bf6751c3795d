#pragma once

#include "agent/subagentcatalog.h"
#include "base/result.h"
#include "conversation/tokenusage.h"
#include "tools/tool.h"
#include "tools/toolregistry.h"

#include <QCoreApplication>

#include <functional>
#include <memory>

namespace keen {

class LlmClient;
class McpHub;

// delegate_task (reference 2.2, 7.3): hands 1 to 10 tasks to subagent profiles, which run in parallel, each a
// one-shot tool loop with a fresh context and its own client, and returns their answers. Children cannot
// delegate or ask the person; their tool calls are approved without asking, as in a headless run: the
// filesystem guard holds, dangerous commands and paths outside the folder are refused (except in yolo
// mode), and plan mode keeps them read-only. In build mode, when a child may change files, run commands,
// fetch pages or call MCP tools, the person is asked once for the whole call.
class DelegateTaskTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(DelegateTaskTool)

public:
    static constexpr int MaxTasks = 10;
    // A child's answer longer than this reaches the model as its start and end.
    static constexpr qsizetype MaxAnswerChars = 64 * 1024;
    // How often the waiting call looks at its children (activity lines, timeouts, cancellation).
    static constexpr int PollMs = 50;

    // The child's client for a profile: its provider and model, or the parent's.
    using ClientMaker = std::function<Result<std::shared_ptr<LlmClient>>(const SubagentCatalog::Profile &)>;
    // Every child's token usage, for the usage ledger; called on the worker thread.
    using UsageRecorder =
        std::function<void(const SubagentCatalog::Profile &profile, const TokenUsage &usage)>;

    // home: where the person's profile folders are (tests give a temporary one). mcp: the session's MCP
    // servers, for children allowed them (null: none).
    DelegateTaskTool(ClientMaker makeClient, UsageRecorder recordUsage, const QString &home,
                     std::shared_ptr<McpHub> mcp = nullptr);

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;

    // The tools a child of profile gets: the permissions' tools, or every tool but delegate_task and
    // ask_user (call_mcp_tool too, with mcp); in the parent's context (its mode included), asking approver
    // instead of a person.
    static ToolRegistry childTools(const SubagentCatalog::Profile &profile, const ToolContext &parent,
                                   PermissionRequester *approver,
                                   const std::shared_ptr<McpHub> &mcp = nullptr);

private:
    ClientMaker m_makeClient;
    UsageRecorder m_recordUsage;
    QString m_home;
    std::shared_ptr<McpHub> m_mcp;
};

} // namespace keen
