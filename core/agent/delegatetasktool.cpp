#include "agent/delegatetasktool.h"

#include "agent/subagentrun.h"
#include "agent/systemprompt.h"
#include "loop/llmclient.h"
#include "mcp/callmcptooltool.h"
#include "tools/defaulttools.h"
#include "tools/permissionpolicy.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>

namespace keen {

namespace {

const QString Required =
    QStringLiteral("{\"tasks\":[{\"agent\":\"<subagent name>\",\"task\":\"<complete task description>\"}]}");
constexpr qsizetype ShownActivityLines = 12;
constexpr qsizetype TaskEchoChars = 200;

QString cutAnswer(const QString &answer)
{
    if (answer.size() <= DelegateTaskTool::MaxAnswerChars)
        return answer;
    const qsizetype head = DelegateTaskTool::MaxAnswerChars * 3 / 4;
    const qsizetype tail = DelegateTaskTool::MaxAnswerChars / 4;
    return answer.left(head) +
           QStringLiteral("\n\n... (%1 characters omitted) ...\n\n").arg(answer.size() - head - tail) +
           answer.right(tail);
}

QString statusName(SubagentRun::Status status)
{
    switch (status) {
    case SubagentRun::Status::Completed:
        return QStringLiteral("completed");
    case SubagentRun::Status::TimedOut:
        return QStringLiteral("timed_out");
    case SubagentRun::Status::Cancelled:
        return QStringLiteral("cancelled");
    default:
        return QStringLiteral("failed");
    }
}

struct Task
{
    SubagentCatalog::Profile profile;
    QString text;
    QString label;
    QString error; // set when the child could not start
    std::unique_ptr<SubagentRun> run;
};

} // namespace

DelegateTaskTool::DelegateTaskTool(ClientMaker makeClient, UsageRecorder recordUsage, const QString &home,
                                   std::shared_ptr<McpHub> mcp)
    : m_makeClient(std::move(makeClient))
    , m_recordUsage(std::move(recordUsage))
    , m_home(home)
    , m_mcp(std::move(mcp))
{}

QString DelegateTaskTool::name() const
{
    return QStringLiteral("delegate_task");
}

QString DelegateTaskTool::description() const
{
    return QStringLiteral(
        "Hand 1 to 10 self-contained tasks to the subagents listed under Available Subagents in the system "
        "prompt. Tasks run in parallel; each subagent starts with a fresh context (it does not see this "
        "conversation), works with its own tools and returns a final answer. Write each task with everything "
        "it needs: the goal, the relevant files, constraints and what to report. Returns the answers and "
        "counts of completed and failed tasks.");
}

QJsonObject DelegateTaskTool::inputSchema() const
{
    const QJsonObject task{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{{QStringLiteral("agent"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                  {QStringLiteral("description"), QStringLiteral("The subagent's name")}}},
                     {QStringLiteral("task"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                  {QStringLiteral("description"),
                                   QStringLiteral("The complete task, with all the context it needs")}}}}},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("agent"), QStringLiteral("task")}},
        {QStringLiteral("additionalProperties"), false},
    };
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{{QStringLiteral("tasks"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                           {QStringLiteral("items"), task},
                                                           {QStringLiteral("minItems"), 1},
                                                           {QStringLiteral("maxItems"), MaxTasks}}}}},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("tasks")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString DelegateTaskTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    const QJsonValue tasks = input.value(QLatin1String("tasks"));
    if (tasks.isUndefined() || tasks.isNull())
        return ToolInput::missingRequired(tool, QStringLiteral("tasks"), Required);
    if (QString error = ToolInput::unknownParameters(tool, input, {QStringLiteral("tasks")});
        !error.isEmpty())
        return error;
    const QJsonArray list = tasks.toArray();
    if (!tasks.isArray() || list.isEmpty() || list.size() > MaxTasks)
        return ToolInput::wrongType(tool, QStringLiteral("tasks"),
                                    tr("an array of 1 to %1 tasks").arg(MaxTasks));
    int number = 0;
    for (const QJsonValue &value : list) {
        ++number;
        const QJsonObject task = value.toObject();
        if (!value.isObject() || task.value(QLatin1String("agent")).toString().trimmed().isEmpty() ||
            task.value(QLatin1String("task")).toString().trimmed().isEmpty())
            return tr("invalid input: task %1 needs a non-empty \"agent\" and \"task\". Retry delegate_task "
                      "with: %2")
                .arg(number)
                .arg(Required);
    }
    return {};
}

ToolRegistry DelegateTaskTool::childTools(const SubagentCatalog::Profile &profile, const ToolContext &parent,
                                          PermissionRequester *approver, const std::shared_ptr<McpHub> &mcp)
{
    ToolRegistry all =
        createDefaultTools(false).without({QStringLiteral("delegate_task"), QStringLiteral("ask_user")});
    if (mcp)
        all.add(std::make_shared<CallMcpToolTool>(mcp));
    ToolRegistry tools;
    if (profile.permissions.isEmpty()) {
        tools = all;
    } else {
        for (const QString &permission : profile.permissions) {
            for (const QString &toolName : SubagentCatalog::toolsFor(permission)) {
                if (std::shared_ptr<Tool> tool = all.find(toolName))
                    tools.add(tool);
            }
        }
    }
    ToolContext context = parent;
    context.permissions = approver;
    context.interactive = false;
    context.askUser = {};
    context.outputProgress = {};
    tools.setContext(context);
    return tools;
}

ToolResult DelegateTaskTool::execute(const QJsonObject &input, ToolContext &context)
{
    const SubagentCatalog catalog = SubagentCatalog::discover(context.workspace, context.dataDir, m_home);
    std::vector<Task> tasks;
    QHash<QString, int> uses;
    for (const QJsonValue &value : input.value(QLatin1String("tasks")).toArray()) {
        const QJsonObject object = value.toObject();
        const QString agent = object.value(QLatin1String("agent")).toString().trimmed();
        const std::optional<SubagentCatalog::Profile> profile = catalog.find(agent);
        if (!profile) {
            QStringList names;
            for (const SubagentCatalog::Profile &known : catalog.visibleProfiles())
                names.append(known.name);
            return ToolResult::failure(
                names.isEmpty() ? tr("no subagent named \"%1\": no subagents are defined").arg(agent)
                                : tr("no subagent named \"%1\"; available: %2")
                                      .arg(agent, names.join(QStringLiteral(", "))));
        }
        Task task;
        task.profile = *profile;
        task.text = object.value(QLatin1String("task")).toString();
        ++uses[agent];
        tasks.push_back(std::move(task));
    }
    QHash<QString, int> numbered;
    for (Task &task : tasks) {
        const QString &agent = task.profile.name;
        task.label =
            uses.value(agent) > 1 ? QStringLiteral("%1-%2").arg(agent).arg(++numbered[agent]) : agent;
    }

    // Children ask no one: in build mode the person agrees once to what they may do.
    PermissionPolicy approver(context.workspace, nullptr, true);
    QList<ToolRegistry> registries;
    bool mayChange = false;
    for (const Task &task : tasks) {
        registries.append(childTools(task.profile, context, &approver, m_mcp));
        // What the person would be asked about one by one: changes, commands, pages fetched (a URL can carry
        // what a child read) and MCP calls.
        for (const char *toolName : {"bash", "edit_file", "write_file", "web_fetch", "call_mcp_tool"})
            mayChange = mayChange || registries.constLast().find(QLatin1String(toolName));
    }
    if (mayChange && context.mode == AgentMode::Build) {
        PermissionRequest request;
        request.toolName = name();
        QStringList lines;
        for (const Task &task : tasks)
            lines.append(task.label + QStringLiteral(": ") + task.text.section(QLatin1Char('\n'), 0, 0));
        request.command = lines.join(QLatin1Char('\n'));
        request.summary =
            tr("Subagents change files, run commands, fetch pages and call MCP tools without asking");
        const PermissionDecision decision = ToolPermissions::ask(context, request);
        if (decision != PermissionDecision::Allow && decision != PermissionDecision::AllowForSession)
            return ToolPermissions::refusal(decision, request, context);
    }
    if (context.cancel.isCancelled())
        return ToolResult::failure(tr("cancelled"));

    for (qsizetype i = 0; i < qsizetype(tasks.size()); ++i) {
        Task &task = tasks[i];
        Result<std::shared_ptr<LlmClient>> client = m_makeClient(task.profile);
        if (!client) {
            task.error = client.error();
            continue;
        }
        const MessageList request = {
            Message::system(SystemPromptBuilder::subagent(task.profile.name, task.profile.body,
                                                          context.workspace, context.dataDir, context.mode)),
            Message::user(task.text)};
        task.run = std::make_unique<SubagentRun>(task.label, *client, request,
                                                 std::make_shared<const ToolRegistry>(registries.at(i)),
                                                 task.profile.timeoutSeconds);
        task.run->start();
    }

    // Wait for every child, showing what they do on the call's card.
    QStringList activity;
    for (const Task &task : tasks) {
        if (!task.error.isEmpty())
            activity.append(tr("[%1] could not start: %2").arg(task.label, task.error));
    }
    bool cancelled = false;
    while (true) {
        bool running = false;
        for (Task &task : tasks) {
            if (task.run && !task.run->wait(running ? 0 : PollMs))
                running = true;
        }
        qsizetype before = activity.size();
        for (Task &task : tasks) {
            if (task.run)
                activity += task.run->takeActivity();
        }
        if (activity.size() > before && context.outputProgress) {
            const qsizetype shown = std::min(activity.size(), ShownActivityLines);
            context.outputProgress(activity.mid(activity.size() - shown).join(QLatin1Char('\n')),
                                   activity.size() - shown);
        }
        if (!running)
            break;
        if (context.cancel.isCancelled() && !cancelled) {
            cancelled = true;
            for (Task &task : tasks) {
                if (task.run)
                    task.run->cancel();
            }
        }
    }
    if (cancelled)
        return ToolResult::failure(tr("cancelled"));

    int completed = 0;
    int failed = 0;
    QJsonObject completedBy;
    QJsonObject failedBy;
    QJsonArray results;
    QStringList failures;
    for (const Task &task : tasks) {
        QJsonObject result{{QStringLiteral("agent"), task.label},
                           {QStringLiteral("task"), task.text.left(TaskEchoChars)}};
        const SubagentRun::Status status = task.run ? task.run->status() : SubagentRun::Status::Failed;
        result.insert(QStringLiteral("status"), statusName(status));
        if (task.run) {
            result.insert(QStringLiteral("duration_ms"), task.run->elapsedMs());
            result.insert(QStringLiteral("tool_calls"), task.run->toolCalls());
            if (const std::optional<TokenUsage> usage = task.run->usage(); usage && m_recordUsage)
                m_recordUsage(task.profile, *usage);
        }
        const QString &agent = task.profile.name;
        if (status == SubagentRun::Status::Completed) {
            ++completed;
            completedBy.insert(agent, completedBy.value(agent).toInt() + 1);
            const QString answer = task.run->answer();
            result.insert(QStringLiteral("output"), answer.isEmpty()
                                                        ? tr("(the subagent finished without an answer)")
                                                        : cutAnswer(answer));
        } else {
            ++failed;
            failedBy.insert(agent, failedBy.value(agent).toInt() + 1);
            const QString error = task.run ? task.run->error() : task.error;
            result.insert(QStringLiteral("error"), error);
            failures.append(task.label + QStringLiteral(": ") + error);
        }
        results.append(result);
    }
    if (completed == 0)
        return ToolResult::failure(
            tr("every delegated task failed: %1").arg(failures.join(QStringLiteral("; "))));
    return ToolResult::success(QJsonObject{{QStringLiteral("completed"), completed},
                                           {QStringLiteral("failed"), failed},
                                           {QStringLiteral("completed_by_agent"), completedBy},
                                           {QStringLiteral("failed_by_agent"), failedBy},
                                           {QStringLiteral("results"), results}});
}

} // namespace keen
