// The usage ledger behind /usage (reference 8.3): one line a request, summed per model over 7 and 30 days
// and in all.
#include "agent/usageledger.h"

#include <QDir>
#include <QFile>
#include <QLocale>
#include <QTemporaryDir>
#include <QTest>

using namespace keen;

class TestUsageLedger : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sumsPerModelOverTheWindows();
    void recordKeepsTheOrderAndFlushWaits();
    void aMissingOrDamagedLedgerSaysSo();
};

namespace {
UsageLedger::Entry entry(const QDateTime &time, const QString &model, qint64 in, qint64 out,
                         const QString &kind = QStringLiteral("turn"))
{
    TokenUsage usage;
    usage.inputTokens = in;
    usage.outputTokens = out;
    return UsageLedger::Entry{time, QStringLiteral("openai"), model, kind, usage};
}
} // namespace

void TestUsageLedger::sumsPerModelOverTheWindows()
{
    QTemporaryDir dir;
    const QString path = UsageLedger::defaultPath(dir.path());
    QCOMPARE(path, dir.filePath(QStringLiteral("usage/usage.jsonl")));
    const QDateTime now(QDate(2026, 12, 5), QTime(12, 0), Qt::UTC);
    QVERIFY(UsageLedger::append(path, entry(now.addDays(-40), QStringLiteral("gpt-a"), 1000, 100)));
    QVERIFY(UsageLedger::append(path, entry(now.addDays(-10), QStringLiteral("gpt-a"), 2000, 200)));
    QVERIFY(UsageLedger::append(
        path, entry(now.addDays(-1), QStringLiteral("gpt-a"), 4000, 400, QStringLiteral("compaction"))));
    QVERIFY(UsageLedger::append(path, entry(now.addSecs(-60), QStringLiteral("gpt-b"), 10, 1)));

    const UsageLedger::Summary summary = UsageLedger::summarize(path, now);
    QVERIFY(summary.error.isEmpty());
    QCOMPARE(summary.damagedLines, 0);
    QCOMPARE(summary.rows.size(), 2);
    const UsageLedger::Row &a = summary.rows.at(0); // the most used first
    QCOMPARE(a.model, QStringLiteral("openai/gpt-a"));
    QCOMPARE(a.week.requests, 1);
    QCOMPARE(a.week.input, 4000);
    QCOMPARE(a.month.requests, 2);
    QCOMPARE(a.month.input, 6000);
    QCOMPARE(a.month.output, 600);
    QCOMPARE(a.all.requests, 3);
    QCOMPARE(a.all.input, 7000);
    QCOMPARE(summary.rows.at(1).model, QStringLiteral("openai/gpt-b"));

    const QString table = UsageLedger::markdown(summary);
    QVERIFY2(table.contains(QStringLiteral("| `openai/gpt-a` | ") + QLocale().toString(4000) +
                            QStringLiteral(" ↑ / 400 ↓ (1 request) | ")),
             qPrintable(table));
    QVERIFY(table.contains(QLocale().toString(7000) + QStringLiteral(" ↑ / 700 ↓ (3 requests) |")));
}

void TestUsageLedger::recordKeepsTheOrderAndFlushWaits()
{
    QTemporaryDir dir;
    const QString path = UsageLedger::defaultPath(dir.path());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (int i = 1; i <= 200; ++i)
        UsageLedger::record(path, entry(now, QStringLiteral("m"), i, 0));
    UsageLedger::flush();
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().split('\n');
    QCOMPARE(lines.size(), 201); // and the empty one after the last newline
    for (int i = 1; i <= 200; ++i)
        QVERIFY2(lines.at(i - 1).contains(
                     QByteArray(QByteArray("\"input_tokens\":") + QByteArray::number(i) + ",")),
                 lines.at(i - 1).constData());
}

void TestUsageLedger::aMissingOrDamagedLedgerSaysSo()
{
    QTemporaryDir dir;
    const QString path = UsageLedger::defaultPath(dir.path());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    UsageLedger::Summary summary = UsageLedger::summarize(path, now);
    QVERIFY(summary.rows.isEmpty() && summary.error.isEmpty());
    QVERIFY(UsageLedger::markdown(summary).contains(QStringLiteral("No requests recorded yet.")));

    QVERIFY(UsageLedger::append(path, entry(now, QStringLiteral("m"), 5, 5)));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{not json\n[1,2]\n{\"time\":\"yesterday\",\"model\":\"m\"}\n");
    }
    QVERIFY(UsageLedger::append(path, entry(now, QStringLiteral("m"), 5, 5)));
    summary = UsageLedger::summarize(path, now);
    QCOMPARE(summary.damagedLines, 3);
    QCOMPARE(summary.rows.size(), 1);
    QCOMPARE(summary.rows.at(0).all.requests, 2);
    QVERIFY(UsageLedger::markdown(summary).contains(QStringLiteral("3 damaged lines")));

    // A folder where the ledger should be: named, not a crash or an empty table.
    QVERIFY(QFile::remove(path));
    QVERIFY(QDir().mkpath(path));
    summary = UsageLedger::summarize(path, now);
    QVERIFY2(summary.error.contains(path), qPrintable(summary.error));
}

QTEST_GUILESS_MAIN(TestUsageLedger)
#include "tst_usageledger.moc"
