// Issue 11 (no disk work on the GUI thread): the window's changes of settings.json are written on a thread of
// their own, in order, and read back at once by every reader in the process.
#include "config/settings.h"
#include "config/settingswriter.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QSemaphore>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>

using namespace keen;

class TestSettingsWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theCallerNeverWaitsForTheDisk();
    void manyChangesAreReadBackAtOnceAndWrittenInOrder();
    void aBrokenFileIsReportedAndKept();
};

// A write held up (as a slow disk holds up a sync) does not hold up the caller: modify() returns, and a
// read on the caller's thread already sees the value, while the file still has the old one.
void TestSettingsWriter::theCallerNeverWaitsForTheDisk()
{
    test::TestEnvironment env;
    QSemaphore diskFree;
    std::atomic<bool> ranElsewhere = false;
    QThread *caller = QThread::currentThread();
    SettingsWriter::modify(
        [&](Settings &settings) {
            if (QThread::currentThread() != caller) {
                ranElsewhere = true;
                diskFree.tryAcquire(1, 10000); // the "slow disk": until the test has looked
            }
            settings.zoomPercent = 150;
        },
        this, [](const QString &error) { qWarning("%s", qPrintable(error)); });

    QCOMPARE(Settings::load()->zoomPercent, 150);
    QVERIFY(!QFile::exists(Settings::defaultPath())); // nothing on disk yet: the write is still held up
    diskFree.release();
    SettingsWriter::waitForWrites();
    QVERIFY(ranElsewhere);
    QFile file(Settings::defaultPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("\"zoom_percent\": 150"));
}

// A person clicking through folders and zoom steps: 150 changes in a row, each read back at once on the
// caller's thread, while another thread (as the agent's worker looks up a provider) reads the file too and
// never sees a change go back; the file ends as the last change left it (the most recent folder first).
void TestSettingsWriter::manyChangesAreReadBackAtOnceAndWrittenInOrder()
{
    test::TestEnvironment env;
    const QString path = Settings::defaultPath();
    std::atomic<bool> stop = false;
    std::atomic<int> wentBack = 0;
    std::atomic<int> otherReads = 0;
    std::unique_ptr<QThread> otherReader(QThread::create([&] {
        int seen = 0;
        while (!stop) {
            const LoadedSettings read = Settings::loadOrDefaults(path);
            if (read.settings.zoomPercent < seen)
                ++wentBack;
            seen = std::max(seen, read.settings.zoomPercent);
            ++otherReads;
        }
    }));
    otherReader->start();
    constexpr int Changes = 150;
    for (int i = 0; i < Changes; ++i) {
        const QString folder = QStringLiteral("/home/dev/project-%1").arg(i);
        SettingsWriter::modify(
            [folder, i](Settings &settings) {
                settings.addRecentFolder(folder);
                settings.zoomPercent = 50 + i;
            },
            this, [](const QString &error) { qWarning("%s", qPrintable(error)); });
        const Result<Settings> read = Settings::load();
        QVERIFY(read.ok());
        QCOMPARE(read->recentFolders.value(0), folder);
        QCOMPARE(read->zoomPercent, 50 + i);
    }
    SettingsWriter::waitForWrites();
    stop = true;
    otherReader->wait();
    QCOMPARE(wentBack.load(), 0);
    QVERIFY(otherReads > 0);
    const Result<Settings> written = Settings::load();
    QVERIFY(written.ok());
    QCOMPARE(written->zoomPercent, 50 + Changes - 1);
    QStringList expected;
    for (int i = Changes - 1; expected.size() < Settings::MaxRecentFolders; --i)
        expected << QStringLiteral("/home/dev/project-%1").arg(i);
    QCOMPARE(written->recentFolders, expected);
}

// A hand-edited file that is no longer JSON: the change is refused with the error naming the file (on the
// caller's thread), the file keeps its bytes, and a reader is told about the file, not handed the change.
void TestSettingsWriter::aBrokenFileIsReportedAndKept()
{
    test::TestEnvironment env;
    const QByteArray broken = R"({"active_provider": "ollama",)";
    QDir().mkpath(Settings::configDirectory());
    {
        QFile file(Settings::defaultPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(broken);
    }
    QString reported;
    QThread *reportedOn = nullptr;
    SettingsWriter::modify([](Settings &settings) { settings.showThinking = false; }, this,
                           [&](const QString &error) {
                               reported = error;
                               reportedOn = QThread::currentThread();
                           });
    QVERIFY(!Settings::load().ok());
    QTRY_VERIFY(!reported.isEmpty());
    QVERIFY2(reported.contains(Settings::defaultPath()), qPrintable(reported));
    QCOMPARE(reportedOn, QThread::currentThread());
    QFile file(Settings::defaultPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), broken);

    // The window that asked is gone before the write fails: nobody is called.
    auto *gone = new QObject;
    bool called = false;
    SettingsWriter::modify([](Settings &settings) { settings.showThinking = true; }, gone,
                           [&called](const QString &) { called = true; });
    delete gone;
    SettingsWriter::waitForWrites();
    QCoreApplication::processEvents();
    QVERIFY(!called);
}

QTEST_GUILESS_MAIN(TestSettingsWriter)
#include "tst_settingswriter.moc"
