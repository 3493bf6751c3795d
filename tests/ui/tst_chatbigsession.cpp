// A session of 10,000 events in the chat view (issue 11): rows are laid out lazily (only what is painted),
// the view opens at the last screen, and the delegate's caches stay bounded however far the person scrolls.
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/listnumbering.h"

#include "chatviewlayout.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextDocument>

using namespace keen;

class TestChatBigSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tenThousandEventsOpenAtTheEndLayingOutOnlyTheScreen();
    void aLongReplyPaintsOnlyWhatIsOnScreen();
    void olderRowsComingInAboveLeaveTheReaderWhereTheyWere();
    void aRowDroppedFromTheCacheIsLaidOutAgainAtItsHeight();
};

void TestChatBigSession::tenThousandEventsOpenAtTheEndLayingOutOnlyTheScreen()
{
    test::TestEnvironment env;
    const QString path = test::Workloads::writeBigSession(env.path(QStringLiteral("sessions")),
                                                          env.path(QStringLiteral("work")), 10000, 600);
    SessionStore store(env.path(QStringLiteral("sessions")));
    const auto loaded = store.load(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->events.size(), 10000);

    ChatModel model;
    ChatView view(&model);
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.replay(loaded->events);
    QVERIFY(model.rowCount() > 9000);
    ChatDelegate *delegate = view.chatDelegate();

    // The last screen is shown and measured; everything above it only estimated.
    const QModelIndex last = model.index(model.rowCount() - 1);
    QTRY_VERIFY(view.visualRect(last).intersects(view.viewport()->rect()));
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_COMPARE(bar->value(), bar->maximum());
    view.viewport()->grab();
    QTRY_COMPARE(view.visualRect(last).height(), delegate->sizeHint(QStyleOptionViewItem(), last).height());
    QVERIFY2(delegate->cacheSize() < 60, qPrintable(QString::number(delegate->cacheSize())));
    QVERIFY(delegate->estimateCount() > model.rowCount() - 60);
    const ChatItem &lastItem = model.item(last.row());
    QTextDocument expected;
    if (lastItem.kind == ChatItem::Kind::User)
        expected.setPlainText(lastItem.text);
    else
        expected.setMarkdown(lastItem.text, ListNumbering::Dialect);
    QCOMPARE(delegate->shownText(last), expected.toPlainText());

    // Scrolling through the session lays out what it shows; the caches stay within their bounds.
    for (int step = 0; step <= 20; ++step) {
        bar->setValue(bar->maximum() * (20 - step) / 20);
        view.viewport()->grab();
    }
    QCOMPARE(bar->value(), 0);
    QVERIFY(delegate->cacheSize() <= ChatDelegate::MaxCachedDocuments);
    QVERIFY(delegate->sizeCacheSize() <= ChatDelegate::MaxCachedSizes);
    const QModelIndex first = model.index(0);
    QTRY_VERIFY(view.visualRect(first).intersects(view.viewport()->rect()));
    QCOMPARE(delegate->shownText(first), model.item(0).text);
}

// Issue 11: a streamed reply's row grows to many screens (ChatModel::MaxRowChars); each paint during the
// stream draws only the part of it inside the viewport, not the whole row.
void TestChatBigSession::aLongReplyPaintsOnlyWhatIsOnScreen()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString reply = test::Workloads::markdownReply(ChatModel::MaxRowChars - 500);
    model.addUserMessage(QStringLiteral("go"));
    ChatDelegate *delegate = view.chatDelegate();
    for (qsizetype at = 0; at < reply.size(); at += 140) { // streamed: finished blocks become segments
        model.appendText(reply.mid(at, 140));
        model.flush();
        delegate->markdownCounters(model.index(1));
    }
    QCOMPARE(model.rowCount(), 2);
    const QModelIndex row = model.index(1);
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 3 * view.viewport()->height()); // many screens tall
    QTRY_COMPARE(bar->value(), bar->maximum());
    for (const int at : {bar->maximum(), bar->maximum() / 2}) {
        bar->setValue(at);
        view.viewport()->grab(); // lays out and paints
        const IncrementalMarkdown::Counters before = delegate->markdownCounters(row);
        QVERIFY2(before.segments >= 5, qPrintable(QString::number(before.segments)));
        view.viewport()->grab();
        const IncrementalMarkdown::Counters after = delegate->markdownCounters(row);
        const qint64 drawn = after.segmentsDrawn - before.segmentsDrawn;
        QVERIFY2(drawn > 0 && 2 * drawn < after.segments,
                 qPrintable(QStringLiteral("%1 of %2 segments drawn").arg(drawn).arg(after.segments)));
    }
    // The row still holds all of the reply.
    QTextDocument expected;
    expected.setMarkdown(reply, ListNumbering::Dialect);
    QCOMPARE(delegate->shownText(row), expected.toPlainText());
}

// Opening a big session shows its last screen first and puts the older rows in above, in batches. A person
// who scrolled up meanwhile keeps reading the same row at the same place while they come in and are measured.
void TestChatBigSession::olderRowsComingInAboveLeaveTheReaderWhereTheyWere()
{
    test::TestEnvironment env;
    const QString path = test::Workloads::writeBigSession(env.path(QStringLiteral("sessions")),
                                                          env.path(QStringLiteral("work")), 6000, 600);
    SessionStore store(env.path(QStringLiteral("sessions")));
    const auto loaded = store.load(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    const QList<SessionEvent> lastEvents = loaded->events.mid(loaded->events.size() - 200);

    ChatModel model;
    ChatView view(&model);
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.replay(lastEvents);
    const int shownRows = model.rowCount();
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 4 * view.viewport()->height());
    QTRY_COMPARE(bar->value(), bar->maximum());
    bar->setValue(bar->maximum() / 2); // the person scrolls up into the last screens
    view.viewport()->repaint();
    QCoreApplication::processEvents();
    const QModelIndex read = view.indexAt(view.viewport()->rect().center());
    QVERIFY(read.isValid());
    const QString readText = model.item(read.row()).text;
    const int readTop = view.visualRect(read).top();
    const int rowsBelow = model.rowCount() - read.row();

    QVERIFY(
        model.completeHistory(ChatModel::replayRows(loaded->events), lastEvents.constFirst().seq, shownRows));
    QSignalSpy completed(&model, &ChatModel::historyCompleted);
    while (model.isCompletingHistory()) {
        QCoreApplication::processEvents();
        view.viewport()->repaint();
        const QModelIndex same = model.index(model.rowCount() - rowsBelow);
        QCOMPARE(model.item(same.row()).text, readText);
        QCOMPARE(view.visualRect(same).top(), readTop);
    }
    QCOMPARE(completed.count(), 1);
    QVERIFY(model.rowCount() > ChatModel::PrependBatchRows + shownRows); // more than one batch came in
    QVERIFY(!view.isFollowing());
}

// The delegate keeps the laid-out documents of the MaxCachedDocuments rows painted last. Scrolling through a
// conversation of many more rows drops the first ones; scrolled back to, such a row is laid out again, at the
// height it had and showing the same text, and the row below it starts where it ends.
void TestChatBigSession::aRowDroppedFromTheCacheIsLaidOutAgainAtItsHeight()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QString reply =
        QStringLiteral("## Step\n\n- one\n- two\n\n```\na\nb\n```\n\n| x | y |\n|---|---|\n| 1 | 2 |\n");
    for (int i = 0; i < ChatDelegate::MaxCachedDocuments; ++i) {
        model.addUserMessage(QStringLiteral("Question %1").arg(i));
        model.appendText(reply);
        model.flush();
        model.seal();
    }
    QCOMPARE(model.rowCount(), 2 * ChatDelegate::MaxCachedDocuments);
    ChatDelegate *delegate = view.chatDelegate();
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);

    // The first screen, laid out.
    bar->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(test::viewHasSettled(view, model), 10000);
    const QModelIndex firstReply = model.index(1);
    QVERIFY(view.visualRect(model.index(2)).intersects(view.viewport()->rect()));
    QVERIFY(delegate->renderedMarkdown(firstReply));
    const int height = view.visualRect(firstReply).height();
    const QString shown = delegate->shownText(firstReply);
    QVERIFY(shown.contains(QStringLiteral("Step")));

    // Down through the whole conversation a screen at a time: every row is painted, the cache fills up and
    // drops the rows painted longest ago.
    for (int page = 0; page < 10 * model.rowCount() && bar->value() < bar->maximum(); ++page) {
        bar->setValue(bar->value() + bar->pageStep());
        view.viewport()->repaint();
        QCoreApplication::processEvents();
    }
    QCOMPARE(bar->value(), bar->maximum());
    QCOMPARE(delegate->cacheSize(), ChatDelegate::MaxCachedDocuments);
    QVERIFY(delegate->renderedMarkdown(model.index(model.rowCount() - 1)));
    QVERIFY(!delegate->renderedMarkdown(firstReply)); // dropped

    // Back at the top: the first reply is laid out again.
    const int builds = delegate->buildCount();
    bar->setValue(0);
    QTRY_VERIFY_WITH_TIMEOUT(test::viewHasSettled(view, model), 10000);
    QVERIFY(delegate->renderedMarkdown(firstReply));
    QVERIFY(delegate->buildCount() > builds);
    QCOMPARE(view.visualRect(firstReply).height(), height);
    QCOMPARE(view.visualRect(model.index(2)).top(), view.visualRect(firstReply).bottom() + 1);
    QCOMPARE(delegate->shownText(firstReply), shown);
    QCOMPARE(delegate->cacheSize(), ChatDelegate::MaxCachedDocuments);
}

QTEST_MAIN(TestChatBigSession)
#include "tst_chatbigsession.moc"
