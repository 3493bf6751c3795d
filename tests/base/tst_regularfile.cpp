// RegularFile reads straight into its result (issue 11: listing 1,000 sessions reads every transcript): every
// size comes back byte for byte, a tail is the file's end with its offset, a file over the cap is refused,
// and a file whose reported size is wrong (/proc reports 0) is still read to its end. The head of a file of
// any size is read without the rest (memory files cut at their cap), and an append goes only to a regular
// file: a FIFO in the place of usage.jsonl kept `run` from exiting (issue 14).
#include "base/regularfile.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace keen;

class TestRegularFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsEverySizeExactly_data();
    void readsEverySizeExactly();
    void tailIsTheEndWithItsOffset();
    void overTheCapIsRefused();
    void aFileLargerThanItsReportedSizeIsReadToTheEnd();
    void headIsTheStartOfAFileOfAnySize();
    void headOfAFifoOrDeviceIsRefusedWithoutWaiting();
    void appendAddsToARegularFileMadePrivate();
    void appendToAFifoOrFolderIsRefusedWithoutWaiting();

private:
    QString write(const QByteArray &bytes);
    QTemporaryDir m_dir;
    int m_files = 0;
};

QString TestRegularFile::write(const QByteArray &bytes)
{
    const QString path = m_dir.filePath(QStringLiteral("f%1").arg(m_files++));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

void TestRegularFile::readsEverySizeExactly_data()
{
    QTest::addColumn<int>("size");
    for (const int size : {0, 1, 4095, 65536, 65537, 1000000})
        QTest::newRow(qPrintable(QString::number(size))) << size;
}

void TestRegularFile::readsEverySizeExactly()
{
    QFETCH(int, size);
    QByteArray bytes(size, Qt::Uninitialized);
    QRandomGenerator random(quint32(size) + 7);
    for (char &c : bytes)
        c = char(random.bounded(256));
    const QString path = write(bytes);
    QVERIFY(!path.isEmpty());
    const RegularFile::Read read = RegularFile::read(path, 2000000);
    QVERIFY2(read.ok(), qPrintable(read.error));
    QCOMPARE(read.bytes.size(), bytes.size());
    QVERIFY(read.bytes == bytes);
    QCOMPARE(read.offset, 0);
}

void TestRegularFile::tailIsTheEndWithItsOffset()
{
    QByteArray bytes;
    for (int i = 0; i < 20000; ++i)
        bytes += QByteArray::number(i) + '\n';
    const QString path = write(bytes);
    const RegularFile::Read tail = RegularFile::readTail(path, 10000000, 1000);
    QVERIFY2(tail.ok(), qPrintable(tail.error));
    QCOMPARE(tail.offset, bytes.size() - 1000);
    QVERIFY(tail.bytes == bytes.right(1000));
    // Shorter than the tail asked for: the whole file.
    const RegularFile::Read whole = RegularFile::readTail(path, 10000000, bytes.size() * 2);
    QCOMPARE(whole.offset, 0);
    QVERIFY(whole.bytes == bytes);
}

void TestRegularFile::overTheCapIsRefused()
{
    const QString path = write(QByteArray(5000, 'x'));
    const RegularFile::Read read = RegularFile::read(path, 4999);
    QCOMPARE(read.problem, RegularFile::Problem::TooLarge);
    QVERIFY(read.bytes.isEmpty());
    QVERIFY2(read.error.contains(path), qPrintable(read.error));
    QVERIFY(RegularFile::read(path, 5000).ok());
}

void TestRegularFile::aFileLargerThanItsReportedSizeIsReadToTheEnd()
{
    // /proc files are regular files that report a size of 0: the size is only a hint.
    QFile reference(QStringLiteral("/proc/self/maps"));
    QVERIFY(reference.open(QIODevice::ReadOnly));
    const RegularFile::Read read = RegularFile::read(QStringLiteral("/proc/self/maps"), 16 * 1024 * 1024);
    QVERIFY2(read.ok(), qPrintable(read.error));
    QVERIFY(read.bytes.size() > 1000); // many mappings, far past the first buffer
    QVERIFY(read.bytes.endsWith('\n'));
    QVERIFY(read.bytes.contains("[stack]"));
    // And past a cap it does not know in advance: refused, not cut.
    QCOMPARE(RegularFile::read(QStringLiteral("/proc/self/maps"), 100).problem,
             RegularFile::Problem::TooLarge);
}

void TestRegularFile::headIsTheStartOfAFileOfAnySize()
{
    QByteArray bytes(300 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < bytes.size(); ++i)
        bytes[i] = char('a' + i % 26);
    const QString path = write(bytes);
    const RegularFile::Read head = RegularFile::readHead(path, 1001);
    QVERIFY2(head.ok(), qPrintable(head.error));
    QCOMPARE(head.bytes, bytes.left(1001));
    QCOMPARE(RegularFile::readHead(path, bytes.size() * 2).bytes, bytes);
    QCOMPARE(RegularFile::readHead(write(QByteArray()), 10).bytes, QByteArray());
}

void TestRegularFile::headOfAFifoOrDeviceIsRefusedWithoutWaiting()
{
    const QString fifo = m_dir.filePath(QStringLiteral("fifo-head"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QElapsedTimer timer;
    timer.start();
    const RegularFile::Read fromFifo = RegularFile::readHead(fifo, 16 * 1024);
    QCOMPARE(fromFifo.problem, RegularFile::Problem::NotRegular);
    QVERIFY2(fromFifo.error.contains(fifo) && fromFifo.error.contains(QLatin1String("FIFO")),
             qPrintable(fromFifo.error));
    const RegularFile::Read fromZero = RegularFile::readHead(QStringLiteral("/dev/zero"), 16 * 1024);
    QCOMPARE(fromZero.problem, RegularFile::Problem::NotRegular);
    QVERIFY2(fromZero.error.contains(QLatin1String("device")), qPrintable(fromZero.error));
    QVERIFY(timer.elapsed() < 5000);
}

void TestRegularFile::appendAddsToARegularFileMadePrivate()
{
    const QString path = m_dir.filePath(QStringLiteral("ledger.jsonl"));
    QVERIFY(RegularFile::append(path, "one\n").ok());
    QVERIFY(RegularFile::append(path, "two\n").ok());
    QCOMPARE(RegularFile::read(path, 1024).bytes, QByteArray("one\ntwo\n"));
    QCOMPARE(QFile::permissions(path) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
             QFileDevice::Permissions());
}

void TestRegularFile::appendToAFifoOrFolderIsRefusedWithoutWaiting()
{
    const QString fifo = m_dir.filePath(QStringLiteral("fifo-append"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QElapsedTimer timer;
    timer.start();
    Result<void> appended = RegularFile::append(fifo, "line\n");
    QVERIFY(!appended.ok());
    QVERIFY2(appended.error().contains(fifo) && appended.error().contains(QLatin1String("FIFO")),
             qPrintable(appended.error()));
    // With a reader waiting too: refused on the open descriptor, nothing written into the pipe.
    const int readerFd = ::open(QFile::encodeName(fifo).constData(), O_RDONLY | O_NONBLOCK);
    QVERIFY(readerFd >= 0);
    appended = RegularFile::append(fifo, "line\n");
    QVERIFY(!appended.ok());
    QVERIFY2(appended.error().contains(QLatin1String("FIFO")), qPrintable(appended.error()));
    char byte = 0;
    QCOMPARE(::read(readerFd, &byte, 1), ssize_t(0)); // nothing there (EOF: no writer left)
    ::close(readerFd);
    QVERIFY(timer.elapsed() < 5000);

    const QString folder = m_dir.filePath(QStringLiteral("a-folder"));
    QVERIFY(QDir().mkpath(folder));
    appended = RegularFile::append(folder, "line\n");
    QVERIFY(!appended.ok());
    QVERIFY2(appended.error().contains(folder) && appended.error().contains(QLatin1String("folder")),
             qPrintable(appended.error()));
}

QTEST_GUILESS_MAIN(TestRegularFile)
#include "tst_regularfile.moc"
