#include "agent/agentsession.h"
#include "agent/delegatetasktool.h"
#include "agent/subagentcatalog.h"
#include "agent/systemprompt.h"
#include "fakeproviderserver.h"
#include "headless/headlessrunner.h"
#include "loop/toolloopclient.h"
#include "mcp/mcphub.h"
#include "providerscript.h"
#include "scriptedllmclient.h"
#include "testenvironment.h"
#include "tools/defaulttools.h"
#include "tools/permissionpolicy.h"
#include "tools/permissionrequester.h"
#include "tools/toolpermissions.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <sys/stat.h>

using namespace keen;
using keen::test::FakeProviderServer;
using keen::test::ScriptedLlmClient;
namespace ProviderScript = keen::test::ProviderScript;

// Subagents (reference 2.2 delegate_task, 7.3): what a person who drops a profile into .agents/agents gets
// (/subagents, the model's catalog), and what the model gets when it hands tasks to them: children that run
// in parallel with a fresh context and their own tools, answers in the tool result, timeouts and failures
// that say what happened, and no way for a child to ask, delegate or escape the folder.
class TestSubagents : public QObject
{
    Q_OBJECT

private:
    static void write(const QString &path, const QByteArray &bytes) { QVERIFY(test::writeFile(path, bytes)); }

    static QByteArray profile(const QByteArray &name, const QByteArray &extra = QByteArray(),
                              const QByteArray &body = "Work carefully.")
    {
        return "---\nname: " + name + "\ndescription: The " + name + " subagent\n" + extra + "---\n" + body +
               "\n";
    }

    static QStringList names(const QList<SubagentCatalog::Profile> &profiles)
    {
        QStringList result;
        for (const SubagentCatalog::Profile &profile : profiles)
            result.append(profile.name);
        return result;
    }

private Q_SLOTS:
    void profilesAreParsed();
    void badProfilesSayWhatIsWrong();
    void discoveryOrderDuplicatesAndHidden();
    void systemPromptsListTheCatalogAndBoundTheChild();
    void childToolsFollowThePermissions();
    void tasksRunInParallelAndReport();
    void timeoutsFailuresAndCancellation();
    void buildModeAsksOncePlanModeKeepsChildrenReadOnly();
    void childrenCannotDelegateAskOrRunDangerousCommands();
    void unknownAgentsAndBadInput();
    void tenChildrenAndLongAnswers();
    void headlessRunDelegates_data();
    void headlessRunDelegates();
};

void TestSubagents::profilesAreParsed()
{
    const auto parsed = SubagentCatalog::parse(
        QStringLiteral("/p/.agents/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: >\n  Reviews a change\n  for bugs.\nprovider: anthropic\n"
        "model: claude-sonnet-4-5\nthinking_effort: high\npermissions:\n  - read\n  - bash\n"
        "timeout_seconds: 600\nhidden: false\n---\n# Reviewer\nLook for bugs.\n");
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(parsed->name, QStringLiteral("reviewer"));
    QCOMPARE(parsed->description, QStringLiteral("Reviews a change for bugs."));
    QCOMPARE(parsed->provider, QStringLiteral("anthropic"));
    QCOMPARE(parsed->model, QStringLiteral("claude-sonnet-4-5"));
    QCOMPARE(parsed->thinkingEffort, QStringLiteral("high"));
    QCOMPARE(parsed->permissions, (QStringList{QStringLiteral("read"), QStringLiteral("bash")}));
    QCOMPARE(parsed->timeoutSeconds, 600);
    QVERIFY(!parsed->hidden);
    QCOMPARE(parsed->body, QStringLiteral("# Reviewer\nLook for bugs."));

    // The flow form, a list at the key's indentation, and a comma list are the same list.
    for (const QByteArray &form :
         {QByteArray("permissions: [read, \"web\"]\n"), QByteArray("permissions:\n- read\n- web\n"),
          QByteArray("permissions: read, web\n")}) {
        const auto listed = SubagentCatalog::parse(QStringLiteral("/p/a.md"), profile("scout", form));
        QVERIFY2(listed.ok(), qPrintable(listed.error()));
        QCOMPARE(listed->permissions, (QStringList{QStringLiteral("read"), QStringLiteral("web")}));
    }

    // Defaults: the parent's model and tools, 30 minutes; Claude Code's `model: inherit` is the parent's.
    const auto plain =
        SubagentCatalog::parse(QStringLiteral("/p/b.md"), profile("helper", "model: inherit\n"));
    QVERIFY2(plain.ok(), qPrintable(plain.error()));
    QVERIFY(plain->provider.isEmpty() && plain->model.isEmpty() && plain->permissions.isEmpty());
    QCOMPARE(plain->timeoutSeconds, SubagentCatalog::DefaultTimeoutSeconds);
    const auto hidden = SubagentCatalog::parse(QStringLiteral("/p/c.md"), profile("quiet", "hidden: true\n"));
    QVERIFY(hidden.ok() && hidden->hidden);
}

void TestSubagents::badProfilesSayWhatIsWrong()
{
    const QString path = QStringLiteral("/p/x.md");
    const auto expectError = [&path](const QByteArray &bytes, const QString &expected) {
        const auto parsed = SubagentCatalog::parse(path, bytes);
        QVERIFY2(!parsed.ok(), qPrintable(expected));
        QVERIFY2(parsed.error().startsWith(path) && parsed.error().contains(expected),
                 qPrintable(parsed.error()));
    };
    expectError("no front matter\n", QStringLiteral("has no front matter"));
    expectError("---\ndescription: d\n---\n", QStringLiteral("has no name"));
    expectError("---\nname: x\n---\n", QStringLiteral("has no description"));
    expectError(profile("two words"), QStringLiteral("must be one word"));
    expectError(profile("a", "model: gpt-5\n"), QStringLiteral("provider and model go together"));
    expectError(profile("a", "provider: openai\n"), QStringLiteral("provider and model go together"));
    expectError(profile("a", "permissions: []\n"), QStringLiteral("permissions is empty"));
    expectError(profile("a", "permissions: [read, admin]\n"),
                QStringLiteral("unknown permission \"admin\" (use read, write, bash, web or mcp)"));
    expectError(profile("a", "timeout_seconds: soon\n"),
                QStringLiteral("timeout_seconds must be a positive"));
    expectError(profile("a", "timeout_seconds: 0\n"), QStringLiteral("timeout_seconds must be a positive"));
    // A registry model's efforts are known: a typo is named with the valid ones.
    expectError(profile("a", "provider: googleai\nmodel: gemini-3.1-pro-preview\nthinking_effort: max\n"),
                QStringLiteral("thinking_effort \"max\" is not one of googleai/gemini-3.1-pro-preview's "
                               "(low, medium, high)"));
    expectError(profile("a", "provider: moonshotai\nmodel: kimi-k2.7-code\nthinking_effort: high\n"),
                QStringLiteral("moonshotai/kimi-k2.7-code has no thinking efforts"));
    // A model the registry does not know (a local server's) takes whatever is written.
    QVERIFY(SubagentCatalog::parse(path,
                                   profile("a", "provider: ollama\nmodel: qwen9\nthinking_effort: high\n")));
}

void TestSubagents::discoveryOrderDuplicatesAndHidden()
{
    QTemporaryDir workspace;
    QTemporaryDir home;
    test::TestEnvironment env;
    const QString dataDir = env.path(QString());
    write(workspace.filePath(QStringLiteral(".agents/agents/reviewer.md")), profile("reviewer"));
    write(workspace.filePath(QStringLiteral(".claude/agents/tester.md")), profile("tester"));
    write(workspace.filePath(QStringLiteral(".claude/agents/notes.txt")), "not a profile");
    write(workspace.filePath(QStringLiteral(".keen/agents/broken.md")), "no front matter\n");
    write(home.filePath(QStringLiteral(".claude/agents/reviewer.md")), profile("reviewer"));
    write(home.filePath(QStringLiteral(".keen/agents/secret.md")), profile("secret", "hidden: true\n"));
    write(QDir(dataDir).filePath(QStringLiteral("agents/docs.md")), profile("docs"));
    const QString unreadable = home.filePath(QStringLiteral(".agents/agents/locked.md"));
    write(unreadable, profile("locked"));
    QVERIFY(::chmod(QFile::encodeName(unreadable).constData(), 0) == 0);

    const SubagentCatalog catalog = SubagentCatalog::discover(workspace.path(), dataDir, home.path());
    const bool root = ::geteuid() == 0; // root reads any file
    QStringList expected = {QStringLiteral("reviewer"), QStringLiteral("tester"), QStringLiteral("docs"),
                            QStringLiteral("secret")};
    if (root)
        expected.insert(2, QStringLiteral("locked"));
    QCOMPARE(names(catalog.profiles()), expected);
    QCOMPARE(catalog.find(QStringLiteral("reviewer"))->path,
             workspace.filePath(QStringLiteral(".agents/agents/reviewer.md")));
    const QString warnings = catalog.warnings().join(QLatin1Char('\n'));
    QVERIFY2(warnings.contains(QStringLiteral("The subagent reviewer in ") +
                               home.filePath(QStringLiteral(".claude/agents/reviewer.md")) +
                               QStringLiteral(" is hidden by the one in ")),
             qPrintable(warnings));
    QVERIFY2(warnings.contains(workspace.filePath(QStringLiteral(".keen/agents/broken.md")) +
                               QStringLiteral(" has no front matter")),
             qPrintable(warnings));
    if (!root)
        QVERIFY2(warnings.contains(unreadable), qPrintable(warnings));

    // Hidden profiles are callable by name but listed nowhere.
    expected.removeAll(QStringLiteral("secret"));
    QCOMPARE(names(catalog.visibleProfiles()), expected);
    const QString section = catalog.promptSection();
    QVERIFY(section.startsWith(QStringLiteral("## Available Subagents\n\n")));
    QVERIFY(section.contains(QStringLiteral("delegate_task")));
    QVERIFY(section.contains(
        QStringLiteral("- reviewer: The reviewer subagent\n- tester: The tester subagent\n")));
    QVERIFY(section.endsWith(QStringLiteral("- docs: The docs subagent")));
    QVERIFY(!section.contains(QStringLiteral("secret")));
    const QString table = catalog.markdownTable();
    QVERIFY2(table.contains(QStringLiteral("| `reviewer` | The reviewer subagent | this conversation's | "
                                           "this conversation's |")),
             qPrintable(table));
    QVERIFY(!table.contains(QStringLiteral("`secret`")));
    QVERIFY(table.contains(QStringLiteral("**Warnings**")));

    const SubagentCatalog none = SubagentCatalog::discover(
        home.path() + QStringLiteral("/nothing"), QString(), home.path() + QStringLiteral("/nothing"));
    QVERIFY(none.isEmpty());
    QVERIFY(none.promptSection().isEmpty());
    QVERIFY(none.markdownTable().contains(QStringLiteral("No subagents found.")));
}

void TestSubagents::systemPromptsListTheCatalogAndBoundTheChild()
{
    test::TestEnvironment env;
    const QString workspace = env.path(QStringLiteral("work"));
    const QString dataDir = env.path(QString());
    write(QDir(workspace).filePath(QStringLiteral(".agents/agents/reviewer.md")), profile("reviewer"));
    write(QDir(workspace).filePath(QStringLiteral(".agents/agents/quiet.md")),
          profile("quiet", "hidden: yes\n"));
    write(QDir(workspace).filePath(QStringLiteral("AGENTS.md")), "Use tabs.\n");
    write(QDir(workspace).filePath(QStringLiteral(".keen/MEMORY.md")), "The parser is slow.\n");

    const QString parent = SystemPromptBuilder::build(workspace, dataDir);
    QVERIFY2(parent.contains(QStringLiteral("## Available Subagents")), qPrintable(parent));
    QVERIFY(parent.contains(QStringLiteral("- reviewer: The reviewer subagent")));
    QVERIFY(!parent.contains(QStringLiteral("quiet")));
    // The catalog comes before the memory, the mode last (S20).
    QVERIFY(parent.indexOf(QStringLiteral("## Available Subagents")) <
            parent.indexOf(QStringLiteral("## Project memory")));

    const QString child = SystemPromptBuilder::subagent(
        QStringLiteral("reviewer"), QStringLiteral("Look for bugs."), workspace, dataDir, AgentMode::Build);
    QVERIFY(child.startsWith(QStringLiteral("# Mandatory Security Instructions\n")));
    QVERIFY(child.contains(QStringLiteral("Working directory: ") + QDir(workspace).absolutePath()));
    QVERIFY(child.contains(QStringLiteral("Use tabs.")));
    QVERIFY(child.contains(QStringLiteral("# Subagent: reviewer\n\nLook for bugs.")));
    QVERIFY(child.contains(QStringLiteral("# Mandatory Subagent Boundary")));
    QVERIFY(child.contains(QStringLiteral("## Available Skills"))); // the bundled ones at least
    // No memory, no catalog of subagents, no mode section in build mode.
    QVERIFY(!child.contains(QStringLiteral("The parser is slow.")));
    QVERIFY(!child.contains(QStringLiteral("## Available Subagents")));
    QVERIFY(!child.contains(QStringLiteral("# Mode")));
    const QString planned = SystemPromptBuilder::subagent(QStringLiteral("reviewer"), QString(), workspace,
                                                          dataDir, AgentMode::Plan);
    QVERIFY(planned.endsWith(SystemPromptBuilder::modeSection(AgentMode::Plan)));
    QVERIFY(!planned.contains(QStringLiteral("# Subagent:")));
}

void TestSubagents::childToolsFollowThePermissions()
{
    ToolContext parent;
    parent.workspace = QStringLiteral("/w");
    parent.interactive = true;
    parent.mode = AgentMode::Plan;
    parent.askUser = [](const QJsonObject &, const CancellationToken &) { return QJsonObject(); };
    PermissionPolicy approver(parent.workspace, nullptr, true);

    SubagentCatalog::Profile profile;
    profile.permissions = {QStringLiteral("read")};
    ToolRegistry read = DelegateTaskTool::childTools(profile, parent, &approver);
    QCOMPARE(read.names(),
             (QStringList{QStringLiteral("glob"), QStringLiteral("grep"), QStringLiteral("read_file")}));
    QCOMPARE(read.context().permissions, &approver);
    QVERIFY(!read.context().interactive && !read.context().askUser);
    QCOMPARE(read.context().mode, AgentMode::Plan);
    QCOMPARE(read.context().workspace, QStringLiteral("/w"));

    profile.permissions = {QStringLiteral("write"), QStringLiteral("bash")};
    QCOMPARE(
        DelegateTaskTool::childTools(profile, parent, &approver).names(),
        (QStringList{QStringLiteral("bash"), QStringLiteral("edit_file"), QStringLiteral("write_file")}));

    // Without permissions: every tool the session has, except asking the person and delegating.
    profile.permissions.clear();
    const QStringList all = DelegateTaskTool::childTools(profile, parent, &approver).names();
    QStringList expected = createDefaultTools(false).names();
    expected.removeAll(QStringLiteral("delegate_task"));
    QCOMPARE(all, expected);
    QVERIFY(!all.contains(QStringLiteral("ask_user")) && all.contains(QStringLiteral("bash")));

    // MCP: a child gets call_mcp_tool with the session's servers, when its permissions say mcp or it has
    // the conversation's tools; not otherwise, and never without servers.
    QTemporaryDir data;
    const auto hub = std::make_shared<McpHub>(parent.workspace, data.path(), QStringList());
    profile.permissions = {QStringLiteral("read"), QStringLiteral("mcp")};
    QVERIFY(
        SubagentCatalog::parse(QStringLiteral("/p/m.md"), this->profile("m", "permissions: [read, mcp]\n")));
    QVERIFY(DelegateTaskTool::childTools(profile, parent, &approver, hub)
                .names()
                .contains(QStringLiteral("call_mcp_tool")));
    QVERIFY(!DelegateTaskTool::childTools(profile, parent, &approver)
                 .names()
                 .contains(QStringLiteral("call_mcp_tool")));
    profile.permissions = {QStringLiteral("read")};
    QVERIFY(!DelegateTaskTool::childTools(profile, parent, &approver, hub)
                 .names()
                 .contains(QStringLiteral("call_mcp_tool")));
    profile.permissions.clear();
    QVERIFY(DelegateTaskTool::childTools(profile, parent, &approver, hub)
                .names()
                .contains(QStringLiteral("call_mcp_tool")));
}

namespace {

// A child's client per profile name, each playing its own script; counts the clients made.
struct Children
{
    QMutex mutex;
    QHash<QString, std::shared_ptr<ScriptedLlmClient>> clients;
    QStringList made;
    QString refuse; // a profile whose client cannot be made

    std::shared_ptr<ScriptedLlmClient> client(const QString &name)
    {
        QMutexLocker lock(&mutex);
        auto &client = clients[name];
        if (!client)
            client = std::make_shared<ScriptedLlmClient>();
        return client;
    }

    DelegateTaskTool::ClientMaker maker()
    {
        return [this](const SubagentCatalog::Profile &profile) -> Result<std::shared_ptr<LlmClient>> {
            {
                QMutexLocker lock(&mutex);
                made.append(profile.name);
            }
            if (profile.name == refuse)
                return Result<std::shared_ptr<LlmClient>>::failure(
                    QStringLiteral("no key for that provider"));
            return std::static_pointer_cast<LlmClient>(client(profile.name));
        };
    }
};

// Remembers every permission request and answers with one decision.
class RecordingRequester final : public PermissionRequester
{
public:
    explicit RecordingRequester(PermissionDecision answer)
        : m_answer(answer)
    {}
    PermissionDecision request(const PermissionRequest &request, const CancellationToken &) override
    {
        QMutexLocker lock(&m_mutex);
        m_requests.append(request);
        return m_answer;
    }
    QList<PermissionRequest> requests() const
    {
        QMutexLocker lock(&m_mutex);
        return m_requests;
    }

private:
    mutable QMutex m_mutex;
    PermissionDecision m_answer;
    QList<PermissionRequest> m_requests;
};

// A workspace with profiles, and the context a session's tools get there.
struct Folder
{
    test::TestEnvironment env;
    QTemporaryDir home;
    QString workspace = env.path(QStringLiteral("work"));

    void add(const QByteArray &name, const QByteArray &extra = QByteArray())
    {
        QVERIFY(test::writeFile(
            QDir(workspace).filePath(QStringLiteral(".agents/agents/%1.md").arg(QString::fromUtf8(name))),
            profile(name, extra)));
    }

    ToolContext context(PermissionRequester *person, AgentMode mode = AgentMode::Build) const
    {
        ToolContext context;
        context.workspace = workspace;
        context.dataDir = env.path(QString());
        context.permissions = person;
        context.mode = mode;
        return context;
    }

    static QByteArray profile(const QByteArray &name, const QByteArray &extra)
    {
        return "---\nname: " + name + "\ndescription: The " + name + " subagent\n" + extra +
               "---\nBe brief.\n";
    }
};

QJsonObject tasks(const QList<QPair<QString, QString>> &list)
{
    QJsonArray array;
    for (const auto &[agent, task] : list)
        array.append(QJsonObject{{QStringLiteral("agent"), agent}, {QStringLiteral("task"), task}});
    return QJsonObject{{QStringLiteral("tasks"), array}};
}

QJsonObject resultFor(const QJsonObject &output, const QString &agent)
{
    for (const QJsonValue &value : output.value(QStringLiteral("results")).toArray()) {
        if (value.toObject().value(QStringLiteral("agent")).toString() == agent)
            return value.toObject();
    }
    return {};
}

ScriptedLlmClient::Step usage(qint64 input, qint64 output)
{
    TokenUsage tokens;
    tokens.inputTokens = input;
    tokens.outputTokens = output;
    return ScriptedLlmClient::event(StreamEvent::usageReport(tokens));
}

} // namespace

void TestSubagents::tasksRunInParallelAndReport()
{
    Folder folder;
    folder.add("reviewer", "permissions: [read]\n");
    folder.add("tester", "permissions: [read]\n");
    QVERIFY(test::writeFile(QDir(folder.workspace).filePath(QStringLiteral("src/a.cpp")), "int a;\n"));
    Children children;
    // The reviewer waits until the test says so; the tester finishes meanwhile: both run at once.
    children.client(QStringLiteral("reviewer"))
        ->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Reading.")),
                   ScriptedLlmClient::gate(QStringLiteral("r")),
                   ScriptedLlmClient::chunk(QStringLiteral("No bugs found.")), usage(100, 20),
                   ScriptedLlmClient::event(StreamEvent::done())});
    children.client(QStringLiteral("tester"))
        ->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Let me look.")),
                   ScriptedLlmClient::runTool(QStringLiteral("read_file"),
                                              {{QStringLiteral("path"), QStringLiteral("src/a.cpp")}}),
                   ScriptedLlmClient::chunk(QStringLiteral("src/a.cpp declares a.")), usage(300, 40),
                   ScriptedLlmClient::event(StreamEvent::done())});
    QMutex recordedMutex;
    QList<QPair<QString, TokenUsage>> recorded;
    DelegateTaskTool tool(
        children.maker(),
        [&](const SubagentCatalog::Profile &profile, const TokenUsage &tokens) {
            QMutexLocker lock(&recordedMutex);
            recorded.append({profile.name, tokens});
        },
        folder.home.path());
    RecordingRequester person(PermissionDecision::Deny);
    ToolContext context = folder.context(&person);
    QMutex progressMutex;
    QStringList progress;
    context.outputProgress = [&](const QString &recent, qint64) {
        QMutexLocker lock(&progressMutex);
        progress.append(recent);
    };

    const QJsonObject input =
        tasks({{QStringLiteral("reviewer"), QStringLiteral("Review src/ for bugs.")},
               {QStringLiteral("tester"), QStringLiteral("What does src/a.cpp declare?")}});
    QCOMPARE(tool.validateInput(input), QString());
    QFuture<ToolResult> running = QtConcurrent::run([&] { return tool.execute(input, context); });
    QTRY_COMPARE(children.client(QStringLiteral("tester"))->toolResults().size(), 1);
    QTRY_VERIFY([&] {
        QMutexLocker lock(&progressMutex);
        return !progress.isEmpty() && progress.constLast().contains(QStringLiteral("[tester] done"));
    }());
    QVERIFY(!running.isFinished()); // the reviewer still works
    children.client(QStringLiteral("reviewer"))->open(QStringLiteral("r"));
    const ToolResult result = running.result();

    QVERIFY2(result.ok(), qPrintable(result.error));
    QVERIFY(person.requests().isEmpty()); // read-only children: nothing to agree to
    const QJsonObject output = result.output.toObject();
    QCOMPARE(output.value(QStringLiteral("completed")).toInt(), 2);
    QCOMPARE(output.value(QStringLiteral("failed")).toInt(), 0);
    QCOMPARE(output.value(QStringLiteral("completed_by_agent")).toObject(),
             (QJsonObject{{QStringLiteral("reviewer"), 1}, {QStringLiteral("tester"), 1}}));
    const QJsonObject tester = resultFor(output, QStringLiteral("tester"));
    QCOMPARE(tester.value(QStringLiteral("status")).toString(), QStringLiteral("completed"));
    // The answer is what the child said after its last tool call.
    QCOMPARE(tester.value(QStringLiteral("output")).toString(), QStringLiteral("src/a.cpp declares a."));
    QCOMPARE(tester.value(QStringLiteral("tool_calls")).toInt(), 1);
    QCOMPARE(resultFor(output, QStringLiteral("reviewer")).value(QStringLiteral("output")).toString(),
             QStringLiteral("Reading.No bugs found."));
    QVERIFY(children.client(QStringLiteral("tester"))->toolResults().constFirst().error.isEmpty());

    // Each child got a fresh context: its own system prompt and the task, nothing of the parent's.
    const MessageList request = children.client(QStringLiteral("tester"))->requests().constFirst();
    QCOMPARE(request.size(), 2);
    QVERIFY(request.at(0).content.contains(QStringLiteral("# Subagent: tester\n\nBe brief.")));
    QCOMPARE(request.at(1), Message::user(QStringLiteral("What does src/a.cpp declare?")));
    QVERIFY(children.client(QStringLiteral("tester"))->options().constFirst().oneShot);

    // Live activity lines on the card, and every child's tokens for the usage ledger.
    const QString shown = progress.join(QLatin1Char('\n'));
    QVERIFY2(shown.contains(QStringLiteral("[tester] Read src/a.cpp")), qPrintable(shown));
    QVERIFY(shown.contains(QStringLiteral("[reviewer] started")));
    QCOMPARE(recorded.size(), 2);
    for (const auto &[agent, tokens] : recorded)
        QCOMPARE(tokens.inputTokens, agent == QLatin1String("tester") ? 300 : 100);

    // The same profile twice: two children, told apart on the card.
    Children twice;
    twice.client(QStringLiteral("reviewer"))
        ->addTurn(
            {ScriptedLlmClient::chunk(QStringLiteral("one")), ScriptedLlmClient::event(StreamEvent::done())});
    twice.client(QStringLiteral("reviewer"))
        ->addTurn(
            {ScriptedLlmClient::chunk(QStringLiteral("two")), ScriptedLlmClient::event(StreamEvent::done())});
    DelegateTaskTool again(twice.maker(), {}, folder.home.path());
    const ToolResult both = again.execute(tasks({{QStringLiteral("reviewer"), QStringLiteral("a")},
                                                 {QStringLiteral("reviewer"), QStringLiteral("b")}}),
                                          context);
    QVERIFY2(both.ok(), qPrintable(both.error));
    QVERIFY(!resultFor(both.output.toObject(), QStringLiteral("reviewer-1")).isEmpty());
    QVERIFY(!resultFor(both.output.toObject(), QStringLiteral("reviewer-2")).isEmpty());
    QCOMPARE(both.output.toObject().value(QStringLiteral("completed_by_agent")).toObject(),
             (QJsonObject{{QStringLiteral("reviewer"), 2}}));
}

void TestSubagents::timeoutsFailuresAndCancellation()
{
    Folder folder;
    folder.add("slow", "permissions: [read]\ntimeout_seconds: 1\n");
    folder.add("quick", "permissions: [read]\n");
    folder.add("broken", "permissions: [read]\n");
    folder.add("nokey", "permissions: [read]\n");
    Children children;
    children.refuse = QStringLiteral("nokey");
    children.client(QStringLiteral("slow"))->addTurn({ScriptedLlmClient::gate(QStringLiteral("never"))});
    children.client(QStringLiteral("quick"))
        ->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Done quickly.")),
                   ScriptedLlmClient::event(StreamEvent::done())});
    children.client(QStringLiteral("broken"))
        ->addTurn({ScriptedLlmClient::event(StreamEvent::failure(QStringLiteral("HTTP 529: overloaded")))});
    DelegateTaskTool tool(children.maker(), {}, folder.home.path());
    ToolContext context = folder.context(nullptr);

    QElapsedTimer timer;
    timer.start();
    const ToolResult mixed = tool.execute(tasks({{QStringLiteral("slow"), QStringLiteral("Take your time.")},
                                                 {QStringLiteral("quick"), QStringLiteral("Be quick.")},
                                                 {QStringLiteral("broken"), QStringLiteral("Fail.")},
                                                 {QStringLiteral("nokey"), QStringLiteral("Start.")}}),
                                          context);
    QVERIFY2(mixed.ok(), qPrintable(mixed.error));
    QVERIFY(timer.elapsed() < 20000); // the timed-out child did not hold the call
    const QJsonObject output = mixed.output.toObject();
    QCOMPARE(output.value(QStringLiteral("completed")).toInt(), 1);
    QCOMPARE(output.value(QStringLiteral("failed")).toInt(), 3);
    const QJsonObject slow = resultFor(output, QStringLiteral("slow"));
    QCOMPARE(slow.value(QStringLiteral("status")).toString(), QStringLiteral("timed_out"));
    QCOMPARE(slow.value(QStringLiteral("error")).toString(), QStringLiteral("timed out after 1 s"));
    QCOMPARE(resultFor(output, QStringLiteral("broken")).value(QStringLiteral("error")).toString(),
             QStringLiteral("HTTP 529: overloaded"));
    QCOMPARE(resultFor(output, QStringLiteral("nokey")).value(QStringLiteral("error")).toString(),
             QStringLiteral("no key for that provider"));
    QCOMPARE(output.value(QStringLiteral("failed_by_agent")).toObject().size(), 3);

    // Nothing completed: the call fails, naming each child's reason.
    children.client(QStringLiteral("broken"))
        ->addTurn({ScriptedLlmClient::event(StreamEvent::failure(QStringLiteral("HTTP 401: bad key")))});
    const ToolResult none =
        tool.execute(tasks({{QStringLiteral("broken"), QStringLiteral("Fail.")}}), context);
    QVERIFY(!none.ok());
    QCOMPARE(none.error, QStringLiteral("every delegated task failed: broken: HTTP 401: bad key"));

    // Esc or Ctrl+C in the parent stops every child at once.
    children.client(QStringLiteral("quick"))->addTurn({ScriptedLlmClient::gate(QStringLiteral("held"))});
    CancellationToken cancel;
    context.cancel = cancel;
    QFuture<ToolResult> running = QtConcurrent::run([&] {
        return tool.execute(tasks({{QStringLiteral("quick"), QStringLiteral("Wait.")}}), context);
    });
    QTRY_COMPARE(children.client(QStringLiteral("quick"))->requests().size(), 2);
    timer.restart();
    cancel.cancel();
    const ToolResult cancelled = running.result();
    QCOMPARE(cancelled.error, QStringLiteral("cancelled"));
    QVERIFY(timer.elapsed() < 5000);
}

void TestSubagents::buildModeAsksOncePlanModeKeepsChildrenReadOnly()
{
    Folder folder;
    folder.add("writer", "permissions: [read, write]\n");
    folder.add("reader", "permissions: [read]\n");
    folder.add("browser", "permissions: [read, web]\n");
    Children children;
    DelegateTaskTool tool(children.maker(), {}, folder.home.path());

    // Build mode: children that may change files need the person's agreement, once for the whole call.
    RecordingRequester denying(PermissionDecision::Deny);
    ToolContext context = folder.context(&denying);
    const ToolResult refused =
        tool.execute(tasks({{QStringLiteral("writer"), QStringLiteral("Fix the typo\nin README.")},
                            {QStringLiteral("reader"), QStringLiteral("Read it.")}}),
                     context);
    QVERIFY(!refused.ok());
    QCOMPARE(denying.requests().size(), 1);
    const PermissionRequest asked = denying.requests().constFirst();
    QCOMPARE(asked.toolName, QStringLiteral("delegate_task"));
    QCOMPARE(asked.command, QStringLiteral("writer: Fix the typo\nreader: Read it."));
    QVERIFY(!asked.isDangerous);
    QVERIFY(children.made.isEmpty()); // no child started
    // A page fetched could carry what a child read: asked for too.
    QVERIFY(
        !tool.execute(tasks({{QStringLiteral("browser"), QStringLiteral("Read the docs page.")}}), context)
             .ok());
    QCOMPARE(denying.requests().size(), 2);
    QVERIFY(children.made.isEmpty());
    // So is a child that may call MCP tools (they may change things elsewhere).
    folder.add("linker", "permissions: [read, mcp]\n");
    QTemporaryDir mcpData;
    DelegateTaskTool withMcp(children.maker(), {}, folder.home.path(),
                             std::make_shared<McpHub>(folder.workspace, mcpData.path(), QStringList()));
    QVERIFY(!withMcp.execute(tasks({{QStringLiteral("linker"), QStringLiteral("File the issue.")}}), context)
                 .ok());
    QCOMPARE(denying.requests().size(), 3);
    QVERIFY(children.made.isEmpty());

    RecordingRequester allowing(PermissionDecision::Allow);
    context = folder.context(&allowing);
    const QString readme = QDir(folder.workspace).filePath(QStringLiteral("README.md"));
    children.client(QStringLiteral("writer"))
        ->addTurn({ScriptedLlmClient::runTool(QStringLiteral("write_file"),
                                              {{QStringLiteral("path"), QStringLiteral("README.md")},
                                               {QStringLiteral("content"), QStringLiteral("Fixed.\n")}}),
                   ScriptedLlmClient::chunk(QStringLiteral("Wrote README.md.")),
                   ScriptedLlmClient::event(StreamEvent::done())});
    const ToolResult wrote =
        tool.execute(tasks({{QStringLiteral("writer"), QStringLiteral("Write the README.")}}), context);
    QVERIFY2(wrote.ok(), qPrintable(wrote.error));
    QCOMPARE(allowing.requests().size(), 1); // the child's own write asked no one
    QFile written(readme);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll(), QByteArray("Fixed.\n"));

    // Plan mode: nothing to agree to, and the child's writes are refused as the parent's would be.
    RecordingRequester planning(PermissionDecision::Allow);
    context = folder.context(&planning, AgentMode::Plan);
    children.client(QStringLiteral("writer"))
        ->addTurn({ScriptedLlmClient::runTool(
                       QStringLiteral("write_file"),
                       {{QStringLiteral("path"), QStringLiteral("README.md")},
                        {QStringLiteral("content"), QStringLiteral("Changed in plan mode\n")}}),
                   ScriptedLlmClient::chunk(QStringLiteral("Could not write.")),
                   ScriptedLlmClient::event(StreamEvent::done())});
    const ToolResult planned =
        tool.execute(tasks({{QStringLiteral("writer"), QStringLiteral("Write it.")}}), context);
    QVERIFY2(planned.ok(), qPrintable(planned.error));
    QVERIFY(planning.requests().isEmpty());
    QCOMPARE(children.client(QStringLiteral("writer"))->toolResults().constLast().error,
             ToolPermissions::planModeRefusal());
    QVERIFY(children.client(QStringLiteral("writer"))
                ->requests()
                .constLast()
                .constFirst()
                .content.contains(QStringLiteral("Active mode: plan")));
    written.seek(0);
    QCOMPARE(written.readAll(), QByteArray("Fixed.\n"));
}

void TestSubagents::childrenCannotDelegateAskOrRunDangerousCommands()
{
    Folder folder;
    folder.add("worker"); // the parent's tools
    Children children;
    const QString victim = QDir(folder.workspace).filePath(QStringLiteral("keep.txt"));
    QVERIFY(test::writeFile(victim, "keep me\n"));
    const QString outside = folder.env.path(QStringLiteral("outside.txt"));
    QVERIFY(test::writeFile(outside, "not yours\n"));
    children.client(QStringLiteral("worker"))
        ->addTurn(
            {ScriptedLlmClient::runTool(QStringLiteral("bash"),
                                        {{QStringLiteral("command"), QStringLiteral("rm -f keep.txt")}}),
             ScriptedLlmClient::runTool(QStringLiteral("read_file"), {{QStringLiteral("path"), outside}}),
             ScriptedLlmClient::runTool(QStringLiteral("delegate_task"),
                                        tasks({{QStringLiteral("worker"), QStringLiteral("recurse")}})),
             ScriptedLlmClient::runTool(QStringLiteral("ask_user"), {}),
             ScriptedLlmClient::runTool(QStringLiteral("bash"),
                                        {{QStringLiteral("command"), QStringLiteral("echo fine")}}),
             ScriptedLlmClient::chunk(QStringLiteral("Tried.")),
             ScriptedLlmClient::event(StreamEvent::done())});
    DelegateTaskTool tool(children.maker(), {}, folder.home.path());
    RecordingRequester person(PermissionDecision::Allow);
    ToolContext context = folder.context(&person);
    const ToolResult result =
        tool.execute(tasks({{QStringLiteral("worker"), QStringLiteral("Clean up.")}}), context);
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(person.requests().size(), 1); // the call itself, in build mode

    const QList<ToolCallInfo> calls = children.client(QStringLiteral("worker"))->toolResults();
    QCOMPARE(calls.size(), 5);
    QVERIFY2(calls.at(0).error.contains(QStringLiteral("refused")), qPrintable(calls.at(0).error));
    QVERIFY(QFile::exists(victim));
    QVERIFY2(calls.at(1).error.contains(QStringLiteral("outside the workspace")),
             qPrintable(calls.at(1).error));
    QCOMPARE(calls.at(2).error, QStringLiteral("unknown tool: delegate_task"));
    QCOMPARE(calls.at(3).error, QStringLiteral("unknown tool: ask_user"));
    QVERIFY2(calls.at(4).error.isEmpty(), qPrintable(calls.at(4).error));
    QCOMPARE(children.made, QStringList{QStringLiteral("worker")}); // no grandchild
    const QStringList offered = children.client(QStringLiteral("worker"))->toolNames().constFirst();
    QVERIFY(!offered.contains(QStringLiteral("delegate_task")) &&
            !offered.contains(QStringLiteral("ask_user")));
}

void TestSubagents::unknownAgentsAndBadInput()
{
    Folder folder;
    folder.add("reviewer");
    Children children;
    DelegateTaskTool tool(children.maker(), {}, folder.home.path());
    QVERIFY(tool.validateInput({}).contains(QStringLiteral("missing required \"tasks\"")));
    QVERIFY(
        tool.validateInput({{QStringLiteral("tasks"), QJsonArray()}}).contains(QStringLiteral("1 to 10")));
    QJsonArray eleven;
    for (int i = 0; i < 11; ++i)
        eleven.append(QJsonObject{{QStringLiteral("agent"), QStringLiteral("a")},
                                  {QStringLiteral("task"), QStringLiteral("t")}});
    QVERIFY(tool.validateInput({{QStringLiteral("tasks"), eleven}}).contains(QStringLiteral("1 to 10")));
    QVERIFY(tool.validateInput(tasks({{QStringLiteral("reviewer"), QStringLiteral(" ")}}))
                .contains(QStringLiteral("task 1 needs a non-empty \"agent\" and \"task\"")));
    QVERIFY(tool.validateInput({{QStringLiteral("tasks"), QJsonArray{1}}, {QStringLiteral("extra"), 1}})
                .contains(QStringLiteral("extra")));

    ToolContext context = folder.context(nullptr);
    const ToolResult unknown = tool.execute(tasks({{QStringLiteral("reviewer"), QStringLiteral("a")},
                                                   {QStringLiteral("ghost"), QStringLiteral("b")}}),
                                            context);
    QCOMPARE(unknown.error, QStringLiteral("no subagent named \"ghost\"; available: reviewer"));
    QVERIFY(children.made.isEmpty()); // nothing started for a call that names a missing profile
}

// The most a call may hand over (10 tasks) all run, and a child's answer of 200,000 characters in 7-character
// chunks reaches the model as its start and end with the count of what was left out.
void TestSubagents::tenChildrenAndLongAnswers()
{
    Folder folder;
    Children children;
    QList<QPair<QString, QString>> list;
    for (int i = 0; i < DelegateTaskTool::MaxTasks; ++i) {
        const QByteArray name = "agent" + QByteArray::number(i);
        folder.add(name, "permissions: [read]\n");
        ScriptedLlmClient::Turn turn;
        if (i == 0) {
            const QString line = QStringLiteral("finding 1234\n"); // 13 characters
            QString answer;
            while (answer.size() < 200000)
                answer += line;
            for (qsizetype at = 0; at < answer.size(); at += 7)
                turn.append(ScriptedLlmClient::chunk(answer.mid(at, 7)));
        } else {
            turn.append(ScriptedLlmClient::chunk(QStringLiteral("answer %1").arg(i)));
        }
        turn.append(ScriptedLlmClient::event(StreamEvent::done()));
        children.client(QString::fromUtf8(name))->addTurn(turn);
        list.append({QString::fromUtf8(name), QStringLiteral("Task %1").arg(i)});
    }
    DelegateTaskTool tool(children.maker(), {}, folder.home.path());
    ToolContext context = folder.context(nullptr);
    const QJsonObject input = tasks(list);
    QCOMPARE(tool.validateInput(input), QString());
    const ToolResult result = tool.execute(input, context);
    QVERIFY2(result.ok(), qPrintable(result.error));
    const QJsonObject output = result.output.toObject();
    QCOMPARE(output.value(QStringLiteral("completed")).toInt(), DelegateTaskTool::MaxTasks);
    QCOMPARE(children.made.size(), DelegateTaskTool::MaxTasks);
    QCOMPARE(resultFor(output, QStringLiteral("agent9")).value(QStringLiteral("output")).toString(),
             QStringLiteral("answer 9"));
    const QString longAnswer =
        resultFor(output, QStringLiteral("agent0")).value(QStringLiteral("output")).toString();
    QVERIFY(longAnswer.size() <= DelegateTaskTool::MaxAnswerChars + 100);
    QVERIFY(longAnswer.startsWith(QStringLiteral("finding 1234\nfinding 1234\n")));
    QVERIFY(longAnswer.endsWith(QStringLiteral("finding 1234")));
    const qsizetype total = (200000 + 12) / 13 * 13 - 1; // the trimmed answer
    QVERIFY2(
        longAnswer.contains(
            QStringLiteral("... (%1 characters omitted) ...").arg(total - DelegateTaskTool::MaxAnswerChars)),
        qPrintable(longAnswer.mid(DelegateTaskTool::MaxAnswerChars * 3 / 4 - 10, 80)));
}

void TestSubagents::headlessRunDelegates_data()
{
    ProviderScript::addProviderRows();
}

// `keen-desktop run` against the loopback fake provider, for every wire protocol: the model calls
// delegate_task, the child's request goes out on the same provider with its own prompt and tools, and the
// child's answer reaches the model's next request as the tool result.
void TestSubagents::headlessRunDelegates()
{
    QFETCH(QString, provider);
    test::TestEnvironment env;
    QTemporaryDir home;
    const QByteArray previousHome = qgetenv("HOME");
    qputenv("HOME", QFile::encodeName(home.path()));
    const auto restoreHome = qScopeGuard([&previousHome] { qputenv("HOME", previousHome); });
    const QString workspace = env.path(QStringLiteral("work"));
    QVERIFY(
        test::writeFile(QDir(workspace).filePath(QStringLiteral(".agents/agents/scout.md")),
                        "---\nname: scout\ndescription: Finds things in the code\npermissions: [read]\n---\n"
                        "Search thoroughly.\n"));
    FakeProviderServer server;
    const QString arguments = QString::fromUtf8(
        QJsonDocument(tasks({{QStringLiteral("scout"), QStringLiteral("List the TODO comments in src/.")}}))
            .toJson(QJsonDocument::Compact));
    server.enqueue(ProviderScript::toolCall(provider, QStringLiteral("call_1"),
                                            QStringLiteral("delegate_task"), arguments));
    server.enqueue(ProviderScript::text(provider, QStringLiteral("Two TODOs, in src/a.cpp and src/b.cpp.")));
    server.enqueue(ProviderScript::text(provider, QStringLiteral("The scout found two TODOs.")));

    QString out;
    QString err;
    QTextStream outStream(&out);
    QTextStream errStream(&err);
    HeadlessRunner runner(outStream, errStream);
    ClientConfig config;
    config.providerId = provider;
    config.model = QStringLiteral("test-model");
    runner.session().setSessionStore(std::make_shared<SessionStore>(env.path(QStringLiteral("sessions"))));
    runner.session().setClientFactory([&server, provider](const ClientConfig &made) {
        return Result<std::shared_ptr<LlmClient>>(std::shared_ptr<LlmClient>(std::make_shared<ToolLoopClient>(
            ProviderScript::makeProtocol(provider, server.baseUrl(), made.contextWindow))));
    });
    runner.setConfigResolver([config](const LaunchOptions &) { return Result<ClientConfig>(config); });
    HeadlessRunner::Options options;
    options.prompt = QStringLiteral("Find the TODOs.");
    options.launch.workspace = workspace;
    QTimer guard;
    guard.setSingleShot(true);
    QObject::connect(&guard, &QTimer::timeout, &runner, [&runner] { runner.interrupt(); });
    guard.start(20000);
    QCOMPARE(runner.run(options), 0);
    outStream.flush();
    QVERIFY2(out.contains(QStringLiteral("The scout found two TODOs.")), qPrintable(out + err));

    const QList<FakeProviderServer::Request> requests = server.requests();
    QCOMPARE(requests.size(), 3);
    const QByteArray parent = requests.at(0).body;
    QVERIFY(parent.contains("\"delegate_task\""));
    QVERIFY(parent.contains("## Available Subagents"));
    const QByteArray child = requests.at(1).body;
    QVERIFY(child.contains("# Mandatory Subagent Boundary"));
    QVERIFY(child.contains("Search thoroughly."));
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(1).json.object()),
             QStringLiteral("List the TODO comments in src/."));
    QVERIFY(child.contains("\"read_file\"") && !child.contains("\"bash\"") &&
            !child.contains("delegate_task"));
    QVERIFY(!child.contains("Find the TODOs.")); // nothing of the parent's conversation
    QVERIFY(requests.at(2).body.contains("Two TODOs, in src/a.cpp and src/b.cpp."));
    // stderr follows the child and ends with the counts.
    errStream.flush();
    QVERIFY2(err.contains(QStringLiteral("  [scout] started\n")) &&
                 err.contains(QStringLiteral("  [scout] done\n")),
             qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("✓ Delegate scout (1 completed, 0 failed)\n")), qPrintable(err));

    // --format json reports the child's tokens apart from the turn's.
    server.enqueue(ProviderScript::toolCall(provider, QStringLiteral("call_2"),
                                            QStringLiteral("delegate_task"), arguments));
    server.enqueue(ProviderScript::text(provider, QStringLiteral("One TODO left."), 700, 70));
    server.enqueue(ProviderScript::text(provider, QStringLiteral("One left.")));
    out.clear();
    options.json = true;
    options.prompt = QStringLiteral("Again.");
    guard.start(20000);
    QCOMPARE(runner.run(options), 0);
    outStream.flush();
    const QJsonObject json = QJsonDocument::fromJson(out.toUtf8()).object();
    QVERIFY2(!json.isEmpty(), qPrintable(out));
    const QJsonObject usage = json.value(QStringLiteral("usage")).toObject();
    QCOMPARE(
        usage.value(QStringLiteral("subagents")).toObject().value(QStringLiteral("input_tokens")).toInt(),
        700);
    QCOMPARE(
        usage.value(QStringLiteral("subagents")).toObject().value(QStringLiteral("output_tokens")).toInt(),
        70);
    QCOMPARE(usage.value(QStringLiteral("input_tokens")).toInt(), 30); // the turn's last request
    QThreadPool::globalInstance()->waitForDone(); // the folder read after the turn, before env goes
}

QTEST_GUILESS_MAIN(TestSubagents)
#include "tst_subagents.moc"
