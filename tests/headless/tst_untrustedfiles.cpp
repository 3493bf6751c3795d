// Files the app reads but did not write in this run, each replaced by a FIFO or a link to /dev/zero, with
// the real `keen-desktop` (issue 14: "Read only regular files, with a size cap", "Name the file and the
// reason"). Before, each of these hung the command (a FIFO blocks its reader or writer) or aborted it with
// std::bad_alloc (/dev/zero never ends). Now every command finishes, names the file and the reason on stderr,
// and goes on where it can.
#include "fakeproviderserver.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <sys/stat.h>

using keen::test::FakeProviderServer;

namespace keen {

namespace {

QByteArray sse(const QJsonObject &object)
{
    return "data: " + QJsonDocument(object).toJson(QJsonDocument::Compact) + "\n\n";
}

QByteArray textBody(const QString &text)
{
    const auto choice = [](const QJsonObject &delta, const QJsonValue &finish) {
        return QJsonObject{
            {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                               {QStringLiteral("delta"), delta},
                                                               {QStringLiteral("finish_reason"), finish}}}}};
    };
    return sse(choice(QJsonObject{{QStringLiteral("content"), text}}, QJsonValue::Null)) +
           sse(choice(QJsonObject(), QStringLiteral("stop"))) +
           sse(QJsonObject{{QStringLiteral("choices"), QJsonArray()},
                           {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 10},
                                                                 {QStringLiteral("completion_tokens"), 5},
                                                                 {QStringLiteral("total_tokens"), 15}}}}) +
           "data: [DONE]\n\n";
}

} // namespace

class TestUntrustedFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void aFileThatIsNotRegularIsNamedAndTheCommandFinishes_data();
    void aFileThatIsNotRegularIsNamedAndTheCommandFinishes();
    void aTitleThatIsNotAFileIsNamedAndTheSessionIsStillFound_data();
    void aTitleThatIsNotAFileIsNamedAndTheSessionIsStillFound();
    void aTranscriptOfRandomBytesIsListedWithTheReasonRunGives();
    void aSearchIndexJournalThatIsNotAFileIsRemovedAndTheIndexRebuilt_data();
    void aSearchIndexJournalThatIsNotAFileIsRemovedAndTheIndexRebuilt();

private:
    struct Outcome
    {
        int exitCode = -1;
        bool finished = false;
        QString out;
        QString err;
    };

    Outcome runKeen(const QStringList &args, int timeoutMs = 20000);
    QStringList providerArgs() const;
    QString createSession(const QString &prompt, const QString &answer);
    QString sessionFolder(const QString &id) const;
    // A FIFO ("fifo") or a symbolic link to /dev/zero ("zero") at path, its folders made first.
    static bool plant(const QString &path, const QString &kind);

    std::unique_ptr<FakeProviderServer> m_server;
    std::unique_ptr<QTemporaryDir> m_home;      // KEEN_HOME
    std::unique_ptr<QTemporaryDir> m_userHome;  // HOME (~/.aws)
    std::unique_ptr<QTemporaryDir> m_workspace; // the project
};

void TestUntrustedFiles::init()
{
    m_server = std::make_unique<FakeProviderServer>();
    QVERIFY(m_server->isListening());
    m_home = std::make_unique<QTemporaryDir>();
    m_userHome = std::make_unique<QTemporaryDir>();
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_home->isValid() && m_userHome->isValid() && m_workspace->isValid());
}

void TestUntrustedFiles::cleanup()
{
    m_server.reset();
    m_home.reset();
    m_userHome.reset();
    m_workspace.reset();
}

TestUntrustedFiles::Outcome TestUntrustedFiles::runKeen(const QStringList &args, int timeoutMs)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.endsWith(QLatin1String("_API_KEY")) || name.startsWith(QLatin1String("AWS_")))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("KEEN_HOME"), m_home->path());
    environment.insert(QStringLiteral("HOME"), m_userHome->path());
    environment.insert(QStringLiteral("KEEN_DISABLE_KEYCHAIN"), QStringLiteral("1"));
    environment.insert(QStringLiteral("AWS_EC2_METADATA_DISABLED"), QStringLiteral("true"));
    environment.insert(QStringLiteral("AWS_REGION"), QStringLiteral("us-east-1"));
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(m_workspace->path());
    process.start(QStringLiteral(KEEN_BINARY_PATH), args);
    process.closeWriteChannel();
    Outcome outcome;
    outcome.finished =
        FakeProviderServer::spinUntil([&] { return process.state() == QProcess::NotRunning; }, timeoutMs);
    if (!outcome.finished) {
        process.kill();
        FakeProviderServer::spinUntil([&] { return process.state() == QProcess::NotRunning; }, 5000);
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = QString::fromUtf8(process.readAllStandardOutput());
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

QStringList TestUntrustedFiles::providerArgs() const
{
    return {QStringLiteral("--provider"),  QStringLiteral("openai-compatible"),
            QStringLiteral("--base-url"),  m_server->baseUrl().toString() + QStringLiteral("/v1"),
            QStringLiteral("--model"),     QStringLiteral("test"),
            QStringLiteral("--workspace"), m_workspace->path()};
}

QString TestUntrustedFiles::createSession(const QString &prompt, const QString &answer)
{
    m_server->enqueue(FakeProviderServer::sseResponse(textBody(answer)));
    const Outcome run =
        runKeen(QStringList{QStringLiteral("run"), QStringLiteral("--format"), QStringLiteral("json")} +
                providerArgs() + QStringList{prompt});
    if (run.exitCode != 0) {
        qWarning().noquote() << "creating a session failed:" << run.err;
        return {};
    }
    return QJsonDocument::fromJson(run.out.toUtf8()).object().value(QStringLiteral("session_id")).toString();
}

QString TestUntrustedFiles::sessionFolder(const QString &id) const
{
    QDirIterator it(QDir(m_home->path()).filePath(QStringLiteral("sessions")),
                    QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString folder = it.next();
        if (QFileInfo(folder).fileName() == id)
            return folder;
    }
    return {};
}

bool TestUntrustedFiles::plant(const QString &path, const QString &kind)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return false;
    QFile::remove(path);
    if (kind == QLatin1String("fifo"))
        return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
    return QFile::link(QStringLiteral("/dev/zero"), path);
}

void TestUntrustedFiles::aFileThatIsNotRegularIsNamedAndTheCommandFinishes_data()
{
    QTest::addColumn<QString>("file");    // where, relative to KEEN_HOME ("home:"), HOME ("~/") or the
                                          // workspace ("ws:")
    QTest::addColumn<QString>("kind");    // fifo or zero
    QTest::addColumn<QString>("command"); // "turn": a turn against the fake provider; else a provider id
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("reason");

    const QString fifo = QStringLiteral("named pipe (FIFO)");
    const QString device = QStringLiteral("device");
    for (const QString &kind : {QStringLiteral("fifo"), QStringLiteral("zero")}) {
        const QString reason = kind == QLatin1String("fifo") ? fifo : device;
        const QByteArray suffix = kind == QLatin1String("fifo") ? " (FIFO)" : " (/dev/zero)";
        // The key lookup fails with the file and why; nothing is sent.
        QTest::newRow(QByteArray("secrets.json" + suffix).constData())
            << QStringLiteral("home:secrets.json") << kind << QStringLiteral("deepseek") << 1 << reason;
        // A project's memory is left out of the prompt, said, and the turn is answered.
        QTest::newRow(QByteArray(".keen/MEMORY.md" + suffix).constData())
            << QStringLiteral("ws:.keen/MEMORY.md") << kind << QStringLiteral("turn") << 0 << reason;
        QTest::newRow(QByteArray("global MEMORY.md" + suffix).constData())
            << QStringLiteral("home:memory/global/MEMORY.md") << kind << QStringLiteral("turn") << 0
            << reason;
        // A skill the person wrote is missing from the turn: said.
        QTest::newRow(QByteArray("skills/x/SKILL.md" + suffix).constData())
            << QStringLiteral("ws:.keen/skills/notes/SKILL.md") << kind << QStringLiteral("turn") << 0
            << reason;
        // The bundled copy the app keeps in its data folder.
        QTest::newRow(QByteArray("bundled SKILL.md" + suffix).constData())
            << QStringLiteral("home:skills/bundled/review/SKILL.md") << kind << QStringLiteral("turn") << 0
            << reason;
        QTest::newRow(QByteArray("~/.aws/credentials" + suffix).constData())
            << QStringLiteral("~/.aws/credentials") << kind << QStringLiteral("amazon-bedrock") << 1
            << reason;
        QTest::newRow(QByteArray("~/.aws/config" + suffix).constData())
            << QStringLiteral("~/.aws/config") << kind << QStringLiteral("amazon-bedrock") << 1 << reason;
        QTest::newRow(QByteArray("auth.json" + suffix).constData())
            << QStringLiteral("home:auth.json") << kind << QStringLiteral("openai-codex") << 1 << reason;
    }
    // Appended to after the reply: the run ends with its answer printed and says why usage is not kept.
    QTest::newRow("usage/usage.jsonl (FIFO)")
        << QStringLiteral("home:usage/usage.jsonl") << QStringLiteral("fifo") << QStringLiteral("turn") << 0
        << fifo;
}

void TestUntrustedFiles::aFileThatIsNotRegularIsNamedAndTheCommandFinishes()
{
    QFETCH(QString, file);
    QFETCH(QString, kind);
    QFETCH(QString, command);
    QFETCH(int, exitCode);
    QFETCH(QString, reason);
    QString path;
    if (file.startsWith(QLatin1String("home:")))
        path = QDir(m_home->path()).filePath(file.mid(5));
    else if (file.startsWith(QLatin1String("~/")))
        path = QDir(m_userHome->path()).filePath(file.mid(2));
    else
        path = QDir(m_workspace->path()).filePath(file.mid(3));
    QVERIFY(plant(path, kind));

    QStringList args{QStringLiteral("run")};
    if (command == QLatin1String("turn")) {
        m_server->enqueue(FakeProviderServer::sseResponse(textBody(QStringLiteral("the answer"))));
        args += providerArgs();
    } else {
        args += QStringList{QStringLiteral("--provider"),
                            command,
                            QStringLiteral("--model"),
                            command == QLatin1String("bedrock") ? QStringLiteral("anthropic.claude-test")
                                                                : QStringLiteral("test-model"),
                            QStringLiteral("--workspace"),
                            m_workspace->path()};
    }
    args += QStringLiteral("hi");

    const Outcome run = runKeen(args);
    QVERIFY2(run.finished, qPrintable(QStringLiteral("hung; stderr: ") + run.err));
    QVERIFY2(run.exitCode == exitCode, qPrintable(run.err));
    QVERIFY2(run.err.contains(path) && run.err.contains(reason), qPrintable(run.err));
    if (exitCode == 0)
        QVERIFY2(run.out.contains(QLatin1String("the answer")), qPrintable(run.out));
    else
        QCOMPARE(m_server->requests().size(), 0);
    // What was planted is left as it was: nothing writes over someone's FIFO or link.
    QVERIFY(QFileInfo(path).isSymLink() || !QFileInfo(path).isFile());
}

void TestUntrustedFiles::aTitleThatIsNotAFileIsNamedAndTheSessionIsStillFound_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("a FIFO") << QStringLiteral("fifo") << QStringLiteral("named pipe (FIFO)");
    QTest::newRow("a link to /dev/zero") << QStringLiteral("zero") << QStringLiteral("device");
}

void TestUntrustedFiles::aTitleThatIsNotAFileIsNamedAndTheSessionIsStillFound()
{
    // issue 14: a FIFO as a session's title.txt hung `sessions --search` (the search index read it), and
    // /dev/zero aborted it with std::bad_alloc; the window's session browser reads the same index.
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    const QString id = createSession(QStringLiteral("where is the walrus"), QStringLiteral("in the sea"));
    QVERIFY(!id.isEmpty());
    const QString title = QDir(sessionFolder(id)).filePath(QStringLiteral("title.txt"));
    QVERIFY(plant(title, kind));

    const Outcome found =
        runKeen({QStringLiteral("sessions"), QStringLiteral("--search"), QStringLiteral("walrus")});
    QVERIFY2(found.finished, "hung");
    QVERIFY2(found.exitCode == 0, qPrintable(found.err));
    QVERIFY2(found.out.contains(id), qPrintable(found.out));
    QVERIFY2(found.err.contains(title) && found.err.contains(reason), qPrintable(found.err));

    const Outcome listed = runKeen({QStringLiteral("sessions")});
    QVERIFY2(listed.finished, "hung");
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(listed.out.contains(id), qPrintable(listed.out));
}

void TestUntrustedFiles::aTranscriptOfRandomBytesIsListedWithTheReasonRunGives()
{
    // issue 14: `sessions` listed 20 KB of random bytes as an ordinary "(untitled)" session while
    // `run --session ID` refused it.
    const QString id = createSession(QStringLiteral("first question"), QStringLiteral("first answer"));
    QVERIFY(!id.isEmpty());
    const QString transcript = QDir(sessionFolder(id)).filePath(QStringLiteral("transcript_events.jsonl"));
    {
        QFile random(QStringLiteral("/dev/urandom"));
        QVERIFY(random.open(QIODevice::ReadOnly | QIODevice::Unbuffered));
        QFile file(transcript);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QByteArray bytes = random.read(20 * 1024);
        bytes.replace("\"seq\"", "\"qes\""); // never, by chance, a valid event
        QCOMPARE(file.write(bytes), qint64(bytes.size()));
    }
    const QString reason =
        QStringLiteral("%1 is not a session transcript: no line of it is a session event").arg(transcript);

    const Outcome run = runKeen(QStringList{QStringLiteral("run"), QStringLiteral("--session"), id} +
                                providerArgs() + QStringList{QStringLiteral("next")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(reason), qPrintable(run.err));

    const Outcome listed = runKeen({QStringLiteral("sessions")});
    QCOMPARE(listed.exitCode, 0);
    QVERIFY2(listed.out.contains(id) && listed.out.contains(QLatin1String("(unreadable)")),
             qPrintable(listed.out));
    QVERIFY2(listed.err.contains(QStringLiteral("Warning: ") + reason), qPrintable(listed.err));

    const Outcome json = runKeen({QStringLiteral("sessions"), QStringLiteral("--json")});
    QCOMPARE(json.exitCode, 0);
    const QJsonObject entry = QJsonDocument::fromJson(json.out.toUtf8()).array().first().toObject();
    QCOMPARE(entry.value(QStringLiteral("id")).toString(), id);
    QCOMPARE(entry.value(QStringLiteral("error")).toString(), reason);
}

void TestUntrustedFiles::aSearchIndexJournalThatIsNotAFileIsRemovedAndTheIndexRebuilt_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("a folder") << QStringLiteral("folder");
    QTest::newRow("a FIFO") << QStringLiteral("fifo");
    QTest::newRow("a link to /dev/zero") << QStringLiteral("zero");
}

void TestUntrustedFiles::aSearchIndexJournalThatIsNotAFileIsRemovedAndTheIndexRebuilt()
{
    // issue 14: a folder as index/sessions.sqlite-journal failed every search with "disk I/O error Unable
    // to execute statement" (no path, no rebuild); a FIFO there hung the search.
    QFETCH(QString, kind);
    const QString id = createSession(QStringLiteral("where is the walrus"), QStringLiteral("in the sea"));
    QVERIFY(!id.isEmpty());
    const QStringList search{QStringLiteral("sessions"), QStringLiteral("--search"),
                             QStringLiteral("walrus")};
    QVERIFY(runKeen(search).out.contains(id)); // builds the index
    const QString journal = QDir(m_home->path()).filePath(QStringLiteral("index/sessions.sqlite-journal"));
    QVERIFY(kind == QLatin1String("folder") ? QDir().mkpath(journal) : plant(journal, kind));

    const Outcome found = runKeen(search);
    QVERIFY2(found.finished, "hung");
    QVERIFY2(found.exitCode == 0, qPrintable(found.err));
    QVERIFY2(found.out.contains(id), qPrintable(found.out + found.err));
    QVERIFY(!QFileInfo::exists(journal) || QFileInfo(journal).isFile());

    // What cannot be removed is named: a folder with something in it.
    QVERIFY(QDir().mkpath(journal + QStringLiteral("/kept")));
    const Outcome refused = runKeen(search);
    QVERIFY2(refused.finished, "hung");
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains(journal), qPrintable(refused.err));
    QVERIFY(QFileInfo(journal + QStringLiteral("/kept")).isDir()); // nothing of someone's removed
}

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestUntrustedFiles)
#include "tst_untrustedfiles.moc"
