// Compaction in real use, headless, for all six provider protocols against the loopback fake provider
// (issue 12): the AgentSession and the HeadlessRunner of `keen-desktop run` in this process, the real tool
// loop and tools, each provider's own wire format. What a person or a script would observe: the requests on
// the wire, stdout and stderr, the transcript, the history.
#include "fakeproviderserver.h"
#include "providerscript.h"
#include "sessionfixtures.h"
#include "testenvironment.h"

#include "agent/agentsession.h"
#include "agent/contextestimator.h"
#include "base/jsonlist.h"
#include "conversation/metatypes.h"
#include "headless/headlessrunner.h"
#include "loop/compactionprompts.h"
#include "loop/contextbudget.h"
#include "loop/toolloopclient.h"
#include "providers/openai/openairesponsesprotocol.h"
#include "session/sessionpins.h"
#include "session/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QTimer>

using namespace keen;
using keen::test::FakeProviderServer;
namespace ProviderScript = keen::test::ProviderScript;

namespace {

// budget 29904, threshold 26914 tokens: reading big.txt crosses the threshold, and the compaction request
// (the parent request plus the prompt) still fits the budget, so it is the seed's single request (issue 16
// summarises a larger one in parts; see hugeReadInASmallWindowNeverSendsOverBudget).
constexpr qint64 SmallWindow = 34000;
constexpr qint64 LargeWindow = 200000;

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList kinds(const QList<SessionEvent> &events)
{
    QStringList names;
    for (const SessionEvent &event : events)
        names.append(SessionEvent::kindName(event.kind));
    return names;
}

FakeProviderServer::Response stalled(const QString &provider)
{
    FakeProviderServer::Response response = ProviderScript::text(provider, QStringLiteral("never finished"));
    response.stallAfterBytes = 0;
    return response;
}

// The arguments text of a tool call.
QString arguments(const QJsonObject &input)
{
    return QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Compact));
}

// A workspace with a small file and a big one (about 28k estimated tokens once read, with the system prompt
// and the tools).
void writeWorkspace(const QString &root)
{
    QFile small(QDir(root).filePath(QStringLiteral("notes.txt")));
    QVERIFY(small.open(QIODevice::WriteOnly));
    small.write("parser notes: keep the public API\n");
    small.close();
    QFile big(QDir(root).filePath(QStringLiteral("big.txt")));
    QVERIFY(big.open(QIODevice::WriteOnly));
    for (int i = 0; i < 700; ++i)
        big.write(QByteArray(99, char('a' + i % 26)) + '\n');
}

} // namespace

class TestHeadlessCompaction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void aSilentProviderIsNamedOnStderr();
    void anInterruptedTurnKeepsTheCachedPrefix_data();
    void anInterruptedTurnKeepsTheCachedPrefix();
    void ctrlCThenNextTurnCompacts_data();
    void ctrlCThenNextTurnCompacts();
    void manualCompactionThatDoesNotApplyChangesNothing_data();
    void manualCompactionThatDoesNotApplyChangesNothing();
    void manualCompactionRefusesToolsWithACard_data();
    void manualCompactionRefusesToolsWithACard();
    void failedAndCancelledAutomaticCompactionPrintNothing_data();
    void failedAndCancelledAutomaticCompactionPrintNothing();
    void jsonUsageReportsCompactionApart_data();
    void jsonUsageReportsCompactionApart();
    void planModeRidesInTheSystemPrompt_data();
    void planModeRidesInTheSystemPrompt();
    void fiftyToolTurnsWithSeveralCompactions_data();
    void fiftyToolTurnsWithSeveralCompactions();
    void pagedReadsRepeatedAfterEachSummaryStop_data();
    void pagedReadsRepeatedAfterEachSummaryStop();
    void hugeReadInASmallWindowNeverSendsOverBudget_data();
    void hugeReadInASmallWindowNeverSendsOverBudget();
    void contextLengthErrorAfterASlicedCompactionIsShownAsItIs_data();
    void contextLengthErrorAfterASlicedCompactionIsShownAsItIs();
    void manualCompactionOfAHugeReadIsSliced_data();
    void manualCompactionOfAHugeReadIsSliced();
    void manualCompactionInOnePartIsNamed_data();
    void manualCompactionInOnePartIsNamed();
    void undoCompactionAfterLaterTurns_data();
    void undoCompactionAfterLaterTurns();
    void undoThatNoLongerFitsSaysSo_data();
    void undoThatNoLongerFitsSaysSo();
    void policyThresholdMovesAutomaticCompaction_data();
    void policyThresholdMovesAutomaticCompaction();
    void automaticOffStopsAtTheInputBudget_data();
    void automaticOffStopsAtTheInputBudget();
    void detailGuidanceFollowsTheSeedPrompt_data();
    void detailGuidanceFollowsTheSeedPrompt();
    void resumedSessionKeepsItsPolicy_data();
    void resumedSessionKeepsItsPolicy();
    void reviewedSummaryIsWhatIsApplied_data();
    void reviewedSummaryIsWhatIsApplied();
    void cancelledReviewChangesNothing_data();
    void cancelledReviewChangesNothing();
    void pinnedNoteTravelsAfterEveryCompactionAcrossResume_data();
    void pinnedNoteTravelsAfterEveryCompactionAcrossResume();
    void pinThatDoesNotFitIsRefused_data();
    void pinThatDoesNotFitIsRefused();
    void pinsAreListedByTheLineThatNamesThem();
    void droppedDetailsAreRecordedAndReported_data();
    void droppedDetailsAreRecordedAndReported();
    void pinsSurviveALongToolLoop_data();
    void pinsSurviveALongToolLoop();
    void pinsOverBudgetAreWarnedOnceInAToolLoop_data();
    void pinsOverBudgetAreWarnedOnceInAToolLoop();
    void droppedDetailsAreListedAndPinnedFromTheCommandLine_data();
    void droppedDetailsAreListedAndPinnedFromTheCommandLine();
    void reviewBeforeItAppliesFromTheCommandLine_data();
    void reviewBeforeItAppliesFromTheCommandLine();
    void pinAfterACompactionReachesTheNextRequestOnceAcrossResume_data();
    void pinAfterACompactionReachesTheNextRequestOnceAcrossResume();
    void notePinnedBeforeAnyCompactionReachesTheNextRequestOnceAcrossResume_data();
    void notePinnedBeforeAnyCompactionReachesTheNextRequestOnceAcrossResume();
    void messagesCodeBlocksAndToolResultsArePinnedFromTheCommandLine_data();
    void messagesCodeBlocksAndToolResultsArePinnedFromTheCommandLine();
};

namespace {

// One provider, one loopback server, one workspace; sessions and runners built on them.
class Rig
{
public:
    Rig(const QString &provider, qint64 window)
        : m_provider(provider)
        , m_window(window)
    {
        writeWorkspace(m_workspace.path());
    }

    QString provider() const { return m_provider; }
    QString workspace() const { return m_workspace.path(); }
    FakeProviderServer &server() { return m_server; }

    ClientConfig config() const
    {
        ClientConfig config;
        config.providerId = m_provider;
        config.model = QStringLiteral("test-model");
        config.contextWindow = m_window;
        return config;
    }

    // The real tool loop for this provider, aimed at the fake server.
    AgentSession::ClientFactory factory()
    {
        return [this](const ClientConfig &config) {
            return Result<std::shared_ptr<LlmClient>>(
                std::shared_ptr<LlmClient>(std::make_shared<ToolLoopClient>(
                    ProviderScript::makeProtocol(m_provider, m_server.baseUrl(), config.contextWindow))));
        };
    }

    QString sessionsRoot() const { return m_env.path(QStringLiteral("sessions")); }

    void setUp(AgentSession &session)
    {
        session.setWorkspace(workspace());
        session.setSessionStore(std::make_shared<SessionStore>(sessionsRoot()));
        session.setClientConfig(config());
        session.setClientFactory(factory());
    }

    void enqueue(const QList<FakeProviderServer::Response> &responses)
    {
        for (const FakeProviderServer::Response &response : responses)
            m_server.enqueue(response);
    }

private:
    keen::test::TestEnvironment m_env;
    QString m_provider;
    qint64 m_window;
    QTemporaryDir m_workspace;
    FakeProviderServer m_server;
};

// A HeadlessRunner writing into strings.
class HeadlessRun
{
public:
    explicit HeadlessRun(Rig &rig)
        : m_workspace(rig.workspace())
        , m_outStream(&out)
        , m_errStream(&err)
        , runner(m_outStream, m_errStream)
    {
        rig.setUp(runner.session());
        const ClientConfig config = rig.config();
        runner.setConfigResolver([config](const LaunchOptions &) { return Result<ClientConfig>(config); });
    }

    // A run that hangs (a regression that leaves a stalled response unanswered) is interrupted, so the test
    // fails on the exit code instead of hanging until the ctest timeout.
    int runGuarded(const HeadlessRunner::Options &options)
    {
        QTimer guard;
        guard.setSingleShot(true);
        QObject::connect(&guard, &QTimer::timeout, &runner, [this] { runner.interrupt(); });
        guard.start(20000);
        return runner.run(options);
    }

    int run(const QString &prompt, bool json = false) { return runIn(QString(), prompt, json); }

    // `run --session ID` (a new session when empty).
    int runIn(const QString &sessionId, const QString &prompt, bool json = false)
    {
        out.clear();
        err.clear();
        HeadlessRunner::Options options;
        options.prompt = prompt;
        options.json = json;
        options.launch.workspace = m_workspace;
        options.launch.sessionId = sessionId;
        return runGuarded(options);
    }

    int compact(bool json = false)
    {
        out.clear();
        err.clear();
        HeadlessRunner::Options options;
        options.compact = true;
        options.json = json;
        options.launch.workspace = m_workspace;
        return runGuarded(options);
    }

    QString out;
    QString err;

private:
    QString m_workspace;
    QTextStream m_outStream;
    QTextStream m_errStream;

public:
    HeadlessRunner runner;
};

// Runs one AgentSession turn (or compaction) to its end; false on timeout.
bool finishTurn(AgentSession &session, const std::function<Result<void>()> &start)
{
    QSignalSpy finished(&session, &AgentSession::turnFinished);
    const Result<void> started = start();
    if (!started) {
        qWarning() << "could not start:" << started.error();
        return false;
    }
    return FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }, 20000);
}

// "study the parser" in a new session, stopped with Ctrl+C (what SIGINT does) once the model has read
// notes.txt and the request after the read is on the wire: the turn leaves pending state. The run's exit
// code.
int runStoppedAfterARead(Rig &rig, HeadlessRun &headless)
{
    const QString readNotes = arguments({{QStringLiteral("path"), QStringLiteral("notes.txt")}});
    rig.enqueue({ProviderScript::toolCall(rig.provider(), QStringLiteral("call_1"),
                                          QStringLiteral("read_file"), readNotes),
                 stalled(rig.provider())});
    const auto connection =
        QObject::connect(&rig.server(), &FakeProviderServer::requestReceived, &rig.server(), [&](int index) {
            if (index == 1)
                headless.runner.interrupt();
        });
    const int code = headless.run(QStringLiteral("study the parser"));
    QObject::disconnect(connection);
    rig.server().closeAllConnections();
    return code;
}

// The request body with the session id taken out, so two sessions' requests can be compared byte for byte
// (only the Responses APIs put it on the wire, as prompt_cache_key).
QByteArray withoutSessionId(QByteArray body, const QString &sessionId)
{
    body.replace(OpenAiResponsesProtocol::promptCacheKey(sessionId).toUtf8(), "SESSION");
    body.replace(sessionId.toUtf8(), "SESSION");
    return body;
}

// huge.txt: the issue 16 case, a file of about 19,000 estimated tokens once read.
void writeHugeFile(const QString &root)
{
    QFile huge(QDir(root).filePath(QStringLiteral("huge.txt")));
    QVERIFY(huge.open(QIODevice::WriteOnly));
    huge.write("BEGIN-OF-HUGE\n");
    for (int i = 0; i < 570; ++i)
        huge.write(QByteArray(99, char('a' + i % 26)) + '\n');
    huge.write("END-OF-HUGE\n");
}

// Answers every request whose final user text is prompt with "## Goal\nsummary part N", every other one with
// the next of parent, as the requests arrive. Disconnects when destroyed.
class SummaryResponder
{
public:
    SummaryResponder(Rig &rig, const QString &prompt, QList<FakeProviderServer::Response> parent)
        : m_parent(std::move(parent))
    {
        m_connection = QObject::connect(
            &rig.server(), &FakeProviderServer::requestReceived, &rig.server(),
            [this, &rig, prompt](int index) {
                const QJsonObject body = rig.server().requests().at(index).json.object();
                if (ProviderScript::finalUserText(rig.provider(), body) == prompt)
                    rig.server().enqueue(ProviderScript::text(
                        rig.provider(), QStringLiteral("## Goal\nsummary part %1").arg(++summaries)));
                else if (!m_parent.isEmpty())
                    rig.server().enqueue(m_parent.takeFirst());
            });
    }
    ~SummaryResponder() { QObject::disconnect(m_connection); }
    int summaries = 0;

private:
    QList<FakeProviderServer::Response> m_parent;
    QMetaObject::Connection m_connection;
};

// A saved session whose one turn read huge.txt in a large window, with the full tool history kept, so the
// read's output stays in the history and the transcript; its id, empty when the turn did not finish.
QString sessionWithTheHugeRead(Rig &rig)
{
    writeHugeFile(rig.workspace());
    AgentSession session;
    rig.setUp(session);
    session.setToolHistoryFull(true);
    const QString readHuge = arguments({{QStringLiteral("path"), QStringLiteral("huge.txt")}});
    rig.enqueue({ProviderScript::toolCall(rig.provider(), QStringLiteral("call_1"),
                                          QStringLiteral("read_file"), readHuge),
                 ProviderScript::text(rig.provider(), QStringLiteral("Read it all."))});
    if (!finishTurn(session, [&] { return session.submit(QStringLiteral("read huge.txt")); }))
        return {};
    return session.sessionId();
}

// The bytes of a request the seed's estimate counts: the history, the system prompt and the tool definitions,
// not the envelope around them (the model's name, stream flags, the output limit), which the budget's reserve
// for the reply covers.
qint64 countedBytes(const QByteArray &body)
{
    static const QStringList counted{QStringLiteral("messages"),
                                     QStringLiteral("input"),
                                     QStringLiteral("contents"),
                                     QStringLiteral("system"),
                                     QStringLiteral("systemInstruction"),
                                     QStringLiteral("instructions"),
                                     QStringLiteral("tools"),
                                     QStringLiteral("toolConfig")};
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    qint64 bytes = body.size();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!counted.contains(it.key())) // "key":value and its comma
            bytes -=
                QJsonDocument(QJsonObject{{it.key(), it.value()}}).toJson(QJsonDocument::Compact).size() - 1;
    }
    return bytes;
}

} // namespace

void TestHeadlessCompaction::initTestCase()
{
    registerCoreMetaTypes();
}

// Found trying it headless: a stalled stream is waited for five minutes per attempt and the log said nothing
// meanwhile, as if the run hung. Every fifth of the inactivity timeout without data, stderr says so.
void TestHeadlessCompaction::aSilentProviderIsNamedOnStderr()
{
    Rig rig(QStringLiteral("openai"), LargeWindow);
    HeadlessRun headless(rig);
    ClientConfig config = rig.config();
    config.inactivityTimeoutMs = 5000; // a note every second
    headless.runner.setConfigResolver(
        [config](const LaunchOptions &) { return Result<ClientConfig>(config); });
    rig.enqueue({stalled(QStringLiteral("openai"))});
    QTimer stop;
    stop.setSingleShot(true);
    QObject::connect(&stop, &QTimer::timeout, &headless.runner, [&] { headless.runner.interrupt(); });
    const auto connection = QObject::connect(&rig.server(), &FakeProviderServer::requestReceived,
                                             &rig.server(), [&] { stop.start(3600); });
    QCOMPARE(headless.run(QStringLiteral("anyone there?")), int(HeadlessRunner::Interrupted));
    QObject::disconnect(connection);
    rig.server().closeAllConnections();
    // A note about every second, each with the silence so far (a busy machine may print one a little late:
    // ctest -j2 once saw the first at 2 s).
    static const QRegularExpression note(QStringLiteral(
        R"(No data from the provider for (\d+) s; the request is retried after 5 s without data \(Ctrl\+C stops\)\.)"));
    QList<int> seconds;
    for (auto match = note.globalMatch(headless.err); match.hasNext();)
        seconds.append(match.next().captured(1).toInt());
    QVERIFY2(seconds.size() >= 2, qPrintable(headless.err));
    QVERIFY2(seconds.first() >= 1 && seconds.first() <= 2, qPrintable(headless.err));
    for (qsizetype i = 1; i < seconds.size(); ++i)
        QVERIFY2(seconds.at(i) > seconds.at(i - 1), qPrintable(headless.err));
    QVERIFY(headless.out.isEmpty() || !headless.out.contains(QStringLiteral("No data"))); // stderr only
}

void TestHeadlessCompaction::anInterruptedTurnKeepsTheCachedPrefix_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<int>("interrupted"); // turns stopped one after the other before the one that goes on
    for (const QString &provider : ProviderScript::providers()) {
        QTest::newRow(qPrintable(provider + QStringLiteral(" one stop"))) << provider << 1;
        QTest::newRow(qPrintable(provider + QStringLiteral(" two stops"))) << provider << 2;
    }
}

// Seen when tried (2026-12-06): after Ctrl+C in a tool loop, the next turn carried the interrupted turn as
// the provider had sent it (its call ids, its fields), but once that turn ended the interrupted one joined
// the history as replayed calls ("historical_2_0", no Responses item id, a Gemini thought signature), so the
// request after it differed from the one before in its middle and the provider's prompt cache was missed
// from there on. Every request now starts with the whole of the one before it (cache markers aside: they
// move to the newest message by design), for every provider; a run that resumes the session from disk
// replays the turn as the history has it. Two turns stopped one after the other are carried together and
// keep the prefix the same way.
void TestHeadlessCompaction::anInterruptedTurnKeepsTheCachedPrefix()
{
    QFETCH(QString, provider);
    QFETCH(int, interrupted);
    Rig rig(provider, LargeWindow);
    HeadlessRun headless(rig);
    QCOMPARE(runStoppedAfterARead(rig, headless), int(HeadlessRunner::Interrupted));
    if (interrupted == 2) {
        const QString readNotes = arguments({{QStringLiteral("path"), QStringLiteral("notes.txt")}});
        rig.enqueue({ProviderScript::toolCall(provider, QStringLiteral("call_2"), QStringLiteral("read_file"),
                                              readNotes),
                     stalled(provider)});
        const auto connection = QObject::connect(&rig.server(), &FakeProviderServer::requestReceived,
                                                 &rig.server(), [&](int index) {
                                                     if (index == 3)
                                                         headless.runner.interrupt();
                                                 });
        QCOMPARE(headless.run(QStringLiteral("read it again")), int(HeadlessRunner::Interrupted));
        QObject::disconnect(connection);
        rig.server().closeAllConnections();
    }
    const int first = 2 * interrupted; // the request of the turn that carries the stopped ones
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Turn two."))});
    QCOMPARE(headless.run(QStringLiteral("go on")), int(HeadlessRunner::Success));
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Turn three."))});
    QCOMPARE(headless.run(QStringLiteral("and more")), int(HeadlessRunner::Success));
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Turn four."))});
    QCOMPARE(headless.run(QStringLiteral("one more")), int(HeadlessRunner::Success));

    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), first + 3);
    auto history = [&](int index) {
        QJsonArray messages;
        for (const QJsonValue &message :
             requests.at(index).json.object().value(ProviderScript::historyKey(provider)).toArray()) {
            QJsonObject object = message.toObject();
            if (object.value(QStringLiteral("content")).isArray())
                object.insert(
                    QStringLiteral("content"),
                    ProviderScript::withoutCacheMarkers(object.value(QStringLiteral("content")).toArray()));
            messages.append(object);
        }
        return messages;
    };
    for (int later = first + 1; later <= first + 2; ++later) {
        const QJsonArray before = history(later - 1);
        const QJsonArray after = history(later);
        QVERIFY(after.size() > before.size());
        for (qsizetype i = 0; i < before.size(); ++i)
            QVERIFY2(
                after.at(i) == before.at(i),
                qPrintable(QStringLiteral("request %1 differs from the one before at message %2:\n%3\n%4")
                               .arg(later)
                               .arg(i)
                               .arg(QString::fromUtf8(QJsonDocument(QJsonArray{before.at(i)}).toJson()))
                               .arg(QString::fromUtf8(QJsonDocument(QJsonArray{after.at(i)}).toJson()))));
    }
    // The provider's own call (Gemini's calls have no ids), not the replayed form.
    const QByteArray last = requests.constLast().body;
    if (provider != QLatin1String("googleai")) {
        QVERIFY(last.contains("call_1"));
        QCOMPARE(last.contains("call_2"), interrupted == 2);
    }
    QVERIFY(!last.contains("historical_"));
    QVERIFY(!last.contains("skip_thought_signature_validator"));

    // Resumed from disk by another run: the interrupted turn as the transcript has it, replayed.
    HeadlessRun resumed(rig);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Resumed."))});
    QCOMPARE(resumed.runIn(headless.runner.session().sessionId(), QStringLiteral("after a restart")),
             int(HeadlessRunner::Success));
    QCOMPARE(rig.server().requests().size(), first + 4);
    QVERIFY(rig.server().requests().constLast().body.contains("historical_") ||
            rig.server().requests().constLast().body.contains("skip_thought_signature_validator"));
}

void TestHeadlessCompaction::ctrlCThenNextTurnCompacts_data()
{
    ProviderScript::addProviderRows();
}

// Issue 12 point 1, proves S36 and S51: Ctrl+C in the middle of a tool loop leaves pending state; the next
// turn replays it and still compacts once it crosses the threshold, and the run's output and transcript are
// those of an ordinary compacted turn.
void TestHeadlessCompaction::ctrlCThenNextTurnCompacts()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    QCOMPARE(runStoppedAfterARead(rig, headless), int(HeadlessRunner::Interrupted));
    QVERIFY2(headless.err.contains(QStringLiteral("Interrupted.")), qPrintable(headless.err));
    QCOMPARE(rig.server().requests().size(), 2);

    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_2"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nstudy the parser")),
         ProviderScript::text(provider, QStringLiteral("Parser studied."))});
    QCOMPARE(headless.run(QStringLiteral("go on")), int(HeadlessRunner::Success));
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 5);
    // The interrupted turn's tool call and result are replayed, and the compaction request summarises them.
    QVERIFY(requests.at(2).body.contains("parser notes: keep the public API"));
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(3).json.object()),
             CompactionPrompts::automaticPrompt());
    QVERIFY(requests.at(3).body.contains("parser notes: keep the public API"));
    QVERIFY(!requests.at(4).body.contains("parser notes: keep the public API"));
    QCOMPARE(headless.out, QStringLiteral("Parser studied.\n"));
    QVERIFY2(!headless.err.contains(QStringLiteral("ompact")), qPrintable(headless.err));

    auto loaded = headless.runner.session().sessionStore().load(headless.runner.session().sessionId());
    QVERIFY(loaded);
    QCOMPARE(kinds(loaded->events),
             (QStringList{QStringLiteral("session_started"), QStringLiteral("user_message"),
                          QStringLiteral("assistant_turn"), QStringLiteral("user_message"),
                          QStringLiteral("assistant_turn"), QStringLiteral("compaction_applied"),
                          QStringLiteral("assistant_turn")}));
    QVERIFY(loaded->events.at(2).interrupted());
    const MessageList history = headless.runner.session().messages();
    QCOMPARE(history.size(), 2);
    QVERIFY(history.at(0).content.startsWith(QStringLiteral("<compacted_context>")));
    QVERIFY(history.at(0).content.endsWith(QStringLiteral("go on\n</last_user_message>")));
    QCOMPARE(history.at(1).content, QStringLiteral("Parser studied."));
}

void TestHeadlessCompaction::manualCompactionThatDoesNotApplyChangesNothing_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("failure");
    for (const QString &provider : ProviderScript::providers()) {
        for (const char *failure :
             {"error", "esc", "empty summary", "refused tool then error", "refused tool then esc"})
            QTest::newRow(qPrintable(provider + QLatin1Char(' ') + QLatin1String(failure)))
                << provider << QString::fromLatin1(failure);
    }
}

// Issue 12 point 2, proves S30: a manual compaction that does not apply (an error, Esc, an empty summary, a
// refused tool call followed by an error or Esc) leaves pending state, history and transcript as they were:
// the next turn's request is byte for byte the one a session without the attempt sends.
void TestHeadlessCompaction::manualCompactionThatDoesNotApplyChangesNothing()
{
    QFETCH(QString, provider);
    QFETCH(QString, failure);
    Rig rig(provider, LargeWindow);
    AgentSession attempted;
    AgentSession control;
    rig.setUp(attempted);
    rig.setUp(control);
    const QString readNotes = arguments({{QStringLiteral("path"), QStringLiteral("notes.txt")}});
    const QString write = arguments({{QStringLiteral("path"), QStringLiteral("out.txt")},
                                     {QStringLiteral("content"), QStringLiteral("x")}});

    // The same first turn in both: a tool turn, then the provider fails, so pending state is kept.
    for (AgentSession *session : {&attempted, &control}) {
        rig.enqueue({ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"),
                                              readNotes),
                     ProviderScript::badRequest(provider, QStringLiteral("temporarily broken"))});
        QVERIFY(finishTurn(*session, [&] { return session->submit(QStringLiteral("study the parser")); }));
    }
    const MessageList historyBefore = attempted.messages();
    const QByteArray transcriptBefore = readAll(attempted.transcriptPath());
    QCOMPARE(control.messages(), historyBefore);

    // The manual compaction that does not apply.
    rig.server().clearRequests();
    QList<FakeProviderServer::Response> script;
    if (failure.startsWith(QLatin1String("refused tool")))
        script.append(ProviderScript::toolCall(provider, QStringLiteral("call_m"),
                                               QStringLiteral("write_file"), write));
    if (failure.endsWith(QLatin1String("error")))
        script.append(ProviderScript::badRequest(provider, QStringLiteral("no summary today")));
    else if (failure.endsWith(QLatin1String("esc")))
        script.append(stalled(provider));
    else
        script.append(ProviderScript::text(provider, QStringLiteral("   \n ")));
    rig.enqueue(script);
    QSignalSpy compaction(&attempted, &AgentSession::compactionFinished);
    QSignalSpy finished(&attempted, &AgentSession::turnFinished);
    QVERIFY(attempted.compact());
    if (failure.endsWith(QLatin1String("esc"))) {
        QVERIFY(rig.server().waitForRequests(script.size(), 20000));
        QVERIFY(attempted.cancelCompaction());
    }
    QVERIFY(FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }, 20000));
    rig.server().closeAllConnections();
    QCOMPARE(compaction.size(), 1);
    QCOMPARE(compaction.at(0).at(1).toBool(), false);
    // The compaction request carried the pending turn, so a summary would have covered it.
    QVERIFY(rig.server().requests().at(0).body.contains("parser notes: keep the public API"));
    QVERIFY(!QFile::exists(QDir(rig.workspace()).filePath(QStringLiteral("out.txt"))));
    QCOMPARE(attempted.messages(), historyBefore);
    QCOMPARE(readAll(attempted.transcriptPath()), transcriptBefore);

    // The next turn, in both sessions.
    rig.server().clearRequests();
    for (AgentSession *session : {&attempted, &control}) {
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("carrying on"))});
        QVERIFY(finishTurn(*session, [&] { return session->submit(QStringLiteral("go on")); }));
    }
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 2);
    QVERIFY(requests.at(0).body.contains("parser notes: keep the public API")); // pending state replayed
    QVERIFY(!requests.at(0).body.contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
    QCOMPARE(withoutSessionId(requests.at(0).body, attempted.sessionId()),
             withoutSessionId(requests.at(1).body, control.sessionId()));
    QCOMPARE(attempted.messages(), control.messages());
}

void TestHeadlessCompaction::manualCompactionRefusesToolsWithACard_data()
{
    ProviderScript::addProviderRows();
}

// proves S21, S14, S24: the manual request keeps the tools; a call the model makes is refused, never run,
// reported as a tool card (tool_start, then tool_end with the refusal), and the refusal goes back to the
// model; the summary written after it applies.
void TestHeadlessCompaction::manualCompactionRefusesToolsWithACard()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    AgentSession session;
    rig.setUp(session);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Parser studied."))});
    QVERIFY(finishTurn(session, [&] { return session.submit(QStringLiteral("study the parser")); }));
    const QJsonArray turnTools =
        rig.server().lastRequest().json.object().value(QStringLiteral("tools")).toArray();

    rig.server().clearRequests();
    const QString write = arguments({{QStringLiteral("path"), QStringLiteral("out.txt")},
                                     {QStringLiteral("content"), QStringLiteral("x")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_m"), QStringLiteral("write_file"), write),
         ProviderScript::text(provider, QStringLiteral("## Goal\nStudy the parser."))});
    QSignalSpy events(&session, &AgentSession::streamEvent);
    QVERIFY(finishTurn(session, [&] { return session.compact(); }));

    QList<StreamEvent> tools;
    for (const auto &args : std::as_const(events)) {
        const StreamEvent event = args.at(0).value<StreamEvent>();
        if (event.type == StreamEvent::Type::ToolStart || event.type == StreamEvent::Type::ToolEnd)
            tools.append(event);
    }
    QCOMPARE(tools.size(), 2);
    QCOMPARE(tools.at(0).type, StreamEvent::Type::ToolStart);
    QCOMPARE(tools.at(0).toolCall->name, QStringLiteral("write_file"));
    QCOMPARE(tools.at(1).type, StreamEvent::Type::ToolEnd);
    QCOMPARE(tools.at(1).toolCall->error, CompactionPrompts::toolCallsDisabledMessage());
    QVERIFY(!QFile::exists(QDir(rig.workspace()).filePath(QStringLiteral("out.txt"))));

    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(requests.at(0).json.object().value(QStringLiteral("tools")).toArray(), turnTools); // same tools
    QVERIFY(requests.at(1).body.contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
    QCOMPARE(session.messages(), MessageList{Message::user(QStringLiteral("## Goal\nStudy the parser."))});
}

void TestHeadlessCompaction::failedAndCancelledAutomaticCompactionPrintNothing_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<bool>("cancel");
    for (const QString &provider : ProviderScript::providers()) {
        QTest::newRow(qPrintable(provider + QStringLiteral(" failed"))) << provider << false;
        QTest::newRow(qPrintable(provider + QStringLiteral(" cancelled"))) << provider << true;
    }
}

// proves S56, S52: in headless mode a failed or cancelled automatic compaction writes nothing (no loader,
// notice, warning or summary); the parent turn goes on and its text is the output.
void TestHeadlessCompaction::failedAndCancelledAutomaticCompactionPrintNothing()
{
    QFETCH(QString, provider);
    QFETCH(bool, cancel);
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readBig),
         cancel ? stalled(provider)
                : ProviderScript::badRequest(provider, QStringLiteral("compaction refused")),
         ProviderScript::text(provider, QStringLiteral("Read it all."))});
    if (cancel) {
        // The child's cancel (what Esc does in the window) once the compaction has started and its request is
        // on the wire; both are reported on this thread, in either order.
        AgentSession *session = &headless.runner.session();
        auto cancelWhenReady = [session, &rig] {
            if (session->compactionMode() == AgentSession::CompactionMode::Automatic &&
                rig.server().requests().size() == 2)
                session->cancelCompaction();
        };
        QObject::connect(&rig.server(), &FakeProviderServer::requestReceived, session, cancelWhenReady);
        QObject::connect(session, &AgentSession::compactionStarted, session, cancelWhenReady);
    }
    QSignalSpy compaction(&headless.runner.session(), &AgentSession::compactionFinished);
    const int code = headless.run(QStringLiteral("read big.txt"));
    QVERIFY2(code == int(HeadlessRunner::Success), qPrintable(headless.err));
    QCOMPARE(compaction.size(), 1);
    QCOMPARE(compaction.at(0).at(1).toBool(), false);
    QCOMPARE(rig.server().requests().size(), 3);
    QCOMPARE(headless.out, QStringLiteral("Read it all.\n"));
    QCOMPARE(headless.err, QStringLiteral("✓ Read big.txt\nRead it all.\n"));
}

void TestHeadlessCompaction::jsonUsageReportsCompactionApart_data()
{
    ProviderScript::addProviderRows();
}

// Issue 12 point 4: `--format json` reports the turn's usage as before and, apart from it, every request of
// the automatic compaction; `run --compact --format json` reports the manual compaction's usage the same way.
// The session's totals and the /context breakdown carry the compaction usage apart from the turns.
void TestHeadlessCompaction::jsonUsageReportsCompactionApart()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    const QString write = arguments({{QStringLiteral("path"), QStringLiteral("out.txt")},
                                     {QStringLiteral("content"), QStringLiteral("x")}});
    rig.enqueue({ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"),
                                          readBig, 30, 5),
                 ProviderScript::toolCall(provider, QStringLiteral("call_r"), QStringLiteral("write_file"),
                                          write, 1000, 100),
                 ProviderScript::text(provider, QStringLiteral("## Goal\nread"), 2000, 200),
                 ProviderScript::text(provider, QStringLiteral("Read it all."), 40, 4)});
    QCOMPARE(headless.run(QStringLiteral("read big.txt"), true), int(HeadlessRunner::Success));
    QJsonObject line = QJsonDocument::fromJson(headless.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("text")).toString(), QStringLiteral("Read it all."));
    QJsonObject usage = line.value(QStringLiteral("usage")).toObject();
    QCOMPARE(usage.value(QStringLiteral("input_tokens")).toInteger(), 40);
    QCOMPARE(usage.value(QStringLiteral("output_tokens")).toInteger(), 4);
    QJsonObject compaction = usage.value(QStringLiteral("compaction")).toObject();
    QCOMPARE(compaction.value(QStringLiteral("input_tokens")).toInteger(), 3000);
    QCOMPARE(compaction.value(QStringLiteral("output_tokens")).toInteger(), 300);

    AgentSession &session = headless.runner.session();
    QCOMPARE(session.totalInputTokens(), 30 + 40);
    QCOMPARE(session.totalOutputTokens(), 5 + 4);
    QCOMPARE(session.compactionUsage().inputTokens, 3000);
    QCOMPARE(session.compactionUsage().outputTokens, 300);
    QCOMPARE(session.contextBreakdown().compactionUsage, session.compactionUsage());

    // A manual compaction through `run --compact --format json`.
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nall read"), 500, 50)});
    QCOMPARE(headless.compact(true), int(HeadlessRunner::Success));
    line = QJsonDocument::fromJson(headless.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("text")).toString(), QStringLiteral("## Goal\nall read"));
    usage = line.value(QStringLiteral("usage")).toObject();
    QCOMPARE(usage.value(QStringLiteral("input_tokens")).toInteger(), 0);
    compaction = usage.value(QStringLiteral("compaction")).toObject();
    QCOMPARE(compaction.value(QStringLiteral("input_tokens")).toInteger(), 500);
    QCOMPARE(compaction.value(QStringLiteral("output_tokens")).toInteger(), 50);
    QCOMPARE(session.totalInputTokens(), 30 + 40); // the turns' totals do not move
    QCOMPARE(session.compactionUsage().inputTokens, 3500);
    QVERIFY(!session.lastUsage()); // it described the history the summary replaced

    // `run --session ID` later: the session comes back with its totals (session_usage), and this run's
    // json reports only what this run cost.
    const QString id = session.sessionId();
    session.newSession(); // lets go of the session's lock, as the earlier process would have exited
    HeadlessRun again(rig);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Still here."), 60, 6)});
    const int againExit = again.runIn(id, QStringLiteral("and now?"), true);
    QVERIFY2(againExit == int(HeadlessRunner::Success), qPrintable(again.err + again.out));
    line = QJsonDocument::fromJson(again.out.toUtf8()).object();
    usage = line.value(QStringLiteral("usage")).toObject();
    QCOMPARE(usage.value(QStringLiteral("input_tokens")).toInteger(), 60);
    QVERIFY2(!usage.contains(QStringLiteral("compaction")), qPrintable(again.out));
    AgentSession &reopened = again.runner.session();
    QCOMPARE(reopened.totalInputTokens(), 30 + 40 + 60);
    QCOMPARE(reopened.totalOutputTokens(), 5 + 4 + 6);
    QCOMPARE(reopened.compactionUsage().inputTokens, 3500);
    QCOMPARE(reopened.compactionUsage().outputTokens, 350);
}

void TestHeadlessCompaction::planModeRidesInTheSystemPrompt_data()
{
    ProviderScript::addProviderRows();
}

// Issue 12 point 8, proves S20, S33: plan mode is part of the fresh system prompt of every request (the
// turn's and the manual compaction's), never of the person's message or its user_message event; the next
// turn in build mode has a system prompt without it.
void TestHeadlessCompaction::planModeRidesInTheSystemPrompt()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    AgentSession session;
    rig.setUp(session);
    session.setMode(AgentMode::Plan);
    const QByteArray modeLine = "Active mode: plan.";
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Here is the plan."))});
    QVERIFY(finishTurn(session, [&] { return session.submit(QStringLiteral("plan the parser")); }));
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nplan"))});
    QVERIFY(finishTurn(session, [&] { return session.compact(); }));
    session.setMode(AgentMode::Build);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Building."))});
    QVERIFY(finishTurn(session, [&] { return session.submit(QStringLiteral("build it")); }));

    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 3);
    // Where the system prompt goes for this provider: a separate field, or the first message.
    auto systemOf = [&](const QJsonObject &body) -> QByteArray {
        for (const char *field : {"system", "systemInstruction", "instructions"}) {
            if (body.contains(QLatin1String(field)))
                return QJsonDocument(QJsonObject{{QStringLiteral("s"), body.value(QLatin1String(field))}})
                    .toJson(QJsonDocument::Compact);
        }
        return QJsonDocument(body.value(ProviderScript::historyKey(provider)).toArray().first().toObject())
            .toJson(QJsonDocument::Compact);
    };
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(requests.at(i).body.count(modeLine), 1);
        QVERIFY(systemOf(requests.at(i).json.object()).contains(modeLine));
    }
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(0).json.object()),
             QStringLiteral("plan the parser"));
    QVERIFY(!requests.at(2).body.contains(modeLine));
    QVERIFY(!requests.at(2).body.contains("# Mode"));

    auto loaded = session.sessionStore().load(session.sessionId());
    QVERIFY(loaded);
    QCOMPARE(loaded->events.at(1).kind, SessionEvent::Kind::UserMessage);
    QCOMPARE(loaded->events.at(1).content(), QStringLiteral("plan the parser"));
    QVERIFY(!readAll(session.transcriptPath()).contains(modeLine));
}

void TestHeadlessCompaction::hugeReadInASmallWindowNeverSendsOverBudget_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16 "no dead end at 100%", the issue's own case: a 9,000-token window and one read of a file of about
// 19,000 tokens, through `run` with the real system prompt, tools and tool loop. Before, four compaction
// requests of about 23,000 tokens each went out. Now no compaction request exceeds the input budget: the
// conversation is summarised in parts, the file's read cut to its head and tail with a note; the resumed
// request fits; the run succeeds, says on stderr how the compaction fit, and the transcript records it.
void TestHeadlessCompaction::hugeReadInASmallWindowNeverSendsOverBudget()
{
    QFETCH(QString, provider);
    const qint64 window = 9000;
    const qint64 budget = ContextBudget::inputBudget(window);
    Rig rig(provider, window);
    writeHugeFile(rig.workspace());
    HeadlessRun headless(rig);
    const QString readHuge = arguments({{QStringLiteral("path"), QStringLiteral("huge.txt")}});
    SummaryResponder responder(
        rig, CompactionPrompts::automaticPrompt(),
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readHuge),
         ProviderScript::text(provider, QStringLiteral("Read it all."))});
    QCOMPARE(headless.run(QStringLiteral("read huge.txt")), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Read it all.\n"));

    const auto requests = rig.server().requests();
    int compactionRequests = 0;
    QByteArray sent;
    for (qsizetype i = 1; i < requests.size(); ++i) {
        const bool compaction = ProviderScript::finalUserText(provider, requests.at(i).json.object()) ==
                                CompactionPrompts::automaticPrompt();
        compactionRequests += compaction ? 1 : 0;
        sent += requests.at(i).body;
        // Every request after the read, compaction or resumed parent, fits the input budget.
        QVERIFY2(ContextBudget::estimateTokens(requests.at(i).body.size()) <= budget,
                 qPrintable(QStringLiteral("request %1 of %2: %3 bytes, budget %4 tokens")
                                .arg(i)
                                .arg(requests.size())
                                .arg(requests.at(i).body.size())
                                .arg(budget)));
    }
    QCOMPARE(compactionRequests, responder.summaries);
    QVERIFY(compactionRequests >= 2);
    QCOMPARE(requests.size(), 1 + compactionRequests + 1);
    // The read's head and tail reached the summary, with a note of what was cut between them.
    QVERIFY(sent.contains("BEGIN-OF-HUGE"));
    QVERIFY(sent.contains("END-OF-HUGE"));
    QVERIFY(sent.contains("characters cut here to fit the compaction request"));
    QVERIFY2(headless.err.contains(QStringLiteral("Context compacted automatically: summarised in")),
             qPrintable(headless.err));

    auto loaded = headless.runner.session().sessionStore().load(headless.runner.session().sessionId());
    QVERIFY(loaded);
    const SessionEvent *applied = nullptr;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            applied = &event;
    }
    QVERIFY(applied);
    QCOMPARE(applied->compaction()->strategy.slices, compactionRequests);
    QCOMPARE(applied->compaction()->strategy.cutOutputs, 1);
    QVERIFY(applied->status().isEmpty()); // S64
    QVERIFY(applied->messages().first().content.contains(
        QStringLiteral("summary part %1").arg(compactionRequests)));
}

void TestHeadlessCompaction::contextLengthErrorAfterASlicedCompactionIsShownAsItIs_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16: "A context-length error from the provider after all this is shown as it is." The huge read is
// compacted in parts that each fit, the compaction is applied, and the provider still refuses the resumed
// request for its length: the run fails with the provider's own words, tries no further compaction (S6), and
// the saved session keeps the applied compaction and the partial turn, so the next run starts from it.
void TestHeadlessCompaction::contextLengthErrorAfterASlicedCompactionIsShownAsItIs()
{
    QFETCH(QString, provider);
    Rig rig(provider, 9000);
    writeHugeFile(rig.workspace());
    HeadlessRun headless(rig);
    const QString readHuge = arguments({{QStringLiteral("path"), QStringLiteral("huge.txt")}});
    SummaryResponder responder(
        rig, CompactionPrompts::automaticPrompt(),
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readHuge),
         ProviderScript::contextLengthError(provider)});
    QCOMPARE(headless.run(QStringLiteral("read huge.txt")), int(HeadlessRunner::Failure));
    QVERIFY(responder.summaries >= 2); // summarised in parts
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 1 + responder.summaries + 1); // nothing after the refused request
    QVERIFY2(headless.err.contains(ProviderScript::contextErrorText(provider)), qPrintable(headless.err));
    QVERIFY2(headless.err.contains(QStringLiteral("Context compacted automatically: summarised in")),
             qPrintable(headless.err));

    auto loaded = headless.runner.session().sessionStore().load(headless.runner.session().sessionId());
    QVERIFY(loaded);
    QStringList kinds;
    for (const SessionEvent &event : std::as_const(loaded->events))
        kinds.append(SessionEvent::kindName(event.kind));
    QVERIFY2(kinds.contains(QStringLiteral("compaction_applied")), qPrintable(kinds.join(u' ')));
    QCOMPARE(kinds.last(), QStringLiteral("assistant_turn"));
    QVERIFY(loaded->events.last().error().contains(ProviderScript::contextErrorText(provider)));
}

void TestHeadlessCompaction::fiftyToolTurnsWithSeveralCompactions_data()
{
    ProviderScript::addProviderRows();
}

// Long work at its real size: one turn of 50 tool calls, each reading a different 10 KB file, in a window
// that holds about seven of them. The turn compacts several times and finishes; no request goes over the
// input budget; every call ran once and is in the transcript; the person's message stays once and verbatim
// however many compactions there were (issue 12 point 5), and the saved session projects to the history the
// run ended with. Proves S2, S3 and S42 at the size of a working day.
void TestHeadlessCompaction::fiftyToolTurnsWithSeveralCompactions()
{
    QFETCH(QString, provider);
    constexpr int Calls = 50;
    Rig rig(provider, SmallWindow);
    for (int file = 1; file <= Calls; ++file) {
        QFile part(QDir(rig.workspace()).filePath(QStringLiteral("part%1.txt").arg(file)));
        QVERIFY(part.open(QIODevice::WriteOnly));
        for (int line = 1; line <= 100; ++line)
            part.write(
                QStringLiteral("part %1 line %2 ").arg(file).arg(line).toUtf8().leftJustified(98, '.') +
                '\n');
    }
    QList<FakeProviderServer::Response> parent;
    for (int file = 1; file <= Calls; ++file)
        parent.append(ProviderScript::toolCall(
            provider, QStringLiteral("call_%1").arg(file), QStringLiteral("read_file"),
            arguments({{QStringLiteral("path"), QStringLiteral("part%1.txt").arg(file)}})));
    parent.append(ProviderScript::text(provider, QStringLiteral("All fifty read.")));
    HeadlessRun headless(rig);
    SummaryResponder responder(rig, CompactionPrompts::automaticPrompt(), parent);
    const QString prompt = QStringLiteral("read part1.txt to part50.txt, one at a time");
    QCOMPARE(headless.run(prompt), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("All fifty read.\n"));

    const qint64 budget = ContextBudget::inputBudget(SmallWindow);
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), Calls + 1 + responder.summaries);
    QVERIFY2(responder.summaries >= 5, qPrintable(QString::number(responder.summaries)));
    for (qsizetype i = 0; i < requests.size(); ++i)
        QVERIFY2(ContextBudget::estimateTokens(countedBytes(requests.at(i).body)) <= budget,
                 qPrintable(QStringLiteral("request %1: %2 bytes").arg(i).arg(requests.at(i).body.size())));

    auto loaded = headless.runner.session().sessionStore().load(headless.runner.session().sessionId());
    QVERIFY(loaded);
    int applied = 0;
    QStringList read;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        applied += event.kind == SessionEvent::Kind::CompactionApplied ? 1 : 0;
        if (event.kind != SessionEvent::Kind::AssistantTurn)
            continue;
        for (const TranscriptItem &item : event.transcript()) {
            if (item.kind == TranscriptItem::Kind::ToolEnd && item.error.isEmpty())
                read.append(item.input.toObject().value(QStringLiteral("path")).toString());
        }
    }
    QCOMPARE(applied, responder.summaries);
    QCOMPARE(read.size(), Calls);
    QCOMPARE(read.first(), QStringLiteral("part1.txt"));
    QCOMPARE(read.last(), QStringLiteral("part50.txt"));
    QCOMPARE(QSet<QString>(read.cbegin(), read.cend()).size(), Calls);

    const MessageList history = headless.runner.session().messages();
    const QString first = history.first().content;
    QCOMPARE(first.count(QStringLiteral("<compacted_context>")), 1);
    QCOMPARE(first.count(QStringLiteral("<last_user_message>")), 1);
    QCOMPARE(first.count(prompt), 1);
    QVERIFY(first.endsWith(prompt + QStringLiteral("\n</last_user_message>")));
    QCOMPARE(history.last().content, QStringLiteral("All fifty read."));
    QCOMPARE(buildConversation(loaded->events), history);
}

void TestHeadlessCompaction::pagedReadsRepeatedAfterEachSummaryStop_data()
{
    ProviderScript::addProviderRows();
}

// Found trying the window (2026-12-07): a model that read big.txt in three pages, forgot them in the summary
// and read the same three pages again after each one compacted after every third read for as long as the
// turn lasted (1,300 requests and 12 million tokens in two minutes, until Stop). The guard knew only a lone
// call repeated right after a summary. The same rounds of calls since a summary now count as one: the third
// summary is the last, the turn stops with a message that names them, and the session goes on.
void TestHeadlessCompaction::pagedReadsRepeatedAfterEachSummaryStop()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    QList<FakeProviderServer::Response> parent;
    int call = 0;
    for (int round = 1; round <= 6; ++round) {
        for (const int offset : {1, 234, 467})
            parent.append(ProviderScript::toolCall(
                provider, QStringLiteral("call_%1").arg(++call), QStringLiteral("read_file"),
                arguments({{QStringLiteral("path"), QStringLiteral("big.txt")},
                           {QStringLiteral("offset"), offset},
                           {QStringLiteral("limit"), 233}})));
    }
    HeadlessRun headless(rig);
    auto responder = std::make_unique<SummaryResponder>(rig, CompactionPrompts::automaticPrompt(), parent);
    QCOMPARE(headless.run(QStringLiteral("read big.txt page by page")), int(HeadlessRunner::Failure));
    QCOMPARE(responder->summaries, ToolLoopClient::MaxSameRefillCompactions);
    responder.reset();
    QVERIFY2(
        headless.err.contains(QStringLiteral("stopped before automatic compaction number 4 of this turn: "
                                             "the same 3 rounds of tool calls (read_file) filled the "
                                             "context again after a summary 3 times")),
        qPrintable(headless.err));
    // Three reads before each of the three summaries, and the three after the last one.
    QCOMPARE(rig.server().requests().size(), 4 * 3 + ToolLoopClient::MaxSameRefillCompactions);

    // The session loads as it was left and takes the next turn.
    const QString sessionId = headless.runner.session().sessionId();
    auto loaded = headless.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(kinds(loaded->events).count(QStringLiteral("compaction_applied")),
             ToolLoopClient::MaxSameRefillCompactions);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Here is what big.txt says."))});
    HeadlessRunner::Options next;
    next.prompt = QStringLiteral("just tell me what you found");
    next.launch.sessionId = sessionId;
    next.launch.workspace = rig.workspace();
    headless.out.clear();
    QCOMPARE(headless.runGuarded(next), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Here is what big.txt says.\n"));
}

void TestHeadlessCompaction::manualCompactionOfAHugeReadIsSliced_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16 for `run --session ID --compact`: a session whose history holds the huge read (made in a large
// window, with the full tool history kept) is compacted in a 9,000-token window. Every request fits the input
// budget, the last part's summary is printed and applied, stderr says how it fit, and the compaction_applied
// event records it.
void TestHeadlessCompaction::manualCompactionOfAHugeReadIsSliced()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    const QString sessionId = sessionWithTheHugeRead(rig);
    QVERIFY(!sessionId.isEmpty());
    rig.server().clearRequests();

    const qint64 window = 9000;
    const qint64 budget = ContextBudget::inputBudget(window);
    HeadlessRun headless(rig);
    ClientConfig small = rig.config();
    small.contextWindow = window;
    headless.runner.setConfigResolver([small](const LaunchOptions &) { return Result<ClientConfig>(small); });
    const QString prompt = CompactionPrompts::manualPrompt();
    SummaryResponder responder(rig, prompt, {});
    HeadlessRunner::Options options;
    options.compact = true;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(options), int(HeadlessRunner::Success));

    const auto requests = rig.server().requests();
    QVERIFY(requests.size() >= 2);
    QCOMPARE(requests.size(), responder.summaries);
    for (const FakeProviderServer::Request &request : requests) {
        QCOMPARE(ProviderScript::finalUserText(provider, request.json.object()), prompt);
        QVERIFY2(
            ContextBudget::estimateTokens(request.body.size()) <= budget,
            qPrintable(QStringLiteral("%1 bytes, budget %2 tokens").arg(request.body.size()).arg(budget)));
    }
    const QString last = QStringLiteral("## Goal\nsummary part %1").arg(responder.summaries);
    QCOMPARE(headless.out, last + QLatin1Char('\n'));
    QVERIFY2(headless.err.contains(QStringLiteral("Compacting in parts: summarised in")),
             qPrintable(headless.err));
    QCOMPARE(headless.runner.session().messages(), MessageList{Message::user(last)});

    auto loaded = headless.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    const SessionEvent &applied = loaded->events.constLast();
    QCOMPARE(applied.kind, SessionEvent::Kind::CompactionApplied);
    QCOMPARE(applied.status(), QStringLiteral("Context compacted."));
    QCOMPARE(applied.compaction()->strategy.slices, responder.summaries);
    QCOMPARE(applied.compaction()->strategy.cutOutputs, 1);
}

void TestHeadlessCompaction::manualCompactionInOnePartIsNamed_data()
{
    ProviderScript::addProviderRows();
}

// Audit 2026-12-06: a compaction request over the budget only with its tool definitions is rebuilt as one
// <conversation_part> without them, and then nothing said so: stderr read a dangling "Compacting in parts: ",
// the compaction_applied event had no strategy. Here the history (a 57 KB read) fits one part of a window
// that its request with the tool definitions does not fit.
void TestHeadlessCompaction::manualCompactionInOnePartIsNamed()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    const QString sessionId = sessionWithTheHugeRead(rig);
    QVERIFY(!sessionId.isEmpty());
    rig.server().clearRequests();

    // The request with the tool definitions (about 74 KB) is over this window's budget (about 71 KB); the
    // conversation as text without them (about 68 KB) fits one part.
    const qint64 window = 27900;
    const qint64 budget = ContextBudget::inputBudget(window);
    HeadlessRun headless(rig);
    ClientConfig small = rig.config();
    small.contextWindow = window;
    headless.runner.setConfigResolver([small](const LaunchOptions &) { return Result<ClientConfig>(small); });
    SummaryResponder responder(rig, CompactionPrompts::manualPrompt(), {});
    HeadlessRunner::Options options;
    options.compact = true;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(options), int(HeadlessRunner::Success));

    // One request, within the budget, without the tool definitions.
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 1);
    QVERIFY(ContextBudget::estimateTokens(requests.first().body.size()) <= budget);
    QVERIFY(!requests.first().body.contains("\"read_file\",\"description\"") &&
            !requests.first().json.object().contains(QStringLiteral("tools")));
    QCOMPARE(headless.out, QStringLiteral("## Goal\nsummary part 1\n"));
    QVERIFY2(
        headless.err.contains(QStringLiteral(
            "Compacting to fit the input budget: rebuilt as one request without the tool definitions\n")),
        qPrintable(headless.err));
    QVERIFY2(!headless.err.contains(QStringLiteral("Compacting in parts")), qPrintable(headless.err));

    auto loaded = headless.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    const SessionEvent &applied = loaded->events.constLast();
    QCOMPARE(applied.kind, SessionEvent::Kind::CompactionApplied);
    QVERIFY(!applied.compaction()->strategy.isSingleRequest());
    QCOMPARE(applied.compaction()->strategy.slices, 1);
    QFile transcript(headless.runner.session().transcriptPath());
    QVERIFY(transcript.open(QIODevice::ReadOnly));
    const QByteArray lastLine = transcript.readAll().trimmed().split('\n').constLast();
    QVERIFY2(
        lastLine.contains("\"strategy\":{\"cut_characters\":0,\"cut_outputs\":0,\"dropped_characters\":0,"
                          "\"dropped_outputs\":0,\"slices\":1}"),
        lastLine.constData());
}

void TestHeadlessCompaction::undoCompactionAfterLaterTurns_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<bool>("automatic");
    for (const QString &provider : ProviderScript::providers()) {
        QTest::newRow(qPrintable(provider + QStringLiteral(" manual"))) << provider << false;
        QTest::newRow(qPrintable(provider + QStringLiteral(" automatic"))) << provider << true;
    }
}

// Issue 16 point 2: `run --session ID --undo-compaction` undoes a manual or an automatic compaction after a
// later turn. The transcript gets an appended compaction_reverted naming the compaction_applied (nothing
// rewritten), and the next turn's request carries the history from before the compaction plus the turn
// after it, not the summary.
void TestHeadlessCompaction::undoCompactionAfterLaterTurns()
{
    QFETCH(QString, provider);
    QFETCH(bool, automatic);
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    if (automatic) {
        rig.enqueue({ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"),
                                              readBig),
                     ProviderScript::text(provider, QStringLiteral("## Goal\nSECRET-SUMMARY")),
                     ProviderScript::text(provider, QStringLiteral("Read big.txt."))});
        QCOMPARE(headless.run(QStringLiteral("first question")), int(HeadlessRunner::Success));
    } else {
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("First answer."))});
        QCOMPARE(headless.run(QStringLiteral("first question")), int(HeadlessRunner::Success));
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nSECRET-SUMMARY"))});
        QCOMPARE(headless.compact(), int(HeadlessRunner::Success));
    }
    const QString sessionId = headless.runner.session().sessionId();
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Second answer."))});
    HeadlessRunner::Options second;
    second.prompt = QStringLiteral("second question");
    second.launch.sessionId = sessionId;
    second.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(second), int(HeadlessRunner::Success));
    QVERIFY(rig.server().lastRequest().body.contains("SECRET-SUMMARY"));
    auto before = headless.runner.session().sessionStore().load(sessionId);
    QVERIFY(before);
    quint64 appliedSeq = 0;
    for (const SessionEvent &event : std::as_const(before->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            appliedSeq = event.seq;
    }
    QVERIFY(appliedSeq > 0);
    const QByteArray transcriptBefore = readAll(headless.runner.session().transcriptPath());

    // The undo, in a new run as a script would do it.
    HeadlessRun undo(rig);
    HeadlessRunner::Options options;
    options.undoCompaction = true;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();
    const int requestsBefore = int(rig.server().requests().size());
    QCOMPARE(undo.runGuarded(options), int(HeadlessRunner::Success));
    QCOMPARE(int(rig.server().requests().size()), requestsBefore); // no request
    QVERIFY2(undo.out.startsWith(QStringLiteral("Compaction undone")), qPrintable(undo.out));
    QVERIFY2(undo.err.isEmpty(), qPrintable(undo.err));
    const QByteArray transcriptAfter = readAll(undo.runner.session().transcriptPath());
    QVERIFY(transcriptAfter.startsWith(transcriptBefore)); // appended, nothing rewritten
    auto after = undo.runner.session().sessionStore().load(sessionId);
    QVERIFY(after);
    QCOMPARE(after->events.size(), before->events.size() + 1);
    const SessionEvent &revert = after->events.constLast();
    QCOMPARE(revert.kind, SessionEvent::Kind::CompactionReverted);
    QCOMPARE(revert.revert()->revertsSeq, appliedSeq);
    const MessageList history = undo.runner.session().messages();
    QCOMPARE(history.first(), Message::user(QStringLiteral("first question")));
    QCOMPARE(history.last(), Message::assistant(QStringLiteral("Second answer.")));

    // The next turn goes on from the restored history.
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Third answer."))});
    HeadlessRunner::Options third;
    third.prompt = QStringLiteral("third question");
    third.launch.sessionId = sessionId;
    third.launch.workspace = rig.workspace();
    QCOMPARE(undo.runGuarded(third), int(HeadlessRunner::Success));
    const QByteArray body = rig.server().lastRequest().body;
    QVERIFY(!body.contains("SECRET-SUMMARY"));
    QVERIFY(body.contains("first question"));
    QVERIFY(body.contains(automatic ? "Read big.txt." : "First answer."));
    QVERIFY(body.contains("second question"));
    QVERIFY(body.contains("Second answer."));

    // Undoing again: there is nothing left to undo, said plainly, nothing written.
    HeadlessRun again(rig);
    QCOMPARE(again.runGuarded(options), int(HeadlessRunner::Failure));
    QVERIFY2(again.err.contains(QStringLiteral("no compaction to undo")), qPrintable(again.err));
}

void TestHeadlessCompaction::undoThatNoLongerFitsSaysSo_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16 point 2: when the restored history no longer fits the input budget, the undo still applies and
// says so, offering to compact again (text on stderr, "fits": false in JSON).
void TestHeadlessCompaction::undoThatNoLongerFitsSaysSo()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    writeHugeFile(rig.workspace());
    QString sessionId;
    {
        AgentSession session;
        rig.setUp(session);
        session.setToolHistoryFull(true); // the read's output stays in the history
        const QString readHuge = arguments({{QStringLiteral("path"), QStringLiteral("huge.txt")}});
        rig.enqueue({ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"),
                                              readHuge),
                     ProviderScript::text(provider, QStringLiteral("Read it all.")),
                     ProviderScript::text(provider, QStringLiteral("## Goal\nread huge.txt"))});
        QVERIFY(finishTurn(session, [&] { return session.submit(QStringLiteral("read huge.txt")); }));
        QVERIFY(finishTurn(session, [&] { return session.compact(); }));
        sessionId = session.sessionId();
    }
    HeadlessRun headless(rig);
    ClientConfig small = rig.config();
    small.contextWindow = 9000;
    headless.runner.setConfigResolver([small](const LaunchOptions &) { return Result<ClientConfig>(small); });
    HeadlessRunner::Options options;
    options.undoCompaction = true;
    options.json = true;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(options), int(HeadlessRunner::Success));
    const QJsonObject line = QJsonDocument::fromJson(headless.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("session_id")).toString(), sessionId);
    QCOMPARE(line.value(QStringLiteral("fits")).toBool(true), false);
    QCOMPARE(line.value(QStringLiteral("input_budget")).toInteger(), ContextBudget::inputBudget(9000));
    QVERIFY(line.value(QStringLiteral("estimated_tokens")).toInteger() > ContextBudget::inputBudget(9000));
    QVERIFY2(headless.err.contains(QStringLiteral("--compact to compact it again")),
             qPrintable(headless.err));
    QCOMPARE(headless.runner.session().messages().first(), Message::user(QStringLiteral("read huge.txt")));
}

namespace {

// mid.txt: about 20,000 estimated tokens in the small window once read, with the system prompt and the tools:
// over 60% of its input budget (17,943), under 90% (26,914).
void writeMidFile(const QString &root)
{
    QFile mid(QDir(root).filePath(QStringLiteral("mid.txt")));
    QVERIFY(mid.open(QIODevice::WriteOnly));
    for (int i = 0; i < 480; ++i)
        mid.write(QByteArray(99, char('a' + i % 26)) + '\n');
}

HeadlessRunner::Options policyRun(const Rig &rig, const QString &prompt, const QString &threshold,
                                  std::optional<CompactionPolicy::Detail> detail = std::nullopt,
                                  const QString &sessionId = QString())
{
    HeadlessRunner::Options options;
    options.prompt = prompt;
    options.compactThreshold = threshold;
    options.compactDetail = detail;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();
    options.policyOnly = prompt.isEmpty(); // what parseArguments makes of flags without a prompt
    return options;
}

QList<SessionEvent> eventsOf(AgentSession &session)
{
    auto loaded = session.sessionStore().load(session.sessionId());
    return loaded ? loaded->events : QList<SessionEvent>();
}

} // namespace

void TestHeadlessCompaction::policyThresholdMovesAutomaticCompaction_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("threshold"); // --compact-threshold; empty: not given
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("compacts");
    for (const QString &provider : ProviderScript::providers()) {
        QTest::newRow(qPrintable(provider + QStringLiteral(" 60% mid")))
            << provider << QStringLiteral("60") << QStringLiteral("mid.txt") << true;
        QTest::newRow(qPrintable(provider + QStringLiteral(" default mid")))
            << provider << QString() << QStringLiteral("mid.txt") << false;
        QTest::newRow(qPrintable(provider + QStringLiteral(" off big")))
            << provider << QStringLiteral("off") << QStringLiteral("big.txt") << false;
        QTest::newRow(qPrintable(provider + QStringLiteral(" 90% big")))
            << provider << QStringLiteral("90") << QStringLiteral("big.txt") << true;
    }
}

// Issue 16 "Policy per session", proves S3, S35, S36 with a moved threshold: `run --compact-threshold 60`
// compacts after a read that the seed's 90% lets through; `off` never compacts automatically, not even over
// 90%; 90 given explicitly is the default and records nothing.
void TestHeadlessCompaction::policyThresholdMovesAutomaticCompaction()
{
    QFETCH(QString, provider);
    QFETCH(QString, threshold);
    QFETCH(QString, file);
    QFETCH(bool, compacts);
    Rig rig(provider, SmallWindow);
    writeMidFile(rig.workspace());
    HeadlessRun headless(rig);
    const QString read = arguments({{QStringLiteral("path"), file}});
    QList<FakeProviderServer::Response> script{
        ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), read)};
    if (compacts)
        script.append(ProviderScript::text(provider, QStringLiteral("## Goal\nread the file")));
    script.append(ProviderScript::text(provider, QStringLiteral("Read it.")));
    rig.enqueue(script);
    QCOMPARE(headless.runGuarded(policyRun(rig, QStringLiteral("read ") + file, threshold)),
             int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Read it.\n"));

    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), script.size());
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(1).json.object()) ==
                 CompactionPrompts::automaticPrompt(),
             compacts);
    // The estimate of the request the compaction was considered before, against the input budget.
    const qint64 budget = ContextBudget::inputBudget(SmallWindow);
    const qint64 estimate = ContextBudget::estimateTokens(requests.at(1).body.size());
    if (file == QLatin1String("mid.txt"))
        QVERIFY2(estimate < ContextBudget::autoCompactionThreshold(budget),
                 qPrintable(QString::number(estimate)));
    else
        QVERIFY2(estimate >= ContextBudget::autoCompactionThreshold(budget) && estimate < budget,
                 qPrintable(QString::number(estimate)));

    const QList<SessionEvent> events = eventsOf(headless.runner.session());
    QCOMPARE(kinds(events).contains(QStringLiteral("compaction_applied")), compacts);
    const bool recorded = threshold == QLatin1String("60") || threshold == QLatin1String("off");
    QCOMPARE(kinds(events).contains(QStringLiteral("compaction_policy")), recorded);
    if (recorded) {
        // Written when the session was created, before the person's message.
        QCOMPARE(events.at(1).kind, SessionEvent::Kind::CompactionPolicy);
        QCOMPARE(events.at(1).policy()->policy.automatic, threshold != QLatin1String("off"));
        if (threshold == QLatin1String("60"))
            QCOMPARE(events.at(1).policy()->policy.thresholdPercent, 60);
    }
}

void TestHeadlessCompaction::automaticOffStopsAtTheInputBudget_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, proves S36 under a policy: with automatic compaction off, a tool turn that would push the
// next request over the input budget does not send it (no silent over-budget loop, nothing compacted behind
// the person's back): the turn stops with a message saying what to do, and a manual compaction then works
// (sliced, every request within the budget). The turn's output is kept.
void TestHeadlessCompaction::automaticOffStopsAtTheInputBudget()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    const QString readNotes = arguments({{QStringLiteral("path"), QStringLiteral("notes.txt")}});
    // notes.txt first so the big read is the second tool turn; then one more request would be needed.
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readNotes),
         ProviderScript::toolCall(provider, QStringLiteral("call_2"), QStringLiteral("read_file"), readBig),
         ProviderScript::toolCall(provider, QStringLiteral("call_3"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("never sent"))});
    QCOMPARE(headless.runGuarded(policyRun(rig, QStringLiteral("read everything"), QStringLiteral("off"))),
             int(HeadlessRunner::Failure));
    QVERIFY2(headless.err.contains(QStringLiteral("automatic compaction is off for this session")),
             qPrintable(headless.err));
    QVERIFY2(headless.err.contains(QStringLiteral("/compact")), qPrintable(headless.err));
    // Issue 16, found re-checking it: headless, the way out is a command, not a button.
    QVERIFY2(headless.err.contains(QStringLiteral("run --session ID --compact")), qPrintable(headless.err));
    const qint64 budget = ContextBudget::inputBudget(SmallWindow);
    auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 3); // the request after the second big read never left
    for (const FakeProviderServer::Request &request : requests) {
        QVERIFY(ProviderScript::finalUserText(provider, request.json.object()) !=
                CompactionPrompts::automaticPrompt());
        QVERIFY(ContextBudget::estimateTokens(request.body.size()) <= budget);
    }
    const QList<SessionEvent> events = eventsOf(headless.runner.session());
    QVERIFY(!kinds(events).contains(QStringLiteral("compaction_applied")));
    QCOMPARE(events.constLast().kind, SessionEvent::Kind::AssistantTurn);
    QVERIFY(events.constLast().error().contains(QStringLiteral("automatic compaction is off")));

    // Manual compaction still works (summarised in parts when the history it reads is over the budget).
    rig.server().clearRequests();
    SummaryResponder responder(rig, CompactionPrompts::manualPrompt(), {});
    HeadlessRunner::Options compact;
    compact.compact = true;
    compact.launch.sessionId = headless.runner.session().sessionId();
    compact.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(compact), int(HeadlessRunner::Success));
    requests = rig.server().requests();
    QCOMPARE(requests.size(), responder.summaries);
    for (const FakeProviderServer::Request &request : requests)
        QVERIFY(ContextBudget::estimateTokens(request.body.size()) <= budget);
    QCOMPARE(eventsOf(headless.runner.session()).constLast().kind, SessionEvent::Kind::CompactionApplied);
    // The session is still off after the compaction.
    QVERIFY(!headless.runner.session().compactionPolicy().automatic);
}

void TestHeadlessCompaction::detailGuidanceFollowsTheSeedPrompt_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, proves S13, S20, S23, S37: the detail level is guidance after the seed's prompt, in the same
// final user message; the history before it (the cached prefix) is byte for byte the same. With the defaults,
// set explicitly or not, the request is exactly the seed's. S13, S20, S23 for the manual request, S37 for the
// automatic one.
void TestHeadlessCompaction::detailGuidanceFollowsTheSeedPrompt()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    AgentSession plain;
    AgentSession defaults;
    AgentSession brief;
    for (AgentSession *session : {&plain, &defaults, &brief})
        rig.setUp(*session);
    defaults.setCompactionPolicy(CompactionPolicy());
    CompactionPolicy briefPolicy;
    briefPolicy.detail = CompactionPolicy::Detail::Brief;
    brief.setCompactionPolicy(briefPolicy);
    QList<QByteArray> bodies;
    for (AgentSession *session : {&plain, &defaults, &brief}) {
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("Hello."))});
        QVERIFY(finishTurn(*session, [&] { return session->submit(QStringLiteral("hi")); }));
        rig.server().clearRequests();
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nGreet."))});
        QVERIFY(finishTurn(*session, [&] { return session->compact(); }));
        QCOMPARE(rig.server().requests().size(), 1);
        bodies.append(withoutSessionId(rig.server().requests().at(0).body, session->sessionId()));
        QCOMPARE(session->messages(), MessageList{Message::user(QStringLiteral("## Goal\nGreet."))});
    }
    const QString guidance = CompactionPrompts::detailGuidance(CompactionPolicy::Detail::Brief);
    QVERIFY(!guidance.isEmpty());
    QVERIFY(CompactionPrompts::detailGuidance(CompactionPolicy::Detail::Normal).isEmpty());
    QCOMPARE(bodies.at(1), bodies.at(0));
    QCOMPARE(ProviderScript::finalUserText(provider, QJsonDocument::fromJson(bodies.at(0)).object()),
             CompactionPrompts::manualPrompt());
    QCOMPARE(ProviderScript::finalUserText(provider, QJsonDocument::fromJson(bodies.at(2)).object()),
             CompactionPrompts::manualPrompt() + QStringLiteral("\n\n") + guidance);
    // Everything else, the history and the seed's prompt included, is byte for byte the default request.
    QByteArray withoutGuidance = bodies.at(2);
    withoutGuidance.replace(QByteArray(QByteArray("\\n\\n") + guidance.toUtf8()), QByteArray());
    QCOMPARE(withoutGuidance, bodies.at(0));
    QVERIFY(!kinds(eventsOf(plain)).contains(QStringLiteral("compaction_policy")));
    QVERIFY(!kinds(eventsOf(defaults)).contains(QStringLiteral("compaction_policy")));

    // Automatic: `run --compact-detail detailed`; the private request carries the guidance after the prompt.
    Rig small(provider, SmallWindow);
    HeadlessRun headless(small);
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    small.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nread big.txt")),
         ProviderScript::text(provider, QStringLiteral("Read it."))});
    QCOMPARE(headless.runGuarded(policyRun(small, QStringLiteral("read big.txt"), QString(),
                                           CompactionPolicy::Detail::Detailed)),
             int(HeadlessRunner::Success));
    const auto requests = small.server().requests();
    QCOMPARE(requests.size(), 3);
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(1).json.object()),
             CompactionPrompts::automaticPrompt() + QStringLiteral("\n\n") +
                 CompactionPrompts::detailGuidance(CompactionPolicy::Detail::Detailed));
    QCOMPARE(headless.out, QStringLiteral("Read it.\n"));
}

void TestHeadlessCompaction::resumedSessionKeepsItsPolicy_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, proves S3, S36, S37 after a resume: the policy is an event of the transcript, so `run --session
// ID` (and the window, which opens sessions the same way) keeps it: a later run without flags compacts at the
// session's 60% with its brief guidance; `run --session ID --compact-threshold off` with no prompt records a
// change and sends nothing.
void TestHeadlessCompaction::resumedSessionKeepsItsPolicy()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    writeMidFile(rig.workspace());
    QString sessionId;
    {
        HeadlessRun first(rig);
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("Hello."))});
        QCOMPARE(first.runGuarded(policyRun(rig, QStringLiteral("hi"), QStringLiteral("60"),
                                            CompactionPolicy::Detail::Brief)),
                 int(HeadlessRunner::Success));
        sessionId = first.runner.session().sessionId();
    }
    rig.server().clearRequests();
    HeadlessRun second(rig);
    const QString readMid = arguments({{QStringLiteral("path"), QStringLiteral("mid.txt")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readMid),
         ProviderScript::text(provider, QStringLiteral("## Goal\nread mid.txt")),
         ProviderScript::text(provider, QStringLiteral("Read it."))});
    QCOMPARE(
        second.runGuarded(policyRun(rig, QStringLiteral("read mid.txt"), QString(), std::nullopt, sessionId)),
        int(HeadlessRunner::Success));
    QCOMPARE(second.runner.session().compactionPolicy().thresholdPercent, 60);
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 3);
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(1).json.object()),
             CompactionPrompts::automaticPrompt() + QStringLiteral("\n\n") +
                 CompactionPrompts::detailGuidance(CompactionPolicy::Detail::Brief));

    // A change without a prompt: recorded, nothing sent, and the next open reads it.
    rig.server().clearRequests();
    HeadlessRun third(rig);
    HeadlessRunner::Options off = policyRun(rig, QString(), QStringLiteral("off"), std::nullopt, sessionId);
    off.json = true;
    QCOMPARE(third.runGuarded(off), int(HeadlessRunner::Success));
    QVERIFY2(third.err.contains(QStringLiteral("automatic compaction off, brief summaries")),
             qPrintable(third.err));
    QCOMPARE(rig.server().requests().size(), 0);
    // Issue 16, found re-checking it: with --format json a policy change printed nothing on stdout.
    const QJsonObject line = QJsonDocument::fromJson(third.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("session_id")).toString(), sessionId);
    QCOMPARE(line.value(QStringLiteral("automatic")).toBool(true), false);
    QCOMPARE(line.value(QStringLiteral("threshold_percent")).toInt(), 60);
    QCOMPARE(line.value(QStringLiteral("detail")).toString(), QStringLiteral("brief"));
    AgentSession reopened;
    rig.setUp(reopened);
    QVERIFY(reopened.openSession(sessionId));
    QVERIFY(!reopened.compactionPolicy().automatic);
    QCOMPARE(reopened.compactionPolicy().thresholdPercent, 60);
    QCOMPARE(reopened.compactionPolicy().detail, CompactionPolicy::Detail::Brief);
    const QList<SessionEvent> events = eventsOf(reopened);
    QCOMPARE(events.constLast().kind, SessionEvent::Kind::CompactionPolicy);
}

void TestHeadlessCompaction::reviewedSummaryIsWhatIsApplied_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, "Review before it applies": with review on, a manual compaction's summary waits; the text the
// person accepts (edited here) is what is applied, written to the transcript (messages and replay) and sent
// in the next request, and what a reopened session projects. Proves S28, S29 and S33 with an edited summary.
void TestHeadlessCompaction::reviewedSummaryIsWhatIsApplied()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    AgentSession session;
    rig.setUp(session);
    session.setReviewManualCompaction(true);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("The parser is in src/parse.cpp."))});
    QVERIFY(finishTurn(session, [&] { return session.submit(QStringLiteral("where is the parser?")); }));
    const QByteArray transcriptBefore = readAll(session.transcriptPath());

    QSignalSpy review(&session, &AgentSession::compactionReviewRequested);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nMODEL-SUMMARY"))});
    QVERIFY(session.compact());
    QVERIFY(FakeProviderServer::spinUntil([&] { return !review.isEmpty(); }, 20000));
    QCOMPARE(review.at(0).at(0).toString(), QStringLiteral("## Goal\nMODEL-SUMMARY"));
    QCOMPARE(review.at(0).at(1).value<MessageList>(), session.messages());
    QVERIFY(session.isBusy());
    QCOMPARE(readAll(session.transcriptPath()), transcriptBefore); // nothing written yet
    QVERIFY(!session.submit(QStringLiteral("too early")));         // busy while the person reviews

    const QString edited = QStringLiteral("## Goal\nEDITED-SUMMARY: keep src/parse.cpp");
    QSignalSpy finished(&session, &AgentSession::turnFinished);
    QVERIFY(session.acceptCompaction(edited));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }, 20000));
    QCOMPARE(session.messages(), MessageList{Message::user(edited)});

    rig.server().clearRequests();
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Going on."))});
    QVERIFY(finishTurn(session, [&] { return session.submit(QStringLiteral("go on")); }));
    const QByteArray next = rig.server().requests().at(0).body;
    QVERIFY(next.contains("EDITED-SUMMARY: keep src/parse.cpp"));
    QVERIFY(!next.contains("MODEL-SUMMARY"));

    auto loaded = session.sessionStore().load(session.sessionId());
    QVERIFY(loaded);
    const SessionEvent *applied = nullptr;
    for (const SessionEvent &event : loaded->events) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            applied = &event;
    }
    QVERIFY(applied);
    QCOMPARE(applied->messages(), MessageList{Message::user(edited)});
    QCOMPARE(applied->transcript().constLast().content, edited);
    AgentSession reopened;
    rig.setUp(reopened);
    QVERIFY(reopened.openSession(session.sessionId()));
    QCOMPARE(reopened.messages().first(), Message::user(edited));
}

void TestHeadlessCompaction::cancelledReviewChangesNothing_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, proves S30 for a review that is cancelled (and for one regenerated, then cancelled): history,
// provider pending state and transcript are as before, and the next turn's request is byte for byte the one
// a session without the compaction sends.
void TestHeadlessCompaction::cancelledReviewChangesNothing()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    AgentSession reviewed;
    AgentSession control;
    rig.setUp(reviewed);
    rig.setUp(control);
    reviewed.setReviewManualCompaction(true);
    const QString readNotes = arguments({{QStringLiteral("path"), QStringLiteral("notes.txt")}});
    // A tool turn the provider then fails, so pending state is carried to the next request.
    for (AgentSession *session : {&reviewed, &control}) {
        rig.enqueue({ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"),
                                              readNotes),
                     ProviderScript::badRequest(provider, QStringLiteral("temporarily broken"))});
        QVERIFY(finishTurn(*session, [&] { return session->submit(QStringLiteral("study the parser")); }));
    }
    const MessageList historyBefore = reviewed.messages();
    const QByteArray transcriptBefore = readAll(reviewed.transcriptPath());

    QSignalSpy review(&reviewed, &AgentSession::compactionReviewRequested);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nfirst"))});
    QVERIFY(reviewed.compact());
    QVERIFY(FakeProviderServer::spinUntil([&] { return review.size() == 1; }, 20000));
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nsecond"))});
    QVERIFY(reviewed.regenerateCompaction(QStringLiteral("keep the notes")));
    QVERIFY(FakeProviderServer::spinUntil([&] { return review.size() == 2; }, 20000));
    QCOMPARE(review.at(1).at(0).toString(), QStringLiteral("## Goal\nsecond"));
    QSignalSpy finished(&reviewed, &AgentSession::turnFinished);
    reviewed.cancelCompactionReview();
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).value<AgentSession::TurnOutcome>(), AgentSession::TurnOutcome::Cancelled);
    QVERIFY(!reviewed.isBusy());
    QCOMPARE(reviewed.messages(), historyBefore);
    QCOMPARE(readAll(reviewed.transcriptPath()), transcriptBefore);

    rig.server().clearRequests();
    for (AgentSession *session : {&reviewed, &control}) {
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("Done."))});
        QVERIFY(finishTurn(*session, [&] { return session->submit(QStringLiteral("go on")); }));
    }
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(withoutSessionId(requests.at(0).body, reviewed.sessionId()),
             withoutSessionId(requests.at(1).body, control.sessionId()));
}

void TestHeadlessCompaction::messagesCodeBlocksAndToolResultsArePinnedFromTheCommandLine_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16: a message, a code block or a tool result is pinned headless as the chat's context menu pins it.
// `--pinnable` lists them numbered (text: number, kind, source, headline; json: the pins' texts), `--pin-item
// N` pins one (saved as the window's pin would be), and the next compaction carries it verbatim after its
// summary. A number past the list pins nothing.
void TestHeadlessCompaction::messagesCodeBlocksAndToolResultsArePinnedFromTheCommandLine()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    HeadlessRun headless(rig);
    const QString readNotes = QStringLiteral(R"({"path":"notes.txt"})");
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readNotes),
         ProviderScript::text(provider,
                              QStringLiteral("Keep it so:\n```cpp\nint api_version = 7;\n```\nDone."))});
    QCOMPARE(headless.run(QStringLiteral("what do the notes say?")), int(HeadlessRunner::Success));
    AgentSession &session = headless.runner.session();
    const QString sessionId = session.sessionId();
    HeadlessRunner::Options options;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();

    HeadlessRunner::Options list = options;
    list.listPinnable = true;
    headless.out.clear();
    headless.err.clear();
    QCOMPARE(headless.runGuarded(list), int(HeadlessRunner::Success));
    const QStringList lines = headless.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList kinds;
    for (const QString &line : lines)
        kinds << line.section(QLatin1Char('\t'), 0, 1);
    QCOMPARE(kinds, (QStringList{QStringLiteral("1\tmessage"), QStringLiteral("2\ttool_result"),
                                 QStringLiteral("3\tmessage"), QStringLiteral("4\tcode_block")}));
    QCOMPARE(lines.at(0), QStringLiteral("1\tmessage\tuser message\twhat do the notes say?"));
    QCOMPARE(lines.at(1).section(QLatin1Char('\t'), 2, 2), QStringLiteral("read_file notes.txt"));
    QVERIFY2(lines.at(1).contains(QStringLiteral("parser notes: keep the public API")),
             qPrintable(lines.at(1)));
    QCOMPARE(lines.at(3),
             QStringLiteral("4\tcode_block\tcode block of an assistant message\tint api_version = 7;"));
    QVERIFY2(headless.err.contains(QStringLiteral("--pin-item N")), qPrintable(headless.err));
    QVERIFY(session.pins().isEmpty()); // listing pins nothing

    list.json = true;
    headless.out.clear();
    QCOMPARE(headless.runGuarded(list), int(HeadlessRunner::Success));
    const QJsonArray items =
        QJsonDocument::fromJson(headless.out.toUtf8()).object().value(QStringLiteral("pinnable")).toArray();
    QCOMPARE(items.size(), 4);
    QCOMPARE(items.at(3).toObject().value(QStringLiteral("text")).toString(),
             QStringLiteral("int api_version = 7;"));
    QCOMPARE(items.at(2).toObject().value(QStringLiteral("number")).toInt(), 3);

    // Past the list: refused, nothing pinned.
    HeadlessRunner::Options tooFar = options;
    tooFar.pinItems = {5};
    headless.err.clear();
    QCOMPARE(headless.runGuarded(tooFar), int(HeadlessRunner::Failure));
    QVERIFY2(headless.err.contains(QStringLiteral("has 4 items to pin (see --pinnable)")),
             qPrintable(headless.err));
    QVERIFY(session.pins().isEmpty());

    // The code block and the tool result, pinned as the window pins them, on disk.
    HeadlessRunner::Options pin = options;
    pin.pinItems = {4, 2};
    headless.err.clear();
    QCOMPARE(headless.runGuarded(pin), int(HeadlessRunner::Success));
    QVERIFY2(headless.err.contains(QStringLiteral("(code block of an assistant message)")),
             qPrintable(headless.err));
    QCOMPARE(session.pins().size(), 2);
    QCOMPARE(session.pins().at(0).kind, Pin::Kind::CodeBlock);
    QCOMPARE(session.pins().at(0).text, QStringLiteral("int api_version = 7;"));
    QCOMPARE(session.pins().at(1).kind, Pin::Kind::ToolResult);
    QCOMPARE(session.pins().at(1).source, QStringLiteral("read_file notes.txt"));
    QVERIFY(session.pins().at(1).shownText().contains(QStringLiteral("parser notes: keep the public API")));
    auto loaded = session.sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(SessionPins::active(loaded->events), session.pins());

    // The next compaction keeps both verbatim after its summary.
    HeadlessRunner::Options compact = options;
    compact.compact = true;
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-ONE"))});
    QCOMPARE(headless.runGuarded(compact), int(HeadlessRunner::Success));
    HeadlessRunner::Options next = options;
    next.prompt = QStringLiteral("NEXT-PROMPT");
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Going on."))});
    QCOMPARE(headless.runGuarded(next), int(HeadlessRunner::Success));
    const QByteArray body = rig.server().lastRequest().body;
    QVERIFY(body.indexOf("SUMMARY-ONE") >= 0);
    QVERIFY2(body.indexOf("int api_version = 7;") > body.indexOf("SUMMARY-ONE"), body.constData());
    QVERIFY(body.indexOf("parser notes: keep the public API") > body.indexOf("SUMMARY-ONE"));
    QVERIFY(body.indexOf("NEXT-PROMPT") > body.indexOf("int api_version = 7;"));

    // The flags as typed.
    auto parsed = HeadlessRunner::parseArguments(
        {QStringLiteral("--session"), sessionId, QStringLiteral("--pin-item"), QStringLiteral("2"),
         QStringLiteral("--pin-item=3"), QStringLiteral("--pinnable")},
        QString());
    QVERIFY(parsed);
    QCOMPARE(parsed->pinItems, (QList<int>{2, 3}));
    QVERIFY(parsed->listPinnable);
    QVERIFY(parsed->prompt.isEmpty());
    parsed = HeadlessRunner::parseArguments(
        {QStringLiteral("--session"), sessionId, QStringLiteral("--pin-item"), QStringLiteral("two")},
        QString());
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(QStringLiteral("number of an item")), qPrintable(parsed.error()));
    parsed = HeadlessRunner::parseArguments({QStringLiteral("--pinnable")}, QString());
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(QStringLiteral("need --session ID")), qPrintable(parsed.error()));
}

QTEST_GUILESS_MAIN(TestHeadlessCompaction)
#include "tst_headlesscompaction.moc"

void TestHeadlessCompaction::pinnedNoteTravelsAfterEveryCompactionAcrossResume_data()
{
    ProviderScript::addProviderRows();
}

// Found when tried: `run --session ID --pins` listed a pinned detail ("Pin the Original" of file2.txt) as
// "read_file", the first line of its excerpt, where the chat's pin row names it by the line that holds the
// detail. The list names every pin as that row does (Pin::headline).
void TestHeadlessCompaction::pinsAreListedByTheLineThatNamesThem()
{
    Rig rig(QStringLiteral("openai-compatible"), SmallWindow);
    keen::test::TranscriptWriter writer(rig.sessionsRoot(), rig.workspace());
    writer.user(QStringLiteral("read file2.txt"));
    writer.appendPayload(QStringLiteral("pin_added"),
                         QJsonObject{{QStringLiteral("id"), QStringLiteral("pin-1")},
                                     {QStringLiteral("kind"), QStringLiteral("detail")},
                                     {QStringLiteral("text"), QStringLiteral("read_file\npath: file2.txt")},
                                     {QStringLiteral("source"), QStringLiteral("path file2.txt")}});
    writer.appendPayload(QStringLiteral("pin_added"),
                         QJsonObject{{QStringLiteral("id"), QStringLiteral("pin-2")},
                                     {QStringLiteral("kind"), QStringLiteral("note")},
                                     {QStringLiteral("text"), QString(300, QLatin1Char('n'))}});
    HeadlessRun list(rig);
    HeadlessRunner::Options listing;
    listing.listPins = true;
    listing.launch.sessionId = writer.id();
    listing.launch.workspace = rig.workspace();
    QCOMPARE(list.runGuarded(listing), int(HeadlessRunner::Success));
    QCOMPARE(list.out, QStringLiteral("pin-1\tdetail\tpath: file2.txt\npin-2\tnote\t") +
                           QString(119, QLatin1Char('n')) + QStringLiteral("…\n"));
    QVERIFY2(list.err.contains(QStringLiteral("2 pins")), qPrintable(list.err));
}

// Issue 16, pins; proves S41, S42, S28, S62 with pins. `run --pin` pins a typed note (a new session, no
// request; the note joins the history as a pinned_context). A resumed run whose tool loop compacts
// automatically twice: its first request carries the note once, before the person's words; each resumed
// request carries the summary, then the note verbatim, then the person's words, once each. A manual
// compaction in a third run (the pins come back from the transcript) puts the note after its summary. After
// `--unpin`, a compaction's replacement is the seed's bytes again.
void TestHeadlessCompaction::pinnedNoteTravelsAfterEveryCompactionAcrossResume()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    const QString note = QStringLiteral("PINNED-NOTE: never edit vendor/; the build must stay green");

    HeadlessRun pinRun(rig);
    HeadlessRunner::Options pin;
    pin.pins = {note};
    pin.launch.workspace = rig.workspace();
    QCOMPARE(pinRun.runGuarded(pin), int(HeadlessRunner::Success));
    QCOMPARE(rig.server().requests().size(), 0);
    const QString sessionId = pinRun.runner.session().sessionId();
    QVERIFY(!sessionId.isEmpty());
    QVERIFY2(pinRun.err.contains(QStringLiteral("Pinned pin-")), qPrintable(pinRun.err));

    // --pins --format json lists it with the budget: 10% of the input budget by default.
    HeadlessRun list(rig);
    HeadlessRunner::Options listing;
    listing.listPins = true;
    listing.json = true;
    listing.launch.sessionId = sessionId;
    listing.launch.workspace = rig.workspace();
    QCOMPARE(list.runGuarded(listing), int(HeadlessRunner::Success));
    const QJsonObject pins = QJsonDocument::fromJson(list.out.toUtf8()).object();
    QCOMPARE(pins.value(QStringLiteral("pin_budget")).toInteger(),
             ContextBudget::inputBudget(SmallWindow) / 10);
    const QJsonArray listed = pins.value(QStringLiteral("pins")).toArray();
    QCOMPARE(listed.size(), 1);
    QCOMPARE(listed.first().toObject().value(QStringLiteral("text")).toString(), note);
    QCOMPARE(listed.first().toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("note"));
    const QString pinId = listed.first().toObject().value(QStringLiteral("id")).toString();

    // A tool loop that compacts automatically twice, in a resumed session.
    HeadlessRun headless(rig);
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-ONE")),
         ProviderScript::toolCall(provider, QStringLiteral("call_2"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-TWO")),
         ProviderScript::text(provider, QStringLiteral("Read it twice."))});
    HeadlessRunner::Options turn;
    turn.prompt = QStringLiteral("read big.txt twice");
    turn.launch.sessionId = sessionId;
    turn.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(turn), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Read it twice.\n"));
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 5);
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(1).json.object()),
             CompactionPrompts::automaticPrompt());
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(3).json.object()),
             CompactionPrompts::automaticPrompt());
    // The note is in none of the history's messages, so it joined the history when it was pinned (a
    // pinned_context, as a compaction's replacement words it): the first request carries it once, before the
    // person's words, and so does the compaction request that request is the prefix of (S37). It used to
    // reach the model only with the first compaction, unlike a note pinned after one.
    for (const int index : {0, 1}) {
        const QByteArray body = requests.at(index).body;
        QCOMPARE(body.count(note.toUtf8()), 1);
        QVERIFY(body.indexOf(note.toUtf8()) < body.indexOf("read big.txt twice"));
    }
    for (const auto &[index, summary] :
         {std::pair{2, QByteArray("SUMMARY-ONE")}, {4, QByteArray("SUMMARY-TWO")}}) {
        const QByteArray body = requests.at(index).body;
        QCOMPARE(body.count(note.toUtf8()), 1);
        QCOMPARE(body.count("read big.txt twice"), 1);
        QVERIFY2(body.indexOf(summary) >= 0 && body.indexOf(summary) < body.indexOf(note.toUtf8()),
                 body.left(2000).constData());
        QVERIFY(body.indexOf(note.toUtf8()) < body.indexOf("read big.txt twice"));
    }
    QVERIFY(!requests.at(4).body.contains("SUMMARY-ONE"));

    // A third run: the pin comes back from the transcript and follows a manual compaction's summary.
    HeadlessRun manual(rig);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nMANUAL-SUMMARY"))});
    HeadlessRunner::Options compact;
    compact.compact = true;
    compact.launch.sessionId = sessionId;
    compact.launch.workspace = rig.workspace();
    QCOMPARE(manual.runGuarded(compact), int(HeadlessRunner::Success));
    AgentSession &session = manual.runner.session();
    QCOMPARE(session.pins().size(), 1);
    QCOMPARE(session.pins().first().text, note);
    const MessageList expected{Message::user(CompactionPrompts::manualReplacement(
        QStringLiteral("## Goal\nMANUAL-SUMMARY"), CompactionPrompts::pinnedContext(session.pins())))};
    QCOMPARE(session.messages(), expected);
    auto loaded = session.sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(loaded->events.constLast().messages(), expected);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Next done."))});
    HeadlessRunner::Options next = turn;
    next.prompt = QStringLiteral("next step");
    QCOMPARE(manual.runGuarded(next), int(HeadlessRunner::Success));
    const QByteArray body = rig.server().lastRequest().body;
    QVERIFY(body.indexOf("MANUAL-SUMMARY") < body.indexOf(note.toUtf8()));
    QVERIFY(body.indexOf(note.toUtf8()) < body.indexOf("next step"));

    // Unpinned: the next compaction's replacement is the seed's, byte for byte (S28).
    HeadlessRun unpin(rig);
    HeadlessRunner::Options removal;
    removal.unpins = {pinId};
    removal.launch.sessionId = sessionId;
    removal.launch.workspace = rig.workspace();
    QCOMPARE(unpin.runGuarded(removal), int(HeadlessRunner::Success));
    QVERIFY(unpin.runner.session().pins().isEmpty());
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nPLAIN-SUMMARY"))});
    QCOMPARE(unpin.runGuarded(compact), int(HeadlessRunner::Success));
    loaded = unpin.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(loaded->events.constLast().messages(),
             MessageList{Message::user(QStringLiteral("## Goal\nPLAIN-SUMMARY"))});
    QStringList expectedKinds{QStringLiteral("session_started"), QStringLiteral("pin_added"),
                              QStringLiteral("pinned_context"),  QStringLiteral("user_message"),
                              QStringLiteral("assistant_turn"),  QStringLiteral("compaction_applied"),
                              QStringLiteral("assistant_turn"),  QStringLiteral("compaction_applied"),
                              QStringLiteral("assistant_turn"),  QStringLiteral("compaction_applied"),
                              QStringLiteral("user_message"),    QStringLiteral("assistant_turn"),
                              QStringLiteral("pin_removed"),     QStringLiteral("compaction_applied")};
    QCOMPARE(kinds(loaded->events), expectedKinds);
}

// Issue 16, pins: a pin that would take the pins over their budget (10% of the input budget) is refused with
// the numbers on stderr and a failing exit, and nothing is written; a larger pin_budget_percent lets it in.
void TestHeadlessCompaction::pinThatDoesNotFitIsRefused_data()
{
    ProviderScript::addProviderRows();
}

void TestHeadlessCompaction::pinThatDoesNotFitIsRefused()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    const qint64 budget = ContextBudget::inputBudget(SmallWindow) / 10; // 2,990 tokens, about 9,000 bytes
    HeadlessRun first(rig);
    HeadlessRunner::Options small;
    small.pins = {QStringLiteral("keep the public API")};
    small.launch.workspace = rig.workspace();
    QCOMPARE(first.runGuarded(small), int(HeadlessRunner::Success));
    const QString sessionId = first.runner.session().sessionId();
    const QByteArray transcript = readAll(first.runner.session().transcriptPath());

    HeadlessRun refused(rig);
    HeadlessRunner::Options large;
    large.pins = {QString(9000, QLatin1Char('x'))};
    large.launch.sessionId = sessionId;
    large.launch.workspace = rig.workspace();
    QCOMPARE(refused.runGuarded(large), int(HeadlessRunner::Failure));
    QVERIFY2(refused.err.contains(QStringLiteral("does not fit")), qPrintable(refused.err));
    QVERIFY2(refused.err.contains(QLocale().toString(budget)), qPrintable(refused.err));
    QCOMPARE(readAll(refused.runner.session().transcriptPath()), transcript); // nothing written
    QCOMPARE(refused.runner.session().pins().size(), 1);

    HeadlessRun roomier(rig);
    roomier.runner.session().setPinBudgetPercent(50);
    QCOMPARE(roomier.runGuarded(large), int(HeadlessRunner::Success));
    QCOMPARE(roomier.runner.session().pins().size(), 2);
    QVERIFY(roomier.runner.session().pinnedTokens() > budget);
}

void TestHeadlessCompaction::droppedDetailsAreRecordedAndReported_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, what was dropped: an automatic compaction inside a tool loop whose summary leaves out a path,
// an error line, an identifier and a number of a tool output. `run --format json` has them in the
// compaction's record, the transcript keeps them on compaction_applied (found again by a resumed session),
// text mode prints one line on stderr after the compaction; a manual compaction (`run --compact --format
// json`) records its own. The final text stays as the seed has it (S58).
void TestHeadlessCompaction::droppedDetailsAreRecordedAndReported()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    {
        QFile details(QDir(rig.workspace()).filePath(QStringLiteral("details.txt")));
        QVERIFY(details.open(QIODevice::WriteOnly));
        details.write("build log\nsrc/parser/lexer.cpp:88: error: unexpected token at offset 4711\n"
                      "see ParserState::reset for the recovery\n");
    }
    HeadlessRun headless(rig);
    const QString readDetails = arguments({{QStringLiteral("path"), QStringLiteral("details.txt")}});
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"),
                                  readDetails),
         ProviderScript::toolCall(provider, QStringLiteral("call_2"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nRead the files.")),
         ProviderScript::text(provider, QStringLiteral("Both read."))});
    QCOMPARE(headless.run(QStringLiteral("read details.txt then big.txt"), true),
             int(HeadlessRunner::Success));
    const QJsonObject line = QJsonDocument::fromJson(headless.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("text")).toString(), QStringLiteral("Both read."));
    const QJsonArray compactions = line.value(QStringLiteral("compactions")).toArray();
    QCOMPARE(compactions.size(), 1);
    const QJsonObject record = compactions.first().toObject();
    QCOMPARE(record.value(QStringLiteral("automatic")).toBool(), true);
    const QList<DroppedDetail> dropped =
        fromJsonArray<DroppedDetail>(record.value(QStringLiteral("dropped")).toArray());
    auto has = [&](const QList<DroppedDetail> &list, DroppedDetail::Kind kind, const QString &text) {
        return std::any_of(list.cbegin(), list.cend(), [&](const DroppedDetail &detail) {
            return detail.kind == kind && detail.text.contains(text);
        });
    };
    QVERIFY(has(dropped, DroppedDetail::Kind::Path, QStringLiteral("src/parser/lexer.cpp")));
    QVERIFY(has(dropped, DroppedDetail::Kind::Error, QStringLiteral("unexpected token at offset 4711")));
    QVERIFY(has(dropped, DroppedDetail::Kind::Identifier, QStringLiteral("ParserState::reset")));
    QVERIFY(has(dropped, DroppedDetail::Kind::Number, QStringLiteral("4711")));
    for (const DroppedDetail &detail : dropped)
        QVERIFY(!QStringLiteral("## Goal\nRead the files.").contains(detail.text));

    const QString sessionId = headless.runner.session().sessionId();
    auto loaded = headless.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    const SessionEvent *applied = nullptr;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            applied = &event;
    }
    QVERIFY(applied);
    QCOMPARE(applied->compaction()->dropped, dropped);
    QCOMPARE(qint64(applied->seq), record.value(QStringLiteral("seq")).toInteger());

    // Text mode: one line after the compaction, on stderr; stdout is the final text only.
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_3"), QStringLiteral("read_file"),
                                  readDetails),
         ProviderScript::toolCall(provider, QStringLiteral("call_4"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nAgain.")),
         ProviderScript::text(provider, QStringLiteral("Read again."))});
    HeadlessRunner::Options again;
    again.prompt = QStringLiteral("read them again");
    again.launch.sessionId = sessionId;
    again.launch.workspace = rig.workspace();
    headless.out.clear();
    headless.err.clear();
    QCOMPARE(headless.runGuarded(again), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Read again.\n"));
    QVERIFY2(headless.err.contains(QStringLiteral("Not in the summary: ")), qPrintable(headless.err));
    QVERIFY2(headless.err.contains(QStringLiteral(", 1 error line, ")), qPrintable(headless.err));
    QCOMPARE(headless.err.count(QStringLiteral("Not in the summary: ")), 1);

    // A manual compaction records what its summary left out of the history it replaced.
    HeadlessRun manual(rig);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Checked ParserState::reset again."))});
    HeadlessRunner::Options check = again;
    check.prompt = QStringLiteral("check src/parser/lexer.cpp once more");
    QCOMPARE(manual.runGuarded(check), int(HeadlessRunner::Success));
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nManual."))});
    HeadlessRunner::Options compact;
    compact.compact = true;
    compact.json = true;
    compact.launch.sessionId = sessionId;
    compact.launch.workspace = rig.workspace();
    manual.out.clear();
    QCOMPARE(manual.runGuarded(compact), int(HeadlessRunner::Success));
    const QJsonArray manualRecords =
        QJsonDocument::fromJson(manual.out.toUtf8()).object().value(QStringLiteral("compactions")).toArray();
    QCOMPARE(manualRecords.size(), 1);
    QCOMPARE(manualRecords.first().toObject().value(QStringLiteral("automatic")).toBool(), false);
    const QList<DroppedDetail> manualDropped = fromJsonArray<DroppedDetail>(
        manualRecords.first().toObject().value(QStringLiteral("dropped")).toArray());
    QVERIFY(has(manualDropped, DroppedDetail::Kind::Path, QStringLiteral("src/parser/lexer.cpp")));
    QVERIFY(has(manualDropped, DroppedDetail::Kind::Identifier, QStringLiteral("ParserState::reset")));
    loaded = manual.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(loaded->events.constLast().compaction()->dropped, manualDropped);
}

// Issue 16, what was dropped, headless: `run --session ID --dropped` lists, numbered, what the summary of the
// compaction in effect left out (text: "N<TAB>kind<TAB>detail" on stdout; json: compaction_seq and the
// details), and `--pin-dropped N` pins detail N's original text as the window's Pin the Original does. A
// number out of range and a session whose compaction was undone are refused with a clear message, nothing
// pinned.
// Audit 2026-12-06: pins over their budget after a compaction (here the budget lowered from 10% to 1% of the
// input budget, as a smaller model would) were warned about after every compaction of a tool loop. Every pin
// is still kept; stderr says it once, with the numbers.
void TestHeadlessCompaction::pinsOverBudgetAreWarnedOnceInAToolLoop_data()
{
    ProviderScript::addProviderRows();
}

void TestHeadlessCompaction::pinsOverBudgetAreWarnedOnceInAToolLoop()
{
    QFETCH(QString, provider);
    constexpr int Reads = 3;
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    const QString note =
        QStringLiteral("PIN-LONG: ") + QStringLiteral("keep the parser's API. ").repeated(120);
    HeadlessRunner::Options pin;
    pin.pins = {note};
    pin.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(pin), int(HeadlessRunner::Success));
    QVERIFY2(!headless.err.contains(QStringLiteral("Warning: the pins take")), qPrintable(headless.err));
    headless.err.clear();
    QList<FakeProviderServer::Response> script;
    for (int i = 1; i <= Reads; ++i) {
        const QString readBig =
            arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}, {QStringLiteral("offset"), i}});
        script.append(ProviderScript::toolCall(provider, QStringLiteral("call_%1").arg(i),
                                               QStringLiteral("read_file"), readBig));
        script.append(ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-%1-END").arg(i)));
    }
    script.append(ProviderScript::text(provider, QStringLiteral("Read it %1 times.").arg(Reads)));
    rig.enqueue(script);
    AgentSession &session = headless.runner.session();
    session.setPinBudgetPercent(1);
    QVERIFY(session.pinnedTokens() > session.pinBudget());
    HeadlessRunner::Options turn;
    turn.prompt = QStringLiteral("read big.txt again and again");
    turn.launch.sessionId = session.sessionId();
    turn.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(turn), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Read it %1 times.\n").arg(Reads));

    auto loaded = session.sessionStore().load(session.sessionId());
    QVERIFY(loaded);
    int applied = 0;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied) {
            ++applied;
            QCOMPARE(event.messages().constLast().content.count(note), 1); // kept, every time
        }
    }
    QCOMPARE(applied, Reads);
    const QString warning =
        QStringLiteral("Warning: the pins take about %1 tokens, over their budget of %2; every pin was kept.")
            .arg(session.pinnedTokens())
            .arg(session.pinBudget());
    QVERIFY2(headless.err.count(warning) == 1, qPrintable(headless.err));
    QCOMPARE(headless.err.count(QStringLiteral("Warning: the pins take")), 1);
}

void TestHeadlessCompaction::droppedDetailsAreListedAndPinnedFromTheCommandLine_data()
{
    ProviderScript::addProviderRows();
}

void TestHeadlessCompaction::droppedDetailsAreListedAndPinnedFromTheCommandLine()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    HeadlessRun headless(rig);
    rig.enqueue({ProviderScript::text(
        rig.provider(),
        QStringLiteral("The log says:\nsrc/parser/lexer.cpp:88: error: unexpected token at offset "
                       "4711\nI will look at the lexer next."))});
    QCOMPARE(headless.run(QStringLiteral("why does the build fail?")), int(HeadlessRunner::Success));
    AgentSession &session = headless.runner.session();
    const QString sessionId = session.sessionId();
    HeadlessRunner::Options options;
    options.launch.sessionId = sessionId;
    options.launch.workspace = rig.workspace();
    HeadlessRunner::Options compact = options;
    compact.compact = true;
    rig.enqueue({ProviderScript::text(rig.provider(), QStringLiteral("## Goal\nFind the build failure."))});
    QCOMPARE(headless.runGuarded(compact), int(HeadlessRunner::Success));
    auto loaded = session.sessionStore().load(sessionId);
    QVERIFY(loaded);
    const SessionEvent applied = loaded->events.constLast();
    QCOMPARE(applied.kind, SessionEvent::Kind::CompactionApplied);
    const QList<DroppedDetail> dropped = applied.compaction()->dropped;
    QVERIFY(dropped.size() >= 3);

    // Text: one numbered line per detail, in the saved order; the hint on stderr.
    HeadlessRunner::Options list = options;
    list.listDropped = true;
    headless.out.clear();
    headless.err.clear();
    QCOMPARE(headless.runGuarded(list), int(HeadlessRunner::Success));
    const QStringList lines = headless.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), dropped.size());
    int errorNumber = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QStringList fields = lines.at(i).split(QLatin1Char('\t'));
        QCOMPARE(fields.size(), 3);
        QCOMPARE(fields.at(0), QString::number(i + 1));
        QCOMPARE(fields.at(1), DroppedDetail::kindName(dropped.at(i).kind));
        QCOMPARE(fields.at(2), dropped.at(i).text.simplified());
        if (dropped.at(i).kind == DroppedDetail::Kind::Error)
            errorNumber = int(i + 1);
    }
    QVERIFY2(errorNumber > 0, qPrintable(headless.out));
    QVERIFY2(lines.at(errorNumber - 1).contains(QStringLiteral("unexpected token at offset 4711")),
             qPrintable(headless.out));
    QVERIFY2(headless.err.contains(QStringLiteral("--pin-dropped N")), qPrintable(headless.err));
    QVERIFY(session.pins().isEmpty()); // listing pins nothing

    // JSON: the same details and the compaction they belong to.
    list.json = true;
    headless.out.clear();
    QCOMPARE(headless.runGuarded(list), int(HeadlessRunner::Success));
    const QJsonObject line = QJsonDocument::fromJson(headless.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("compaction_seq")).toInteger(), qint64(applied.seq));
    QCOMPARE(fromJsonArray<DroppedDetail>(line.value(QStringLiteral("dropped")).toArray()), dropped);

    // A number past the list: refused, nothing pinned.
    HeadlessRunner::Options pinTooFar = options;
    pinTooFar.pinDropped = {int(dropped.size()) + 1};
    headless.err.clear();
    QCOMPARE(headless.runGuarded(pinTooFar), int(HeadlessRunner::Failure));
    QVERIFY2(headless.err.contains(QStringLiteral("left out %1 details (see --dropped)").arg(dropped.size())),
             qPrintable(headless.err));
    QVERIFY(session.pins().isEmpty());

    // Pin the Original: the excerpt around the error line, verbatim, saved as a detail pin.
    HeadlessRunner::Options pin = options;
    pin.pinDropped = {errorNumber};
    headless.err.clear();
    QCOMPARE(headless.runGuarded(pin), int(HeadlessRunner::Success));
    QVERIFY2(headless.err.contains(QStringLiteral("Pinned ")), qPrintable(headless.err));
    QCOMPARE(session.pins().size(), 1);
    QCOMPARE(session.pins().constFirst().kind, Pin::Kind::Detail);
    QCOMPARE(session.pins().constFirst().text, dropped.at(errorNumber - 1).excerpt);
    QVERIFY(session.pins().constFirst().text.contains(QStringLiteral("unexpected token at offset 4711")));
    loaded = session.sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(SessionPins::active(loaded->events), session.pins());

    // Undone, the session has no compaction in effect: nothing to list or pin.
    HeadlessRunner::Options undo = options;
    undo.undoCompaction = true;
    QCOMPARE(headless.runGuarded(undo), int(HeadlessRunner::Success));
    list.json = false;
    headless.out.clear();
    headless.err.clear();
    QCOMPARE(headless.runGuarded(list), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QString());
    QVERIFY2(headless.err.contains(QStringLiteral("has no compaction in effect")), qPrintable(headless.err));
    headless.err.clear();
    QCOMPARE(headless.runGuarded(pin), int(HeadlessRunner::Failure));
    QVERIFY2(headless.err.contains(QStringLiteral("has no compaction in effect")), qPrintable(headless.err));
    QCOMPARE(session.pins().size(), 1);

    // The flags as typed.
    auto parsed = HeadlessRunner::parseArguments(
        {QStringLiteral("--session"), sessionId, QStringLiteral("--pin-dropped"), QStringLiteral("2"),
         QStringLiteral("--pin-dropped=3"), QStringLiteral("--dropped")},
        QString());
    QVERIFY(parsed);
    QCOMPARE(parsed->pinDropped, (QList<int>{2, 3}));
    QVERIFY(parsed->listDropped);
    QVERIFY(parsed->prompt.isEmpty());
    parsed = HeadlessRunner::parseArguments(
        {QStringLiteral("--session"), sessionId, QStringLiteral("--pin-dropped"), QStringLiteral("two")},
        QString());
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(QStringLiteral("number of a detail")), qPrintable(parsed.error()));
    parsed = HeadlessRunner::parseArguments({QStringLiteral("--dropped")}, QString());
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(QStringLiteral("need --session ID")), qPrintable(parsed.error()));
}

void TestHeadlessCompaction::reviewBeforeItAppliesFromTheCommandLine_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16, review before it applies, headless: `run --session ID --compact --review` applies nothing until
// the person answers on standard input. Cancel, or the end of the input, leaves history and transcript as
// they were (S30); an unknown answer and a failed editor are said and asked again; regenerate sends the
// compaction request again with the new focus; edit opens $VISUAL on the summary and applies what was saved,
// recorded as edited; accept with --format json shows the summary on stderr and applies it as streamed.
void TestHeadlessCompaction::reviewBeforeItAppliesFromTheCommandLine()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    HeadlessRun headless(rig);
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("The lexer fails at offset 4711."))});
    QCOMPARE(headless.run(QStringLiteral("why does the build fail?")), int(HeadlessRunner::Success));
    AgentSession &session = headless.runner.session();
    const QString sessionId = session.sessionId();
    const MessageList before = session.messages();
    const qsizetype eventsBefore = session.sessionStore().load(sessionId)->events.size();
    QStringList answers;
    headless.runner.setReviewLineReader([&answers]() -> std::optional<QString> {
        if (answers.isEmpty())
            return std::nullopt;
        return answers.takeFirst();
    });
    HeadlessRunner::Options review;
    review.compact = true;
    review.review = true;
    review.launch.sessionId = sessionId;
    review.launch.workspace = rig.workspace();

    // Cancel, then the end of the input: nothing applied, nothing written.
    for (const QStringList &script : {QStringList{QStringLiteral("c")}, QStringList()}) {
        answers = script;
        headless.err.clear();
        rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nNOT-APPLIED"))});
        QCOMPARE(headless.runGuarded(review), int(HeadlessRunner::Failure));
        QVERIFY2(headless.err.contains(QStringLiteral("[a]ccept, [e]dit, [r]egenerate FOCUS, [c]ancel? ")),
                 qPrintable(headless.err));
        QVERIFY2(headless.err.contains(QStringLiteral("would replace 2 messages")), qPrintable(headless.err));
        if (script.isEmpty())
            QVERIFY2(headless.err.contains(QStringLiteral("no answer on standard input")),
                     qPrintable(headless.err));
        QCOMPARE(session.messages(), before);
        QCOMPARE(session.sessionStore().load(sessionId)->events.size(), eventsBefore);
    }

    // An unknown answer and a failing editor are asked again; regenerate asks the model again with the new
    // focus; edit applies what the editor saved.
    QTemporaryDir scripts;
    const QString failing = scripts.filePath(QStringLiteral("failing.sh"));
    const QString editing = scripts.filePath(QStringLiteral("editing.sh"));
    for (const auto &[path, body] :
         {std::pair{failing, QByteArray("exit 3\n")},
          std::pair{editing, QByteArray("grep -q FIRST-SUMMARY \"$1\" && exit 4\n"
                                        "grep -q SECOND-SUMMARY \"$1\" || exit 5\n"
                                        "printf '## Goal\\nEDITED-SUMMARY\\n' > \"$1\"\n")}}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(body);
    }
    const QByteArray visualBefore = qgetenv("VISUAL");
    const auto restoreVisual = qScopeGuard([&] { qputenv("VISUAL", visualBefore); });
    qputenv("VISUAL", QByteArrayLiteral("sh ") + failing.toUtf8());
    answers = {QStringLiteral("maybe"), QStringLiteral("e"), QStringLiteral("r the lexer error")};
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nFIRST-SUMMARY")),
                 ProviderScript::text(provider, QStringLiteral("## Goal\nSECOND-SUMMARY"))});
    headless.out.clear();
    headless.err.clear();
    // The editor is chosen when asked: the second review opens the one that edits.
    QObject::connect(&session, &AgentSession::compactionReviewRequested, &headless.runner,
                     [&](const QString &summary) {
                         if (summary.contains(QStringLiteral("SECOND-SUMMARY"))) {
                             qputenv("VISUAL", QByteArrayLiteral("sh ") + editing.toUtf8());
                             answers = {QStringLiteral("edit")};
                         }
                     });
    const qsizetype requestsBefore = rig.server().requests().size();
    QCOMPARE(headless.runGuarded(review), int(HeadlessRunner::Success));
    QVERIFY2(headless.err.contains(QStringLiteral("\"maybe\" is not an answer here.")),
             qPrintable(headless.err));
    QVERIFY2(headless.err.contains(QStringLiteral("exited with code 3")), qPrintable(headless.err));
    QCOMPARE(rig.server().requests().size(), requestsBefore + 2);
    QVERIFY(rig.server().lastRequest().body.contains("the lexer error"));
    QCOMPARE(headless.out.trimmed(), QStringLiteral("## Goal\nEDITED-SUMMARY"));
    auto loaded = session.sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(loaded->events.constLast().kind, SessionEvent::Kind::CompactionApplied);
    QVERIFY(loaded->events.constLast().compaction()->summaryEdited);
    QCOMPARE(session.messages().size(), 1);
    QVERIFY(session.messages().constFirst().content.contains(QStringLiteral("EDITED-SUMMARY")));
    QVERIFY(!session.messages().constFirst().content.contains(QStringLiteral("SECOND-SUMMARY")));

    // Accepted as streamed, with --format json: the summary is shown on stderr before the question.
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Noted."))});
    QCOMPARE(headless.runGuarded([&] {
        HeadlessRunner::Options next = review;
        next.compact = next.review = false;
        next.prompt = QStringLiteral("go on");
        return next;
    }()),
             int(HeadlessRunner::Success));
    answers = {QStringLiteral("accept")};
    review.json = true;
    headless.out.clear();
    headless.err.clear();
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nTHIRD-SUMMARY"))});
    QCOMPARE(headless.runGuarded(review), int(HeadlessRunner::Success));
    QVERIFY2(headless.err.indexOf(QStringLiteral("THIRD-SUMMARY")) >= 0 &&
                 headless.err.indexOf(QStringLiteral("THIRD-SUMMARY")) <
                     headless.err.indexOf(QStringLiteral("[a]ccept")),
             qPrintable(headless.err));
    const QJsonObject line = QJsonDocument::fromJson(headless.out.toUtf8()).object();
    QCOMPARE(line.value(QStringLiteral("compactions")).toArray().size(), 1);
    loaded = session.sessionStore().load(sessionId);
    QVERIFY(!loaded->events.constLast().compaction()->summaryEdited);
    QVERIFY(session.messages().constFirst().content.contains(QStringLiteral("THIRD-SUMMARY")));

    // The flag belongs to --compact.
    const auto parsed = HeadlessRunner::parseArguments(
        {QStringLiteral("--session"), sessionId, QStringLiteral("--review"), QStringLiteral("hello")},
        QString());
    QVERIFY(!parsed);
    QVERIFY2(parsed.error().contains(QStringLiteral("--review goes with --compact")),
             qPrintable(parsed.error()));
}

void TestHeadlessCompaction::pinAfterACompactionReachesTheNextRequestOnceAcrossResume_data()
{
    ProviderScript::addProviderRows();
}

// Found by a tester: Pin the Original re-injects what a summary left out, yet the model got it only with the
// next compaction. Pinned after a compaction, the excerpt is in the very next request (after the summary,
// before the person's words, in the replacement's <pinned_context> form) and counted in the estimate; a
// resumed session rebuilds the same history and sends it again; after a further compaction it travels
// once, in that compaction's pins. A pin whose text the history still holds is not added again.
void TestHeadlessCompaction::pinAfterACompactionReachesTheNextRequestOnceAcrossResume()
{
    QFETCH(QString, provider);
    Rig rig(provider, LargeWindow);
    const QByteArray marker("unexpected token at offset 4711");
    HeadlessRun headless(rig);
    rig.enqueue({ProviderScript::text(
        provider, QStringLiteral("The log says:\nsrc/parser/lexer.cpp:88: error: unexpected token at offset "
                                 "4711\nI will look at the lexer next."))});
    QCOMPARE(headless.run(QStringLiteral("why does the build fail?")), int(HeadlessRunner::Success));
    AgentSession &session = headless.runner.session();
    const QString sessionId = session.sessionId();
    HeadlessRunner::Options compact;
    compact.compact = true;
    compact.launch.sessionId = sessionId;
    compact.launch.workspace = rig.workspace();
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-ONE"))});
    QCOMPARE(headless.runGuarded(compact), int(HeadlessRunner::Success));
    auto loaded = session.sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(loaded->events.constLast().kind, SessionEvent::Kind::CompactionApplied);
    QString excerpt;
    for (const DroppedDetail &detail : loaded->events.constLast().compaction()->dropped) {
        if (detail.kind == DroppedDetail::Kind::Error)
            excerpt = detail.excerpt;
    }
    QVERIFY2(excerpt.contains(QString::fromUtf8(marker)), qPrintable(excerpt));
    QVERIFY(!session.messages().constFirst().content.contains(QString::fromUtf8(marker)));

    // Pin the Original, as the dropped-details list does.
    const qint64 userTokensBefore = session.contextBreakdown().userTokens;
    Pin original;
    original.kind = Pin::Kind::Detail;
    original.text = excerpt;
    QSignalSpy added(&session, &AgentSession::pinAdded);
    QVERIFY(session.addPin(original));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !added.isEmpty(); }, 20000));
    const Message pinned = Message::user(CompactionPrompts::pinnedContext(session.pins()));
    QCOMPARE(session.messages().constLast(), pinned);
    QCOMPARE(session.contextBreakdown().userTokens,
             userTokensBefore + AgentSession::pinTokens(session.pins()));

    HeadlessRunner::Options next;
    next.prompt = QStringLiteral("NEXT-PROMPT");
    next.launch.sessionId = sessionId;
    next.launch.workspace = rig.workspace();
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Going on."))});
    QCOMPARE(headless.runGuarded(next), int(HeadlessRunner::Success));
    QByteArray body = rig.server().lastRequest().body;
    QCOMPARE(body.count(marker), 1);
    QVERIFY(body.indexOf("SUMMARY-ONE") < body.indexOf(marker));
    QVERIFY(body.indexOf(marker) < body.indexOf("NEXT-PROMPT"));

    // A message the history still holds: pinned, not added to it again.
    Pin reply;
    reply.kind = Pin::Kind::Message;
    reply.text = QStringLiteral("Going on.");
    QVERIFY(session.addPin(reply));
    QVERIFY(FakeProviderServer::spinUntil([&] { return added.size() == 2; }, 20000));
    const MessageList live = session.messages();
    QCOMPARE(live.count(pinned), 1);

    // Resumed: the same history, and the excerpt in its request.
    HeadlessRun resumed(rig);
    next.prompt = QStringLiteral("RESUMED-PROMPT");
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Resumed."))});
    QCOMPARE(resumed.runGuarded(next), int(HeadlessRunner::Success));
    QCOMPARE(resumed.runner.session().messages().mid(0, live.size()), live);
    body = rig.server().lastRequest().body;
    QCOMPARE(body.count(marker), 1);
    QVERIFY(body.indexOf(marker) < body.indexOf("RESUMED-PROMPT"));

    // A further compaction carries the pins once, after its summary; the excerpt is not there twice.
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-TWO"))});
    QCOMPARE(resumed.runGuarded(compact), int(HeadlessRunner::Success));
    next.prompt = QStringLiteral("AFTER-PROMPT");
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("After."))});
    QCOMPARE(resumed.runGuarded(next), int(HeadlessRunner::Success));
    body = rig.server().lastRequest().body;
    QCOMPARE(body.count(marker), 1);
    QCOMPARE(body.count("<pinned_context>"), 1);
    QVERIFY(!body.contains("SUMMARY-ONE"));
    QVERIFY(body.indexOf("SUMMARY-TWO") < body.indexOf(marker));
    QVERIFY(body.indexOf(marker) < body.indexOf("AFTER-PROMPT"));

    loaded = resumed.runner.session().sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(kinds(loaded->events).count(QStringLiteral("pinned_context")), 1);
}

void TestHeadlessCompaction::notePinnedBeforeAnyCompactionReachesTheNextRequestOnceAcrossResume_data()
{
    ProviderScript::addProviderRows();
}

// Found from the person's side: a note pinned before any compaction ("always use tabs") reached the model
// only with the first compaction, while one pinned after a compaction went in with the next request. The
// rule is now the same: a note the history does not hold joins it when it is pinned (a pinned_context, in
// the replacement's form), so the next request carries it once, before the person's words, and it is counted
// in the estimate; a resumed session rebuilds the same history and sends it once. A pinned message the
// history still holds adds nothing. A note pinned right before the next message (its pinned_context the
// user message just before the person's words) does not pass for the latest user message in an automatic
// compaction: the replacement keeps the real one last (S42), the compaction request is the parent request
// plus the prompt (S37), and after it every pin is carried exactly once, after the summary.
void TestHeadlessCompaction::notePinnedBeforeAnyCompactionReachesTheNextRequestOnceAcrossResume()
{
    QFETCH(QString, provider);
    Rig rig(provider, SmallWindow);
    const QString reply = QStringLiteral("REPLY-ONE: the build uses CMake and Ninja.");
    HeadlessRun headless(rig);
    rig.enqueue({ProviderScript::text(provider, reply)});
    QCOMPARE(headless.run(QStringLiteral("FIRST-PROMPT")), int(HeadlessRunner::Success));
    AgentSession &session = headless.runner.session();
    const QString sessionId = session.sessionId();
    QCOMPARE(session.undoableCompaction(), quint64(0)); // no compaction yet

    // A typed note, as /pin and the Pins dialog make it: in the history at once, counted in the estimate.
    const QString note = QStringLiteral("NOTE-BEFORE: always use tabs, never spaces");
    const QByteArray marker = note.toUtf8();
    // (The session's own estimate is anchored to the provider's last reported usage until the next request,
    // so the history it measures is measured here without that anchor.)
    auto userTokens = [&session] {
        return ContextEstimator::breakdown(QString(), session.tools(), session.messages(), SmallWindow,
                                           std::nullopt)
            .userTokens;
    };
    const qint64 userTokensBefore = userTokens();
    Pin typed;
    typed.text = note;
    QSignalSpy added(&session, &AgentSession::pinAdded);
    QVERIFY(session.addPin(typed));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !added.isEmpty(); }, 20000));
    const Message pinned = Message::user(CompactionPrompts::pinnedContext(session.pins()));
    QCOMPARE(session.messages().constLast(), pinned);
    QCOMPARE(userTokens(), userTokensBefore + AgentSession::pinTokens(session.pins()));

    // A message the history still holds: pinned, nothing added to the history.
    const MessageList beforeMessagePin = session.messages();
    Pin message;
    message.kind = Pin::Kind::Message;
    message.text = reply;
    QVERIFY(session.addPin(message));
    QVERIFY(FakeProviderServer::spinUntil([&] { return added.size() == 2; }, 20000));
    QCOMPARE(session.messages(), beforeMessagePin);

    HeadlessRunner::Options next;
    next.prompt = QStringLiteral("NEXT-PROMPT");
    next.launch.sessionId = sessionId;
    next.launch.workspace = rig.workspace();
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Going on."))});
    QCOMPARE(headless.runGuarded(next), int(HeadlessRunner::Success));
    QByteArray body = rig.server().lastRequest().body;
    QCOMPARE(body.count(marker), 1);
    QCOMPARE(body.count("<pinned_context>"), 1);
    QCOMPARE(body.count(reply.toUtf8()), 1);
    QVERIFY(body.indexOf("FIRST-PROMPT") < body.indexOf(marker));
    QVERIFY(body.indexOf(marker) < body.indexOf("NEXT-PROMPT"));
    const MessageList live = session.messages();
    QCOMPARE(live.count(pinned), 1);

    // Resumed: the same history, and the note once in its request.
    HeadlessRun resumed(rig);
    next.prompt = QStringLiteral("RESUMED-PROMPT");
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("Resumed."))});
    QCOMPARE(resumed.runGuarded(next), int(HeadlessRunner::Success));
    AgentSession &again = resumed.runner.session();
    QCOMPARE(again.pins().size(), 2);
    QCOMPARE(again.messages().mid(0, live.size()), live);
    body = rig.server().lastRequest().body;
    QCOMPARE(body.count(marker), 1);
    QCOMPARE(body.count("<pinned_context>"), 1);
    QVERIFY(body.indexOf(marker) < body.indexOf("RESUMED-PROMPT"));

    // A second note right before the next message, whose tool loop then compacts automatically.
    const QString second = QStringLiteral("NOTE-SECOND: the public API stays as it is");
    Pin secondPin;
    secondPin.text = second;
    QSignalSpy addedAgain(&again, &AgentSession::pinAdded);
    QVERIFY(again.addPin(secondPin));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !addedAgain.isEmpty(); }, 20000));
    QCOMPARE(again.messages().constLast(), Message::user(CompactionPrompts::pinnedContext({secondPin})));
    QCOMPARE(again.undoableCompaction(), quint64(0));
    rig.server().clearRequests();
    const QString readBig = arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}});
    rig.enqueue(
        {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("read_file"), readBig),
         ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-ONE")),
         ProviderScript::text(provider, QStringLiteral("Read it."))});
    next.prompt = QStringLiteral("READ-BIG-PROMPT");
    QCOMPARE(resumed.runGuarded(next), int(HeadlessRunner::Success));
    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 3);
    QCOMPARE(ProviderScript::finalUserText(provider, requests.at(1).json.object()),
             CompactionPrompts::automaticPrompt());
    for (const int index : {0, 1}) { // the parent request, and the compaction request that extends it
        const QByteArray sent = requests.at(index).body;
        QCOMPARE(sent.count(marker), 1);
        QCOMPARE(sent.count(second.toUtf8()), 1);
        QVERIFY(sent.indexOf(second.toUtf8()) < sent.indexOf("READ-BIG-PROMPT"));
    }
    QVERIFY(!requests.at(2).body.isEmpty());
    const PinList pins = again.pins();
    QCOMPARE(pins.size(), 3);
    auto loaded = again.sessionStore().load(sessionId);
    QVERIFY(loaded);
    const SessionEvent *applied = nullptr;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind == SessionEvent::Kind::CompactionApplied)
            applied = &event;
    }
    QVERIFY(applied);
    // The real latest user message stays last and verbatim; the pins follow the summary once each.
    const auto replacement = CompactionPrompts::automaticReplacement(
        QStringLiteral("## Goal\nSUMMARY-ONE"), {Message::user(QStringLiteral("READ-BIG-PROMPT"))},
        CompactionPrompts::pinnedContext(pins));
    QVERIFY(replacement);
    QCOMPARE(applied->messages(), *replacement);
    const QByteArray compacted = requests.at(2).body;
    for (const QByteArray &text : {marker, second.toUtf8(), reply.toUtf8()})
        QCOMPARE(compacted.count(text), 1);
    QCOMPARE(compacted.count("<pinned_context>"), 1);
    QCOMPARE(compacted.count("READ-BIG-PROMPT"), 1);
    QVERIFY(!compacted.contains("FIRST-PROMPT"));
    QVERIFY(compacted.indexOf("SUMMARY-ONE") < compacted.indexOf(marker));
    QVERIFY(compacted.indexOf(second.toUtf8()) < compacted.indexOf("READ-BIG-PROMPT"));

    // After the compaction, the next request carries each pin exactly once, after the summary.
    next.prompt = QStringLiteral("AFTER-PROMPT");
    rig.enqueue({ProviderScript::text(provider, QStringLiteral("After."))});
    QCOMPARE(resumed.runGuarded(next), int(HeadlessRunner::Success));
    body = rig.server().lastRequest().body;
    for (const QByteArray &text : {marker, second.toUtf8(), reply.toUtf8()})
        QCOMPARE(body.count(text), 1);
    QCOMPARE(body.count("<pinned_context>"), 1);
    QVERIFY(body.indexOf("SUMMARY-ONE") < body.indexOf(marker));
    QVERIFY(body.indexOf(marker) < body.indexOf("AFTER-PROMPT"));

    loaded = again.sessionStore().load(sessionId);
    QVERIFY(loaded);
    QCOMPARE(kinds(loaded->events).count(QStringLiteral("pinned_context")), 2);
    QCOMPARE(buildConversation(loaded->events), again.messages());
}

void TestHeadlessCompaction::pinsSurviveALongToolLoop_data()
{
    ProviderScript::addProviderRows();
}

// Issue 16 at a real size; proves S41, S42, S47 with pins: one run whose tool loop reads big.txt 12 times,
// from line 1, 2, ... (each read crosses the threshold, so 12 automatic compactions in one turn) with two
// pins. Every resumed request carries its own summary, both pins once each, in pin order, then the person's
// words once; every compaction_applied holds them; nothing nests however often it compacts.
void TestHeadlessCompaction::pinsSurviveALongToolLoop()
{
    QFETCH(QString, provider);
    constexpr int Reads = 12;
    Rig rig(provider, SmallWindow);
    HeadlessRun headless(rig);
    const QString first = QStringLiteral("PIN-ONE: the public API of src/parser/parser.h stays as it is");
    const QString second = QStringLiteral("PIN-TWO: ```\nint parse(const char *text);\n```");
    HeadlessRunner::Options pin;
    pin.pins = {first, second};
    pin.launch.workspace = rig.workspace();
    QCOMPARE(headless.runGuarded(pin), int(HeadlessRunner::Success));
    QList<FakeProviderServer::Response> script;
    for (int i = 1; i <= Reads; ++i) {
        // From line i: the very same call right after each compaction would be stopped as a runaway
        // (ToolLoopClient::MaxSameRefillCompactions).
        const QString readBig =
            arguments({{QStringLiteral("path"), QStringLiteral("big.txt")}, {QStringLiteral("offset"), i}});
        script.append(ProviderScript::toolCall(provider, QStringLiteral("call_%1").arg(i),
                                               QStringLiteral("read_file"), readBig));
        script.append(ProviderScript::text(provider, QStringLiteral("## Goal\nSUMMARY-%1-END").arg(i)));
    }
    script.append(ProviderScript::text(provider, QStringLiteral("Read it %1 times.").arg(Reads)));
    rig.enqueue(script);
    HeadlessRunner::Options turn;
    turn.prompt = QStringLiteral("read big.txt again and again");
    turn.launch.sessionId = headless.runner.session().sessionId();
    turn.launch.workspace = rig.workspace();
    headless.out.clear();
    QCOMPARE(headless.runGuarded(turn), int(HeadlessRunner::Success));
    QCOMPARE(headless.out, QStringLiteral("Read it %1 times.\n").arg(Reads));

    const auto requests = rig.server().requests();
    QCOMPARE(requests.size(), 1 + 2 * Reads);
    const QByteArray one = QJsonDocument(QJsonArray{first}).toJson(QJsonDocument::Compact).mid(2).chopped(2);
    const QByteArray two = QJsonDocument(QJsonArray{second}).toJson(QJsonDocument::Compact).mid(2).chopped(2);
    for (int i = 1; i <= Reads; ++i) {
        QCOMPARE(ProviderScript::finalUserText(provider, requests.at(2 * i - 1).json.object()),
                 CompactionPrompts::automaticPrompt());
        const QByteArray body = requests.at(2 * i).body; // the request resumed after compaction i
        const QByteArray summary = QStringLiteral("SUMMARY-%1-END").arg(i).toUtf8();
        QCOMPARE(body.count(summary), 1);
        QCOMPARE(body.count(one), 1);
        QCOMPARE(body.count(two), 1);
        QCOMPARE(body.count("read big.txt again and again"), 1);
        QVERIFY(body.indexOf(summary) < body.indexOf(one));
        QVERIFY(body.indexOf(one) < body.indexOf(two));
        QVERIFY(body.indexOf(two) < body.indexOf("read big.txt again and again"));
        if (i > 1)
            QVERIFY(!body.contains(QStringLiteral("SUMMARY-%1-END").arg(i - 1).toUtf8()));
    }
    auto loaded = headless.runner.session().sessionStore().load(headless.runner.session().sessionId());
    QVERIFY(loaded);
    int applied = 0;
    for (const SessionEvent &event : std::as_const(loaded->events)) {
        if (event.kind != SessionEvent::Kind::CompactionApplied)
            continue;
        ++applied;
        const QString content = event.messages().constLast().content;
        QCOMPARE(content.count(first), 1);
        QCOMPARE(content.count(second), 1);
        // Issue 16, what was dropped: what the replacement keeps verbatim (a pinned path, big.txt of the
        // latest user message) is not listed, nor the tags of Keen's own earlier replacement in the range.
        for (const DroppedDetail &detail : event.compaction()->dropped) {
            QVERIFY2(!content.contains(detail.text), qPrintable(detail.text));
            QVERIFY2(!detail.text.contains(QStringLiteral("_context")), qPrintable(detail.text));
        }
    }
    QCOMPARE(applied, Reads);
}
