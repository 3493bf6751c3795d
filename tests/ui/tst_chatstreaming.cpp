// Long replies in the window (issue 11): 200,000 characters in 7-character chunks through the real path
// (worker thread, queued signals, ChatModel flushes, ChatDelegate painting offscreen). What the view renders
// is the whole reply, the same as a single render of it, and the delegate never re-rendered the whole reply
// per flush.
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"

#include "agent/agentsession.h"
#include "scriptedllmclient.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QDir>
#include <QScrollBar>
#include <QTest>
#include <QTextDocument>

using namespace keen;
using test::ScriptedLlmClient;

class TestChatStreaming : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void longReplyIsRenderedWholeAndIncrementally();
};

void TestChatStreaming::longReplyIsRenderedWholeAndIncrementally()
{
    test::TestEnvironment env;
    auto client = std::make_shared<ScriptedLlmClient>();
    AgentSession session;
    session.setClientFactory([client](const ClientConfig &) {
        return Result<std::shared_ptr<LlmClient>>(std::static_pointer_cast<LlmClient>(client));
    });
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.model = QStringLiteral("test-model");
    config.apiKey = QStringLiteral("test-key");
    config.contextWindow = 200000;
    session.setClientConfig(config);
    QDir().mkpath(env.path(QStringLiteral("work")));
    session.setWorkspace(env.path(QStringLiteral("work")));
    session.setSessionStore(std::make_shared<SessionStore>(env.path(QStringLiteral("sessions"))));

    const QString text = test::Workloads::markdownReply(200000);
    ScriptedLlmClient::Turn turn;
    for (const QString &piece : test::Workloads::chunks(text, 7))
        turn.append(ScriptedLlmClient::chunk(piece));
    turn.append(ScriptedLlmClient::event(StreamEvent::done()));
    client->addTurn(turn);

    ChatPanel panel(&session);
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto *view = panel.findChild<ChatView *>(QStringLiteral("chatView"));
    QVERIFY(view);
    QTest::keyClicks(panel.input(), QStringLiteral("write a long answer"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isBusy(), 120000);
    ChatModel *model = panel.model();
    QTRY_VERIFY(!model->hasPendingChunks());
    // The reply is split into rows at block boundaries (a list view row is at most 32,767 pixels tall).
    QString shownModel;
    for (int row = 1; row < model->rowCount(); ++row) {
        QCOMPARE(model->item(row).kind, ChatItem::Kind::AssistantText);
        shownModel += model->item(row).text;
    }
    QVERIFY(model->rowCount() > 2);
    QVERIFY(shownModel == text);

    // Painted offscreen at the bottom, where the view followed the reply; every row fits its height.
    const QModelIndex last = model->index(model->rowCount() - 1);
    QTRY_VERIFY(view->visualRect(last).intersects(view->viewport()->rect()));
    view->viewport()->grab();
    ChatDelegate *delegate = view->chatDelegate();
    QStringList rendered;
    qint64 parsed = 0;
    for (int row = 1; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row);
        QVERIFY(view->visualRect(index).height() < 32767);
        QCOMPARE(view->visualRect(index).height(),
                 delegate->sizeHint(QStyleOptionViewItem(), index).height());
        rendered.append(delegate->shownText(index));
        parsed += delegate->markdownCounters(index).charsParsed;
    }
    QTextDocument whole;
    whole.setMarkdown(text, QTextDocument::MarkdownDialectGitHub);
    QVERIFY(rendered.join(QLatin1Char('\n')) == whole.toPlainText());
    // A full render per 8 ms flush would parse the reply hundreds of times over.
    QVERIFY2(parsed < 8 * text.size(), qPrintable(QString::number(parsed)));

    // What was saved is the same reply.
    const auto loaded = session.sessionStore().load(session.sessionId());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QVERIFY(loaded->events.last().assistantMessage() == text);
}

QTEST_MAIN(TestChatStreaming)
#include "tst_chatstreaming.moc"
