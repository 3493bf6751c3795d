// Long replies in the window (issue 11): 200,000 characters in 7-character chunks through the real path
// (worker thread, queued signals, ChatModel flushes, ChatDelegate painting offscreen). What the view renders
// is the whole reply, the same as a single render of it, and the delegate never re-rendered the whole reply
// per flush.
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"
#include "chat/listnumbering.h"

#include "agent/agentsession.h"
#include "chatviewlayout.h"
#include "scriptedllmclient.h"
#include "scriptedsession.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QCoreApplication>
#include <QDir>
#include <QScrollBar>
#include <QStyleOptionViewItem>
#include <QTest>
#include <QTextDocument>

using namespace keen;
using test::ScriptedLlmClient;

namespace {
// A turn that streams text in chunks of 7 characters, as a fast provider sends them, then ends.
ScriptedLlmClient::Turn replyInSmallChunks(const QString &text)
{
    ScriptedLlmClient::Turn turn;
    for (const QString &piece : test::Workloads::chunks(text, 7))
        turn.append(ScriptedLlmClient::chunk(piece));
    turn.append(ScriptedLlmClient::event(StreamEvent::done()));
    return turn;
}
} // namespace

class TestChatStreaming : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void longReplyIsRenderedWholeAndIncrementally();
    void aBurstIsRenderedInBoundedStepsPerEvent();
    void aLongTableStreamedInIsShownToItsEnd();
};

void TestChatStreaming::longReplyIsRenderedWholeAndIncrementally()
{
    test::TestEnvironment env;
    auto client = std::make_shared<ScriptedLlmClient>();
    const std::unique_ptr<AgentSession> session = test::makeScriptedSession(env, client);

    const QString text = test::Workloads::markdownReply(200000);
    client->addTurn(replyInSmallChunks(text));

    ChatPanel panel(session.get());
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto *view = panel.findChild<ChatView *>(QStringLiteral("chatView"));
    QVERIFY(view);
    QTest::keyClicks(panel.input(), QStringLiteral("write a long answer"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!session->isBusy(), 120000);
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
    whole.setMarkdown(text, ListNumbering::Dialect);
    QVERIFY(rendered.join(QLatin1Char('\n')) == whole.toPlainText());
    // A full render per 8 ms flush would parse the reply hundreds of times over.
    QVERIFY2(parsed < 8 * text.size(), qPrintable(QString::number(parsed)));

    // What was saved is the same reply.
    const auto loaded = session->sessionStore().load(session->sessionId());
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QVERIFY(loaded->events.last().assistantMessage() == text);
}

namespace {

// Looks at a row's rendering before every event the GUI thread handles: what changed since the last look
// is what one event did.
class RenderSampler : public QObject
{
public:
    RenderSampler(ChatDelegate *delegate, const QModelIndex &row)
        : m_delegate(delegate)
        , m_row(row)
    {
        sample();
        mostShown = 0;
        mostParsed = 0;
        steps = 0;
    }
    qsizetype mostShown = 0; // most text one event added to what the row shows
    qint64 mostParsed = 0;   // most Markdown one event parsed for the row
    int steps = 0;           // events that added to what the row shows

    bool eventFilter(QObject *, QEvent *) override
    {
        sample();
        return false;
    }

private:
    void sample()
    {
        const IncrementalMarkdown *markdown = m_delegate->renderedMarkdown(m_row);
        if (!markdown)
            return;
        const qsizetype shown = markdown->text().size();
        const qint64 parsed = markdown->counters().charsParsed;
        if (shown > m_shown)
            ++steps;
        mostShown = qMax(mostShown, shown - m_shown);
        mostParsed = qMax(mostParsed, parsed - m_parsed);
        m_shown = shown;
        m_parsed = parsed;
    }

    ChatDelegate *m_delegate;
    QPersistentModelIndex m_row;
    qsizetype m_shown = 0;
    qint64 m_parsed = 0;
};

} // namespace

// A burst of text (a fast provider's chunks merged on their way to the GUI thread, or the rest of a reply
// flushed when its turn ends) is rendered a bounded step per turn of the event loop: no event parses much
// more than ChatDelegate::RenderStepChars of it, so none stalls the window, and the row ends up showing all
// of it, the same as one render of the whole text.
void TestChatStreaming::aBurstIsRenderedInBoundedStepsPerEvent()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    ChatDelegate *delegate = view.chatDelegate();
    const QString text = test::Workloads::markdownReply(11500); // one row (under ChatModel::MaxRowChars)
    model.addUserMessage(QStringLiteral("go"));
    model.appendText(text.left(500));
    model.flush();
    const QModelIndex reply = model.index(1);
    QTRY_VERIFY(delegate->renderedMarkdown(reply) && delegate->renderedMarkdown(reply)->text().size() == 500);

    RenderSampler sampler(delegate, reply);
    QCoreApplication::instance()->installEventFilter(&sampler);
    model.appendText(text.mid(500));
    model.flush();
    QCOMPARE(model.rowCount(), 2);
    QTRY_VERIFY(!delegate->isCatchingUp() && delegate->renderedMarkdown(reply)->text().size() == text.size());
    QCoreApplication::instance()->removeEventFilter(&sampler);

    QVERIFY2(sampler.mostShown <= ChatDelegate::RenderStepChars + 1,
             qPrintable(QString::number(sampler.mostShown)));
    // 11,000 chars, at most RenderStepChars a step.
    QVERIFY2(sampler.steps >= (text.size() - 500) / (ChatDelegate::RenderStepChars + 1),
             qPrintable(QString::number(sampler.steps)));
    // A step parses its new text, the open block it ends in, and a small finished block before it once more
    // (IncrementalMarkdown merges those): far below the 11,000 chars one render would parse.
    QVERIFY2(sampler.mostParsed <= 2 * ChatDelegate::RenderStepChars + 2048,
             qPrintable(QString::number(sampler.mostParsed)));
    QTextDocument whole;
    whole.setMarkdown(text, ListNumbering::Dialect);
    QVERIFY(delegate->shownText(reply) == whole.toPlainText());

    // A reply whose turn ended before any of it was shown (all of it flushed and sealed at once) is streamed
    // text too: rendered in the same steps, not whole in one paint.
    model.addUserMessage(QStringLiteral("again"));
    model.appendText(text);
    model.seal();
    const QModelIndex second = model.index(model.rowCount() - 1);
    QVERIFY(model.item(second.row()).sealed);
    RenderSampler secondSampler(delegate, second);
    QCoreApplication::instance()->installEventFilter(&secondSampler);
    QTRY_VERIFY(delegate->renderedMarkdown(second) && !delegate->isCatchingUp() &&
                delegate->renderedMarkdown(second)->text().size() == text.size());
    QCoreApplication::instance()->removeEventFilter(&secondSampler);
    QVERIFY2(secondSampler.mostShown <= ChatDelegate::RenderStepChars + 1,
             qPrintable(QString::number(secondSampler.mostShown)));
    QVERIFY(delegate->shownText(second) == whole.toPlainText());
}

// Found when tried: a reply listing 800 files in a table streamed in, the turn ended, and the view stayed
// at row 757 of the table: the row's height lagged behind its text, so the rest of the table and the line
// after it were below the end of the scroll range. At the end every row is as tall as its text, and the view,
// which followed the reply, shows its last line.
void TestChatStreaming::aLongTableStreamedInIsShownToItsEnd()
{
    test::TestEnvironment env;
    auto client = std::make_shared<ScriptedLlmClient>();
    const std::unique_ptr<AgentSession> session = test::makeScriptedSession(env, client);
    QString text = QStringLiteral("Files:\n\n| # | path | lines | note |\n|---|---|---|---|\n");
    for (int i = 0; i < 800; ++i)
        text += QStringLiteral("| %1 | src/module%1/file%1.cpp | %2 | `ok` |\n").arg(i).arg(i * 7);
    text += QStringLiteral("\nDone listing.");
    client->addTurn(replyInSmallChunks(text));

    ChatPanel panel(session.get());
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto *view = panel.findChild<ChatView *>(QStringLiteral("chatView"));
    QTest::keyClicks(panel.input(), QStringLiteral("list the files"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!session->isBusy(), 120000);
    ChatModel *model = panel.model();
    QTRY_VERIFY(!model->hasPendingChunks());
    QTRY_VERIFY(!view->chatDelegate()->isCatchingUp());
    view->viewport()->grab();
    QTRY_VERIFY_WITH_TIMEOUT(test::viewPlacesRowsAtTheirHeights(*view, *model), 10000);
    view->viewport()->grab();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row);
        QCOMPARE(view->visualRect(index).height(),
                 view->chatDelegate()->sizeHint(QStyleOptionViewItem(), index).height());
    }
    const QModelIndex last = model->index(model->rowCount() - 1);
    QVERIFY(view->chatDelegate()->shownText(last).endsWith(QStringLiteral("Done listing.")));
    QScrollBar *bar = view->verticalScrollBar();
    QTRY_COMPARE(bar->value(), bar->maximum());
    QTRY_VERIFY2(view->visualRect(last).bottom() <= view->viewport()->height() + 8,
                 qPrintable(QStringLiteral("last row ends at %1 of %2")
                                .arg(view->visualRect(last).bottom())
                                .arg(view->viewport()->height())));
}

QTEST_MAIN(TestChatStreaming)
#include "tst_chatstreaming.moc"
