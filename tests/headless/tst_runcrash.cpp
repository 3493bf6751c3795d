// Crash safety of a whole `keen-desktop run` (issue 14): the real binary works through a turn that streams
// text, runs a tool (bash sleep), reads a big file, compacts automatically (the private summary and the
// checkpoint batch) and streams a long final reply, and is killed with SIGKILL at a random moment of it.
// After every kill: every transcript loads (at most its last line torn), seqs increase, no automatic
// compaction_applied is without its checkpoint right before it, and the session resumes: `run --session ID`
// works and its turn is saved.
//
// ctest runs a few trials (KEEN_CRASH_TRIALS, default 6), with kill moments spread over the whole run;
// tests/headless/run-crash-trials.sh runs 200 or more.
#include "fakeproviderserver.h"
#include "workloads.h"

#include "session/sessionstore.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using keen::test::FakeProviderServer;
using keen::test::Workloads;

namespace keen {

namespace {

FakeProviderServer::Response streamed(const QByteArray &body)
{
    FakeProviderServer::Response response;
    response.contentType = "text/event-stream";
    response.body = body;
    // Small pieces a few milliseconds apart: the stream takes long enough for a kill to land inside it.
    response.split = FakeProviderServer::SplitMode::chunkSizes({400});
    response.delayMs = 2;
    return response;
}

// The scripted turn: text, a bash call, a read of big.txt (which pushes the estimate over the automatic
// compaction threshold of a 20000-token window), the private summary, then a long reply.
void enqueueTurn(FakeProviderServer &server)
{
    server.enqueue(streamed(Workloads::chatCompletionsToolCallSse(
        Workloads::chunks(QStringLiteral("Let me wait for the build first. "), 4), QStringLiteral("call_1"),
        QStringLiteral("bash"), QJsonObject{{QStringLiteral("command"), QStringLiteral("sleep 0.3")}})));
    server.enqueue(streamed(Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Now the file.")}, QStringLiteral("call_2"), QStringLiteral("read_file"),
        QJsonObject{{QStringLiteral("path"), QStringLiteral("big.txt")}})));
    // The conversation is too large for one summary request: it is summarised in two parts (issue 16).
    for (int part = 0; part < 2; ++part)
        server.enqueue(streamed(Workloads::chatCompletionsSse(
            Workloads::chunks(QStringLiteral("## Goal\nRead big.txt and report.\n"), 5))));
    server.enqueue(
        streamed(Workloads::chatCompletionsSse(Workloads::chunks(Workloads::markdownReply(8000), 20))));
}

QStringList transcripts(const QString &home)
{
    QStringList paths;
    QDirIterator it(QDir(home).filePath(QStringLiteral("sessions")),
                    {QStringLiteral("transcript_events.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        paths.append(it.next());
    return paths;
}

} // namespace

class TestRunCrash : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killedRunLeavesASessionThatLoadsAndResumes();

private:
    struct Trial
    {
        std::unique_ptr<QTemporaryDir> home;
        std::unique_ptr<QTemporaryDir> workspace;
        std::unique_ptr<FakeProviderServer> server;
    };
    Trial newTrial() const;
    std::unique_ptr<QProcess> start(const Trial &trial, const QStringList &args) const;
    // Checks every transcript of the trial; returns the session ids. Right after a kill only the last line
    // may be torn; once resumed, that torn line is followed by the new events.
    QStringList checkTranscripts(const Trial &trial, const QString &context, bool justKilled,
                                 int *compactions = nullptr) const;
};

TestRunCrash::Trial TestRunCrash::newTrial() const
{
    Trial trial{std::make_unique<QTemporaryDir>(), std::make_unique<QTemporaryDir>(),
                std::make_unique<FakeProviderServer>()};
    QFile big(QDir(trial.workspace->path()).filePath(QStringLiteral("big.txt")));
    if (big.open(QIODevice::WriteOnly)) {
        for (int i = 0; i < 700; ++i)
            big.write(QByteArray(99, char('a' + i % 26)) + '\n');
    }
    return trial;
}

std::unique_ptr<QProcess> TestRunCrash::start(const Trial &trial, const QStringList &args) const
{
    auto process = std::make_unique<QProcess>();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("KEEN_HOME"), trial.home->path());
    process->setProcessEnvironment(environment);
    process->setWorkingDirectory(trial.workspace->path());
    process->start(QStringLiteral(KEEN_BINARY_PATH),
                   QStringList{QStringLiteral("run"), QStringLiteral("--context-window"),
                               QStringLiteral("20000"), QStringLiteral("--provider"),
                               QStringLiteral("openai-compatible"), QStringLiteral("--base-url"),
                               trial.server->baseUrl().toString() + QStringLiteral("/v1"),
                               QStringLiteral("--model"), QStringLiteral("test"),
                               QStringLiteral("--workspace"), trial.workspace->path()} +
                       args);
    process->closeWriteChannel();
    return process;
}

QStringList TestRunCrash::checkTranscripts(const Trial &trial, const QString &context, bool justKilled,
                                           int *compactions) const
{
    QStringList ids;
    const SessionStore store(QDir(trial.home->path()).filePath(QStringLiteral("sessions")));
    for (const QString &path : transcripts(trial.home->path())) {
        const Result<LoadedSession> loaded = store.load(path);
        if (!loaded) {
            QTest::qFail(qPrintable(context + QStringLiteral(": ") + loaded.error()), __FILE__, __LINE__);
            return {};
        }
        // Only the last line can be torn by a kill ("line N: ...").
        if (loaded->skippedLines > 1) {
            QTest::qFail(qPrintable(context + QStringLiteral(": more than one damaged line")), __FILE__,
                         __LINE__);
            return {};
        }
        for (const QString &problem : loaded->problems) {
            const int line = problem.section(QLatin1Char(':'), 0, 0).section(QLatin1Char(' '), 1).toInt();
            if (justKilled && line != loaded->events.size() + loaded->skippedLines) {
                QTest::qFail(
                    qPrintable(context + QStringLiteral(": damaged line that is not the last: ") + problem),
                    __FILE__, __LINE__);
                return {};
            }
        }
        quint64 previous = 0;
        for (qsizetype i = 0; i < loaded->events.size(); ++i) {
            const SessionEvent &event = loaded->events.at(i);
            if (event.seq <= previous) {
                QTest::qFail(qPrintable(context + QStringLiteral(": seq does not increase")), __FILE__,
                             __LINE__);
                return {};
            }
            previous = event.seq;
            // S60, S61: an automatic compaction (empty status) is written together with its checkpoint.
            if (event.kind == SessionEvent::Kind::CompactionApplied && compactions)
                ++*compactions;
            if (event.kind == SessionEvent::Kind::CompactionApplied && event.status().isEmpty()) {
                const bool checkpointed =
                    i > 0 && loaded->events.at(i - 1).kind == SessionEvent::Kind::AssistantTurn &&
                    loaded->events.at(i - 1).seq + 1 == event.seq;
                if (!checkpointed) {
                    QTest::qFail(
                        qPrintable(context + QStringLiteral(": compaction_applied without its checkpoint")),
                        __FILE__, __LINE__);
                    return {};
                }
            }
        }
        ids.append(loaded->session.id);
    }
    return ids;
}

void TestRunCrash::killedRunLeavesASessionThatLoadsAndResumes()
{
    const int trials = qEnvironmentVariableIsSet("KEEN_CRASH_TRIALS")
                           ? qEnvironmentVariableIntValue("KEEN_CRASH_TRIALS")
                           : 6;
    // The whole turn once, uncut: it works, and its length sets the range of the kill moments.
    qint64 wholeMs = 0;
    {
        Trial trial = newTrial();
        enqueueTurn(*trial.server);
        QElapsedTimer elapsed;
        elapsed.start();
        auto process = start(trial, {QStringLiteral("read big.txt")});
        QVERIFY(
            FakeProviderServer::spinUntil([&] { return process->state() == QProcess::NotRunning; }, 60000));
        wholeMs = elapsed.elapsed();
        QVERIFY2(process->exitCode() == 0, process->readAllStandardError().constData());
        QCOMPARE(trial.server->requests().size(), 5);
        int compactions = 0;
        checkTranscripts(trial, QStringLiteral("uncut"), true, &compactions);
        QCOMPARE(compactions, 1); // the turn really compacts
        QVERIFY(!QTest::currentTestFailed());
    }

    QRandomGenerator random(quint32(qEnvironmentVariableIntValue("KEEN_CRASH_SEED")));
    int withCompaction = 0;
    int resumed = 0;
    QElapsedTimer total;
    total.start();
    for (int i = 0; i < trials; ++i) {
        Trial trial = newTrial();
        enqueueTurn(*trial.server);
        // Spread over the whole turn: stratified, so even a few trials cover streaming, the tool, the
        // compaction and the batch.
        const qint64 killAt = qint64((i + random.generateDouble()) * double(wholeMs) / trials);
        const QString context =
            QStringLiteral("trial %1, killed at %2 of %3 ms").arg(i).arg(killAt).arg(wholeMs);
        auto process = start(trial, {QStringLiteral("read big.txt")});
        QVERIFY(process->waitForStarted(10000));
        QElapsedTimer elapsed;
        elapsed.start();
        FakeProviderServer::spinUntil([&] { return process->state() == QProcess::NotRunning; }, int(killAt));
        process->kill(); // SIGKILL
        QVERIFY(
            FakeProviderServer::spinUntil([&] { return process->state() == QProcess::NotRunning; }, 10000));

        const QStringList ids = checkTranscripts(trial, context, true, &withCompaction);
        QVERIFY(!QTest::currentTestFailed());
        if (ids.isEmpty())
            continue; // killed before the session was created: nothing to resume

        // The session resumes: a next turn works and is saved after whatever the kill left.
        trial.server = std::make_unique<FakeProviderServer>(); // the killed turn's script is not replayed
        trial.server->enqueue(streamed(Workloads::chatCompletionsSse({QStringLiteral("resumed fine")})));
        auto next = start(trial, {QStringLiteral("--session"), ids.first(), QStringLiteral("go on")});
        QVERIFY(FakeProviderServer::spinUntil([&] { return next->state() == QProcess::NotRunning; }, 30000));
        QVERIFY2(next->exitCode() == 0,
                 qPrintable(context + QLatin1Char(' ') + QString::fromUtf8(next->readAllStandardError())));
        QCOMPARE(QString::fromUtf8(next->readAllStandardOutput()), QStringLiteral("resumed fine\n"));
        checkTranscripts(trial, context + QStringLiteral(", resumed"), false);
        QVERIFY(!QTest::currentTestFailed());
        const SessionStore store(QDir(trial.home->path()).filePath(QStringLiteral("sessions")));
        QCOMPARE(store.load(ids.first())->events.last().assistantMessage(), QStringLiteral("resumed fine"));
        ++resumed;
    }
    qInfo("%d kills over a %lld ms turn in %lld ms: %d sessions resumed, %d with a compaction on disk",
          trials, wholeMs, total.elapsed(), resumed, withCompaction);
}

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestRunCrash)
#include "tst_runcrash.moc"
