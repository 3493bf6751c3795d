#include "fakepermissionrequester.h"
#include "testenvironment.h"
#include "tools/bashtool.h"
#include "tools/defaulttools.h"
#include "tools/filesystemguard.h"
#include "tools/permissionpolicy.h"
#include "tools/projectallowlist.h"
#include "tools/toolpermissions.h"
#include "tools/writefiletool.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace keen;

// The requester order, every answer, the modes and the headless policy.
class TestPermissionPolicy : public QObject
{
    Q_OBJECT

private:
    static PermissionRequest bashRequest(bool dangerous)
    {
        PermissionRequest request;
        request.toolName = QStringLiteral("bash");
        request.command = dangerous ? QStringLiteral("rm -rf x") : QStringLiteral("ls");
        request.isDangerous = dangerous;
        return request;
    }
    static void writeAllowList(const QString &workspace, const QByteArray &json)
    {
        QDir().mkpath(workspace + QStringLiteral("/.keen"));
        QFile file(PermissionPolicy::allowListPath(workspace));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(json);
    }

private Q_SLOTS:
    void everyAnswer()
    {
        QTemporaryDir ws;
        test::FakePermissionRequester person;
        PermissionPolicy policy(ws.path(), &person);
        const CancellationToken token;

        person.setAnswer(PermissionDecision::Allow);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Allow);
        person.setAnswer(PermissionDecision::Deny);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Deny);
        person.setAnswer(PermissionDecision::Redirect);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Redirect);
        QCOMPARE(person.count(), 3);

        // Allow for this session: remembered, and the next request is not asked.
        person.setAnswer(PermissionDecision::AllowForSession);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Allow);
        QCOMPARE(policy.sessionAllowedTools(), QStringList{QStringLiteral("bash")});
        person.setAnswer(PermissionDecision::Deny);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Allow);
        QCOMPARE(person.count(), 4);

        // ...but it never covers a dangerous command.
        QCOMPARE(policy.request(bashRequest(true), token), PermissionDecision::Deny);
        QCOMPARE(person.count(), 5);
        policy.clearSessionAllowances();
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Deny);
    }

    void allowForSessionOnDangerousCountsOnce()
    {
        QTemporaryDir ws;
        test::FakePermissionRequester person(PermissionDecision::AllowForSession);
        PermissionPolicy policy(ws.path(), &person);
        QCOMPARE(policy.request(bashRequest(true), CancellationToken()), PermissionDecision::Allow);
        QVERIFY(policy.sessionAllowedTools().isEmpty());
        person.setAnswer(PermissionDecision::Deny);
        QCOMPARE(policy.request(bashRequest(true), CancellationToken()), PermissionDecision::Deny);
    }

    void projectAllowList()
    {
        QTemporaryDir ws;
        test::FakePermissionRequester person(PermissionDecision::Deny);
        PermissionPolicy policy(ws.path(), &person);
        writeAllowList(ws.path(), R"({"allow":["bash","write_file"]})");
        QCOMPARE(policy.projectAllowList(),
                 (QStringList{QStringLiteral("bash"), QStringLiteral("write_file")}));
        QCOMPARE(policy.request(bashRequest(true), CancellationToken()),
                 PermissionDecision::Allow); // dangerous too
        PermissionRequest edit;
        edit.toolName = QStringLiteral("edit_file");
        QCOMPARE(policy.request(edit, CancellationToken()), PermissionDecision::Deny);
        QCOMPARE(person.count(), 1);
        writeAllowList(ws.path(), "not json");
        QCOMPARE(policy.request(bashRequest(false), CancellationToken()), PermissionDecision::Deny);
    }

    void headlessPolicy()
    {
        QTemporaryDir ws;
        PermissionPolicy policy(ws.path(), nullptr, /*autoApprove*/ true);
        QCOMPARE(policy.request(bashRequest(false), CancellationToken()), PermissionDecision::Allow);
        QCOMPARE(policy.request(bashRequest(true), CancellationToken()), PermissionDecision::Deny);
        // A project allow-list cannot unlock dangerous commands in an unattended run.
        writeAllowList(ws.path(), R"({"allow":["bash"]})");
        QCOMPARE(policy.request(bashRequest(true), CancellationToken()), PermissionDecision::Deny);

        // End to end: the refusal goes back to the model as the tool's error; yolo lifts it.
        test::TestEnvironment env;
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        ToolContext context;
        context.workspace = ws.path();
        context.dataDir = env.path(QStringLiteral("data"));
        context.guard = &guard;
        context.permissions = &policy;
        context.interactive = false;
        BashTool bash;
        QFile::copy(QStringLiteral("/dev/null"), ws.filePath(QStringLiteral("victim")));
        ToolResult result = bash.execute({{QStringLiteral("command"), QStringLiteral("rm victim")}}, context);
        QVERIFY(!result.ok());
        QVERIFY(result.error.contains(QStringLiteral("non-interactive")));
        QVERIFY(QFile::exists(ws.filePath(QStringLiteral("victim"))));
        result = bash.execute({{QStringLiteral("command"), QStringLiteral("echo safe")}}, context);
        QVERIFY(result.ok());
        WriteFileTool write; // inside the guard: approved without anyone to ask
        QVERIFY(write
                    .execute({{QStringLiteral("path"), QStringLiteral("w.txt")},
                              {QStringLiteral("content"), QStringLiteral("x")}},
                             context)
                    .ok());
        context.mode = AgentMode::Yolo;
        result = bash.execute({{QStringLiteral("command"), QStringLiteral("rm victim")}}, context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QVERIFY(!QFile::exists(ws.filePath(QStringLiteral("victim"))));
    }

    void yoloSkipsPromptsButGuardHolds()
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        test::FakePermissionRequester person(PermissionDecision::Deny);
        PermissionPolicy policy(ws.path(), &person);
        ToolContext context;
        context.workspace = ws.path();
        context.guard = &guard;
        context.permissions = &policy;
        context.interactive = true;
        context.mode = AgentMode::Yolo;
        WriteFileTool write;
        QVERIFY(write
                    .execute({{QStringLiteral("path"), QStringLiteral("y.txt")},
                              {QStringLiteral("content"), QStringLiteral("x")}},
                             context)
                    .ok());
        QVERIFY(!write
                     .execute({{QStringLiteral("path"), QStringLiteral("/etc/keen-yolo")},
                               {QStringLiteral("content"), QStringLiteral("x")}},
                              context)
                     .ok());
        QCOMPARE(person.count(), 0);
        QCOMPARE(ToolPermissions::ask(context, bashRequest(true)), PermissionDecision::Allow);
    }

    void refusalsAndCancellation()
    {
        ToolContext context;
        context.interactive = true;
        test::FakePermissionRequester person(PermissionDecision::Redirect);
        context.permissions = &person;
        const PermissionRequest request = bashRequest(false);
        QCOMPARE(ToolPermissions::ask(context, request), PermissionDecision::Redirect);
        QCOMPARE(person.requests().first().id > 0, true);
        const ToolResult redirect = ToolPermissions::refusal(PermissionDecision::Redirect, request, context);
        QVERIFY(redirect.stopTurn);
        QVERIFY(!redirect.ok());
        const ToolResult deny = ToolPermissions::refusal(PermissionDecision::Deny, request, context);
        QVERIFY(!deny.stopTurn);
        QVERIFY(!deny.ok());

        context.permissions = nullptr;
        QCOMPARE(ToolPermissions::ask(context, request), PermissionDecision::Deny);
        context.permissions = &person;
        context.cancel.cancel();
        QCOMPARE(ToolPermissions::ask(context, request), PermissionDecision::Deny);
        QCOMPARE(person.count(), 1);
    }

    void defaultRegistry()
    {
        const ToolRegistry interactive = createDefaultTools(true);
        QCOMPARE(interactive.names(),
                 (QStringList{QStringLiteral("ask_user"), QStringLiteral("bash"), QStringLiteral("edit_file"),
                              QStringLiteral("glob"), QStringLiteral("grep"), QStringLiteral("read_file"),
                              QStringLiteral("web_fetch"), QStringLiteral("write_file")}));
        QVERIFY(!createDefaultTools(false).names().contains(QStringLiteral("ask_user")));
        for (const auto &tool : interactive.all()) {
            QVERIFY(!tool->description().isEmpty());
            QCOMPARE(tool->inputSchema().value(QStringLiteral("type")).toString(), QStringLiteral("object"));
            QCOMPARE(tool->inputSchema().value(QStringLiteral("additionalProperties")).toBool(true), false);
            QVERIFY(tool->validateInput({}).startsWith(QStringLiteral("invalid input: missing required")));
        }
    }

    // /allow-permission and /reset-permission (reference 2.3): the file is made when missing, other keys and
    // the order of the list are kept, and the policy follows at once.
    void allowAndResetWriteTheAllowList()
    {
        QTemporaryDir ws;
        const QString path = PermissionPolicy::allowListPath(ws.path());
        test::FakePermissionRequester person;
        person.setAnswer(PermissionDecision::Deny);
        PermissionPolicy policy(ws.path(), &person);
        const CancellationToken token;
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Deny);
        QCOMPARE(person.count(), 1);
        QCOMPARE(*ProjectAllowList::reset(ws.path(), {QStringLiteral("bash")}), QStringList());
        QVERIFY(!QFile::exists(path)); // nothing to reset, nothing written

        const auto allowed =
            ProjectAllowList::allow(ws.path(), {QStringLiteral("bash"), QStringLiteral("grep")});
        QVERIFY2(allowed, qPrintable(allowed ? QString() : allowed.error()));
        QCOMPARE(*allowed, (QStringList{QStringLiteral("bash"), QStringLiteral("grep")}));
        QCOMPARE(policy.projectAllowList(), *allowed);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Allow);
        QCOMPARE(person.count(), 1); // not asked

        writeAllowList(ws.path(), R"({"note": "kept", "allow": ["read_file", "bash"]})");
        QCOMPARE(
            *ProjectAllowList::allow(ws.path(), {QStringLiteral("bash"), QStringLiteral("edit_file")}),
            (QStringList{QStringLiteral("read_file"), QStringLiteral("bash"), QStringLiteral("edit_file")}));
        QCOMPARE(*ProjectAllowList::reset(ws.path(), {QStringLiteral("bash"), QStringLiteral("glob")}),
                 (QStringList{QStringLiteral("read_file"), QStringLiteral("edit_file")}));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject written = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(written.value(QStringLiteral("note")).toString(), QStringLiteral("kept"));
        QCOMPARE(written.value(QStringLiteral("allow")).toArray().toVariantList(),
                 (QVariantList{QStringLiteral("read_file"), QStringLiteral("edit_file")}));
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Deny);
        QCOMPARE(person.count(), 2); // asked again after the reset
    }

    // issue 14: a damaged permissions.json was ignored silently (and a FIFO in its place hung the worker). It
    // allows nothing, the person hears why once, naming the file, and the app never writes over it.
    void damagedAllowListAllowsNothingAndSaysWhy_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("reason");
        QTest::newRow("truncated") << QByteArray(R"({"allow": ["bash",)") << QString()
                                   << QStringLiteral("not valid JSON");
        QTest::newRow("binary") << QByteArray("\x00\xff\xfe\x01", 4) << QString()
                                << QStringLiteral("not valid JSON");
        QTest::newRow("no list") << QByteArray(R"({"allow": "bash"})") << QString()
                                 << QStringLiteral("\"allow\"");
        QTest::newRow("a list of numbers")
            << QByteArray(R"({"allow": ["bash", 7]})") << QString() << QStringLiteral("tool names");
        QTest::newRow("huge") << QByteArray() << QStringLiteral("huge")
                              << QStringLiteral("more than the 1 MiB");
        QTest::newRow("a FIFO") << QByteArray() << QStringLiteral("fifo") << QStringLiteral("FIFO");
        QTest::newRow("a folder") << QByteArray() << QStringLiteral("folder") << QStringLiteral("a folder");
    }
    void damagedAllowListAllowsNothingAndSaysWhy()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, kind);
        QFETCH(QString, reason);
        QTemporaryDir ws;
        const QString path = PermissionPolicy::allowListPath(ws.path());
        QDir().mkpath(ws.path() + QStringLiteral("/.keen"));
        if (kind == QLatin1String("fifo"))
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        else if (kind == QLatin1String("folder"))
            QVERIFY(QDir().mkpath(path));
        else
            writeAllowList(ws.path(), kind == QLatin1String("huge")
                                          ? "{\"allow\": [\"bash\"], \"pad\": \"" +
                                                QByteArray(2 * 1024 * 1024, ' ') + "\"}"
                                          : json);
        test::FakePermissionRequester person;
        person.setAnswer(PermissionDecision::Deny);
        PermissionPolicy policy(ws.path(), &person);
        QStringList reported;
        policy.setProblemReporter([&reported](const QString &message) { reported.append(message); });
        const CancellationToken token;
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Deny); // asked, not allowed
        QCOMPARE(person.count(), 1);
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Deny);
        QCOMPARE(reported.size(), 1); // said once, not on every request
        QVERIFY2(reported.first().contains(path) && reported.first().contains(reason),
                 qPrintable(reported.first()));
        QVERIFY(policy.projectAllowList().isEmpty());

        // /allow-permission never writes over it: the error names the file, and what is there stays.
        const QByteArray before = kind.isEmpty() ? json : QByteArray();
        const Result<QStringList> refused = ProjectAllowList::allow(ws.path(), {QStringLiteral("bash")});
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(path) && refused.error().contains(QStringLiteral("not changed")) &&
                     refused.error().contains(reason),
                 qPrintable(refused.error()));
        if (kind.isEmpty()) {
            QFile unchanged(path);
            QVERIFY(unchanged.open(QIODevice::ReadOnly));
            QCOMPARE(unchanged.readAll(), before);
        }

        // Fixed: it applies at once, and a new problem would be reported again.
        if (kind == QLatin1String("fifo") || kind == QLatin1String("folder"))
            QVERIFY(QFile::remove(path) || QDir(path).removeRecursively());
        writeAllowList(ws.path(), R"({"allow": ["bash"]})");
        QCOMPARE(policy.request(bashRequest(false), token), PermissionDecision::Allow);
        QCOMPARE(person.count(), 2);
        QCOMPARE(reported.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestPermissionPolicy)
#include "tst_permissionpolicy.moc"
