// Crash safety of the session store (S60, S61): a writer process appends and batch-appends in a loop and is
// killed with SIGKILL at random moments. After every kill the transcript loads, seqs strictly increase, no
// batch is half visible and every seq the writer acknowledged (printed after append/appendBatch returned) is
// present.
//
// The writer is this executable itself, started again with --crash-writer, so no extra build target is
// needed.
#include "session/sessionstore.h"
#include "testenvironment.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QHash>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>
#include <QThread>

#include <cstdio>
#include <cstring>

using namespace keen;

namespace {

const char kWriterFlag[] = "--crash-writer";
constexpr int kKills = 200;
constexpr int kKillsPerSession = 25; // a fresh session now and then keeps the batch rewrites small

void say(const QByteArray &line)
{
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fflush(stdout);
}

// Runs until killed (or 20 s, so a lost parent never leaves it running for long).
int runWriter(const QString &root, const QString &transcriptPath, quint32 seed)
{
    SessionStore store(root);
    auto loaded = store.load(transcriptPath);
    if (!loaded) {
        std::fprintf(stderr, "load failed: %s\n", qPrintable(loaded.error()));
        return 2;
    }
    Session session = loaded->session;
    QRandomGenerator random(seed);
    say("ready\n");
    QElapsedTimer timer;
    timer.start();
    int batchNumber = 0;
    while (timer.elapsed() < 20000) {
        // Now and then a large event, so one write spans many pages and a kill can tear it.
        const QString filler = random.bounded(20) == 0 ? QString(64 * 1024, QLatin1Char('x')) : QString();
        if (random.bounded(3) == 0) {
            const int size = 2 + int(random.bounded(3));
            const QString batchId = QStringLiteral("%1-%2").arg(seed).arg(++batchNumber);
            QList<SessionEvent> events;
            for (int i = 0; i < size; ++i) {
                SessionEvent event = SessionEvent::userMessage(QStringLiteral("batch part") + filler);
                event.extras.keep(QStringLiteral("batch"), batchId);
                event.extras.keep(QStringLiteral("batch_size"), size);
                event.extras.keep(QStringLiteral("batch_index"), i);
                events.append(event);
            }
            const auto seqs = store.appendBatch(session, events);
            if (!seqs) {
                std::fprintf(stderr, "appendBatch failed: %s\n", qPrintable(seqs.error()));
                return 3;
            }
            QByteArray acks;
            for (quint64 seq : *seqs)
                acks += "ack " + QByteArray::number(seq) + '\n';
            say(acks);
        } else {
            const auto seq =
                store.append(session, SessionEvent::userMessage(QStringLiteral("single") + filler));
            if (!seq) {
                std::fprintf(stderr, "append failed: %s\n", qPrintable(seq.error()));
                return 3;
            }
            say("ack " + QByteArray::number(*seq) + '\n');
        }
    }
    return 0;
}

QList<quint64> acknowledgedSeqs(const QByteArray &output)
{
    QList<quint64> seqs;
    const QList<QByteArray> lines = output.split('\n');
    // The last piece has no newline: it may be a line cut by the kill, so it proves nothing.
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        if (lines.at(i).startsWith("ack "))
            seqs.append(lines.at(i).mid(4).toULongLong());
    }
    return seqs;
}

} // namespace

class TestSessionCrash : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void killedWriterNeverLosesAcknowledgedOrHalfBatches_S60_S61();
};

void TestSessionCrash::killedWriterNeverLosesAcknowledgedOrHalfBatches_S60_S61()
{
    test::TestEnvironment env;
    SessionStore store;
    const QString workspace = env.path(QStringLiteral("workspace"));
    QDir().mkpath(workspace);

    const quint32 seed = qEnvironmentVariableIsSet("KEEN_CRASH_SEED")
                             ? quint32(qEnvironmentVariableIntValue("KEEN_CRASH_SEED"))
                             : QRandomGenerator::system()->generate();
    qInfo("seed %u (set KEEN_CRASH_SEED to repeat)", seed);
    QRandomGenerator random(seed);

    QElapsedTimer total;
    total.start();
    Session session;
    QSet<quint64> acknowledged;
    qint64 tornLines = 0;
    qint64 eventsSeen = 0;
    for (int kill = 0; kill < kKills; ++kill) {
        if (kill % kKillsPerSession == 0) {
            auto created = store.create(workspace);
            QVERIFY2(created.ok(), qPrintable(created.error()));
            session = *created;
            acknowledged = {1};
        }

        QProcess writer;
        writer.setProgram(QCoreApplication::applicationFilePath());
        writer.setArguments({QString::fromLatin1(kWriterFlag), store.root(), session.transcriptPath,
                             QString::number(random.generate())});
        writer.setProcessChannelMode(QProcess::SeparateChannels);
        writer.start();
        QVERIFY2(writer.waitForStarted(5000), qPrintable(writer.errorString()));
        // Mostly kill while it writes; sometimes while it is still starting or loading.
        if (random.bounded(10) != 0) {
            QElapsedTimer ready;
            ready.start();
            while (!writer.peek(6).startsWith("ready") && ready.elapsed() < 10000)
                writer.waitForReadyRead(100);
        }
        QThread::usleep(random.bounded(40000));
        writer.kill(); // SIGKILL
        QVERIFY(writer.waitForFinished(10000));
        const QByteArray output = writer.readAllStandardOutput();
        const QByteArray errors = writer.readAllStandardError();
        QVERIFY2(writer.exitStatus() == QProcess::CrashExit, errors.constData());

        const QList<quint64> acks = acknowledgedSeqs(output);
        for (quint64 seq : acks)
            acknowledged.insert(seq);

        const auto loaded = store.load(session.transcriptPath);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
        session = loaded->session;
        tornLines += loaded->skippedLines;
        eventsSeen += loaded->events.size();

        quint64 previous = 0;
        QSet<quint64> present;
        struct BatchSeen
        {
            int size = 0;
            QList<int> indexes;
            QList<quint64> seqs;
        };
        QHash<QString, BatchSeen> batches;
        for (const SessionEvent &event : loaded->events) {
            QVERIFY2(event.seq > previous,
                     qPrintable(
                         QStringLiteral("seq %1 after %2 (kill %3)").arg(event.seq).arg(previous).arg(kill)));
            previous = event.seq;
            present.insert(event.seq);
            const QString batchId = event.extras.value(QStringLiteral("batch")).toString();
            if (!batchId.isEmpty()) {
                BatchSeen &batch = batches[batchId];
                batch.size = event.extras.value(QStringLiteral("batch_size")).toInt();
                batch.indexes.append(event.extras.value(QStringLiteral("batch_index")).toInt());
                batch.seqs.append(event.seq);
            }
        }
        for (auto it = batches.cbegin(); it != batches.cend(); ++it) {
            const BatchSeen &batch = it.value();
            QVERIFY2(batch.indexes.size() == batch.size,
                     qPrintable(QStringLiteral("batch %1 half visible: %2 of %3 events (kill %4)")
                                    .arg(it.key())
                                    .arg(batch.indexes.size())
                                    .arg(batch.size)
                                    .arg(kill)));
            for (int i = 0; i < batch.size; ++i) {
                QCOMPARE(batch.indexes.at(i), i);
                QCOMPARE(batch.seqs.at(i), batch.seqs.first() + quint64(i));
            }
        }
        for (quint64 seq : std::as_const(acknowledged))
            QVERIFY2(present.contains(seq),
                     qPrintable(QStringLiteral("acknowledged seq %1 lost (kill %2)").arg(seq).arg(kill)));
        QCOMPARE(loaded->session.nextSeq, previous + 1);
    }
    // A crash between QSaveFile's link and rename can leave a named temporary; the next batch clears it.
    QVERIFY(
        store.appendBatch(session, {SessionEvent::userMessage(QStringLiteral("after the last kill"))}).ok());
    QCOMPARE(QDir(session.directory).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("transcript_events.jsonl")});
    qInfo("%d kills in %lld ms; %lld events checked, %lld torn lines skipped", kKills, total.elapsed(),
          eventsSeen, tornLines);
}

int main(int argc, char **argv)
{
    if (argc >= 5 && std::strcmp(argv[1], kWriterFlag) == 0) {
        QCoreApplication app(argc, argv);
        return runWriter(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]),
                         quint32(QByteArray(argv[4]).toULong()));
    }
    QCoreApplication app(argc, argv);
    TestSessionCrash test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_sessioncrash.moc"
