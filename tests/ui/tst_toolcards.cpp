// Every tool call has a card that ends in a final state (issue 15): a call the loop refuses (unknown tool,
// unknown parameter) gets a failed card, and a command interrupted with Ctrl+C ends its running dot, live and
// when the session is opened again. A card's duration is how long its tool ran, not how long its permission
// card waited.
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"

#include "chat/tooldisplay.h"

#include "agent/agentsession.h"
#include "fakeproviderserver.h"
#include "scriptedllmclient.h"
#include "scriptedsession.h"
#include "session/sessionstore.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace keen;
using test::ScriptedLlmClient;

namespace {
ToolCallInfo call(const QString &id, const QString &name, const QJsonObject &input, const QString &error = {})
{
    ToolCallInfo info;
    info.callId = id;
    info.name = name;
    info.input = input;
    info.error = error;
    return info;
}
} // namespace

class TestToolCards : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void rejectedCallGetsAFailedCard();
    void interruptedCommandEndsItsRunningDot();
    void aWholeFileRewriteShowsItsFirstDiffLines();
    void aLongCommandOutputSaysHowManyLinesAreAbove_data();
    void aLongCommandOutputSaysHowManyLinesAreAbove();
    void aCutCommandOutputCountsEveryLineAbove();
    void aCardsDurationLeavesOutItsPermissionWait();
    void aWriteWithoutDiffLinesSaysWhatItDoes();
    void aLongOutputLineWrapsInItsCard();
    void colourCodesAndProgressLinesReadAsInATerminal_data();
    void colourCodesAndProgressLinesReadAsInATerminal();
    void aCommandsColouredOutputShowsWithoutItsCodes();
    void aRunningCommandsCardShowsItsOutputAsItComes();
    void aFetchCardShowsTheUrlItsStatusAndThePage();
    void answeredPermissionCardsComeBackWhenReopened();
    void aQuestionOpenWhenTheTurnStopsComesBackCancelled();
    void theAgentsQuestionsComeBackWithTheirAnswersWhenReopened();

private:
    QList<const ChatItem *> toolCards() const;
    // A session on the real tool loop against the loopback server, in the workspace "work", saving under
    // storeName.
    std::unique_ptr<AgentSession> loopbackSession(const test::FakeProviderServer &server,
                                                  const QString &storeName) const;
    void send(const QString &text);
    // Starts a new conversation, then opens this one again from disk, as the sidebar and --session do.
    void reopenSession();
    // The tool cards ("tool: <name>") and permission cards ("permission: <all it says>") in their order.
    static QStringList toolAndPermissionRows(ChatPanel &panel);
    static QList<int> toolRows(const ChatModel &model);
    // The model's reply: "Cleaning." and one bash call of command, flagged destructive.
    static test::FakeProviderServer::Response dangerousCommandCall(const QString &command);
    struct LoopbackChat
    {
        std::unique_ptr<AgentSession> session;
        std::unique_ptr<ChatPanel> panel; // shown, 800 x 600
    };
    LoopbackChat loopbackChat(const test::FakeProviderServer &server) const;
    // The session's transcript file as it is on disk.
    static QByteArray savedTranscript(AgentSession &session);
    // One scripted bash call that returns output; the card's text as the view shows it.
    QString commandCard(const QJsonObject &output);

    std::unique_ptr<test::TestEnvironment> m_env;
    std::unique_ptr<AgentSession> m_session;
    std::shared_ptr<ScriptedLlmClient> m_client;
    std::unique_ptr<ChatPanel> m_panel;
};

void TestToolCards::init()
{
    m_env = std::make_unique<test::TestEnvironment>();
    m_client = std::make_shared<ScriptedLlmClient>();
    m_session = test::makeScriptedSession(*m_env, m_client);
    m_panel = std::make_unique<ChatPanel>(m_session.get());
    m_panel->resize(800, 600);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
}

void TestToolCards::cleanup()
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

QList<const ChatItem *> TestToolCards::toolCards() const
{
    QList<const ChatItem *> cards;
    for (int row = 0; row < m_panel->model()->rowCount(); ++row) {
        const ChatItem &item = m_panel->model()->item(row);
        if (item.kind == ChatItem::Kind::Tool)
            cards.append(&item);
    }
    return cards;
}

QStringList TestToolCards::toolAndPermissionRows(ChatPanel &panel)
{
    const ChatModel *model = panel.model();
    QStringList shown;
    for (int row = 0; row < model->rowCount(); ++row) {
        const ChatItem &item = model->item(row);
        if (item.kind == ChatItem::Kind::Permission)
            shown.append(QStringLiteral("permission: ") +
                         panel.view()->chatDelegate()->shownText(model->index(row)));
        else if (item.kind == ChatItem::Kind::Tool)
            shown.append(QStringLiteral("tool: ") + item.toolName);
    }
    return shown;
}

QList<int> TestToolCards::toolRows(const ChatModel &model)
{
    QList<int> rows;
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.item(row).kind == ChatItem::Kind::Tool)
            rows.append(row);
    }
    return rows;
}

test::FakeProviderServer::Response TestToolCards::dangerousCommandCall(const QString &command)
{
    return test::FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Cleaning.")}, QStringLiteral("call_1"), QStringLiteral("bash"),
        {{QStringLiteral("command"), command},
         {QStringLiteral("summary"), QStringLiteral("clean the build folder")},
         {QStringLiteral("isDangerous"), true}}));
}

TestToolCards::LoopbackChat TestToolCards::loopbackChat(const test::FakeProviderServer &server) const
{
    LoopbackChat chat;
    chat.session = loopbackSession(server, QStringLiteral("loop-sessions"));
    chat.panel = std::make_unique<ChatPanel>(chat.session.get());
    chat.panel->resize(800, 600);
    chat.panel->show();
    return chat;
}

QByteArray TestToolCards::savedTranscript(AgentSession &session)
{
    const std::optional<SessionInfo> info = session.sessionStore().find(session.sessionId());
    if (!info)
        return {};
    QFile transcript(info->path);
    return transcript.open(QIODevice::ReadOnly) ? transcript.readAll() : QByteArray();
}

std::unique_ptr<AgentSession> TestToolCards::loopbackSession(const test::FakeProviderServer &server,
                                                             const QString &storeName) const
{
    auto session = std::make_unique<AgentSession>();
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.model = QStringLiteral("test-model");
    config.baseUrl = server.baseUrl().toString();
    config.apiKey = QStringLiteral("test-key");
    config.contextWindow = 100000;
    config.maxAttempts = 1;
    session->setClientConfig(config);
    session->setWorkspace(m_env->path(QStringLiteral("work")));
    session->setSessionStore(std::make_shared<SessionStore>(m_env->path(storeName)));
    return session;
}

void TestToolCards::send(const QString &text)
{
    m_panel->input()->setFocus();
    QTest::keyClicks(m_panel->input(), text);
    QTest::keyClick(m_panel->input(), Qt::Key_Return);
}

void TestToolCards::reopenSession()
{
    const QString id = m_session->sessionId();
    QVERIFY(!id.isEmpty());
    m_panel->newSession();
    QCOMPARE(m_panel->model()->rowCount(), 0);
    QVERIFY(m_session->openSession(id).ok());
}

void TestToolCards::rejectedCallGetsAFailedCard()
{
    const QString why = QStringLiteral(
        "invalid input: unknown parameter \"bogus\". read_file accepts only: path, offset, limit.");
    // What the tool loop sends for a call it refuses before running it: no tool_start/tool_end.
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Reading the notes.")),
         ScriptedLlmClient::event(StreamEvent::tool(
             StreamEvent::Type::ToolRejected,
             call(QStringLiteral("c1"), QStringLiteral("read_file"),
                  {{QStringLiteral("path"), QStringLiteral("notes.md")}, {QStringLiteral("bogus"), 1}},
                  why))),
         ScriptedLlmClient::chunk(QStringLiteral("That call was wrong; retrying.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("Summarize notes.md"));
    QTRY_VERIFY(!m_session->isBusy());
    const QList<const ChatItem *> cards = toolCards();
    QCOMPARE(cards.size(), 1);
    QCOMPARE(cards.first()->toolState, ChatItem::ToolState::Failed);
    QCOMPARE(cards.first()->label, QStringLiteral("Read"));
    QCOMPARE(cards.first()->detail, QStringLiteral("notes.md"));
    const QString text = m_panel->model()->plainText();
    QVERIFY2(text.contains(QStringLiteral("✗ Read notes.md\n") + why), qPrintable(text));
    // The card sits between the text before and after the call.
    QVERIFY(text.indexOf(QStringLiteral("Reading the notes.")) < text.indexOf(QStringLiteral("✗ Read")));
    QVERIFY(text.indexOf(QStringLiteral("✗ Read")) < text.indexOf(QStringLiteral("That call was wrong")));

    // Opened again from disk (the sidebar, --session): the refused call keeps its failed card, in its place
    // (found by a read against issue 15: the transcript had no trace of it and the card was gone).
    reopenSession();
    QTRY_COMPARE(toolCards().size(), 1);
    QCOMPARE(toolCards().first()->toolState, ChatItem::ToolState::Failed);
    const QString reopened = m_panel->model()->plainText();
    QVERIFY2(reopened.contains(QStringLiteral("✗ Read notes.md\n") + why), qPrintable(reopened));
    QVERIFY(reopened.indexOf(QStringLiteral("Reading the notes.")) <
            reopened.indexOf(QStringLiteral("✗ Read")));
    QVERIFY(reopened.indexOf(QStringLiteral("✗ Read")) <
            reopened.indexOf(QStringLiteral("That call was wrong")));

    // Found when tried: a refused or instant call's card said "0ms". Under a millisecond, no time is shown.
    QCOMPARE(ToolDisplay::duration(400 * 1000), QString());
    QCOMPARE(ToolDisplay::duration(2 * 1000 * 1000), QStringLiteral("2ms"));
    QCOMPARE(ToolDisplay::duration(qint64(70) * 1000 * 1000 * 1000), QStringLiteral("1m 10s"));
}

void TestToolCards::interruptedCommandEndsItsRunningDot()
{
    // The loop sends nothing once the turn is cancelled: the tool_end of the running command never comes.
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Running the slow suite.")),
         ScriptedLlmClient::event(StreamEvent::tool(
             StreamEvent::Type::ToolStart, call(QStringLiteral("c1"), QStringLiteral("bash"),
                                                {{QStringLiteral("command"), QStringLiteral("sleep 600")}}))),
         ScriptedLlmClient::gate(QStringLiteral("never")), ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("Run the slow tests"));
    QTRY_COMPARE(toolCards().size(), 1);
    QCOMPARE(toolCards().first()->toolState, ChatItem::ToolState::Running);
    QVERIFY(m_panel->model()->plainText().contains(QStringLiteral("● Run sleep 600...")));

    // Ctrl+C in the empty input interrupts the turn.
    QTest::keyClick(m_panel->input(), Qt::Key_C, Qt::ControlModifier);
    QTRY_VERIFY(!m_session->isBusy());
    QCOMPARE(toolCards().size(), 1);
    QCOMPARE(toolCards().first()->toolState, ChatItem::ToolState::Interrupted);
    QString text = m_panel->model()->plainText();
    QVERIFY2(text.contains(QStringLiteral("■ Run sleep 600 interrupted")), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("●")));
    QVERIFY(text.contains(QStringLiteral("Interrupted...what should the agent do instead?")));

    // Opened again from disk: the transcript has the tool_start without its tool_end; the card still ends.
    reopenSession();
    QTRY_COMPARE(toolCards().size(), 1);
    QCOMPARE(toolCards().first()->toolState, ChatItem::ToolState::Interrupted);
    text = m_panel->model()->plainText();
    QVERIFY2(text.contains(QStringLiteral("■ Run sleep 600 interrupted")), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("●")));
}

// A file of 100,000 lines rewritten: the diff has 200,000 lines, all removals first. The card keeps
// ChatItem::MaxDiffLines of them: the start of what was removed and the start of what was added, and says how
// many lines it leaves out between and after them, live and when the session is opened again; the transcript
// keeps the whole diff.
void TestToolCards::aWholeFileRewriteShowsItsFirstDiffLines()
{
    QString diff = QStringLiteral("--- a/table.py\n+++ b/table.py\n@@ -1,100000 +1,100000 @@\n");
    for (int i = 1; i <= 100000; ++i)
        diff += QStringLiteral("-old %1\n").arg(i);
    for (int i = 1; i <= 100000; ++i)
        diff += QStringLiteral("+new %1\n").arg(i);
    ToolCallInfo write = call(QStringLiteral("w1"), QStringLiteral("write_file"),
                              {{QStringLiteral("path"), QStringLiteral("table.py")}});
    ToolCallInfo written = write;
    written.diff = diff;
    written.output = QJsonObject{{QStringLiteral("success"), true}};
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, write)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, written)),
                       ScriptedLlmClient::chunk(QStringLiteral("Rewritten.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("Regenerate table.py"));
    // A hang guard, not a speed check (benchmarks measure speed): this whole test takes about 3 s in the
    // normal build, and the asan build on a busy machine needed 6.5 s for this wait alone.
    constexpr int RealSizeTimeoutMs = 60000;
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isBusy(), RealSizeTimeoutMs);

    auto checkCard = [this] {
        const QList<const ChatItem *> cards = toolCards();
        QCOMPARE(cards.size(), 1);
        QCOMPARE(cards.first()->diff.size(), ChatItem::MaxDiffLines);
        // The hunk header and old 1..199, then new 1..200.
        QCOMPARE(cards.first()->diff.at(1),
                 (DiffLine{DiffLine::Kind::Removed, 1, 0, QStringLiteral("old 1")}));
        QCOMPARE(cards.first()->diff.at(199),
                 (DiffLine{DiffLine::Kind::Removed, 199, 0, QStringLiteral("old 199")}));
        QCOMPARE(cards.first()->diff.at(200),
                 (DiffLine{DiffLine::Kind::Added, 0, 1, QStringLiteral("new 1")}));
        QCOMPARE(cards.first()->diff.last(),
                 (DiffLine{DiffLine::Kind::Added, 0, 200, QStringLiteral("new 200")}));
        QCOMPARE(cards.first()->diffGap, 100001 - 200);
        QCOMPARE(cards.first()->diffOmitted, 100000 - 200);
        int row = 0;
        while (m_panel->model()->item(row).kind != ChatItem::Kind::Tool)
            ++row;
        auto *view = m_panel->findChild<ChatView *>(QStringLiteral("chatView"));
        const QString shown = view->chatDelegate()->shownText(m_panel->model()->index(row));
        const qsizetype gap = shown.indexOf(QStringLiteral("... 99801 more diff lines"));
        QVERIFY2(gap > shown.indexOf(QStringLiteral("old 199")), qPrintable(shown.left(300)));
        QVERIFY(!shown.contains(QStringLiteral("old 200")));
        QVERIFY2(shown.indexOf(QStringLiteral("+ new 1\n")) > gap, qPrintable(shown.mid(gap, 300)));
        QVERIFY(shown.contains(QStringLiteral("new 200")));
        QVERIFY(!shown.contains(QStringLiteral("new 201")));
        QVERIFY2(shown.endsWith(QStringLiteral("... 99800 more diff lines")), qPrintable(shown.right(300)));
    };
    checkCard();

    const QString id = m_session->sessionId();
    auto loaded = SessionStore().load(id);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    const QByteArray turn = QJsonDocument(loaded->events.last().toJson()).toJson(QJsonDocument::Compact);
    QVERIFY(turn.contains("\"Content\":\"new 100000\""));

    m_panel->newSession();
    QVERIFY(m_session->openSession(id).ok());
    QTRY_COMPARE_WITH_TIMEOUT(toolCards().size(), 1, RealSizeTimeoutMs);
    checkCard();
}

QString TestToolCards::commandCard(const QJsonObject &output)
{
    const ToolCallInfo run = call(QStringLiteral("b1"), QStringLiteral("bash"),
                                  {{QStringLiteral("command"), output.value(QStringLiteral("command"))}});
    ToolCallInfo ran = run;
    ran.output = output;
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, run)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, ran)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("run it"));
    if (!QTest::qWaitFor([this] { return !m_session->isBusy(); }))
        return {};
    int row = 0;
    while (row < m_panel->model()->rowCount() && m_panel->model()->item(row).kind != ChatItem::Kind::Tool)
        ++row;
    auto *view = m_panel->findChild<ChatView *>(QStringLiteral("chatView"));
    return view->chatDelegate()->shownText(m_panel->model()->index(row));
}

void TestToolCards::aLongCommandOutputSaysHowManyLinesAreAbove_data()
{
    QTest::addColumn<int>("lines");
    QTest::addColumn<QString>("note");
    QTest::newRow("one above") << 16 << QStringLiteral("... 1 earlier line\n");
    QTest::newRow("many above") << 40 << QStringLiteral("... 25 earlier lines\n");
}

// A command card shows the last lines of the output and how many are above them; found trying the window:
// "... 1 earlier lines".
void TestToolCards::aLongCommandOutputSaysHowManyLinesAreAbove()
{
    QFETCH(int, lines);
    QFETCH(QString, note);
    QStringList stdoutLines;
    for (int i = 1; i <= lines; ++i)
        stdoutLines << QStringLiteral("output line %1").arg(i);
    const QString shown =
        commandCard(QJsonObject{{QStringLiteral("command"), QStringLiteral("make")},
                                {QStringLiteral("exit_code"), 0},
                                {QStringLiteral("stdout"), stdoutLines.join(QLatin1Char('\n'))}});
    QVERIFY2(shown.contains(note + QStringLiteral("output line %1\n").arg(lines - 14)), qPrintable(shown));
    QVERIFY(shown.contains(QStringLiteral("output line %1").arg(lines)));
}

// A command whose output was cut (its start and end kept, the whole saved to a file) says how many lines are
// above the last ones shown from the line count the tool gives, not from the kept text: found trying the
// window, 300,001 lines read "... 9103 earlier lines".
void TestToolCards::aCutCommandOutputCountsEveryLineAbove()
{
    QStringList head;
    QStringList tail;
    for (int i = 1; i <= 2000; ++i)
        head << QString::number(i);
    for (int i = 298001; i <= 300001; ++i)
        tail << QString::number(i);
    const QString kept =
        head.join(QLatin1Char('\n')) +
        QStringLiteral("\n... (2000000 bytes omitted; full stdout saved to /tmp/x.stdout) ...\n") +
        tail.join(QLatin1Char('\n'));
    const QString shown = commandCard(QJsonObject{{QStringLiteral("command"), QStringLiteral("seq")},
                                                  {QStringLiteral("exit_code"), 0},
                                                  {QStringLiteral("stdout"), kept},
                                                  {QStringLiteral("truncated"), true},
                                                  {QStringLiteral("stdout_lines"), 300001}});
    QVERIFY2(shown.contains(QStringLiteral("... 299986 earlier lines\n299987\n")), qPrintable(shown));
    QVERIFY(shown.contains(QStringLiteral("300001")));
}

// Found in the tool cards: the clock of a card started at the tool's start, before its permission card, so a
// command approved after a minute showed a minute. The real tool loop against the loopback provider, a
// command that asks: the card waits a while before Allow is clicked, and the duration it then shows is no
// longer than from the click to the card showing the command done (what the tool ran can be no more); the
// transcript keeps that duration, so the card opened again shows the same.
void TestToolCards::aCardsDurationLeavesOutItsPermissionWait()
{
    using test::FakeProviderServer;
    FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueue(FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Counting.")}, QStringLiteral("call_1"), QStringLiteral("bash"),
        {{QStringLiteral("command"), QStringLiteral("echo counted")},
         {QStringLiteral("isDangerous"), true}})));
    server.enqueue(
        FakeProviderServer::sseResponse(test::Workloads::chatCompletionsSse({QStringLiteral("Done.")})));

    const LoopbackChat chat = loopbackChat(server);
    AgentSession &session = *chat.session;
    ChatPanel &panel = *chat.panel;
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChatModel *model = panel.model();
    auto cardRow = [model] {
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->item(row).kind == ChatItem::Kind::Tool)
                return row;
        }
        return -1;
    };

    QTest::keyClicks(panel.input(), QStringLiteral("count"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY(FakeProviderServer::spinUntil([&] { return model->hasPendingPermission(); }, 20000));
    QVERIFY(cardRow() >= 0);
    QCOMPARE(model->item(cardRow()).toolState, ChatItem::ToolState::Running);
    constexpr int WaitMs = 600; // the person reads the permission card first
    QTest::qWait(WaitMs);
    QElapsedTimer sinceAllow;
    sinceAllow.start();
    Q_EMIT panel.view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);
    QVERIFY(FakeProviderServer::spinUntil(
        [&] { return model->item(cardRow()).toolState != ChatItem::ToolState::Running; }, 20000));
    const qint64 allowToDone = sinceAllow.nsecsElapsed();
    const ChatItem &card = model->item(cardRow());
    QCOMPARE(card.toolState, ChatItem::ToolState::Done);
    const qint64 ran = card.durationNs;
    QVERIFY2(ran > 0 && ran <= allowToDone,
             qPrintable(QStringLiteral("%1 ns shown, %2 ns from Allow to done").arg(ran).arg(allowToDone)));
    const QString duration = ToolDisplay::duration(ran);
    const QString shown = panel.view()->chatDelegate()->shownText(model->index(cardRow()));
    QVERIFY2(shown.contains(duration), qPrintable(shown));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));

    // Opened again from its transcript: the same duration.
    const QString id = session.sessionId();
    panel.newSession();
    QVERIFY(session.openSession(id).ok());
    QVERIFY(FakeProviderServer::spinUntil([&] { return cardRow() >= 0; }, 20000));
    QCOMPARE(model->item(cardRow()).durationNs, ran);
    QVERIFY(panel.view()->chatDelegate()->shownText(model->index(cardRow())).contains(duration));
}

// Seen when tried: a command that ran for minutes (a build, a test run) showed only "Run make..." with its
// running dot until it ended. The real tool loop against the loopback provider: the card shows the
// command's last lines, and how many are above them, while it still runs; the result replaces them when it
// ends. A command interrupted with Stop keeps what it had printed.
void TestToolCards::aRunningCommandsCardShowsItsOutputAsItComes()
{
    using test::FakeProviderServer;
    FakeProviderServer server;
    QVERIFY(server.isListening());
    const QString build = QStringLiteral("for i in $(seq 1 40); do echo \"built target $i\"; done; "
                                         "for i in $(seq 1 400); do [ -e go ] && break; sleep 0.05; done; "
                                         "echo finished");
    server.enqueue(FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Building.")}, QStringLiteral("call_1"), QStringLiteral("bash"),
        {{QStringLiteral("command"), build}})));
    server.enqueue(
        FakeProviderServer::sseResponse(test::Workloads::chatCompletionsSse({QStringLiteral("Built.")})));
    server.enqueue(FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Testing.")}, QStringLiteral("call_2"), QStringLiteral("bash"),
        {{QStringLiteral("command"),
          QStringLiteral("echo 'test 1 passed'; sleep 30; echo 'test 2 passed'")}})));

    const std::unique_ptr<AgentSession> loop = loopbackSession(server, QStringLiteral("live-sessions"));
    AgentSession &session = *loop;
    session.setMode(AgentMode::Yolo); // no permission card: this is about the tool card
    QFile::remove(QDir(session.workspace()).filePath(QStringLiteral("go")));
    ChatPanel panel(&session);
    panel.resize(800, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChatModel *model = panel.model();
    auto lastCard = [model] {
        for (int row = model->rowCount() - 1; row >= 0; --row) {
            if (model->item(row).kind == ChatItem::Kind::Tool)
                return row;
        }
        return -1;
    };
    auto shown = [&] {
        const int row = lastCard();
        return row < 0 ? QString() : panel.view()->chatDelegate()->shownText(model->index(row));
    };

    QTest::keyClicks(panel.input(), QStringLiteral("build it"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY2(FakeProviderServer::spinUntil(
                 [&] { return shown().contains(QStringLiteral("built target 40")); }, 20000),
             qPrintable(shown()));
    QCOMPARE(model->item(lastCard()).toolState, ChatItem::ToolState::Running);
    QVERIFY2(shown().contains(QStringLiteral("... 25 earlier lines\nbuilt target 26\n")),
             qPrintable(shown()));
    QVERIFY(
        !shown().contains(QStringLiteral("built target 40\nfinished"))); // the command line says "finished"

    QFile go(QDir(session.workspace()).filePath(QStringLiteral("go")));
    QVERIFY(go.open(QIODevice::WriteOnly));
    go.close();
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));
    QCOMPARE(model->item(lastCard()).toolState, ChatItem::ToolState::Done);
    QVERIFY2(shown().contains(QStringLiteral("... 26 earlier lines\nbuilt target 27\n")),
             qPrintable(shown()));
    QVERIFY2(shown().contains(QStringLiteral("built target 40\nfinished")), qPrintable(shown()));

    QTest::keyClicks(panel.input(), QStringLiteral("test it"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY2(
        FakeProviderServer::spinUntil(
            [&] { return shown().section(QLatin1Char('\n'), 1).contains(QStringLiteral("test 1 passed")); },
            20000),
        qPrintable(shown()));
    QVERIFY(session.interrupt());
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));
    QVERIFY(model->item(lastCard()).toolState != ChatItem::ToolState::Running);
    // The output under the command line (which names both).
    const QString output = shown().section(QLatin1Char('\n'), 1);
    QVERIFY2(output.contains(QStringLiteral("test 1 passed")), qPrintable(shown()));
    QVERIFY(!output.contains(QStringLiteral("test 2 passed")));
    QFile::remove(go.fileName());
}

// Found when tried: replacing a binary file asked "Allow Write?" over an empty card, and writing a file's
// own content again asked too. The real tool loop against the loopback provider: the binary file's card
// says it will be replaced; the second write of the same text asks nothing and its card says "unchanged".
void TestToolCards::aWriteWithoutDiffLinesSaysWhatItDoes()
{
    using test::FakeProviderServer;
    const QString work = m_env->path(QStringLiteral("work"));
    QDir().mkpath(work);
    QFile binary(QDir(work).filePath(QStringLiteral("logo.bin")));
    QVERIFY(binary.open(QIODevice::WriteOnly));
    binary.write(QByteArray("\x89PNG\0\0", 6));
    binary.close();
    const QJsonObject write{{QStringLiteral("path"), QStringLiteral("logo.bin")},
                            {QStringLiteral("content"), QStringLiteral("text now\n")}};
    FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueue(FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Replacing it.")}, QStringLiteral("call_1"), QStringLiteral("write_file"), write)));
    server.enqueue(FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Once more.")}, QStringLiteral("call_2"), QStringLiteral("write_file"), write)));
    server.enqueue(
        FakeProviderServer::sseResponse(test::Workloads::chatCompletionsSse({QStringLiteral("Done.")})));

    const std::unique_ptr<AgentSession> loop = loopbackSession(server, QStringLiteral("write-sessions"));
    AgentSession &session = *loop;
    ChatPanel panel(&session);
    panel.resize(800, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChatModel *model = panel.model();
    auto rowsOf = [model](ChatItem::Kind kind) {
        QList<int> rows;
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->item(row).kind == kind)
                rows.append(row);
        }
        return rows;
    };

    QTest::keyClicks(panel.input(), QStringLiteral("make logo.bin text"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY(FakeProviderServer::spinUntil([&] { return model->hasPendingPermission(); }, 20000));
    const QString card =
        panel.view()->chatDelegate()->shownText(model->index(rowsOf(ChatItem::Kind::Permission).first()));
    QVERIFY2(card.contains(QStringLiteral("Binary file logo.bin will be replaced.")), qPrintable(card));
    Q_EMIT panel.view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));

    QCOMPARE(rowsOf(ChatItem::Kind::Permission).size(), 1); // the second write asked nothing
    const QList<int> tools = rowsOf(ChatItem::Kind::Tool);
    QCOMPARE(tools.size(), 2);
    QCOMPARE(model->item(tools.last()).toolState, ChatItem::ToolState::Done);
    const QString second = panel.view()->chatDelegate()->shownText(model->index(tools.last()));
    QVERIFY2(second.contains(QStringLiteral("unchanged")), qPrintable(second));
    QVERIFY(binary.open(QIODevice::ReadOnly));
    QCOMPARE(binary.readAll(), QByteArray("text now\n"));
}

// Found when tried: a command's output line wider than the view (a compiler error, a minified line) ran out
// of sight. It wraps in its card: the card with one 2,000-character line is as tall as several lines.
void TestToolCards::aLongOutputLineWrapsInItsCard()
{
    auto ran = [](const QString &id, const QString &stdoutText) {
        ToolCallInfo info =
            call(id, QStringLiteral("bash"), {{QStringLiteral("command"), QStringLiteral("make")}});
        info.output = QJsonObject{{QStringLiteral("command"), QStringLiteral("make")},
                                  {QStringLiteral("exit_code"), 0},
                                  {QStringLiteral("stdout"), stdoutText}};
        return info;
    };
    const QString longLine = QStringLiteral("error: ") + QStringLiteral("token_").repeated(330);
    const ToolCallInfo shortRun = ran(QStringLiteral("b1"), QStringLiteral("ok"));
    const ToolCallInfo longRun = ran(QStringLiteral("b2"), longLine);
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, shortRun)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, shortRun)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, longRun)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, longRun)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("build it"));
    QTRY_VERIFY(!m_session->isBusy());
    QList<int> rows;
    for (int row = 0; row < m_panel->model()->rowCount(); ++row) {
        if (m_panel->model()->item(row).kind == ChatItem::Kind::Tool)
            rows << row;
    }
    QCOMPARE(rows.size(), 2);
    auto *view = m_panel->findChild<ChatView *>(QStringLiteral("chatView"));
    const int shortHeight = view->visualRect(m_panel->model()->index(rows.first())).height();
    const int longHeight = view->visualRect(m_panel->model()->index(rows.last())).height();
    const int line = view->fontMetrics().height();
    QVERIFY2(longHeight > shortHeight + 5 * line,
             qPrintable(QStringLiteral("%1 vs %2 pixels").arg(longHeight).arg(shortHeight)));
}

void TestToolCards::colourCodesAndProgressLinesReadAsInATerminal_data()
{
    QTest::addColumn<QString>("raw");
    QTest::addColumn<QString>("shown");
    const QString esc(QChar(0x1b));
    QTest::newRow("colours") << esc + QStringLiteral("[1;31merror:") + esc + QStringLiteral("[0m it broke")
                             << QStringLiteral("error: it broke");
    QTest::newRow("progress") << QStringLiteral("  0%\r 50%\r100%\ndone") << QStringLiteral("100%\ndone");
    QTest::newRow("crlf") << QStringLiteral("one\r\ntwo\r\n") << QStringLiteral("one\ntwo\n");
    QTest::newRow("backspace") << QStringLiteral("ab\bc") << QStringLiteral("ac");
    QTest::newRow("bell and tab") << QStringLiteral("a\tb") + QChar(0x07) << QStringLiteral("a\tb");
    QTest::newRow("hyperlink") << esc + QStringLiteral("]8;;https://example.com") + esc +
                                      QStringLiteral("\\docs") + esc + QStringLiteral("]8;;") + QChar(0x07)
                               << QStringLiteral("docs");
    QTest::newRow("charset") << esc + QStringLiteral("(Bplain") << QStringLiteral("plain");
    QTest::newRow("cut short") << QStringLiteral("text") + esc + QStringLiteral("[3")
                               << QStringLiteral("text");
    QTest::newRow("unicode") << QStringLiteral("✓ grün 🚀") << QStringLiteral("✓ grün 🚀");
}

// Found when tried: a command's coloured output showed its escape codes as boxes ("[1;31merror:[0m"), and a
// progress line drawn over itself with carriage returns showed every frame.
void TestToolCards::colourCodesAndProgressLinesReadAsInATerminal()
{
    QFETCH(QString, raw);
    QFETCH(QString, shown);
    QCOMPARE(ToolDisplay::terminalText(raw), shown);
}

void TestToolCards::aCommandsColouredOutputShowsWithoutItsCodes()
{
    const QString esc(QChar(0x1b));
    ToolCallInfo run = call(QStringLiteral("b1"), QStringLiteral("bash"),
                            {{QStringLiteral("command"), QStringLiteral("cargo build")}});
    ToolCallInfo ran = run;
    const QString raw = esc + QStringLiteral("[1;32m   Compiling") + esc + QStringLiteral("[0m keen v0.1\r") +
                        esc + QStringLiteral("[1;32m    Finished") + esc + QStringLiteral("[0m dev\n");
    ran.output = QJsonObject{{QStringLiteral("command"), QStringLiteral("cargo build")},
                             {QStringLiteral("exit_code"), 0},
                             {QStringLiteral("stdout"), raw}};
    m_client->addTurn({ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, run)),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, ran)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("build"));
    QTRY_VERIFY(!m_session->isBusy());
    auto shownCard = [this](ChatModel *model) {
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->item(row).kind == ChatItem::Kind::Tool)
                return m_panel->findChild<ChatView *>(QStringLiteral("chatView"))
                    ->chatDelegate()
                    ->shownText(model->index(row));
        }
        return QString();
    };
    QString card = shownCard(m_panel->model());
    QVERIFY2(card.contains(QStringLiteral("    Finished dev")), qPrintable(card));
    QVERIFY2(!card.contains(esc) && !card.contains(QStringLiteral("[0m")) &&
                 !card.contains(QStringLiteral("Compiling")),
             qPrintable(card));
    // The transcript keeps what the command printed; the session opened again shows it the same way.
    const QString id = m_session->sessionId();
    m_panel->newSession();
    QVERIFY(m_session->openSession(id).ok());
    QTRY_VERIFY(!shownCard(m_panel->model()).isEmpty());
    card = shownCard(m_panel->model());
    QVERIFY2(card.contains(QStringLiteral("    Finished dev")) && !card.contains(esc), qPrintable(card));
}

// web_fetch: the card names the URL, then the status and the size; under it the start of the page. A failed
// fetch shows its error line, and the error page's text below it. Its permission card shows the URL.
void TestToolCards::aFetchCardShowsTheUrlItsStatusAndThePage()
{
    const QString url = QStringLiteral("https://docs.example.org/guide");
    const QString missing = url + QStringLiteral("/missing");
    QStringList lines{QStringLiteral("# Guide"), QString()};
    for (int i = 1; i <= 40; ++i)
        lines << QStringLiteral("Line %1 of the guide's text.").arg(i);
    const QString content = lines.join(QLatin1Char('\n'));
    QVERIFY(content.toUtf8().size() / 1024 == 1);
    const ToolCallInfo fetch =
        call(QStringLiteral("f1"), QStringLiteral("web_fetch"), {{QStringLiteral("url"), url}});
    ToolCallInfo fetched = fetch;
    fetched.output = QJsonObject{{QStringLiteral("url"), url},
                                 {QStringLiteral("status_code"), 200},
                                 {QStringLiteral("content"), content}};
    const ToolCallInfo fetchMissing =
        call(QStringLiteral("f2"), QStringLiteral("web_fetch"), {{QStringLiteral("url"), missing}});
    const ToolCallInfo failed =
        call(QStringLiteral("f2"), QStringLiteral("web_fetch"), {{QStringLiteral("url"), missing}},
             QStringLiteral("HTTP 404 Not Found from %1\n\n# Not here\n\nNo such page.").arg(missing));
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, fetch)),
         ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, fetched)),
         ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, fetchMissing)),
         ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, failed)),
         ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("read the guide"));
    QTRY_VERIFY(!m_session->isBusy());

    const QList<const ChatItem *> cards = toolCards();
    QCOMPARE(cards.size(), 2);
    QCOMPARE(cards.at(0)->label, QStringLiteral("Fetch"));
    QCOMPARE(cards.at(0)->detail, url);
    QCOMPARE(cards.at(0)->metadata, QStringLiteral("200 · 1 kB"));
    QCOMPARE(cards.at(1)->toolState, ChatItem::ToolState::Failed);
    QCOMPARE(cards.at(1)->toolError, QStringLiteral("HTTP 404 Not Found from %1").arg(missing));
    const QString text = m_panel->model()->plainText();
    QVERIFY2(text.contains(QStringLiteral("✓ Fetch %1 200 · 1 kB\n# Guide\n").arg(url)), qPrintable(text));
    QVERIFY2(
        text.contains(QStringLiteral("✗ Fetch %1\nHTTP 404 Not Found from %1\n# Not here\n\nNo such page.")
                          .arg(missing)),
        qPrintable(text));

    // The page's first lines, and a mark that more follow.
    auto *view = m_panel->findChild<ChatView *>(QStringLiteral("chatView"));
    int row = 0;
    while (m_panel->model()->item(row).kind != ChatItem::Kind::Tool)
        ++row;
    const QString shown = view->chatDelegate()->shownText(m_panel->model()->index(row));
    QVERIFY2(shown.contains(QStringLiteral("# Guide\n\nLine 1 of")), qPrintable(shown));
    QVERIFY2(shown.contains(QStringLiteral("Line 13 of the guide's text.\n…")), qPrintable(shown));
    QVERIFY(!shown.contains(QStringLiteral("Line 14 ")));

    // Asked for: the permission card shows the URL.
    PermissionRequest request;
    request.id = 77;
    request.toolName = QStringLiteral("web_fetch");
    request.path = url;
    m_panel->model()->addPermission(request);
    const int last = m_panel->model()->rowCount() - 1;
    QVERIFY2(view->chatDelegate()
                 ->shownText(m_panel->model()->index(last))
                 .startsWith(QStringLiteral("Allow Fetch? %1").arg(url)),
             qPrintable(view->chatDelegate()->shownText(m_panel->model()->index(last))));
    // To this computer or the local network: the card says so.
    request.id = 78;
    request.summary =
        QStringLiteral("127.0.0.1 is an address on this computer or your local network (127.0.0.1).");
    m_panel->model()->addPermission(request);
    const QString local =
        view->chatDelegate()->shownText(m_panel->model()->index(m_panel->model()->rowCount() - 1));
    QVERIFY2(
        local.contains(QStringLiteral("⚠ 127.0.0.1 is an address on this computer or your local network")),
        qPrintable(local));

    // A small page's size is in bytes.
    QCOMPARE(ToolDisplay::metadata(
                 QStringLiteral("web_fetch"),
                 ToolResultFacts::read(QStringLiteral("web_fetch"),
                                       QJsonObject{{QStringLiteral("status_code"), 203},
                                                   {QStringLiteral("content"), QStringLiteral("ok")}})),
             QStringLiteral("203 · 2 bytes"));
}

// Seen and left since 2026-12-05, then seen again when tried: a session opened again lost its permission
// cards, so what the person allowed (a command flagged destructive, a fetch of this computer) or refused
// was nowhere to be seen. The real tool loop against the loopback provider: a dangerous command allowed and
// a write denied; opened again, the same two settled cards stand below their tool cards, saying the same.
void TestToolCards::answeredPermissionCardsComeBackWhenReopened()
{
    using test::FakeProviderServer;
    FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueue(dangerousCommandCall(QStringLiteral("echo cleaned")));
    server.enqueue(FakeProviderServer::sseResponse(test::Workloads::chatCompletionsToolCallSse(
        {QStringLiteral("Writing.")}, QStringLiteral("call_2"), QStringLiteral("write_file"),
        {{QStringLiteral("path"), QStringLiteral("notes.txt")},
         {QStringLiteral("content"), QStringLiteral("first line\nsecond line\n")}})));
    server.enqueue(
        FakeProviderServer::sseResponse(test::Workloads::chatCompletionsSse({QStringLiteral("Done.")})));
    QVERIFY(QDir().mkpath(m_env->path(QStringLiteral("work"))));

    const LoopbackChat chat = loopbackChat(server);
    AgentSession &session = *chat.session;
    ChatPanel &panel = *chat.panel;
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChatModel *model = panel.model();
    auto rows = [&] { return toolAndPermissionRows(panel); };

    QTest::keyClicks(panel.input(), QStringLiteral("clean up and take notes"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY(FakeProviderServer::spinUntil([&] { return model->hasPendingPermission(); }, 20000));
    Q_EMIT panel.view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Allow);
    const bool asked = FakeProviderServer::spinUntil(
        [&] { return model->hasPendingPermission() && rows().size() == 4; }, 20000);
    QVERIFY2(asked, qPrintable(rows().join(QLatin1Char('\n')) + QLatin1Char('\n') + model->plainText()));
    Q_EMIT panel.view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Deny);
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));
    const QStringList live = rows();
    QCOMPARE(live.size(), 4);
    QCOMPARE(live.at(0), QStringLiteral("tool: bash"));
    QVERIFY2(live.at(1).contains(QStringLiteral("echo cleaned")) &&
                 live.at(1).contains(QStringLiteral("clean the build folder")) &&
                 live.at(1).contains(QStringLiteral("may be destructive")) &&
                 live.at(1).endsWith(QStringLiteral("Allowed")),
             qPrintable(live.at(1)));
    QCOMPARE(live.at(2), QStringLiteral("tool: write_file"));
    QVERIFY2(live.at(3).contains(QStringLiteral("notes.txt")) &&
                 live.at(3).contains(QStringLiteral("second line")) && // the refused change, as asked
                 live.at(3).endsWith(QStringLiteral("Denied")),
             qPrintable(live.at(3)));
    QVERIFY(!QFile::exists(m_env->path(QStringLiteral("work/notes.txt"))));

    // Kept with each call in the transcript (docs/SESSION_FORMAT.md, tool_end.permission).
    const QString id = session.sessionId();
    const QByteArray saved = savedTranscript(session);
    QVERIFY(saved.contains(R"("decision":"allowed")") && saved.contains(R"("decision":"denied")"));
    panel.newSession();
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(session.openSession(id).ok());
    QVERIFY(FakeProviderServer::spinUntil([&] { return rows().size() == 4; }, 20000));
    QCOMPARE(rows(), live);
    QVERIFY(!model->hasPendingPermission()); // settled: no buttons wait for an answer
}

void TestToolCards::aQuestionOpenWhenTheTurnStopsComesBackCancelled()
{
    // Found when tried: Stop while a permission card waited settled it "Cancelled" live, and a session opened
    // again showed the interrupted card with no trace of the question.
    using test::FakeProviderServer;
    FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueue(dangerousCommandCall(QStringLiteral("rm -rf build")));
    QVERIFY(QDir().mkpath(m_env->path(QStringLiteral("work/build"))));

    const LoopbackChat chat = loopbackChat(server);
    AgentSession &session = *chat.session;
    ChatPanel &panel = *chat.panel;
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChatModel *model = panel.model();
    auto rows = [&] { return toolAndPermissionRows(panel); };

    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    QTest::keyClicks(panel.input(), QStringLiteral("clean the build"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY(FakeProviderServer::spinUntil([&] { return model->hasPendingPermission(); }, 20000));
    QTRY_VERIFY(panel.view()->isAncestorOf(QApplication::focusWidget())); // the card takes the keys
    panel.interrupt(); // Stop (Ctrl+C) while the card waits
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));
    // What the person types next goes to the input (found when tried: it went nowhere).
    QTRY_COMPARE(QApplication::focusWidget(), panel.input());
    QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("keep the build"));
    QCOMPARE(panel.input()->toPlainText(), QStringLiteral("keep the build"));
    const QStringList live = rows();
    QCOMPARE(live.size(), 2);
    QCOMPARE(live.at(0), QStringLiteral("tool: bash"));
    const auto interrupted = [&] {
        return model->item(toolRows(*model).constFirst()).toolState == ChatItem::ToolState::Interrupted;
    };
    QVERIFY(interrupted());
    QVERIFY2(live.at(1).contains(QStringLiteral("rm -rf build")) &&
                 live.at(1).contains(QStringLiteral("may be destructive")) &&
                 live.at(1).endsWith(QStringLiteral("Cancelled")),
             qPrintable(live.at(1)));
    QVERIFY(QFileInfo::exists(m_env->path(QStringLiteral("work/build")))); // it did not run

    // "Ask what to do instead" stops the turn too: that answer is kept the same way.
    server.enqueue(dangerousCommandCall(QStringLiteral("rm -rf build")));
    panel.input()->clear();
    QTest::keyClicks(panel.input(), QStringLiteral("clean it after all"));
    QTest::keyClick(panel.input(), Qt::Key_Return);
    QVERIFY(FakeProviderServer::spinUntil([&] { return model->hasPendingPermission(); }, 20000));
    Q_EMIT panel.view()->permissionDecided(model->pendingPermissionId(), PermissionDecision::Redirect);
    QVERIFY(FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 20000));
    const QStringList both = rows();
    QCOMPARE(both.size(), 4);
    QVERIFY2(both.at(3).endsWith(QStringLiteral("Denied: asked what to do instead")), qPrintable(both.at(3)));

    const QString id = session.sessionId();
    const QByteArray saved = savedTranscript(session);
    QVERIFY2(saved.contains(R"("decision":"cancelled")") && saved.contains(R"("decision":"redirected")"),
             saved.constData());
    panel.newSession();
    QCOMPARE(model->rowCount(), 0);
    QVERIFY(session.openSession(id).ok());
    QVERIFY(FakeProviderServer::spinUntil([&] { return rows().size() == 4; }, 20000));
    QCOMPARE(rows(), both);
    QVERIFY(!model->hasPendingPermission());
    QVERIFY(interrupted());
    QVERIFY(model->plainText().contains(QStringLiteral("Interrupted...what should the agent do instead?")));
}

// Found when tried: a reopened session showed an ask_user call's tool card alone, so the question the agent
// asked and what the person answered were nowhere. Answered, cancelled (Esc), and open when the turn was
// stopped: each question card comes back below its tool card, saying what it said live.
void TestToolCards::theAgentsQuestionsComeBackWithTheirAnswersWhenReopened()
{
    const QJsonObject questions = test::Workloads::databaseQuestion();
    m_client->addTurn({ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::chunk(QStringLiteral("Asking once more.")),
                       ScriptedLlmClient::runTool(QStringLiteral("ask_user"), questions),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("set up storage"));
    ChatModel *model = m_panel->model();
    // Each tool card and each question card with what it says.
    auto rows = [model] {
        QStringList shown;
        for (int row = 0; row < model->rowCount(); ++row) {
            const ChatItem &item = model->item(row);
            if (item.kind == ChatItem::Kind::Question)
                shown.append(QStringLiteral("question: %1 -> %2 (%3)")
                                 .arg(item.text, item.outcome,
                                      item.settled ? QStringLiteral("settled") : QStringLiteral("open")));
            else if (item.kind == ChatItem::Kind::Tool)
                shown.append(QStringLiteral("tool: ") + item.toolName);
        }
        return shown;
    };
    auto pendingQuestion = [model] {
        for (int row = model->rowCount() - 1; row >= 0; --row) {
            if (model->item(row).kind == ChatItem::Kind::Question && !model->item(row).settled)
                return model->item(row).questionId;
        }
        return quint64(0);
    };
    QTRY_VERIFY(pendingQuestion() != 0);
    Q_EMIT m_panel->view()->questionAnswered(pendingQuestion(),
                                             UserAnswer{{QStringLiteral("Postgres")}, false});
    QTRY_COMPARE(m_client->toolResults().size(), 1);
    QTRY_VERIFY(pendingQuestion() != 0);
    QTest::keyClick(m_panel->input(), Qt::Key_Escape); // cancels the question, not the turn
    QTRY_COMPARE(m_client->toolResults().size(), 2);
    QTRY_VERIFY(pendingQuestion() != 0);
    m_panel->interrupt(); // Stop while the third waits
    QTRY_VERIFY(!m_session->isBusy());

    const QStringList live = rows();
    const QString asked = QStringLiteral("question: Which database? -> %1 (settled)");
    QCOMPARE(live, (QStringList{QStringLiteral("tool: ask_user"), asked.arg(QStringLiteral("Postgres")),
                                QStringLiteral("tool: ask_user"), asked.arg(QStringLiteral("Cancelled")),
                                QStringLiteral("tool: ask_user"), asked.arg(QStringLiteral("Cancelled"))}));
    reopenSession();
    QTRY_COMPARE(rows(), live);
    QCOMPARE(pendingQuestion(), quint64(0)); // nothing waits for an answer
}

QTEST_MAIN(TestToolCards)
#include "tst_toolcards.moc"
