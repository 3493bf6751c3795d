// Headless runs hold the line on secrets and tool safety (issue 14).
//
// A canary key through whole headless sessions, failures included (issue 14, secrets): `keen-desktop run` in
// a child process against the loopback fake provider, with the key from the environment or an api_key_helper,
// while the provider answers, quotes the key back in a 401, in a retried 503 and in an error event inside the
// stream. The canary must reach the provider (it is really used) and nothing else: not stdout, not stderr,
// not one byte of any file under KEEN_HOME (settings, sessions, index, tool output), not a Markdown export.
// Every file there is private (no group or other bits) and every folder 0700.
#include "base/result.h"
#include "fakeoauthmcpserver.h"
#include "fakeproviderserver.h"
#include "mcp/mcpoauthstore.h"
#include "session/sessionexporter.h"
#include "session/sessionstore.h"
#include "testenvironment.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <memory>

using keen::test::FakeProviderServer;

namespace keen {

namespace {

const QByteArray kCanary = "sk-CANARY-7f3a9c1e5b2d4086";
const QByteArray kHelperCanary = "sk-CANARY-helper-0b8e6d2f91";
// The helper's second line (a `pass show` note): never sent, never shown.
const QByteArray kHelperSecondLine = "sk-CANARY-notes-55aa33cc";

QByteArray sse(const QJsonObject &object)
{
    return "data: " + QJsonDocument(object).toJson(QJsonDocument::Compact) + "\n\n";
}

QByteArray chunk(const QJsonObject &delta, const QJsonValue &finish = QJsonValue::Null)
{
    return sse(QJsonObject{
        {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                           {QStringLiteral("delta"), delta},
                                                           {QStringLiteral("finish_reason"), finish}}}}});
}

QByteArray usage()
{
    return sse(QJsonObject{{QStringLiteral("choices"), QJsonArray()},
                           {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 10},
                                                                 {QStringLiteral("completion_tokens"), 5},
                                                                 {QStringLiteral("total_tokens"), 15}}}});
}

FakeProviderServer::Response text(const QString &answer)
{
    return FakeProviderServer::sseResponse(chunk(QJsonObject{{QStringLiteral("content"), answer}}) +
                                           chunk(QJsonObject(), QStringLiteral("stop")) + usage() +
                                           "data: [DONE]\n\n");
}

FakeProviderServer::Response toolCall(const QString &name, const QJsonObject &arguments)
{
    const QJsonObject call{
        {QStringLiteral("index"), 0},
        {QStringLiteral("id"), QStringLiteral("call_1")},
        {QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"),
         QJsonObject{{QStringLiteral("name"), name},
                     {QStringLiteral("arguments"),
                      QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact))}}}};
    return FakeProviderServer::sseResponse(
        chunk(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{call}}}) +
        chunk(QJsonObject(), QStringLiteral("tool_calls")) + usage() + "data: [DONE]\n\n");
}

// An OpenAI-style error body that quotes the key, as OpenAI's "Incorrect API key provided: sk-..." does.
FakeProviderServer::Response quotingError(int status, const QByteArray &key)
{
    const QByteArray body = "{\"error\":{\"message\":\"Incorrect API key provided: " + key +
                            ". You can find your API key at https://example.invalid/keys?key=" + key +
                            "\",\"type\":\"invalid_request_error\"}}";
    return FakeProviderServer::jsonResponse(status, body, {{"retry-after-ms", "1"}});
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestHeadlessHardening : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void canaryKeyFromTheEnvironmentNeverLeaves();
    void canaryKeyFromAHelperNeverLeaves();
    void anthropicWireQuotingTheKeyIsRedacted();
    void dangerousCommandNeedsYolo();
    void leavingTheWorkspaceIsRefusedEvenWithYolo();
    void gitignoreFailsClosedWhenLibgit2CannotLoad();
    void aFetchedPageReachesTheModelButTheKeyNeverReachesThePage();
    void mcpServersGetNoProviderKeyAndAFailedOneIsNamed();
    void anMcpServerSignedInToInTheWindowWorksInARun();

private:
    struct Outcome
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };

    // keen-desktop run ARGS, or any command line with keen().
    Outcome run(const QStringList &args, const QProcessEnvironment &extra = {})
    {
        return keen(QStringList{QStringLiteral("run")} + args, extra);
    }
    Outcome keen(const QStringList &args, const QProcessEnvironment &extra = {});
    QStringList deepseekArgs() const;
    // Fails the test when any canary is in the bytes; where names the place.
    static void expectNoCanary(const QByteArray &bytes, const QString &where);
    // Every file under KEEN_HOME, every Markdown export of every session: no canary; files 0600, folders
    // 0700.
    void expectHomeCleanAndPrivate(int minimumFiles);
    // The canaries the provider saw in Authorization headers.
    QByteArrayList keysSent() const;

    std::unique_ptr<FakeProviderServer> m_server;
    std::unique_ptr<QTemporaryDir> m_home;
    std::unique_ptr<QTemporaryDir> m_workspace;
    std::unique_ptr<QTemporaryDir> m_outside; // helper scripts and exports, outside KEEN_HOME
    QByteArray m_allOutput;                   // stdout and stderr of every run, for the final check
};

void TestHeadlessHardening::init()
{
    m_server = std::make_unique<FakeProviderServer>();
    QVERIFY(m_server->isListening());
    m_home = std::make_unique<QTemporaryDir>();
    m_workspace = std::make_unique<QTemporaryDir>();
    m_outside = std::make_unique<QTemporaryDir>();
    QVERIFY(m_home->isValid() && m_workspace->isValid() && m_outside->isValid());
    m_allOutput.clear();
}

void TestHeadlessHardening::cleanup()
{
    m_server.reset();
    m_home.reset();
    m_workspace.reset();
    m_outside.reset();
}

QStringList TestHeadlessHardening::deepseekArgs() const
{
    return {QStringLiteral("--provider"),       QStringLiteral("deepseek"),
            QStringLiteral("--base-url"),       m_server->baseUrl().toString(),
            QStringLiteral("--model"),          QStringLiteral("test"),
            QStringLiteral("--context-window"), QStringLiteral("100000"),
            QStringLiteral("--workspace"),      m_workspace->path()};
}

TestHeadlessHardening::Outcome TestHeadlessHardening::keen(const QStringList &args,
                                                           const QProcessEnvironment &extra)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.endsWith(QLatin1String("_API_KEY")) || name.startsWith(QLatin1String("AWS_")) ||
            name == QLatin1String("QT_LOGGING_RULES"))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("KEEN_HOME"), m_home->path());
    // No keychain: a stored key must not stand in for the canary.
    environment.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    for (const QString &name : extra.keys())
        environment.insert(name, extra.value(name));
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(m_workspace->path());
    process.start(QStringLiteral(KEEN_BINARY_PATH), args);
    Outcome outcome;
    if (!process.waitForStarted(10000)) {
        QTest::qFail("keen-desktop did not start", __FILE__, __LINE__);
        return outcome;
    }
    process.closeWriteChannel();
    if (!FakeProviderServer::spinUntil([&] { return process.state() == QProcess::NotRunning; }, 30000)) {
        process.kill();
        process.waitForFinished(5000);
        QTest::qFail("keen-desktop did not finish", __FILE__, __LINE__);
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = process.readAllStandardOutput();
    outcome.err = process.readAllStandardError();
    m_allOutput += outcome.out + outcome.err;
    return outcome;
}

void TestHeadlessHardening::expectNoCanary(const QByteArray &bytes, const QString &where)
{
    for (const QByteArray &canary : {kCanary, kHelperCanary, kHelperSecondLine}) {
        // The whole key, and its distinctive tail (a key cut short in a message still leaks most of it).
        if (bytes.contains(canary) || bytes.contains(canary.right(12)))
            QTest::qFail(qPrintable(QStringLiteral("a canary key is in %1:\n%2")
                                        .arg(where, QString::fromUtf8(bytes.left(2000)))),
                         __FILE__, __LINE__);
    }
}

QByteArrayList TestHeadlessHardening::keysSent() const
{
    QByteArrayList keys;
    for (const FakeProviderServer::Request &request : m_server->requests())
        keys.append(request.header("authorization").isEmpty() ? request.header("x-api-key")
                                                              : request.header("authorization"));
    return keys;
}

void TestHeadlessHardening::expectHomeCleanAndPrivate(int minimumFiles)
{
    expectNoCanary(m_allOutput, QStringLiteral("the output of a run"));
    if (QTest::currentTestFailed())
        return;

    QStringList files;
    QDirIterator it(m_home->path(), QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        struct stat info = {};
        QCOMPARE(::lstat(QFile::encodeName(path).constData(), &info), 0);
        if (S_ISDIR(info.st_mode)) {
            QVERIFY2((info.st_mode & 0777) == 0700,
                     qPrintable(QStringLiteral("%1 has mode %2").arg(path).arg(info.st_mode & 0777, 0, 8)));
            continue;
        }
        QVERIFY2(S_ISREG(info.st_mode), qPrintable(path));
        QVERIFY2((info.st_mode & 0077) == 0,
                 qPrintable(QStringLiteral("%1 has mode %2").arg(path).arg(info.st_mode & 0777, 0, 8)));
        expectNoCanary(readAll(path), path);
        if (QTest::currentTestFailed())
            return;
        files.append(QDir(m_home->path()).relativeFilePath(path));
    }
    QVERIFY2(files.size() >= minimumFiles, qPrintable(files.join(QLatin1Char('\n'))));

    // A Markdown export of every session, as the window's File > Export writes it.
    const SessionStore store(QDir(m_home->path()).filePath(QStringLiteral("sessions")));
    int exported = 0;
    QDirIterator transcripts(store.root(), {QStringLiteral("transcript_events.jsonl")}, QDir::Files,
                             QDirIterator::Subdirectories);
    while (transcripts.hasNext()) {
        const QString target = m_outside->filePath(QStringLiteral("export-%1.md").arg(exported++));
        const Result<void> written = SessionExporter::exportToFile(store, transcripts.next(), target);
        QVERIFY2(written.ok(), qPrintable(written.error()));
        const QByteArray markdown = readAll(target);
        QVERIFY(markdown.contains("# "));
        expectNoCanary(markdown, target);
    }
    QVERIFY(exported >= 1);
}

void TestHeadlessHardening::canaryKeyFromTheEnvironmentNeverLeaves()
{
    QProcessEnvironment key;
    key.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));

    // 1. A whole turn with a tool call (its output is saved under the data folder too). The command runs a
    // script of the workspace that prints the provider's key variable: commands never see it.
    QFile script(QDir(m_workspace->path()).filePath(QStringLiteral("show.sh")));
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("echo \"tool-ran [$DEEPSEEK_API_KEY]\"\n");
    script.close();
    m_server->enqueue(toolCall(QStringLiteral("bash"),
                               QJsonObject{{QStringLiteral("command"), QStringLiteral("bash ./show.sh")},
                                           {QStringLiteral("summary"), QStringLiteral("say it")}}));
    m_server->enqueue(text(QStringLiteral("all done")));
    const Outcome first = run(deepseekArgs() + QStringList{QStringLiteral("--format"), QStringLiteral("json"),
                                                           QStringLiteral("do it")},
                              key);
    QCOMPARE(first.exitCode, 0);
    const QString sessionId =
        QJsonDocument::fromJson(first.out).object().value(QStringLiteral("session_id")).toString();
    QVERIFY2(!sessionId.isEmpty(), first.out.constData());
    QVERIFY(first.out.contains("all done"));
    QCOMPARE(m_server->requests().size(), 2);
    // The key really went to the provider, so its absence elsewhere means something.
    QCOMPARE(keysSent(), QByteArrayList({"Bearer " + kCanary, "Bearer " + kCanary}));
    QVERIFY(m_server->requests().at(1).body.contains("tool-ran []"));

    // 2. A 401 that quotes the key: a clear error, the key replaced.
    m_server->enqueue(quotingError(401, kCanary));
    const Outcome unauthorized = run(deepseekArgs() + QStringList{QStringLiteral("hello")}, key);
    QCOMPARE(unauthorized.exitCode, 1);
    QVERIFY2(unauthorized.err.contains("Incorrect API key provided: [redacted]"),
             unauthorized.err.constData());

    // 3. The same as JSON output, continuing the first session.
    m_server->enqueue(quotingError(401, kCanary));
    const Outcome json =
        run(deepseekArgs() + QStringList{QStringLiteral("--format"), QStringLiteral("json"),
                                         QStringLiteral("--session"), sessionId, QStringLiteral("again")},
            key);
    QCOMPARE(json.exitCode, 1);
    QVERIFY2(json.err.contains("[redacted]"), json.err.constData());

    // 4. A 503 quoting it, retried until the attempts run out: every retry line names the reason, redacted.
    const qsizetype before = m_server->requests().size();
    for (int i = 0; i < 6; ++i)
        m_server->enqueue(quotingError(503, kCanary));
    const Outcome overloaded = run(deepseekArgs() + QStringList{QStringLiteral("busy?")}, key);
    QCOMPARE(overloaded.exitCode, 1);
    QCOMPARE(m_server->requests().size() - before, 6);
    QVERIFY2(overloaded.err.contains("Incorrect API key provided: [redacted]"), overloaded.err.constData());

    // 5. An error event inside a stream that already sent text: the partial text is kept, the key is not.
    m_server->enqueue(FakeProviderServer::sseResponse(
        chunk(QJsonObject{{QStringLiteral("content"), QStringLiteral("partial words ")}}) +
        sse(QJsonObject{
            {QStringLiteral("error"),
             QJsonObject{{QStringLiteral("message"),
                          QStringLiteral("key %1 was revoked").arg(QString::fromLatin1(kCanary))}}}})));
    const Outcome midStream = run(deepseekArgs() + QStringList{QStringLiteral("--session"), sessionId,
                                                               QStringLiteral("stream then fail")},
                                  key);
    QCOMPARE(midStream.exitCode, 1);
    QVERIFY2(midStream.err.contains("key [redacted] was revoked"), midStream.err.constData());

    // Listing and searching build the search index, which holds the conversations' text.
    const Outcome listed =
        keen({QStringLiteral("sessions"), QStringLiteral("--json"), QStringLiteral("--all")});
    QCOMPARE(listed.exitCode, 0);
    QVERIFY(listed.out.contains(sessionId.toUtf8()));
    const Outcome searched = keen({QStringLiteral("sessions"), QStringLiteral("--all"),
                                   QStringLiteral("--search"), QStringLiteral("partial words")});
    QCOMPARE(searched.exitCode, 0);
    QVERIFY2(searched.out.contains(sessionId.toUtf8()), searched.out.constData());

    expectHomeCleanAndPrivate(4); // three transcripts and the search index
}

void TestHeadlessHardening::canaryKeyFromAHelperNeverLeaves()
{
    const auto writeScript = [&](const QString &name, const QByteArray &body) {
        QFile script(m_outside->filePath(name));
        if (!script.open(QIODevice::WriteOnly) || script.write("#!/bin/sh\n" + body) < 0)
            return QString();
        script.close();
        script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        return script.fileName();
    };
    // A helper printing a multi-line entry; only its first line is the key.
    const QString helper =
        writeScript(QStringLiteral("key-helper.sh"),
                    "printf '%s\\n%s\\n' '" + kHelperCanary + "' 'notes: " + kHelperSecondLine + "'\n");
    // A helper that fails after printing the key on both streams.
    const QString failing =
        writeScript(QStringLiteral("failing-helper.sh"),
                    "echo '" + kHelperCanary + "'\necho 'bad " + kHelperCanary + "' >&2\nexit 3\n");
    QVERIFY(!helper.isEmpty() && !failing.isEmpty());
    const auto writeSettings = [&](const QString &command) {
        QFile settings(QDir(m_home->path()).filePath(QStringLiteral("settings.json")));
        QVERIFY(settings.open(QIODevice::WriteOnly | QIODevice::Truncate));
        settings.write(
            QJsonDocument(
                QJsonObject{{QStringLiteral("providers"),
                             QJsonObject{{QStringLiteral("deepseek"),
                                          QJsonObject{{QStringLiteral("api_key_helper"), command}}}}}})
                .toJson());
        settings.close();
        QVERIFY(settings.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    };
    writeSettings(helper);

    m_server->enqueue(text(QStringLiteral("helper works")));
    const Outcome ok = run(deepseekArgs() + QStringList{QStringLiteral("hi")});
    QCOMPARE(ok.exitCode, 0);
    QVERIFY(ok.out.contains("helper works"));
    QCOMPARE(keysSent(), QByteArrayList({"Bearer " + kHelperCanary}));
    for (const FakeProviderServer::Request &request : m_server->requests()) {
        for (const auto &header : request.headers)
            QVERIFY2(!header.second.contains(kHelperSecondLine), header.first.constData());
    }

    // The key is refused and quoted back: the helper is asked once more, then the error is shown redacted.
    m_server->enqueue(quotingError(401, kHelperCanary));
    m_server->enqueue(quotingError(401, kHelperCanary));
    const Outcome refused = run(deepseekArgs() + QStringList{QStringLiteral("hi again")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("Incorrect API key provided: [redacted]"), refused.err.constData());

    writeSettings(failing);
    const qsizetype before = m_server->requests().size();
    const Outcome failed = run(deepseekArgs() + QStringList{QStringLiteral("hi")});
    QCOMPARE(failed.exitCode, 1);
    QVERIFY2(failed.err.contains("exit code 3"), failed.err.constData());
    QCOMPARE(m_server->requests().size(), before); // nothing was sent without a key

    expectHomeCleanAndPrivate(3); // settings.json and two transcripts
}

void TestHeadlessHardening::anthropicWireQuotingTheKeyIsRedacted()
{
    // MiniMax speaks Anthropic Messages; its 401 quotes the x-api-key.
    QProcessEnvironment key;
    key.insert(QStringLiteral("MINIMAX_API_KEY"), QString::fromLatin1(kCanary));
    m_server->enqueue(FakeProviderServer::jsonResponse(
        401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key )" +
                 kCanary + R"("}})"));
    const Outcome refused =
        run({QStringLiteral("--provider"), QStringLiteral("minimax"), QStringLiteral("--base-url"),
             m_server->baseUrl().toString(), QStringLiteral("--model"), QStringLiteral("test"),
             QStringLiteral("--context-window"), QStringLiteral("100000"), QStringLiteral("--workspace"),
             m_workspace->path(), QStringLiteral("hi")},
            key);
    QCOMPARE(refused.exitCode, 1);
    QCOMPARE(keysSent(), QByteArrayList({kCanary}));
    QVERIFY2(refused.err.contains("invalid x-api-key [redacted]"), refused.err.constData());
    expectHomeCleanAndPrivate(1); // the transcript of the refused turn
}

void TestHeadlessHardening::dangerousCommandNeedsYolo()
{
    QProcessEnvironment key;
    key.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));
    const QString victim = QDir(m_workspace->path()).filePath(QStringLiteral("victim"));
    QVERIFY(QFile(victim).open(QIODevice::WriteOnly));
    const QJsonObject remove{{QStringLiteral("command"), QStringLiteral("rm -rf victim")},
                             {QStringLiteral("summary"), QStringLiteral("remove it")}};

    m_server->enqueue(toolCall(QStringLiteral("bash"), remove));
    m_server->enqueue(text(QStringLiteral("could not")));
    const Outcome refused = run(deepseekArgs() + QStringList{QStringLiteral("clean up")}, key);
    QCOMPARE(refused.exitCode, 0);
    QVERIFY(QFile::exists(victim));
    QCOMPARE(m_server->requests().size(), 2);
    // The model is told why, and the person reading stderr sees the refusal.
    QVERIFY2(m_server->requests().at(1).body.contains("non-interactive"),
             m_server->requests().at(1).body.constData());

    m_server->enqueue(toolCall(QStringLiteral("bash"), remove));
    m_server->enqueue(text(QStringLiteral("removed")));
    const Outcome yolo =
        run(deepseekArgs() + QStringList{QStringLiteral("--yolo"), QStringLiteral("clean up")}, key);
    QCOMPARE(yolo.exitCode, 0);
    QVERIFY(!QFile::exists(victim));
}

void TestHeadlessHardening::leavingTheWorkspaceIsRefusedEvenWithYolo()
{
    QProcessEnvironment key;
    key.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));
    const QString secret = m_outside->filePath(QStringLiteral("secret.txt"));
    {
        QFile file(secret);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("outside-only-text\n");
    }
    QVERIFY(QFile::link(m_outside->path(), QDir(m_workspace->path()).filePath(QStringLiteral("linkdir"))));

    for (const QStringList &mode : {QStringList(), QStringList{QStringLiteral("--yolo")}}) {
        m_server->clearRequests();
        m_server->enqueue(toolCall(QStringLiteral("read_file"), {{QStringLiteral("path"), secret}}));
        m_server->enqueue(toolCall(QStringLiteral("read_file"),
                                   {{QStringLiteral("path"), QStringLiteral("linkdir/secret.txt")}}));
        m_server->enqueue(toolCall(QStringLiteral("write_file"),
                                   {{QStringLiteral("path"), QStringLiteral("linkdir/planted.txt")},
                                    {QStringLiteral("content"), QStringLiteral("planted")}}));
        m_server->enqueue(text(QStringLiteral("stayed inside")));
        const Outcome outcome = run(deepseekArgs() + mode + QStringList{QStringLiteral("look outside")}, key);
        QCOMPARE(outcome.exitCode, 0);
        QCOMPARE(m_server->requests().size(), 4);
        for (const FakeProviderServer::Request &request : m_server->requests())
            QVERIFY2(!request.body.contains("outside-only-text"), request.body.constData());
        for (int i = 1; i < 4; ++i)
            QVERIFY2(m_server->requests().at(i).body.count("outside the workspace") >= i,
                     m_server->requests().at(i).body.constData());
        QVERIFY(!QFile::exists(m_outside->filePath(QStringLiteral("planted.txt"))));
    }
}

// libgit2 is opened on first use (tools/libgit2.h). When the library the package depends on is missing or
// broken, a workspace inside a repository cannot have its .gitignore checked: every path there is refused
// with the reason, and nothing the rules might hide reaches the provider.
void TestHeadlessHardening::gitignoreFailsClosedWhenLibgit2CannotLoad()
{
    QProcess git;
    git.setWorkingDirectory(m_workspace->path());
    git.start(QStringLiteral("git"), {QStringLiteral("init"), QStringLiteral("-q")});
    QVERIFY(git.waitForFinished(30000) && git.exitCode() == 0);
    const auto write = [this](const QString &name, const QByteArray &content) {
        QFile file(QDir(m_workspace->path()).filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
    };
    QVERIFY(write(QStringLiteral(".gitignore"), "secret.env\n"));
    QVERIFY(write(QStringLiteral("secret.env"), "ignored-secret-text\n"));
    QVERIFY(write(QStringLiteral("notes.txt"), "plain-notes-text\n"));
    // A file by libgit2's name that is no library, found first through LD_LIBRARY_PATH.
    const QString fakeLibraries = m_outside->filePath(QStringLiteral("lib"));
    QVERIFY(QDir().mkpath(fakeLibraries));
    {
        QFile broken(fakeLibraries + QStringLiteral("/") + QStringLiteral(KEEN_LIBGIT2_SONAME));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("not a shared library\n");
    }
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));
    environment.insert(QStringLiteral("LD_LIBRARY_PATH"), fakeLibraries);

    m_server->enqueue(
        toolCall(QStringLiteral("read_file"), {{QStringLiteral("path"), QStringLiteral("secret.env")}}));
    m_server->enqueue(
        toolCall(QStringLiteral("read_file"), {{QStringLiteral("path"), QStringLiteral("notes.txt")}}));
    m_server->enqueue(text(QStringLiteral("could not read")));
    const Outcome outcome = run(deepseekArgs() + QStringList{QStringLiteral("read my files")}, environment);
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(outcome.out, QByteArray("could not read\n"));
    QCOMPARE(m_server->requests().size(), 3);
    for (const FakeProviderServer::Request &request : m_server->requests()) {
        QVERIFY2(!request.body.contains("ignored-secret-text"), request.body.constData());
        QVERIFY2(!request.body.contains("plain-notes-text"), request.body.constData());
    }
    // What the model is told, for each file: the rules cannot be checked, and why (the library and the
    // loader's reason).
    const QByteArray last = m_server->requests().at(2).body;
    QCOMPARE(last.count("the .gitignore rules cannot be checked: cannot load " KEEN_LIBGIT2_SONAME), 2);
    QVERIFY2(last.contains("invalid ELF header") || last.contains("file too short"), last.constData());
}

// web_fetch in a headless run: allowed without a question, the page reaches the model as Markdown, and the
// request for the page carries nothing of the provider's: no key, no cookie. The page here is on this
// computer: refused unless KEEN_WEB_FETCH_LOCAL=1 (nobody is asked in a run).
void TestHeadlessHardening::aFetchedPageReachesTheModelButTheKeyNeverReachesThePage()
{
    QProcessEnvironment key;
    key.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));
    const QString url = m_server->baseUrl().toString() + QStringLiteral("/docs/notes.html");
    m_server->enqueue(toolCall(QStringLiteral("web_fetch"), {{QStringLiteral("url"), url}}));
    m_server->enqueue(text(QStringLiteral("not allowed")));
    const Outcome refused = run(deepseekArgs() + QStringList{QStringLiteral("read the notes")}, key);
    QCOMPARE(refused.exitCode, 0);
    QCOMPARE(m_server->requests().size(), 2); // no GET of the page
    QVERIFY2(
        m_server->requests().at(1).body.contains("is on this computer or the local network, and nobody is "
                                                 "here to allow that"),
        m_server->requests().at(1).body.constData());
    m_server->clearRequests();

    key.insert(QStringLiteral("KEEN_WEB_FETCH_LOCAL"), QStringLiteral("1"));
    m_server->enqueue(toolCall(QStringLiteral("web_fetch"), {{QStringLiteral("url"), url}}));
    FakeProviderServer::Response page;
    page.contentType = "text/html; charset=utf-8";
    page.body = "<html><head><title>Notes</title></head><body><h1>Release notes</h1>"
                "<p>See <a href=\"/docs/upgrade.html\">the upgrade guide</a>.</p></body></html>";
    m_server->enqueue(page);
    m_server->enqueue(text(QStringLiteral("read it")));
    const Outcome outcome = run(deepseekArgs() + QStringList{QStringLiteral("read the notes")}, key);
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.out.contains("read it"), outcome.out.constData());

    const QList<FakeProviderServer::Request> requests = m_server->requests();
    QCOMPARE(requests.size(), 3);
    QCOMPARE(requests.at(1).method, QByteArray("GET"));
    QCOMPARE(requests.at(1).path, QByteArray("/docs/notes.html"));
    for (const auto &[name, value] : requests.at(1).headers) {
        const QByteArray lower = name.toLower();
        QVERIFY2(lower != "authorization" && lower != "x-api-key" && lower != "cookie", name.constData());
        expectNoCanary(value, QStringLiteral("the page request's %1 header").arg(QString::fromLatin1(name)));
    }
    QCOMPARE(requests.at(1).header("user-agent"), QByteArray("KeenDesktop/" KEEN_VERSION));
    // The tool's result is JSON text inside the request's JSON: line breaks are escaped twice.
    const QByteArray expected = "# Release notes\\\\n\\\\nSee [the upgrade guide](" +
                                m_server->baseUrl().toString().toUtf8() + "/docs/upgrade.html).";
    QVERIFY2(requests.at(2).body.contains(expected), requests.at(2).body.constData());
    expectHomeCleanAndPrivate(1);
}

// MCP in a headless run (reference 6.7): the servers start before the turn, call_mcp_tool is allowed without
// a question, a server that cannot start is named on stderr ("MCP unavailable") and the run goes on, and the
// provider's key never reaches a server's environment.
void TestHeadlessHardening::mcpServersGetNoProviderKeyAndAFailedOneIsNamed()
{
    QVERIFY(test::writeFakeMcpServers(m_home->path()));

    QProcessEnvironment key;
    key.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));
    m_server->enqueue(
        toolCall(QStringLiteral("call_mcp_tool"),
                 {{QStringLiteral("server"), QStringLiteral("fake")},
                  {QStringLiteral("tool"), QStringLiteral("env")},
                  {QStringLiteral("arguments"),
                   QJsonObject{{QStringLiteral("name"), QStringLiteral("DEEPSEEK_API_KEY")}}}}));
    m_server->enqueue(toolCall(QStringLiteral("call_mcp_tool"),
                               {{QStringLiteral("server"), QStringLiteral("fake")},
                                {QStringLiteral("tool"), QStringLiteral("echo")},
                                {QStringLiteral("arguments"),
                                 QJsonObject{{QStringLiteral("text"), QStringLiteral("mcp-echo-7")}}}}));
    m_server->enqueue(text(QStringLiteral("used the server")));
    const Outcome outcome = run(deepseekArgs() + QStringList{QStringLiteral("use the server")}, key);
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.out.contains("used the server"), outcome.out.constData());
    QVERIFY2(outcome.err.contains("MCP unavailable: broken: ") &&
                 outcome.err.contains("cannot open the database"),
             outcome.err.constData());
    expectNoCanary(outcome.err, QStringLiteral("stderr"));

    const QList<FakeProviderServer::Request> requests = m_server->requests();
    QCOMPARE(requests.size(), 3);
    // The first request offers the tool and lists the server's skill; the results come back as content.
    QVERIFY(requests.at(0).body.contains("\"call_mcp_tool\""));
    QVERIFY2(requests.at(0).body.contains("mcp:fake"), requests.at(0).body.constData());
    QVERIFY2(requests.at(1).body.contains("\\\"content\\\":\\\"\\\""), requests.at(1).body.constData());
    QVERIFY2(requests.at(2).body.contains("mcp-echo-7"), requests.at(2).body.constData());
    expectHomeCleanAndPrivate(1);
}

// An MCP server that signs in with OAuth (the window's /mcp connect): a run has no browser, so it says how to
// sign in when nobody has; once the window did, the run connects with the stored token.
void TestHeadlessHardening::anMcpServerSignedInToInTheWindowWorksInARun()
{
    test::FakeOAuthMcpServer cloud;
    QVERIFY(test::writeFile(m_home->filePath(QStringLiteral("mcp/configs.json")),
                            "{\"servers\": {\"cloud\": {\"url\": \"" + cloud.mcpUrl().toUtf8() +
                                "\", \"auth\": {\"type\": \"oauth\"}}}}"));
    QProcessEnvironment env;
    env.insert(QStringLiteral("KEEN_DISABLE_KEYCHAIN"), QStringLiteral("1")); // the sign-in is in the file
    env.insert(QStringLiteral("DEEPSEEK_API_KEY"), QString::fromLatin1(kCanary));
    m_server->enqueue(text(QStringLiteral("no tracker")));
    Outcome outcome = run(deepseekArgs() + QStringList{QStringLiteral("list my files")}, env);
    QVERIFY2(outcome.exitCode == 0, outcome.err.constData());
    QVERIFY2(outcome.err.contains(
                 "MCP unavailable: cloud: not signed in: /mcp connect cloud signs in with the browser"),
             outcome.err.constData());

    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    const auto restore = qScopeGuard([] { qunsetenv("KEEN_DISABLE_KEYCHAIN"); });
    QVERIFY(McpOAuthStore::save(m_home->path(), QStringLiteral("cloud"),
                                cloud.signIn(QStringLiteral("access-from-the-window"), 3600)));

    m_server->clearRequests();
    m_server->enqueue(
        toolCall(QStringLiteral("call_mcp_tool"), {{QStringLiteral("server"), QStringLiteral("cloud")},
                                                   {QStringLiteral("tool"), QStringLiteral("files_list")},
                                                   {QStringLiteral("arguments"), QJsonObject()}}));
    m_server->enqueue(text(QStringLiteral("listed them")));
    outcome = run(deepseekArgs() + QStringList{QStringLiteral("list my files")}, env);
    QCOMPARE(outcome.exitCode, 0);
    QVERIFY2(outcome.out.contains("listed them"), outcome.out.constData());
    QVERIFY2(!outcome.err.contains("MCP unavailable"), outcome.err.constData());
    QVERIFY2(outcome.err.contains("✓ MCP cloud/files_list"), outcome.err.constData());
    const QList<FakeProviderServer::Request> calls = cloud.mcp.requests();
    QVERIFY(!calls.isEmpty());
    QCOMPARE(calls.constLast().header("Authorization"), QByteArray("Bearer access-from-the-window"));
    QCOMPARE(calls.constLast().json[QStringLiteral("method")].toString(), QStringLiteral("tools/call"));
    expectNoCanary(outcome.err, QStringLiteral("stderr"));
}

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestHeadlessHardening)
#include "tst_headlesshardening.moc"
