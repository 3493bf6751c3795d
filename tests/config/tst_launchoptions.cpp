// The window's command line (issue 15): `keen-desktop DIR` works in DIR; anything else left over is an error.
#include "config/launchoptions.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace keen;

class TestLaunchOptions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void folderArgumentBecomesTheWorkspace();
    void leftoversAreErrors();
};

void TestLaunchOptions::folderArgumentBecomesTheWorkspace()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("my project")));
    const QString project = QDir(dir.path()).filePath(QStringLiteral("my project"));
    auto options = LaunchOptions::parse({QStringLiteral("keen-desktop"), QStringLiteral("--session"),
                                         QStringLiteral("abc"), project + QStringLiteral("/")});
    QVERIFY2(options.ok(), qPrintable(options.error()));
    QVERIFY(options->takeFolderArgument().ok());
    QCOMPARE(options->workspace, QFileInfo(project).canonicalFilePath());
    QVERIFY(options->positional.isEmpty());
    QCOMPARE(options->sessionId, QStringLiteral("abc"));

    // Nothing given: nothing changes (the window decides, from the current folder).
    auto plain = LaunchOptions::parse({QStringLiteral("keen-desktop")});
    QVERIFY(plain->takeFolderArgument().ok());
    QVERIFY(plain->workspace.isEmpty());
}

void TestLaunchOptions::leftoversAreErrors()
{
    QTemporaryDir dir;
    const QString file = QDir(dir.path()).filePath(QStringLiteral("notes.txt"));
    QFile(file).open(QIODevice::WriteOnly);
    const QList<QStringList> bad{
        {QStringLiteral("keen-desktop"), file},
        {QStringLiteral("keen-desktop"), QDir(dir.path()).filePath(QStringLiteral("missing"))},
        {QStringLiteral("keen-desktop"), dir.path(), dir.path()},
        {QStringLiteral("keen-desktop"), QStringLiteral("--workspace"), dir.path(), dir.path()},
    };
    for (const QStringList &arguments : bad) {
        auto options = LaunchOptions::parse(arguments);
        QVERIFY2(options.ok(), qPrintable(options.error()));
        const Result<void> taken = options->takeFolderArgument();
        QVERIFY2(!taken.ok(), qPrintable(arguments.join(QLatin1Char(' '))));
        QVERIFY2(taken.error().endsWith(QStringLiteral("is not a folder")), qPrintable(taken.error()));
        QVERIFY(taken.error().contains(arguments.constLast()));
    }
}

QTEST_GUILESS_MAIN(TestLaunchOptions)
#include "tst_launchoptions.moc"
