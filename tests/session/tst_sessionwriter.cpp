// SessionWriter (issue 11): transcript writes run on the writer's thread, in the order they were asked for,
// with the store's appends and atomic batches; errors come back through the future.
#include "session/sessionwriter.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace keen;

class TestSessionWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesKeepTheirOrderOffTheCallersThread();
    void aFailedWriteIsReported();
    void aPlannedSessionIsCreatedByTheWriter();
    void writesAfterAFailedCreationFailWithItsReason();
};

void TestSessionWriter::writesKeepTheirOrderOffTheCallersThread()
{
    test::TestEnvironment env;
    auto store = std::make_shared<SessionStore>(env.path(QStringLiteral("sessions")));
    auto session = store->create(env.path(QStringLiteral("work")));
    QVERIFY2(session.ok(), qPrintable(session.error()));
    QList<QFuture<Result<QList<quint64>>>> futures;
    QStringList expected;
    {
        SessionWriter writer(store, *session);
        for (int i = 0; i < 60; ++i) {
            if (i % 10 == 9) {
                // An atomic batch between single appends.
                const QList<SessionEvent> batch{
                    SessionEvent::userMessage(QStringLiteral("batch %1 a").arg(i)),
                    SessionEvent::userMessage(QStringLiteral("batch %1 b").arg(i))};
                expected << QStringLiteral("batch %1 a").arg(i) << QStringLiteral("batch %1 b").arg(i);
                futures.append(writer.write(batch));
            } else {
                expected << QStringLiteral("event %1").arg(i);
                futures.append(writer.write({SessionEvent::userMessage(QStringLiteral("event %1").arg(i))}));
            }
        }
        // Waiting for the last write waits for every earlier one.
        const Result<QList<quint64>> last =
            writer.write({SessionEvent::userMessage(QStringLiteral("last"))}).result();
        expected << QStringLiteral("last");
        QVERIFY2(last.ok(), qPrintable(last.error()));
        QCOMPARE(last->first(), quint64(expected.size() + 1)); // session_started is seq 1
        for (const auto &future : std::as_const(futures))
            QVERIFY(future.isFinished());
        QVERIFY(writer.thread() != nullptr);
        QVERIFY(writer.thread() != QThread::currentThread());
    }
    quint64 seq = 2;
    for (const auto &future : std::as_const(futures)) {
        const Result<QList<quint64>> written = future.result();
        QVERIFY(written.ok());
        for (const quint64 value : *written)
            QCOMPARE(value, seq++);
    }
    const auto loaded = store->load(session->transcriptPath);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QStringList contents;
    for (const SessionEvent &event : loaded->events.mid(1))
        contents << event.content();
    QCOMPARE(contents, expected);
}

void TestSessionWriter::aFailedWriteIsReported()
{
    test::TestEnvironment env;
    auto store = std::make_shared<SessionStore>(env.path(QStringLiteral("sessions")));
    auto session = store->create(env.path(QStringLiteral("work")));
    QVERIFY(session.ok());
    QVERIFY(QDir(session->directory).removeRecursively());
    SessionWriter writer(store, *session);
    const Result<QList<quint64>> written =
        writer.write({SessionEvent::userMessage(QStringLiteral("lost?"))}).result();
    QVERIFY(!written.ok());
    QVERIFY(!written.error().isEmpty());
}

void TestSessionWriter::aPlannedSessionIsCreatedByTheWriter()
{
    test::TestEnvironment env;
    auto store = std::make_shared<SessionStore>(env.path(QStringLiteral("sessions")));
    const auto session = store->plan(env.path(QStringLiteral("work")));
    QVERIFY(session.ok());
    QVERIFY(!QFile::exists(session->transcriptPath)); // planning touches no disk
    SessionWriter writer(store, *session, SessionWriter::Start::Create);
    const Result<QList<quint64>> written =
        writer.write({SessionEvent::userMessage(QStringLiteral("first words"))}).result();
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QCOMPARE(*written, QList<quint64>{2});
    QCOMPARE(*writer.created().result(), QList<quint64>{1});
    const auto loaded = store->load(session->id);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->events.size(), 2);
    QCOMPARE(loaded->events.at(0).kindName(), QStringLiteral("session_started"));
    QCOMPARE(loaded->events.at(1).content(), QStringLiteral("first words"));
}

void TestSessionWriter::writesAfterAFailedCreationFailWithItsReason()
{
    test::TestEnvironment env;
    // The sessions root is a file: no folder can be made under it.
    QFile blocker(env.path(QStringLiteral("sessions")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    auto store = std::make_shared<SessionStore>(env.path(QStringLiteral("sessions")));
    const auto session = store->plan(env.path(QStringLiteral("work")));
    QVERIFY(session.ok());
    SessionWriter writer(store, *session, SessionWriter::Start::Create);
    const Result<QList<quint64>> written =
        writer.write({SessionEvent::userMessage(QStringLiteral("lost?"))}).result();
    const Result<QList<quint64>> created = writer.created().result();
    QVERIFY(!created.ok());
    QVERIFY(!written.ok());
    QCOMPARE(written.error(), created.error());
}

QTEST_GUILESS_MAIN(TestSessionWriter)
#include "tst_sessionwriter.moc"
