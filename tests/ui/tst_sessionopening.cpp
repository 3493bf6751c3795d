// Opening a session and /resume read the transcript off the GUI thread with a visible busy state (issue 11).
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"

#include "agent/agentsession.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QDir>
#include <QFileInfo>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

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
    void theLastScreenComesFirstThenTheWholeHistory();
    void rowsComingInAboveDoNotMoveWhatIsRead();

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
    QTRY_VERIFY(m_panel->isHistoryShown());
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

// Issue 11: a long session shows its last screen from the end of the transcript before the whole file is
// read; the rows above come in afterwards without moving the view, and the result is exactly what a full
// replay shows, with the history projected from the whole transcript (compactions included).
void TestSessionOpening::theLastScreenComesFirstThenTheWholeHistory()
{
    const QString path =
        test::Workloads::writeBigSession(m_env->path(QStringLiteral("sessions")), m_workspace, 2600, 1500);
    const QString id = QFileInfo(path).dir().dirName();
    const auto loaded = SessionStore(m_env->path(QStringLiteral("sessions"))).load(id);
    QVERIFY(loaded.ok());
    ChatModel full;
    full.replay(loaded->events);

    int rowsAtPreview = -1;
    QString lastRowAtPreview; // taken here: rows may come in above before QTRY_VERIFY looks again
    bool openedBeforePreview = false;
    QSignalSpy opened(m_session.get(), &AgentSession::sessionOpened);
    connect(m_session.get(), &AgentSession::sessionPreviewed, this, [&] {
        openedBeforePreview = !opened.isEmpty();
        rowsAtPreview = m_panel->model()->rowCount();
        if (rowsAtPreview > 0)
            lastRowAtPreview = m_panel->model()->item(rowsAtPreview - 1).text;
    });
    m_session->openSessionAsync(id);
    QTRY_VERIFY(rowsAtPreview >= 0);
    QVERIFY(!openedBeforePreview); // the last screen came before the whole transcript was read
    QVERIFY(rowsAtPreview > 0 && rowsAtPreview < full.rowCount() / 10);
    QCOMPARE(lastRowAtPreview, full.item(full.rowCount() - 1).text);

    QTRY_VERIFY(!opened.isEmpty());
    QTRY_VERIFY(m_panel->isHistoryShown());
    ChatModel *model = m_panel->model();
    QCOMPARE(model->rowCount(), full.rowCount());
    for (int row = 0; row < full.rowCount(); ++row) {
        QCOMPARE(model->item(row).kind, full.item(row).kind);
        QCOMPARE(model->item(row).text, full.item(row).text);
    }
    for (const SessionEvent &event : loaded->events)
        QCOMPARE(model->rowForSeq(event.seq), full.rowForSeq(event.seq));
    QScrollBar *bar = m_panel->view()->verticalScrollBar();
    QTRY_COMPARE(bar->value(), bar->maximum()); // still at the end
    QCOMPARE(m_session->messages(), buildConversation(loaded->events));
    QVERIFY(m_session->messages().size() < 1000); // replaced history: compactions were applied
}

// Issue 11: a person who scrolls up while the rows above the last screen come in keeps reading the same row
// at the same place.
void TestSessionOpening::rowsComingInAboveDoNotMoveWhatIsRead()
{
    const QString path =
        test::Workloads::writeBigSession(m_env->path(QStringLiteral("sessions")), m_workspace, 3000, 600);
    const QString id = QFileInfo(path).dir().dirName();
    ChatView *view = m_panel->view();
    QScrollBar *bar = view->verticalScrollBar();
    bool scrolled = false;
    QString readRow;
    int readRowY = 0;
    // What the window showed at the moment of the scroll: a fast worker may bring the rest of the history in
    // before QTRY_VERIFY below looks again, so it is taken here.
    bool shownAtScroll = true;
    int rowsAtScroll = 0;
    // Up a little as soon as the last screen is there, before the rest of the session is read.
    connect(m_session.get(), &AgentSession::sessionPreviewed, this, [&] {
        QTimer::singleShot(0, this, [&] {
            view->doItemsLayout();
            bar->setValue(bar->maximum() - 120);
            const QModelIndex top = view->indexAt(QPoint(20, 20));
            QVERIFY(top.isValid());
            readRow = m_panel->model()->item(top.row()).text;
            readRowY = view->visualRect(top).top();
            shownAtScroll = m_panel->isHistoryShown();
            rowsAtScroll = m_panel->model()->rowCount();
            scrolled = true;
        });
    });
    m_session->openSessionAsync(id);
    QTRY_VERIFY(scrolled);
    QVERIFY(!shownAtScroll);
    QTRY_VERIFY(m_panel->isHistoryShown());
    QVERIFY(m_panel->model()->rowCount() > 5 * rowsAtScroll);
    view->doItemsLayout();
    const QModelIndex top = view->indexAt(QPoint(20, 20));
    QVERIFY(top.isValid());
    QCOMPARE(m_panel->model()->item(top.row()).text, readRow);
    QCOMPARE(view->visualRect(top).top(), readRowY);
    QVERIFY(!view->isFollowing());
}

QTEST_MAIN(TestSessionOpening)
#include "tst_sessionopening.moc"
