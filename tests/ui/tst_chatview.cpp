// The transcript view: delegate cache per row, permission cards with real buttons, reasoning toggles and
// hiding.
#include "apppalette.h"
#include "chat/chatcolors.h"
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"
#include "chat/conversationsearch.h"
#include "chat/elidinglabel.h"

#include "chatviewlayout.h"
#include "testenvironment.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDesktopServices>
#include <QImage>
#include <QJsonArray>
#include <QMenu>
#include <QMouseEvent>
#include <QPushButton>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using namespace keen;

// Stands in for the browser: QDesktopServices hands it the links the view opens.
class LinkCatcher : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> opened;

public Q_SLOTS:
    void open(const QUrl &url) { opened.append(url); }
};

class TestChatView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void delegateRebuildsOnlyTheChangedRow();
    void paletteChangeRebuildsRowsInTheNewColours();
    void sideStreamsHaveABarOfTheirOwn();
    void permissionButtonsEmitTheirDecision_data();
    void permissionButtonsEmitTheirDecision();
    void dangerousCommandsOfferNoSessionAllow();
    void permissionCardIsKeyboardOperable();
    void settledCardLosesItsButtons();
    void reasoningHidesAndToggles();
    void followsOnlyWhenAtTheBottom();
    void aRowAddedNeverLeavesTheChatBlank();
    void keysPageThroughATallReply();
    void ctrlCCopiesSelectionElseInterrupts();
    void dragSelectsPartOfAReply();
    void dragFromOneRowIntoTheNextCopiesBoth();
    void doubleClickSelectsAWordAndATripleClickItsParagraph();
    void dragBelowTheViewScrollsAndSelectsOn();
    void copyingAWholeTableGivesALinePerRowAndTabsBetweenCells();
    void copyingPartOfATableGivesTheSelectedCellsInTheirShape();
    void copyingAnOrderedListKeepsItsNumbers();
    void copyingANestedBulletListKeepsBulletsAndIndents();
    void aListAfterACodeBlockShowsAndCopiesItsOwnNumbers_data();
    void aListAfterACodeBlockShowsAndCopiesItsOwnNumbers();
    void copyingFromAParagraphThroughATableIntoTheNextKeepsEachShape();
    void noSelectionIsDrawnAboveATable();
    void everyMatchFoundIsShown_data();
    void everyMatchFoundIsShown();
    void findKeepsUpWithEveryChange();
    void aFoundMatchFarUpStaysInView();
    void theLineReadStaysOnTopWhenTheWidthChanges();
    void scrollingUpIntoUnmeasuredRowsMovesTheTextByTheStep();
    void questionCardAnswersWithTheChosenOptions();
    void aClickOnALinkOpensItInTheBrowser();
    void aPictureInAReplyIsNeverReadFromDisk();
    void aPastedLogShowsToItsLastLine_data();
    void aPastedLogShowsToItsLastLine();
    void aLongMessageIsFoldedUntilShown();

private:
    test::TestEnvironment m_env;
};

void TestChatView::initTestCase()
{
    qRegisterMetaType<PermissionDecision>();
}

void TestChatView::delegateRebuildsOnlyTheChangedRow()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.addUserMessage(QStringLiteral("hello"));
    model.appendText(QStringLiteral("| a | b |\n|---|---|\n| 1 | 2 |\n"));
    model.flush();
    model.addLine(ChatItem::Kind::Status, QStringLiteral("✓ done"));
    model.appendText(QStringLiteral("Streaming"));
    model.flush();
    ChatDelegate *delegate = view.chatDelegate();
    QTRY_COMPARE(delegate->cacheSize(), 4);
    view.viewport()->repaint(); // synchronous: every row the view shows has been built
    const int before = delegate->buildCount();
    model.appendText(QStringLiteral(" more text"));
    model.flush();
    QTRY_COMPARE(delegate->buildCount(), before + 1);
    view.viewport()->repaint();
    QCOMPARE(delegate->buildCount(), before + 1); // only the last row was rebuilt
    QCOMPARE(delegate->cacheSize(), 4);
}

namespace {

// Replies whose estimated heights are far from their laid-out ones (lists, code, tables).
void addQuestionsWithMixedReplies(ChatModel &model, int count)
{
    const QString reply =
        QStringLiteral("## Step\n\n- one\n- two\n\n```\na\nb\nc\n```\n\n| x | y |\n|---|---|\n"
                       "| 1 | 2 |\n\n")
            .repeated(12);
    for (int i = 0; i < count; ++i) {
        model.addUserMessage(QStringLiteral("Question %1").arg(i));
        model.appendText(reply);
        model.flush();
        model.seal();
    }
}

int pixelsOf(const QImage &image, const QColor &color)
{
    int count = 0;
    const QRgb wanted = color.rgb();
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            count += (image.pixel(x, y) & 0xffffff) == (wanted & 0xffffff) ? 1 : 0;
    }
    return count;
}

} // namespace

// Issue 11: switching between light and dark at run time drops the delegate's laid-out documents and sizes,
// so every row is drawn again in the new palette's colours (nothing cached keeps the old ones).
void TestChatView::paletteChangeRebuildsRowsInTheNewColours()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.addUserMessage(QStringLiteral("show me"));
    model.appendText(QStringLiteral("Here:\n\n```cpp\nint x = 1;\nint y = 2;\n```\n\nand `inline` code.\n"));
    model.flush();
    ChatDelegate *delegate = view.chatDelegate();
    QTRY_COMPARE(delegate->cacheSize(), 2);
    const QPalette light = view.palette();
    const QPalette dark = AppPalette::dark(); // what the window switches to
    const QColor lightBlock = ChatColors::codeBlockBackground(light);
    const QColor darkBlock = ChatColors::codeBlockBackground(dark);
    QVERIFY(lightBlock.rgb() != darkBlock.rgb());
    QVERIFY(pixelsOf(view.viewport()->grab().toImage(), lightBlock) > 5000);
    QVERIFY(delegate->sizeCacheSize() > 0);

    const int builds = delegate->buildCount();
    view.setPalette(dark);
    QCOMPARE(delegate->cacheSize(), 0); // dropped at once, before anything is painted again
    QCOMPARE(delegate->sizeCacheSize(), 0);
    const QImage image = view.viewport()->grab().toImage();
    QCOMPARE(delegate->buildCount(), builds + 2); // both rows built again
    QVERIFY(pixelsOf(image, darkBlock) > 5000);   // the code block's fill (a few stray antialiased text
    QVERIFY(pixelsOf(image, lightBlock) < 50);    // pixels may match by chance; a stale block has thousands)

    view.setPalette(light); // and back
    QCOMPARE(delegate->cacheSize(), 0);
    const QImage again = view.viewport()->grab().toImage();
    QVERIFY(pixelsOf(again, lightBlock) > 5000);
    QVERIFY(pixelsOf(again, darkBlock) < 50);
}

// A /btw answer and a /adversary review are not part of the conversation: their rows have a teal bar at the
// left (reference 6.8), in both palettes; a command's info row (/help) has none.
void TestChatView::sideStreamsHaveABarOfTheirOwn()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.addLine(ChatItem::Kind::Info, QStringLiteral("**Available Commands**\n\nline one\n\nline two"));
    QTRY_VERIFY(view.chatDelegate()->cacheSize() > 0);
    const QColor bar = ChatColors::aside(view.palette());
    QCOMPARE(pixelsOf(view.viewport()->grab().toImage(), bar), 0);

    const quint64 review = model.addAside(QStringLiteral("check the parser"), ChatModel::Aside::Review);
    model.appendAside(review, QStringLiteral("First finding.\n\nSecond finding.\n\nThird finding."));
    QCOMPARE(model.item(model.rowCount() - 1).text.left(31),
             QStringLiteral("**review** check the parser\n\nFi"));
    // 3 pixels wide, the row's height (once the view has laid the new row out)
    QTRY_VERIFY(pixelsOf(view.viewport()->grab().toImage(), bar) > 3 * 60);
    view.setPalette(AppPalette::dark());
    QTRY_VERIFY(pixelsOf(view.viewport()->grab().toImage(), ChatColors::aside(AppPalette::dark())) > 3 * 60);
}

void TestChatView::permissionButtonsEmitTheirDecision_data()
{
    QTest::addColumn<QString>("button");
    QTest::addColumn<PermissionDecision>("decision");
    QTest::newRow("allow") << QStringLiteral("allowButton") << PermissionDecision::Allow;
    QTest::newRow("session") << QStringLiteral("allowSessionButton") << PermissionDecision::AllowForSession;
    QTest::newRow("deny") << QStringLiteral("denyButton") << PermissionDecision::Deny;
    QTest::newRow("redirect") << QStringLiteral("redirectButton") << PermissionDecision::Redirect;
}

void TestChatView::permissionButtonsEmitTheirDecision()
{
    QFETCH(QString, button);
    QFETCH(PermissionDecision, decision);
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy decided(&view, &ChatView::permissionDecided);
    model.addPermission(PermissionRequest{42,
                                          QStringLiteral("edit_file"),
                                          QStringLiteral("src/a.cpp"),
                                          QStringLiteral("/w/src/a.cpp"),
                                          {},
                                          {},
                                          QStringLiteral("@@ -1,1 +1,1 @@\n-old\n+new\n"),
                                          false});
    auto *target = view.findChild<QPushButton *>(button);
    QVERIFY(target);
    QTRY_VERIFY(target->isVisible());
    QTest::mouseClick(target, Qt::LeftButton);
    QCOMPARE(decided.count(), 1);
    QCOMPARE(decided.at(0).at(0).toULongLong(), quint64(42));
    QCOMPARE(decided.at(0).at(1).value<PermissionDecision>(), decision);
}

void TestChatView::dangerousCommandsOfferNoSessionAllow()
{
    ChatModel model;
    ChatView view(&model);
    view.show();
    model.addPermission(PermissionRequest{1,
                                          QStringLiteral("bash"),
                                          {},
                                          {},
                                          QStringLiteral("rm -rf build"),
                                          QStringLiteral("remove build"),
                                          {},
                                          true});
    QVERIFY(view.findChild<QPushButton *>(QStringLiteral("allowButton")));
    QVERIFY(view.findChild<QPushButton *>(QStringLiteral("denyButton")));
    QVERIFY(view.findChild<QPushButton *>(QStringLiteral("redirectButton")));
    QVERIFY(!view.findChild<QPushButton *>(QStringLiteral("allowSessionButton")));
}

void TestChatView::permissionCardIsKeyboardOperable()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    view.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&view));
    QSignalSpy decided(&view, &ChatView::permissionDecided);
    model.addPermission(
        PermissionRequest{5, QStringLiteral("write_file"), QStringLiteral("b.txt"), {}, {}, {}, {}, false});
    QVERIFY(view.focusPendingCard());
    auto *allow = view.findChild<QPushButton *>(QStringLiteral("allowButton"));
    QTRY_VERIFY(allow->hasFocus());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget()->objectName(), QStringLiteral("allowSessionButton"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
    QCOMPARE(decided.count(), 1);
    QCOMPARE(decided.at(0).at(1).value<PermissionDecision>(), PermissionDecision::AllowForSession);

    model.addPermission(
        PermissionRequest{6, QStringLiteral("write_file"), QStringLiteral("c.txt"), {}, {}, {}, {}, false});
    QVERIFY(view.focusPendingCard());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    QCOMPARE(decided.count(), 2);
    QCOMPARE(decided.at(1).at(1).value<PermissionDecision>(), PermissionDecision::Deny);
}

void TestChatView::settledCardLosesItsButtons()
{
    ChatModel model;
    ChatView view(&model);
    view.show();
    model.addPermission(
        PermissionRequest{9, QStringLiteral("edit_file"), QStringLiteral("a"), {}, {}, {}, {}, false});
    QVERIFY(view.indexWidget(model.index(0)));
    model.settlePermission(9, QStringLiteral("Allowed"));
    QVERIFY(!view.indexWidget(model.index(0)));
    QTRY_VERIFY(!view.findChild<QPushButton *>(QStringLiteral("allowButton")));
    QVERIFY(model.item(0).plainText().contains(QStringLiteral("Allowed")));

    // Found when tried: an allowed write's settled card showed the request's raw unified diff ("---
    // /dev/null",
    // "+++ b/notes/new.txt", "+hello") below the same diff on the tool's card. It shows its question and
    // outcome only; a denied one keeps the diff it refused, drawn as a diff.
    const QString diff =
        QStringLiteral("--- /dev/null\n+++ b/notes/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n");
    model.addPermission(PermissionRequest{
        10, QStringLiteral("write_file"), QStringLiteral("notes/new.txt"), {}, {}, {}, diff, false});
    model.settlePermission(10, QStringLiteral("Allowed"), true);
    const QString allowed = view.chatDelegate()->shownText(model.index(1));
    QVERIFY2(allowed.contains(QStringLiteral("Allowed")), qPrintable(allowed));
    QVERIFY2(!allowed.contains(QStringLiteral("+++")) && !allowed.contains(QStringLiteral("hello")),
             qPrintable(allowed));
    model.addPermission(PermissionRequest{
        11, QStringLiteral("write_file"), QStringLiteral("notes/new.txt"), {}, {}, {}, diff, false});
    model.settlePermission(11, QStringLiteral("Denied"));
    const QString denied = view.chatDelegate()->shownText(model.index(2));
    QVERIFY2(denied.contains(QStringLiteral("hello")) && !denied.contains(QStringLiteral("+++ b/")),
             qPrintable(denied));
}

void TestChatView::reasoningHidesAndToggles()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendReasoning(QStringLiteral("first line\nsecond line"));
    model.appendText(QStringLiteral("answer"));
    model.flush();
    QVERIFY(model.item(0).collapsed);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.visualRect(model.index(0)).center());
    QVERIFY(!model.item(0).collapsed);
    // Found trying the window: a double click on a word of an open thought folded it on its first click.
    // A click into its text leaves it open; a double click there selects the word; its header folds it.
    const auto second = view.chatDelegate()->findInRow(model.index(0), QStringLiteral("second"), 0);
    QVERIFY(second);
    const QRect secondLine =
        view.chatDelegate()->textLineRect(model.index(0), view.visualRect(model.index(0)), second->first);
    const QPoint onSecond(secondLine.left() + 4, secondLine.center().y());
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, onSecond);
    QVERIFY(!model.item(0).collapsed);
    QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, onSecond);
    QVERIFY(!model.item(0).collapsed);
    QCOMPARE(view.selectedText(), QStringLiteral("second"));
    const QModelIndex thought = model.index(0);
    const QRect text = view.chatDelegate()->documentRect(view.visualRect(thought), thought);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {},
                      QPoint(text.left() + 4, text.top() + view.fontMetrics().height() / 2));
    QVERIFY(model.item(0).collapsed);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, view.visualRect(model.index(0)).center());
    QVERIFY(!model.item(0).collapsed);
    view.setShowThinking(false);
    QVERIFY(view.isRowHidden(0));
    QVERIFY(!view.isRowHidden(1));
    model.appendReasoning(QStringLiteral("more"));
    model.flush();
    QVERIFY(view.isRowHidden(2));
    view.setShowThinking(true);
    QVERIFY(!view.isRowHidden(0));
    QVERIFY(!view.isRowHidden(2));
}

void TestChatView::followsOnlyWhenAtTheBottom()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(500, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int i = 0; i < 30; ++i)
        model.addLine(ChatItem::Kind::Status, QStringLiteral("line %1").arg(i));
    QTRY_VERIFY(view.verticalScrollBar()->maximum() > 0);
    QTRY_COMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
    view.verticalScrollBar()->setValue(0);
    QVERIFY(!view.isFollowing());
    const int maximumBefore = view.verticalScrollBar()->maximum();
    model.addLine(ChatItem::Kind::Status, QStringLiteral("new"));
    // Once the new row is laid out (the range grew), the view has not followed it.
    QTRY_VERIFY(view.verticalScrollBar()->maximum() > maximumBefore);
    QCOMPARE(view.verticalScrollBar()->value(), 0);
    view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum());
    model.addLine(ChatItem::Kind::Status, QStringLiteral("newer"));
    QTRY_COMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
}

// Found trying the window: while a tool loop added card after card, the chat area showed blank for a moment
// each time, and all the time when they came fast: QListView forgets its layout when a row goes in and lays
// out on a timer, so a paint before that timer drew no rows. A paint right after a row is added or removed
// shows the rows.
void TestChatView::aRowAddedNeverLeavesTheChatBlank()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(500, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int i = 0; i < 40; ++i)
        model.addLine(ChatItem::Kind::Status, QStringLiteral("line %1 of the tool loop").arg(i));
    QTRY_VERIFY(view.verticalScrollBar()->maximum() > 0); // laid out
    QTRY_COMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
    const QColor base = view.viewport()->palette().color(QPalette::Base);
    auto inkRows = [&] { // the pixel rows of the viewport that are not all background
        const QImage shot = view.viewport()->grab().toImage();
        int rows = 0;
        for (int y = 0; y < shot.height(); ++y) {
            for (int x = 0; x < shot.width(); ++x) {
                if (shot.pixelColor(x, y) != base) {
                    ++rows;
                    break;
                }
            }
        }
        return rows;
    };
    QVERIFY(inkRows() > 50);
    for (int i = 0; i < 20; ++i) {
        model.addLine(ChatItem::Kind::Status, QStringLiteral("new line %1").arg(i));
        // The grab paints now, before the event loop runs again.
        QVERIFY2(inkRows() > 50, qPrintable(QStringLiteral("blank after row %1 went in").arg(i)));
    }
    model.removeRowsFrom(model.rowCount() - 3);
    QVERIFY(inkRows() > 50);
    model.clear();
    model.addUserMessage(QStringLiteral("after a clear"));
    QVERIFY(inkRows() > 5);
}

// Found trying the window: PageDown stopped above a reply many screens tall and Ctrl+End showed the top of
// the last row. Paging, Home/End and the arrows inside a tall row scroll like a document.
void TestChatView::keysPageThroughATallReply()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.addUserMessage(QStringLiteral("a long reply, please"));
    QString reply;
    for (int i = 1; i <= 300; ++i)
        reply += QStringLiteral("Paragraph %1 of the long reply.\n\n").arg(i);
    reply += QStringLiteral("END-OF-REPLY");
    model.appendText(reply);
    model.flush();
    model.addLine(ChatItem::Kind::Status, QStringLiteral("done"));
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(!view.chatDelegate()->isCatchingUp()); // rendered in steps: wait for all of it
    QTRY_VERIFY(view.visualRect(model.index(2)).top() == view.visualRect(model.index(1)).bottom() + 1);
    QVERIFY(bar->maximum() > 10 * view.viewport()->height()); // the reply is many screens tall
    view.setFocus();
    view.setCurrentIndex(model.index(0));

    QTest::keyClick(&view, Qt::Key_Home, Qt::ControlModifier);
    QCOMPARE(bar->value(), 0);
    // Every PageDown shows the next screen, into and through the reply, until its end.
    int presses = 0;
    int before = -1;
    while (bar->value() < bar->maximum() && presses < 100) {
        before = bar->value();
        QTest::keyClick(&view, Qt::Key_PageDown);
        QCOMPARE(bar->value(), qMin(before + bar->pageStep(), bar->maximum()));
        ++presses;
    }
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY2(presses > 10, qPrintable(QString::number(presses)));
    QTest::keyClick(&view, Qt::Key_PageUp);
    QCOMPARE(bar->value(), bar->maximum() - bar->pageStep());

    // Ctrl+End shows the very end of the conversation: the last row's bottom is on screen.
    QTest::keyClick(&view, Qt::Key_Home, Qt::ControlModifier);
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY(view.visualRect(model.index(model.rowCount() - 1)).bottom() <= view.viewport()->height());
    QVERIFY(view.isFollowing());

    // In a row taller than the screen the arrows scroll a line at a time before they move to the next row.
    bar->setValue(bar->maximum() / 2);
    const int middle = bar->value();
    const QModelIndex replyRow = view.indexAt(QPoint(10, view.viewport()->height() / 2));
    QVERIFY(view.visualRect(replyRow).top() < 0 &&
            view.visualRect(replyRow).bottom() > view.viewport()->height());
    view.selectionModel()->setCurrentIndex(replyRow, QItemSelectionModel::NoUpdate);
    QCOMPARE(bar->value(), middle);
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(bar->value(), middle + bar->singleStep());
    QTest::keyClick(&view, Qt::Key_Up);
    QTest::keyClick(&view, Qt::Key_Up);
    QCOMPARE(bar->value(), middle - bar->singleStep());
    QCOMPARE(view.currentIndex(), replyRow);
    // At the reply's end, Down goes on to the row after it.
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(view.currentIndex(), model.index(model.rowCount() - 1));

    // A click into the middle of the long reply leaves the view where it is (it jumped to the reply's top).
    bar->setValue(bar->maximum() / 2);
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(50, view.viewport()->height() / 2));
    QCOMPARE(view.currentIndex(), replyRow);
    QCOMPARE(bar->value(), bar->maximum() / 2);
}

void TestChatView::ctrlCCopiesSelectionElseInterrupts()
{
    ChatModel model;
    ChatView view(&model);
    view.show();
    model.addUserMessage(QStringLiteral("copy me"));
    QSignalSpy interrupt(&view, &ChatView::interruptRequested);
    QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(interrupt.count(), 1);
    view.selectAll();
    QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(interrupt.count(), 1);
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("copy me"));
}

namespace {

void sendMouse(ChatView &view, QEvent::Type type, const QPoint &at, Qt::MouseButtons held)
{
    QMouseEvent event(type, QPointF(at), QPointF(view.viewport()->mapToGlobal(at)),
                      type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton, held, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &event);
}

// A person's drag with the left button: press, a few moves on the way, release.
void drag(ChatView &view, const QPoint &from, const QPoint &to)
{
    sendMouse(view, QEvent::MouseButtonPress, from, Qt::LeftButton);
    for (int step = 1; step <= 4; ++step)
        sendMouse(view, QEvent::MouseMove, from + (to - from) * step / 4, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, to, Qt::NoButton);
}

// The middle of the first line of text of a row, left edge plus the width of prefix.
QPoint firstLinePoint(ChatView &view, int row, const QString &prefix)
{
    const QModelIndex index = view.model()->index(row, 0);
    const QRect text = view.chatDelegate()->documentRect(view.visualRect(index), index);
    return {text.left() + 1 + view.fontMetrics().horizontalAdvance(prefix),
            text.top() + view.fontMetrics().height() / 2};
}

QString copiedWithCtrlC(ChatView &view)
{
    QApplication::clipboard()->clear();
    QTest::keyClick(&view, Qt::Key_C, Qt::ControlModifier);
    return QApplication::clipboard()->text();
}

const QString quickFox = QStringLiteral("The quick brown fox jumps over the lazy dog.");

// The line of row's text where needle first occurs, in viewport coordinates.
QRect lineOf(ChatView &view, int row, const QString &needle)
{
    const QModelIndex index = view.model()->index(row, 0);
    const auto found = view.chatDelegate()->findInRow(index, needle, 0);
    return found ? view.chatDelegate()->textLineRect(index, view.visualRect(index), found->first) : QRect();
}

// On the line where needle first occurs in row, the width of prefix into the row's text (left of the text of
// an indented line: its start).
QPoint pointOn(ChatView &view, int row, const QString &needle, const QString &prefix = QString())
{
    const QModelIndex index = view.model()->index(row, 0);
    const QRect text = view.chatDelegate()->documentRect(view.visualRect(index), index);
    return {text.left() + 1 + view.fontMetrics().horizontalAdvance(prefix),
            lineOf(view, row, needle).center().y()};
}

// Inside row, below the last line of its text: a drag that ends here takes in the rest of the row.
QPoint belowText(ChatView &view, int row)
{
    const QRect rect = view.visualRect(view.model()->index(row, 0));
    return {rect.center().x(), rect.bottom() - 1};
}

// A view showing markdown as a reply, laid out.
void showReply(ChatModel &model, ChatView &view, const QString &markdown)
{
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendText(markdown);
    model.flush();
    QTRY_VERIFY(view.visualRect(model.index(model.rowCount() - 1)).height() > 0);
}

const QString sizesTable = QStringLiteral("| Name | Size | Kind |\n|---|---|---|\n| a.txt | 12 | text |\n"
                                          "| b.md | 7 | markdown |\n");

} // namespace

// Found trying the window: only whole rows could be selected, so copying one sentence or one line of a
// long reply meant copying all of it. A drag selects text, shows it selected, and Ctrl+C copies just that.
void TestChatView::dragSelectsPartOfAReply()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendText(quickFox +
                     QStringLiteral("\n\n```\nint main() { return 0; }\n```\n\nAfter the code.\n"));
    model.flush();
    QTRY_VERIFY(view.visualRect(model.index(0)).height() > 0);
    const QImage before = view.viewport()->grab().toImage();
    const QColor highlight = view.palette().color(QPalette::Active, QPalette::Highlight);
    QSignalSpy interrupt(&view, &ChatView::interruptRequested);

    drag(view, firstLinePoint(view, 0, QString()),
         firstLinePoint(view, 0, QStringLiteral("The quick brown")));
    QVERIFY(view.hasSelectedText());
    const QString copied = copiedWithCtrlC(view);
    QVERIFY2(copied.startsWith(QStringLiteral("The quick brown")) && copied.size() < quickFox.size() &&
                 quickFox.startsWith(copied),
             qPrintable(copied));
    QCOMPARE(interrupt.count(), 0);
    // What is selected is drawn selected.
    QVERIFY(pixelsOf(view.viewport()->grab().toImage(), highlight) > pixelsOf(before, highlight) + 200);

    // A plain click ends it: the row is selected and copied whole, as before.
    QTest::mouseClick(view.viewport(), Qt::LeftButton, Qt::NoModifier,
                      firstLinePoint(view, 0, QStringLiteral("The")));
    QVERIFY(copiedWithCtrlC(view).contains(QStringLiteral("After the code.")));
}

void TestChatView::dragFromOneRowIntoTheNextCopiesBoth()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.addUserMessage(QStringLiteral("first question"));
    model.appendText(quickFox + QStringLiteral("\n\nSecond paragraph here.\n"));
    model.flush();
    QTRY_VERIFY(view.visualRect(model.index(1)).height() > 0);

    drag(view, firstLinePoint(view, 0, QString()), firstLinePoint(view, 1, QStringLiteral("The quick")));
    const QString copied = copiedWithCtrlC(view);
    QVERIFY2(copied.startsWith(QStringLiteral("first question\n\nThe quick")), qPrintable(copied));
    QVERIFY2(!copied.contains(QStringLiteral("Second paragraph")), qPrintable(copied));
    // Backwards, from the reply up into the question: the same text.
    drag(view, firstLinePoint(view, 1, QStringLiteral("The quick")), firstLinePoint(view, 0, QString()));
    QCOMPARE(copiedWithCtrlC(view), copied);
}

void TestChatView::doubleClickSelectsAWordAndATripleClickItsParagraph()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendText(quickFox + QStringLiteral("\n\nThe next paragraph.\n"));
    model.flush();
    QTRY_VERIFY(view.visualRect(model.index(0)).height() > 0);

    const QPoint onQuick = firstLinePoint(view, 0, QStringLiteral("The qu"));
    sendMouse(view, QEvent::MouseButtonPress, onQuick, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onQuick, Qt::NoButton);
    sendMouse(view, QEvent::MouseButtonDblClick, onQuick, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onQuick, Qt::NoButton);
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("quick"));
    // A third click at once: the whole paragraph, not the next one.
    sendMouse(view, QEvent::MouseButtonPress, onQuick, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onQuick, Qt::NoButton);
    QCOMPARE(copiedWithCtrlC(view), quickFox);
    // Esc lets it go: Ctrl+C then interrupts, as with nothing selected.
    QTest::keyClick(&view, Qt::Key_Escape);
    QVERIFY(!view.hasSelectedText());
}

void TestChatView::dragBelowTheViewScrollsAndSelectsOn()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QString reply;
    for (int i = 0; i < 200; ++i)
        reply += QStringLiteral("Paragraph %1 of a long reply.\n\n").arg(i);
    model.appendText(reply);
    model.flush();
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 2000);
    bar->setValue(0);

    const QPoint start = firstLinePoint(view, 0, QString());
    sendMouse(view, QEvent::MouseButtonPress, start, Qt::LeftButton);
    const QPoint below(start.x() + 40, view.viewport()->height() + 40);
    sendMouse(view, QEvent::MouseMove, start + QPoint(0, 20), Qt::LeftButton);
    sendMouse(view, QEvent::MouseMove, below, Qt::LeftButton);
    // The pointer rests below the view: it scrolls on by itself, the selection growing with it.
    QTRY_VERIFY(bar->value() > 1500);
    sendMouse(view, QEvent::MouseButtonRelease, below, Qt::NoButton);
    const QString copied = copiedWithCtrlC(view);
    QVERIFY2(copied.startsWith(QStringLiteral("Paragraph 0 of")), qPrintable(copied.left(80)));
    QVERIFY2(copied.count(QStringLiteral("Paragraph")) > 40, qPrintable(QString::number(copied.size())));
    QVERIFY(!copied.contains(QStringLiteral("Paragraph 199 ")));
}

// Found by a tester: a copied table came out one cell per line. It comes as a line per row, the cells
// separated by a tab, the header row too: what spreadsheets and browsers paste as a table.
void TestChatView::copyingAWholeTableGivesALinePerRowAndTabsBetweenCells()
{
    ChatModel model;
    ChatView view(&model);
    showReply(model, view, sizesTable + QStringLiteral("\nThat is all.\n"));
    // From the table on into the text after it: the whole table, as drawn.
    drag(view, pointOn(view, 0, QStringLiteral("Name")),
         pointOn(view, 0, QStringLiteral("That is all."), QStringLiteral("That")));
    QCOMPARE(copiedWithCtrlC(view),
             QStringLiteral("Name\tSize\tKind\na.txt\t12\ttext\nb.md\t7\tmarkdown\nThat"));
    // From the cell a drag starts in to the one it ends in: those cells, here all of them.
    drag(view, lineOf(view, 0, QStringLiteral("Name")).center(),
         lineOf(view, 0, QStringLiteral("markdown")).center());
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("Name\tSize\tKind\na.txt\t12\ttext\nb.md\t7\tmarkdown"));
}

// A drag inside a table selects the cells from the one it starts in to the one it ends in (as drawn): they
// are copied in the same shape, rows on lines, cells separated by tabs.
void TestChatView::copyingPartOfATableGivesTheSelectedCellsInTheirShape()
{
    ChatModel model;
    ChatView view(&model);
    showReply(model, view, QStringLiteral("Sizes:\n\n") + sizesTable);
    drag(view, lineOf(view, 0, QStringLiteral("12")).center(),
         lineOf(view, 0, QStringLiteral("markdown")).center());
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("12\ttext\n7\tmarkdown"));
    // Cells of a rectangle: from the header's last cell to the middle of the last row.
    drag(view, lineOf(view, 0, QStringLiteral("Kind")).center(),
         lineOf(view, 0, QStringLiteral("7")).center());
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("Size\tKind\n12\ttext\n7\tmarkdown"));
    // Within one cell, just the characters.
    QVERIFY(view.showMatch(0, QStringLiteral("mark"), 0));
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("mark"));
}

// Found by a tester: copied list items lost their numbers. They keep the numbers shown.
void TestChatView::copyingAnOrderedListKeepsItsNumbers()
{
    ChatModel model;
    ChatView view(&model);
    showReply(model, view, QStringLiteral("Steps:\n\n1. Build it\n2. Test it\n3. Ship it\n"));
    drag(view, pointOn(view, 0, QStringLiteral("Steps")), belowText(view, 0));
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("Steps:\n1. Build it\n2. Test it\n3. Ship it"));
    // From the start of an item on: the same items, their numbers as shown.
    drag(view, pointOn(view, 0, QStringLiteral("Test it")), belowText(view, 0));
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("2. Test it\n3. Ship it"));
    // Part of one item is its text alone, as a find match is.
    QVERIFY(view.showMatch(0, QStringLiteral("Ship"), 0));
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("Ship"));
}

// Found by a tester: copied bullets were lost. They come as "- ", a nested item indented under the text of
// the item it belongs to.
void TestChatView::copyingANestedBulletListKeepsBulletsAndIndents()
{
    ChatModel model;
    ChatView view(&model);
    showReply(model, view,
              QStringLiteral("- fruit\n  - apple\n  - pear\n    - conference\n- vegetables\n\n"
                             "1. first\n   - a detail\n2. second\n"));
    drag(view, pointOn(view, 0, QStringLiteral("fruit")), belowText(view, 0));
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("- fruit\n  - apple\n  - pear\n    - conference\n"
                                                   "- vegetables\n1. first\n   - a detail\n2. second"));
}

void TestChatView::aListAfterACodeBlockShowsAndCopiesItsOwnNumbers_data()
{
    QTest::addColumn<int>("chunk"); // characters per streamed flush; 0: the reply comes whole
    QTest::newRow("whole") << 0;
    QTest::newRow("streamed") << 4;
}

// Found on Debian 12 (Qt 6.4): an LLM's steps around a code block, "2. Configure" after an unindented fence
// (which ends the list before it, so it starts a list of its own at 2), read and copied as "1. Configure".
void TestChatView::aListAfterACodeBlockShowsAndCopiesItsOwnNumbers()
{
    QFETCH(int, chunk);
    const QString reply = QStringLiteral("Steps:\n\n1. Install\n\n```sh\napt install x\n```\n\n"
                                         "2. Configure the service\n3. Run it\n\n```sh\nx --run\n```\n\n"
                                         "4. Check the log\n");
    ChatModel model;
    ChatView view(&model);
    if (chunk == 0) {
        showReply(model, view, reply);
    } else {
        view.resize(700, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (qsizetype at = 0; at < reply.size(); at += chunk) {
            model.appendText(reply.mid(at, chunk));
            model.flush();
            view.viewport()->grab(); // painted as it grows: the rows are rendered incrementally
        }
        QTRY_VERIFY(view.visualRect(model.index(model.rowCount() - 1)).height() > 0);
        QCOMPARE(view.chatDelegate()->markdownCounters(model.index(0)).fullRenders, 0);
    }
    view.viewport()->grab();
    drag(view, pointOn(view, 0, QStringLiteral("Steps")), belowText(view, 0));
    QCOMPARE(copiedWithCtrlC(view),
             QStringLiteral("Steps:\n1. Install\napt install x\n2. Configure the service\n"
                            "3. Run it\nx --run\n4. Check the log"));
    drag(view, pointOn(view, 0, QStringLiteral("Configure")), belowText(view, 0));
    QCOMPARE(copiedWithCtrlC(view),
             QStringLiteral("2. Configure the service\n3. Run it\nx --run\n4. Check the log"));
}

// Found by a tester: a selection from a paragraph through a table into the next paragraph. Each part keeps
// its shape: the paragraphs' text, the table a line per row with tabs between cells (the whole table: a
// selection that goes through a table takes it all in, as drawn).
void TestChatView::copyingFromAParagraphThroughATableIntoTheNextKeepsEachShape()
{
    ChatModel model;
    ChatView view(&model);
    showReply(model, view,
              QStringLiteral("Before the table.\n\n") + sizesTable + QStringLiteral("\nAfter the table.\n"));
    drag(view, pointOn(view, 0, QStringLiteral("Before")),
         pointOn(view, 0, QStringLiteral("After"), QStringLiteral("After")));
    const QString copied = copiedWithCtrlC(view);
    const QString head =
        QStringLiteral("Before the table.\nName\tSize\tKind\na.txt\t12\ttext\nb.md\t7\tmarkdown\n");
    const QString tail = copied.mid(head.size()); // as far as the drag went into "After the table."
    QVERIFY2(copied.startsWith(head) && tail.size() >= 3 &&
                 QStringLiteral("After the table.").startsWith(tail),
             qPrintable(copied));
    // Backwards, the same text.
    drag(view, pointOn(view, 0, QStringLiteral("After"), QStringLiteral("After")),
         pointOn(view, 0, QStringLiteral("Before")));
    QCOMPARE(copiedWithCtrlC(view), copied);
    // Begun inside the table, down into the next paragraph: the table and the part of the paragraph.
    drag(view, lineOf(view, 0, QStringLiteral("12")).center(),
         pointOn(view, 0, QStringLiteral("After"), QStringLiteral("After")));
    const QString fromTable = copiedWithCtrlC(view);
    QVERIFY2(
        fromTable.startsWith(QStringLiteral("Name\tSize\tKind\na.txt\t12\ttext\nb.md\t7\tmarkdown\nAft")),
        qPrintable(fromTable));
}

// Found by a tester: a selection through a reply that starts with a table showed a thin highlighted sliver
// above the table. Qt gives a document that starts with a table an empty paragraph first and lays it out on
// the table's top border; selected, its line end was drawn in the gap above the table. Nothing selected is
// drawn between the text above (the question) and the table's top edge; the table and the text after it are.
void TestChatView::noSelectionIsDrawnAboveATable()
{
    ChatModel model;
    ChatView view(&model);
    model.addUserMessage(QStringLiteral("Which files?"));
    showReply(model, view, sizesTable + QStringLiteral("\nThat is all.\n"));
    const QColor highlight = view.palette().color(QPalette::Active, QPalette::Highlight);
    const QImage before = view.viewport()->grab().toImage();
    drag(view, firstLinePoint(view, 0, QString()),
         pointOn(view, 1, QStringLiteral("That is all."), QStringLiteral("That is")));
    QVERIFY(copiedWithCtrlC(view).startsWith(QStringLiteral("Which files?\n\nName\tSize")));
    const QImage image = view.viewport()->grab().toImage();

    const QModelIndex reply = model.index(1);
    const QRect text = view.chatDelegate()->documentRect(view.visualRect(reply), reply);
    // The table's top edge: its border, above the header cells' padding.
    const int tableTop = lineOf(view, 1, QStringLiteral("Name")).top() - 5;
    QVERIFY(tableTop > text.top());
    auto selectedPixels = [&](const QImage &shot, int top, int bottom) {
        int count = 0;
        for (int y = top; y < bottom; ++y) {
            for (int x = text.left(); x <= text.right(); ++x)
                count += (shot.pixel(x, y) & 0xffffff) == (highlight.rgb() & 0xffffff) ? 1 : 0;
        }
        return count;
    };
    // Within the reply's text column, from its top (the gap to the question above is the rows' margins) down
    // to the table's top edge.
    QCOMPARE(selectedPixels(image, text.top(), tableTop), 0);
    // The table and the text after it are drawn selected.
    QVERIFY(selectedPixels(image, tableTop, text.bottom()) >
            selectedPixels(before, tableTop, text.bottom()) + 200);
}

void TestChatView::everyMatchFoundIsShown_data()
{
    QTest::addColumn<QString>("needle");
    QTest::addColumn<int>("count");
    QTest::newRow("across emphasis") << QStringLiteral("bold and italic") << 2;
    QTest::newRow("marks are not text") << QStringLiteral("**bold**") << 0;
    QTest::newRow("a table pipe") << QStringLiteral("| a1") << 0;
    QTest::newRow("a heading's hashes") << QStringLiteral("## Section") << 0;
    QTest::newRow("a heading") << QStringLiteral("section 2") << 1;
    QTest::newRow("a cell") << QStringLiteral("a1") << 1;
    QTest::newRow("inline code") << QStringLiteral("x = 1") << 2;
    QTest::newRow("a link's text, not its target") << QStringLiteral("docs") << 1;
    QTest::newRow("a list item") << QStringLiteral("first item") << 1;
    QTest::newRow("brackets that are no link") << QStringLiteral("[1]") << 1;
}

// Found trying the window: Find counted in the Markdown source, so "bold and italic" (shown on screen) found
// nothing, while "**bold**" or "| a150" counted matches that could never be shown or highlighted.
void TestChatView::everyMatchFoundIsShown()
{
    QFETCH(QString, needle);
    QFETCH(int, count);
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendText(QStringLiteral("## Section 2\n\nSome **bold** and *italic* text, `x = 1` here, and a "
                                    "[docs](https://example.invalid/manual) link [1].\n\n"
                                    "| a1 | b1 |\n|---|---|\n| c1 | d1 |\n\n"
                                    "1. first item\n2. second\n\n> **bold** and _italic_\n\n"
                                    "```\nx = 1\n```\n"));
    model.flush();
    QTRY_VERIFY(view.visualRect(model.index(0)).height() > 0);
    const QList<ConversationSearch::Match> matches = ConversationSearch().find(model, needle, {});
    QCOMPARE(matches.size(), count);
    for (const ConversationSearch::Match &match : matches) {
        QVERIFY2(view.showMatch(match.row, needle, match.occurrence), qPrintable(needle));
        QCOMPARE(view.selectedText().toLower(), needle.toLower());
    }
}

// Find keeps each row's text from one search to the next, and makes it on a worker when the bar opens: a row
// that changed since (a reply streaming on, a card that finished, rows added or removed, a new conversation)
// is searched as it is now, never as it was.
void TestChatView::findKeepsUpWithEveryChange()
{
    ChatModel model;
    model.addUserMessage(QStringLiteral("Is the Größe right?"));
    model.appendText(QStringLiteral("The **parser** reads"));
    model.flush();
    ConversationSearch search;
    search.prepare(model); // the bar opens; the worker starts from the rows as they are now
    model.appendText(QStringLiteral(" the parser's input")); // and the reply goes on meanwhile, in its row
    model.flush();
    ToolCallInfo call;
    call.callId = QStringLiteral("c1");
    call.name = QStringLiteral("bash");
    call.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("make parser")}};
    model.toolStarted(call);
    auto count = [&](const QString &needle) { return search.find(model, needle, {}).size(); };
    QCOMPARE(count(QStringLiteral("PARSER")), 3); // the reply as it is now, and the card's command
    QCOMPARE(count(QStringLiteral("GRÖSSE")), 0); // simple case folding, as QString's: ß is not "ss"
    QCOMPARE(count(QStringLiteral("gRÖße")), 1);
    QCOMPARE(count(QStringLiteral("**parser**")), 0);

    call.output = QJsonObject{{QStringLiteral("stdout"), QStringLiteral("parser built\n")},
                              {QStringLiteral("exit_code"), 0}};
    model.toolFinished(call);
    model.appendText(QStringLiteral("\n\nThe parser is fixed."));
    model.flush();
    const int rows = model.rowCount();
    QCOMPARE(count(QStringLiteral("parser")), 5); // and the card's output, and the new paragraph
    QCOMPARE(count(QStringLiteral("parser built")), 1);

    model.removeRowsFrom(rows - 1);
    model.flush();
    QCOMPARE(count(QStringLiteral("is fixed")), 0);
    model.clear();
    model.addUserMessage(QStringLiteral("A new conversation"));
    QCOMPARE(count(QStringLiteral("parser")), 0);
    QCOMPARE(count(QStringLiteral("new conversation")), 1);
    search.clear();
    QCOMPARE(count(QStringLiteral("new conversation")), 1);
}

// Found trying the window on a 10,000-event session: a match far up was scrolled to while the rows around it
// still had estimated heights; painting measured them (a reply above came out 440 px shorter) and the match
// slid out of view. Now the row under the middle of the view keeps its place while rows are measured.
void TestChatView::aFoundMatchFarUpStaysInView()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    addQuestionsWithMixedReplies(model, 400);
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    bar->setValue(bar->maximum());
    QCoreApplication::processEvents();
    const int row = 200;
    QVERIFY(view.showMatch(row, QStringLiteral("Question"), 0));
    const int shownAt = view.visualRect(model.index(row)).top();
    QVERIFY(shownAt >= 0 && shownAt < view.viewport()->height());
    int measured = 0;
    for (int round = 0; round < 10; ++round) {
        const int estimatedAbove = view.visualRect(model.index(row - 1)).height();
        view.viewport()->repaint(); // the rows on screen are measured
        QCoreApplication::processEvents();
        measured += view.visualRect(model.index(row - 1)).height() != estimatedAbove ? 1 : 0;
        QCOMPARE(view.visualRect(model.index(row)).top(), shownAt);
    }
    QCOMPARE(measured, 1); // the reply above the match did change height: the test shows what it claims
    QCOMPARE(view.selectedText(), QStringLiteral("Question"));
}

// Found when tried: narrowing the window (or showing the sidebar) while reading the middle of a long reply
// kept the reply's top where it was and rewrapped the text under it, so the paragraph read was far away.
// The paragraph at the top of the view stays at the top through narrower and wider widths.
void TestChatView::theLineReadStaysOnTopWhenTheWidthChanges()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.addUserMessage(QStringLiteral("explain every step"));
    QString reply;
    for (int i = 0; i < 600; ++i)
        reply += QStringLiteral("Paragraph %1 explains one step of the build in words long enough to wrap "
                                "onto a second line when the window is narrow.\n\n")
                     .arg(i);
    model.appendText(reply);
    model.flush();
    model.addUserMessage(QStringLiteral("thanks"));
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!view.chatDelegate()->isCatchingUp(), 10000); // the streamed text all shown
    int row = 0;
    while (row < model.rowCount() && !model.item(row).text.contains(QStringLiteral("Paragraph 400 ")))
        ++row; // a long reply is shown in rows of some paragraphs each
    QVERIFY(view.showMatch(row, QStringLiteral("Paragraph 400 "), 0));
    QTRY_VERIFY_WITH_TIMEOUT(test::viewHasSettled(view, model), 10000); // the rows around the match measured

    const auto paragraphOnTop = [&view, &model] {
        const QModelIndex top = view.indexAt(QPoint(view.viewport()->width() / 2, 0));
        if (model.item(top.row()).kind != ChatItem::Kind::AssistantText)
            return QStringLiteral("row %1 on top").arg(top.row());
        const int position = view.chatDelegate()->textPositionAt(top, view.visualRect(top), QPoint(40, 0));
        const auto [from, to] = view.chatDelegate()->blockAround(top, position);
        return view.chatDelegate()->textBetween(top, from, from + 14);
    };
    const QString before = paragraphOnTop();
    QVERIFY2(before.startsWith(QStringLiteral("Paragraph 3")), qPrintable(before));
    for (const int width : {500, 360, 1200, 900}) {
        view.resize(width, 500);
        QTRY_VERIFY_WITH_TIMEOUT(test::viewHasSettled(view, model), 10000); // laid out again at the new width
        const QString after = paragraphOnTop();
        QVERIFY2(after == before, qPrintable(QStringLiteral("%1 px wide: %2").arg(width).arg(after)));
    }
}

// Scrolling up a long conversation brings rows on screen whose heights were estimates; measuring them used to
// shift everything below, so the text being read jumped by hundreds of pixels instead of the scroll step.
void TestChatView::scrollingUpIntoUnmeasuredRowsMovesTheTextByTheStep()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    addQuestionsWithMixedReplies(model, 200);
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    bar->setValue(bar->maximum());
    view.viewport()->repaint();
    QCoreApplication::processEvents();
    const int step = 3 * bar->singleStep();
    int measuredOnTheWay = 0;
    for (int i = 0; i < 200; ++i) {
        const QModelIndex read = view.indexAt(view.viewport()->rect().center());
        const int top = view.visualRect(read).top();
        const int heightsBefore = bar->maximum();
        bar->setValue(bar->value() - step); // a wheel notch
        view.viewport()->repaint();
        QCoreApplication::processEvents();
        measuredOnTheWay += bar->maximum() != heightsBefore ? 1 : 0;
        QCOMPARE(view.visualRect(read).top(), top + step);
    }
    QVERIFY2(measuredOnTheWay > 3, qPrintable(QString::number(measuredOnTheWay))); // rows were measured
}

void TestChatView::questionCardAnswersWithTheChosenOptions()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QSignalSpy answered(&view, &ChatView::questionAnswered);
    const QJsonObject questions{
        {QStringLiteral("questions"),
         QJsonArray{QJsonObject{{QStringLiteral("question"), QStringLiteral("Which database?")},
                                {QStringLiteral("options"),
                                 QJsonArray{QStringLiteral("SQLite"), QStringLiteral("Postgres")}}}}}};
    model.addQuestion(11, UserQuestion::listFrom(questions));
    auto *choice = view.findChild<QComboBox *>(QStringLiteral("questionChoice1"));
    QVERIFY(choice);
    // Found when tried: the question was listed above the form and again beside its answer box. A question
    // the form shows whole is written once, in the form.
    QCOMPARE(view.chatDelegate()->shownText(model.index(0)).trimmed(), QStringLiteral("The agent asks:"));
    QCOMPARE(view.findChild<ElidingLabel *>(QStringLiteral("questionLabel1"))->text(),
             QStringLiteral("Which database?"));
    // Found when tried: a line's gap between "The agent asks:" and the form. The form follows the heading
    // as a paragraph follows another.
    QTRY_VERIFY(choice->isVisible());
    const QRect heading =
        view.chatDelegate()->textLineRect(model.index(0), view.visualRect(model.index(0)), 0);
    const int formTop = choice->mapTo(view.viewport(), QPoint(0, 0)).y();
    QVERIFY2(formTop > heading.bottom() && formTop - heading.bottom() < view.fontMetrics().lineSpacing(),
             qPrintable(
                 QStringLiteral("heading ends at %1, form starts at %2").arg(heading.bottom()).arg(formTop)));
    QVERIFY(view.indexWidget(model.index(0))->geometry().bottom() <=
            view.visualRect(model.index(0)).bottom());
    QCOMPARE(choice->currentText(), QStringLiteral("SQLite")); // the recommendation is preselected
    choice->setCurrentIndex(1);
    QTest::mouseClick(view.findChild<QPushButton *>(QStringLiteral("questionSubmitButton")), Qt::LeftButton);
    QCOMPARE(answered.count(), 1);
    QCOMPARE(answered.at(0).at(0).toULongLong(), quint64(11));
    const UserAnswer answer = answered.at(0).at(1).value<UserAnswer>();
    QCOMPARE(answer.answers, QStringList{QStringLiteral("Postgres")});
    QCOMPARE(answer.cancelled, false);

    // Found when tried: two questions listed above "Answer 1:" and "Answer 2:" left the person to count.
    // Each answer box sits beside its question, on the same line; a long question is elided there.
    const QString longQuestion =
        QStringLiteral("Should the importer also rewrite the old CSV files it finds in "
                       "the archive folder, or leave them as they are for now?");
    model.addQuestion(
        12,
        UserQuestion::listFrom(QJsonObject{
            {QStringLiteral("questions"),
             QJsonArray{QJsonObject{{QStringLiteral("question"), QStringLiteral("Which database?")},
                                    {QStringLiteral("options"),
                                     QJsonArray{QStringLiteral("SQLite"), QStringLiteral("Postgres")}}},
                        QJsonObject{{QStringLiteral("question"), longQuestion},
                                    {QStringLiteral("options"),
                                     QJsonArray{QStringLiteral("Rewrite"), QStringLiteral("Leave")}}}}}}));
    QWidget *card = view.indexWidget(model.index(1));
    QVERIFY(card);
    auto *first = card->findChild<ElidingLabel *>(QStringLiteral("questionLabel1"));
    auto *second = card->findChild<ElidingLabel *>(QStringLiteral("questionLabel2"));
    auto *secondChoice = card->findChild<QComboBox *>(QStringLiteral("questionChoice2"));
    QVERIFY(first && second && secondChoice);
    QCOMPARE(first->text(), QStringLiteral("Which database?"));
    QCOMPARE(second->text(), longQuestion);
    QTRY_VERIFY(second->isVisible() && card->width() <= view.viewport()->width()); // placed on its row
    QVERIFY(qAbs(second->geometry().center().y() - secondChoice->geometry().center().y()) < 6);
    QVERIFY(second->geometry().right() < secondChoice->geometry().left());
    QVERIFY2(second->isElided(),
             qPrintable(QStringLiteral("label %1 px of %2, card %3, answer at %4..%5")
                            .arg(second->width())
                            .arg(second->fontMetrics().horizontalAdvance(longQuestion))
                            .arg(card->width())
                            .arg(secondChoice->geometry().left())
                            .arg(secondChoice->geometry().right()))); // wider than its room
    QCOMPARE(secondChoice->currentText(), QStringLiteral("Rewrite"));
    // The long one is also listed whole above the form, since its label cannot hold it.
    QVERIFY(view.chatDelegate()->shownText(model.index(1)).contains(longQuestion));

    // Answered, the card says which answer went to which question.
    model.settleQuestion(12, QStringLiteral("Postgres; Leave"),
                         {QStringLiteral("Postgres"), QStringLiteral("Leave")});
    const QString settled = view.chatDelegate()->shownText(model.index(1));
    QVERIFY2(settled.contains(QStringLiteral("Which database? Postgres")), qPrintable(settled));
    QVERIFY2(settled.contains(longQuestion + QStringLiteral(" Leave")), qPrintable(settled));
    // A cancelled one says so.
    model.addQuestion(13, model.item(1).questions);
    model.settleQuestion(13, QStringLiteral("Cancelled"));
    QVERIFY(view.chatDelegate()->shownText(model.index(2)).endsWith(QStringLiteral("Cancelled")));
}

void TestChatView::aPastedLogShowsToItsLastLine_data()
{
    QTest::addColumn<int>("lines");
    QTest::newRow("200 lines") << 200;
    QTest::newRow("3,000 lines") << 3000;
    QTest::newRow("100,000 lines") << 100000;
}

// Found when tried: a log of 10,000 lines pasted as a message showed its start, but from some way down its
// row was blank (neither its text nor its card) to the end. Scrolled to the end of the conversation, the
// message's card and its last lines are painted.
void TestChatView::aPastedLogShowsToItsLastLine()
{
    QFETCH(int, lines);
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QString log;
    for (int i = 0; i < lines; ++i)
        log += QStringLiteral("line %1: some pasted log output\n").arg(i);
    model.addUserMessage(log);
    model.addLine(ChatItem::Kind::Status, QStringLiteral("done"));
    QTRY_VERIFY(!view.chatDelegate()->isCatchingUp());
    // Folded at first (aLongMessageIsFoldedUntilShown); shown whole, all of it is there.
    const QRect toggle = lineOf(view, 0, QStringLiteral("Show all"));
    QVERIFY(toggle.isValid());
    sendMouse(view, QEvent::MouseButtonPress, toggle.center(), Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, toggle.center(), Qt::NoButton);
    QVERIFY(!model.item(0).collapsed);
    QTRY_VERIFY(!view.chatDelegate()->isCatchingUp());
    view.setFocus();
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);
    QScrollBar *bar = view.verticalScrollBar();
    QCOMPARE(bar->value(), bar->maximum());
    const QRect userRow = view.visualRect(model.index(0));
    QVERIFY2(userRow.bottom() > view.viewport()->height() / 2, "the message's end is on screen");
    const QImage image = view.viewport()->grab().toImage();
    const QColor card = view.palette().color(QPalette::AlternateBase);
    // Above the message's end: its card fills most of a line's width, and text is drawn on it.
    const QImage above = image.copy(0, 0, image.width(), qMin(userRow.bottom(), image.height()) - 10);
    QVERIFY2(pixelsOf(above, card) > above.width() * above.height() / 3,
             qPrintable(QStringLiteral("%1 card pixels of %2")
                            .arg(pixelsOf(above, card))
                            .arg(above.width() * above.height())));
    int dark = 0;
    for (int y = 0; y < above.height(); ++y) {
        for (int x = 0; x < above.width(); ++x)
            dark += qGray(above.pixel(x, y)) < 100 ? 1 : 0;
    }
    QVERIFY2(dark > 500, qPrintable(QStringLiteral("%1 dark pixels").arg(dark)));
    // And a double click on its last line selects a word of that line.
    const QRect lastLine = lineOf(view, 0, QStringLiteral("line %1:").arg(lines - 1));
    QVERIFY2(lastLine.top() > 0 && lastLine.bottom() < userRow.bottom(),
             "the last line is laid out on screen");
    const QPoint onLastLine(lastLine.left() + 5, lastLine.center().y());
    sendMouse(view, QEvent::MouseButtonPress, onLastLine, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onLastLine, Qt::NoButton);
    sendMouse(view, QEvent::MouseButtonDblClick, onLastLine, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onLastLine, Qt::NoButton);
    QCOMPARE(copiedWithCtrlC(view), QStringLiteral("line"));
}

// Seen when tried: a pasted log of 10,000 lines filled the conversation with the log (a scroll of 150,000
// pixels past it to the reply), and a session whose message was a 100,000-line log kept the window busy
// for one to three seconds while it laid the message out. A long message shows its first 20 lines and a
// line to show all of it; a click on that line opens it, and on "Show less" folds it again. A click in its
// text does not. Copy, Find and what was sent keep the whole message.
void TestChatView::aLongMessageIsFoldedUntilShown()
{
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QString log;
    for (int i = 0; i < 100000; ++i)
        log += QStringLiteral("line %1: some pasted log output\n").arg(i);
    model.addUserMessage(log);
    model.addUserMessage(QStringLiteral("twenty\nfive\nlines\n").repeated(8)); // 25 lines: shown whole
    model.addLine(ChatItem::Kind::Status, QStringLiteral("done"));
    QTRY_VERIFY(!view.chatDelegate()->isCatchingUp());
    const QModelIndex message = model.index(0);
    QString shown = view.chatDelegate()->shownText(message);
    QVERIFY(shown.startsWith(QStringLiteral("line 0: some pasted log output\n")));
    QVERIFY(shown.contains(QStringLiteral("line 19: ")));
    QVERIFY(!shown.contains(QStringLiteral("line 20: ")));
    QVERIFY2(shown.contains(QStringLiteral("Show all 100,000 lines (")), qPrintable(shown.right(80)));
    QVERIFY2(view.visualRect(message).height() < 30 * view.fontMetrics().lineSpacing(),
             qPrintable(QString::number(view.visualRect(message).height())));
    QVERIFY(!view.chatDelegate()->shownText(model.index(1)).contains(QStringLiteral("Show all")));
    QVERIFY(view.visualRect(model.index(2)).top() < view.viewport()->height()); // the next rows are in sight

    // A click into the text selects, it does not open the message; the pointer says where a click does.
    const QPoint inText = lineOf(view, 0, QStringLiteral("line 5:")).center();
    sendMouse(view, QEvent::MouseButtonPress, inText, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, inText, Qt::NoButton);
    QVERIFY(model.item(0).collapsed);
    sendMouse(view, QEvent::MouseMove, inText, Qt::NoButton);
    QCOMPARE(view.viewport()->cursor().shape(), Qt::IBeamCursor);
    const QPoint onToggle = lineOf(view, 0, QStringLiteral("Show all")).center();
    sendMouse(view, QEvent::MouseMove, onToggle, Qt::NoButton);
    QCOMPARE(view.viewport()->cursor().shape(), Qt::PointingHandCursor);

    // A selection from its lines into the next message copies the lines shown, not the toggle line.
    drag(view, lineOf(view, 0, QStringLiteral("line 18:")).topLeft() + QPoint(1, 2),
         firstLinePoint(view, 1, QStringLiteral("twenty")));
    const QString copied = copiedWithCtrlC(view);
    QVERIFY2(copied.startsWith(QStringLiteral("line 18: some pasted log output\nline 19: some pasted log "
                                              "output\n\ntwenty")),
             qPrintable(copied));
    QVERIFY2(!copied.contains(QStringLiteral("Show all")), qPrintable(copied));
    QVERIFY(model.item(0).collapsed);

    // Copy Message copies all of it.
    const std::unique_ptr<QMenu> menu = view.contextMenuFor(inText);
    QVERIFY(menu);
    QAction *copyMessage = nullptr;
    for (QAction *action : menu->actions()) {
        if (action->text().remove(QLatin1Char('&')) == QStringLiteral("Copy Message"))
            copyMessage = action;
    }
    QVERIFY(copyMessage);
    copyMessage->trigger();
    QCOMPARE(QApplication::clipboard()->text(), log);

    sendMouse(view, QEvent::MouseButtonPress, onToggle, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onToggle, Qt::NoButton);
    QVERIFY(!model.item(0).collapsed);
    shown = view.chatDelegate()->shownText(message);
    QVERIFY(shown.contains(QStringLiteral("line 99999: some pasted log output")));
    QVERIFY(shown.endsWith(QStringLiteral("Show less")) || shown.contains(QStringLiteral("▾ Show less")));
    const QRect showLess = lineOf(view, 0, QStringLiteral("Show less"));
    QVERIFY(showLess.isValid());
    view.scrollTo(message, QAbstractItemView::PositionAtBottom);
    const QRect showLessNow = lineOf(view, 0, QStringLiteral("Show less"));
    sendMouse(view, QEvent::MouseButtonPress, showLessNow.center(), Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, showLessNow.center(), Qt::NoButton);
    QVERIFY(model.item(0).collapsed);
    QVERIFY(!view.chatDelegate()->shownText(message).contains(QStringLiteral("line 20: ")));

    // From the keyboard: Enter on the message's row opens it, Space folds it again.
    view.setFocus();
    view.setCurrentIndex(message);
    QTest::keyClick(&view, Qt::Key_Return);
    QVERIFY(!model.item(0).collapsed);
    QTest::keyClick(&view, Qt::Key_Space);
    QVERIFY(model.item(0).collapsed);

    // Find: a match in the folded part opens the message and is shown.
    QVERIFY(view.showMatch(0, QStringLiteral("line 54321:"), 0));
    QVERIFY(!model.item(0).collapsed);
    const QRect match = lineOf(view, 0, QStringLiteral("line 54321:"));
    QVERIFY2(match.top() >= 0 && match.bottom() <= view.viewport()->height(),
             qPrintable(QStringLiteral("%1..%2").arg(match.top()).arg(match.bottom())));
}

// Found when tried: a link in a reply ("[the release notes](https://...)") was text only: no pointer, no way
// to open it but to select and paste its words. A click opens it in the browser; the pointer shows it; a drag
// from it selects text instead; a model's file: link is not opened; its menu copies the address.
void TestChatView::aClickOnALinkOpensItInTheBrowser()
{
    LinkCatcher browser;
    for (const char *scheme : {"https", "file"})
        QDesktopServices::setUrlHandler(QString::fromLatin1(scheme), &browser, "open");
    const auto restore = qScopeGuard([] {
        QDesktopServices::unsetUrlHandler(QStringLiteral("https"));
        QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
    });
    ChatModel model;
    ChatView view(&model);
    view.resize(700, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendText(
        QStringLiteral("Read [the release notes](https://example.com/notes) or [run](file:///tmp/x.sh).\n"));
    model.flush();
    QTRY_VERIFY(view.visualRect(model.index(0)).height() > 0);
    const QPoint onLink = firstLinePoint(view, 0, QStringLiteral("Read the rel"));
    const QPoint onText = firstLinePoint(view, 0, QStringLiteral("Re"));
    const QPoint onFileLink = firstLinePoint(view, 0, QStringLiteral("Read the release notes or r"));

    sendMouse(view, QEvent::MouseMove, onText, Qt::NoButton);
    QCOMPARE(view.viewport()->cursor().shape(), Qt::IBeamCursor);
    sendMouse(view, QEvent::MouseMove, onLink, Qt::NoButton);
    QCOMPARE(view.viewport()->cursor().shape(), Qt::PointingHandCursor);

    sendMouse(view, QEvent::MouseButtonPress, onLink, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onLink, Qt::NoButton);
    QCOMPARE(browser.opened, QList<QUrl>{QUrl(QStringLiteral("https://example.com/notes"))});

    sendMouse(view, QEvent::MouseButtonPress, onFileLink, Qt::LeftButton);
    sendMouse(view, QEvent::MouseButtonRelease, onFileLink, Qt::NoButton);
    QCOMPARE(browser.opened.size(), 1); // not handed to the desktop

    drag(view, onLink, onLink + QPoint(60, 0));
    QCOMPARE(browser.opened.size(), 1);
    QVERIFY(view.hasSelectedText());

    const std::unique_ptr<QMenu> menu = view.contextMenuFor(onLink);
    auto *copy = menu->findChild<QAction *>(QStringLiteral("copyLinkAction"));
    QVERIFY(copy);
    copy->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("https://example.com/notes"));
    QVERIFY(!view.contextMenuFor(onText)->findChild<QAction *>(QStringLiteral("copyLinkAction")));
}

// Found when tried: a reply with "![diagram](/dev/zero)" grew the app by a gigabyte a second: Qt reads a
// Markdown image (or an <img>) from the local disk while laying the row out. Nothing is read: a local
// picture 3,000 pixels tall leaves its row a few lines high, and a FIFO would not block.
void TestChatView::aPictureInAReplyIsNeverReadFromDisk()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString picture = dir.filePath(QStringLiteral("tall.png"));
    QImage tall(40, 3000, QImage::Format_RGB32);
    tall.fill(Qt::red);
    QVERIFY(tall.save(picture));
    QCOMPARE(QImage(picture).height(), 3000);
    ChatModel model;
    ChatView view(&model);
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.appendText(QStringLiteral("Look: ![tall](%1), <img src=\"%2\">\n")
                         .arg(QUrl::fromLocalFile(picture).toString(), picture));
    model.flush();
    model.addLine(ChatItem::Kind::Info, QStringLiteral("![tall](%1)").arg(picture));
    QTRY_VERIFY(!view.chatDelegate()->isCatchingUp());
    view.viewport()->grab(); // painted: the rows are laid out, not estimated
    // and their laid-out heights reach the view
    QTRY_VERIFY_WITH_TIMEOUT(test::viewPlacesRowsAtTheirHeights(view, model), 10000);
    for (int row = 0; row < model.rowCount(); ++row) {
        const int height = view.visualRect(model.index(row)).height();
        QVERIFY2(height > 0 && height < 300,
                 qPrintable(QStringLiteral("row %1: %2 px").arg(row).arg(height)));
    }
    QVERIFY(view.chatDelegate()->shownText(model.index(0)).startsWith(QStringLiteral("Look: ")));
}

QTEST_MAIN(TestChatView)
#include "tst_chatview.moc"
