// MCP servers (reference 8.3, 2.2 call_mcp_tool, 7.2 generated skills): configs.json read with clear
// problems, a local server (tests/mcpserver, a real program on stdin and stdout) started, listed, called,
// timed out, cancelled and crashed, and a remote one over Streamable HTTP against a loopback server.
#include "agent/skillcatalog.h"
#include "fakeproviderserver.h"
#include "mcp/callmcptooltool.h"
#include "mcp/mcphub.h"
#include "mcp/mcpserverconfig.h"
#include "mcp/mcpskillfiles.h"
#include "testenvironment.h"
#include "tools/fakepermissionrequester.h"
#include "tools/permissionpolicy.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QtConcurrent/QtConcurrentRun>

#include <sys/stat.h>

using namespace keen;
using test::FakeProviderServer;

namespace {

// What the tests' remote server says.
const QByteArray RemoteTools =
    R"json({"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"search","description":"Searches.",
    "inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}]}})json";

const QByteArray RemoteInitialize =
    R"json({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},
                    "serverInfo":{"name":"remote","version":"2"}}})json";

McpServerConfig fakeServer(const QString &name = QStringLiteral("fake"), const QStringList &args = {})
{
    McpServerConfig config;
    config.name = name;
    config.command = QStringLiteral(KEEN_FAKE_MCP_SERVER);
    config.args = args;
    return config;
}

QJsonObject call(const QString &server, const QString &tool, const QJsonObject &arguments = {})
{
    return {{QStringLiteral("server"), server},
            {QStringLiteral("tool"), tool},
            {QStringLiteral("arguments"), arguments}};
}

int mode(const QString &path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 0777);
}

QString contentOf(const ToolResult &result)
{
    return result.output.toObject().value(QStringLiteral("content")).toString();
}

// A workspace, a data folder and a person who allows, like a tool's run in the window.
struct Fixture
{
    test::TestEnvironment env;
    QTemporaryDir workspace;
    test::FakePermissionRequester person;
    ToolContext context;
    std::shared_ptr<McpHub> hub;

    explicit Fixture(const QList<McpServerConfig> &servers, const QStringList &hidden = {})
    {
        context.workspace = workspace.path();
        context.dataDir = env.path(QStringLiteral("data"));
        context.permissions = &person;
        context.interactive = true;
        hub = std::make_shared<McpHub>(workspace.path(), context.dataDir, hidden);
        hub->configure(servers);
    }
    ToolResult run(CallMcpToolTool &tool, const QJsonObject &input)
    {
        if (const QString invalid = tool.validateInput(input); !invalid.isEmpty())
            return ToolResult::failure(invalid);
        return tool.execute(input, context);
    }
};

} // namespace

class TestMcp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsTheConfigurationWithItsProblems()
    {
        qputenv("KEEN_TEST_MCP_TOKEN", "tok-123456789");

        const Result<QList<McpServerConfig>> parsed = McpServerConfig::parse(
            QStringLiteral("configs.json"), test::readFixture(QStringLiteral("mcp/configs.json")));
        QVERIFY2(parsed, qPrintable(parsed.error()));
        QHash<QString, McpServerConfig> byName;
        for (const McpServerConfig &server : *parsed)
            byName.insert(server.name, server);
        QCOMPARE(byName.size(), 9);

        const McpServerConfig files = byName.value(QStringLiteral("files"));
        QVERIFY(files.problem.isEmpty());
        QCOMPARE(files.transport, McpServerConfig::Transport::Stdio);
        QCOMPARE(files.args.last(), QStringLiteral("tok-123456789"));
        QCOMPARE(files.env.value(QStringLiteral("ROOT")), QStringLiteral("/srv"));
        QCOMPARE(files.callTimeoutSeconds, 30);
        QCOMPARE(files.authSummary(), QStringLiteral("environment"));

        const McpServerConfig remote = byName.value(QStringLiteral("remote"));
        QVERIFY(remote.problem.isEmpty());
        QCOMPARE(remote.transport, McpServerConfig::Transport::Http);
        QVERIFY(remote.headers.contains(
            qMakePair(QByteArray("Authorization"), QByteArray("Bearer tok-123456789"))));
        QVERIFY(remote.headers.contains(qMakePair(QByteArray("X-Team"), QByteArray("core"))));
        QCOMPARE(remote.authSummary(), QStringLiteral("bearer token")); // never the key
        QCOMPARE(remote.callTimeoutSeconds, McpServerConfig::DefaultCallTimeoutSeconds);

        QVERIFY(byName.value(QStringLiteral("keyed")).problem.contains(QStringLiteral("line break")));
        QVERIFY(byName.value(QStringLiteral("both")).problem.contains(QStringLiteral("either")));
        QVERIFY(byName.value(QStringLiteral("bad name")).problem.contains(QStringLiteral("one word")));
        const McpServerConfig oauth = byName.value(QStringLiteral("oauth"));
        QVERIFY2(oauth.problem.isEmpty(), qPrintable(oauth.problem));
        QVERIFY(oauth.usesOAuth());
        QCOMPARE(oauth.oauthScopes, QStringList({QStringLiteral("read"), QStringLiteral("write")}));
        QCOMPARE(oauth.oauthClientId, QStringLiteral("tok-123456789"));
        QCOMPARE(oauth.oauthCallbackPort, quint16(8976));
        QCOMPARE(oauth.authSummary(), QStringLiteral("OAuth"));
        QVERIFY(byName.value(QStringLiteral("oauthsecret")).problem.contains(QStringLiteral("client_id")));
        QVERIFY(
            byName.value(QStringLiteral("unset")).problem.contains(QStringLiteral("KEEN_TEST_MCP_NOT_SET")));
        QVERIFY(byName.value(QStringLiteral("off")).disabled);

        const Result<QList<McpServerConfig>> broken =
            McpServerConfig::parse(QStringLiteral("/d/mcp/configs.json"), "{\"servers\": [");
        QVERIFY(!broken);
        QVERIFY(broken.error().contains(QStringLiteral("/d/mcp/configs.json is not valid JSON")));
        QVERIFY(!McpServerConfig::parse(QStringLiteral("c.json"), "{\"servers\": []}"));
        QTemporaryDir dir;
        const Result<QList<McpServerConfig>> missing =
            McpServerConfig::readFile(dir.filePath(QStringLiteral("none.json")));
        QVERIFY(missing && missing->isEmpty());
    }

    // A local server: connected, its tools listed across pages, its skill written, a call answered through
    // the tool with the person's permission, and what the model gets.
    void callsALocalServersTool()
    {
        Fixture f({fakeServer()});
        QVERIFY(f.hub->waitUntilSettled(20000));
        const std::optional<McpHub::ServerStatus> status = f.hub->server(QStringLiteral("fake"));
        QVERIFY(status);
        QCOMPARE(status->state, McpConnection::State::Ready);
        QCOMPARE(status->tools.size(), 11); // two a page: the client followed nextCursor five times
        QCOMPARE(status->detail, QStringLiteral("fake-mcp 1.0"));

        // The skill the model reads: valid front matter, the tools, a schema file per tool.
        const QString folder = McpSkillFiles::folder(f.context.dataDir, QStringLiteral("fake"));
        QFile skillFile(QDir(folder).filePath(QStringLiteral("SKILL.md")));
        QVERIFY(skillFile.open(QIODevice::ReadOnly));
        const Result<SkillCatalog::Skill> skill =
            SkillCatalog::parse(skillFile.fileName(), skillFile.readAll());
        QVERIFY2(skill, qPrintable(skill.error()));
        QCOMPARE(skill->name, QStringLiteral("mcp:fake"));
        QVERIFY(skill->description.contains(QStringLiteral("echo, add, big")));
        QVERIFY(
            skill->body.contains(QStringLiteral("`lookup`: Looks a thing up. Required: kind. (read-only)")));
        QFile schema(QDir(folder).filePath(QStringLiteral("echo.schema.json")));
        QVERIFY(schema.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(schema.readAll())
                     .object()
                     .value(QStringLiteral("inputSchema"))
                     .toObject()
                     .value(QStringLiteral("required"))
                     .toArray(),
                 QJsonArray{QStringLiteral("text")});
        const SkillCatalog catalog =
            SkillCatalog::discover(f.workspace.path(), f.context.dataDir, f.env.path(QStringLiteral("home")));
        QVERIFY(catalog.find(QStringLiteral("mcp:fake")));

        CallMcpToolTool tool(f.hub);
        const ToolResult echoed = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("echo"),
                                                   {{QStringLiteral("text"), QStringLiteral("héllo")}}));
        QVERIFY2(echoed.ok(), qPrintable(echoed.error));
        QCOMPARE(contentOf(echoed), QStringLiteral("héllo"));
        QCOMPARE(echoed.output.toObject().value(QStringLiteral("server")).toString(), QStringLiteral("fake"));
        QCOMPARE(f.person.count(), 1);
        QCOMPARE(f.person.requests().first().toolName, QStringLiteral("call_mcp_tool"));
        QCOMPARE(f.person.requests().first().path, QStringLiteral("fake/echo"));
        QVERIFY(f.person.requests().first().summary.contains(QStringLiteral("\"text\": \"héllo\"")));

        const ToolResult sum = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("add"),
                                                {{QStringLiteral("a"), 2}, {QStringLiteral("b"), 40.5}}));
        QCOMPARE(contentOf(sum), QStringLiteral("42.5"));

        // The server runs in the workspace, without the providers' keys.
        qputenv("OPENAI_API_KEY", "sk-test-not-for-servers");
        Fixture hidden({fakeServer()}, {QStringLiteral("OPENAI_API_KEY")});
        CallMcpToolTool hiddenTool(hidden.hub);
        QCOMPARE(contentOf(hidden.run(hiddenTool,
                                      call(QStringLiteral("fake"), QStringLiteral("env"),
                                           {{QStringLiteral("name"), QStringLiteral("OPENAI_API_KEY")}}))),
                 QString());
        QCOMPARE(
            QFileInfo(contentOf(hidden.run(hiddenTool, call(QStringLiteral("fake"), QStringLiteral("cwd")))))
                .canonicalFilePath(),
            QFileInfo(hidden.workspace.path()).canonicalFilePath());
        qunsetenv("OPENAI_API_KEY");
    }

    // The model's mistakes come back before anything is asked or sent, with what would fit.
    void checksArgumentsAgainstTheSchema()
    {
        Fixture f({fakeServer()});
        CallMcpToolTool tool(f.hub);
        auto failure = [&](const QJsonObject &input) {
            const ToolResult result = f.run(tool, input);
            return result.ok() ? QStringLiteral("<succeeded>") : result.error;
        };
        QVERIFY(failure(call(QStringLiteral("fake"), QStringLiteral("echo")))
                    .contains(QStringLiteral("missing required argument(s): text")));
        QVERIFY(failure(call(QStringLiteral("fake"), QStringLiteral("echo"), {{QStringLiteral("text"), 5}}))
                    .contains(QStringLiteral("\"text\" must be string")));
        QVERIFY(failure(call(QStringLiteral("fake"), QStringLiteral("echo"),
                             {{QStringLiteral("text"), QStringLiteral("x")}, {QStringLiteral("loud"), true}}))
                    .contains(QStringLiteral("unknown argument \"loud\"")));
        QVERIFY(failure(call(QStringLiteral("fake"), QStringLiteral("lookup"),
                             {{QStringLiteral("kind"), QStringLiteral("c")}}))
                    .contains(QStringLiteral("must be one of \"a\", \"b\"")));
        const QString unknownTool = failure(call(QStringLiteral("fake"), QStringLiteral("nope")));
        QVERIFY2(unknownTool.contains(QStringLiteral("has no tool named nope")) &&
                     unknownTool.contains(QStringLiteral("echo, add")),
                 qPrintable(unknownTool));
        QVERIFY(failure(call(QStringLiteral("other"), QStringLiteral("echo")))
                    .contains(QStringLiteral("no MCP server is named other; the servers are fake")));
        QVERIFY(
            failure({{QStringLiteral("server"), QStringLiteral("fake")}}).contains(QStringLiteral("tool")));
        QVERIFY(failure({{QStringLiteral("server"), QStringLiteral("fake")},
                         {QStringLiteral("tool"), QStringLiteral("echo")},
                         {QStringLiteral("arguments"), QStringLiteral("text")}})
                    .contains(QStringLiteral("arguments")));
        QCOMPARE(f.person.count(), 0); // nothing was asked for calls that could not be made
    }

    void refusalsPlanModeAndTheServersOwnErrors()
    {
        Fixture f({fakeServer()});
        CallMcpToolTool tool(f.hub);
        f.person.setAnswer(PermissionDecision::Deny);
        const ToolResult denied = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("echo"),
                                                   {{QStringLiteral("text"), QStringLiteral("x")}}));
        QVERIFY(!denied.ok());
        QVERIFY(denied.error.contains(QStringLiteral("declined")));

        f.person.setAnswer(PermissionDecision::Allow);
        f.context.mode = AgentMode::Plan;
        const ToolResult planned = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("echo"),
                                                    {{QStringLiteral("text"), QStringLiteral("x")}}));
        QVERIFY(planned.error.contains(QStringLiteral("plan mode")));
        const ToolResult readOnly = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("lookup"),
                                                     {{QStringLiteral("kind"), QStringLiteral("b")}}));
        QCOMPARE(contentOf(readOnly), QStringLiteral("found b"));
        f.context.mode = AgentMode::Build;

        const ToolResult failed = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("fail")));
        QCOMPARE(failed.error, QStringLiteral("it broke"));
        // A server's request on the way (ping) is answered, and the call completes.
        QCOMPARE(contentOf(f.run(tool, call(QStringLiteral("fake"), QStringLiteral("ping_me")))),
                 QStringLiteral("pong received"));
    }

    // "Allow for this session" on one MCP tool allows that tool of that server, not every MCP tool.
    void allowingOneToolForTheSessionAllowsOnlyThatTool()
    {
        Fixture f({fakeServer()});
        PermissionPolicy policy(f.workspace.path(), &f.person);
        f.context.permissions = &policy;
        f.person.setAnswer(PermissionDecision::AllowForSession);
        CallMcpToolTool tool(f.hub);
        const QJsonObject echo = call(QStringLiteral("fake"), QStringLiteral("echo"),
                                      {{QStringLiteral("text"), QStringLiteral("a")}});
        QVERIFY(f.run(tool, echo).ok());
        QVERIFY(f.run(tool, echo).ok());
        QCOMPARE(f.person.count(), 1);
        QCOMPARE(policy.sessionAllowedTools(), QStringList{QStringLiteral("call_mcp_tool fake/echo")});
        f.person.setAnswer(PermissionDecision::Deny);
        const ToolResult other = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("pid")));
        QCOMPARE(f.person.count(), 2); // asked again: another tool
        QVERIFY(other.error.contains(QStringLiteral("declined")));
    }

    // A result of 1 MB: its start inline, the whole of it in a private file read_file may read.
    void spillsALargeResultAndCachesASmallOne()
    {
        Fixture f({fakeServer()});
        CallMcpToolTool tool(f.hub);
        const ToolResult big = f.run(
            tool, call(QStringLiteral("fake"), QStringLiteral("big"), {{QStringLiteral("bytes"), 1000000}}));
        QVERIFY2(big.ok(), qPrintable(big.error));
        const QJsonObject output = big.output.toObject();
        QVERIFY(output.value(QStringLiteral("truncated")).toBool());
        const QString path = output.value(QStringLiteral("artifact_path")).toString();
        QVERIFY(path.startsWith(QDir(f.context.dataDir).filePath(QStringLiteral("mcp-artifacts/keen-mcp-"))));
        QFile artifact(path);
        QVERIFY(artifact.open(QIODevice::ReadOnly));
        QCOMPARE(artifact.size(), 1000000);
        QCOMPARE(mode(path), 0600);
        const QString content = contentOf(big);
        QVERIFY(content.toUtf8().size() < CallMcpToolTool::MaxInlineBytes + 1024);
        QVERIFY(content.startsWith(QStringLiteral("line 1 of a long MCP result\n")));
        QVERIFY(content.contains(QStringLiteral("The whole result is in ") + path));

        // checkCache: the same call again is answered from the session, without asking or calling.
        const QJsonObject echo = call(QStringLiteral("fake"), QStringLiteral("pid"));
        const ToolResult first = f.run(tool, echo);
        const int asked = f.person.count();
        QJsonObject again = echo;
        again.insert(QStringLiteral("checkCache"), true);
        const ToolResult cached = f.run(tool, again);
        QCOMPARE(contentOf(cached), contentOf(first));
        QVERIFY(cached.output.toObject().value(QStringLiteral("cached")).toBool());
        QCOMPARE(f.person.count(), asked);
    }

    // A server that cannot start, one that dies in a call, one too slow, one cancelled: each an error that
    // says what happened, never a hang.
    void failuresAreClearAndNothingHangs()
    {
        McpServerConfig slow = fakeServer(QStringLiteral("slow"));
        slow.callTimeoutSeconds = 1;
        McpServerConfig missing = fakeServer(QStringLiteral("missing"));
        missing.command = QStringLiteral("/nonexistent/keen-mcp-server");
        Fixture f({fakeServer(QStringLiteral("broken"), {QStringLiteral("--fail-start")}), fakeServer(), slow,
                   missing,
                   fakeServer(QStringLiteral("future"),
                              {QStringLiteral("--version"), QStringLiteral("2099-01-01")})});
        QVERIFY(f.hub->waitUntilSettled(20000));
        const std::optional<McpHub::ServerStatus> broken = f.hub->server(QStringLiteral("broken"));
        QCOMPARE(broken->state, McpConnection::State::Failed);
        QVERIFY2(
            broken->detail.contains(QStringLiteral("exited with code 2: fake-mcp: cannot open the database")),
            qPrintable(broken->detail));
        QVERIFY(f.hub->server(QStringLiteral("missing"))->detail.contains(QStringLiteral("could not start")));
        QVERIFY(f.hub->server(QStringLiteral("future"))->detail.contains(QStringLiteral("2099-01-01")));

        const QString table = McpHub::markdownTable(f.hub->status(), QStringLiteral("/d/mcp/configs.json"));
        QVERIFY(table.startsWith(QStringLiteral("| Server | Status | Auth | Detail |")));
        QVERIFY(table.contains(QStringLiteral("| broken | failed | none | ")));
        QVERIFY(table.contains(QStringLiteral("| fake | connected | none | 11 tools · fake-mcp 1.0 |")));

        CallMcpToolTool tool(f.hub);
        QVERIFY(f.run(tool, call(QStringLiteral("broken"), QStringLiteral("echo")))
                    .error.contains(QStringLiteral("is not available: ")));

        const ToolResult crashed = f.run(tool, call(QStringLiteral("fake"), QStringLiteral("crash")));
        QVERIFY2(crashed.error.contains(QStringLiteral("exited with code 3")) &&
                     crashed.error.contains(QStringLiteral("crashing on purpose")),
                 qPrintable(crashed.error));
        QCOMPARE(f.hub->server(QStringLiteral("fake"))->state, McpConnection::State::Failed);
        // /mcp connect: started again, and it works. (This server logs what it gets: the call below is
        // waited for until it reached it.)
        const QString log = f.env.path(QStringLiteral("fake.log"));
        qputenv("FAKE_MCP_LOG", log.toLocal8Bit());
        QVERIFY(f.hub->reconnect(QStringLiteral("fake")));
        QVERIFY(f.hub->waitUntilSettled(20000));
        qunsetenv("FAKE_MCP_LOG");
        QCOMPARE(contentOf(f.run(tool, call(QStringLiteral("fake"), QStringLiteral("echo"),
                                            {{QStringLiteral("text"), QStringLiteral("back")}}))),
                 QStringLiteral("back"));

        // Connected again while a call waits: the call ends at once, saying why.
        QElapsedTimer timer;
        timer.start();
        QFuture<ToolResult> stopped = QtConcurrent::run([&] {
            return f.run(
                tool, call(QStringLiteral("fake"), QStringLiteral("sleep"), {{QStringLiteral("ms"), 5000}}));
        });
        QVERIFY(FakeProviderServer::spinUntil([&] {
            QFile file(log);
            return file.open(QIODevice::ReadOnly) && file.readAll().contains("\"name\":\"sleep\"");
        }));
        QVERIFY(f.hub->reconnect(QStringLiteral("fake")));
        QVERIFY(FakeProviderServer::spinUntil([&] { return stopped.isFinished(); }, 4000));
        QVERIFY2(stopped.result().error.contains(QStringLiteral("the server was stopped")),
                 qPrintable(stopped.result().error));
        QVERIFY(f.hub->waitUntilSettled(20000));

        timer.restart();
        const ToolResult late = f.run(
            tool, call(QStringLiteral("slow"), QStringLiteral("sleep"), {{QStringLiteral("ms"), 5000}}));
        QVERIFY2(late.error.contains(QStringLiteral("did not answer within 1 s")), qPrintable(late.error));
        QVERIFY(timer.elapsed() < 4500);

        const CancellationToken cancel;
        f.context.cancel = cancel;
        QTimer::singleShot(300, [cancel] { cancel.cancel(); });
        QFuture<ToolResult> running = QtConcurrent::run([&] {
            return f.run(
                tool, call(QStringLiteral("fake"), QStringLiteral("sleep"), {{QStringLiteral("ms"), 5000}}));
        });
        QVERIFY(FakeProviderServer::spinUntil([&] { return running.isFinished(); }, 4000));
        QVERIFY2(running.result().error.startsWith(QStringLiteral("Cancelled")),
                 qPrintable(running.result().error));
    }

    // What the client sends: initialize, the initialized notification, and a cancellation when it gives up.
    void speaksTheProtocol()
    {
        test::TestEnvironment env;
        const QString log = env.path(QStringLiteral("mcp.log"));
        qputenv("FAKE_MCP_LOG", log.toLocal8Bit());
        McpServerConfig config = fakeServer();
        config.callTimeoutSeconds = 1;
        Fixture f({config});
        QVERIFY(f.hub->waitUntilSettled(20000));
        CallMcpToolTool tool(f.hub);
        f.run(tool, call(QStringLiteral("fake"), QStringLiteral("sleep"), {{QStringLiteral("ms"), 1500}}));
        QVERIFY(FakeProviderServer::spinUntil(
            [&] {
                QFile file(log);
                return file.open(QIODevice::ReadOnly) && file.readAll().contains("notifications/cancelled");
            },
            5000));
        qunsetenv("FAKE_MCP_LOG");
        QFile file(log);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        const QJsonObject initialize = QJsonDocument::fromJson(lines.value(0)).object();
        QCOMPARE(initialize.value(QStringLiteral("method")).toString(), QStringLiteral("initialize"));
        QCOMPARE(initialize.value(QStringLiteral("params"))
                     .toObject()
                     .value(QStringLiteral("protocolVersion"))
                     .toString(),
                 QStringLiteral("2025-06-18"));
        QCOMPARE(QJsonDocument::fromJson(lines.value(1)).object().value(QStringLiteral("method")).toString(),
                 QStringLiteral("notifications/initialized"));
        QCOMPARE(QJsonDocument::fromJson(lines.value(2)).object().value(QStringLiteral("method")).toString(),
                 QStringLiteral("tools/list"));
    }

    // Servers that go from the file are stopped and their skills removed; one unchanged keeps running.
    void reconfiguringKeepsWhatDidNotChange()
    {
        Fixture f({fakeServer(QStringLiteral("one")), fakeServer(QStringLiteral("two"))});
        QVERIFY(f.hub->waitUntilSettled(20000));
        CallMcpToolTool tool(f.hub);
        const QString pid = contentOf(f.run(tool, call(QStringLiteral("one"), QStringLiteral("pid"))));
        QVERIFY(!pid.isEmpty());
        QVERIFY(QFileInfo::exists(McpSkillFiles::folder(f.context.dataDir, QStringLiteral("two"))));

        f.hub->configure({fakeServer(QStringLiteral("one"))});
        QVERIFY(FakeProviderServer::spinUntil([&] {
            return !QFileInfo::exists(McpSkillFiles::folder(f.context.dataDir, QStringLiteral("two")));
        }));
        QCOMPARE(f.hub->status().size(), 1);
        QCOMPARE(contentOf(f.run(tool, call(QStringLiteral("one"), QStringLiteral("pid")))), pid);
        QVERIFY(f.run(tool, call(QStringLiteral("two"), QStringLiteral("pid")))
                    .error.contains(QStringLiteral("no MCP server is named two")));
    }

    // A remote server over Streamable HTTP: its session id and the protocol version go back with each
    // request, the bearer token goes with every one, answers come as JSON or as an event stream, and a 401
    // says to check the auth without repeating the token.
    void callsARemoteServerOverHttp()
    {
        FakeProviderServer server;

        server.enqueue(
            FakeProviderServer::jsonResponse(200, RemoteInitialize, {{"Mcp-Session-Id", "session-abc"}}));
        server.enqueue(FakeProviderServer::Response{202, {}, {}, {}, {}, 1, false});
        server.enqueue(
            FakeProviderServer::sseResponse("event: message\ndata: " + RemoteTools.simplified() + "\n\n"));
        server.enqueue(FakeProviderServer::sseResponse(
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
            "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"3 "
            "hits\"}]}}\n\n"));

        McpServerConfig config;
        config.name = QStringLiteral("remote");
        config.transport = McpServerConfig::Transport::Http;
        config.url = QUrl(server.baseUrl().toString() + QStringLiteral("/mcp"));
        config.authType = QStringLiteral("bearer");
        config.headers = {{"Authorization", "Bearer secret-token-42"}};
        Fixture f({config});
        QVERIFY(FakeProviderServer::spinUntil([&] {
            const auto status = f.hub->server(QStringLiteral("remote"));
            return status && status->state != McpConnection::State::Connecting;
        }));
        QCOMPARE(f.hub->server(QStringLiteral("remote"))->state, McpConnection::State::Ready);
        QCOMPARE(f.hub->server(QStringLiteral("remote"))->tools.size(), 1);

        CallMcpToolTool tool(f.hub);
        QFuture<ToolResult> running = QtConcurrent::run([&] {
            return f.run(tool, call(QStringLiteral("remote"), QStringLiteral("search"),
                                    {{QStringLiteral("q"), QStringLiteral("mcp")}}));
        });
        QVERIFY(FakeProviderServer::spinUntil([&] { return running.isFinished(); }));
        QCOMPARE(contentOf(running.result()), QStringLiteral("3 hits"));

        const QList<FakeProviderServer::Request> requests = server.requests();
        QCOMPARE(requests.size(), 4);
        for (const FakeProviderServer::Request &request : requests) {
            QCOMPARE(request.method, QByteArray("POST"));
            QCOMPARE(request.path, QByteArray("/mcp"));
            QCOMPARE(request.header("Authorization"), QByteArray("Bearer secret-token-42"));
            QVERIFY(request.header("Accept").contains("text/event-stream"));
        }
        QVERIFY(!requests.at(0).hasHeader("Mcp-Session-Id"));
        QCOMPARE(requests.at(1).json.object().value(QStringLiteral("method")).toString(),
                 QStringLiteral("notifications/initialized"));
        QCOMPARE(requests.at(3).header("Mcp-Session-Id"), QByteArray("session-abc"));
        QCOMPARE(requests.at(3).header("MCP-Protocol-Version"), QByteArray("2025-03-26"));
        QCOMPARE(requests.at(3)
                     .json.object()
                     .value(QStringLiteral("params"))
                     .toObject()
                     .value(QStringLiteral("name"))
                     .toString(),
                 QStringLiteral("search"));

        // The server restarted and forgot the session (404 to a request carrying it): a new session, the call
        // sent again in it, answered; the person sees only the answer.
        server.clearRequests();
        server.enqueue(FakeProviderServer::jsonResponse(404, "{\"error\":\"unknown session\"}"));
        // Ids so far: initialize 1, tools/list 2, the first call 3; this call is 4, the new initialize 5.
        server.enqueue(FakeProviderServer::jsonResponse(
            200, QByteArray(RemoteInitialize).replace("\"id\":1", "\"id\":5"),
            {{"Mcp-Session-Id", "session-def"}}));
        server.enqueue(FakeProviderServer::Response{202, {}, {}, {}, {}, 1, false});
        server.enqueue(FakeProviderServer::sseResponse(
            "data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
            "\"after the restart\"}]}}\n\n"));
        QFuture<ToolResult> again = QtConcurrent::run([&] {
            return f.run(tool, call(QStringLiteral("remote"), QStringLiteral("search"),
                                    {{QStringLiteral("q"), QStringLiteral("again")}}));
        });
        QVERIFY(FakeProviderServer::spinUntil([&] { return again.isFinished(); }));
        QVERIFY2(again.result().ok(), qPrintable(again.result().error));
        QCOMPARE(contentOf(again.result()), QStringLiteral("after the restart"));
        const QList<FakeProviderServer::Request> restarted = server.requests();
        QCOMPARE(restarted.size(), 4);
        QCOMPARE(restarted.at(0).header("Mcp-Session-Id"), QByteArray("session-abc"));
        QCOMPARE(restarted.at(1).json.object().value(QStringLiteral("method")).toString(),
                 QStringLiteral("initialize"));
        QVERIFY(!restarted.at(1).hasHeader("Mcp-Session-Id"));
        QCOMPARE(restarted.at(2).json.object().value(QStringLiteral("method")).toString(),
                 QStringLiteral("notifications/initialized"));
        QCOMPARE(restarted.at(3).header("Mcp-Session-Id"), QByteArray("session-def"));
        QCOMPARE(restarted.at(3).json.object(), restarted.at(0).json.object()); // the same request again
        QCOMPARE(f.hub->server(QStringLiteral("remote"))->state, McpConnection::State::Ready);

        // Refused in the new session too: that call fails, with what happened; nothing loops.
        server.clearRequests();
        server.enqueue(FakeProviderServer::jsonResponse(404, "{}"));
        server.enqueue(FakeProviderServer::jsonResponse(
            200, QByteArray(RemoteInitialize).replace("\"id\":1", "\"id\":7"),
            {{"Mcp-Session-Id", "session-ghi"}}));
        server.enqueue(FakeProviderServer::Response{202, {}, {}, {}, {}, 1, false});
        server.enqueue(FakeProviderServer::jsonResponse(404, "{}"));
        QFuture<ToolResult> refused = QtConcurrent::run([&] {
            return f.run(tool, call(QStringLiteral("remote"), QStringLiteral("search"),
                                    {{QStringLiteral("q"), QStringLiteral("third")}}));
        });
        QVERIFY(FakeProviderServer::spinUntil([&] { return refused.isFinished(); }));
        QVERIFY2(refused.result().error.contains(QStringLiteral("ended its session")),
                 qPrintable(refused.result().error));
        QCOMPARE(server.requests().size(), 4);

        // Refused: the status says so, and not with the token.
        FakeProviderServer refusing;
        refusing.enqueue(FakeProviderServer::jsonResponse(401, "{\"error\":\"bad token secret-token-42\"}"));
        config.url = QUrl(refusing.baseUrl().toString() + QStringLiteral("/mcp"));
        Fixture g({config});
        QVERIFY(FakeProviderServer::spinUntil([&] {
            const auto status = g.hub->server(QStringLiteral("remote"));
            return status && status->state == McpConnection::State::Failed;
        }));
        const QString detail = g.hub->server(QStringLiteral("remote"))->detail;
        QVERIFY2(detail.contains(QStringLiteral("HTTP 401")) &&
                     detail.contains(QStringLiteral("check the server's auth")),
                 qPrintable(detail));
        QVERIFY2(!detail.contains(QStringLiteral("secret-token-42")), qPrintable(detail));
    }
};

QTEST_GUILESS_MAIN(TestMcp)
#include "tst_mcp.moc"
