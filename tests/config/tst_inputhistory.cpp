// The prompts of earlier runs, for Up in the window's input (reference 6.8: input-history beside
// settings.json): what is kept, how a prompt of several lines survives, and how the file stays short.
#include "config/inputhistory.h"

#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace keen;

class TestInputHistory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void promptsOfSeveralLinesComeBackAsTheyWere();
    void theNewestThousandAreKeptAndTheFileStaysShort();
    void emptyAndPastedLogsAreNotKept();
    void aFifoOrAFolderInItsPlaceIsNoHistory();
};

// A prompt with line breaks, a Windows line end, backslashes and the two characters "\n" of C code comes back
// as it was sent; the file holds one line per prompt and only its owner reads it.
void TestInputHistory::promptsOfSeveralLinesComeBackAsTheyWere()
{
    test::TestEnvironment env;
    const QStringList prompts{
        QStringLiteral("fix the build"), QStringLiteral("first line\nsecond line\r\nthird"),
        QStringLiteral(R"(printf("a\n"); path C:\temp\new)"), QStringLiteral("ends with a backslash \\")};
    for (const QString &prompt : prompts)
        QVERIFY(InputHistory::append(prompt).ok());
    QCOMPARE(InputHistory::load(), prompts);
    QFile file(InputHistory::defaultPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), prompts.size());
    QCOMPARE(QFileInfo(file).permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
             QFileDevice::Permissions());
}

// 2,500 prompts: Up reaches the newest 1,000. Then 600 long ones (15,000 characters, 9 MB in all): the file
// never grows past MaxFileBytes, and the newest prompts stay, in order.
void TestInputHistory::theNewestThousandAreKeptAndTheFileStaysShort()
{
    test::TestEnvironment env;
    for (int i = 1; i <= 2500; ++i)
        QVERIFY(InputHistory::append(QStringLiteral("prompt %1").arg(i)).ok());
    QStringList loaded = InputHistory::load();
    QCOMPARE(loaded.size(), InputHistory::MaxEntries);
    QCOMPARE(loaded.constFirst(), QStringLiteral("prompt 1501"));
    QCOMPARE(loaded.constLast(), QStringLiteral("prompt 2500"));

    for (int i = 1; i <= 600; ++i) {
        QVERIFY(
            InputHistory::append(QStringLiteral("long %1 ").arg(i) + QString(15000, QLatin1Char('x'))).ok());
        QVERIFY(QFileInfo(InputHistory::defaultPath()).size() <= InputHistory::MaxFileBytes);
    }
    loaded = InputHistory::load();
    QVERIFY(loaded.size() > 100);
    for (qsizetype i = 0; i < loaded.size(); ++i) {
        const int number = int(600 - loaded.size() + 1 + i);
        QVERIFY2(loaded.at(i).startsWith(QStringLiteral("long %1 ").arg(number)),
                 qPrintable(loaded.at(i).left(20)));
    }
}

// Blank prompts are nothing to recall, and a pasted log (here 100,000 lines) would bring back only a wall of
// text: neither is kept.
void TestInputHistory::emptyAndPastedLogsAreNotKept()
{
    test::TestEnvironment env;
    QVERIFY(InputHistory::append(QStringLiteral("  \n ")).ok());
    QString log;
    for (int line = 0; line < 100000; ++line)
        log += QStringLiteral("2026-12-05 12:00:00 INFO line %1\n").arg(line);
    QVERIFY(InputHistory::append(log).ok());
    QVERIFY(InputHistory::append(QStringLiteral("what failed in that log?")).ok());
    QCOMPARE(InputHistory::load(), QStringList{QStringLiteral("what failed in that log?")});
}

// Whatever is at the path that is not a regular file is no history: nothing is read, nothing hangs.
void TestInputHistory::aFifoOrAFolderInItsPlaceIsNoHistory()
{
    test::TestEnvironment env;
    const QByteArray path = QFile::encodeName(InputHistory::defaultPath());
    QVERIFY(::mkfifo(path.constData(), 0600) == 0);
    QVERIFY(InputHistory::load().isEmpty());
    QVERIFY(::unlink(path.constData()) == 0);
    QVERIFY(QDir().mkpath(InputHistory::defaultPath()));
    QVERIFY(InputHistory::load().isEmpty());
    const Result<void> appended = InputHistory::append(QStringLiteral("hello"));
    QVERIFY(!appended.ok());
    QVERIFY2(appended.error().contains(InputHistory::defaultPath()), qPrintable(appended.error()));
}

QTEST_GUILESS_MAIN(TestInputHistory)
#include "tst_inputhistory.moc"
