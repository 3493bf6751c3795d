// Notifications (issue 15): while the window is not the active one, a finished reply, a finished manual
// compaction, a permission request or a failed turn sends a desktop notification and asks for attention in
// the taskbar; nothing while the window is active or for a turn the person stopped. Clicking the notification
// brings the window back with that session. A recording Notifier stands in for D-Bus.
#include "chat/chatpanel.h"
#include "chat/compactionreviewdialog.h"
#include "chat/inputeditor.h"
#include "mainwindow.h"
#include "notifier.h"

#include "agent/agentsession.h"
#include "scriptedllmclient.h"
#include "testenvironment.h"

#include <QAction>
#include <QSettings>
#include <QTest>

using namespace keen;
using test::ScriptedLlmClient;

namespace {
class RecordingNotifier final : public Notifier
{
public:
    struct Sent
    {
        QString summary;
        QString body;
        QString sessionId;
    };
    using Notifier::Notifier;
    void notify(const QString &summary, const QString &body, const QString &sessionId) override
    {
        sent.append({summary, body, sessionId});
    }
    void withdraw() override { ++withdrawn; }
    void requestAttention(QWidget *window) override { attention.append(window); }

    QList<Sent> sent;
    QList<QWidget *> attention;
    int withdrawn = 0;
};
} // namespace

class TestNotifications : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void nothingWhileTheWindowIsActive();
    void finishedReplyNotifiesWhileAway();
    void permissionRequestQuestionAndCompactionNotify();
    void stoppedTurnDoesNotNotify();
    void aShellCommandThatEndsWhileAwayNotifies();
    void clickingTheNotificationFocusesTheSession();

private:
    void send(const QString &text);
    void goAway();

    test::TestEnvironment m_env;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QWidget> m_other; // another application's window, in effect
    std::shared_ptr<ScriptedLlmClient> m_client;
    RecordingNotifier *m_notifier = nullptr;
};

void TestNotifications::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       m_env.path(QStringLiteral("qsettings")));
    qputenv("ANTHROPIC_API_KEY", "test-key");
    QDir().mkpath(m_env.path(QStringLiteral("project")));
}

void TestNotifications::init()
{
    LaunchOptions options;
    options.provider = QStringLiteral("anthropic");
    options.model = QStringLiteral("claude-fable-5-1");
    options.workspace = m_env.path(QStringLiteral("project"));
    options.contextWindow = 100000;
    m_window = std::make_unique<MainWindow>(options);
    m_client = std::make_shared<ScriptedLlmClient>();
    m_window->session()->setClientFactory(ScriptedLlmClient::factory(m_client));
    m_notifier = new RecordingNotifier(m_window.get());
    m_window->setNotifier(m_notifier);
    QCOMPARE(m_window->notifier(), m_notifier);
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    m_other = std::make_unique<QWidget>();
    m_other->setObjectName(QStringLiteral("otherWindow"));
    m_other->resize(300, 200);
}

void TestNotifications::cleanup()
{
    if (m_window->session()->isBusy()) {
        m_window->session()->interrupt();
        QTRY_VERIFY(!m_window->session()->isBusy());
    }
    m_other.reset();
    m_window.reset();
}

void TestNotifications::send(const QString &text)
{
    m_window->chatPanel()->input()->setFocus();
    QTest::keyClicks(m_window->chatPanel()->input(), text);
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
}

void TestNotifications::goAway()
{
    m_other->show();
    m_other->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_other.get()));
    QTRY_VERIFY(!m_window->isActiveWindow());
}

void TestNotifications::nothingWhileTheWindowIsActive()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Here.")), ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("hello"));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QVERIFY(m_window->isActiveWindow());
    QVERIFY(m_notifier->sent.isEmpty());
    QVERIFY(m_notifier->attention.isEmpty());
}

void TestNotifications::finishedReplyNotifiesWhileAway()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("The tests pass now: 412 of 412.")),
                       ScriptedLlmClient::gate(QStringLiteral("finish")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("run the tests"));
    QTRY_VERIFY(m_window->session()->isBusy());
    goAway();
    m_client->open(QStringLiteral("finish"));
    QTRY_COMPARE(m_notifier->sent.size(), 1);
    QCOMPARE(m_notifier->sent.first().summary, QStringLiteral("Reply finished"));
    QCOMPARE(m_notifier->sent.first().body, QStringLiteral("The tests pass now: 412 of 412."));
    QCOMPARE(m_notifier->sent.first().sessionId, m_window->session()->sessionId());
    QCOMPARE(m_notifier->attention, QList<QWidget *>{m_window.get()});

    // Back in the window: the notification is withdrawn.
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTRY_VERIFY(m_notifier->withdrawn > 0);
}

void TestNotifications::permissionRequestQuestionAndCompactionNotify()
{
    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("start")),
                       ScriptedLlmClient::event(StreamEvent::chunk(QStringLiteral("Cleaning."))),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("clean"));
    goAway();
    // A permission request while away (the tool loop asks through the session).
    PermissionRequest request;
    request.toolName = QStringLiteral("bash");
    request.command = QStringLiteral("rm -rf build");
    Q_EMIT m_window->session()->permissionRequested(request);
    QTRY_COMPARE(m_notifier->sent.size(), 1);
    QCOMPARE(m_notifier->sent.at(0).summary, QStringLiteral("Permission needed"));
    QCOMPARE(m_notifier->sent.at(0).body, QStringLiteral("Run rm -rf build?"));
    // A question of the agent (ask_user) while away: its first question is the notification's body.
    Q_EMIT m_window->session()->questionAsked(
        7,
        {UserQuestion{QStringLiteral("Which database?"),
                      {QStringLiteral("SQLite"), QStringLiteral("Postgres")}},
         UserQuestion{QStringLiteral("Keep the old files?"), {QStringLiteral("Yes"), QStringLiteral("No")}}});
    QTRY_COMPARE(m_notifier->sent.size(), 2);
    QCOMPARE(m_notifier->sent.at(1).summary, QStringLiteral("The agent has a question"));
    QCOMPARE(m_notifier->sent.at(1).body, QStringLiteral("Which database?"));
    m_client->open(QStringLiteral("start"));
    QTRY_COMPARE(m_notifier->sent.size(), 3);
    QTRY_VERIFY(!m_window->session()->isBusy());

    // A manual compaction: one notification, about the compaction (not a second "reply finished").
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nClean the build.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QVERIFY(m_window->session()->compact(QString()).ok());
    QTRY_COMPARE(m_notifier->sent.size(), 4);
    QTRY_VERIFY(!m_window->session()->isBusy());
    QCOMPARE(m_notifier->sent.at(3).summary, QStringLiteral("Context compacted"));
    QCOMPARE(m_notifier->sent.size(), 4);
    QCOMPARE(m_notifier->attention.size(), 4);

    // With review on, the summary waits for the person: that is worth a notification too (found by a read
    // against issue 15), and cancelling the review from the window is not.
    m_window->session()->setReviewManualCompaction(true);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nShip the release.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QVERIFY(m_window->session()->compact(QString()).ok());
    QTRY_COMPARE(m_notifier->sent.size(), 5);
    QCOMPARE(m_notifier->sent.at(4).summary, QStringLiteral("Summary ready to review"));
    QCOMPARE(m_notifier->sent.at(4).body,
             QStringLiteral("Accept, edit or regenerate it before it replaces the conversation."));
    QCOMPARE(m_notifier->sent.at(4).sessionId, m_window->session()->sessionId());
    QCOMPARE(m_notifier->attention.size(), 5);
    auto *review = m_window->findChild<CompactionReviewDialog *>(QStringLiteral("compactionReviewDialog"));
    QVERIFY(review);
    QTRY_VERIFY(review->isVisible());
    review->reject();
    QTRY_VERIFY(!m_window->session()->isBusy());
}

void TestNotifications::stoppedTurnDoesNotNotify()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Working.")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("long"));
    QTRY_VERIFY(m_window->session()->isBusy());
    goAway();
    m_window->session()->interrupt();
    QTRY_VERIFY(!m_window->session()->isBusy());
    QVERIFY(m_notifier->sent.isEmpty());

    // A turn that fails while away is worth knowing about.
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::failure(QStringLiteral("HTTP 500: overloaded")))});
    QVERIFY(m_window->session()->submit(QStringLiteral("again")).ok());
    QTRY_COMPARE(m_notifier->sent.size(), 1);
    QCOMPARE(m_notifier->sent.first().summary, QStringLiteral("The reply failed"));
    QVERIFY(m_notifier->sent.first().body.contains(QStringLiteral("overloaded")));
}

void TestNotifications::aShellCommandThatEndsWhileAwayNotifies()
{
    send(QStringLiteral("!sleep 1; echo built"));
    QTRY_VERIFY(m_window->session()->isBusy());
    goAway();
    QTRY_VERIFY_WITH_TIMEOUT(!m_window->session()->isBusy(), 10000);
    QTRY_COMPARE(m_notifier->sent.size(), 1);
    QCOMPARE(m_notifier->sent.first().summary, QStringLiteral("Command finished"));
    QCOMPARE(m_notifier->sent.first().body, QStringLiteral("sleep 1; echo built"));
    QCOMPARE(m_notifier->attention, QList<QWidget *>{m_window.get()});

    // Stopped by the person: nothing to say.
    send(QStringLiteral("!sleep 30"));
    QTRY_VERIFY(m_window->session()->isBusy());
    m_window->session()->interrupt();
    QTRY_VERIFY(!m_window->session()->isBusy());
    QCOMPARE(m_notifier->sent.size(), 1);
}

void TestNotifications::clickingTheNotificationFocusesTheSession()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("First answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("first question"));
    QTRY_VERIFY(!m_window->session()->isBusy());
    const QString first = m_window->session()->sessionId();
    m_window->findChild<QAction *>(QStringLiteral("newSessionAction"))->trigger();
    QVERIFY(m_window->session()->sessionId().isEmpty());

    goAway();
    m_window->showMinimized();
    Q_EMIT m_notifier->activated(first);
    QTRY_VERIFY(m_window->isActiveWindow());
    QVERIFY(!m_window->isMinimized());
    QTRY_COMPARE(m_window->session()->sessionId(), first); // read off the GUI thread
    QTRY_VERIFY(m_window->chatPanel()->input()->hasFocus());
}

QTEST_MAIN(TestNotifications)
#include "tst_notifications.moc"
