// Opening a session and /resume read the transcript off the GUI thread with a visible busy state (issue 11).
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"

#include "agent/agentsession.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QDir>
#include <QFileInfo>
#include <QTest>

using namespace keen;

class TestSessionOpening : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void openingShowsABusyStateThenTheSession();
    void resumeOpensTheLatestOtherSession();
    void aMissingSessionIsAClearError();

private:
    std::unique_ptr<test::TestEnvironment> m_env;
    std::unique_ptr<AgentSession> m_session;
    std::unique_ptr<ChatPanel> m_panel;
    QString m_workspace;
};

void TestSessionOpening::init()
{
    m_env = std::make_unique<test::TestEnvironment>();
    m_workspace = m_env->path(QStringLiteral("work"));
    QDir().mkpath(m_workspace);
    m_session = std::make_unique<AgentSession>();
    m_session->setWorkspace(m_workspace);
    m_session->setSessionStore(std::make_shared<SessionStore>(m_env->path(QStringLiteral("sessions"))));
    m_panel = std::make_unique<ChatPanel>(m_session.get());
    m_panel->resize(800, 600);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
}

void TestSessionOpening::cleanup()
{
    QTRY_VERIFY(!m_session->isOpening());
    m_panel.reset();
    m_session.reset();
    m_env.reset();
}

void TestSessionOpening::openingShowsABusyStateThenTheSession()
{
    const QString path =
        test::Workloads::writeBigSession(m_env->path(QStringLiteral("sessions")), m_workspace, 2000, 3000);
    const QString id = QFileInfo(path).dir().dirName();
    m_session->openSessionAsync(id);
    // Nothing was read on this thread yet: the person sees that the session is being opened.
    QVERIFY(m_session->isOpening());
    QVERIFY(m_panel->spinner()->isRunning());
    QCOMPARE(m_panel->spinner()->text(), QStringLiteral("Opening session..."));
    QVERIFY(!m_panel->input()->isEnabled());
    QCOMPARE(m_panel->model()->rowCount(), 0);

    QTRY_COMPARE(m_session->sessionId(), id);
    QVERIFY(m_panel->model()->rowCount() > 1500);
    QVERIFY(!m_panel->spinner()->isRunning());
    QVERIFY(m_panel->input()->isEnabled());
    QVERIFY(!m_session->messages().isEmpty());
}

void TestSessionOpening::resumeOpensTheLatestOtherSession()
{
    const QString path =
        test::Workloads::writeBigSession(m_env->path(QStringLiteral("sessions")), m_workspace, 50, 500);
    const QString id = QFileInfo(path).dir().dirName();
    QTest::keyClicks(m_panel->input(), QStringLiteral("/resume"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_COMPARE(m_session->sessionId(), id);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Question 0")));
    QVERIFY(!m_panel->spinner()->isRunning());

    // Nothing else to resume: said so, and the conversation stays.
    QTest::keyClicks(m_panel->input(), QStringLiteral("/resume"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("No earlier session to resume.")));
    QCOMPARE(m_session->sessionId(), id);
    QVERIFY(m_panel->input()->isEnabled());
}

void TestSessionOpening::aMissingSessionIsAClearError()
{
    m_session->openSessionAsync(QStringLiteral("0b1c2d3e-0000-4000-8000-00000000dead"));
    QTRY_VERIFY(!m_session->isOpening());
    QTRY_VERIFY(m_panel->model()->rowCount() > 0);
    const ChatItem &item = m_panel->model()->item(m_panel->model()->rowCount() - 1);
    QCOMPARE(item.kind, ChatItem::Kind::Error);
    QVERIFY(!item.text.isEmpty());
    QVERIFY(!m_panel->spinner()->isRunning());
    QVERIFY(m_panel->input()->isEnabled());
}

QTEST_MAIN(TestSessionOpening)
#include "tst_sessionopening.moc"
