// The AgentSession facade: AppState, persistence and the seed's manual and
// automatic compaction behaviour, driven by a scripted provider on the real
// worker thread.
#include "agent/agentsession.h"
#include "agent/contextestimator.h"
#include "agent/systemprompt.h"
#include "conversation/metatypes.h"
#include "loop/compactionprompts.h"
#include "loop/contextbudget.h"
#include "scriptedllmclient.h"
#include "session/sessionstore.h"
#include "session/sessionwriter.h"
#include "testenvironment.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QMutex>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QThreadPool>
#include <QWaitCondition>

#include <atomic>
#include <functional>
#include <thread>

using namespace keen;
using keen::test::ScriptedLlmClient;

namespace {

StreamEvent toolEvent(StreamEvent::Type type, const QString &name, const QString &error = QString())
{
    ToolCallInfo info;
    info.callId = QStringLiteral("call_1");
    info.name = name;
    info.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")}};
    info.error = error;
    if (type == StreamEvent::Type::ToolEnd && error.isEmpty())
        info.output = QJsonObject{{QStringLiteral("content"), QStringLiteral("1:abc|hello")}};
    return StreamEvent::tool(type, info);
}

// "Reading a.txt. ", the read, then a wait that only an interrupt ends.
ScriptedLlmClient::Turn readThenWaitForever()
{
    return {ScriptedLlmClient::chunk(QStringLiteral("Reading a.txt. ")),
            ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file"))),
            ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file"))),
            ScriptedLlmClient::gate(QStringLiteral("never")), ScriptedLlmClient::event(StreamEvent::done())};
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A real store that notes the thread of every write and can hold writes until released, or refuse to create.
class WatchedStore final : public SessionStore
{
public:
    using SessionStore::SessionStore;

    Result<QList<quint64>> createFiles(Session &session, const QList<SessionEvent> &following) override
    {
        enter();
        if (refuseCreate)
            return Result<QList<quint64>>::failure(QStringLiteral("No space left on device"));
        return SessionStore::createFiles(session, following);
    }
    Result<QList<quint64>> appendGroup(Session &session, const QList<SessionEvent> &events) override
    {
        enter();
        return SessionStore::appendGroup(session, events);
    }
    Result<QList<quint64>> appendBatch(Session &session, const QList<SessionEvent> &events) override
    {
        enter();
        return SessionStore::appendBatch(session, events);
    }

    // Writes wait until release(), or until timeoutMs passed (then they go on: code that waits for them on
    // this thread fails its test instead of hanging it).
    void hold(int timeoutMs = -1)
    {
        QMutexLocker lock(&m_mutex);
        m_held = true;
        m_deadline = timeoutMs < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs);
    }
    void release()
    {
        QMutexLocker lock(&m_mutex);
        m_held = false;
        m_changed.wakeAll();
    }
    int waiting() const
    {
        QMutexLocker lock(&m_mutex);
        return m_waiting;
    }
    QList<QThread *> threads() const
    {
        QMutexLocker lock(&m_mutex);
        return m_threads;
    }
    std::atomic_bool refuseCreate = false;

private:
    void enter()
    {
        QMutexLocker lock(&m_mutex);
        m_threads.append(QThread::currentThread());
        ++m_waiting;
        while (m_held && m_changed.wait(&m_mutex, m_deadline)) {
        }
        --m_waiting;
    }

    mutable QMutex m_mutex;
    QWaitCondition m_changed;
    bool m_held = false;
    QDeadlineTimer m_deadline;
    int m_waiting = 0;
    QList<QThread *> m_threads;
};

QStringList eventKinds(const QList<SessionEvent> &events)
{
    QStringList kinds;
    for (const SessionEvent &event : events)
        kinds << event.kindName();
    return kinds;
}

} // namespace

class TestAgentSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void turnPersistsAndKeepsSystemPromptOutOfHistory_S33_S55();
    void manualCompactionRequestKeepsPrefixAndDisablesTools_S19_S20_S21_S22_S23();
    void manualCompactionSystemPromptIsBuiltFresh_S20();
    void manualCompactionAppliesOnlyTextAfterLastTool_S24_S25_S28_S29();
    void manualCompactionEmptySummaryChangesNothing_S27_S30();
    void manualCompactionCancelledByEscOnly_S26_S30();
    void manualCompactionFailureReportsReason_S30();
    void nextTurnAfterCompactionHasOneFreshSystemPrompt_S33();
    void autoCompactionCheckpointsAndReplaces_S53_S55_S60_S61_S62_S63_S64();
    void autoCompactionEscCancelsOnlyChild_S50_S52();
    void stopDuringAutoCompactionInterruptsParent_S51();
    void interruptedToolTurnJoinsTheHistoryAfterTheNextDoneTurn();
    void interruptedToolTurnIsKeptWhenTheModelChanges();
    void aToolStoppedByEscIsRememberedAsStopped();
    void autoCompactionPersistFailureStopsTurn_S61();
    void busySessionRefusesNewWork();
    void hostileUsageTotalsSaturate();
    void compactionUsageIsCountedApartFromTurns();
    void contextEstimateFollowsCompactionAndUndo();
    void contextEstimateReadsTheFolderOnAWorker();
    void contextEstimateNeverReadsANewFolderOnTheGuiThread();
    void planModeGoesIntoTheSystemPromptNotTheMessage();
    void modeSavedByAnOlderVersionIsDroppedOnOpen();
    void transcriptWritesRunOffTheGuiThread();
    void heldDiskNeverHoldsTheGuiThread();
    void sessionThatCannotBeCreatedLosesNothing();
    void pinMadeDuringATurnAfterACompactionGoesInWithTheNextMessage();
    void pinMadeDuringTheFirstTurnGoesInWithTheNextMessage();
    void pinnedToolResultJoinsTheHistoryOnlyWhenItIsNotReplayed();
    void leavingASessionNeverWaitsForItsWrites();
    void closingWritesWhatALeftSessionStillHeld();

private:
    // A session with one turn, then a policy and a pin (with its pinned_context) whose writes the disk holds
    // (at most holdMs).
    QString sessionWithHeldWrites(WatchedStore &store, int holdMs);
    std::unique_ptr<keen::test::TestEnvironment> m_env;
    std::unique_ptr<QTemporaryDir> m_workspace;
    std::shared_ptr<ScriptedLlmClient> m_client;
    std::unique_ptr<AgentSession> m_session;

    std::shared_ptr<WatchedStore> watchStore();
    void runTurn(const QString &text);
    void runOneTurn(const ScriptedLlmClient::Turn &turn, const QString &text = QStringLiteral("hello"));
    // Submits text and interrupts the turn once it streamed an event of type seen (as Esc does).
    AgentSession::TurnOutcome interruptOnceSeen(const QString &text, StreamEvent::Type seen);
    // The next two turns: the first request carries the pinned note once, as the <pinned_context> message
    // right before the person's words, the second still once; the transcript projects to the same history.
    void pinnedNoteGoesInWithTheNextMessageOnce(const std::function<qsizetype(const MessageList &)> &holding);
};

void TestAgentSession::init()
{
    registerCoreMetaTypes();
    m_env = std::make_unique<keen::test::TestEnvironment>();
    m_workspace = std::make_unique<QTemporaryDir>();
    m_client = std::make_shared<ScriptedLlmClient>();
    m_session = std::make_unique<AgentSession>();
    m_session->setWorkspace(m_workspace->path());
    m_session->setSessionStore(std::make_shared<SessionStore>(m_env->path(QStringLiteral("sessions"))));
    ClientConfig config;
    config.providerId = QStringLiteral("test");
    config.model = QStringLiteral("scripted");
    m_session->setClientConfig(config);
    auto client = m_client;
    m_session->setClientFactory([client](const ClientConfig &) {
        return Result<std::shared_ptr<LlmClient>>(std::shared_ptr<LlmClient>(client));
    });
}

void TestAgentSession::cleanup()
{
    m_session.reset();
    m_client.reset();
    m_workspace.reset();
    m_env.reset();
}

std::shared_ptr<WatchedStore> TestAgentSession::watchStore()
{
    auto store = std::make_shared<WatchedStore>(m_env->path(QStringLiteral("sessions")));
    m_session->setSessionStore(store);
    return store;
}

void TestAgentSession::runTurn(const QString &text)
{
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->submit(text));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
}

AgentSession::TurnOutcome TestAgentSession::interruptOnceSeen(const QString &text, StreamEvent::Type seen)
{
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QSignalSpy events(m_session.get(), &AgentSession::streamEvent);
    if (!m_session->submit(text))
        return AgentSession::TurnOutcome::Error;
    const auto streamed = [&] {
        return std::any_of(events.cbegin(), events.cend(), [seen](const QList<QVariant> &args) {
            return args.at(0).value<StreamEvent>().type == seen;
        });
    };
    if (!QTest::qWaitFor(streamed, 5000) || !m_session->interrupt() ||
        !QTest::qWaitFor([&] { return !finished.isEmpty(); }, 5000))
        return AgentSession::TurnOutcome::Error;
    return finished.at(0).at(0).value<AgentSession::TurnOutcome>();
}

void TestAgentSession::runOneTurn(const ScriptedLlmClient::Turn &turn, const QString &text)
{
    m_client->addTurn(turn);
    runTurn(text);
}

void TestAgentSession::pinnedNoteGoesInWithTheNextMessageOnce(
    const std::function<qsizetype(const MessageList &)> &holding)
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("next"));
    MessageList request = m_client->requests().constLast();
    QCOMPARE(holding(request), 1);
    QCOMPARE(request.at(request.size() - 2),
             Message::user(CompactionPrompts::pinnedContext(m_session->pins())));
    QCOMPARE(request.constLast(), Message::user(QStringLiteral("next")));
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("again"));
    QCOMPARE(holding(m_client->requests().constLast()), 1);

    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(buildConversation(loaded->events), m_session->messages());
    QCOMPARE(eventKinds(loaded->events).count(QStringLiteral("pinned_context")), 1);
}

// proves S33, S55
void TestAgentSession::turnPersistsAndKeepsSystemPromptOutOfHistory_S33_S55()
{
    runOneTurn({ScriptedLlmClient::chunk(QStringLiteral("Hi ")),
                ScriptedLlmClient::chunk(QStringLiteral("there")),
                ScriptedLlmClient::event(StreamEvent::done())});
    const MessageList history = m_session->messages();
    QCOMPARE(history.size(), 2);
    QCOMPARE(history.at(0), Message::user(QStringLiteral("hello")));
    QCOMPARE(history.at(1).content, QStringLiteral("Hi there"));
    const MessageList request = m_client->requests().at(0);
    QCOMPARE(request.at(0).role, Message::Role::System);
    QVERIFY(request.at(0).content.contains(m_workspace->path()));
    QCOMPARE(request.mid(1), MessageList{Message::user(QStringLiteral("hello"))});

    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(loaded->events.size(), 3);
    QCOMPARE(buildConversation(loaded->events), history); // memory mirrors disk
}

// proves S13, S18, S19, S20, S21, S22, S23
void TestAgentSession::manualCompactionRequestKeepsPrefixAndDisablesTools_S19_S20_S21_S22_S23()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    const MessageList turnRequest = m_client->requests().at(0);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nx")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->compact(QStringLiteral("Focus on the API")));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);

    const MessageList request = m_client->requests().at(1);
    QCOMPARE(request.size(), 4); // system + user + assistant + prompt
    QCOMPARE(request.at(0),
             turnRequest.at(0)); // same system prompt: cache reuse (S23)
    QCOMPARE(request.mid(1, 2), MessageList({Message::user(QStringLiteral("hello")),
                                             Message::assistant(QStringLiteral("answer"))}));
    QCOMPARE(request.last().role, Message::Role::User); // S13
    QCOMPARE(request.last().content, CompactionPrompts::manualPrompt(QStringLiteral("Focus on the API")));
    QVERIFY(request.last().content.contains(QStringLiteral("Focus on the API"))); // S18
    const StreamOptions options = m_client->options().at(1);
    QVERIFY(options.disableToolCalls);      // S21
    QVERIFY(options.disableAutoCompaction); // S22
    QVERIFY(!options.oneShot);
}

// proves S20: what changed since the last turn (project instructions written, the mode switched to plan) is
// in the compaction request's system message, built fresh as for a turn, not the last turn's copy.
void TestAgentSession::manualCompactionSystemPromptIsBuiltFresh_S20()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    const Message turnSystem = m_client->requests().at(0).at(0);
    QCOMPARE(turnSystem.role, Message::Role::System);
    QVERIFY(!turnSystem.content.contains(QStringLiteral("Use tabs, never spaces.")));

    QFile instructions(QDir(m_workspace->path()).filePath(QStringLiteral("AGENTS.md")));
    QVERIFY(instructions.open(QIODevice::WriteOnly));
    instructions.write("Use tabs, never spaces.\n");
    instructions.close();
    m_session->setMode(AgentMode::Plan);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nx")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::compactionFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);

    const Message compactionSystem = m_client->requests().at(1).at(0);
    QCOMPARE(compactionSystem.role, Message::Role::System);
    QVERIFY(compactionSystem.content.contains(QStringLiteral("Use tabs, never spaces.")));
    QVERIFY(compactionSystem.content.contains(QStringLiteral("Active mode: plan.")));
    QVERIFY(!turnSystem.content.contains(QStringLiteral("Active mode: plan.")));
}

// proves S24, S25, S28, S29
void TestAgentSession::manualCompactionAppliesOnlyTextAfterLastTool_S24_S25_S28_S29()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Let me check. ")),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file"))),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file"),
                                            CompactionPrompts::toolCallsDisabledMessage())),
         ScriptedLlmClient::chunk(QStringLiteral("  ## Goal\nShip it.\n")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy events(m_session.get(), &AgentSession::streamEvent);
    QSignalSpy compaction(m_session.get(), &AgentSession::compactionFinished);
    QSignalSpy started(m_session.get(), &AgentSession::compactionStarted);
    QVERIFY(m_session->compact());
    QCOMPARE(m_session->compactionMode(), AgentSession::CompactionMode::Manual);
    QTRY_VERIFY_WITH_TIMEOUT(!compaction.isEmpty(), 5000);
    QCOMPARE(started.size(), 1);
    QCOMPARE(compaction.at(0).at(1).toBool(), true);
    QCOMPARE(compaction.at(0).at(2).toString(), QStringLiteral("## Goal\nShip it."));

    // S25: the summary streamed visibly.
    QString visible;
    for (const auto &args : events)
        visible += args.at(0).value<StreamEvent>().content;
    QVERIFY(visible.contains(QStringLiteral("## Goal")));

    // S24, S28: exactly one user message holding only the text after the last
    // tool activity.
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("## Goal\nShip it."))});

    // S29: one compaction_applied with the status, the visible transcript and the
    // messages.
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    const SessionEvent last = loaded->events.last();
    QCOMPARE(last.kind, SessionEvent::Kind::CompactionApplied);
    QCOMPARE(last.status(), QStringLiteral("Context compacted."));
    QCOMPARE(last.messages(), m_session->messages());
    QVERIFY(!last.transcript().isEmpty());
    QCOMPARE(buildConversation(loaded->events), m_session->messages());
}

// proves S27, S30
void TestAgentSession::manualCompactionEmptySummaryChangesNothing_S27_S30()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    const MessageList before = m_session->messages();
    const QByteArray transcriptBefore = readAll(m_session->transcriptPath());
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("   \n")), ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy compaction(m_session.get(), &AgentSession::compactionFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!compaction.isEmpty(), 5000);
    QCOMPARE(compaction.at(0).at(1).toBool(), false);
    QCOMPARE(compaction.at(0).at(2).toString(),
             QStringLiteral("Compaction failed: compaction returned empty summary"));
    QCOMPARE(m_session->messages(), before);
    QCOMPARE(readAll(m_session->transcriptPath()), transcriptBefore);
}

// proves S26, S30
void TestAgentSession::manualCompactionCancelledByEscOnly_S26_S30()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    const MessageList before = m_session->messages();
    const QByteArray transcriptBefore = readAll(m_session->transcriptPath());
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal partial")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy events(m_session.get(), &AgentSession::streamEvent);
    QSignalSpy compaction(m_session.get(), &AgentSession::compactionFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!events.isEmpty(), 5000);
    QVERIFY(!m_session->interrupt()); // Stop / Ctrl+C are ignored during a manual
                                      // compaction
    QCOMPARE(m_session->compactionMode(), AgentSession::CompactionMode::Manual);
    QVERIFY(m_session->cancelCompaction()); // Esc
    QTRY_VERIFY_WITH_TIMEOUT(!compaction.isEmpty(), 5000);
    QCOMPARE(compaction.at(0).at(2).toString(), QStringLiteral("Compaction cancelled."));
    QCOMPARE(m_session->messages(), before);
    QCOMPARE(readAll(m_session->transcriptPath()), transcriptBefore);
    QVERIFY(!m_session->isBusy());
}

// proves S30
void TestAgentSession::manualCompactionFailureReportsReason_S30()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    const MessageList before = m_session->messages();
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("## Goal")),
         ScriptedLlmClient::event(StreamEvent::failure(QStringLiteral("service unavailable")))});
    QSignalSpy compaction(m_session.get(), &AgentSession::compactionFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!compaction.isEmpty(), 5000);
    QCOMPARE(compaction.at(0).at(2).toString(), QStringLiteral("Compaction failed: service unavailable"));
    QCOMPARE(m_session->messages(), before);
}

// proves S33
void TestAgentSession::nextTurnAfterCompactionHasOneFreshSystemPrompt_S33()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nsummary")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("next"));
    const MessageList request = m_client->requests().at(2);
    int systems = 0;
    for (const Message &m : request)
        systems += m.role == Message::Role::System ? 1 : 0;
    QCOMPARE(systems, 1);
    QCOMPARE(request.mid(1), MessageList({Message::user(QStringLiteral("## Goal\nsummary")),
                                          Message::user(QStringLiteral("next"))}));
}

// proves S53, S54, S55, S60, S61, S62, S63, S64
void TestAgentSession::autoCompactionCheckpointsAndReplaces_S53_S55_S60_S61_S62_S63_S64()
{
    const MessageList replacement{
        Message::system(QStringLiteral("agent prompt")),
        Message::user(QStringLiteral("<compacted_context>\nsummary\n</compacted_context>"))};
    TokenUsage usage;
    usage.inputTokens = 900;
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::usageReport(usage)),
         ScriptedLlmClient::chunk(QStringLiteral("before checkpoint")),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file"))),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file"))),
         ScriptedLlmClient::autoCompaction(replacement),
         ScriptedLlmClient::chunk(QStringLiteral(" after checkpoint")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy checkpointed(m_session.get(), &AgentSession::autoCompactionCheckpointed);
    QSignalSpy notices(m_session.get(), &AgentSession::notification);
    QSignalSpy started(m_session.get(), &AgentSession::compactionStarted);
    QSignalSpy events(m_session.get(), &AgentSession::streamEvent);
    runTurn(QStringLiteral("implement this exactly"));

    QCOMPARE(started.size(), 1);
    QCOMPARE(started.at(0).at(0).value<AgentSession::CompactionMode>(),
             AgentSession::CompactionMode::Automatic);
    QCOMPARE(checkpointed.size(), 1);
    QCOMPARE(checkpointed.at(0).at(0).toString(), QStringLiteral("before checkpoint"));
    QCOMPARE(notices.size(), 1);
    QCOMPARE(notices.at(0).at(0).toString(), QStringLiteral("Context compacted automatically."));
    QVERIFY(!m_session->lastUsage()); // metrics restart after apply
    for (const auto &args : events)
        QVERIFY(!args.at(0).value<StreamEvent>().content.contains(QStringLiteral("summary"))); // S54

    // S55: memory holds the system-free replacement plus what came after.
    const MessageList history = m_session->messages();
    QCOMPARE(history.size(), 2);
    QCOMPARE(history.at(0), replacement.at(1));
    QCOMPARE(history.at(1).content, QStringLiteral(" after checkpoint"));

    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    const QList<SessionEvent> &ev = loaded->events;
    QCOMPARE(ev.size(), 5); // started, user, checkpoint, compaction, final
    QCOMPARE(ev.at(2).kind, SessionEvent::Kind::AssistantTurn);
    QCOMPARE(ev.at(2).assistantMessage(),
             QStringLiteral("before checkpoint")); // S63
    QVERIFY(ev.at(2).turnMemory().has_value());
    QCOMPARE(ev.at(3).kind, SessionEvent::Kind::CompactionApplied);
    QCOMPARE(ev.at(3).seq, ev.at(2).seq + 1); // S60
    QCOMPARE(ev.at(3).status(), QString());   // S64
    QVERIFY(ev.at(3).transcript().isEmpty());
    QCOMPARE(ev.at(3).messages(), withoutSystemMessages(replacement));
    QCOMPARE(ev.at(4).assistantMessage(), QStringLiteral(" after checkpoint"));
    QCOMPARE(buildConversation(ev), history); // S62

    // The next turn sends exactly one, fresh system prompt in front of the compacted context (S33, S55).
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("next"));
    const MessageList next = m_client->requests().last();
    QCOMPARE(next.size(), 4);
    QCOMPARE(next.at(0).role, Message::Role::System);
    QVERIFY(next.at(0).content != replacement.at(0).content);
    QCOMPARE(next.mid(1),
             MessageList({replacement.at(1), Message::assistant(QStringLiteral(" after checkpoint")),
                          Message::user(QStringLiteral("next"))}));
}

// proves S50, S52
void TestAgentSession::autoCompactionEscCancelsOnlyChild_S50_S52()
{
    const MessageList replacement{Message::user(QStringLiteral("<compacted_context>x</compacted_context>"))};
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("working")),
                       ScriptedLlmClient::autoCompaction(replacement, QStringLiteral("never")),
                       ScriptedLlmClient::chunk(QStringLiteral(" done")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy started(m_session.get(), &AgentSession::compactionStarted);
    QSignalSpy stopped(m_session.get(), &AgentSession::compactionFinished);
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->submit(QStringLiteral("go")));
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), 5000);
    QCOMPARE(m_session->compactionMode(), AgentSession::CompactionMode::Automatic);
    QVERIFY(m_session->cancelCompaction()); // Esc: only the child
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QCOMPARE(stopped.size(), 1);
    QCOMPARE(stopped.at(0).at(1).toBool(), false);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Done);
    QCOMPARE(m_session->messages().last().content,
             QStringLiteral("working done")); // parent went on
    QCOMPARE(m_session->messages().first(),
             Message::user(QStringLiteral("go"))); // not replaced
}

// proves S51
void TestAgentSession::stopDuringAutoCompactionInterruptsParent_S51()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("working")),
         ScriptedLlmClient::autoCompaction({Message::user(QStringLiteral("x"))}, QStringLiteral("never")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy started(m_session.get(), &AgentSession::compactionStarted);
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->submit(QStringLiteral("go")));
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), 5000);
    QVERIFY(m_session->interrupt());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Cancelled);
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded->events.last().interrupted());
}

// Found trying the window: after Ctrl+C in a tool loop, the next request carried the interrupted turn (the
// client's pending state) and the one after it did not have it at all, while the same session reopened sent
// it. Once a later turn ends done, memory holds the interrupted turn where the transcript has it.
void TestAgentSession::interruptedToolTurnJoinsTheHistoryAfterTheNextDoneTurn()
{
    m_client->addTurn(readThenWaitForever());
    QCOMPARE(interruptOnceSeen(QStringLiteral("read a.txt"), StreamEvent::Type::ToolEnd),
             AgentSession::TurnOutcome::Cancelled);
    // The next request: the pending state carries it, the history does not (it would go twice).
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("read a.txt"))});

    runOneTurn({ScriptedLlmClient::chunk(QStringLiteral("Done instead.")),
                ScriptedLlmClient::event(StreamEvent::done())},
               QStringLiteral("do something else"));
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    const MessageList projected = buildConversation(loaded->events);
    QCOMPARE(m_session->messages(), projected);
    QCOMPARE(projected.size(), 4); // read a.txt, the interrupted turn, do something else, its answer
    QCOMPARE(projected.at(1).content, QStringLiteral("Reading a.txt. "));
    QVERIFY(projected.at(1).turnMemory);

    // And the request after that sends it, as the reopened session would.
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("and now?"));
    QCOMPARE(m_client->requests().last().mid(1, 4), projected);
}

// Found in the window: Esc during a command on Anthropic, then another provider chosen in the toolbar: the
// next request carried "run slowtool" and the new prompt, and nothing of the command. The interrupted turn
// lived only in the old client's pending state, dropped with that client; a new model or thinking effort
// dropped it the same way. It joins the history when the client is replaced.
void TestAgentSession::interruptedToolTurnIsKeptWhenTheModelChanges()
{
    m_client->addTurn(readThenWaitForever());
    QCOMPARE(interruptOnceSeen(QStringLiteral("read a.txt"), StreamEvent::Type::ToolEnd),
             AgentSession::TurnOutcome::Cancelled);

    ClientConfig other = m_session->clientConfig();
    other.model = QStringLiteral("another-model");
    m_session->setClientConfig(other);
    runOneTurn({ScriptedLlmClient::chunk(QStringLiteral("Done instead.")),
                ScriptedLlmClient::event(StreamEvent::done())},
               QStringLiteral("do something else"));
    const MessageList sent = m_client->requests().last().mid(1);
    QCOMPARE(sent.size(), 3); // read a.txt, the interrupted turn, do something else
    QCOMPARE(sent.at(1).content, QStringLiteral("Reading a.txt. "));
    QVERIFY(sent.at(1).turnMemory);
    QCOMPARE(sent.at(1).turnMemory->toolActivity.size(), 1);
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(m_session->messages(), buildConversation(loaded->events));
}

// A command stopped by Esc was saved as its start only: once a later turn ended done (or the session was
// reopened) the model no longer learned that it had run and was stopped, which the next request had told it.
// It is kept in the turn memory as a call that failed because the person interrupted it.
void TestAgentSession::aToolStoppedByEscIsRememberedAsStopped()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Running the build. ")),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("bash"))),
         ScriptedLlmClient::gate(QStringLiteral("never")), ScriptedLlmClient::event(StreamEvent::done())});
    QCOMPARE(interruptOnceSeen(QStringLiteral("build it"), StreamEvent::Type::ToolStart),
             AgentSession::TurnOutcome::Cancelled);

    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    const SessionEvent &turn = loaded->events.last();
    QVERIFY(turn.interrupted());
    const MessageList projected = buildConversation(loaded->events);
    QCOMPARE(projected.size(), 2);
    QVERIFY(projected.at(1).turnMemory);
    QCOMPARE(projected.at(1).turnMemory->toolActivity.size(), 1);
    const ToolActivity &stopped = projected.at(1).turnMemory->toolActivity.first();
    QCOMPARE(stopped.tool, QStringLiteral("bash"));
    QCOMPARE(stopped.status, QStringLiteral("error"));

    // The next turn that ends done brings it into the history the requests after it are built from.
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("never mind"));
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("and now?"));
    const MessageList sent = m_client->requests().last().mid(1);
    QCOMPARE(sent.at(1).role, Message::Role::Assistant);
    QVERIFY(sent.at(1).turnMemory);
    QCOMPARE(sent.at(1).turnMemory->toolActivity.first().status, QStringLiteral("error"));
    QCOMPARE(m_session->messages(),
             buildConversation(m_session->sessionStore().load(m_session->sessionId())->events));
}

// proves S61
void TestAgentSession::autoCompactionPersistFailureStopsTurn_S61()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("working")),
                       ScriptedLlmClient::gate(QStringLiteral("go-on")),
                       ScriptedLlmClient::autoCompaction(
                           {Message::user(QStringLiteral("<compacted_context>x</compacted_context>"))}),
                       ScriptedLlmClient::chunk(QStringLiteral(" never shown")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy events(m_session.get(), &AgentSession::streamEvent);
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QSignalSpy errors(m_session.get(), &AgentSession::errorOccurred);
    QVERIFY(m_session->submit(QStringLiteral("go")));
    QTRY_VERIFY_WITH_TIMEOUT(!events.isEmpty(), 5000);
    // The disk goes away: the batch cannot be written.
    const QString dir = QFileInfo(m_session->transcriptPath()).absolutePath();
    QVERIFY(QDir(dir).removeRecursively());
    m_client->open(QStringLiteral("go-on"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Error);
    QVERIFY(!errors.isEmpty());
    QTRY_VERIFY(m_client->commitRejected()); // the model side never switched either
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("go"))});
    QVERIFY(!QFile::exists(dir)); // no orphan checkpoint anywhere
}

void TestAgentSession::busySessionRefusesNewWork()
{
    m_client->addTurn(
        {ScriptedLlmClient::gate(QStringLiteral("g")), ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->submit(QStringLiteral("one")));
    QVERIFY(m_session->isBusy());
    QCOMPARE(m_session->submit(QStringLiteral("two")).error(), QStringLiteral("Operation not permitted"));
    QVERIFY(!m_session->compact());
    m_client->open(QStringLiteral("g"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QVERIFY(!m_session->isBusy());
}

void TestAgentSession::hostileUsageTotalsSaturate()
{
    // A provider claiming 2^53 tokens twice: the session totals stop at the cap instead of overflowing.
    TokenUsage usage;
    usage.inputTokens = TokenUsage::MaxCount;
    usage.outputTokens = TokenUsage::MaxCount - 1;
    for (const QString &text : {QStringLiteral("one"), QStringLiteral("two")})
        runOneTurn({ScriptedLlmClient::event(StreamEvent::usageReport(usage)),
                    ScriptedLlmClient::chunk(QStringLiteral("ok")),
                    ScriptedLlmClient::event(StreamEvent::done())},
                   text);
    QCOMPARE(m_session->totalInputTokens(), TokenUsage::MaxCount);
    QCOMPARE(m_session->totalOutputTokens(), TokenUsage::MaxCount);
    QCOMPARE(m_session->lastUsage()->outputTokens, TokenUsage::MaxCount - 1);
}

// Issue 12 point 4: what compaction requests cost is counted, manual and automatic, applied or not, and
// kept apart from the turns' totals and from the usage that anchors /context.
void TestAgentSession::compactionUsageIsCountedApartFromTurns()
{
    TokenUsage turn;
    turn.inputTokens = 100;
    turn.outputTokens = 10;
    turn.totalTokens = 110;
    TokenUsage automatic;
    automatic.inputTokens = 900;
    automatic.outputTokens = 90;
    automatic.totalTokens = 990;
    AutoCompactionInfo failed;
    failed.usage = automatic;
    failed.error = QStringLiteral("compaction refused");
    runOneTurn(
        {ScriptedLlmClient::event(StreamEvent::usageReport(turn)),
         ScriptedLlmClient::event(StreamEvent::compaction(StreamEvent::Type::AutoCompactionStarted, {})),
         ScriptedLlmClient::event(StreamEvent::compaction(StreamEvent::Type::AutoCompactionFailed, failed)),
         ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    QCOMPARE(m_session->totalInputTokens(), 100);
    QCOMPARE(m_session->totalOutputTokens(), 10);
    QCOMPARE(m_session->compactionUsage(), automatic);
    QCOMPARE(m_session->lastUsage(), std::optional<TokenUsage>(turn));

    TokenUsage manual;
    manual.inputTokens = 500;
    manual.outputTokens = 50;
    manual.totalTokens = 550;
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nx")),
                       ScriptedLlmClient::event(StreamEvent::usageReport(manual)),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy usage(m_session.get(), &AgentSession::usageChanged);
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->compact());
    QVERIFY(finished.wait(5000));
    QVERIFY(!usage.isEmpty());
    QCOMPARE(m_session->totalInputTokens(), 100);
    QCOMPARE(m_session->compactionUsage().inputTokens, 1400);
    QCOMPARE(m_session->compactionUsage().outputTokens, 140);
    QVERIFY(!m_session->lastUsage()); // it measured the history the summary replaced
    QCOMPARE(m_session->contextBreakdown().compactionUsage, m_session->compactionUsage());
    // Tried as a user: /context said "no provider-reported usage yet" after a compaction, with 900 input
    // tokens reported beside it.
    QCOMPARE(m_session->contextBreakdown().note(),
             QStringLiteral("Estimated (chars/3 heuristic) until the provider's next reply reports the input "
                            "tokens of the conversation as it is now."));

    const QString id = m_session->sessionId();
    m_session->newSession();
    QCOMPARE(m_session->compactionUsage(), TokenUsage());
    QCOMPARE(m_session->totalInputTokens(), 0);

    // Opened again, the session has its totals back (session_usage of its latest event), kept apart as
    // before; the transcript holds them as the reference agent ignores them: an extra field.
    QSignalSpy reopened(m_session.get(), &AgentSession::usageChanged);
    QVERIFY(m_session->openSession(id));
    QVERIFY(!reopened.isEmpty());
    QCOMPARE(m_session->totalInputTokens(), 100);
    QCOMPARE(m_session->totalOutputTokens(), 10);
    QCOMPARE(m_session->compactionUsage().inputTokens, 1400);
    QCOMPARE(m_session->compactionUsage().outputTokens, 140);
    QVERIFY(!m_session->lastUsage()); // nothing measured the opened history yet
    QVERIFY(m_session->contextBreakdown().note().contains(QStringLiteral("until the provider's next reply")));
    m_session->newSession();
    QCOMPARE(m_session->contextBreakdown().note(),
             QStringLiteral("Estimated (chars/3 heuristic); no provider-reported usage yet."));
}

// The estimate's system prompt is built from the folder's files (instructions, skills, memory) on a worker:
// when the folder opens, when skills are read again and when a turn ends. /context on the GUI thread reads
// no file; what a turn wrote is counted once it ends.
void TestAgentSession::contextEstimateReadsTheFolderOnAWorker()
{
    const auto writeInstructions = [this](const QByteArray &text) {
        QFile file(m_workspace->filePath(QStringLiteral("AGENTS.md")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    };
    writeInstructions("Use tabs.\n");
    m_session->setWorkspace(m_workspace->path()); // the folder opens (again)
    QThreadPool::globalInstance()->waitForDone(); // its worker has read the folder
    QCoreApplication::processEvents();
    const qint64 small = m_session->contextBreakdown().systemPromptTokens;
    writeInstructions(QByteArray("Write long comments. ").repeated(300));
    QCOMPARE(m_session->contextBreakdown().systemPromptTokens, small); // not read on this thread
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("done")), ScriptedLlmClient::event(StreamEvent::done())});
    QTRY_VERIFY(m_session->contextBreakdown().systemPromptTokens > small + 1000); // 6,300 bytes / 3
    // The mode's section is added to what was read, without reading again.
    const qint64 build = m_session->contextBreakdown().systemPromptTokens;
    m_session->setMode(AgentMode::Plan);
    const QString modeText = QStringLiteral("\n\n") + SystemPromptBuilder::modeSection(AgentMode::Plan);
    const qint64 modeTokens = ContextBudget::estimateTokens(ContextBudget::utf8Bytes(modeText));
    QVERIFY(qAbs(m_session->contextBreakdown().systemPromptTokens - (build + modeTokens)) <= 1); // rounding
}

// Issue 11 ("no disk work on the GUI thread"): right after another folder opens, before its worker has read
// it, the estimate asked on this thread (the window's meter, /context) leaves the system prompt out instead
// of reading the folder's files here; systemPromptEstimated says when the worker's read is in.
void TestAgentSession::contextEstimateNeverReadsANewFolderOnTheGuiThread()
{
    QTemporaryDir other;
    QFile instructions(QDir(other.path()).filePath(QStringLiteral("AGENTS.md")));
    QVERIFY(instructions.open(QIODevice::WriteOnly));
    instructions.write(QByteArray("Explain every change. ").repeated(300));
    instructions.close();
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QVERIFY(m_session->contextBreakdown().systemPromptTokens > 0); // the first folder's, read on a worker

    // Every worker of the pool busy: the new folder's read waits in the queue.
    QThreadPool *pool = QThreadPool::globalInstance();
    QSemaphore release;
    QSemaphore started;
    const int workers = pool->maxThreadCount();
    for (int i = 0; i < workers; ++i) {
        pool->start([&release, &started] {
            started.release();
            release.acquire();
        });
    }
    QVERIFY(started.tryAcquire(workers, 10000));
    QSignalSpy estimated(m_session.get(), &AgentSession::systemPromptEstimated);
    m_session->setWorkspace(other.path());
    QCOMPARE(m_session->contextBreakdown().systemPromptTokens, 0); // nothing read on this thread
    release.release(workers);
    QTRY_COMPARE(estimated.size(), 1);
    QVERIFY(m_session->contextBreakdown().systemPromptTokens > 1500); // 6,600 bytes of instructions / 3
}

// Issue 11: /context remembers each message's estimate between calls. After a tool turn, a manual
// compaction and its undo, its numbers are still those of a from-scratch estimate of the history.
void TestAgentSession::contextEstimateFollowsCompactionAndUndo()
{
    auto checkAgainstFromScratch = [this](ContextBreakdown *breakdown) {
        const ContextBreakdown shown = m_session->contextBreakdown();
        *breakdown = shown;
        const ContextBreakdown scratch = ContextEstimator::breakdown(
            QString(), m_session->tools(), m_session->messages(), shown.contextWindow, std::nullopt);
        QCOMPARE(shown.userTokens, scratch.userTokens);
        QCOMPARE(shown.assistantTokens, scratch.assistantTokens);
        QCOMPARE(shown.toolResultTokens, scratch.toolResultTokens);
        QCOMPARE(shown.toolDefinitionTokens, scratch.toolDefinitionTokens);
        // The system prompt is the only other part: the sum is the same apart from it.
        QCOMPARE(shown.totalTokens - shown.systemPromptTokens,
                 scratch.totalTokens - scratch.systemPromptTokens);
        QVERIFY(shown.systemPromptTokens > 0);
    };
    runOneTurn({ScriptedLlmClient::chunk(QStringLiteral("first answer ").repeated(50)),
                ScriptedLlmClient::event(StreamEvent::done())},
               QStringLiteral("first question"));
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Let me read it. ")),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file"))),
         ScriptedLlmClient::event(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file"))),
         ScriptedLlmClient::chunk(QStringLiteral("It says hello.")),
         ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("read a.txt"));
    ContextBreakdown before;
    checkAgainstFromScratch(&before);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(before.toolResultTokens > 0);
    QVERIFY(before.assistantTokens > 200);

    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nRead a.txt.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy compaction(m_session.get(), &AgentSession::compactionFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!compaction.isEmpty(), 5000);
    QVERIFY(compaction.at(0).at(1).toBool());
    QTRY_VERIFY_WITH_TIMEOUT(!m_session->isBusy(), 5000);
    ContextBreakdown compacted;
    checkAgainstFromScratch(&compacted);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(compacted.assistantTokens, 0);
    QCOMPARE(compacted.toolResultTokens, 0);

    QSignalSpy undone(m_session.get(), &AgentSession::compactionUndone);
    QSignalSpy undoFailed(m_session.get(), &AgentSession::undoCompactionFailed);
    m_session->undoCompaction();
    QTRY_VERIFY_WITH_TIMEOUT(!undone.isEmpty() || !undoFailed.isEmpty(), 5000);
    QVERIFY2(undoFailed.isEmpty(), qPrintable(undoFailed.value(0).value(0).toString()));
    QCOMPARE(m_session->messages().size(), 4);
    ContextBreakdown restored;
    checkAgainstFromScratch(&restored);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(restored.userTokens, before.userTokens);
    QCOMPARE(restored.assistantTokens, before.assistantTokens);
    QCOMPARE(restored.toolResultTokens, before.toolResultTokens);

    // A new conversation: the estimates of the old one no longer keep its text in memory.
    const QString answer = m_session->messages().at(1).content;
    QVERIFY(!answer.isDetached()); // shared with the history (and the estimator)
    m_session->newSession();
    QVERIFY(answer.isDetached());
}

// proves S20, S33: the mode is in the fresh system prompt of each request; the person's message, in memory
// and in the transcript, is their words only.
void TestAgentSession::planModeGoesIntoTheSystemPromptNotTheMessage()
{
    m_session->setMode(AgentMode::Plan);
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("plan")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("plan it"));
    const MessageList request = m_client->requests().at(0);
    QVERIFY(request.at(0).content.endsWith(SystemPromptBuilder::modeSection(AgentMode::Plan)));
    QCOMPARE(request.at(1), Message::user(QStringLiteral("plan it")));
    QCOMPARE(m_session->messages().at(0), Message::user(QStringLiteral("plan it")));
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(loaded->events.at(1).content(), QStringLiteral("plan it"));

    m_session->setMode(AgentMode::Build);
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("build it"));
    const MessageList next = m_client->requests().at(1);
    QVERIFY(!next.at(0).content.contains(QStringLiteral("Active mode")));
    QCOMPARE(next.at(1), Message::user(QStringLiteral("plan it"))); // history unchanged by the mode switch
}

void TestAgentSession::modeSavedByAnOlderVersionIsDroppedOnOpen()
{
    const QString legacy =
        QStringLiteral("\n\nActive mode: plan. Read-only, plan instead of modifying files; "
                       "write_file and edit_file are unavailable.\n");
    SessionStore &store = m_session->sessionStore();
    auto created = store.create(m_workspace->path());
    QVERIFY(created);
    QVERIFY(store.append(*created, SessionEvent::userMessage(QStringLiteral("plan it") + legacy)));
    QVERIFY(m_session->openSession(created->id));
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("plan it"))});
}

// Issue 11: creating the session, the user message, an automatic compaction's batch, the reply and a manual
// compaction are all written on the writer's thread, in order.
void TestAgentSession::transcriptWritesRunOffTheGuiThread()
{
    const std::shared_ptr<WatchedStore> store = watchStore();
    runOneTurn({ScriptedLlmClient::chunk(QStringLiteral("before")),
                ScriptedLlmClient::autoCompaction(
                    {Message::user(QStringLiteral("<compacted_context>s</compacted_context>"))}),
                ScriptedLlmClient::chunk(QStringLiteral("after")),
                ScriptedLlmClient::event(StreamEvent::done())},
               QStringLiteral("go"));
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("the summary")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("the summary"))});

    const QList<QThread *> threads = store->threads();
    // create (with the user message when it was queued in time, else a write of its own), batch, reply,
    // compaction
    QVERIFY(threads.size() >= 4);
    for (QThread *thread : threads)
        QVERIFY(thread != QThread::currentThread());
    auto loaded = store->load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(eventKinds(loaded->events),
             (QStringList{QStringLiteral("session_started"), QStringLiteral("user_message"),
                          QStringLiteral("assistant_turn"), QStringLiteral("compaction_applied"),
                          QStringLiteral("assistant_turn"), QStringLiteral("compaction_applied")}));
}

// Issue 11: while the disk does not answer, the window's thread goes on: submit() returns, the request waits
// for the person's words to be saved, and an automatic compaction applies only once its batch is on disk.
void TestAgentSession::heldDiskNeverHoldsTheGuiThread()
{
    const std::shared_ptr<WatchedStore> store = watchStore();
    const MessageList replacement{Message::user(QStringLiteral("<compacted_context>s</compacted_context>"))};
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("before")),
         ScriptedLlmClient::gate(QStringLiteral("compact")), ScriptedLlmClient::autoCompaction(replacement),
         ScriptedLlmClient::chunk(QStringLiteral(" after")), ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QSignalSpy events(m_session.get(), &AgentSession::streamEvent);
    QSignalSpy compactions(m_session.get(), &AgentSession::compactionFinished);
    store->hold();
    QVERIFY(m_session->submit(QStringLiteral("go"))); // returns although nothing is on disk yet
    QVERIFY(m_session->isBusy());
    QTRY_COMPARE(store->waiting(), 1);       // the session's creation waits on the writer's thread
    QVERIFY(m_client->requests().isEmpty()); // nothing is sent before the message is saved
    store->release();
    QTRY_VERIFY_WITH_TIMEOUT(!events.isEmpty(), 5000);
    QCOMPARE(m_client->requests().size(), 1);

    store->hold();
    m_client->open(QStringLiteral("compact"));
    QTRY_COMPARE(store->waiting(), 1); // the batch waits; this thread is back in its event loop
    QVERIFY(compactions.isEmpty());
    QCOMPARE(m_session->messages(), MessageList{Message::user(QStringLiteral("go"))}); // not applied yet
    store->release();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Done);
    QCOMPARE(compactions.size(), 1);
    QVERIFY(compactions.at(0).at(1).toBool());
    QVERIFY(!m_client->commitRejected());
    QCOMPARE(m_session->messages(),
             (MessageList{replacement.first(), Message::assistant(QStringLiteral(" after"))}));
    auto loaded = store->load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(buildConversation(loaded->events), m_session->messages());
}

// Issue 11: when the session cannot be created the turn ends with the reason, nothing was sent, the history
// is as before, and the next message creates the session afresh.
void TestAgentSession::sessionThatCannotBeCreatedLosesNothing()
{
    const std::shared_ptr<WatchedStore> store = watchStore();
    store->refuseCreate = true;
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QSignalSpy errors(m_session.get(), &AgentSession::errorOccurred);
    QVERIFY(m_session->submit(QStringLiteral("first")));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    // The window and `run` show the turn's error; errorOccurred as well made it two rows (two stderr lines).
    QCOMPARE(errors.size(), 0);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Error);
    QVERIFY(finished.at(0).at(1).toString().contains(QStringLiteral("could not save the message")));
    QVERIFY(finished.at(0).at(1).toString().contains(QStringLiteral("No space left on device")));
    QVERIFY(m_client->requests().isEmpty());
    QVERIFY(m_session->messages().isEmpty());
    QVERIFY(m_session->sessionId().isEmpty());
    QVERIFY(!m_session->isBusy());

    store->refuseCreate = false;
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("hi")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("second"));
    QCOMPARE(m_client->requests().size(), 1);
    auto loaded = store->load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(buildConversation(loaded->events), (MessageList{Message::user(QStringLiteral("second")),
                                                             Message::assistant(QStringLiteral("hi"))}));
}

// Issue 16: a note pinned while a turn runs, after a compaction, cannot join a history the running request
// already took; it goes in with the next message (before the person's words, in the same batch), once, and
// the transcript projects to the same history.
void TestAgentSession::pinMadeDuringATurnAfterACompactionGoesInWithTheNextMessage()
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("answer")), ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nSUMMARY")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->compact());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);

    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("hold")),
                       ScriptedLlmClient::chunk(QStringLiteral("working")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    finished.clear();
    QVERIFY(m_session->submit(QStringLiteral("busy turn")));
    QTRY_COMPARE_WITH_TIMEOUT(m_client->requests().size(), 3, 5000);
    const QString note = QStringLiteral("NOTE-DURING-TURN: keep the ABI");
    Pin pin;
    pin.text = note;
    QVERIFY(m_session->addPin(pin));
    QTRY_COMPARE_WITH_TIMEOUT(m_session->pins().size(), 1, 5000);
    m_client->open(QStringLiteral("hold"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    auto holding = [&note](const MessageList &messages) {
        return std::count_if(messages.cbegin(), messages.cend(),
                             [&](const Message &message) { return message.content.contains(note); });
    };
    QCOMPARE(holding(m_session->messages()), 0);

    pinnedNoteGoesInWithTheNextMessageOnce(holding);
}

// Issue 16, the same rule before any compaction: a note pinned while the first turn runs cannot join the
// history that request took; it goes in with the next message (the <pinned_context> message right before the
// person's words, in the same batch), once, and the transcript projects to the same history.
void TestAgentSession::pinMadeDuringTheFirstTurnGoesInWithTheNextMessage()
{
    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("hold")),
                       ScriptedLlmClient::chunk(QStringLiteral("working")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QSignalSpy finished(m_session.get(), &AgentSession::turnFinished);
    QVERIFY(m_session->submit(QStringLiteral("busy turn")));
    QTRY_COMPARE_WITH_TIMEOUT(m_client->requests().size(), 1, 5000);
    const QString note = QStringLiteral("NOTE-FIRST-TURN: always use tabs, never spaces");
    Pin pin;
    pin.text = note;
    QVERIFY(m_session->addPin(pin));
    QTRY_COMPARE_WITH_TIMEOUT(m_session->pins().size(), 1, 5000);
    m_client->open(QStringLiteral("hold"));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    auto holding = [&note](const MessageList &messages) {
        return std::count_if(messages.cbegin(), messages.cend(),
                             [&](const Message &message) { return message.content.contains(note); });
    };
    QCOMPARE(holding(m_client->requests().constFirst()), 0);
    QCOMPARE(holding(m_session->messages()), 0);
    QCOMPARE(m_session->undoableCompaction(), quint64(0));

    pinnedNoteGoesInWithTheNextMessageOnce(holding);
}

// Issue 16: a pinned tool result adds nothing while the history replays it: with the full tool history, a
// bash result pinned as its card shows it (stdout, then stderr, over several lines: inside the replayed JSON
// its line breaks are escaped) and a read's result as it was returned. With the tool history off (the
// default), a result from an earlier turn is replayed as its status only, so the model no longer has it:
// pinned, it joins the history like a note.
void TestAgentSession::pinnedToolResultJoinsTheHistoryOnlyWhenItIsNotReplayed()
{
    ToolCallInfo bash;
    bash.callId = QStringLiteral("b1");
    bash.name = QStringLiteral("bash");
    bash.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("make test")}};
    ToolCallInfo bashEnd = bash;
    bashEnd.output =
        QJsonObject{{QStringLiteral("stdout"), QStringLiteral("PASS tst_lexer\nFAIL tst_parser\n")},
                    {QStringLiteral("stderr"), QStringLiteral("expected 3, got 4\n")},
                    {QStringLiteral("exit_code"), 1}};
    ToolCallInfo read;
    read.callId = QStringLiteral("r1");
    read.name = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("parser.h")}};
    ToolCallInfo readEnd = read;
    readEnd.output =
        QJsonObject{{QStringLiteral("content"), QStringLiteral("1:3fa|int parse(const char *text);")},
                    {QStringLiteral("total_lines"), 1}};
    const ScriptedLlmClient::Turn withTools{
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, bash)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, bashEnd)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, read)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, readEnd)),
        ScriptedLlmClient::chunk(QStringLiteral("One test fails.")),
        ScriptedLlmClient::event(StreamEvent::done())};
    Pin bashPin;
    bashPin.kind = Pin::Kind::ToolResult;
    bashPin.text = QStringLiteral("PASS tst_lexer\nFAIL tst_parser\nexpected 3, got 4");
    bashPin.source = QStringLiteral("bash make test");
    Pin readPin;
    readPin.kind = Pin::Kind::ToolResult;
    readPin.text = QStringLiteral(R"({"content":"1:3fa|int parse(const char *text);","total_lines":1})");
    readPin.source = QStringLiteral("read_file parser.h");
    auto pinAll = [this](const QList<Pin> &pins) {
        const qsizetype before = m_session->pins().size();
        for (const Pin &pin : pins)
            QVERIFY(m_session->addPin(pin));
        QTRY_COMPARE_WITH_TIMEOUT(m_session->pins().size(), before + pins.size(), 5000);
    };

    m_session->setToolHistoryFull(true);
    runOneTurn(withTools, QStringLiteral("run the tests"));
    const MessageList replayed = m_session->messages();
    pinAll({bashPin, readPin});
    QCOMPARE(m_session->messages(), replayed);
    auto loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(eventKinds(loaded->events).count(QStringLiteral("pinned_context")), 0);

    m_session->newSession();
    m_session->setToolHistoryFull(false);
    runOneTurn(withTools, QStringLiteral("run the tests"));
    const MessageList statusOnly = m_session->messages();
    pinAll({bashPin});
    QCOMPARE(m_session->messages(), MessageList(statusOnly)
                                        << Message::user(CompactionPrompts::pinnedContext({bashPin})));
    loaded = m_session->sessionStore().load(m_session->sessionId());
    QVERIFY(loaded);
    QCOMPARE(eventKinds(loaded->events).count(QStringLiteral("pinned_context")), 1);
    QCOMPARE(buildConversation(loaded->events), m_session->messages());
}

QString TestAgentSession::sessionWithHeldWrites(WatchedStore &store, int holdMs)
{
    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("hi")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("first"));
    const QString id = m_session->sessionId();
    store.hold(holdMs);
    CompactionPolicy policy;
    policy.thresholdPercent = 70;
    m_session->setCompactionPolicy(policy); // written on the writer's thread: held there
    Pin pin;
    pin.text = QStringLiteral("NOTE: keep the ABI");
    if (!m_session->addPin(pin)) // queued behind the policy
        return {};
    if (!QTest::qWaitFor([&store] { return store.waiting() == 1; }, 5000))
        return {};
    return id;
}

// The GUI thread never waits for the disk: New Session returns while the previous session's writes are still
// held (the old code waited for them there: it returned only when the hold timed out, with nothing left
// waiting). Opening that session again reads it only after those writes, takes its lock without "in use",
// and the new turn's events come after the held ones, with seqs that go on from them.
void TestAgentSession::leavingASessionNeverWaitsForItsWrites()
{
    const std::shared_ptr<WatchedStore> store = watchStore();
    const QString id = sessionWithHeldWrites(*store, 10000);
    QVERIFY(!id.isEmpty());
    m_session->newSession();
    QCOMPARE(store->waiting(), 1); // the policy is still held: newSession() did not wait for it
    QVERIFY(m_session->sessionId().isEmpty());

    QSignalSpy opened(m_session.get(), &AgentSession::sessionOpened);
    QSignalSpy inUse(m_session.get(), &AgentSession::sessionInUseElsewhere);
    m_session->openSessionAsync(id);
    QTest::qWait(100);
    QVERIFY(opened.isEmpty()); // the read waits for the held writes, on its worker
    QCOMPARE(store->waiting(), 1);
    store->release();
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 5000);
    QCOMPARE(m_session->sessionId(), id);
    QCOMPARE(m_session->compactionPolicy().thresholdPercent, 70); // written by the writer that was left
    QCOMPARE(m_session->pins().size(), 1);

    runOneTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("again")), ScriptedLlmClient::event(StreamEvent::done())},
        QStringLiteral("second"));
    QVERIFY(inUse.isEmpty());
    const QString transcript = m_session->transcriptPath();
    QVERIFY(QFile::exists(SessionWriter::lockPath(transcript))); // the new writer holds it
    QLockFile other(SessionWriter::lockPath(transcript));
    QVERIFY(!other.tryLock(0));
    auto loaded = store->load(id);
    QVERIFY(loaded);
    QCOMPARE(eventKinds(loaded->events),
             (QStringList{QStringLiteral("session_started"), QStringLiteral("user_message"),
                          QStringLiteral("assistant_turn"), QStringLiteral("compaction_policy"),
                          QStringLiteral("pin_added"), QStringLiteral("pinned_context"),
                          QStringLiteral("user_message"), QStringLiteral("assistant_turn")}));
    for (qsizetype i = 0; i < loaded->events.size(); ++i)
        QCOMPARE(loaded->events.at(i).seq, quint64(i + 1));
    QVERIFY(loaded->problems.isEmpty());
}

// Nothing queued is lost at exit: a session left with New Session whose writes the disk still holds is
// written out before the AgentSession is gone (`run` and the window exit after it).
void TestAgentSession::closingWritesWhatALeftSessionStillHeld()
{
    const std::shared_ptr<WatchedStore> store = watchStore();
    const QString id = sessionWithHeldWrites(*store, 10000);
    QVERIFY(!id.isEmpty());
    const QString transcript = m_session->transcriptPath();
    m_session->newSession();
    QCOMPARE(store->waiting(), 1); // left, and its writer still busy (the old code waited here)

    std::atomic_bool closing = false;
    std::thread disk([&] {
        while (!closing)
            QThread::msleep(1);
        QThread::msleep(200); // the destructor is under way
        store->release();
    });
    closing = true;
    m_session.reset();
    disk.join();
    QCOMPARE(store->waiting(), 0);
    QVERIFY(!QFile::exists(SessionWriter::lockPath(transcript))); // let go by the writer that was left

    SessionStore fresh(m_env->path(QStringLiteral("sessions")));
    auto loaded = fresh.load(id);
    QVERIFY(loaded);
    QCOMPARE(eventKinds(loaded->events),
             (QStringList{QStringLiteral("session_started"), QStringLiteral("user_message"),
                          QStringLiteral("assistant_turn"), QStringLiteral("compaction_policy"),
                          QStringLiteral("pin_added"), QStringLiteral("pinned_context")}));
}

QTEST_GUILESS_MAIN(TestAgentSession)
#include "tst_agentsession.moc"
