// /cleanup (reference 6.1): what goes and what stays when a person cleans up the data folder.
#include "agent/datacleanup.h"
#include "session/sessionevent.h"
#include "session/sessionstore.h"
#include "session/sessionwriter.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QTemporaryDir>
#include <QTest>

using namespace keen;

class TestDataCleanup : public QObject
{
    Q_OBJECT

private:
    static void write(const QString &path, const QByteArray &bytes, const QDateTime &modified)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        QVERIFY(file.flush()); // before the time: a later flush would set it to now
        QVERIFY(file.setFileTime(modified, QFileDevice::FileModificationTime));
    }

    // A session with one prompt whose transcript was last written at modified.
    static QString session(SessionStore &store, const QString &workspace, const QString &prompt,
                           const QDateTime &modified)
    {
        auto created = store.create(workspace);
        if (!created)
            return {};
        if (!store.append(*created, SessionEvent::userMessage(prompt)))
            return {};
        QFile transcript(created->transcriptPath);
        if (!transcript.open(QIODevice::ReadWrite) ||
            !transcript.setFileTime(modified, QFileDevice::FileModificationTime))
            return {};
        return created->id;
    }

private Q_SLOTS:
    void oldOutputAndUnusedSessionsGoTheRestStays()
    {
        test::TestEnvironment env;
        const QString data = env.path(QStringLiteral("data"));
        SessionStore store(QDir(data).filePath(QStringLiteral("sessions")));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QString workspace = env.path(QStringLiteral("work"));
        QDir().mkpath(workspace);

        write(QDir(data).filePath(QStringLiteral("bash/keen-bash-old.stdout")), QByteArray(5000, 'o'),
              now.addDays(-8));
        write(QDir(data).filePath(QStringLiteral("bash/keen-bash-new.stdout")), "new", now.addDays(-6));
        write(QDir(data).filePath(QStringLiteral("web-fetch-artifacts/page/old.html")), "<p>",
              now.addDays(-30));
        write(QDir(data).filePath(QStringLiteral("logs/keen.log")), "week old", now.addDays(-8));
        write(QDir(data).filePath(QStringLiteral("logs/older.log")), "month old", now.addDays(-30));
        // Never deleted through a link: a folder of the person's, linked into the artifacts.
        QTemporaryDir theirs;
        write(theirs.filePath(QStringLiteral("precious.txt")), "keep", now.addDays(-100));
        QVERIFY(QFile::link(theirs.path(), QDir(data).filePath(QStringLiteral("bash/linked"))));
        QVERIFY(QFile::link(theirs.filePath(QStringLiteral("precious.txt")),
                            QDir(data).filePath(QStringLiteral("bash/precious-link"))));

        const QString old = session(store, workspace, QStringLiteral("old work"), now.addDays(-15));
        const QString recent = session(store, workspace, QStringLiteral("recent work"), now.addDays(-13));
        const QString open = session(store, workspace, QStringLiteral("open but old"), now.addDays(-40));
        QVERIFY(!old.isEmpty() && !recent.isEmpty() && !open.isEmpty());

        const DataCleanup::Plan plan = DataCleanup::plan(data, store, now, open);
        QStringList planned;
        for (const QString &file : plan.files)
            planned << QDir(data).relativeFilePath(file);
        planned.sort();
        QCOMPARE(planned,
                 (QStringList{QStringLiteral("bash/keen-bash-old.stdout"), QStringLiteral("logs/older.log"),
                              QStringLiteral("web-fetch-artifacts/page/old.html")}));
        QCOMPARE(plan.fileBytes, 5000 + 9 + 3);
        QCOMPARE(plan.sessions.size(), 1);
        QCOMPARE(plan.sessions.constFirst().id, old);
        QVERIFY(plan.sessionBytes > 0);
        const QString described = DataCleanup::describe(plan);
        QVERIFY2(described.contains(QStringLiteral("3 files of command output, tool artifacts and logs")),
                 qPrintable(described));
        QVERIFY(described.contains(QStringLiteral("1 session not used for 14 days")));
        QVERIFY(described.contains(QStringLiteral("• old work (")));

        const DataCleanup::Outcome outcome = DataCleanup::apply(plan, store);
        QCOMPARE(outcome.filesRemoved, 3);
        QCOMPARE(outcome.sessionsRemoved, 1);
        QVERIFY(outcome.problems.isEmpty());
        QVERIFY(outcome.bytesFreed >= plan.fileBytes);
        QVERIFY(DataCleanup::report(outcome).startsWith(QStringLiteral("Removed 3 files and 1 session (")));
        QVERIFY(!store.find(old));
        QVERIFY(store.find(recent) && store.find(open));
        QVERIFY(QFile::exists(QDir(data).filePath(QStringLiteral("bash/keen-bash-new.stdout"))));
        QVERIFY(QFile::exists(QDir(data).filePath(QStringLiteral("logs/keen.log"))));
        QVERIFY(QFile::exists(theirs.filePath(QStringLiteral("precious.txt"))));

        QVERIFY(DataCleanup::plan(data, store, now, open).isEmpty());
    }

    void aSessionOpenInAnotherWindowIsKept()
    {
        test::TestEnvironment env;
        const QString data = env.path(QStringLiteral("data"));
        SessionStore store(QDir(data).filePath(QStringLiteral("sessions")));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const QString id =
            session(store, env.path(QStringLiteral("work")), QStringLiteral("still open"), now.addDays(-20));
        QVERIFY(!id.isEmpty());
        const DataCleanup::Plan plan = DataCleanup::plan(data, store, now, QString());
        QCOMPARE(plan.sessions.size(), 1);
        // What another window's SessionWriter holds while the session is open there.
        QLockFile held(SessionWriter::lockPath(store.find(id)->path));
        QVERIFY(held.tryLock(0));
        // A second QLockFile on the same file fails here as it does in another process: the holder lives.
        const DataCleanup::Outcome outcome = DataCleanup::apply(plan, store);
        QCOMPARE(outcome.sessionsRemoved, 0);
        QCOMPARE(outcome.problems,
                 QStringList{QStringLiteral("Kept \u201cstill open\u201d: it is open in another window.")});
        QVERIFY(store.find(id));
        QVERIFY(DataCleanup::report(outcome).contains(QStringLiteral("\n- Kept \u201cstill open\u201d")));
    }
};

QTEST_GUILESS_MAIN(TestDataCleanup)
#include "tst_datacleanup.moc"
