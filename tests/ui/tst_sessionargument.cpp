// `keen-desktop --session ID` opens that session in the window (issue 15). QGuiApplication takes "--session
// ID" out of argv for X11 session management, so the window used to start with an empty conversation while
// every in-process test (which sets LaunchOptions directly) passed. This test goes through argv and
// QApplication as app/main.cpp does, so it has its own main().
#include "agent/agentsession.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "config/launchoptions.h"
#include "config/qtarguments.h"
#include "mainwindow.h"
#include "sessionfixtures.h"
#include "testenvironment.h"

#include <QApplication>
#include <QDir>
#include <QTest>

using namespace keen;

namespace {

struct Stored
{
    QString workspace;
    QString sessionId;
};

// Set up before the application exists, because the session id must be on its command line.
Stored *g_stored = nullptr;

} // namespace

class TestSessionArgument : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sessionFlagSurvivesQApplication();
    void qtKeepsItsOwnFlags();
    void windowOpensTheSessionNamedOnTheCommandLine();
};

void TestSessionArgument::sessionFlagSurvivesQApplication()
{
    const Result<LaunchOptions> options = LaunchOptions::parse(QApplication::arguments());
    QVERIFY2(options.ok(), qPrintable(options.ok() ? QString() : options.error()));
    QCOMPARE(options->sessionId, g_stored->sessionId);
    QVERIFY(options->positional.isEmpty());

    // The other spellings people type reach LaunchOptions the same way.
    const char *const equals[] = {"keen-desktop", "--session=abc"};
    const QByteArrayList rewritten = QtArguments(2, equals).arguments();
    QCOMPARE(rewritten, (QByteArrayList{"keen-desktop", "--resume=abc"}));
    QCOMPARE(LaunchOptions::parse(
                 QStringList{QStringLiteral("keen-desktop"), QString::fromLatin1(rewritten.at(1))})
                 ->sessionId,
             QStringLiteral("abc"));
    const char *const single[] = {"keen-desktop", "-session", "abc", "--model", "m"};
    QCOMPARE(QtArguments(5, single).arguments(),
             (QByteArrayList{"keen-desktop", "--resume", "abc", "--model", "m"}));
}

void TestSessionArgument::qtKeepsItsOwnFlags()
{
    // main() passed "-platform offscreen": Qt still sees it, and it is not left over for LaunchOptions.
    QCOMPARE(QGuiApplication::platformName(), QStringLiteral("offscreen"));
    QVERIFY(!QApplication::arguments().contains(QStringLiteral("-platform")));
}

void TestSessionArgument::windowOpensTheSessionNamedOnTheCommandLine()
{
    Result<LaunchOptions> options = LaunchOptions::parse(QApplication::arguments());
    QVERIFY(options.ok());
    MainWindow window(*options);
    window.show();
    QTRY_COMPARE(window.session()->sessionId(), g_stored->sessionId);
    QTRY_VERIFY(
        window.chatPanel()->model()->plainText().contains(QStringLiteral("The parser handles CRLF now.")));
    QVERIFY(window.chatPanel()->model()->plainText().contains(QStringLiteral("Make the parser accept CRLF")));
    QCOMPARE(window.session()->workspace(), g_stored->workspace);
}

int main(int argc, char **argv)
{
    test::TestEnvironment environment; // KEEN_HOME for this process
    qputenv("ANTHROPIC_API_KEY", "test-key");
    const QString workspace = environment.path(QStringLiteral("project"));
    QDir().mkpath(workspace);
    Stored stored{QDir(workspace).canonicalPath(), QString()};
    {
        test::TranscriptWriter transcript(environment.path(QStringLiteral("sessions")), stored.workspace);
        transcript.user(QStringLiteral("Make the parser accept CRLF"));
        transcript.assistant(QStringLiteral("The parser handles CRLF now."));
        stored.sessionId = transcript.id();
    }
    g_stored = &stored;

    // As a person starts it: keen-desktop --session ID --provider anthropic (Qt's -platform for the test).
    const QByteArray id = stored.sessionId.toUtf8();
    const char *const typed[] = {argv[0],     "--session", id.constData(), "--provider",
                                 "anthropic", "-platform", "offscreen"};
    QtArguments qtArguments(int(std::size(typed)), typed);
    QApplication app(qtArguments.argc(), qtArguments.argv());

    TestSessionArgument test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_sessionargument.moc"
