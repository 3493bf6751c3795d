// The log file (reference 8.3, 8.4: KEEN_LOG_LEVEL): made on the first line at or above its level, private,
// the keen.* lines below warnings in the file only, warnings still on stderr; a bad level is named.
#include "base/logcategories.h"
#include "base/logfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace keen {

namespace {

QStringList g_stderr; // what reached the handler installed before the log file's

void capture(QtMsgType, const QMessageLogContext &, const QString &message)
{
    g_stderr.append(message);
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

int mode(const QString &path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 0777);
}

} // namespace

class TestLogFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        g_stderr.clear();
        qInstallMessageHandler(capture);
    }
    void cleanup()
    {
        LogFile::uninstall();
        qInstallMessageHandler(nullptr);
    }

    void levelsAreParsed()
    {
        QCOMPARE(*LogFile::parseLevel(QStringLiteral("debug")), LogFile::Level::Debug);
        QCOMPARE(*LogFile::parseLevel(QStringLiteral(" INFO ")), LogFile::Level::Info);
        QCOMPARE(*LogFile::parseLevel(QStringLiteral("warn")), LogFile::Level::Warning);
        QCOMPARE(*LogFile::parseLevel(QStringLiteral("error")), LogFile::Level::Error);
        const Result<LogFile::Level> bad = LogFile::parseLevel(QStringLiteral("loud"));
        QVERIFY(!bad);
        QCOMPARE(bad.error(),
                 QStringLiteral("KEEN_LOG_LEVEL must be debug, info, warn or error, not \"loud\""));
    }

    void aQuietRunLeavesNoFile()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("logs"));
        LogFile::install(folder, LogFile::Level::Warning);
        qCInfo(LogCategories::agent()) << "an info line";
        qCDebug(LogCategories::mcp()) << "a debug line";
        QVERIFY(LogFile::currentPath().isEmpty());
        QVERIFY(!QFileInfo::exists(folder));
        QVERIFY(g_stderr.isEmpty());
    }

    void warningsGoToTheFileAndStillToStderr()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("logs"));
        LogFile::install(folder, LogFile::Level::Warning);
        qCWarning(LogCategories::sessionStore()).noquote() << "cannot read transcript X";
        const QString path = LogFile::currentPath();
        QVERIFY(path.startsWith(folder + QStringLiteral("/keen-desktop-")));
        QVERIFY(path.endsWith(QStringLiteral("-%1.log").arg(QCoreApplication::applicationPid())));
        const QByteArray text = readAll(path);
        QVERIFY2(text.contains(" warning keen.session.store: cannot read transcript X\n"), text.constData());
        QCOMPARE(g_stderr, QStringList{QStringLiteral("cannot read transcript X")});
        QCOMPARE(mode(path), 0600);
        QCOMPARE(mode(folder), 0700);
    }

    void debugLevelWritesTheDetailToTheFileOnly()
    {
        QTemporaryDir dir;
        LogFile::install(dir.path(), LogFile::Level::Debug);
        qCDebug(LogCategories::mcp()).noquote() << "server says: hello";
        qCInfo(LogCategories::agent()).noquote() << "turn started";
        const QByteArray text = readAll(LogFile::currentPath());
        QVERIFY2(text.contains(" debug keen.mcp: server says: hello\n"), text.constData());
        QVERIFY2(text.contains(" info keen.agent: turn started\n"), text.constData());
        QVERIFY2(g_stderr.isEmpty(),
                 qPrintable(g_stderr.join(QLatin1Char('|')))); // the detail is for the file only

        // error: only errors are written.
        LogFile::install(dir.path(), LogFile::Level::Error);
        qCWarning(LogCategories::agent()).noquote() << "a warning, not written";
        qCCritical(LogCategories::agent()).noquote() << "a critical line";
        const QByteArray after = readAll(LogFile::currentPath());
        QVERIFY(!after.contains("a warning, not written"));
        QVERIFY(after.contains(" critical keen.agent: a critical line\n"));
    }
};

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestLogFile)
#include "tst_logfile.moc"
