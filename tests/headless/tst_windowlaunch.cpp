// keen-desktop is two programs (issue 11, the cost of starting `run`): the headless commands run in
// keen-desktop, which never loads the window's libraries, and everything else opens the window by replacing
// itself with keen-desktop-window, arguments kept. A missing window program is a clear error, not a crash.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Outcome
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Outcome runProgram(const QString &program, const QStringList &args, const QProcessEnvironment &environment)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, args);
    process.closeWriteChannel();
    Outcome outcome;
    if (!process.waitForFinished(60000))
        return outcome;
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = process.readAllStandardOutput();
    outcome.err = process.readAllStandardError();
    return outcome;
}

QProcessEnvironment environmentWith(const QString &home)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("KEEN_HOME"), home);
    environment.insert(QStringLiteral("HOME"), home);
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return environment;
}

} // namespace

class TestWindowLaunch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headlessProgramLoadsNoWindowLibrary();
    void windowArgumentsReachTheWindowProgram();
    void aMissingWindowProgramIsAClearError();
};

void TestWindowLaunch::headlessProgramLoadsNoWindowLibrary()
{
    // What the dynamic loader would load (ldd's way: it lists the libraries and exits before main).
    QTemporaryDir home;
    QProcessEnvironment environment = environmentWith(home.path());
    environment.insert(QStringLiteral("LD_TRACE_LOADED_OBJECTS"), QStringLiteral("1"));
    const Outcome traced =
        runProgram(QStringLiteral(KEEN_BINARY_PATH), {QStringLiteral("--version")}, environment);
    QCOMPARE(traced.exitCode, 0);
    QVERIFY2(traced.out.contains("libQt6Core.so"), traced.out.constData());
    QVERIFY2(traced.out.contains("libQt6Network.so"), traced.out.constData());
    for (const char *windowLibrary : {"libQt6Gui.so", "libQt6Widgets.so", "libQt6Svg.so", "libX11", "libGL"})
        QVERIFY2(!traced.out.contains(windowLibrary), traced.out.constData());

    // And it still answers the headless commands.
    const Outcome version = runProgram(QStringLiteral(KEEN_BINARY_PATH), {QStringLiteral("--version")},
                                       environmentWith(home.path()));
    QCOMPARE(version.exitCode, 0);
    QVERIFY2(version.out.contains(KEEN_VERSION), version.out.constData());
}

void TestWindowLaunch::windowArgumentsReachTheWindowProgram()
{
    // An unknown option is not a headless command: the window program parses it and refuses it with the
    // usage, which proves keen-desktop found the window program and handed it the person's arguments.
    QTemporaryDir home;
    const Outcome outcome = runProgram(QStringLiteral(KEEN_BINARY_PATH), {QStringLiteral("--no-such-option")},
                                       environmentWith(home.path()));
    QCOMPARE(outcome.exitCode, 1);
    QVERIFY2(outcome.err.contains("Error:"), outcome.err.constData());
    QVERIFY2(outcome.err.contains("--no-such-option"), outcome.err.constData());
    QVERIFY2(outcome.err.contains("keen-desktop run"), outcome.err.constData()); // the usage text
    QVERIFY2(!outcome.err.contains("cannot start the window"), outcome.err.constData());
}

void TestWindowLaunch::aMissingWindowProgramIsAClearError()
{
    // keen-desktop copied alone, as a broken install would leave it: opening the window fails with a message
    // that says what is missing and what still works; the headless commands still run.
    QTemporaryDir folder;
    const QString alone = folder.filePath(QStringLiteral("keen-desktop"));
    QVERIFY(QFile::copy(QStringLiteral(KEEN_BINARY_PATH), alone));
    const Outcome window = runProgram(alone, {}, environmentWith(folder.path()));
    QCOMPARE(window.exitCode, 127);
    QVERIFY2(window.err.contains("cannot start the window"), window.err.constData());
    QVERIFY2(window.err.contains("keen-desktop-window"), window.err.constData());
    QVERIFY2(window.err.contains("keen-desktop --help"), window.err.constData());
    const Outcome version = runProgram(alone, {QStringLiteral("--version")}, environmentWith(folder.path()));
    QCOMPARE(version.exitCode, 0);
}

QTEST_GUILESS_MAIN(TestWindowLaunch)
#include "tst_windowlaunch.moc"
