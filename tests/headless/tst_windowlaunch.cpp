// keen-desktop is two programs (issue 11, the cost of starting `run`): the headless commands run in
// keen-desktop, which never loads the window's libraries, and everything else opens the window by replacing
// itself with keen-desktop-window, arguments kept. A missing window program is a clear error, not a crash.
// The same for the keychain module, which keen-desktop opens on the first keychain request.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

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

// A key lookup that must ask the keychain: no key in the environment or settings, and a session bus address
// that leads nowhere (so the lookup is not skipped as "no bus", and no real keyring answers).
Outcome keyLookup(const QString &program, const QString &home)
{
    QProcessEnvironment environment = environmentWith(home);
    environment.remove(QStringLiteral("OPENAI_API_KEY"));
    environment.remove(QStringLiteral("KEEN_DISABLE_KEYCHAIN"));
    environment.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QStringLiteral("unix:path=/nonexistent"));
    return runProgram(program,
                      {QStringLiteral("run"), QStringLiteral("--provider"), QStringLiteral("openai"),
                       QStringLiteral("--model"), QStringLiteral("m"), QStringLiteral("--workspace"), home,
                       QStringLiteral("hi")},
                      environment);
}

} // namespace

class TestWindowLaunch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headlessProgramLoadsNoWindowLibrary();
    void windowArgumentsReachTheWindowProgram();
    void aBadFolderFromALauncherIsSaidInADialog();
    void aMissingWindowProgramIsAClearError();
    void theKeychainModuleIsFoundOrNamed();
    void theWindowQuitsCleanlyOnATerminationSignal();
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
    // Nor what it opens on first use: libgit2 and QtKeychain (with the libraries they bring, about 10 ms of
    // every start, docs/PERFORMANCE.md).
    for (const char *onFirstUse : {"libgit2", "libqt6keychain", "libQt6DBus", "libssh2", "libmbedtls"})
        QVERIFY2(!traced.out.contains(onFirstUse), traced.out.constData());

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

// Started from a menu or a file manager ("Open With" on something that is not a folder), nobody reads stderr:
// the window program says why in a dialog and waits for the person, instead of not appearing at all.
void TestWindowLaunch::aBadFolderFromALauncherIsSaidInADialog()
{
    QTemporaryDir home;
    QProcessEnvironment environment = environmentWith(home.path());
    environment.insert(QStringLiteral("DESKTOP_STARTUP_ID"), QStringLiteral("keen-test_TIME0"));
    QProcess process;
    process.setProcessEnvironment(environment);
    const QString missing = home.filePath(QStringLiteral("no-such-project"));
    process.start(QStringLiteral(KEEN_BINARY_PATH), {missing});
    QVERIFY(process.waitForStarted());
    // The error is on stderr at once; the program then waits in its dialog (offscreen here) for OK.
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += process.readAllStandardError()).contains("is not a folder") ||
                                 process.state() == QProcess::NotRunning,
                             20000);
    QVERIFY2(err.contains(QByteArray(missing.toUtf8() + " is not a folder")), err.constData());
    QVERIFY2(!process.waitForFinished(1500), "exited without waiting for the person");
    process.kill();
    process.waitForFinished();
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

void TestWindowLaunch::theKeychainModuleIsFoundOrNamed()
{
    // In the build tree the module is found: the lookup fails with QtKeychain's own reason (no bus there).
    QTemporaryDir home;
    const Outcome found = keyLookup(QStringLiteral(KEEN_BINARY_PATH), home.path());
    QCOMPARE(found.exitCode, 1);
    QVERIFY2(found.err.contains("The system keychain could not be used"), found.err.constData());
    QVERIFY2(!found.err.contains("keychain module"), found.err.constData());

    // keen-desktop copied alone: the error names the missing module and where it was looked for.
    QTemporaryDir folder;
    const QString alone = folder.filePath(QStringLiteral("keen-desktop"));
    QVERIFY(QFile::copy(QStringLiteral(KEEN_BINARY_PATH), alone));
    const Outcome missing = keyLookup(alone, folder.path());
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("the keychain module libkeen-keychain.so is not installed"),
             missing.err.constData());
    QVERIFY2(missing.err.contains(QFile::encodeName(folder.path())), missing.err.constData());
    QVERIFY2(missing.err.contains("OPENAI_API_KEY"), missing.err.constData()); // what still works
}

// SIGTERM (a logout, `kill`) used to kill the window with the running turn unsaved. keen-desktop-window
// catches it (SignalWatcher): the turn is stopped and saved (tst_workspaces
// aTerminationSignalStopsTheTurnSavesItAndQuits), then the window quits as File > Quit does: a normal exit,
// not the signal's, and not the watchdog's.
void TestWindowLaunch::theWindowQuitsCleanlyOnATerminationSignal()
{
    QTemporaryDir home;
    QProcess window;
    window.setProcessEnvironment(environmentWith(home.path()));
    window.start(QStringLiteral(KEEN_BINARY_PATH), {QStringLiteral("--workspace"), home.path()});
    QVERIFY(window.waitForStarted(10000));
    // Sent once the window program catches SIGTERM (bit 15 of SigCgt), not to the program it replaces.
    auto catchesTerm = [&] {
        QFile status(QStringLiteral("/proc/%1/status").arg(window.processId()));
        if (!status.open(QIODevice::ReadOnly))
            return false;
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("SigCgt:"))
                return (line.mid(7).trimmed().toULongLong(nullptr, 16) & (1ULL << (SIGTERM - 1))) != 0;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(catchesTerm(), 30000);
    ::kill(pid_t(window.processId()), SIGTERM);
    QVERIFY(window.waitForFinished(10000));
    const QByteArray err = window.readAllStandardError();
    QCOMPARE(window.exitStatus(), QProcess::NormalExit);
    QVERIFY2(window.exitCode() == 0, err.constData());
    QVERIFY2(!err.contains("Interrupted."), err.constData()); // the watchdog did not have to end it
}

QTEST_GUILESS_MAIN(TestWindowLaunch)
#include "tst_windowlaunch.moc"
