// The chat panel driven by a real AgentSession and a scripted provider: spinner text, key rules, the private
// summary, checkpoints, notifications and the prompt queue (seed rules S25-S33, S49-S55).
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/findbar.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"

#include "agent/agentsession.h"
#include "agent/usageledger.h"
#include "conversation/historyreplay.h"
#include "fakeoauthmcpserver.h"
#include "loop/compactionprompts.h"
#include "mcp/mcpoauthstore.h"
#include "scriptedllmclient.h"
#include "scriptedsession.h"
#include "session/sessionstore.h"
#include "session/sessionwriter.h"
#include "testenvironment.h"
#include "tools/permissionpolicy.h"
#include "workloads.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QDeadlineTimer>
#include <QDesktopServices>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QLockFile>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTest>
#include <QThread>
#include <QThreadPool>
#include <QUrlQuery>

using namespace keen;
using test::ScriptedLlmClient;

namespace {
const QString kSecret = QStringLiteral("PRIVATE-SUMMARY-91c2 do not show");

// Every text a person could see: labels, buttons, editors, window titles, tooltips, and every role of every
// model row of every item view.
QString visibleTexts(QWidget *root)
{
    QString all;
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *widget : std::as_const(widgets)) {
        all += widget->windowTitle() + widget->toolTip() + widget->accessibleName() + QLatin1Char('\n');
        if (auto *label = qobject_cast<QLabel *>(widget))
            all += label->text() + QLatin1Char('\n');
        if (auto *button = qobject_cast<QAbstractButton *>(widget))
            all += button->text() + QLatin1Char('\n');
        if (auto *edit = qobject_cast<QPlainTextEdit *>(widget))
            all += edit->toPlainText() + QLatin1Char('\n');
        if (auto *line = qobject_cast<QLineEdit *>(widget))
            all += line->text() + QLatin1Char('\n');
        if (auto *view = qobject_cast<QAbstractItemView *>(widget); view && view->model()) {
            const QAbstractItemModel *model = view->model();
            const QList<int> roles = model->roleNames().keys();
            for (int row = 0; row < model->rowCount(); ++row) {
                for (int role : roles)
                    all += model->data(model->index(row, 0), role).toString() + QLatin1Char('\n');
            }
        }
    }
    return all;
}
} // namespace

// Stands in for the desktop's browser: QDesktopServices hands it the pages the app opens.
class PageCatcher : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> opened;

public Q_SLOTS:
    void open(const QUrl &url) { opened.append(url); }
};

class TestChatPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void turnStreamsIntoTheTranscript();
    void aSilentProviderIsNamedButARunningToolIsNot();
    void findInConversationGoesFromMatchToMatch();
    void pageKeysInTheInputScrollTheConversation();
    void aFailedTurnOffersToTryAgain();
    void ctrlCAndEscLetGoOfASelectionBeforeTheTurn();
    void ctrlCWithASelectionOutOfSightInterrupts();
    void findFollowsTheConversationAndOpensFoldedThoughts();
    void automaticCompactionSwapsSpinnerTextAndBack();
    void escDuringAutomaticCompactionCancelsOnlyTheChild();
    void stopDuringAutomaticCompactionInterruptsTheParent();
    void automaticCompactionCheckpointIsShownOnceAndSummaryNowhere();
    void overBudgetCompactionShowsHowItFit_data();
    void overBudgetCompactionShowsHowItFit();
    void slicedManualCompactionShowsHowItFit_data();
    void slicedManualCompactionShowsHowItFit();
    void undoCompactionFromItsRowAfterALaterTurn();
    void undoThatNoLongerFitsOffersToCompactAgain();
    void onlyTheLatestCompactionOffersUndo();
    void theLatestCompactionsRowOffersUndoAsALink();
    void manualCompactionStreamsSummaryAndReportsStatus();
    void manualCompactionIgnoresCtrlCAndEscCancelsIt();
    void manualCompactionStreamsInViewWhenScrolledUp();
    void escBeforeAnySummaryTextLeavesNoEmptyHeading();
    void manualCompactionShowsTheRefusedToolCard();
    void queuedPromptDrainsAfterCompaction();
    void queuedPromptDrainsAfterCompactionFails_S32();
    void queuedPromptDrainsAfterCompactionIsCancelled_S32();
    void queueIsLimitedAndCommandsCannotQueue();
    void escDeniesAPendingPermissionBeforeTheTurn();
    void eachPermissionCardIsRightBelowItsToolCard();
    void theAgentsQuestionIsAnsweredFromItsCard();
    void ctrlCCancelsTheAgentsQuestionThenStopsTheTurn();
    void nothingToCompactDoesNotStayForTheNextConversation();
    void aSessionInUseElsewhereSaysSoWhenItOpens();
    void allowAndResetPermissionCommandsEditTheProjectAllowList();
    void bangRunsACommandForThePersonOnly();
    void bangWhileBusyIsRefusedAndEscStopsIt();
    void memoryListsAndShowsTheMemoryFiles();
    void btwAnswersOnTheSideWhileATurnRuns();
    void usageSumsTheTokensOfEveryRequest();
    void usageThatCannotBeRecordedIsSaidInTheChat();
    void emptyqClearsTheQueueAndExitAsksToQuit();
    void skillsAreListedActivatedAndQueued();
    void adversaryReviewsTheConversationReadOnly();
    void subagentsAreListedAndDelegatedTasksShowOnTheirCard();
    void mcpServersAreListedAndTheirToolsCalled();
    void mcpConnectSignsInWithTheBrowser();
    void aSubagentsEffortIsKeptOnlyWhereTheModelOffersIt();
    void adversaryModelPicksTheReviewer();

private:
    void startPanel();
    void firstTurn(); // gives the history one exchange so /compact has something to summarize
    // After a manual compaction that did not apply (S32, S30): the prompt queued while it ran was sent on the
    // unchanged history, answered, and shown after what the compaction's end said.
    void checkQueuedPromptWentOutAfter(const MessageList &before, const QString &compactionEnd);
    // Compact with this summary and wait until it applied: the compaction_applied seq it can undo.
    quint64 compactWithSummary(const QString &summary);
    QString lastText() const;
    // Types text into the input (no completion popup left open) and presses Enter.
    void typeAndSend(const QString &text);

    std::unique_ptr<test::TestEnvironment> m_env;
    std::unique_ptr<AgentSession> m_session;
    std::shared_ptr<ScriptedLlmClient> m_client;
    std::unique_ptr<ChatPanel> m_panel;
};

void TestChatPanel::init()
{
    m_env = std::make_unique<test::TestEnvironment>();
    m_client = std::make_shared<ScriptedLlmClient>();
    m_session = test::makeScriptedSession(*m_env, m_client);
    startPanel();
}

void TestChatPanel::cleanup()
{
    if (m_session && m_session->isBusy()) {
        m_session->interrupt();
        QTRY_VERIFY(!m_session->isBusy());
    }
    m_panel.reset();
    m_session.reset();
    m_client.reset();
    m_env.reset();
}

void TestChatPanel::startPanel()
{
    m_panel = std::make_unique<ChatPanel>(m_session.get());
    m_panel->resize(800, 600);
    m_panel->show();
    m_panel->activateWindow();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    m_panel->input()->setFocus();
}

void TestChatPanel::firstTurn()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Hello there.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("hi"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Hello there.")));
    QTRY_VERIFY(!m_session->isBusy());
}

quint64 TestChatPanel::compactWithSummary(const QString &summary)
{
    m_client->addTurn({ScriptedLlmClient::chunk(summary), ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    if (!QTest::qWaitFor([this] { return !m_session->isBusy(); }))
        return 0;
    return m_session->undoableCompaction();
}

void TestChatPanel::typeAndSend(const QString &text)
{
    QTest::keyClicks(m_panel->input(), text);
    m_panel->input()->completer()->popup()->hide();
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
}

QString TestChatPanel::lastText() const
{
    const ChatModel *model = m_panel->model();
    return model->rowCount() ? model->item(model->rowCount() - 1).text : QString();
}

void TestChatPanel::turnStreamsIntoTheTranscript()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("| a | b |\n")),
                       ScriptedLlmClient::chunk(QStringLiteral("|---|---|\n| 1 | 2 |\n")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("table please"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_COMPARE(m_panel->model()->rowCount(), 2);
    QCOMPARE(m_panel->model()->item(0).text, QStringLiteral("table please"));
    QCOMPARE(m_panel->model()->item(1).text, QStringLiteral("| a | b |\n|---|---|\n| 1 | 2 |\n"));
    QVERIFY(!m_panel->spinner()->isRunning());
}

// Found trying the window: a stream that stalls waits five minutes per attempt, and meanwhile the spinner
// showed its rotating tips as if all were well. After a quiet spell it says the provider sends nothing and
// that Esc stops; a tool that runs long (or a card waiting for the person) is not the provider's silence.
void TestChatPanel::aSilentProviderIsNamedButARunningToolIsNot()
{
    ToolCallInfo call;
    call.callId = QStringLiteral("call_s");
    call.name = QStringLiteral("bash");
    call.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("make")}};
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Building.")),
                       ScriptedLlmClient::gate(QStringLiteral("stalled")),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, call)),
                       ScriptedLlmClient::gate(QStringLiteral("tool runs")),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, call)),
                       ScriptedLlmClient::gate(QStringLiteral("stalled again")),
                       ScriptedLlmClient::chunk(QStringLiteral(" Done.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    SpinnerLine *spinner = m_panel->spinner();
    spinner->setQuietNoticeAfter(300);
    const QString silent = QStringLiteral("No data from the provider for");
    QTest::keyClicks(m_panel->input(), QStringLiteral("build it"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Building.")));
    QTRY_VERIFY2(spinner->text().startsWith(silent), qPrintable(spinner->text()));
    QVERIFY(spinner->text().contains(QStringLiteral("Esc")));

    m_client->open(QStringLiteral("stalled"));
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("make")));
    QVERIFY(!spinner->text().startsWith(silent)); // the tool call arrived: not silent any more
    QTest::qWait(900);                            // three times the quiet spell, the tool still running
    QVERIFY2(!spinner->text().startsWith(silent), qPrintable(spinner->text()));

    m_client->open(QStringLiteral("tool runs"));
    QTRY_VERIFY2(spinner->text().startsWith(silent), qPrintable(spinner->text()));
    m_client->open(QStringLiteral("stalled again"));
    QTRY_VERIFY(!m_session->isBusy());
    QVERIFY(!spinner->isRunning());
    QVERIFY(spinner->text().isEmpty());
}

// A long conversation had no way to find where something was said: Ctrl+F opens a find bar, the match
// nearest to what is on screen is selected and scrolled to, Enter and Shift+Enter (F3, Shift+F3) go on and
// back, the count says where one is, Esc closes the bar and gives the input its focus back.
void TestChatPanel::findInConversationGoesFromMatchToMatch()
{
    QString reply;
    for (int i = 0; i < 120; ++i)
        reply += QStringLiteral("Paragraph %1 says nothing much.\n\n").arg(i);
    reply += QStringLiteral("Here the NEEDLE hides in the reply.\n\nAnd the end.\n");
    m_client->addTurn({ScriptedLlmClient::chunk(reply), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("where is the needle?"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("No needle here, only hay.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("and now?"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    ChatView *view = m_panel->view();
    QScrollBar *bar = view->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 1000);
    bar->setValue(0); // reading from the top

    QTest::keyClick(m_panel->input(), Qt::Key_F, Qt::ControlModifier);
    FindBar *find = m_panel->findBar();
    QVERIFY(find->isVisible());
    QVERIFY(find->lineEdit()->hasFocus());
    QTest::keyClicks(find->lineEdit(), QStringLiteral("needle"));
    // After the typing pause: three matches (the question, the long reply, the last reply), the first one
    // from the top of the view selected.
    QTRY_COMPARE(find->resultText(), QStringLiteral("1 of 3"));
    QCOMPARE(view->selectedText(), QStringLiteral("needle"));

    QTest::keyClick(find->lineEdit(), Qt::Key_Return);
    QCOMPARE(find->resultText(), QStringLiteral("2 of 3"));
    QCOMPARE(view->selectedText(), QStringLiteral("NEEDLE")); // as the reply wrote it
    // Scrolled far down to it, and its line is in view.
    QVERIFY(bar->value() > 1000);
    const QModelIndex row = m_panel->model()->index(1);
    const auto [from, to] = view->chatDelegate()->textSelection().rangeIn(1);
    QVERIFY(to > from);
    const QRect line = view->chatDelegate()->textLineRect(row, view->visualRect(row), from);
    QVERIFY2(view->viewport()->rect().contains(line),
             qPrintable(QStringLiteral("%1,%2").arg(line.top()).arg(line.bottom())));

    QTest::keyClick(find->lineEdit(), Qt::Key_F3);
    QCOMPARE(find->resultText(), QStringLiteral("3 of 3"));
    QCOMPARE(view->selectedText(), QStringLiteral("needle"));
    QTest::keyClick(find->lineEdit(), Qt::Key_Return);
    QCOMPARE(find->resultText(), QStringLiteral("1 of 3")); // round again
    QTest::keyClick(find->lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(find->resultText(), QStringLiteral("3 of 3"));

    find->lineEdit()->selectAll();
    QTest::keyClicks(find->lineEdit(), QStringLiteral("haystack"));
    QTRY_COMPARE(find->resultText(), QStringLiteral("No matches"));
    QVERIFY(!view->hasSelectedText());

    QTest::keyClick(find->lineEdit(), Qt::Key_Escape);
    QVERIFY(!find->isVisible());
    QVERIFY(m_panel->input()->hasFocus());
    QVERIFY(!m_session->isBusy()); // Esc in the bar closes the bar, nothing else

    // Found when tried: a bar left open stayed over the empty conversation of a New Session, with the old
    // session's count. A new session closes it.
    QTest::keyClick(m_panel->input(), Qt::Key_F, Qt::ControlModifier);
    QTest::keyClicks(find->lineEdit(), QStringLiteral("needle"));
    QTRY_VERIFY2(find->resultText().endsWith(QStringLiteral(" of 3")), qPrintable(find->resultText()));
    m_panel->newSession();
    QVERIFY(!find->isVisible());
    QVERIFY(m_panel->input()->hasFocus());
}

// Found trying the window: PageUp in the input did nothing, so reading back meant reaching for the mouse.
// PageUp and PageDown in the input scroll the conversation a page (as in chat apps and the reference's
// terminal interface), and the draft is untouched. A find bar a session search hit opened (the input keeps
// the focus) closes with Esc from the input.
void TestChatPanel::pageKeysInTheInputScrollTheConversation()
{
    QString reply;
    for (int i = 0; i < 120; ++i)
        reply += QStringLiteral("Paragraph %1 says nothing much.\n\n").arg(i);
    reply += QStringLiteral("Here the NEEDLE hides.\n");
    m_client->addTurn({ScriptedLlmClient::chunk(reply), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("a long answer please"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    QScrollBar *bar = m_panel->view()->verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 1000);
    // The reply is shown to its end (rendered in steps) and the view followed it there.
    QTRY_VERIFY(!m_panel->view()->chatDelegate()->isCatchingUp());
    QTRY_COMPARE(bar->value(), bar->maximum());

    QTest::keyClicks(m_panel->input(), QStringLiteral("draft"));
    const int bottom = bar->value();
    QTest::keyClick(m_panel->input(), Qt::Key_PageUp);
    QCOMPARE(bar->value(), bottom - bar->pageStep());
    QTest::keyClick(m_panel->input(), Qt::Key_PageUp);
    QCOMPARE(bar->value(), bottom - 2 * bar->pageStep());
    QTest::keyClick(m_panel->input(), Qt::Key_PageDown);
    QCOMPARE(bar->value(), bottom - bar->pageStep());
    QVERIFY(m_panel->input()->hasFocus());
    QCOMPARE(m_panel->input()->toPlainText(), QStringLiteral("draft"));

    // Words the conversation has apart: the longest of them is found.
    m_panel->showSearchHit(0, QStringLiteral("hides paragraph"));
    FindBar *find = m_panel->findBar();
    QVERIFY(find->isVisible());
    QCOMPARE(find->text(), QStringLiteral("paragraph"));
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QVERIFY(!find->isVisible());
    // Words it has as they were typed: those (tried as a user, "Host seen" found only "Host").
    m_panel->showSearchHit(0, QStringLiteral("the needle"));
    QVERIFY(find->isVisible());
    QCOMPARE(find->text(), QStringLiteral("the needle"));
    QCOMPARE(find->resultText(), QStringLiteral("1 of 1"));
    QVERIFY(m_panel->input()->hasFocus());
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QVERIFY(!find->isVisible());
    QCOMPARE(m_panel->input()->toPlainText(), QStringLiteral("draft"));
}

// Found when tried: after "the provider is overloaded (HTTP 500)" with every retry used, the error row was
// the end of the road; trying again meant knowing that Up recalls the prompt. The error a turn ends with
// offers "↻ Try again" (a click on it, or Enter on its row), which sends the same words; the offer goes
// once another turn starts. An incomplete turn (part of its work carried on) offers nothing, and says that
// its work goes along with the next message.
void TestChatPanel::aFailedTurnOffersToTryAgain()
{
    const QString failure = QStringLiteral("the provider is overloaded or failed (HTTP 500)");
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::failure(failure))});
    QTest::keyClicks(m_panel->input(), QStringLiteral("summarise the log"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    ChatModel *model = m_panel->model();
    ChatView *view = m_panel->view();
    const int errorRow = model->rowCount() - 1;
    QCOMPARE(model->item(errorRow).kind, ChatItem::Kind::Error);
    const QString shown = view->chatDelegate()->shownText(model->index(errorRow));
    QVERIFY2(shown.contains(failure) && shown.contains(QStringLiteral("↻ Try again")), qPrintable(shown));

    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Here is the summary.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    const QModelIndex index = model->index(errorRow);
    const int at = int(shown.indexOf(QStringLiteral("↻ Try again")));
    const QRect line = view->chatDelegate()->textLineRect(index, view->visualRect(index), at);
    const QPoint onLink(line.left() + 30, line.center().y());
    QTest::mouseMove(view->viewport(), onLink);
    QTRY_COMPARE(view->viewport()->cursor().shape(), Qt::PointingHandCursor);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, onLink);
    QTRY_VERIFY(model->plainText().contains(QStringLiteral("Here is the summary.")));
    QTRY_VERIFY(!m_session->isBusy());
    int asked = 0;
    for (int row = 0; row < model->rowCount(); ++row)
        asked += model->item(row).kind == ChatItem::Kind::User &&
                 model->item(row).text == QStringLiteral("summarise the log");
    QCOMPARE(asked, 2);
    QVERIFY(!view->chatDelegate()->shownText(model->index(errorRow)).contains(QStringLiteral("Try again")));
    QVERIFY(m_panel->input()->hasFocus());

    // Enter on the error's row takes the offer too.
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::failure(failure))});
    QTest::keyClicks(m_panel->input(), QStringLiteral("and the other log"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("The other one is fine.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    view->setFocus();
    view->setCurrentIndex(model->index(model->rowCount() - 1));
    QTest::keyClick(view, Qt::Key_Return);
    QTRY_VERIFY(model->plainText().contains(QStringLiteral("The other one is fine.")));
    QTRY_VERIFY(!m_session->isBusy());

    // An incomplete turn: no offer.
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::incomplete(failure))});
    QTest::keyClicks(m_panel->input(), QStringLiteral("a third"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(model->item(model->rowCount() - 1).kind, ChatItem::Kind::Error);
    QVERIFY(model->retryPrompt().isEmpty());
    QVERIFY(model->item(model->rowCount() - 1)
                .text.endsWith(QStringLiteral("(the work done so far goes along with your next message)")));
    QVERIFY(!view->chatDelegate()
                 ->shownText(model->index(model->rowCount() - 1))
                 .contains(QStringLiteral("Try")));
}

// Found trying the window: with a row of a running reply selected (or a found match highlighted) and the
// cursor in the input, Ctrl+C stopped the reply and copied nothing; Esc cleared the selection and stopped the
// turn at once. What is selected is copied (or let go) first; the next Ctrl+C or Esc reaches the turn.
void TestChatPanel::ctrlCAndEscLetGoOfASelectionBeforeTheTurn()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Working on it.")),
                       ScriptedLlmClient::gate(QStringLiteral("hold")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("go"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Working on it.")));
    ChatView *view = m_panel->view();
    const int replyRow = m_panel->model()->rowCount() - 1;
    QTRY_VERIFY(view->visualRect(m_panel->model()->index(replyRow)).height() > 0);

    // A click on the reply selects its row; the cursor goes back to the input; Ctrl+C there copies the row.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier,
                      view->visualRect(m_panel->model()->index(replyRow)).center());
    m_panel->input()->setFocus();
    QApplication::clipboard()->clear();
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("Working on it."));
    QVERIFY(m_session->isBusy());

    // In the conversation: the first Esc lets go of the selection, the turn runs on; the next one stops it.
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Escape);
    QVERIFY(!view->hasSelectedText());
    QVERIFY(m_session->isBusy());
    QTest::keyClick(view, Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isBusy());
}

// Found trying the window: a row selected long ago (a right click selects it), then scrolled out of sight,
// made Ctrl+C in the input copy it instead of stopping the turn, with nothing on screen to say so.
void TestChatPanel::ctrlCWithASelectionOutOfSightInterrupts()
{
    for (int i = 0; i < 60; ++i)
        m_panel->model()->addLine(ChatItem::Kind::Status, QStringLiteral("Earlier line %1").arg(i));
    ChatView *view = m_panel->view();
    QTRY_VERIFY(view->verticalScrollBar()->maximum() > 0);
    view->scrollToTop();
    QTRY_VERIFY(view->visualRect(m_panel->model()->index(0)).intersects(view->viewport()->rect()));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier,
                      view->visualRect(m_panel->model()->index(0)).center());
    QVERIFY(view->hasSelectedText());

    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Working on it.")),
                       ScriptedLlmClient::gate(QStringLiteral("hold")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->input()->setFocus();
    QTest::keyClicks(m_panel->input(), QStringLiteral("go"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Working on it.")));
    view->scrollToBottom();
    QTRY_VERIFY(!view->visualRect(m_panel->model()->index(0)).intersects(view->viewport()->rect()));
    QVERIFY(view->hasSelectedText());
    QApplication::clipboard()->clear();
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier);
    QTRY_VERIFY(!m_session->isBusy());
    QVERIFY(QApplication::clipboard()->text().isEmpty());
}

// Found trying the window: the count of an open find bar stayed as it was while a reply streamed in or
// another session opened, and the first Enter then skipped a match; a match in a folded thought was counted
// but never shown; a double-clicked word did not become the search.
void TestChatPanel::findFollowsTheConversationAndOpensFoldedThoughts()
{
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::reasoning(QStringLiteral("Maybe the gizmo is loose."))),
         ScriptedLlmClient::chunk(QStringLiteral("Checking the gizmo.")),
         ScriptedLlmClient::gate(QStringLiteral("more")),
         ScriptedLlmClient::chunk(QStringLiteral(" The gizmo is fine; another gizmo is not.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("look"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Checking the gizmo.")));
    int thought = -1;
    for (int row = 0; row < m_panel->model()->rowCount(); ++row) {
        if (m_panel->model()->item(row).kind == ChatItem::Kind::Reasoning)
            thought = row;
    }
    QVERIFY(thought >= 0);
    QVERIFY(m_panel->model()->item(thought).collapsed);

    FindBar *find = m_panel->findBar();
    m_panel->findInConversation();
    QTest::keyClicks(find->lineEdit(), QStringLiteral("gizmo"));
    QTRY_COMPARE(find->resultText(), QStringLiteral("1 of 2"));
    // The thought comes first: it opens, and its word is what is selected.
    QVERIFY(!m_panel->model()->item(thought).collapsed);
    QCOMPARE(m_panel->view()->selectedText(), QStringLiteral("gizmo"));

    m_client->open(QStringLiteral("more")); // two more in the reply, while the bar is open
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_COMPARE(find->resultText(), QStringLiteral("1 of 4"));
    QTest::keyClick(find->lineEdit(), Qt::Key_Return);
    QCOMPARE(find->resultText(), QStringLiteral("2 of 4"));

    // A double-clicked word is what Ctrl+F then looks for.
    QTest::keyClick(find->lineEdit(), Qt::Key_Escape);
    ChatView *view = m_panel->view();
    const QModelIndex question = m_panel->model()->index(0);
    QCOMPARE(m_panel->model()->item(0).text, QStringLiteral("look"));
    const QRect text = view->chatDelegate()->documentRect(view->visualRect(question), question);
    const QPoint onLook(text.left() + 3, text.top() + view->fontMetrics().height() / 2);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, onLook);
    QCOMPARE(view->selectedText(), QStringLiteral("look"));
    QTest::keyClick(view, Qt::Key_F, Qt::ControlModifier);
    QVERIFY(find->isVisible());
    QCOMPARE(find->text(), QStringLiteral("look"));
    QTRY_COMPARE(find->resultText(), QStringLiteral("1 of 1"));
}

// proves S49, S52
void TestChatPanel::automaticCompactionSwapsSpinnerTextAndBack()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Working.")),
         ScriptedLlmClient::gate(QStringLiteral("before")),
         ScriptedLlmClient::autoCompaction({Message::user(kSecret)}, QStringLiteral("compaction"),
                                           QStringLiteral("summary was empty")),
         ScriptedLlmClient::gate(QStringLiteral("after")),
         ScriptedLlmClient::chunk(QStringLiteral(" Still working.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("go"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->spinner()->isRunning());
    const QString tip = m_panel->spinner()->text();
    QVERIFY(tip != QStringLiteral("Compacting..."));
    m_client->open(QStringLiteral("before"));
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QCOMPARE(m_panel->findChildren<SpinnerLine *>().size(), 1); // the same spinner, no second one
    QVERIFY(m_panel->spinner()->isRunning());
    m_client->open(QStringLiteral("compaction")); // fails: S52
    QTRY_VERIFY(m_panel->spinner()->text() != QStringLiteral("Compacting..."));
    QVERIFY(m_panel->spinner()->isRunning());
    QVERIFY(m_panel->spinner()->notification().isEmpty()); // no notification on failure
    m_client->open(QStringLiteral("after"));
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Working. Still working.")));
}

// proves S50
void TestChatPanel::escDuringAutomaticCompactionCancelsOnlyTheChild()
{
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Part one.")),
                       ScriptedLlmClient::autoCompaction({Message::user(kSecret)}, QStringLiteral("never")),
                       ScriptedLlmClient::gate(QStringLiteral("after")),
                       ScriptedLlmClient::chunk(QStringLiteral(" Part two.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("go"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(m_panel->spinner()->text() != QStringLiteral("Compacting..."));
    QVERIFY(m_session->isBusy()); // the parent stream stays active
    m_client->open(QStringLiteral("after"));
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Done);
    QVERIFY(m_panel->model()->plainText().contains(QStringLiteral("Part one. Part two.")));
    QVERIFY(!m_panel->model()->plainText().contains(QStringLiteral("Interrupted")));
}

// proves S51
void TestChatPanel::stopDuringAutomaticCompactionInterruptsTheParent()
{
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Part one.")),
                       ScriptedLlmClient::autoCompaction({Message::user(kSecret)}, QStringLiteral("never")),
                       ScriptedLlmClient::chunk(QStringLiteral("unreachable")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("go"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier); // nothing selected: interrupt
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Cancelled);
    QTRY_COMPARE(lastText(), QStringLiteral("Interrupted...what should the agent do instead?"));
    QVERIFY(!m_panel->spinner()->isRunning());
}

// proves S53, S54, S17
void TestChatPanel::automaticCompactionCheckpointIsShownOnceAndSummaryNowhere()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Before the checkpoint.")),
         ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{150000, 200, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::autoCompaction({Message::system(QStringLiteral("sys")),
                                            Message::user(QStringLiteral("<compacted_context>") + kSecret +
                                                          QStringLiteral("</compacted_context>"))}),
         ScriptedLlmClient::gate(QStringLiteral("after")),
         ScriptedLlmClient::chunk(QStringLiteral(" After it.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("long task"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_COMPARE(m_panel->spinner()->notification(), QStringLiteral("Context compacted automatically."));
    QVERIFY(m_panel->spinner()->text() != QStringLiteral("Compacting..."));
    QVERIFY(!m_session->lastUsage()); // token metrics reset
    m_client->open(QStringLiteral("after"));
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("After it.")));
    QCOMPARE(m_panel->model()->plainText().count(QStringLiteral("Before the checkpoint.")), 1);
    QVERIFY(!visibleTexts(m_panel.get()).contains(QStringLiteral("PRIVATE-SUMMARY")));
    // The notification lasts two seconds.
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->spinner()->notification().isEmpty(), 3000);
}

void TestChatPanel::overBudgetCompactionShowsHowItFit_data()
{
    QTest::addColumn<bool>("onePart");
    QTest::addColumn<QString>("how");
    QTest::newRow("two parts") << false
                               << QStringLiteral("summarised in 2 parts; 1 long output cut by %1 characters")
                                      .arg(QLocale().toString(46000));
    // Audit 2026-12-06: rebuilt without the tool definitions, it fit one part; the row said only "✓ Context
    // compacted." and the event had no strategy.
    QTest::newRow("one part") << true
                              << QStringLiteral("rebuilt as one request without the tool definitions");
}

// Issue 16: an automatic compaction that had to slice or cut says so on a row after its checkpoint, in the
// notification, in its compaction_applied event, and again when the session is opened later.
void TestChatPanel::overBudgetCompactionShowsHowItFit()
{
    QFETCH(bool, onePart);
    QFETCH(QString, how);
    CompactionStrategy strategy;
    strategy.rebuilt = true;
    if (!onePart) {
        strategy.slices = 2;
        strategy.cutOutputs = 1;
        strategy.cutCharacters = 46000;
    }
    ScriptedLlmClient::Step compaction = ScriptedLlmClient::autoCompaction(
        {Message::system(QStringLiteral("sys")),
         Message::user(QStringLiteral("<compacted_context>x</compacted_context>"))});
    compaction.strategy = strategy;
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Before the checkpoint.")), compaction,
                       ScriptedLlmClient::chunk(QStringLiteral(" After it.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("read the big file"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    const QString row = QStringLiteral("✓ Context compacted automatically: ") + how;
    QCOMPARE(m_panel->model()->plainText().count(row), 1);
    QVERIFY(m_panel->model()->plainText().indexOf(row) >
            m_panel->model()->plainText().indexOf(QStringLiteral("Before the checkpoint.")));

    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    const SessionEvent *applied = nullptr;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            applied = &event;
    }
    QVERIFY(applied);
    QCOMPARE(applied->compaction()->strategy, strategy);
    QVERIFY(applied->status().isEmpty()); // S64 still

    ChatModel replayed;
    replayed.replay(loaded->events);
    QCOMPARE(replayed.plainText().count(row), 1);
}

void TestChatPanel::slicedManualCompactionShowsHowItFit_data()
{
    QTest::addColumn<bool>("onePart");
    QTest::addColumn<QString>("how");
    QTest::newRow("three parts") << false
                                 << QStringLiteral(
                                        "summarised in 3 parts; 1 long output cut by %1 characters")
                                        .arg(QLocale().toString(40000));
    QTest::newRow("one part") << true
                              << QStringLiteral("rebuilt as one request without the tool definitions");
}

// Issue 16: a manual compaction that was summarised in parts (or rebuilt as one part without the tool
// definitions) streams its last part as usual and says how it fit on its status row; the compaction_applied
// event records it, with the manual status.
void TestChatPanel::slicedManualCompactionShowsHowItFit()
{
    QFETCH(bool, onePart);
    QFETCH(QString, how);
    firstTurn();
    AutoCompactionInfo sliced;
    sliced.strategy.rebuilt = true;
    if (!onePart) {
        sliced.strategy.slices = 3;
        sliced.strategy.cutOutputs = 1;
        sliced.strategy.cutCharacters = 40000;
    }
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::compaction(StreamEvent::Type::CompactionSliced, sliced)),
         ScriptedLlmClient::chunk(QStringLiteral("## Goal\nSay hello.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("/compact"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    const QString row = QStringLiteral("✓ Context compacted: ") + how;
    QCOMPARE(m_panel->model()->plainText().count(row), 1);
    QVERIFY(m_panel->model()->plainText().contains(QStringLiteral("Say hello.")));
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("## Goal\nSay hello."))});

    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    const SessionEvent &applied = loaded->events.constLast();
    QCOMPARE(applied.kind, SessionEvent::Kind::CompactionApplied);
    QCOMPARE(applied.status(), QStringLiteral("Context compacted."));
    QCOMPARE(applied.compaction()->strategy, sliced.strategy);
    ChatModel replayed;
    replayed.replay(loaded->events);
    QCOMPARE(replayed.plainText().count(row), 1);
}

namespace {

// The row where the compaction_applied seq happened, or -1.
int compactionRow(const ChatModel *model, quint64 seq)
{
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).compactionSeq == seq)
            return row;
    }
    return -1;
}

QAction *undoActionOf(QMenu *menu)
{
    return menu->findChild<QAction *>(QStringLiteral("undoCompactionRowAction"));
}

} // namespace

// Issue 16 point 2: the Undo action on a compaction's row, after a later turn. The conversation goes on from
// the history before the compaction plus the later turn; the row says it was undone and loses the action;
// reopening the session shows the same.
void TestChatPanel::undoCompactionFromItsRowAfterALaterTurn()
{
    firstTurn();
    const quint64 seq = compactWithSummary(QStringLiteral("## Goal\nSay hello."));
    QVERIFY(seq > 0);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Later answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("later question"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Later answer.")));
    QTRY_VERIFY(!m_session->isBusy());

    const int row = compactionRow(m_panel->model(), seq);
    QVERIFY(row >= 0);
    ChatView *view = m_panel->view();
    view->scrollTo(m_panel->model()->index(row));
    std::unique_ptr<QMenu> menu =
        view->contextMenuFor(view->visualRect(m_panel->model()->index(row)).center());
    QAction *undo = undoActionOf(menu.get());
    QVERIFY(undo);
    QCOMPARE(undo->text().remove(QLatin1Char('&')), QStringLiteral("Undo Compaction"));
    undo->trigger();
    QTRY_VERIFY(m_panel->model()->plainText().contains(ChatModel::compactionUndoneText()));
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(m_session->messages(), (MessageList{Message::user(QStringLiteral("hi")),
                                                 Message::assistant(QStringLiteral("Hello there.")),
                                                 Message::user(QStringLiteral("later question")),
                                                 Message::assistant(QStringLiteral("Later answer."))}));
    QCOMPARE(m_session->undoableCompaction(), quint64(0));
    menu = view->contextMenuFor(view->visualRect(m_panel->model()->index(row)).center());
    QVERIFY(!undoActionOf(menu.get()));
    // Seen in the window: the undone compaction's row still read "✓ Context compacted." like one in effect.
    const QString rowShows = view->chatDelegate()->shownText(m_panel->model()->index(row));
    QCOMPARE(rowShows, ChatModel::compactionRowText(false, QString()) + QStringLiteral(" (undone)"));
    QVERIFY(!m_panel->findChild<QMessageBox *>(QStringLiteral("undoNoLongerFitsDialog")));

    // The next request carries the restored history.
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Third.")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("third"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    const MessageList sent = m_client->requests().constLast();
    QCOMPARE(sent.at(1), Message::user(QStringLiteral("hi")));
    QVERIFY(!sent.contains(Message::user(QStringLiteral("## Goal\nSay hello."))));

    // Reopened: the same rows, the undo shown, no Undo action left on the compaction's row.
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    ChatModel replayed;
    replayed.replay(loaded->events);
    QCOMPARE(replayed.plainText().count(ChatModel::compactionUndoneText()), 1);
    const int replayedRow = compactionRow(&replayed, seq);
    QVERIFY(replayedRow >= 0);
    QVERIFY(replayed.item(replayedRow).compactionUndone);
    ChatView replayedView(&replayed);
    replayedView.resize(600, 400);
    QCOMPARE(replayedView.chatDelegate()->shownText(replayed.index(replayedRow)), rowShows);
}

// Issue 16: with two compactions, the earlier row's Undo Compaction only failed ("A later compaction replaced
// this one"); it is offered disabled, saying why, until the later one is undone.
void TestChatPanel::onlyTheLatestCompactionOffersUndo()
{
    firstTurn();
    const quint64 first = compactWithSummary(QStringLiteral("## Goal\nFirst summary."));
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Later answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("later question"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy());
    const quint64 second = compactWithSummary(QStringLiteral("## Goal\nSecond summary."));
    QVERIFY(first > 0 && second > first);

    ChatView *view = m_panel->view();
    auto menuAt = [&](quint64 seq) {
        const QModelIndex index = m_panel->model()->index(compactionRow(m_panel->model(), seq));
        view->scrollTo(index);
        return view->contextMenuFor(view->visualRect(index).center());
    };
    std::unique_ptr<QMenu> earlier = menuAt(first);
    QVERIFY(undoActionOf(earlier.get()));
    QVERIFY(!undoActionOf(earlier.get())->isEnabled());
    QVERIFY(undoActionOf(earlier.get())->text().contains(QStringLiteral("later one first")));
    std::unique_ptr<QMenu> later = menuAt(second);
    QVERIFY(undoActionOf(later.get())->isEnabled());

    undoActionOf(later.get())->trigger();
    QTRY_VERIFY(m_panel->model()->plainText().contains(ChatModel::compactionUndoneText()));
    QTRY_VERIFY(!m_session->isBusy());
    earlier = menuAt(first);
    QVERIFY(undoActionOf(earlier.get())->isEnabled());
    QCOMPARE(undoActionOf(earlier.get())->text().remove(QLatin1Char('&')), QStringLiteral("Undo Compaction"));
}

// Found when tried: Undo of a compaction was only in the row's context menu and the Conversation menu, where
// nobody looks right after "✓ Context compacted.". The row of the latest compaction in effect says
// "↶ Undo compaction" as a link while nothing runs; a click undoes it; an earlier compaction's row offers it
// once the later one is undone; a running turn hides the offer until it ends.
void TestChatPanel::theLatestCompactionsRowOffersUndoAsALink()
{
    const QString offer = QStringLiteral("↶ Undo compaction");
    ChatModel *model = m_panel->model();
    ChatView *view = m_panel->view();
    auto shownAt = [&](quint64 seq) {
        return view->chatDelegate()->shownText(model->index(compactionRow(model, seq)));
    };
    firstTurn();
    const quint64 first = compactWithSummary(QStringLiteral("## Goal\nFirst summary."));
    QVERIFY(first > 0);
    QTRY_VERIFY2(shownAt(first).contains(offer), qPrintable(shownAt(first)));

    // While a turn runs, no offer; after it, again.
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Working.")),
                       ScriptedLlmClient::gate(QStringLiteral("later")),
                       ScriptedLlmClient::chunk(QStringLiteral(" Later answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("later question"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(model->plainText().contains(QStringLiteral("Working.")));
    QVERIFY(m_session->isBusy());
    QVERIFY2(!shownAt(first).contains(offer), qPrintable(shownAt(first)));
    m_client->open(QStringLiteral("later"));
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_VERIFY(shownAt(first).contains(offer));

    // A second compaction: only its row offers Undo.
    const quint64 second = compactWithSummary(QStringLiteral("## Goal\nSecond summary."));
    QVERIFY(second > first);
    QTRY_VERIFY(shownAt(second).contains(offer));
    QVERIFY2(!shownAt(first).contains(offer), qPrintable(shownAt(first)));

    // A click on the link undoes the second; the first offers it then.
    auto linkOf = [&](quint64 seq) {
        const QModelIndex index = model->index(compactionRow(model, seq));
        view->scrollTo(index);
        const QRect line = view->chatDelegate()->textLineRect(index, view->visualRect(index),
                                                              int(shownAt(seq).indexOf(offer)));
        return QPoint(line.left() + 30, line.center().y());
    };
    const QPoint onLink = linkOf(second);
    QTest::mouseMove(view->viewport(), onLink);
    QTRY_COMPARE(view->viewport()->cursor().shape(), Qt::PointingHandCursor);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, onLink);
    QTRY_VERIFY(model->plainText().contains(ChatModel::compactionUndoneText()));
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(m_session->undoableCompaction(), first);
    QVERIFY(m_panel->input()->hasFocus());
    QVERIFY2(!shownAt(second).contains(offer), qPrintable(shownAt(second)));
    QTRY_VERIFY(shownAt(first).contains(offer));
    // The link is no address: the row's menu offers no Open Link or Copy Link Address on it.
    const std::unique_ptr<QMenu> menu = view->contextMenuFor(linkOf(first));
    QVERIFY(!menu->findChild<QAction *>(QStringLiteral("openLinkAction")));
    QVERIFY(undoActionOf(menu.get()));
}

// Issue 16 point 2: when the restored history no longer fits the input budget, a dialog says so and offers
// to compact again; Compact Again starts the compaction.
void TestChatPanel::undoThatNoLongerFitsOffersToCompactAgain()
{
    firstTurn();
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nSay hello.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(!m_session->isBusy());
    ClientConfig tiny = m_session->clientConfig();
    tiny.contextWindow = 4200; // an input budget of 104 tokens: the system prompt alone is over it
    m_session->setClientConfig(tiny);
    m_panel->undoCompaction();
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = m_panel->findChild<QMessageBox *>(QStringLiteral("undoNoLongerFitsDialog"))) !=
                nullptr);
    QTRY_VERIFY(box->isVisible());
    QVERIFY2(box->text().contains(QStringLiteral("104")), qPrintable(box->text()));
    QCOMPARE(m_session->messages().first(), Message::user(QStringLiteral("hi"))); // the undo applied
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nAgain.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QPushButton *again = box->findChild<QPushButton *>(QStringLiteral("compactAgainButton"));
    QVERIFY(again);
    QTest::mouseClick(again, Qt::LeftButton);
    QTRY_COMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("## Goal\nAgain."))});
}

// proves S25, S31
void TestChatPanel::manualCompactionStreamsSummaryAndReportsStatus()
{
    firstTurn();
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nSay hello.")),
                       ScriptedLlmClient::gate(QStringLiteral("summary")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("/compact keep the greeting"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("## Goal\nSay hello.")));
    m_client->open(QStringLiteral("summary"));
    QTRY_COMPARE(lastText(), QStringLiteral("✓ Context compacted."));
    QTRY_VERIFY(!m_session->isBusy());
    QVERIFY(!m_panel->spinner()->isRunning());
    QCOMPARE(m_session->messages().size(), 1);
}

// Found trying the window: after Find had scrolled far up a long reply, Compact streamed its summary below
// the view, out of sight; only the status bar's usage said anything had happened. Asked for like a message,
// it is shown like one: the view goes to the end and follows the summary.
void TestChatPanel::manualCompactionStreamsInViewWhenScrolledUp()
{
    firstTurn();
    for (int i = 0; i < 80; ++i)
        m_panel->model()->addLine(ChatItem::Kind::Status, QStringLiteral("Earlier line %1").arg(i));
    ChatView *view = m_panel->view();
    QTRY_VERIFY(view->verticalScrollBar()->maximum() > 0);
    view->scrollToTop();
    QTRY_COMPARE(view->verticalScrollBar()->value(), 0);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nSay hello.")),
                       ScriptedLlmClient::gate(QStringLiteral("summary")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Say hello.")));
    auto inView = [&](int row) {
        return view->visualRect(m_panel->model()->index(row)).intersects(view->viewport()->rect());
    };
    QTRY_VERIFY(inView(m_panel->model()->rowCount() - 1));
    m_client->open(QStringLiteral("summary"));
    QTRY_COMPARE(lastText(), QStringLiteral("✓ Context compacted."));
    QTRY_VERIFY(inView(m_panel->model()->rowCount() - 1));
}

// proves S26, S30 and the manual-compaction Ctrl+C rule (reference 4.2)
void TestChatPanel::manualCompactionIgnoresCtrlCAndEscCancelsIt()
{
    firstTurn();
    const MessageList before = m_session->messages();
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("partial summary")),
                       ScriptedLlmClient::gate(QStringLiteral("after-ctrl-c")),
                       ScriptedLlmClient::chunk(QStringLiteral(" still streaming")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier);
    // Ignored: the stream goes on after Ctrl+C (a cancelled stream sends nothing more).
    m_client->open(QStringLiteral("after-ctrl-c"));
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("partial summary still streaming")));
    QVERIFY(m_session->isBusy());
    QCOMPARE(m_session->compactionMode(), AgentSession::CompactionMode::Manual);
    QTest::keyClicks(m_panel->input(), QStringLiteral("typing works"));
    QCOMPARE(m_panel->input()->toPlainText(), QStringLiteral("typing works"));
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isBusy());
    // The partial summary stays where it streamed; the row under it says it was not applied.
    QTRY_COMPARE(lastText(),
                 QStringLiteral("Compaction cancelled. The conversation is unchanged; summary text "
                                "above was not applied."));
    QCOMPARE(m_session->messages(), before);
    QVERIFY(!m_panel->model()->plainText().contains(QStringLiteral("Interrupted")));
}

// proves S26, S30 as the person sees it: Esc before any summary text streamed leaves no empty "Summary of the
// conversation so far" heading, and the row under the conversation does not speak of summary text above.
void TestChatPanel::escBeforeAnySummaryTextLeavesNoEmptyHeading()
{
    firstTurn();
    const int rowsBefore = m_panel->model()->rowCount();
    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::chunk(QStringLiteral("## Goal\nNever shown.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QCOMPARE(m_panel->model()->item(rowsBefore).text, ChatModel::compactionHeadingText());
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_COMPARE(m_panel->model()->rowCount(), rowsBefore + 1);
    QCOMPARE(lastText(), QStringLiteral("Compaction cancelled. The conversation is unchanged."));
    QVERIFY(!m_panel->model()->plainText().contains(ChatModel::compactionHeadingText()));
}

// proves S21: a tool call during a manual compaction is shown as a failed tool card carrying the refusal, and
// the summary after it applies. (The refusal itself, for every provider: tst_headlesscompaction.)
void TestChatPanel::manualCompactionShowsTheRefusedToolCard()
{
    firstTurn();
    ToolCallInfo call;
    call.callId = QStringLiteral("call_m");
    call.name = QStringLiteral("write_file");
    call.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("out.txt")}};
    ToolCallInfo refused = call;
    refused.error = CompactionPrompts::toolCallsDisabledMessage();
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, call)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, refused)),
                       ScriptedLlmClient::chunk(QStringLiteral("## Goal\nSay hello.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(!m_session->isBusy());
    const ChatModel *model = m_panel->model();
    int cards = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const ChatItem &item = model->item(row);
        if (item.kind != ChatItem::Kind::Tool)
            continue;
        ++cards;
        QCOMPARE(item.toolName, QStringLiteral("write_file"));
        QCOMPARE(item.toolState, ChatItem::ToolState::Failed);
        QVERIFY2(item.plainText().contains(CompactionPrompts::toolCallsDisabledMessage()),
                 qPrintable(item.plainText()));
    }
    QCOMPARE(cards, 1);
    QTRY_COMPARE(lastText(), QStringLiteral("✓ Context compacted."));
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("## Goal\nSay hello."))});
}

// proves S32
void TestChatPanel::queuedPromptDrainsAfterCompaction()
{
    firstTurn();
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nx")),
                       ScriptedLlmClient::gate(QStringLiteral("summary")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Queued answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(m_session->isBusy());
    QTest::keyClicks(m_panel->input(), QStringLiteral("next question"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->queue(), QStringList{QStringLiteral("next question")});
    QVERIFY(m_panel->findChild<QWidget *>(QStringLiteral("queueChip")));
    m_client->open(QStringLiteral("summary"));
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Queued answer.")));
    QVERIFY(m_panel->queue().isEmpty());
    const QString text = m_panel->model()->plainText();
    QVERIFY(text.indexOf(QStringLiteral("✓ Context compacted.")) <
            text.indexOf(QStringLiteral("next question")));
}

// proves S32 when the compaction fails: the prompt queued while it ran is sent when the provider's error
// ends it, on the unchanged history (S30), and answered below the failure.
void TestChatPanel::queuedPromptDrainsAfterCompactionFails_S32()
{
    firstTurn();
    const MessageList before = m_session->messages();
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("## Goal\npartial")),
         ScriptedLlmClient::gate(QStringLiteral("fail")),
         ScriptedLlmClient::event(StreamEvent::failure(QStringLiteral("HTTP 500: upstream broke")))});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Queued answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_COMPARE(m_panel->spinner()->text(), QStringLiteral("Compacting..."));
    QTest::keyClicks(m_panel->input(), QStringLiteral("next question"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->queue(), QStringList{QStringLiteral("next question")});
    QTRY_COMPARE(m_client->requests().size(), 2); // the compaction waits at its gate
    m_client->open(QStringLiteral("fail"));
    checkQueuedPromptWentOutAfter(before, QStringLiteral("Compaction failed: HTTP 500: upstream broke"));
    QCOMPARE(m_session->messages().size(), before.size() + 2);
}

// proves S32 when Esc cancels the compaction (S26): Esc cancels only the compaction, not the queue, and the
// prompt queued while it ran is sent once it has ended, on the unchanged history (S30).
void TestChatPanel::queuedPromptDrainsAfterCompactionIsCancelled_S32()
{
    firstTurn();
    const MessageList before = m_session->messages();
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\npartial")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Queued answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("partial")));
    QTest::keyClicks(m_panel->input(), QStringLiteral("next question"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->queue(), QStringList{QStringLiteral("next question")});
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    checkQueuedPromptWentOutAfter(before, QStringLiteral("Compaction cancelled."));
}

void TestChatPanel::checkQueuedPromptWentOutAfter(const MessageList &before, const QString &compactionEnd)
{
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Queued answer.")));
    QTRY_VERIFY(!m_session->isBusy());
    QVERIFY(m_panel->queue().isEmpty());
    QCOMPARE(m_client->requests().size(), 3);
    const MessageList sent = m_client->requests().constLast();
    QCOMPARE(sent.constLast(), Message::user(QStringLiteral("next question")));
    QCOMPARE(sent.mid(1, before.size()), before);
    const QString text = m_panel->model()->plainText();
    const qsizetype ended = text.indexOf(compactionEnd);
    QVERIFY2(ended >= 0, qPrintable(text));
    QVERIFY(ended < text.indexOf(QStringLiteral("next question")));
    QVERIFY(text.indexOf(QStringLiteral("next question")) < text.indexOf(QStringLiteral("Queued answer.")));
    QVERIFY(!text.contains(QStringLiteral("✓ Context compacted.")));
}

void TestChatPanel::queueIsLimitedAndCommandsCannotQueue()
{
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("never")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("busy"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_session->isBusy());
    for (int i = 1; i <= ChatPanel::MaxQueue; ++i) {
        QTest::keyClicks(m_panel->input(), QStringLiteral("q%1").arg(i));
        QTest::keyClick(m_panel->input(), Qt::Key_Return);
    }
    QCOMPARE(m_panel->queue().size(), ChatPanel::MaxQueue);
    QTest::keyClicks(m_panel->input(), QStringLiteral("one too many"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Queue is full"));
    QCOMPARE(m_panel->queue().size(), ChatPanel::MaxQueue);
    QCOMPARE(m_panel->input()->toPlainText(), QStringLiteral("one too many"));
    m_panel->input()->clear();
    QTest::keyClicks(m_panel->input(), QStringLiteral("/compact"));
    m_panel->input()->completer()->popup()->hide();
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Operation not permitted"));
    // A chip can be removed.
    auto *remove = m_panel->findChild<QAbstractButton *>(QStringLiteral("queueChipRemove"));
    QVERIFY(remove);
    QTest::mouseClick(remove, Qt::LeftButton);
    QCOMPARE(m_panel->queue().size(), ChatPanel::MaxQueue - 1);
    QCOMPARE(m_panel->queue().constFirst(), QStringLiteral("q2"));
}

namespace {
const ChatItem *lastToolCard(const ChatModel *model)
{
    for (int row = model->rowCount() - 1; row >= 0; --row) {
        if (model->item(row).kind == ChatItem::Kind::Tool)
            return &model->item(row);
    }
    return nullptr;
}
} // namespace

// `!command` (reference 6.1): runs in the workspace for the person, shown as a command card, and nothing of
// it reaches the model, the history or a transcript.
void TestChatPanel::bangRunsACommandForThePersonOnly()
{
    // The providers' key variables are hidden from it, as from the bash tool.
    qputenv("OPENAI_API_KEY", "canary-key-for-the-test");
    const auto restore = qScopeGuard([] { qunsetenv("OPENAI_API_KEY"); });
    const QString command = QStringLiteral("!echo hello from the shell; pwd; echo key=[$OPENAI_API_KEY]");
    QTest::keyClicks(m_panel->input(), command);
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_session->isBusy() || lastToolCard(m_panel->model()));
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(m_panel->model()->item(0).kind, ChatItem::Kind::User);
    QCOMPARE(m_panel->model()->item(0).text, command);
    const ChatItem *card = lastToolCard(m_panel->model());
    QVERIFY(card);
    QCOMPARE(card->toolState, ChatItem::ToolState::Done);
    QVERIFY2(card->output.contains(QStringLiteral("hello from the shell\n") + m_session->workspace() +
                                   QStringLiteral("\nkey=[]")),
             qPrintable(card->output));
    QVERIFY(lastText().contains(QStringLiteral("the model does not see it")));
    QVERIFY(m_panel->input()->toPlainText().isEmpty());
    QVERIFY(m_session->messages().isEmpty());
    QVERIFY(m_session->sessionId().isEmpty()); // no session, nothing written
    QVERIFY(m_client->requests().isEmpty());

    // A command that fails says so on its card, with what it printed.
    QTest::keyClicks(m_panel->input(), QStringLiteral("!ls no-such-file-here"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_session->isBusy() && lastToolCard(m_panel->model()) != card);
    QCOMPARE(lastToolCard(m_panel->model())->metadata, QStringLiteral("exit 2")); // as a tool call's card
    QVERIFY2(lastToolCard(m_panel->model())->output.contains(QStringLiteral("no-such-file-here")),
             qPrintable(lastToolCard(m_panel->model())->output));

    // "!" alone says how it is used and runs nothing.
    const int rows = m_panel->model()->rowCount();
    QTest::keyClicks(m_panel->input(), QStringLiteral("!"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Usage: !<command>"));
    QCOMPARE(m_panel->model()->rowCount(), rows);
    // /help lists it, though it is no slash command.
    m_panel->runCommand(QStringLiteral("/help"));
    QVERIFY(lastText().contains(QStringLiteral("`!<command>`")));
}

// Not while a turn runs, and never queued (it would run on whatever the turn left); while it runs, prompts
// queue, and Esc stops it at once (its process group is killed) and the queue goes on.
void TestChatPanel::bangWhileBusyIsRefusedAndEscStopsIt()
{
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("held")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("busy"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_session->isBusy());
    QTest::keyClicks(m_panel->input(), QStringLiteral("!echo now"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Operation not permitted"));
    QCOMPARE(m_panel->input()->toPlainText(), QStringLiteral("!echo now")); // kept
    QVERIFY(m_panel->queue().isEmpty());
    m_panel->input()->clear();
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isBusy());

    QTest::keyClicks(m_panel->input(), QStringLiteral("!echo started; sleep 30; echo never"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(lastToolCard(m_panel->model()) &&
                lastToolCard(m_panel->model())->output.contains(QStringLiteral("started")));
    QVERIFY(m_session->isBusy());
    QVERIFY(m_panel->spinner()->isRunning());
    // The command has a thread of its own: even with the shared pool at one thread (a one-core machine),
    // what the window reads on it meanwhile (here /memory) is not held up for the command's 30 s.
    const int sharedThreads = QThreadPool::globalInstance()->maxThreadCount();
    QThreadPool::globalInstance()->setMaxThreadCount(1);
    const auto restoreThreads =
        qScopeGuard([sharedThreads] { QThreadPool::globalInstance()->setMaxThreadCount(sharedThreads); });
    typeAndSend(QStringLiteral("/memory"));
    QTRY_VERIFY_WITH_TIMEOUT(lastText().contains(QStringLiteral("Project memory")), 3000);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Queued answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("after the command"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QCOMPARE(m_panel->queue(), QStringList{QStringLiteral("after the command")});

    QElapsedTimer stopping;
    stopping.start();
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Queued answer.")));
    QVERIFY2(stopping.elapsed() < 10000, qPrintable(QString::number(stopping.elapsed())));
    const ChatItem *stopped = nullptr;
    for (int row = 0; row < m_panel->model()->rowCount(); ++row) {
        const ChatItem &item = m_panel->model()->item(row);
        if (item.kind == ChatItem::Kind::Tool && item.output.contains(QStringLiteral("started")))
            stopped = &item;
    }
    QVERIFY(stopped);
    QCOMPARE(stopped->toolState, ChatItem::ToolState::Failed);
    QCOMPARE(stopped->toolError, QStringLiteral("Command cancelled."));
    QVERIFY(!stopped->output.contains(QStringLiteral("never")));
    // The card says it was cancelled; no turn was, so no row says so (the first turn's row stays one).
    QCOMPARE(m_panel->model()->plainText().count(QStringLiteral("what should the agent do instead")), 1);
    // The queued prompt went to the model without the command.
    QTRY_VERIFY(!m_session->isBusy());
    const MessageList sent = m_client->requests().constLast();
    for (const Message &message : sent)
        QVERIFY(!message.content.contains(QStringLiteral("sleep 30")));
}

// /btw (reference 6.1): a side question answered while the turn goes on, from the conversation so far (the
// prompt being answered left out) with no tools; it is not kept, and Esc cancels it before the turn.
void TestChatPanel::btwAnswersOnTheSideWhileATurnRuns()
{
    firstTurn();
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("held")), ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("now refactor the parser"));
    QTRY_COMPARE(m_client->requests().size(), 2); // the turn has its request out, and waits
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("It is in ")),
                       ScriptedLlmClient::chunk(QStringLiteral("`src/parse.cpp`.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/btw where is the *parser*?"));
    QTRY_VERIFY(!m_session->isAsideRunning());
    QVERIFY(m_session->isBusy()); // the turn goes on
    const QString row = lastText();
    QVERIFY2(row.startsWith(QStringLiteral("**btw** where is the \\*parser\\*?\n\n")), qPrintable(row));
    QVERIFY2(row.endsWith(QStringLiteral("It is in `src/parse.cpp`.")), qPrintable(row));
    QVERIFY(m_panel->view()
                ->chatDelegate()
                ->shownText(m_panel->model()->index(m_panel->model()->rowCount() - 1))
                .contains(QStringLiteral("where is the *parser*?")));

    const MessageList asked = m_client->requests().at(2);
    QCOMPARE(asked.size(), 4);
    QCOMPARE(asked.at(0).role, Message::Role::System);
    QVERIFY(asked.at(0).content.startsWith(QStringLiteral("You answer a quick side question")));
    QVERIFY(asked.at(0).content.endsWith(QStringLiteral("Working directory: ") + m_session->workspace()));
    QCOMPARE(asked.at(1), Message::user(QStringLiteral("hi")));
    QCOMPARE(asked.at(2), Message::assistant(QStringLiteral("Hello there.")));
    QCOMPARE(asked.at(3), Message::user(QStringLiteral("where is the *parser*?")));
    const StreamOptions options = m_client->options().at(2);
    QVERIFY(options.oneShot && options.disableToolCalls && options.disableAutoCompaction);
    for (const Message &message : m_session->messages())
        QVERIFY(!message.content.contains(QStringLiteral("parser*?")));

    // Esc cancels a side question first, and the turn only with the next press.
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("aside")), ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/btw and the tests?"));
    QTRY_VERIFY(m_session->isAsideRunning());
    QTRY_COMPARE(m_client->requests().size(), 4);
    typeAndSend(QStringLiteral("/btw one more"));
    QCOMPARE(m_panel->spinner()->notification(),
             QStringLiteral("A side question is being answered; Esc cancels it."));
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isAsideRunning());
    QVERIFY(lastText().endsWith(QStringLiteral("*Cancelled.*")));
    QVERIFY(m_session->isBusy());
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isBusy());

    // Not kept: the transcript has the turns, not the side questions.
    QFile transcript(m_session->transcriptPath());
    QVERIFY(transcript.open(QIODevice::ReadOnly));
    const QByteArray saved = transcript.readAll();
    QVERIFY(saved.contains("now refactor the parser"));
    QVERIFY(!saved.contains("where is the") && !saved.contains("src/parse.cpp") &&
            !saved.contains("the tests?"));

    typeAndSend(QStringLiteral("/btw"));
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Usage: /btw <question>"));
}

// /usage (reference 6.1, 8.3): every request's tokens are kept in the ledger, turns and side questions alike,
// and /usage sums them per model.
void TestChatPanel::usageSumsTheTokensOfEveryRequest()
{
    typeAndSend(QStringLiteral("/usage"));
    QTRY_VERIFY(lastText().contains(QStringLiteral("No requests recorded yet.")));

    TokenUsage turn;
    turn.inputTokens = 1200;
    turn.outputTokens = 34;
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Hello there.")),
                       ScriptedLlmClient::event(StreamEvent::usageReport(turn)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("hi"));
    QTRY_VERIFY(!m_session->isBusy());
    TokenUsage aside;
    aside.inputTokens = 300;
    aside.outputTokens = 6;
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Four.")),
                       ScriptedLlmClient::event(StreamEvent::usageReport(aside)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/btw 2+2?"));
    QTRY_VERIFY(!m_session->isAsideRunning());
    QCOMPARE(m_session->totalInputTokens(), 1500);

    typeAndSend(QStringLiteral("/usage"));
    QTRY_VERIFY(lastText().contains(QStringLiteral("`anthropic/test-model`")));
    const QString expected = QLocale().toString(1500) + QStringLiteral(" ↑ / 40 ↓ (2 requests)");
    QVERIFY2(lastText().contains(QStringLiteral("| `anthropic/test-model` | ") + expected +
                                 QStringLiteral(" | ") + expected + QStringLiteral(" | ") + expected +
                                 QStringLiteral(" |")),
             qPrintable(lastText()));
}

// Issue 14, bad files: the ledger /usage reads is written after each request on a thread of its own; when it
// cannot be (a folder in its place, a full disk), the window said so only in its log. The chat says it once,
// naming the file, and the reply stays as it was.
void TestChatPanel::usageThatCannotBeRecordedIsSaidInTheChat()
{
    const QString ledger = m_session->usageLedgerPath();
    QVERIFY(QDir().mkpath(ledger)); // a folder where the file goes
    TokenUsage usage;
    usage.inputTokens = 1200;
    usage.outputTokens = 34;
    for (int turn = 0; turn < 2; ++turn)
        m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Hello there.")),
                           ScriptedLlmClient::event(StreamEvent::usageReport(usage)),
                           ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("hi"));
    QTRY_VERIFY(!m_session->isBusy());
    QTRY_VERIFY2(lastText().contains(QStringLiteral("not recorded for /usage")), qPrintable(lastText()));
    QVERIFY2(lastText().contains(ledger), qPrintable(lastText()));
    const int errorRow = m_panel->model()->rowCount() - 1;
    QCOMPARE(m_panel->model()->item(errorRow).kind, ChatItem::Kind::Error);
    QCOMPARE(m_panel->model()->item(errorRow - 1).text, QStringLiteral("Hello there."));
    QCOMPARE(m_session->totalInputTokens(), 1200); // the session's own totals still count it

    // Said once: the next turn's usage fails the same way without a second row.
    typeAndSend(QStringLiteral("again"));
    QTRY_VERIFY(!m_session->isBusy());
    UsageLedger::flush();
    QCoreApplication::processEvents();
    int said = 0;
    for (int row = 0; row < m_panel->model()->rowCount(); ++row)
        said += m_panel->model()->item(row).text.contains(QStringLiteral("not recorded for /usage")) ? 1 : 0;
    QCOMPARE(said, 1);
}

// /memory (reference 6.1, 7.4): the two files the system prompt reads, whether they exist, and one shown as
// it is (read on a worker, so the row comes a moment later).
void TestChatPanel::memoryListsAndShowsTheMemoryFiles()
{
    const QString project = m_session->projectMemoryPath();
    QCOMPARE(project, QDir(m_session->workspace()).filePath(QStringLiteral(".keen/MEMORY.md")));
    QVERIFY(QDir().mkpath(QFileInfo(project).path()));
    const QByteArray remembered = "# Notes\n- the server listens on port 8080\n```sh\nmake check\n```\n";
    {
        QFile file(project);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(remembered);
    }
    typeAndSend(QStringLiteral("/memory"));
    QTRY_VERIFY(lastText().contains(m_session->globalMemoryPath()));
    const QString listed = lastText();
    QVERIFY2(listed.contains(QStringLiteral("| Global memory | `") + m_session->globalMemoryPath() +
                             QStringLiteral("` | not created |")),
             qPrintable(listed));
    QVERIFY2(listed.contains(QStringLiteral("| Project memory | `") + project + QStringLiteral("` | ") +
                             QLocale().formattedDataSize(remembered.size()) + QStringLiteral(" |")),
             qPrintable(listed));

    typeAndSend(QStringLiteral("/memory show project"));
    QTRY_VERIFY(lastText().contains(QStringLiteral("port 8080")));
    // Verbatim, its own code fence included: the block around it is longer.
    QVERIFY2(lastText().contains(QStringLiteral("````markdown\n") + QString::fromUtf8(remembered) +
                                 QStringLiteral("````")),
             qPrintable(lastText()));
    QVERIFY(m_panel->view()
                ->chatDelegate()
                ->shownText(m_panel->model()->index(m_panel->model()->rowCount() - 1))
                .contains(QStringLiteral("```sh")));

    typeAndSend(QStringLiteral("/memory show global"));
    QTRY_VERIFY(lastText().contains(QStringLiteral("Not created yet.")));

    const int rows = m_panel->model()->rowCount();
    typeAndSend(QStringLiteral("/memory show everything"));
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Usage: /memory [show global|project]"));
    QTest::qWait(50);
    QCOMPARE(m_panel->model()->rowCount(), rows);
    QVERIFY(m_session->messages().isEmpty()); // nothing of it is sent
}

void TestChatPanel::emptyqClearsTheQueueAndExitAsksToQuit()
{
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("held")), ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("busy"));
    QTRY_VERIFY(m_session->isBusy());
    typeAndSend(QStringLiteral("first waiting"));
    typeAndSend(QStringLiteral("second waiting"));
    QCOMPARE(m_panel->queue().size(), 2);
    typeAndSend(QStringLiteral("/emptyq"));
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Queue cleared"));
    QVERIFY(m_panel->queue().isEmpty());
    QVERIFY(m_panel->findChildren<QAbstractButton *>(QStringLiteral("queueChipRemove")).isEmpty());
    typeAndSend(QStringLiteral("/emptyq"));
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Queue is empty"));
    QVERIFY(m_session->isBusy()); // the turn goes on

    QSignalSpy quit(m_panel.get(), &ChatPanel::quitRequested);
    typeAndSend(QStringLiteral("/exit"));
    QCOMPARE(quit.count(), 1);
}

// /allow-permission and /reset-permission (reference 2.3), typed: without names the usage and the tools; an
// unknown name is an error that changes nothing; otherwise .keen/permissions.json changes and a line says so.
void TestChatPanel::allowAndResetPermissionCommandsEditTheProjectAllowList()
{
    const QString path = PermissionPolicy::allowListPath(m_session->workspace());
    const auto allowList = [path] {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return QStringList{QStringLiteral("<no file>")};
        QStringList names;
        for (const QJsonValue &name :
             QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("allow")).toArray())
            names << name.toString();
        return names;
    };

    typeAndSend(QStringLiteral("/allow-permission"));
    QTRY_VERIFY(lastText().startsWith(QStringLiteral("Usage: /allow-permission <tools…>")));
    QVERIFY2(lastText().contains(QStringLiteral("Available tools: ")) &&
                 lastText().contains(QStringLiteral("bash")),
             qPrintable(lastText()));

    typeAndSend(QStringLiteral("/allow-permission bash rm_everything"));
    QTRY_COMPARE(m_panel->model()->item(m_panel->model()->rowCount() - 1).kind, ChatItem::Kind::Error);
    QVERIFY2(lastText().startsWith(QStringLiteral("Unknown tool: rm_everything.")), qPrintable(lastText()));
    QVERIFY(!QFile::exists(path));

    typeAndSend(QStringLiteral("/allow-permission bash, grep"));
    QTRY_COMPARE(lastText(), QStringLiteral("✓ Allowed: bash, grep"));
    QCOMPARE(allowList(), (QStringList{QStringLiteral("bash"), QStringLiteral("grep")}));

    typeAndSend(QStringLiteral("/reset-permission bash"));
    QTRY_COMPARE(lastText(), QStringLiteral("✓ Reset: bash"));
    QCOMPARE(allowList(), QStringList{QStringLiteral("grep")});

    // A damaged file is not written over: the error names it, and it stays as the person left it.
    QFile damaged(path);
    QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
    damaged.write(R"({"allow": ["grep",)");
    damaged.close();
    typeAndSend(QStringLiteral("/allow-permission bash"));
    QTRY_VERIFY(lastText().contains(QStringLiteral("was not changed")));
    QVERIFY(lastText().contains(path));
    QVERIFY(damaged.open(QIODevice::ReadOnly));
    QCOMPARE(damaged.readAll(), QByteArray(R"({"allow": ["grep",)"));
}

void TestChatPanel::escDeniesAPendingPermissionBeforeTheTurn()
{
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("never")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_panel->input(), QStringLiteral("edit it"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
    QTRY_VERIFY(m_session->isBusy());
    // The request as the worker would raise it.
    Q_EMIT m_session->permissionRequested(PermissionRequest{77,
                                                            QStringLiteral("edit_file"),
                                                            QStringLiteral("a.txt"),
                                                            {},
                                                            {},
                                                            {},
                                                            QStringLiteral("@@ -1 +1 @@\n-a\n+b\n"),
                                                            false});
    QTRY_VERIFY(m_panel->model()->hasPendingPermission());
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QVERIFY(!m_panel->model()->hasPendingPermission());
    QCOMPARE(m_panel->model()
                 ->data(m_panel->model()->index(m_panel->model()->rowCount() - 1), ChatModel::OutcomeRole)
                 .toString(),
             QStringLiteral("Denied"));
    QVERIFY(m_session->isBusy()); // the turn is next in line, not cancelled yet
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isBusy());
}

// The agent's question (ask_user), as a person meets it: the card shows each question with its options, the
// recommendation chosen; Submit gives the tool, and so the model, the chosen options; the card then reads
// the answer. A second question cancelled with Esc gives the tool "cancelled" and the turn goes on.
void TestChatPanel::theAgentsQuestionIsAnsweredFromItsCard()
{
    const QJsonObject questions{
        {QStringLiteral("questions"),
         QJsonArray{QJsonObject{{QStringLiteral("question"), QStringLiteral("Which database?")},
                                {QStringLiteral("options"),
                                 QJsonArray{QStringLiteral("SQLite"), QStringLiteral("Postgres")}}},
                    QJsonObject{{QStringLiteral("question"), QStringLiteral("Add migrations?")},
                                {QStringLiteral("options"),
                                 QJsonArray{QStringLiteral("Yes"), QStringLiteral("No")}}}}}};
    m_client->addTurn({ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::chunk(QStringLiteral("Going with it.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("set up storage"));
    ChatView *view = m_panel->findChild<ChatView *>();
    QVERIFY(view);
    QComboBox *database = nullptr;
    QTRY_VERIFY((database = view->findChild<QComboBox *>(QStringLiteral("questionChoice1"))) &&
                database->isVisible());
    QComboBox *migrations = view->findChild<QComboBox *>(QStringLiteral("questionChoice2"));
    QVERIFY(migrations);
    QCOMPARE(database->currentText(), QStringLiteral("SQLite")); // the recommendation
    database->setCurrentIndex(1);
    QTest::mouseClick(view->findChild<QPushButton *>(QStringLiteral("questionSubmitButton")), Qt::LeftButton);
    QTRY_COMPARE(m_client->toolResults().size(), 1);
    const ToolCallInfo answered = m_client->toolResults().first();
    QVERIFY2(answered.error.isEmpty(), qPrintable(answered.error));
    QCOMPARE(answered.output.toObject().value(QStringLiteral("answers")).toArray(),
             (QJsonArray{QStringLiteral("Postgres"), QStringLiteral("Yes")}));
    QCOMPARE(answered.output.toObject().value(QStringLiteral("cancelled")).toBool(), false);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Postgres; Yes")));

    // The second asking: Esc cancels the question, not the turn.
    QTRY_VERIFY(m_panel->model()->item(m_panel->model()->rowCount() - 1).kind == ChatItem::Kind::Question &&
                !m_panel->model()->item(m_panel->model()->rowCount() - 1).settled);
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_COMPARE(m_client->toolResults().size(), 2);
    QCOMPARE(m_client->toolResults().at(1).output.toObject().value(QStringLiteral("cancelled")).toBool(),
             true);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Going with it.")));
    QTRY_VERIFY(!m_session->isBusy());
}

// Reference 6.3: Ctrl+C cancels a pending question of the agent first (the turn goes on), and only then
// interrupts. Found when tried: Ctrl+C in the question's answer box, with nothing selected there, was taken
// as Copy and did nothing.
void TestChatPanel::ctrlCCancelsTheAgentsQuestionThenStopsTheTurn()
{
    const QJsonObject questions = test::Workloads::databaseQuestion();
    m_client->addTurn({ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::chunk(QStringLiteral("Going on without answers.")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("set up storage"));
    ChatView *view = m_panel->findChild<ChatView *>();
    QVERIFY(view);
    auto pendingChoice = [view] {
        for (QComboBox *choice : view->findChildren<QComboBox *>(QStringLiteral("questionChoice1"))) {
            if (choice->isVisible())
                return choice;
        }
        return static_cast<QComboBox *>(nullptr);
    };

    // In the answer box (the card takes the focus), nothing selected there.
    QComboBox *choice = nullptr;
    QTRY_VERIFY((choice = pendingChoice()));
    QTRY_COMPARE(QApplication::focusWidget(), choice);
    choice->lineEdit()->deselect();
    QTest::keyClick(choice, Qt::Key_C, Qt::ControlModifier);
    QTRY_COMPARE(m_client->toolResults().size(), 1);
    QCOMPARE(m_client->toolResults().at(0).output.toObject().value(QStringLiteral("cancelled")).toBool(),
             true);
    QVERIFY(m_session->isBusy()); // the turn goes on

    // From the input: the question first again, then the turn.
    QTRY_VERIFY(pendingChoice() && pendingChoice() != choice);
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier);
    QTRY_COMPARE(m_client->toolResults().size(), 2);
    QCOMPARE(m_client->toolResults().at(1).output.toObject().value(QStringLiteral("cancelled")).toBool(),
             true);
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Going on without answers.")));
    QVERIFY(m_session->isBusy());
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier);
    QTRY_VERIFY(!m_session->isBusy());
    QVERIFY(m_panel->model()->plainText().contains(
        QStringLiteral("Interrupted...what should the agent do instead?")));
}

// Found trying the window: a permission card came above its tool's card or below it, depending on timing
// (the stream's events are delivered at a pace, the permission request at once). Forced here the way it
// happened: the tool starts and asks within the pace of the text delivered just before. Two calls of one
// reply, each asking: every tool card is directly followed by its own permission card.
void TestChatPanel::eachPermissionCardIsRightBelowItsToolCard()
{
    auto bash = [](const QString &id, const QString &command) {
        ToolCallInfo call;
        call.callId = id;
        call.name = QStringLiteral("bash");
        call.input = QJsonObject{{QStringLiteral("command"), command}};
        return call;
    };
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Making two files.")),
                       ScriptedLlmClient::gate(QStringLiteral("calls")),
                       ScriptedLlmClient::askingTool(bash(QStringLiteral("c1"), QStringLiteral("touch one"))),
                       ScriptedLlmClient::askingTool(bash(QStringLiteral("c2"), QStringLiteral("touch two"))),
                       ScriptedLlmClient::chunk(QStringLiteral("Both made.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    // Right when the text arrives, the tool starts and asks (the delivery of the text is still under way).
    const QMetaObject::Connection hook =
        connect(m_session.get(), &AgentSession::streamEvent, this, [this](const StreamEvent &event) {
            if (event.type != StreamEvent::Type::Chunk)
                return;
            m_client->open(QStringLiteral("calls"));
            QDeadlineTimer started(2000);
            while (m_client->toolsStarted() < 1 && !started.hasExpired())
                QThread::yieldCurrentThread();
            QThread::usleep(300); // its permission request is posted meanwhile
        });
    QTest::keyClicks(m_panel->input(), QStringLiteral("make one and two"));
    QTest::keyClick(m_panel->input(), Qt::Key_Return);

    const ChatModel *model = m_panel->model();
    // The kinds of the rows and, for cards, the command they show.
    auto rows = [model] {
        QStringList shown;
        for (int row = 0; row < model->rowCount(); ++row) {
            const ChatItem &item = model->item(row);
            switch (item.kind) {
            case ChatItem::Kind::Tool:
                shown << QStringLiteral("tool ") + item.command;
                break;
            case ChatItem::Kind::Permission:
                shown << QStringLiteral("permission ") + item.permission.command;
                break;
            default:
                shown << item.text;
                break;
            }
        }
        return shown;
    };
    QTRY_VERIFY(model->hasPendingPermission());
    QTRY_VERIFY(!model->hasPendingChunks()); // anything still paced comes in
    QCOMPARE(rows(), QStringList({QStringLiteral("make one and two"), QStringLiteral("Making two files."),
                                  QStringLiteral("tool touch one"), QStringLiteral("permission touch one")}));
    disconnect(hook);

    Q_EMIT m_panel->view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);
    QTRY_COMPARE(rows().size(), 6);
    // The second call asks, and nothing paced is left to come in.
    QTRY_VERIFY(model->hasPendingPermission() && !model->hasPendingChunks());
    QCOMPARE(rows().mid(2),
             QStringList({QStringLiteral("tool touch one"), QStringLiteral("permission touch one"),
                          QStringLiteral("tool touch two"), QStringLiteral("permission touch two")}));
    Q_EMIT m_panel->view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(rows().mid(2),
             QStringList({QStringLiteral("tool touch one"), QStringLiteral("permission touch one"),
                          QStringLiteral("tool touch two"), QStringLiteral("permission touch two"),
                          QStringLiteral("Both made.")}));
}

// Found trying the window: Compact in an empty conversation left a "Nothing to compact yet" row that stayed
// as the first row of the conversation that came next. It is a notice now; the next conversation, started by
// a prompt, by New Session or by opening a saved one, starts with its own first row.
void TestChatPanel::nothingToCompactDoesNotStayForTheNextConversation()
{
    const ChatModel *model = m_panel->model();
    auto compactEmpty = [this, model] {
        m_panel->spinner()->showNotification(QString());
        m_panel->runCommand(QStringLiteral("/compact"));
        QVERIFY2(m_panel->spinner()->notification().startsWith(QStringLiteral("Nothing to compact yet")),
                 qPrintable(m_panel->spinner()->notification()));
        QVERIFY(!model->plainText().contains(QStringLiteral("Nothing to compact")));
        QVERIFY(!m_session->isBusy());
    };

    // A prompt starts the conversation.
    compactEmpty();
    firstTurn();
    QCOMPARE(model->item(0).text, QStringLiteral("hi"));
    const QString saved = m_session->sessionId();

    // New Session.
    m_panel->newSession();
    compactEmpty();
    m_panel->newSession();
    QCOMPARE(model->rowCount(), 0);

    // Opening the saved conversation.
    compactEmpty();
    m_session->openSessionAsync(saved);
    QTRY_VERIFY(!m_session->isOpening() && m_panel->isHistoryShown() && model->rowCount() > 0);
    QCOMPARE(model->item(0).text, QStringLiteral("hi"));
    QVERIFY(!model->plainText().contains(QStringLiteral("Nothing to compact")));
}

// Found trying the window: a session open in a second Keen Desktop opened here without a word; Undo
// Compaction then failed with "could not save the undo: The session ... is in use by another Keen Desktop".
// The chat says so as the session opens.
void TestChatPanel::aSessionInUseElsewhereSaysSoWhenItOpens()
{
    firstTurn();
    const QString saved = m_session->sessionId();
    m_panel->newSession();
    auto loaded = m_session->sessionStore().load(saved);
    QVERIFY(loaded);
    // Another process holds the transcript's lock: a live process named in the lock file as QLockFile
    // writes it (a Keen Desktop's would name keen-desktop).
    QProcess other;
    other.start(QStringLiteral("sleep"), {QStringLiteral("60")});
    QVERIFY(other.waitForStarted());
    const QString lockPath = SessionWriter::lockPath(loaded->session.transcriptPath);
    // First this window's own writer of that session lets go of the lock, on its own thread after New Session
    // (found by 20 repeats: planted before that, the lock file was removed by its unlock).
    QTRY_VERIFY(!QFileInfo::exists(lockPath));
    {
        QFile lock(lockPath);
        QVERIFY(lock.open(QIODevice::WriteOnly));
        lock.write(QByteArray::number(other.processId()) + "\nsleep\n" +
                   QSysInfo::machineHostName().toUtf8() + "\n");
    }
    QSignalSpy inUse(m_session.get(), &AgentSession::sessionInUseElsewhere);
    m_session->openSessionAsync(saved);
    QTRY_VERIFY(!m_session->isOpening() && m_panel->isHistoryShown() && m_panel->model()->rowCount() > 0);
    QTRY_COMPARE(inUse.size(), 1);
    QTRY_VERIFY2(lastText().contains(
                     QStringLiteral("is in use by another Keen Desktop (process %1)").arg(other.processId())),
                 qPrintable(lastText()));
    QCOMPARE(m_panel->model()->item(0).text, QStringLiteral("hi")); // the conversation is shown all the same

    // Once the other one is gone, it opens without a word (its lock is taken over).
    other.kill();
    QVERIFY(other.waitForFinished());
    m_panel->newSession();
    m_session->openSessionAsync(saved);
    QTRY_VERIFY(!m_session->isOpening() && m_panel->isHistoryShown() && m_panel->model()->rowCount() > 0);
    // The session's writer has tried the lock, and holds it: the lock file names this process.
    QTRY_VERIFY([&lockPath] {
        qint64 pid = 0;
        QString host;
        QString application;
        return QLockFile(lockPath).getLockInfo(&pid, &host, &application) &&
               pid == QCoreApplication::applicationPid();
    }());
    QCOMPARE(inUse.size(), 1);
    QVERIFY(!m_panel->model()->plainText().contains(QStringLiteral("is in use by another")));
}

// Skills (reference 6.1, 6.2, 7.2): /skills lists the folder's and the bundled skills, the completion list
// offers them, /<name> sends the skill's instructions as the message (queued like a prompt while a turn
// runs), the system prompt names them, and a disabled skill is refused.
void TestChatPanel::skillsAreListedActivatedAndQueued()
{
    const QString skillPath = m_session->workspace() + QStringLiteral("/.agents/skills/lint/SKILL.md");
    QVERIFY(QDir().mkpath(QFileInfo(skillPath).absolutePath()));
    QFile skill(skillPath);
    QVERIFY(skill.open(QIODevice::WriteOnly));
    skill.write("---\nname: lint\ndescription: Lint the sources and fix what the linter reports\n---\n"
                "Lint $1 and report. Everything: $ARGUMENTS\n");
    skill.close();
    m_panel->setWorkspace(m_session->workspace()); // what the window does when a folder opens
    QTRY_VERIFY(m_session->skills().find(QStringLiteral("lint")));

    typeAndSend(QStringLiteral("/skills"));
    QVERIFY2(
        lastText().contains(QStringLiteral("| `/lint` | ✓ enabled | Lint the sources and fix what the linter "
                                           "reports |")),
        qPrintable(lastText()));
    QVERIFY(lastText().contains(QStringLiteral("| `/commit` | ✓ enabled |")));

    QTest::keyClicks(m_panel->input(), QStringLiteral("/li"));
    QCompleter *completer = m_panel->input()->completer();
    QTRY_VERIFY(completer->popup()->isVisible());
    QStringList offered;
    for (int row = 0; row < completer->completionModel()->rowCount(); ++row)
        offered << completer->completionModel()->index(row, 0).data(Qt::EditRole).toString();
    QVERIFY2(offered.contains(
                 QStringLiteral("/lint [arguments]  —  Skill: Lint the sources and fix what the linter "
                                "reports")),
             qPrintable(offered.join(QLatin1Char(','))));
    completer->popup()->hide();
    m_panel->input()->clear();

    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Linted.")), ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/lint src/ \"two words\""));
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Linted.")));
    QTRY_VERIFY(!m_session->isBusy());
    const MessageList sent = m_client->requests().constLast();
    QCOMPARE(sent.constLast(),
             Message::user(QStringLiteral("[Activate skill: lint]\n\nLint src/ and report. Everything: src/ "
                                          "\"two words\"")));
    QVERIFY2(
        sent.constFirst().content.contains(
            QStringLiteral("- lint: Lint the sources and fix what the linter reports → read ") + skillPath),
        qPrintable(sent.constFirst().content));

    // While a turn runs, a skill waits in the queue like a prompt.
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("held")), ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("a long task"));
    QTRY_VERIFY(m_session->isBusy());
    typeAndSend(QStringLiteral("/commit only the parser"));
    QCOMPARE(m_panel->queue().size(), 1);
    QVERIFY(m_panel->queue().constFirst().startsWith(QStringLiteral("[Activate skill: commit]\n\n# Commit")));
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Committed.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_client->open(QStringLiteral("held"));
    QTRY_VERIFY(m_panel->model()->plainText().contains(QStringLiteral("Committed.")));
    QVERIFY(m_client->requests().constLast().constLast().content.contains(QStringLiteral("only the parser")));
    QTRY_VERIFY(!m_session->isBusy());

    // A skill written meanwhile (by the person, or by the agent in a turn) is offered once a turn has ended.
    QThreadPool::globalInstance()->waitForDone(); // the last turn's reading of the folder is done
    QCoreApplication::processEvents();
    const QString laterPath = m_session->workspace() + QStringLiteral("/.keen/skills/later/SKILL.md");
    QVERIFY(QDir().mkpath(QFileInfo(laterPath).absolutePath()));
    QFile later(laterPath);
    QVERIFY(later.open(QIODevice::WriteOnly));
    later.write("---\nname: later\ndescription: Added while the window was open\n---\nDo it later.\n");
    later.close();
    QVERIFY(!m_session->skills().find(QStringLiteral("later")));
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Noted.")), ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("anything new?"));
    QTRY_VERIFY(m_session->skills().find(QStringLiteral("later")));

    typeAndSend(QStringLiteral("/skills disable lint"));
    QTRY_COMPARE(m_panel->spinner()->notification(), QStringLiteral("✓ Disabled: lint"));
    const qsizetype requests = m_client->requests().size();
    typeAndSend(QStringLiteral("/lint src/"));
    QCOMPARE(m_panel->spinner()->notification(),
             QStringLiteral("The skill lint is disabled; /skills enable lint offers it again"));
    QCOMPARE(m_client->requests().size(), requests);
    typeAndSend(QStringLiteral("/skills status"));
    QVERIFY(lastText().contains(QStringLiteral("| `/lint` | ✗ disabled | `") + skillPath));

    typeAndSend(QStringLiteral("/nosuch thing"));
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("No such command or skill: /nosuch"));
    typeAndSend(QStringLiteral("/skills frobnicate"));
    QCOMPARE(m_panel->spinner()->notification(),
             QStringLiteral("Usage: /skills [list|status|reload|enable <name>|disable <name>]"));
    QCOMPARE(m_client->requests().size(), requests);
}

// /adversary (reference 6.1, 6.2): a second look reviews the conversation on the side. It gets the
// conversation as text in one request and only the reading tools: a read inside the folder works, one outside
// is refused without asking anyone. Its row shows its reads and its findings; nothing of it is kept; while a
// turn runs it waits in the queue; Esc cancels it.
void TestChatPanel::adversaryReviewsTheConversationReadOnly()
{
    typeAndSend(QStringLiteral("/adversary"));
    QCOMPARE(m_panel->spinner()->notification(),
             QStringLiteral("Nothing to review yet: the conversation is empty."));
    firstTurn();
    const QString source = m_session->workspace() + QStringLiteral("/src/parser.cpp");
    QVERIFY(QDir().mkpath(QFileInfo(source).absolutePath()));
    QFile file(source);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("int parse() { return 0; }\n");
    file.close();
    const QString outside = m_env->path(QStringLiteral("outside.txt"));
    QFile other(outside);
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("not for the reviewer\n");
    other.close();

    QSignalSpy asked(m_session.get(), &AgentSession::permissionRequested);
    m_client->addTurn(
        {ScriptedLlmClient::runTool(QStringLiteral("read_file"),
                                    {{QStringLiteral("path"), QStringLiteral("src/parser.cpp")}}),
         ScriptedLlmClient::runTool(QStringLiteral("read_file"), {{QStringLiteral("path"), outside}}),
         ScriptedLlmClient::runTool(QStringLiteral("bash"),
                                    {{QStringLiteral("command"), QStringLiteral("ls")}}),
         ScriptedLlmClient::chunk(QStringLiteral("`parse()` ignores errors.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/adversary focus on error handling"));
    QTRY_VERIFY(!m_session->isAsideRunning());
    const QString row = lastText();
    QVERIFY2(row.startsWith(QStringLiteral("**review** focus on error handling\n\n")), qPrintable(row));
    QVERIFY2(row.contains(QStringLiteral("> Read src/parser.cpp")), qPrintable(row));
    QVERIFY(row.endsWith(QStringLiteral("`parse()` ignores errors.")));

    const MessageList request = m_client->requests().constLast();
    QCOMPARE(request.size(), 2);
    QVERIFY(request.at(0).content.startsWith(QStringLiteral("You are a critical reviewer")));
    QCOMPARE(request.at(1), Message::user(QStringLiteral("The conversation to review:\n\n[user]: hi\n\n"
                                                         "[main agent]: Hello there.\n\n---\n\n"
                                                         "focus on error handling")));
    QCOMPARE(m_client->toolNames().constLast(),
             (QStringList{QStringLiteral("glob"), QStringLiteral("grep"), QStringLiteral("read_file")}));
    const StreamOptions options = m_client->options().constLast();
    QVERIFY(options.oneShot && options.disableAutoCompaction && !options.disableToolCalls);
    const QList<ToolCallInfo> results = m_client->toolResults();
    QCOMPARE(results.size(), 3);
    QVERIFY2(results.at(0).error.isEmpty(), qPrintable(results.at(0).error));
    QVERIFY(serializeJson(results.at(0).output).contains(QStringLiteral("int parse()")));
    QVERIFY2(results.at(1).error.contains(QStringLiteral("outside the workspace")),
             qPrintable(results.at(1).error));
    QVERIFY(!serializeJson(results.at(1).output).contains(QStringLiteral("not for the reviewer")));
    QCOMPARE(results.at(2).error, QStringLiteral("unknown tool: bash"));
    QCOMPARE(asked.size(), 0); // nobody was asked

    // Not kept: the history and the transcript have the turn only.
    QCOMPARE(m_session->messages().size(), 2);
    QFile transcript(m_session->transcriptPath());
    QVERIFY(transcript.open(QIODevice::ReadOnly));
    QVERIFY(!transcript.readAll().contains("ignores errors"));

    // While a turn runs, the review waits for it, then reviews what it did.
    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("held")),
                       ScriptedLlmClient::chunk(QStringLiteral("Work done.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("review")),
                       ScriptedLlmClient::chunk(QStringLiteral("Looks fine.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("work more"));
    QTRY_VERIFY(m_session->isBusy());
    typeAndSend(QStringLiteral("/adversary"));
    QCOMPARE(m_panel->queue(), QStringList{QStringLiteral("/adversary")});
    m_client->open(QStringLiteral("held"));
    QTRY_VERIFY(m_session->isAsideRunning());
    QVERIFY(m_panel->queue().isEmpty());
    QVERIFY(lastText().startsWith(QStringLiteral("**review** of the conversation so far\n\n")));
    QTRY_COMPARE(m_client->requests().size(), 4);
    QVERIFY(m_client->requests().constLast().at(1).content.contains(
        QStringLiteral("[main agent]: Work done.\n\n---\n\nReview this conversation.")));
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QTRY_VERIFY(!m_session->isAsideRunning());
    QVERIFY(lastText().endsWith(QStringLiteral("*Cancelled.*")));
}

// Subagents (reference 6.1, 7.3): /subagents lists the folder's profiles; a delegate_task call asks once in
// build mode when a child may change files, shows what the children do on its card while they run, and ends
// with a line per task; the model gets the children's answers.
void TestChatPanel::subagentsAreListedAndDelegatedTasksShowOnTheirCard()
{
    const QString profile = m_session->workspace() + QStringLiteral("/.agents/agents/fixer.md");
    QVERIFY(test::writeFile(profile, "---\nname: fixer\ndescription: Fixes small bugs\n"
                                     "permissions: [read, write]\n---\nFix it.\n"));
    typeAndSend(QStringLiteral("/subagents"));
    QTRY_VERIFY(lastText().contains(QStringLiteral("| `fixer` | Fixes small bugs | this conversation's | "
                                                   "read, write |")));
    QTRY_VERIFY(m_session->subagents().find(QStringLiteral("fixer")));

    // The parent's turn calls delegate_task; the child (the same scripted provider) answers after a gate.
    m_client->addTurn(
        {ScriptedLlmClient::runTool(
             QStringLiteral("delegate_task"),
             {{QStringLiteral("tasks"),
               QJsonArray{QJsonObject{{QStringLiteral("agent"), QStringLiteral("fixer")},
                                      {QStringLiteral("task"), QStringLiteral("Fix the typo.")}}}}}),
         ScriptedLlmClient::chunk(QStringLiteral("The fixer fixed it.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    TokenUsage childTokens;
    childTokens.inputTokens = 7000;
    childTokens.outputTokens = 300;
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Looking.")),
                       ScriptedLlmClient::gate(QStringLiteral("child")),
                       ScriptedLlmClient::chunk(QStringLiteral("Fixed the typo in README.")),
                       ScriptedLlmClient::event(StreamEvent::usageReport(childTokens)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    const qint64 inputBefore = m_session->totalInputTokens();
    const qint64 outputBefore = m_session->totalOutputTokens();
    typeAndSend(QStringLiteral("fix the typo"));
    const ChatModel *model = m_panel->model();
    QTRY_VERIFY(model->hasPendingPermission());
    int card = -1;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).kind == ChatItem::Kind::Tool)
            card = row;
    }
    QVERIFY(card >= 0);
    QCOMPARE(model->item(card).label, QStringLiteral("Delegate"));
    QCOMPARE(model->item(card).detail, QStringLiteral("fixer"));
    const ChatItem &asked = model->item(model->rowCount() - 1);
    QCOMPARE(asked.kind, ChatItem::Kind::Permission);
    QCOMPARE(asked.permission.command, QStringLiteral("fixer: Fix the typo."));
    Q_EMIT m_panel->view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);

    // While the child works, its activity is on the card.
    QTRY_VERIFY(model->item(card).output.contains(QStringLiteral("[fixer] started")));
    QCOMPARE(model->item(card).toolState, ChatItem::ToolState::Running);
    m_client->open(QStringLiteral("child"));
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(model->item(card).toolState, ChatItem::ToolState::Done);
    QCOMPARE(model->item(card).metadata, QStringLiteral("1 completed, 0 failed"));
    QVERIFY2(model->item(card).output.startsWith(QStringLiteral("fixer: completed in ")),
             qPrintable(model->item(card).output));
    QVERIFY(model->item(card).output.endsWith(QStringLiteral(", 0 tool calls")));
    QCOMPARE(lastText(), QStringLiteral("The fixer fixed it."));
    // The child's tokens are in the session's ↑/↓ totals (the parent's turn reported none).
    QTRY_COMPARE(m_session->totalInputTokens(), inputBefore + 7000);
    QCOMPARE(m_session->totalOutputTokens(), outputBefore + 300);
    // The child got a fresh context: its own prompt and the task only.
    const QList<MessageList> requests = m_client->requests();
    const MessageList child = requests.at(requests.size() - 1);
    QCOMPARE(child.size(), 2);
    QVERIFY(child.at(0).content.contains(QStringLiteral("# Mandatory Subagent Boundary")));
    QCOMPARE(child.at(1), Message::user(QStringLiteral("Fix the typo.")));
    QVERIFY(requests.at(requests.size() - 2)
                .constFirst()
                .content.contains(QStringLiteral("- fixer: Fixes small bugs")));
    const QList<ToolCallInfo> results = m_client->toolResults();
    QVERIFY(serializeJson(results.constLast().output).contains(QStringLiteral("Fixed the typo in README.")));
}

// MCP (reference 6.1 /mcp, 2.2 call_mcp_tool): /mcp reads mcp/configs.json, starts the servers and shows
// their state (again once the starting ones settled); a server that cannot start is a notice; /mcp connect
// names an unknown server; a call_mcp_tool asks with the server, tool and arguments, and its card says MCP.
void TestChatPanel::mcpServersAreListedAndTheirToolsCalled()
{
    QVERIFY(test::writeFakeMcpServers(m_env->home()));
    // A server of an earlier configs.json left its skill: it goes, so the model is not offered its tools.
    const QString gone = m_env->path(QStringLiteral("skills/mcp:gone/SKILL.md"));
    QVERIFY(
        test::writeFile(gone, "---\nname: mcp:gone\ndescription: Tools of the MCP server gone.\n---\nx\n"));
    QSignalSpy notices(m_session.get(), &AgentSession::notification);
    typeAndSend(QStringLiteral("/mcp"));
    QTRY_VERIFY_WITH_TIMEOUT(
        lastText().contains(QStringLiteral("| fake | connected | none | 11 tools · fake-mcp 1.0 |")), 20000);
    QVERIFY2(lastText().contains(QStringLiteral("| broken | failed | none | ")), qPrintable(lastText()));
    const ChatModel *model = m_panel->model();
    int told = 0;
    for (const QList<QVariant> &notice : std::as_const(notices))
        told += notice.at(0).toString().startsWith(QStringLiteral("MCP unavailable: broken: ")) ? 1 : 0;
    QCOMPARE(told, 1);
    QVERIFY(m_session->toolNames().contains(QStringLiteral("call_mcp_tool")));
    QTRY_VERIFY(m_session->skills().find(QStringLiteral("mcp:fake")));
    QVERIFY(!QFileInfo::exists(gone));
    QVERIFY(!m_session->skills().find(QStringLiteral("mcp:gone")));

    typeAndSend(QStringLiteral("/mcp connect nope"));
    QTRY_VERIFY(
        m_panel->spinner()->notification().contains(QStringLiteral("No MCP server or tool is named nope")));
    // A tool's name connects its server again.
    QVERIFY(m_session->reconnectMcp(QStringLiteral("ping_me")));
    QVERIFY(m_session->isMcpStarting());
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isMcpStarting(), 20000);

    m_client->addTurn({ScriptedLlmClient::runTool(
                           QStringLiteral("call_mcp_tool"),
                           {{QStringLiteral("server"), QStringLiteral("fake")},
                            {QStringLiteral("tool"), QStringLiteral("echo")},
                            {QStringLiteral("arguments"),
                             QJsonObject{{QStringLiteral("text"), QStringLiteral("from the window")}}}}),
                       ScriptedLlmClient::chunk(QStringLiteral("Echoed.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("echo something"));
    QTRY_VERIFY(model->hasPendingPermission());
    const ChatItem &asked = model->item(model->rowCount() - 1);
    QCOMPARE(asked.permission.toolName, QStringLiteral("call_mcp_tool"));
    QCOMPARE(asked.permission.path, QStringLiteral("fake/echo"));
    QVERIFY(asked.permission.summary.contains(QStringLiteral("from the window")));
    Q_EMIT m_panel->view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);
    QTRY_VERIFY(!m_session->isBusy());
    int card = -1;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).kind == ChatItem::Kind::Tool)
            card = row;
    }
    QVERIFY(card >= 0);
    QCOMPARE(model->item(card).label, QStringLiteral("MCP"));
    QCOMPARE(model->item(card).detail, QStringLiteral("fake/echo"));
    QCOMPARE(model->item(card).toolState, ChatItem::ToolState::Done);
    QVERIFY(serializeJson(m_client->toolResults().constLast().output)
                .contains(QStringLiteral("from the window")));
    QCOMPARE(lastText(), QStringLiteral("Echoed."));

    // Every server taken out of the file: none runs, call_mcp_tool goes, and so do the servers' skills.
    QVERIFY(test::writeFile(m_env->path(QStringLiteral("mcp/configs.json")), "{\"servers\": {}}"));
    typeAndSend(QStringLiteral("/mcp"));
    QTRY_VERIFY(lastText().startsWith(QStringLiteral("No MCP servers are configured. Add them to `") +
                                      m_env->path(QStringLiteral("mcp/configs.json")) + QStringLiteral("`")));
    QVERIFY(!m_session->toolNames().contains(QStringLiteral("call_mcp_tool")));
    QVERIFY(!QFileInfo::exists(m_env->path(QStringLiteral("skills/mcp:fake"))));
    QTRY_VERIFY(!m_session->skills().find(QStringLiteral("mcp:fake")));
}

// /mcp connect on a server whose auth is "oauth": the sign-in page opens in the browser (its address is in
// the chat too), the browser's redirect finishes it, and the server connects with its token; /mcp logout
// forgets it.
void TestChatPanel::mcpConnectSignsInWithTheBrowser()
{
    test::FakeOAuthMcpServer cloud;
    const QByteArray configs = "{\"servers\": {\"cloud\": {\"url\": \"" + cloud.mcpUrl().toUtf8() +
                               "\", \"auth\": {\"type\": \"oauth\"}}}}";
    QVERIFY(test::writeFile(m_env->path(QStringLiteral("mcp/configs.json")), configs));
    typeAndSend(QStringLiteral("/mcp"));
    QTRY_VERIFY_WITH_TIMEOUT(
        lastText().contains(
            QStringLiteral("| cloud | failed | OAuth | not signed in: /mcp connect cloud signs in with the "
                           "browser |")),
        10000);

    PageCatcher browser;
    QDesktopServices::setUrlHandler(QStringLiteral("http"), &browser, "open");
    const auto unset = qScopeGuard([] { QDesktopServices::unsetUrlHandler(QStringLiteral("http")); });
    typeAndSend(QStringLiteral("/mcp connect cloud"));
    QTRY_COMPARE_WITH_TIMEOUT(browser.opened.size(), 1, 10000);
    const QUrl page = browser.opened.first();
    QVERIFY(page.toString().startsWith(cloud.issuer() + QStringLiteral("/authorize?")));
    QVERIFY2(lastText().startsWith(QStringLiteral("Sign in to MCP server **cloud** in your browser.")) &&
                 lastText().contains(QString::fromUtf8(page.toEncoded())),
             qPrintable(lastText()));

    cloud.challenge = QUrlQuery(page).queryItemValue(QStringLiteral("code_challenge"));
    QCOMPARE(test::FakeOAuthMcpServer::followRedirect(page, QStringLiteral("code-1")), 200);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_panel->spinner()->notification().startsWith(QStringLiteral("Signed in to MCP server cloud")),
        10000);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_session->mcpStatusMarkdown().contains(QStringLiteral("| cloud | connected | OAuth |")), 10000);
    QVERIFY(m_session->toolNames().contains(QStringLiteral("call_mcp_tool")));

    QSignalSpy told(m_session.get(), &AgentSession::notification);
    typeAndSend(QStringLiteral("/mcp logout cloud"));
    QTRY_VERIFY_WITH_TIMEOUT(
        m_panel->spinner()->notification().contains(QStringLiteral("Signed out of MCP server cloud.")),
        10000);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_session->mcpStatusMarkdown().contains(QStringLiteral("| cloud | failed | OAuth | not signed in")),
        10000);
    // Signing out is not news: no "MCP unavailable" follows it.
    QCOMPARE(told.size(), 1);
    typeAndSend(QStringLiteral("/mcp logout nope"));
    QTRY_VERIFY(m_panel->spinner()->notification().contains(QStringLiteral("No MCP server named nope")));

    // A sign-in waiting for the browser says so, and Esc stops it: its loopback address answers no more, so
    // a browser that finishes later signs in nothing.
    typeAndSend(QStringLiteral("/mcp connect cloud"));
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Signing in to MCP server cloud..."));
    QTRY_COMPARE_WITH_TIMEOUT(browser.opened.size(), 2, 10000);
    QVERIFY2(lastText().contains(QStringLiteral("Esc cancels")), qPrintable(lastText()));
    QCOMPARE(m_session->mcpSignInServer(), QStringLiteral("cloud"));
    QTest::keyClick(m_panel->input(), Qt::Key_Escape);
    QCOMPARE(m_panel->spinner()->notification(), QStringLiteral("Sign-in to MCP server cloud cancelled."));
    QVERIFY(m_session->mcpSignInServer().isEmpty());
    const QUrl late = browser.opened.at(1);
    cloud.challenge = QUrlQuery(late).queryItemValue(QStringLiteral("code_challenge"));
    QTRY_COMPARE_WITH_TIMEOUT(test::FakeOAuthMcpServer::followRedirect(late, QStringLiteral("code-2")), 0,
                              10000);
    QVERIFY(
        m_session->mcpStatusMarkdown().contains(QStringLiteral("| cloud | failed | OAuth | not signed in")));
}

// A profile without a model of its own runs on the conversation's: its thinking_effort applies where that
// model offers it, and is left out where it does not (as settings.json's is), so the request is not refused.
void TestChatPanel::aSubagentsEffortIsKeptOnlyWhereTheModelOffersIt()
{
    QList<ClientConfig> made;
    m_session->setClientFactory([this, &made](const ClientConfig &config) {
        made.append(config);
        return Result<std::shared_ptr<LlmClient>>(std::static_pointer_cast<LlmClient>(m_client));
    });
    ClientConfig config = m_session->clientConfig();
    config.providerId = QStringLiteral("googleai");
    config.model = QStringLiteral("gemini-3.1-pro-preview"); // efforts: low, medium, high
    config.thinkingEffort = QStringLiteral("high");
    m_session->setClientConfig(config);
    const QString folder = m_session->workspace() + QStringLiteral("/.agents/agents/");
    QVERIFY(test::writeFile(folder + QStringLiteral("quick.md"),
                            "---\nname: quick\ndescription: Quick looks\nthinking_effort: low\n"
                            "permissions: [read]\n---\nBe quick.\n"));
    QVERIFY(test::writeFile(folder + QStringLiteral("deep.md"),
                            "---\nname: deep\ndescription: Deep looks\nthinking_effort: max\n"
                            "permissions: [read]\n---\nBe thorough.\n"));
    typeAndSend(QStringLiteral("/subagents"));
    QTRY_VERIFY(m_session->subagents().find(QStringLiteral("deep")));

    m_client->addTurn({ScriptedLlmClient::runTool(
                           QStringLiteral("delegate_task"),
                           {{QStringLiteral("tasks"),
                             QJsonArray{QJsonObject{{QStringLiteral("agent"), QStringLiteral("quick")},
                                                    {QStringLiteral("task"), QStringLiteral("Look.")}},
                                        QJsonObject{{QStringLiteral("agent"), QStringLiteral("deep")},
                                                    {QStringLiteral("task"), QStringLiteral("Look.")}}}}}),
                       ScriptedLlmClient::chunk(QStringLiteral("Both looked.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    for (int child = 0; child < 2; ++child)
        m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Looked.")),
                           ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("look twice"));
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isBusy(), 10000);
    QStringList efforts;
    for (const ClientConfig &child : std::as_const(made))
        efforts.append(child.thinkingEffort);
    efforts.sort();
    // The parent's client, then one per child: "low" taken, "max" left out for the parent's "high".
    QCOMPARE(efforts, (QStringList{QStringLiteral("high"), QStringLiteral("high"), QStringLiteral("low")}));
}

// /adversary model (reference 6.1): a review can run on another model, of the same provider (its key and
// settings kept) or of another one (its configuration looked up off the GUI thread); a provider that cannot
// be used ends the review's row with the reason; the choice is announced for the window to save.
void TestChatPanel::adversaryModelPicksTheReviewer()
{
    QList<ClientConfig> made;
    m_session->setClientFactory([this, &made](const ClientConfig &config) {
        made.append(config);
        return Result<std::shared_ptr<LlmClient>>(std::static_pointer_cast<LlmClient>(m_client));
    });
    QStringList lookedUp;
    m_session->setConfigLookup([&lookedUp](const QString &provider, const QString &model) {
        lookedUp.append(provider + QLatin1Char('/') + model); // on a worker; read after the review ends
        if (provider == QLatin1String("nokey"))
            return Result<ClientConfig>::failure(QStringLiteral("no API key for nokey"));
        ClientConfig config;
        config.providerId = provider;
        config.model = model;
        config.apiKey = QStringLiteral("other-key");
        config.contextWindow = 50000;
        return Result<ClientConfig>(config);
    });
    QSignalSpy chosen(m_panel.get(), &ChatPanel::reviewerModelChanged);
    firstTurn();
    const ClientConfig conversation = m_session->clientConfig();

    typeAndSend(QStringLiteral("/adversary model"));
    QVERIFY2(lastText().startsWith(QStringLiteral("Reviews run on this conversation's model.")),
             qPrintable(lastText()));

    // Another model of the conversation's provider.
    typeAndSend(QStringLiteral("/adversary model ") + conversation.providerId + QStringLiteral("/big-model"));
    QCOMPARE(m_panel->spinner()->notification(),
             QStringLiteral("✓ Reviews run on ") + conversation.providerId + QStringLiteral("/big-model"));
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.constLast(), (QVariantList{conversation.providerId, QStringLiteral("big-model")}));
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Review one.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/adversary"));
    QTRY_VERIFY(!m_session->isAsideRunning());
    QVERIFY(lastText().endsWith(QStringLiteral("Review one.")));
    QCOMPARE(made.constLast().model, QStringLiteral("big-model"));
    QCOMPARE(made.constLast().providerId, conversation.providerId);
    QCOMPARE(made.constLast().apiKey, conversation.apiKey);
    QVERIFY(lookedUp.isEmpty());
    QCOMPARE(m_session->clientConfig().model, conversation.model); // the conversation keeps its own

    // Another provider: looked up, then reviewed on it.
    typeAndSend(QStringLiteral("/adversary model openai/gpt-5.5"));
    QCOMPARE(m_session->reviewerModel(), QStringLiteral("openai/gpt-5.5"));
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Review two.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    typeAndSend(QStringLiteral("/adversary"));
    QTRY_VERIFY(!m_session->isAsideRunning());
    QVERIFY(lastText().endsWith(QStringLiteral("Review two.")));
    QCOMPARE(lookedUp, QStringList{QStringLiteral("openai/gpt-5.5")});
    QCOMPARE(made.constLast().providerId, QStringLiteral("openai"));
    QCOMPARE(made.constLast().apiKey, QStringLiteral("other-key"));

    // A provider that cannot be used: the row says why, and nothing was sent.
    const qsizetype requests = m_client->requests().size();
    typeAndSend(QStringLiteral("/adversary model nokey/m"));
    typeAndSend(QStringLiteral("/adversary"));
    QTRY_VERIFY(!m_session->isAsideRunning());
    QVERIFY2(lastText().contains(QStringLiteral("The reviewer nokey/m cannot be used: no API key for nokey")),
             qPrintable(lastText()));
    QCOMPARE(m_client->requests().size(), requests);

    typeAndSend(QStringLiteral("/adversary model default"));
    QCOMPARE(m_session->reviewerModel(), QString());
    QCOMPARE(chosen.constLast(), (QVariantList{QString(), QString()}));
    typeAndSend(QStringLiteral("/adversary model nothing"));
    QCOMPARE(m_panel->spinner()->notification(),
             QStringLiteral("Usage: /adversary model <provider>/<model> | default"));
    QCOMPARE(chosen.size(), 4);
}

QTEST_MAIN(TestChatPanel)
#include "tst_chatpanel.moc"
