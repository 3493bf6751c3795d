// Pins in the window (issue 16): the Pin actions of a chat row's context menu (a message, the code block
// under the pointer, a tool result), the pin mark, /pin and /pins, the Pins dialog with the budget and
// Unpin, and the dialog that refuses a pin over the budget. A real AgentSession with a scripted provider;
// every pin goes to the transcript.
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"
#include "droppeddetailsdialog.h"
#include "pinsdialog.h"

#include "agent/agentsession.h"
#include "loop/contextbudget.h"
#include "scriptedllmclient.h"
#include "scriptedsession.h"
#include "session/sessionpins.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTest>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeWidget>

using namespace keen;
using test::ScriptedLlmClient;

namespace {

const QString kFirstCode = QStringLiteral("int first() { return 1; }");
const QString kSecondCode = QStringLiteral("int second()\n{\n    return 2;\n}");

// A reply with two code blocks and prose between them.
QString replyWithCode()
{
    return QStringLiteral("Here is the first:\n\n```cpp\n") + kFirstCode +
           QStringLiteral("\n```\n\nAnd the second one, which matters:\n\n```cpp\n") + kSecondCode +
           QStringLiteral("\n```\n\nDone.");
}

int rowOfKind(const ChatModel *model, ChatItem::Kind kind)
{
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).kind == kind)
            return row;
    }
    return -1;
}

QAction *action(QMenu *menu, const char *name)
{
    return menu->findChild<QAction *>(QLatin1String(name));
}

// The status rows pins and unpins left, in order.
QStringList pinRows(const ChatModel &model)
{
    QStringList rows;
    for (int row = 0; row < model.rowCount(); ++row) {
        const ChatItem &item = model.item(row);
        if (item.kind == ChatItem::Kind::Status && (item.text.startsWith(QStringLiteral("Pinned: ")) ||
                                                    item.text.startsWith(QStringLiteral("Unpinned: "))))
            rows.append(item.text);
    }
    return rows;
}

} // namespace

class TestPins : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void pinMessageCodeBlockAndToolResultFromTheirRows();
    void pinToolResultOfAReadPinsWhatItReturned();
    void pinMessageOnAnyRowOfALongReplyPinsTheWholeReply();
    void pinnedToolResultReadsAsItsCardShowedIt();
    void slashPinAndThePinsDialogListBudgetAndUnpin();
    void aPinOverTheBudgetIsRefusedWithADialog();
    void pinsOverBudgetAfterCompactionsAreSaidOnce();
    void droppedDetailsRowListsThemAndPinsTheOriginal();
    void droppedDetailsReadAsTheyWereWritten();
    void everyPinAndUnpinLeavesOneRowAsTheReopenedSessionShows();

private:
    void turn(const QString &prompt, const QList<ScriptedLlmClient::Step> &steps);
    std::unique_ptr<QMenu> menuAt(int row, const QPoint &offset = QPoint(-1, -1));
    QList<SessionEvent> transcript() const;

    std::unique_ptr<test::TestEnvironment> m_env;
    std::unique_ptr<AgentSession> m_session;
    std::shared_ptr<ScriptedLlmClient> m_client;
    std::unique_ptr<ChatPanel> m_panel;
};

void TestPins::init()
{
    m_env = std::make_unique<test::TestEnvironment>();
    m_client = std::make_shared<ScriptedLlmClient>();
    m_session = test::makeScriptedSession(*m_env, m_client);
    m_panel = std::make_unique<ChatPanel>(m_session.get());
    m_panel->resize(900, 700);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
}

void TestPins::cleanup()
{
    m_panel.reset();
    m_session.reset();
    m_client.reset();
    m_env.reset();
}

void TestPins::turn(const QString &prompt, const QList<ScriptedLlmClient::Step> &steps)
{
    QList<ScriptedLlmClient::Step> all = steps;
    all.append(ScriptedLlmClient::event(StreamEvent::done()));
    m_client->addTurn(all);
    m_panel->submitInput(prompt);
    QTRY_VERIFY(!m_session->isBusy());
}

std::unique_ptr<QMenu> TestPins::menuAt(int row, const QPoint &offset)
{
    ChatView *view = m_panel->view();
    const QModelIndex index = m_panel->model()->index(row);
    view->scrollTo(index, QAbstractItemView::PositionAtTop);
    const QRect rect = view->visualRect(index);
    return view->contextMenuFor(offset.x() < 0 ? rect.center() : rect.topLeft() + offset);
}

QList<SessionEvent> TestPins::transcript() const
{
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    return loaded ? loaded->events : QList<SessionEvent>();
}

// Found trying the window: a reply longer than ChatModel::MaxRowChars goes on over several rows, and Pin
// Message on a later row pinned that row's part only (an interrupted 55,000-character reply pinned as its
// last 7,330 characters). Any row of the reply pins all of it, as the transcript has it; Copy Message copies
// all.
void TestPins::pinMessageOnAnyRowOfALongReplyPinsTheWholeReply()
{
    const QString reply = test::Workloads::markdownReply(ChatModel::MaxRowChars * 3);
    turn(QStringLiteral("explain everything"), {ScriptedLlmClient::chunk(reply)});
    ChatModel *model = m_panel->model();
    QList<int> replyRows;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).kind == ChatItem::Kind::AssistantText)
            replyRows.append(row);
    }
    QVERIFY2(replyRows.size() >= 3, qPrintable(QString::number(replyRows.size())));

    std::unique_ptr<QMenu> menu = menuAt(replyRows.constLast());
    QVERIFY(action(menu.get(), "pinMessageAction"));
    action(menu.get(), "pinMessageAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 1);
    QCOMPARE(m_session->pins().at(0).kind, Pin::Kind::Message);
    QCOMPARE(m_session->pins().at(0).text.size(), reply.size());
    QCOMPARE(m_session->pins().at(0).text, reply);
    QCOMPARE(SessionPins::active(transcript()), m_session->pins());
    // The middle row's message is the same whole reply.
    QCOMPARE(model->wholeText(replyRows.at(1)), reply);
    QCOMPARE(model->wholeText(replyRows.constFirst()), reply);
}

// Issue 16, found re-checking it: Pin Tool Result on a read_file card (any tool but bash) pinned the card's
// own line ("✓ Read parser.h 1 lines") instead of what the tool returned; live and after the session is
// opened again (replayed from the transcript), the pin is the result as the model got it.
void TestPins::pinToolResultOfAReadPinsWhatItReturned()
{
    ToolCallInfo call;
    call.callId = QStringLiteral("r1");
    call.name = QStringLiteral("read_file");
    call.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("parser.h")}};
    ToolCallInfo ended = call;
    ended.output =
        QJsonObject{{QStringLiteral("content"), QStringLiteral("1:3fa|int parse(const char *text);")},
                    {QStringLiteral("total_lines"), 1}};
    turn(QStringLiteral("read parser.h"),
         {ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, call)),
          ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, ended)),
          ScriptedLlmClient::chunk(QStringLiteral("It declares parse."))});
    const QString returned =
        QStringLiteral(R"({"content":"1:3fa|int parse(const char *text);","total_lines":1})");

    ChatModel *model = m_panel->model();
    std::unique_ptr<QMenu> menu = menuAt(rowOfKind(model, ChatItem::Kind::Tool));
    // Found when tried: Copy Message on a read's card copied its line, "✓ Read parser.h 1 line". Copy Output
    // copies what the read gave back as the card reads it: the file's text, without the line:hash| prefixes.
    QVERIFY(action(menu.get(), "copyToolOutputAction"));
    action(menu.get(), "copyToolOutputAction")->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("int parse(const char *text);"));
    QApplication::clipboard()->clear();
    QVERIFY(action(menu.get(), "pinToolResultAction"));
    action(menu.get(), "pinToolResultAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 1);
    QCOMPARE(m_session->pins().at(0).kind, Pin::Kind::ToolResult);
    QCOMPARE(m_session->pins().at(0).text, returned);
    QCOMPARE(m_session->pins().at(0).source, QStringLiteral("read_file parser.h"));

    model->replay(transcript());
    menu = menuAt(rowOfKind(model, ChatItem::Kind::Tool));
    action(menu.get(), "copyToolOutputAction")->trigger(); // the same from the transcript
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("int parse(const char *text);"));
    QVERIFY(action(menu.get(), "pinToolResultAction"));
    action(menu.get(), "pinToolResultAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 2);
    QCOMPARE(m_session->pins().at(1).text, returned);
}

// Tried as a user: a pinned read_file result showed as raw JSON, `Pinned: {"bytes_read":43,"content":"1:c6f|
// These are my notes.\n2:644|…`, in the chat and the Pins dialog. The pin still carries the full output to
// the model (pin_added keeps it as the tool returned it); the pin row, the Pins dialog and the session
// opened again show the file's text without the line:hash| prefixes; a pinned search shows its matches.
void TestPins::pinnedToolResultReadsAsItsCardShowedIt()
{
    ToolCallInfo read;
    read.callId = QStringLiteral("r1");
    read.name = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("notes.md")}};
    ToolCallInfo readEnd = read;
    readEnd.output = QJsonObject{{QStringLiteral("bytes_read"), 43},
                                 {QStringLiteral("content"),
                                  QStringLiteral("1:c6f|These are my notes.\n2:644|Keep the parser small.")},
                                 {QStringLiteral("path"), QStringLiteral("/tmp/work/notes.md")},
                                 {QStringLiteral("total_lines"), 2}};
    ToolCallInfo grep;
    grep.callId = QStringLiteral("g1");
    grep.name = QStringLiteral("grep");
    grep.input = QJsonObject{{QStringLiteral("pattern"), QStringLiteral("parse")}};
    ToolCallInfo grepEnd = grep;
    grepEnd.output = QJsonObject{
        {QStringLiteral("base_path"), QStringLiteral("/tmp/work")},
        {QStringLiteral("count"), 1},
        {QStringLiteral("matches"),
         QJsonArray{QJsonObject{{QStringLiteral("file"), QStringLiteral("/tmp/work/src/parser.h")},
                                {QStringLiteral("line_number"), 3},
                                {QStringLiteral("line"), QStringLiteral("int parse(const char *text);")},
                                {QStringLiteral("line_hash"), QStringLiteral("3fa")}}}}};
    turn(QStringLiteral("read my notes"),
         {ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, read)),
          ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, readEnd)),
          ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, grep)),
          ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, grepEnd)),
          ScriptedLlmClient::chunk(QStringLiteral("Noted."))});
    ChatModel *model = m_panel->model();
    const int readRow = rowOfKind(model, ChatItem::Kind::Tool);
    QVERIFY(readRow >= 0);
    std::unique_ptr<QMenu> menu = menuAt(readRow);
    action(menu.get(), "pinToolResultAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 1);
    menu = menuAt(readRow + 1);
    action(menu.get(), "pinToolResultAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 2);

    // What travels to the model: the output as the tool returned it.
    QCOMPARE(QJsonDocument::fromJson(m_session->pins().at(0).text.toUtf8()).object(),
             readEnd.output.toObject());
    // What the person reads: the pin rows...
    QStringList pinRows;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->item(row).text.startsWith(QStringLiteral("Pinned: ")))
            pinRows.append(model->item(row).text);
    }
    QCOMPARE(pinRows, (QStringList{QStringLiteral("Pinned: These are my notes."),
                                   QStringLiteral("Pinned: src/parser.h:3: int parse(const char *text);")}));
    // ...the Pins dialog, its line and its tooltip...
    m_panel->showPinsDialog();
    PinsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_panel->findChild<PinsDialog *>()) != nullptr && dialog->isVisible());
    auto *list = dialog->findChild<QListWidget *>(QStringLiteral("pinsList"));
    QVERIFY(list);
    QCOMPARE(list->count(), 2);
    QCOMPARE(list->item(0)->text(), QStringLiteral("Tool result (read_file notes.md): These are my notes."));
    // The tooltip is the text as it reads, never taken as rich text (an <img> in a file read is not loaded).
    auto shown = [](const QString &toolTip) {
        QTextDocument document;
        document.setHtml(toolTip);
        return document.toPlainText();
    };
    QCOMPARE(shown(list->item(0)->toolTip()), QStringLiteral("These are my notes.\nKeep the parser small."));
    for (int i = 0; i < list->count(); ++i) {
        for (const QString &text : {list->item(i)->text(), shown(list->item(i)->toolTip())}) {
            for (const QString &raw : {QStringLiteral("{"), QStringLiteral("bytes_read"),
                                       QStringLiteral("1:c6f|"), QStringLiteral("line_hash")})
                QVERIFY2(!text.contains(raw), qPrintable(text));
        }
    }
    dialog->close();
    // ...and the session opened again.
    ChatModel replayed;
    replayed.replay(transcript());
    QVERIFY(replayed.plainText().contains(QStringLiteral("Pinned: These are my notes.")));
    QVERIFY(!replayed.plainText().contains(QStringLiteral("bytes_read")));
}

// Issue 16, pins in the window: the context menu of a user message, an assistant message (and the code
// block under the pointer, not the other one) and a finished tool card pins each verbatim; the row shows the
// pin mark and a status row says what was pinned; the transcript has the pin_added events.
void TestPins::pinMessageCodeBlockAndToolResultFromTheirRows()
{
    ToolCallInfo call;
    call.callId = QStringLiteral("c1");
    call.name = QStringLiteral("bash");
    call.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("make test")}};
    ToolCallInfo ended = call;
    ended.output =
        QJsonObject{{QStringLiteral("stdout"), QStringLiteral("FAILED tst_parser: expected 3, got 4")},
                    {QStringLiteral("exit_code"), 1}};
    turn(QStringLiteral("run the tests"),
         {ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, call)),
          ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, ended)),
          ScriptedLlmClient::chunk(replyWithCode())});
    ChatModel *model = m_panel->model();
    const int userRow = rowOfKind(model, ChatItem::Kind::User);
    const int toolRow = rowOfKind(model, ChatItem::Kind::Tool);
    const int replyRow = rowOfKind(model, ChatItem::Kind::AssistantText);
    QVERIFY(userRow >= 0 && toolRow >= 0 && replyRow >= 0);

    // The user message.
    std::unique_ptr<QMenu> menu = menuAt(userRow);
    QVERIFY(action(menu.get(), "pinMessageAction"));
    QVERIFY(!action(menu.get(), "pinCodeBlockAction"));
    action(menu.get(), "pinMessageAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 1);
    QCOMPARE(m_session->pins().at(0).kind, Pin::Kind::Message);
    QCOMPARE(m_session->pins().at(0).text, QStringLiteral("run the tests"));
    QVERIFY(model->item(userRow).pinned);
    QVERIFY(!model->item(replyRow).pinned);

    // The tool card: what it showed, bash's output verbatim.
    menu = menuAt(toolRow);
    QVERIFY(action(menu.get(), "pinToolResultAction"));
    action(menu.get(), "pinToolResultAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 2);
    QCOMPARE(m_session->pins().at(1).kind, Pin::Kind::ToolResult);
    QVERIFY2(m_session->pins().at(1).text.contains(QStringLiteral("FAILED tst_parser: expected 3, got 4")),
             qPrintable(m_session->pins().at(1).text));
    QVERIFY(m_session->pins().at(1).source.startsWith(QStringLiteral("bash")));

    // The second code block, under the pointer: down the row, the pointer meets prose, the first block,
    // prose, then the second block.
    ChatView *view = m_panel->view();
    const QModelIndex index = model->index(replyRow);
    view->scrollTo(index, QAbstractItemView::PositionAtTop);
    const QRect rect = view->visualRect(index);
    QStringList met;
    int secondY = -1;
    for (int y = rect.top(); y < rect.bottom(); y += 2) {
        const QString code = view->chatDelegate()->codeBlockAt(index, rect, QPoint(rect.left() + 60, y));
        const QString seen = code.isEmpty() ? QStringLiteral("prose") : code;
        if (met.isEmpty() || met.constLast() != seen)
            met.append(seen);
        if (code == kSecondCode && secondY < 0)
            secondY = y;
    }
    QCOMPARE(met.mid(0, 4),
             (QStringList{QStringLiteral("prose"), kFirstCode, QStringLiteral("prose"), kSecondCode}));
    menu = view->contextMenuFor(QPoint(rect.left() + 60, secondY + 4));
    QAction *pinCode = action(menu.get(), "pinCodeBlockAction");
    QVERIFY(pinCode);
    pinCode->trigger();
    QTRY_COMPARE(m_session->pins().size(), 3);
    QCOMPARE(m_session->pins().at(2).kind, Pin::Kind::CodeBlock);
    QCOMPARE(m_session->pins().at(2).text, kSecondCode);
    // Over prose the menu has no code block to pin, only the message.
    menu = view->contextMenuFor(QPoint(rect.left() + 60, rect.top() + 6));
    QVERIFY(!action(menu.get(), "pinCodeBlockAction"));
    QVERIFY(action(menu.get(), "pinMessageAction"));
    QVERIFY(model->item(replyRow).pinned);

    // What the person reads, and what the transcript keeps.
    QVERIFY(model->plainText().contains(ChatModel::pinnedText(m_session->pins().at(2))));
    const PinList saved = SessionPins::active(transcript());
    QCOMPARE(saved, m_session->pins());
    // The pins button under the chat shows how many and the budget.
    auto *button = m_panel->findChild<QToolButton *>(QStringLiteral("pinsButton"));
    QVERIFY(button);
    QVERIFY(button->isVisible());
    QVERIFY2(button->text().contains(QStringLiteral("3")), qPrintable(button->text()));
}

// Issue 16: /pin <text> pins a typed note; /pins opens the Pins dialog, which lists the pins with the budget
// used (used / budget), pins another note and unpins the selected one (pin_removed in the transcript).
void TestPins::slashPinAndThePinsDialogListBudgetAndUnpin()
{
    m_panel->submitInput(QStringLiteral("/pin Never edit vendor/ by hand."));
    QTRY_COMPARE(m_session->pins().size(), 1);
    QCOMPARE(m_session->pins().first().kind, Pin::Kind::Note);
    QCOMPARE(m_session->pins().first().text, QStringLiteral("Never edit vendor/ by hand."));
    QVERIFY(!m_session->sessionId().isEmpty()); // the note made the session

    m_panel->submitInput(QStringLiteral("/pins"));
    PinsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_panel->findChild<PinsDialog *>(QStringLiteral("pinsDialog"))) != nullptr);
    QTRY_VERIFY(dialog->isVisible());
    QCOMPARE(dialog->list()->count(), 1);
    QVERIFY(dialog->list()->item(0)->text().contains(QStringLiteral("Never edit vendor/ by hand.")));
    QCOMPARE(dialog->budgetLabel()->text(),
             PinsDialog::budgetText(m_session->pinnedTokens(), m_session->pinBudget()));
    QCOMPARE(m_session->pinBudget(), ContextBudget::inputBudget(200000) / 10);

    auto *note = dialog->findChild<QLineEdit *>(QStringLiteral("pinNoteEdit"));
    QVERIFY(note);
    note->setText(QStringLiteral("The release branch is frozen."));
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("pinNoteButton")), Qt::LeftButton);
    QTRY_COMPARE(dialog->list()->count(), 2);
    QCOMPARE(dialog->budgetLabel()->text(),
             PinsDialog::budgetText(m_session->pinnedTokens(), m_session->pinBudget()));

    auto *unpin = dialog->findChild<QPushButton *>(QStringLiteral("unpinButton"));
    QVERIFY(unpin);
    QVERIFY(!unpin->isEnabled());
    dialog->list()->setCurrentRow(0);
    QVERIFY(unpin->isEnabled());
    QTest::mouseClick(unpin, Qt::LeftButton);
    QTRY_COMPARE(dialog->list()->count(), 1);
    QCOMPARE(m_session->pins().size(), 1);
    QCOMPARE(m_session->pins().first().text, QStringLiteral("The release branch is frozen."));
    const QList<SessionEvent> events = transcript();
    QCOMPARE(events.constLast().kind, SessionEvent::Kind::PinRemoved);
    QCOMPARE(SessionPins::active(events), m_session->pins());
}

// Issue 16: a pin that would take the pins over their budget is refused with a dialog that gives the
// numbers; nothing is pinned or written.
void TestPins::aPinOverTheBudgetIsRefusedWithADialog()
{
    ClientConfig small = m_session->clientConfig();
    small.contextWindow = 34000; // pin budget 2,990 tokens
    m_session->setClientConfig(small);
    m_panel->submitInput(QStringLiteral("/pin ") + QString(10000, QLatin1Char('y')));
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = m_panel->findChild<QMessageBox *>(QStringLiteral("pinRefusedDialog"))) != nullptr);
    QTRY_VERIFY(box->isVisible());
    QVERIFY2(box->text().contains(QStringLiteral("does not fit")), qPrintable(box->text()));
    QVERIFY2(box->text().contains(QLocale().toString(m_session->pinBudget())), qPrintable(box->text()));
    QVERIFY2(box->text().contains(QStringLiteral("raise the pin budget (Settings")), qPrintable(box->text()));
    QVERIFY(m_session->pins().isEmpty());
    QVERIFY(m_session->sessionId().isEmpty()); // nothing written, not even a session
}

// Audit 2026-12-06: pins over their budget after a compaction (a smaller budget, as a smaller model gives)
// opened a dialog after every compaction, so a tool loop with several automatic compactions piled up one
// each. One dialog, with the numbers; the turn runs to its end under it; a later compaction with the same
// pins and budget says nothing more, one after the budget changed says it again.
void TestPins::pinsOverBudgetAfterCompactionsAreSaidOnce()
{
    m_session->setPinBudgetPercent(100);
    Pin note;
    note.text = QStringLiteral("Keep the parser's public API as it is. ").repeated(150);
    QVERIFY(m_session->addPin(note));
    QTRY_COMPARE(m_session->pins().size(), 1);
    m_session->setPinBudgetPercent(1);
    QVERIFY(m_session->pinnedTokens() > m_session->pinBudget());
    auto dialogs = [this] {
        return m_panel->findChildren<QMessageBox *>(QStringLiteral("pinsOverBudgetDialog"));
    };
    const MessageList replacement{Message::system(QStringLiteral("sys")),
                                  Message::user(QStringLiteral("<compacted_context>x</compacted_context>"))};
    QList<ScriptedLlmClient::Step> loop;
    for (int i = 0; i < 4; ++i) {
        loop.append(ScriptedLlmClient::chunk(QStringLiteral("Step %1. ").arg(i)));
        loop.append(ScriptedLlmClient::autoCompaction(replacement));
    }
    turn(QStringLiteral("read everything"), loop);
    QCOMPARE(dialogs().size(), 1);
    QMessageBox *box = dialogs().constFirst();
    QTRY_VERIFY(box->isVisible());
    QVERIFY2(box->text().contains(
                 QStringLiteral("about %1 tokens").arg(QLocale().toString(m_session->pinnedTokens()))),
             qPrintable(box->text()));
    QVERIFY2(box->text().contains(
                 QStringLiteral("budget of %1 tokens").arg(QLocale().toString(m_session->pinBudget()))),
             qPrintable(box->text()));
    QCOMPARE(m_session->pins().size(), 1); // kept

    box->accept();
    QTRY_VERIFY(dialogs().isEmpty());
    turn(QStringLiteral("and again"), {ScriptedLlmClient::autoCompaction(replacement)});
    QTest::qWait(50);
    QVERIFY(dialogs().isEmpty());

    const qint64 budgetBefore = m_session->pinBudget();
    ClientConfig smaller = m_session->clientConfig();
    smaller.contextWindow = 60000; // a smaller model: a smaller budget still
    m_session->setClientConfig(smaller);
    QVERIFY(m_session->pinBudget() < budgetBefore);
    turn(QStringLiteral("once more"), {ScriptedLlmClient::autoCompaction(replacement)});
    QTRY_COMPARE(dialogs().size(), 1);
    QVERIFY2(dialogs().constFirst()->text().contains(
                 QStringLiteral("budget of %1 tokens").arg(QLocale().toString(m_session->pinBudget()))),
             qPrintable(dialogs().constFirst()->text()));
}

// Issue 16, what was dropped: after a manual compaction whose summary leaves out a path, an identifier, a
// number and an error line of the conversation, a row under the compaction says how many; a click opens the
// list; Pin the Original pins the original text around one, verbatim; the transcript keeps the list and a
// reopened session shows the same row.
void TestPins::droppedDetailsRowListsThemAndPinsTheOriginal()
{
    const QString reply = QStringLiteral(
        "The build stopped.\n\nsrc/parser/lexer.cpp:88: error: unexpected token at offset 4711\n\n"
        "ParserState::reset is where it recovers.");
    turn(QStringLiteral("why does the build fail?"), {ScriptedLlmClient::chunk(reply)});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nFix the build.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(!m_session->isBusy());
    ChatModel *model = m_panel->model();
    int row = -1;
    QTRY_VERIFY((row = [&] {
                    for (int i = 0; i < model->rowCount(); ++i) {
                        if (!model->item(i).dropped.isEmpty())
                            return i;
                    }
                    return -1;
                }()) >= 0);
    const QList<DroppedDetail> dropped = model->item(row).dropped;
    QCOMPARE(model->item(row).text, ChatModel::droppedRowText(dropped));
    QVERIFY(model->item(row).text.contains(QStringLiteral("not in the summary")));
    QVERIFY(model->item(row - 1).compactionSeq != 0 || model->item(row - 2).compactionSeq != 0);

    // A click on the row opens the list.
    ChatView *view = m_panel->view();
    view->scrollTo(model->index(row));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier,
                      view->visualRect(model->index(row)).center());
    DroppedDetailsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_panel->findChild<DroppedDetailsDialog *>(
                     QStringLiteral("droppedDetailsDialog"))) != nullptr);
    QTRY_VERIFY(dialog->isVisible());
    QTreeWidget *list = dialog->list();
    QCOMPARE(list->topLevelItemCount(), int(dropped.size()));
    int pathRow = -1;
    QStringList shown;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        shown.append(list->topLevelItem(i)->text(1));
        if (list->topLevelItem(i)->text(1) == QStringLiteral("src/parser/lexer.cpp"))
            pathRow = i;
    }
    QVERIFY2(pathRow >= 0, qPrintable(shown.join(QLatin1Char('|'))));
    QVERIFY(shown.contains(QStringLiteral("ParserState::reset")));
    QVERIFY(shown.contains(QStringLiteral("4711")));
    QVERIFY(!shown.contains(QStringLiteral("Fix")));

    // Pin the Original: the lines around the path, as they were.
    auto *button = qobject_cast<QPushButton *>(list->itemWidget(list->topLevelItem(pathRow), 2));
    QVERIFY(button);
    QCOMPARE(button->objectName(), QStringLiteral("pinOriginalButton"));
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_COMPARE(m_session->pins().size(), 1);
    const Pin pinned = m_session->pins().first();
    QCOMPARE(pinned.kind, Pin::Kind::Detail);
    QVERIFY2(pinned.text.contains(
                 QStringLiteral("src/parser/lexer.cpp:88: error: unexpected token at offset 4711")),
             qPrintable(pinned.text));
    QCOMPARE(pinned.text, dropped.at(list->indexOfTopLevelItem(list->topLevelItem(pathRow))).excerpt);
    QVERIFY(!button->isEnabled());
    // Tried as a user: the chat's row named the pin by the excerpt's first line ("Pinned: read_file" for a
    // path read by a tool); it names it by the line that holds the detail.
    QVERIFY2(!pinned.text.startsWith(QStringLiteral("src/")), qPrintable(pinned.text));
    QTRY_COMPARE(model->item(model->rowCount() - 1).text,
                 QStringLiteral("Pinned: src/parser/lexer.cpp:88: error: unexpected token at offset 4711"));
    // Found when tried: the Pins dialog still named it by the excerpt's first line ("Original text (path
    // file2.txt): read_file"). It names it as the chat's row does.
    m_panel->showPinsDialog();
    PinsDialog *pinsDialog = nullptr;
    QTRY_VERIFY((pinsDialog = m_panel->findChild<PinsDialog *>()) != nullptr && pinsDialog->isVisible());
    auto *pinsList = pinsDialog->findChild<QListWidget *>(QStringLiteral("pinsList"));
    QCOMPARE(pinsList->count(), 1);
    QVERIFY2(pinsList->item(0)->text().endsWith(
                 QStringLiteral(": src/parser/lexer.cpp:88: error: unexpected token at offset 4711")),
             qPrintable(pinsList->item(0)->text()));
    pinsDialog->close();

    // Kept with the compaction: a reopened session shows the same row.
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    ChatModel replayed;
    replayed.replay(loaded->events);
    bool found = false;
    for (int i = 0; i < replayed.rowCount(); ++i)
        found = found || replayed.item(i).dropped == dropped;
    QVERIFY(found);

    // Tried as a user: after Undo compaction the row still offered to pin what the summary left out, which
    // the undo had brought back whole. It says so and opens nothing, live and reopened.
    const quint64 applied = m_session->undoableCompaction();
    QVERIFY(applied != 0);
    m_session->undoCompaction(applied);
    QTRY_VERIFY(model->plainText().contains(ChatModel::compactionUndoneText()));
    QTRY_COMPARE(model->item(row).text, ChatModel::droppedBackText());
    QVERIFY(model->item(row).dropped.isEmpty());
    dialog->close();
    auto visibleLists = [this] {
        int visible = 0;
        for (auto *open : m_panel->findChildren<DroppedDetailsDialog *>())
            visible += open->isVisible() ? 1 : 0;
        return visible;
    };
    QTRY_COMPARE(visibleLists(), 0);
    view->scrollTo(model->index(row));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier,
                      view->visualRect(model->index(row)).center());
    QCoreApplication::processEvents(); // the click opened the list at once when it had one to open
    QCOMPARE(visibleLists(), 0);
    loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    ChatModel reopened;
    reopened.replay(loaded->events);
    int back = 0;
    for (int i = 0; i < reopened.rowCount(); ++i) {
        QVERIFY(reopened.item(i).dropped.isEmpty());
        back += reopened.item(i).text == ChatModel::droppedBackText() ? 1 : 0;
    }
    QCOMPARE(back, 1);
}

// Tried as a user: the row read "(You said: *First turn: we are building a, inline_code, 2026)": an ordinary
// sentence naming "error code E1234" listed as an Error, the date 2026-12-20 as the Number "2026", a stray
// asterisk of Markdown emphasis. The row and the list name the date and the version whole, no error, and read
// without emphasis marks; Pin the Original still pins the text as it was written.
void TestPins::droppedDetailsReadAsTheyWereWritten()
{
    const QString reply = QStringLiteral(
        "You said: *First turn: we are building a parser.* The old one stopped with error code E1234 on "
        "2026-12-20, in version 1.2.3 of `inline_code`.");
    turn(QStringLiteral("First turn: we are building a parser."), {ScriptedLlmClient::chunk(reply)});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nBuild a parser.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(!m_session->isBusy());
    ChatModel *model = m_panel->model();
    int row = -1;
    for (int i = 0; i < model->rowCount(); ++i) {
        if (!model->item(i).dropped.isEmpty())
            row = i;
    }
    QVERIFY(row >= 0);
    QCOMPARE(
        model->item(row).text,
        QStringLiteral("3 details not in the summary (inline_code, 2026-12-20, 1.2.3). Click to see them "
                       "and pin the original."));

    m_panel->view()->scrollTo(model->index(row));
    QTest::mouseClick(m_panel->view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                      m_panel->view()->visualRect(model->index(row)).center());
    DroppedDetailsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_panel->findChild<DroppedDetailsDialog *>()) != nullptr && dialog->isVisible());
    QTreeWidget *list = dialog->list();
    QStringList kinds;
    QStringList shown;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        kinds.append(list->topLevelItem(i)->text(0));
        shown.append(list->topLevelItem(i)->text(1));
        QVERIFY2(!list->topLevelItem(i)->toolTip(1).contains(QLatin1Char('*')),
                 qPrintable(list->topLevelItem(i)->toolTip(1)));
    }
    QCOMPARE(kinds,
             (QStringList{QStringLiteral("Identifier"), QStringLiteral("Number"), QStringLiteral("Number")}));
    QCOMPARE(shown, (QStringList{QStringLiteral("inline_code"), QStringLiteral("2026-12-20"),
                                 QStringLiteral("1.2.3")}));
    QVERIFY(list->topLevelItem(1)->toolTip(1).contains(
        QStringLiteral("You said: First turn: we are building a parser.")));

    // The original, as it was written.
    QTest::mouseClick(qobject_cast<QPushButton *>(list->itemWidget(list->topLevelItem(1), 2)),
                      Qt::LeftButton);
    QTRY_COMPARE(m_session->pins().size(), 1);
    QVERIFY2(
        m_session->pins().first().text.contains(QStringLiteral("*First turn: we are building a parser.*")),
        qPrintable(m_session->pins().first().text));
}

// Found by a tester: pinning or unpinning in the Pins dialog added no row to the conversation, while /pin
// and a row's menu did. Every way to pin or unpin (Pin the Original, a row's menu, /pin, the Pins dialog's
// note and Unpin) leaves exactly one row, and the reopened session replays the same rows in the same order.
void TestPins::everyPinAndUnpinLeavesOneRowAsTheReopenedSessionShows()
{
    turn(QStringLiteral("why does the build fail?"),
         {ScriptedLlmClient::chunk(QStringLiteral("src/parser/lexer.cpp:88: error: unexpected token"))});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nFix the build.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_panel->compact();
    QTRY_VERIFY(!m_session->isBusy());
    ChatModel *model = m_panel->model();
    QVERIFY(pinRows(*model).isEmpty());

    // Pin the Original, in the list of what was dropped.
    int droppedRow = -1;
    QTRY_VERIFY((droppedRow = [&] {
                    for (int i = 0; i < model->rowCount(); ++i) {
                        if (!model->item(i).dropped.isEmpty())
                            return i;
                    }
                    return -1;
                }()) >= 0);
    ChatView *view = m_panel->view();
    view->scrollTo(model->index(droppedRow));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier,
                      view->visualRect(model->index(droppedRow)).center());
    DroppedDetailsDialog *dropped = nullptr;
    QTRY_VERIFY((dropped = m_panel->findChild<DroppedDetailsDialog *>(
                     QStringLiteral("droppedDetailsDialog"))) != nullptr);
    QTest::mouseClick(
        qobject_cast<QPushButton *>(dropped->list()->itemWidget(dropped->list()->topLevelItem(0), 2)),
        Qt::LeftButton);
    QTRY_COMPARE(m_session->pins().size(), 1);
    QTRY_COMPARE(pinRows(*model), QStringList{ChatModel::pinnedText(m_session->pins().at(0))});
    dropped->close();

    // A row's menu.
    std::unique_ptr<QMenu> menu = menuAt(rowOfKind(model, ChatItem::Kind::User));
    action(menu.get(), "pinMessageAction")->trigger();
    QTRY_COMPARE(m_session->pins().size(), 2);
    QTRY_COMPARE(pinRows(*model).size(), 2);

    // /pin, then the Pins dialog's note and Unpin.
    m_panel->submitInput(QStringLiteral("/pin Never edit vendor/ by hand."));
    QTRY_COMPARE(m_session->pins().size(), 3);
    QTRY_COMPARE(pinRows(*model).size(), 3);
    m_panel->submitInput(QStringLiteral("/pins"));
    PinsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_panel->findChild<PinsDialog *>(QStringLiteral("pinsDialog"))) != nullptr);
    dialog->findChild<QLineEdit *>(QStringLiteral("pinNoteEdit"))->setText(QStringLiteral("Frozen branch."));
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("pinNoteButton")), Qt::LeftButton);
    QTRY_COMPARE(m_session->pins().size(), 4);
    QTRY_COMPARE(pinRows(*model).size(), 4);
    QCOMPARE(pinRows(*model).constLast(), QStringLiteral("Pinned: Frozen branch."));
    dialog->list()->setCurrentRow(1);
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("unpinButton")), Qt::LeftButton);
    QTRY_COMPARE(m_session->pins().size(), 3);
    QTRY_COMPARE(pinRows(*model).size(), 5);

    const QStringList live = pinRows(*model);
    QCOMPARE(live.mid(1, 4), (QStringList{QStringLiteral("Pinned: why does the build fail?"),
                                          QStringLiteral("Pinned: Never edit vendor/ by hand."),
                                          QStringLiteral("Pinned: Frozen branch."),
                                          QStringLiteral("Unpinned: why does the build fail?")}));
    QTest::qWait(50); // nothing late: no second row for any of them
    QCOMPARE(pinRows(*model), live);

    // The reopened session: the same rows, in the same order.
    ChatModel replayed;
    replayed.replay(transcript());
    QCOMPARE(pinRows(replayed), live);
    // A pin_removed written before it carried the pin's headline still leaves its row.
    ChatModel older;
    older.replay({SessionEvent::pinRemoved(QStringLiteral("pin-old"))});
    QVERIFY2(older.plainText().contains(QStringLiteral("Pin removed.")), qPrintable(older.plainText()));
}

QTEST_MAIN(TestPins)
#include "tst_pins.moc"
