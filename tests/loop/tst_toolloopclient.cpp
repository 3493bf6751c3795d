// The shared tool loop (ToolLoopClient) end to end against the loopback fake provider, through the real
// OpenAI Chat Completions protocol: tools, retries, pending state and automatic compaction (seed "Automatic
// compaction"; reference 1.1, 2.1, 4.3 and 4.8).
#include "conversation/metatypes.h"
#include "fakeproviderserver.h"
#include "loop/compactioncommit.h"
#include "loop/compactionprompts.h"
#include "loop/contextbudget.h"
#include "loop/toolloopclient.h"
#include "providers/openai/openaichatprotocol.h"
#include "tools/toolregistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QTest>
#include <QThread>

#include <atomic>

using namespace keen;
using keen::test::FakeProviderServer;

namespace {

// A tool the model can call in these tests; it counts its runs.
class EchoTool final : public Tool
{
public:
    explicit EchoTool(std::atomic_int *runs)
        : m_runs(runs)
    {}
    QString name() const override { return QStringLiteral("echo"); }
    QString description() const override { return QStringLiteral("Echoes text back."); }
    QJsonObject inputSchema() const override
    {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                           {QStringLiteral("properties"),
                            QJsonObject{{QStringLiteral("text"),
                                         QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}},
                           {QStringLiteral("required"), QJsonArray{QStringLiteral("text")}}};
    }
    QString validateInput(const QJsonObject &input) const override
    {
        return input.contains(QStringLiteral("text"))
                   ? QString()
                   : QStringLiteral("invalid input: missing required \"text\" parameter");
    }
    ToolResult execute(const QJsonObject &input, ToolContext &) override
    {
        ++*m_runs;
        return ToolResult::success(
            QJsonObject{{QStringLiteral("echo"), input.value(QStringLiteral("text"))}});
    }

private:
    std::atomic_int *m_runs;
};

// A write tool: refused at execution in plan mode, its definition still offered.
class PretendWriteTool final : public Tool
{
public:
    explicit PretendWriteTool(std::atomic_int *runs)
        : m_runs(runs)
    {}
    QString name() const override { return QStringLiteral("write_file"); }
    QString description() const override { return QStringLiteral("Writes."); }
    QJsonObject inputSchema() const override
    {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}};
    }
    bool isWriteTool() const override { return true; }
    ToolResult execute(const QJsonObject &, ToolContext &) override
    {
        ++*m_runs;
        return ToolResult::success(QJsonObject());
    }

private:
    std::atomic_int *m_runs;
};

QByteArray sse(const QJsonObject &object)
{
    return "data: " + QJsonDocument(object).toJson(QJsonDocument::Compact) + "\n\n";
}

QJsonObject choice(const QJsonObject &delta, const QJsonValue &finish = QJsonValue::Null)
{
    return QJsonObject{
        {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                           {QStringLiteral("delta"), delta},
                                                           {QStringLiteral("finish_reason"), finish}}}}};
}

QByteArray usageChunk(int prompt, int completion)
{
    return sse(QJsonObject{
        {QStringLiteral("choices"), QJsonArray()},
        {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), prompt},
                                              {QStringLiteral("completion_tokens"), completion},
                                              {QStringLiteral("total_tokens"), prompt + completion}}}});
}

QByteArray textBody(const QStringList &pieces, int promptTokens = 10)
{
    QByteArray body;
    for (const QString &piece : pieces)
        body += sse(choice(QJsonObject{{QStringLiteral("content"), piece}}));
    body += sse(choice(QJsonObject(), QStringLiteral("stop")));
    body += usageChunk(promptTokens, 5);
    body += "data: [DONE]\n\n";
    return body;
}

struct Call
{
    QString id;
    QString name;
    QString arguments;
};

QByteArray toolBody(const QList<Call> &calls, const QString &preamble = QString())
{
    QByteArray body;
    if (!preamble.isEmpty())
        body += sse(choice(QJsonObject{{QStringLiteral("content"), preamble}}));
    for (int i = 0; i < calls.size(); ++i) {
        const Call &call = calls.at(i);
        const QJsonObject first{
            {QStringLiteral("index"), i},
            {QStringLiteral("id"), call.id},
            {QStringLiteral("type"), QStringLiteral("function")},
            {QStringLiteral("function"),
             QJsonObject{{QStringLiteral("name"), call.name}, {QStringLiteral("arguments"), QString()}}}};
        body += sse(choice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{first}}}));
        // Arguments split mid-token, as real servers send them.
        const qsizetype half = call.arguments.size() / 2;
        for (const QString &part : {call.arguments.left(half), call.arguments.mid(half)}) {
            const QJsonObject delta{
                {QStringLiteral("index"), i},
                {QStringLiteral("function"), QJsonObject{{QStringLiteral("arguments"), part}}}};
            body += sse(choice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{delta}}}));
        }
    }
    body += sse(choice(QJsonObject(), QStringLiteral("tool_calls")));
    body += usageChunk(20, 7);
    body += "data: [DONE]\n\n";
    return body;
}

// Runs streamChat on a worker thread while the main thread serves the fake provider.
class LoopRun
{
public:
    QList<StreamEvent> events;
    bool finished = false;

    void start(ToolLoopClient &client, const MessageList &messages, const ToolRegistry *tools,
               const StreamOptions &options, const CancellationToken &cancel,
               std::function<void(const StreamEvent &)> onEvent = {})
    {
        m_thread.reset(QThread::create([=, &client, this] {
            client.streamChat(messages, tools, options, cancel, [this, onEvent](const StreamEvent &event) {
                if (onEvent)
                    onEvent(event);
                QMutexLocker lock(&m_mutex);
                m_events.append(event);
            });
            QMutexLocker lock(&m_mutex);
            m_finished = true;
        }));
        m_thread->start();
    }
    bool wait(int timeoutMs = 15000)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < timeoutMs) {
            {
                QMutexLocker lock(&m_mutex);
                if (m_finished) {
                    events = m_events;
                    finished = true;
                    break;
                }
            }
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
            QThread::msleep(1);
        }
        if (finished)
            m_thread->wait();
        return finished;
    }
    QList<StreamEvent> ofType(StreamEvent::Type type) const
    {
        QList<StreamEvent> result;
        for (const StreamEvent &event : events)
            if (event.type == type)
                result.append(event);
        return result;
    }
    QString text() const
    {
        QString text;
        for (const StreamEvent &event : ofType(StreamEvent::Type::Chunk))
            text += event.content;
        return text;
    }
    QStringList types() const
    {
        QStringList names;
        for (const StreamEvent &event : events)
            names.append(event.typeName());
        return names;
    }

private:
    QMutex m_mutex;
    QList<StreamEvent> m_events;
    bool m_finished = false;
    std::unique_ptr<QThread> m_thread;
};

QJsonArray requestMessages(const FakeProviderServer::Request &request)
{
    return request.json.object().value(QStringLiteral("messages")).toArray();
}

bool isCompactionRequest(const FakeProviderServer::Request &request)
{
    const QJsonArray messages = requestMessages(request);
    return !messages.isEmpty() && messages.last().toObject().value(QStringLiteral("content")).toString() ==
                                      CompactionPrompts::automaticPrompt();
}

// One round of calls per entry of a cycle, then its summary. With 24,000 chars of system prompt (8,000
// estimated tokens) in a 20,000-token window (threshold 14,313, budget 15,904), a call of 9,800 chars (it and
// its output about 6,500 tokens) crosses the threshold and the compaction request still fits in one part.
void enqueueCycle(FakeProviderServer &server, const QStringList &texts, int cycle)
{
    int round = 0;
    for (const QString &text : texts)
        server.enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c%1_%2").arg(cycle).arg(++round), QStringLiteral("echo"),
                       QStringLiteral(R"({"text":"%1"})").arg(text)}})));
    server.enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("summary %1").arg(cycle)})));
}

} // namespace

class TestToolLoopClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();

    void textTurnEndsWithDoneAndUsage();
    void parallelToolCallsRunInModelOrder();
    void unknownToolAndInvalidInputGoBackToTheModel();
    void retriesServerErrorsButNotClientErrors();
    void truncatedStreamIsAnErrorNotAnEmptyAnswer();
    void planModeRefusesWriteToolsAtExecution();
    void authenticationErrorRefreshesHelperKeyOnce();
    void pendingStateIsInjectedBeforeNextUserMessage();
    void contextLengthErrorNeverCompacts_S6();
    void autoCompactionRequestKeepsCacheablePrefix_S8_S34_S35_S37_S38_S44();
    void autoCompactionAppliesReplacementAndContinues_S39_S41_S43_S45_S47_S48();
    void autoCompactionBoundaryAndOneShotSkips_S36();
    void autoCompactionNeedsANewToolTurn_S36();
    void autoCompactionFailureLeavesRequestUnchanged_S46();
    void autoCompactionCancelReachesOnlyChild_S46_S48();
    void compactionAfterAFailedOneSeesTheWholeHistory_S46();
    void stopDuringAutomaticCompactionStopsTheParent_S51();
    void autoCompactionRefusesToolCallsAndKeepsFinalText_S14_S24();
    void autoCompactionRejectsEmptyAndIncompleteSummaries_S40_S45();
    void rejectedCommitKeepsHistory_S61();
    void threeCompactionsInOneTurn();
    void fiveCompactionsKeepOneReplacementSize();
    void sameToolTurnAfterEachCompactionStops();
    void twoToolCallsInTurnAfterEachCompactionStop();
    void sameRoundsOfCallsAfterEachCompactionStop();
    void roundsThatGetOnWithTheWorkAreNotStopped();
    void callsCutOffAtTheOutputLimitSayWhyAndStop();
    void compactionUsageCountsEveryNestedRequest();
    void nestedRequestStopsAfterAFewToolRounds();
    void manualCompactionKeepsPendingState();
    void aSentTurnIsUsedOnlyWhereItsReplayIs();

private:
    std::unique_ptr<FakeProviderServer> m_server;
    std::atomic_int m_toolRuns{0};
    ToolRegistry m_tools;

    std::unique_ptr<ToolLoopClient> makeClient(qint64 contextWindow = 200000);
    // One tool turn, then a compaction request that stalls after a few bytes, then the parent's reply.
    void enqueueToolTurnThenStalledCompaction(const QString &parentText);
    MessageList conversation() const
    {
        return {Message::system(QStringLiteral("You are a test agent.")),
                Message::user(QStringLiteral("do the task"))};
    }
    int baselineEstimate(ToolLoopClient &client, const MessageList &messages);
};

void TestToolLoopClient::init()
{
    registerCoreMetaTypes();
    m_server = std::make_unique<FakeProviderServer>();
    m_toolRuns = 0;
    m_tools = ToolRegistry();
    m_tools.add(std::make_shared<EchoTool>(&m_toolRuns));
}

std::unique_ptr<ToolLoopClient> TestToolLoopClient::makeClient(qint64 contextWindow)
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.model = QStringLiteral("test-model");
    config.baseUrl = m_server->baseUrl().toString() + QStringLiteral("/v1");
    config.contextWindow = contextWindow;
    config.retryBaseDelayMs = 1;
    config.inactivityTimeoutMs = 5000;
    return std::make_unique<ToolLoopClient>(std::make_unique<OpenAiChatProtocol>(config));
}

void TestToolLoopClient::enqueueToolTurnThenStalledCompaction(const QString &parentText)
{
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    FakeProviderServer::Response stalled =
        FakeProviderServer::sseResponse(textBody({QStringLiteral("never finished")}));
    stalled.stallAfterBytes = 10;
    m_server->enqueue(stalled);
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({parentText})));
}

void TestToolLoopClient::textTurnEndsWithDoneAndUsage()
{
    auto client = makeClient();
    m_server->enqueue(
        FakeProviderServer::sseResponse(textBody({QStringLiteral("Hello"), QStringLiteral(", world")})));
    LoopRun run;
    run.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.text(), QStringLiteral("Hello, world"));
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
    QCOMPARE(run.ofType(StreamEvent::Type::Usage).size(), 1);
    QCOMPARE(run.ofType(StreamEvent::Type::Usage).first().usage->inputTokens, 10);
    QCOMPARE(m_server->requests().size(), 1);
}

void TestToolLoopClient::parallelToolCallsRunInModelOrder()
{
    auto client = makeClient();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("call_a"), QStringLiteral("echo"), QStringLiteral(R"({"text":"first"})")},
                  {QStringLiteral("call_b"), QStringLiteral("echo"), QStringLiteral(R"({"text":"second"})")}},
                 QStringLiteral("Running both."))));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("All done.")})));
    LoopRun run;
    run.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(
        run.types(),
        QStringList({QStringLiteral("chunk"), QStringLiteral("usage"), QStringLiteral("tool_start"),
                     QStringLiteral("tool_end"), QStringLiteral("tool_start"), QStringLiteral("tool_end"),
                     QStringLiteral("chunk"), QStringLiteral("usage"), QStringLiteral("done")}));
    const auto ends = run.ofType(StreamEvent::Type::ToolEnd);
    QCOMPARE(ends.at(0).toolCall->callId, QStringLiteral("call_a"));
    QCOMPARE(ends.at(0).toolCall->output.toObject().value(QStringLiteral("echo")).toString(),
             QStringLiteral("first"));
    QCOMPARE(ends.at(1).toolCall->callId, QStringLiteral("call_b"));
    QCOMPARE(m_toolRuns.load(), 2);

    // The second request carries the assistant's calls and both results in the provider's format.
    const QJsonArray messages = requestMessages(m_server->requests().at(1));
    QCOMPARE(messages.size(), 5);
    const QJsonObject assistant = messages.at(2).toObject();
    QCOMPARE(assistant.value(QStringLiteral("tool_calls")).toArray().size(), 2);
    QCOMPARE(messages.at(3).toObject().value(QStringLiteral("tool_call_id")).toString(),
             QStringLiteral("call_a"));
    QCOMPARE(messages.at(3).toObject().value(QStringLiteral("content")).toString(),
             QStringLiteral(R"({"echo":"first"})"));
    QCOMPARE(messages.at(4).toObject().value(QStringLiteral("tool_call_id")).toString(),
             QStringLiteral("call_b"));
}

void TestToolLoopClient::unknownToolAndInvalidInputGoBackToTheModel()
{
    auto client = makeClient();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("nope"), QStringLiteral("{}")},
                  {QStringLiteral("c2"), QStringLiteral("echo"), QStringLiteral(R"({"wrong":1})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("ok")})));
    LoopRun run;
    run.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QVERIFY(run.ofType(StreamEvent::Type::ToolStart).isEmpty()); // validation runs before tool_start
    QVERIFY(run.ofType(StreamEvent::Type::ToolEnd).isEmpty());
    // Display only: each refused call still reaches the window, so it gets a card in its failed state.
    const QList<StreamEvent> rejected = run.ofType(StreamEvent::Type::ToolRejected);
    QCOMPARE(rejected.size(), 2);
    QCOMPARE(rejected.at(0).toolCall->callId, QStringLiteral("c1"));
    QCOMPARE(rejected.at(0).toolCall->error, QStringLiteral("tool \"nope\" not found"));
    QCOMPARE(rejected.at(1).toolCall->name, QStringLiteral("echo"));
    QVERIFY(rejected.at(1).toolCall->error.contains(QStringLiteral("missing required")));
    QCOMPARE(m_toolRuns.load(), 0);
    const QJsonArray messages = requestMessages(m_server->requests().at(1));
    QCOMPARE(messages.at(3).toObject().value(QStringLiteral("content")).toString(),
             QStringLiteral("{\"error\":\"tool \\\"nope\\\" not found\"}"));
    QVERIFY(messages.at(4)
                .toObject()
                .value(QStringLiteral("content"))
                .toString()
                .contains(QStringLiteral("missing required")));
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
}

void TestToolLoopClient::retriesServerErrorsButNotClientErrors()
{
    auto client = makeClient();
    m_server->enqueue(
        FakeProviderServer::jsonResponse(503, R"({"error":{"message":"overloaded","type":"server_error"}})"));
    m_server->enqueue(FakeProviderServer::jsonResponse(
        429, R"({"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}})",
        {{"retry-after", "0"}}));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("finally")})));
    LoopRun run;
    run.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    const auto retries = run.ofType(StreamEvent::Type::Retry);
    QCOMPARE(retries.size(), 2);
    QCOMPARE(retries.at(0).attempt, 2);
    QCOMPARE(retries.at(1).attempt, 3);
    QCOMPARE(run.text(), QStringLiteral("finally"));

    m_server->clearRequests();
    m_server->enqueue(FakeProviderServer::jsonResponse(
        400, R"({"error":{"message":"bad temperature","type":"invalid_request_error"}})"));
    LoopRun bad;
    bad.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(bad.wait());
    QVERIFY(bad.ofType(StreamEvent::Type::Retry).isEmpty());
    QCOMPARE(bad.events.last().type, StreamEvent::Type::Error);
    QVERIFY(bad.events.last().error.contains(QStringLiteral("bad temperature")));
    QCOMPARE(m_server->requests().size(), 1);
}

void TestToolLoopClient::truncatedStreamIsAnErrorNotAnEmptyAnswer()
{
    auto client = makeClient();
    ClientConfig config = client->protocol().config();
    config.maxAttempts = 1;
    client = std::make_unique<ToolLoopClient>(std::make_unique<OpenAiChatProtocol>(config));
    QByteArray body = sse(choice(QJsonObject{{QStringLiteral("content"), QStringLiteral("half an ans")}}));
    m_server->enqueue(FakeProviderServer::sseResponse(body)); // no finish_reason, no [DONE]
    LoopRun run;
    run.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.events.last().type, StreamEvent::Type::Error);
    QVERIFY(!run.events.last().error.isEmpty());
}

void TestToolLoopClient::planModeRefusesWriteToolsAtExecution()
{
    m_tools.add(std::make_shared<PretendWriteTool>(&m_toolRuns));
    auto client = makeClient();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("w1"), QStringLiteral("write_file"), QStringLiteral("{}")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("planned")})));
    StreamOptions options;
    options.disableWriteToolCalls = true;
    LoopRun run;
    run.start(*client, conversation(), &m_tools, options, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(m_toolRuns.load(), 0);
    const QJsonArray followUp = requestMessages(m_server->requests().at(1));
    QVERIFY(followUp.last()
                .toObject()
                .value(QStringLiteral("content"))
                .toString()
                .contains(QStringLiteral("disabled in plan mode")));
    // The definitions stay the same, so the request prefix stays cache-stable.
    QCOMPARE(m_server->requests().at(0).json.object().value(QStringLiteral("tools")).toArray().size(), 2);
}

void TestToolLoopClient::authenticationErrorRefreshesHelperKeyOnce()
{
    ClientConfig config = makeClient()->protocol().config();
    config.apiKey = QStringLiteral("old-key");
    int refreshes = 0;
    config.refreshApiKey = [&refreshes] {
        ++refreshes;
        return Result<QString>(QStringLiteral("new-key"));
    };
    auto client = std::make_unique<ToolLoopClient>(std::make_unique<OpenAiChatProtocol>(config));
    m_server->enqueue(FakeProviderServer::jsonResponse(401, "{\"error\":{\"message\":\"expired\"}}"));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("ok")})));
    LoopRun run;
    run.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.text(), QStringLiteral("ok"));
    QCOMPARE(refreshes, 1);
    QCOMPARE(m_server->requests().at(0).header("authorization"), QByteArray("Bearer old-key"));
    QCOMPARE(m_server->requests().at(1).header("authorization"), QByteArray("Bearer new-key"));
    QVERIFY(run.ofType(StreamEvent::Type::Retry).isEmpty());

    // A second 401 with the fresh key is reported, not retried again.
    m_server->clearRequests();
    m_server->enqueue(FakeProviderServer::jsonResponse(401, "{\"error\":{\"message\":\"still bad\"}}"));
    m_server->enqueue(FakeProviderServer::jsonResponse(401, "{\"error\":{\"message\":\"still bad\"}}"));
    LoopRun bad;
    bad.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(bad.wait());
    QCOMPARE(bad.events.last().type, StreamEvent::Type::Error);
    QCOMPARE(m_server->requests().size(), 2);
    QCOMPARE(refreshes, 2);
}

void TestToolLoopClient::pendingStateIsInjectedBeforeNextUserMessage()
{
    auto client = makeClient();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("call_p"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(
        400, R"({"error":{"message":"broken","type":"invalid_request_error"}})"));
    LoopRun first;
    first.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(first.wait());
    QCOMPARE(first.events.last().type, StreamEvent::Type::Incomplete); // progress was made
    QCOMPARE(client->pendingState().size(), 2);                        // assistant tool call + tool result

    MessageList next = conversation();
    next.append(Message::user(QStringLiteral("try again")));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("recovered")})));
    LoopRun second;
    second.start(*client, next, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(second.wait());
    const QJsonArray messages = requestMessages(m_server->requests().at(2));
    QCOMPARE(messages.size(), 5);
    QCOMPARE(messages.at(2).toObject().value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
    QCOMPARE(messages.at(3).toObject().value(QStringLiteral("role")).toString(), QStringLiteral("tool"));
    QCOMPARE(messages.at(4).toObject().value(QStringLiteral("content")).toString(),
             QStringLiteral("try again"));
    QVERIFY(client->pendingState().isEmpty()); // cleared once used

    // A one-shot stream neither injects nor saves.
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c"), QStringLiteral("echo"), QStringLiteral(R"({"text":"y"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"broken"}})"));
    LoopRun oneShot;
    StreamOptions options;
    options.oneShot = true;
    oneShot.start(*client, conversation(), &m_tools, options, CancellationToken());
    QVERIFY(oneShot.wait());
    QVERIFY(client->pendingState().isEmpty());
}

// proves S6: with automatic compaction enabled and the estimate above the threshold, a provider's
// context-window error ends the turn through the normal error path; it never starts a compaction, not even
// after a tool turn, when a proactive compaction would be allowed. (Every provider:
// tst_autocompactionproviders.)
void TestToolLoopClient::contextLengthErrorNeverCompacts_S6()
{
    const QByteArray contextError =
        R"({"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})";
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("go"))};
    auto client = makeClient(20000); // budget 15904, threshold 14314: the first request is already above it
    QVERIFY(ContextBudget::shouldAutoCompact(ContextBudget::estimateTokens(45000),
                                             ContextBudget::inputBudget(20000)));

    // The first request of a turn: the error is the turn's result.
    m_server->enqueue(FakeProviderServer::jsonResponse(400, contextError));
    LoopRun first;
    first.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(first.wait());
    QCOMPARE(m_server->requests().size(), 1);
    QCOMPARE(first.events.last().type, StreamEvent::Type::Error);
    QVERIFY2(first.events.last().error.contains(QStringLiteral("maximum context length")),
             qPrintable(first.events.last().error));
    QVERIFY(first.ofType(StreamEvent::Type::AutoCompactionStarted).isEmpty());
    QVERIFY(first.ofType(StreamEvent::Type::Retry).isEmpty());

    // Mid-loop: the proactive compaction before the second request fails (suppressed until a new tool turn),
    // the parent goes out unchanged and the provider refuses it. The error does not start another compaction.
    m_server->clearRequests();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"compaction refused"}})"));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, contextError));
    LoopRun mid;
    mid.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(mid.wait());
    const auto requests = m_server->requests();
    QCOMPARE(requests.size(), 3);
    QVERIFY(isCompactionRequest(requests.at(1)));
    QVERIFY(!isCompactionRequest(requests.at(2)));
    QCOMPARE(mid.ofType(StreamEvent::Type::AutoCompactionStarted).size(), 1);
    QCOMPARE(mid.ofType(StreamEvent::Type::AutoCompactionFailed).size(), 1);
    QCOMPARE(mid.events.last().type, StreamEvent::Type::Incomplete); // the tool turn made progress
    QVERIFY(mid.events.last().error.contains(QStringLiteral("maximum context length")));
    QVERIFY(mid.ofType(StreamEvent::Type::Retry).isEmpty());
    QCOMPARE(m_server->pendingResponses(), 0);
}

void TestToolLoopClient::autoCompactionRequestKeepsCacheablePrefix_S8_S34_S35_S37_S38_S44()
{
    auto client = makeClient(20000); // budget 15904, threshold 14314 tokens
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("implement this exactly"))};
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("## Goal\nsummary")})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("finished")})));
    LoopRun run;
    StreamOptions options;
    options.sessionId = QStringLiteral("session");
    run.start(*client, messages, &m_tools, options, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(m_server->requests().size(), 3);
    const auto parent = m_server->requests().at(0).json.object();
    const auto compaction = m_server->requests().at(1).json.object();
    QVERIFY(isCompactionRequest(m_server->requests().at(1)));
    // The prefix before the final user message is the parent's request as it stood: same system prompt and
    // history, then the tool turn; identical tool definitions (S37, S44).
    const QJsonArray parentMessages = parent.value(QStringLiteral("messages")).toArray();
    const QJsonArray compactionMessages = compaction.value(QStringLiteral("messages")).toArray();
    QCOMPARE(compactionMessages.size(), parentMessages.size() + 3);
    for (int i = 0; i < parentMessages.size(); ++i)
        QCOMPARE(compactionMessages.at(i), parentMessages.at(i));
    QCOMPARE(compaction.value(QStringLiteral("tools")), parent.value(QStringLiteral("tools")));
    QCOMPARE(compaction.value(QStringLiteral("model")), parent.value(QStringLiteral("model")));
    // S8: the compactor sees the active loop's tool activity with its full output, which persisted turn
    // memory would not keep (tool-history none).
    const QJsonObject toolResult = compactionMessages.at(parentMessages.size() + 1).toObject();
    QCOMPARE(toolResult.value(QStringLiteral("role")).toString(), QStringLiteral("tool"));
    QCOMPARE(toolResult.value(QStringLiteral("content")).toString(), QStringLiteral("{\"echo\":\"x\"}"));
}

void TestToolLoopClient::autoCompactionAppliesReplacementAndContinues_S39_S41_S43_S45_S47_S48()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("implement this exactly"))};
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}},
                 QStringLiteral("before "))));
    // The compaction model thinks before it writes the summary (S39: its reasoning stays private too).
    m_server->enqueue(FakeProviderServer::sseResponse(
        sse(choice(QJsonObject{{QStringLiteral("reasoning_content"), QStringLiteral("PRIVATE THOUGHT")}})) +
        textBody({QStringLiteral("PRIVATE SUMMARY")}, 777)));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("after")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QVERIFY(run.ofType(StreamEvent::Type::ReasoningChunk).isEmpty());
    for (const StreamEvent &event : std::as_const(run.events))
        QVERIFY(!event.content.contains(QStringLiteral("PRIVATE THOUGHT")));
    QCOMPARE(run.types().mid(0, 7),
             QStringList({QStringLiteral("chunk"), QStringLiteral("usage"), QStringLiteral("tool_start"),
                          QStringLiteral("tool_end"), QStringLiteral("auto_compaction_started"),
                          QStringLiteral("auto_compaction_applied"), QStringLiteral("chunk")}));
    QCOMPARE(run.text(), QStringLiteral("before after")); // S39: nothing of the summary reached the parent
    const StreamEvent applied = run.ofType(StreamEvent::Type::AutoCompactionApplied).first();
    QVERIFY(applied.autoCompaction);
    QCOMPARE(applied.autoCompaction->usage->inputTokens, 777);
    const MessageList replacement = applied.autoCompaction->replacement;
    QCOMPARE(replacement.size(), 2);
    QCOMPARE(replacement.at(0), messages.at(0)); // S41: original system message kept
    QVERIFY(replacement.at(1).content.contains(QStringLiteral("PRIVATE SUMMARY")));
    QVERIFY(replacement.at(1).content.contains(QStringLiteral("<last_user_message>")));
    QVERIFY(replacement.at(1).content.contains(QStringLiteral("implement this exactly"))); // S42

    // S43, S47: the parent turn resumed on the rebuilt native history, system message included.
    const QJsonArray resumed = requestMessages(m_server->requests().at(2));
    QCOMPARE(resumed.size(), 2);
    QCOMPARE(resumed.at(0).toObject().value(QStringLiteral("role")).toString(), QStringLiteral("system"));
    QCOMPARE(resumed.at(1).toObject().value(QStringLiteral("content")).toString(), replacement.at(1).content);
    QCOMPARE(m_server->requests().at(2).json.object().value(QStringLiteral("tools")),
             m_server->requests().at(0).json.object().value(QStringLiteral("tools"))); // S44
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
}

void TestToolLoopClient::autoCompactionBoundaryAndOneShotSkips_S36()
{
    // Below the threshold: no compaction; one-shot and disabled streams never compact.
    for (int variant = 0; variant < 3; ++variant) {
        init();
        auto client = makeClient(variant == 0 ? 1000000 : 20000);
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
        m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("done")})));
        StreamOptions options;
        options.oneShot = variant == 1;
        options.disableAutoCompaction = variant == 2;
        LoopRun run;
        run.start(*client,
                  {Message::system(QString(45000, QLatin1Char('s'))), Message::user(QStringLiteral("go"))},
                  &m_tools, options, CancellationToken());
        QVERIFY(run.wait());
        QCOMPARE(m_server->requests().size(), 2);
        QVERIFY2(run.ofType(StreamEvent::Type::AutoCompactionStarted).isEmpty(),
                 qPrintable(QString::number(variant)));
    }
}

void TestToolLoopClient::autoCompactionNeedsANewToolTurn_S36()
{
    // Over the threshold from the start, but a plain chat turn never compacts (no tool turn yet). The
    // compaction request still fits the input budget, so it is the seed's single request (issue 16).
    auto client = makeClient(20000);
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("just text")})));
    LoopRun run;
    run.start(*client,
              {Message::system(QString(44000, QLatin1Char('s'))), Message::user(QStringLiteral("go"))},
              &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(m_server->requests().size(), 1);
    QVERIFY(run.ofType(StreamEvent::Type::AutoCompactionStarted).isEmpty());

    // Replayed pending state of an interrupted turn holds it back only until a request carrying it has
    // completed (issue 12 point 1): the new tool turn of the next stream brings the compaction.
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"broken"}})"));
    LoopRun failing;
    failing.start(*client, {Message::user(QStringLiteral("small"))}, &m_tools, StreamOptions{},
                  CancellationToken());
    QVERIFY(failing.wait());
    QVERIFY(!client->pendingState().isEmpty());
    m_server->clearRequests();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c2"), QStringLiteral("echo"), QStringLiteral(R"({"text":"y"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("summary")})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("done")})));
    LoopRun replay;
    replay.start(*client,
                 {Message::system(QString(44000, QLatin1Char('s'))), Message::user(QStringLiteral("small")),
                  Message::user(QStringLiteral("again"))},
                 &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(replay.wait());
    QCOMPARE(m_server->requests().size(), 3);
    // The first request replays the pending turn before the new message; the compaction request carries it
    // too, so the summary covers it; the resumed request starts from the replacement.
    const QJsonArray first = requestMessages(m_server->requests().at(0));
    QCOMPARE(first.size(), 5);
    QCOMPARE(first.at(2).toObject().value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
    QVERIFY(isCompactionRequest(m_server->requests().at(1)));
    QVERIFY(QString::fromUtf8(m_server->requests().at(1).body).contains(QStringLiteral(R"(\"echo\":\"x\")")));
    QCOMPARE(requestMessages(m_server->requests().at(2)).size(), 2);
    QCOMPARE(replay.ofType(StreamEvent::Type::AutoCompactionApplied).size(), 1);
    QVERIFY(client->pendingState().isEmpty()); // the pending turn is part of the summary now
    QCOMPARE(replay.events.last().type, StreamEvent::Type::Done);
}

void TestToolLoopClient::autoCompactionFailureLeavesRequestUnchanged_S46()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("go"))};
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"compaction refused"}})"));
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c2"), QStringLiteral("echo"), QStringLiteral(R"({"text":"y"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"refused again"}})"));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("end")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    const auto requests = m_server->requests();
    QCOMPARE(requests.size(), 5);
    QVERIFY(isCompactionRequest(requests.at(1)));
    QVERIFY(!isCompactionRequest(requests.at(2)));
    // The parent request went on with the unchanged history: system, user, assistant call, tool result.
    QCOMPARE(requestMessages(requests.at(2)).size(), 4);
    QCOMPARE(requestMessages(requests.at(2)).at(0), requestMessages(requests.at(0)).at(0));
    QCOMPARE(requestMessages(requests.at(2)).at(1), requestMessages(requests.at(0)).at(1));
    // A new tool turn advanced the history, so the next check tried again.
    QVERIFY(isCompactionRequest(requests.at(3)));
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionFailed).size(), 2);
    QVERIFY(run.ofType(StreamEvent::Type::AutoCompactionFailed)
                .first()
                .error.contains(QStringLiteral("compaction refused")));
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
}

void TestToolLoopClient::autoCompactionCancelReachesOnlyChild_S46_S48()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("go"))};
    enqueueToolTurnThenStalledCompaction(QStringLiteral("parent finished"));
    CancellationToken parent;
    LoopRun run;
    std::atomic_bool childCancelled = false;
    run.start(*client, messages, &m_tools, StreamOptions{}, parent, [&](const StreamEvent &event) {
        if (event.type == StreamEvent::Type::AutoCompactionStarted) {
            QVERIFY(event.autoCompaction);
            const CancellationToken child = event.autoCompaction->cancel;
            // Cancel once the compaction request is on the wire.
            QThread *canceller = QThread::create([child, &childCancelled] {
                QThread::msleep(150);
                child.cancel();
                childCancelled = true;
            });
            QObject::connect(canceller, &QThread::finished, canceller, &QObject::deleteLater);
            canceller->start();
        }
    });
    QVERIFY(run.wait());
    QVERIFY(childCancelled);
    QVERIFY(!parent.isCancelled());
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionCancelled).size(), 1);
    QVERIFY(run.ofType(StreamEvent::Type::AutoCompactionApplied).isEmpty());
    QCOMPARE(run.text(), QStringLiteral("parent finished"));
    QCOMPARE(requestMessages(m_server->requests().at(2)).size(), 4); // unchanged history
    m_server->closeAllConnections();
}

// S46: a failed attempt leaves the generic history as it was too. The next compaction, after another tool
// turn, summarises the whole turn (both calls' raw outputs, the person's message once) and keeps the person's
// message, not the failed attempt's prompt, as the latest user message.
void TestToolLoopClient::compactionAfterAFailedOneSeesTheWholeHistory_S46()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("rename the parser"))};
    m_server->enqueue(FakeProviderServer::sseResponse(toolBody(
        {{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"FIRST OUTPUT"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"compaction refused"}})"));
    m_server->enqueue(FakeProviderServer::sseResponse(toolBody(
        {{QStringLiteral("c2"), QStringLiteral("echo"), QStringLiteral(R"({"text":"SECOND OUTPUT"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("the summary")})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("end")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    const auto requests = m_server->requests();
    QCOMPARE(requests.size(), 5);
    QVERIFY(isCompactionRequest(requests.at(1)));
    QVERIFY(isCompactionRequest(requests.at(3)));
    const QString second = QString::fromUtf8(requests.at(3).body);
    // Each text twice: in the call's arguments and in the echoed result.
    QCOMPARE(second.count(QStringLiteral("FIRST OUTPUT")), 2);
    QCOMPARE(second.count(QStringLiteral("SECOND OUTPUT")), 2);
    QCOMPARE(second.count(QStringLiteral("rename the parser")), 1);
    QCOMPARE(requestMessages(requests.at(3)).size(), 7); // system, prompt, 2 x (call, result), instruction
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 1);
    const QString replacement = applied.first().autoCompaction->replacement.last().content;
    QVERIFY(replacement.endsWith(QStringLiteral("precedence.\n\nrename the parser\n</last_user_message>")));
    QCOMPARE(replacement.count(QStringLiteral("rename the parser")), 1);
    QVERIFY(!replacement.contains(CompactionPrompts::automaticPrompt()));
    QCOMPARE(run.text(), QStringLiteral("end"));
}

// S51: Stop while the private compaction request streams cancels the parent as it always does: the nested
// request is abandoned at once (not after the stream's inactivity timeout), nothing more is sent, and the
// turn's tool progress is kept for the next message.
void TestToolLoopClient::stopDuringAutomaticCompactionStopsTheParent_S51()
{
    ClientConfig config = makeClient()->protocol().config();
    config.contextWindow = 20000;
    config.inactivityTimeoutMs = 120000; // a compaction left streaming would outlast the run's wait
    auto client = std::make_unique<ToolLoopClient>(std::make_unique<OpenAiChatProtocol>(config));
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("go"))};
    enqueueToolTurnThenStalledCompaction(QStringLiteral("parent went on"));
    CancellationToken parent;
    CancellationToken child;
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, parent, [&](const StreamEvent &event) {
        if (event.type != StreamEvent::Type::AutoCompactionStarted)
            return;
        child = event.autoCompaction->cancel;
        QThread *stopper = QThread::create([parent] {
            QThread::msleep(150); // the compaction request is on the wire
            parent.cancel();
        });
        QObject::connect(stopper, &QThread::finished, stopper, &QObject::deleteLater);
        stopper->start();
    });
    QVERIFY(run.wait());
    QVERIFY(child.isCancelled()); // the nested request went with its parent
    QCOMPARE(m_server->requests().size(), 2);
    QVERIFY(isCompactionRequest(m_server->requests().at(1)));
    QVERIFY(run.ofType(StreamEvent::Type::AutoCompactionApplied).isEmpty());
    QVERIFY(run.ofType(StreamEvent::Type::Done).isEmpty());
    QVERIFY(!run.text().contains(QStringLiteral("parent went on")));
    // The tool turn is pending state for the next message, as after any Stop in a tool loop.
    QVERIFY(QJsonDocument(client->pendingState()).toJson().contains("c1"));
    m_server->closeAllConnections();
}

void TestToolLoopClient::autoCompactionRefusesToolCallsAndKeepsFinalText_S14_S24()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(45000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("go"))};
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    // The compaction model tries a tool first, then writes the summary.
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c9"), QStringLiteral("echo"), QStringLiteral(R"({"text":"no"})")}},
                 QStringLiteral("preamble "))));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("final summary")})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("ok")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(m_toolRuns.load(), 1); // only the parent's call ran
    const QJsonArray followUp = requestMessages(m_server->requests().at(2));
    QCOMPARE(followUp.last().toObject().value(QStringLiteral("content")).toString(),
             QStringLiteral(R"({"error":"Tool calls are disabled during compaction; use the history."})"));
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 1);
    const QString content = applied.first().autoCompaction->replacement.last().content;
    QVERIFY(content.contains(QStringLiteral("final summary")));
    QVERIFY(!content.contains(QStringLiteral("preamble")));
    // The refused call produced no tool events in the parent stream.
    QCOMPARE(run.ofType(StreamEvent::Type::ToolStart).size(), 1);
}

void TestToolLoopClient::autoCompactionRejectsEmptyAndIncompleteSummaries_S40_S45()
{
    for (int variant = 0; variant < 2; ++variant) {
        init();
        auto client = makeClient(20000);
        ClientConfig config = client->protocol().config();
        config.maxAttempts = 1;
        client = std::make_unique<ToolLoopClient>(std::make_unique<OpenAiChatProtocol>(config));
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
        if (variant == 0)
            m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("   ")})));
        else
            m_server->enqueue(FakeProviderServer::sseResponse(
                sse(choice(QJsonObject{{QStringLiteral("content"), QStringLiteral("## Goal")}}))));
        m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("parent")})));
        LoopRun run;
        run.start(*client,
                  {Message::system(QString(45000, QLatin1Char('s'))), Message::user(QStringLiteral("go"))},
                  &m_tools, StreamOptions{}, CancellationToken());
        QVERIFY(run.wait());
        const auto failed = run.ofType(StreamEvent::Type::AutoCompactionFailed);
        QCOMPARE(failed.size(), 1);
        if (variant == 0)
            QVERIFY(failed.first().error.contains(QStringLiteral("empty summary")));
        QCOMPARE(run.text(), QStringLiteral("parent"));
        // S45: no valid summary, so the native history was never touched: the parent request that follows
        // is the one the loop would have sent without the attempt (the first request, its call, its result).
        const auto requests = m_server->requests();
        QCOMPARE(requests.size(), 3);
        const QJsonArray first = requestMessages(requests.at(0));
        const QJsonArray resumed = requestMessages(requests.at(2));
        QCOMPARE(resumed.size(), 4);
        QCOMPARE(resumed.at(0), first.at(0));
        QCOMPARE(resumed.at(1), first.at(1));
        const QJsonObject call = resumed.at(2).toObject();
        QCOMPARE(
            call.value(QStringLiteral("tool_calls")).toArray().at(0).toObject().value(QStringLiteral("id")),
            QJsonValue(QStringLiteral("c1")));
        QCOMPARE(resumed.at(3).toObject().value(QStringLiteral("tool_call_id")),
                 QJsonValue(QStringLiteral("c1")));
        QCOMPARE(requests.at(2).json.object().value(QStringLiteral("tools")),
                 requests.at(0).json.object().value(QStringLiteral("tools")));
    }
}

void TestToolLoopClient::rejectedCommitKeepsHistory_S61()
{
    auto client = makeClient(20000);
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("summary")})));
    StreamOptions options;
    options.awaitCompactionCommit = true;
    LoopRun run;
    run.start(*client,
              {Message::system(QString(45000, QLatin1Char('s'))), Message::user(QStringLiteral("go"))},
              &m_tools, options, CancellationToken(), [](const StreamEvent &event) {
                  if (event.type == StreamEvent::Type::AutoCompactionApplied)
                      event.autoCompaction->commit->reject(QStringLiteral("disk full"));
              });
    QVERIFY(run.wait());
    QCOMPARE(m_server->requests().size(), 2); // no request on the replacement
    QCOMPARE(run.events.last().type, StreamEvent::Type::Error);
    QVERIFY(run.events.last().error.contains(QStringLiteral("disk full")));
}

void TestToolLoopClient::threeCompactionsInOneTurn()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(44000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("long task"))};
    // The system prompt keeps the estimate over the threshold, each tool turn allows the next compaction
    // (S36), and each compaction request still fits the input budget (the seed's single request, issue 16).
    const QString big = QString(200, QLatin1Char('o'));
    for (int round = 1; round <= 3; ++round) {
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c%1").arg(round), QStringLiteral("echo"),
                       QStringLiteral(R"({"text":"%1"})").arg(big)}},
                     QStringLiteral("step%1 ").arg(round))));
        m_server->enqueue(
            FakeProviderServer::sseResponse(textBody({QStringLiteral("summary %1").arg(round)})));
    }
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("all done")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionApplied).size(), 3);
    QCOMPARE(run.text(), QStringLiteral("step1 step2 step3 all done"));
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
    // The last replacement nests the earlier compacted context as the latest user message.
    const QString last = run.ofType(StreamEvent::Type::AutoCompactionApplied)
                             .last()
                             .autoCompaction->replacement.last()
                             .content;
    QVERIFY(last.contains(QStringLiteral("summary 3")));
    QCOMPARE(requestMessages(m_server->requests().last()).size(), 2);
}

// proves S42 over repeated compactions (issue 12 point 5): five compactions in one turn, each replacement
// holds the person's message once and has the same size, whatever came before.
void TestToolLoopClient::fiveCompactionsKeepOneReplacementSize()
{
    auto client = makeClient(20000);
    const QString words = QStringLiteral("refactor the parser, keep the public API");
    const MessageList messages{Message::system(QString(44000, QLatin1Char('s'))), Message::user(words)};
    const QString big = QString(200, QLatin1Char('o')); // as in threeCompactionsInOneTurn
    for (int round = 1; round <= 5; ++round) {
        // A different call each time: the same one right after each compaction is a runaway that stops
        // (sameToolTurnAfterEachCompactionStops).
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c%1").arg(round), QStringLiteral("echo"),
                       QStringLiteral(R"({"text":"%1 %2"})").arg(round).arg(big)}})));
        m_server->enqueue(FakeProviderServer::sseResponse(
            textBody({QStringLiteral("## Goal\nsummary number %1").arg(round)})));
    }
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("all done")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 5);
    QList<qsizetype> sizes;
    for (int i = 0; i < applied.size(); ++i) {
        const QString content = applied.at(i).autoCompaction->replacement.last().content;
        QCOMPARE(content.count(QStringLiteral("<compacted_context>")), 1);
        QCOMPARE(content.count(words), 1);
        QVERIFY(content.contains(QStringLiteral("summary number %1").arg(i + 1)));
        QVERIFY(content.endsWith(words + QStringLiteral("\n</last_user_message>")));
        sizes.append(content.size());
    }
    for (qsizetype size : std::as_const(sizes))
        QCOMPARE(size, sizes.first());
    // The resumed request after the last compaction: the system prompt and that one replacement.
    const QJsonArray last = requestMessages(m_server->requests().last());
    QCOMPARE(last.size(), 2);
    QCOMPARE(last.at(1).toObject().value(QStringLiteral("content")).toString(),
             applied.last().autoCompaction->replacement.last().content);
}

// A model that reads the same big output again right after every automatic compaction would compact after
// every tool turn for as long as the turn lasts, paying for a summary each time. After three compactions in a
// row caused by the same lone tool call, the turn stops with a message that names the call and what to do;
// its progress stays as pending state, and no fourth summary is requested.
void TestToolLoopClient::sameToolTurnAfterEachCompactionStops()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(44000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("read the log and fix it"))};
    const QString sameCall = QStringLiteral(R"({"text":"%1"})").arg(QString(200, QLatin1Char('o')));
    for (int round = 1; round <= 4; ++round) {
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c%1").arg(round), QStringLiteral("echo"), sameCall}})));
        m_server->enqueue(
            FakeProviderServer::sseResponse(textBody({QStringLiteral("summary %1").arg(round)})));
    }
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionApplied).size(),
             ToolLoopClient::MaxSameRefillCompactions);
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionStarted).size(),
             ToolLoopClient::MaxSameRefillCompactions);
    QCOMPARE(m_toolRuns.load(), 4);
    const StreamEvent last = run.events.last();
    QCOMPARE(last.type, StreamEvent::Type::Incomplete);
    QVERIFY2(last.error.contains(QStringLiteral("same tool call (echo)")), qPrintable(last.error));
    QVERIFY2(last.error.contains(QStringLiteral("number 4 of this turn")), qPrintable(last.error));
    int compactionRequests = 0;
    for (const auto &request : m_server->requests())
        compactionRequests += isCompactionRequest(request) ? 1 : 0;
    QCOMPARE(compactionRequests, ToolLoopClient::MaxSameRefillCompactions);
    QCOMPARE(m_server->requests().size(), 4 + ToolLoopClient::MaxSameRefillCompactions);
    QVERIFY(!client->pendingState().isEmpty()); // the turn's progress is kept for the next one
}

// Found trying the window: a model that read two big files in turn, forgetting each after the summary, made
// 28 automatic compactions in 30 s until the person pressed Stop; the guard only caught the same call in a
// row. Each call may now cause MaxSameRefillCompactions compactions as the lone tool turn after a summary.
void TestToolLoopClient::twoToolCallsInTurnAfterEachCompactionStop()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(44000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("read both logs"))};
    const QString big = QString(200, QLatin1Char('o'));
    const int allowed = 2 * ToolLoopClient::MaxSameRefillCompactions;
    for (int round = 1; round <= allowed + 2; ++round) {
        const QString which = round % 2 ? QStringLiteral("first") : QStringLiteral("second");
        const QString call = QStringLiteral(R"({"text":"%1 %2"})").arg(which, big);
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c%1").arg(round), QStringLiteral("echo"), call}})));
        m_server->enqueue(
            FakeProviderServer::sseResponse(textBody({QStringLiteral("summary %1").arg(round)})));
    }
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionApplied).size(), allowed);
    QCOMPARE(m_toolRuns.load(), allowed + 1);
    const StreamEvent last = run.events.last();
    QCOMPARE(last.type, StreamEvent::Type::Incomplete);
    QVERIFY2(last.error.contains(QStringLiteral("number %1 of this turn").arg(allowed + 1)),
             qPrintable(last.error));
    int compactionRequests = 0;
    for (const auto &request : m_server->requests())
        compactionRequests += isCompactionRequest(request) ? 1 : 0;
    QCOMPARE(compactionRequests, allowed);
}

// Found trying the window: a model that read a file in four pages, forgot them in each summary and read the
// same four pages again compacted after every fourth read for as long as the turn lasted (1,300 requests in
// two minutes). The same rounds of calls since a summary count as the same refill, however many there are.
void TestToolLoopClient::sameRoundsOfCallsAfterEachCompactionStop()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(24000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("read the log page by page"))};
    const QStringList pages{QStringLiteral("page 1"), QStringLiteral("page 2"),
                            QStringLiteral("page 3 ") + QString(9800, QLatin1Char('o'))};
    for (int cycle = 1; cycle <= 5; ++cycle)
        enqueueCycle(*m_server, pages, cycle);
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionApplied).size(),
             ToolLoopClient::MaxSameRefillCompactions);
    QCOMPARE(m_toolRuns.load(), 3 * (ToolLoopClient::MaxSameRefillCompactions + 1));
    const StreamEvent last = run.events.last();
    QCOMPARE(last.type, StreamEvent::Type::Incomplete);
    QVERIFY2(
        last.error.contains(QStringLiteral("number 4 of this turn: the same 3 rounds of tool calls (echo) "
                                           "filled the context again after a summary 3 times")),
        qPrintable(last.error));
    int compactionRequests = 0;
    for (const auto &request : m_server->requests())
        compactionRequests += isCompactionRequest(request) ? 1 : 0;
    QCOMPARE(compactionRequests, ToolLoopClient::MaxSameRefillCompactions);
    QVERIFY(!client->pendingState().isEmpty()); // the turn's progress is kept for the next one
}

// The guard must not stop a loop that gets on with its work: each cycle repeats two calls (a status
// check, say) but reads a new page, so it compacts as often as it needs and ends done.
void TestToolLoopClient::roundsThatGetOnWithTheWorkAreNotStopped()
{
    auto client = makeClient(20000);
    const MessageList messages{Message::system(QString(24000, QLatin1Char('s'))),
                               Message::user(QStringLiteral("read the log page by page"))};
    constexpr int Cycles = 6;
    for (int cycle = 1; cycle <= Cycles; ++cycle)
        enqueueCycle(*m_server,
                     {QStringLiteral("status"), QStringLiteral("status"),
                      QStringLiteral("page %1 ").arg(cycle) + QString(9800, QLatin1Char('o'))},
                     cycle);
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("all pages read")})));
    LoopRun run;
    run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionApplied).size(), Cycles);
    QCOMPARE(m_toolRuns.load(), 3 * Cycles);
}

// Found trying it headless: a reply that stopped at the output limit in the middle of a call's arguments was
// refused as "missing required parameter", and the model sent the same cut-off call until the 5,000-turn
// limit. The refusal now says the arguments were cut off, and the third same refused round stops the turn.
void TestToolLoopClient::callsCutOffAtTheOutputLimitSayWhyAndStop()
{
    auto client = makeClient(200000);
    const QString cutOff = QStringLiteral(R"({"text":"half of a long)");
    for (int round = 1; round <= 5; ++round) {
        QByteArray body = toolBody({{QStringLiteral("c%1").arg(round), QStringLiteral("echo"), cutOff}});
        body.replace(R"("finish_reason":"tool_calls")", R"("finish_reason":"length")");
        QVERIFY(body.contains(R"("finish_reason":"length")"));
        m_server->enqueue(FakeProviderServer::sseResponse(body));
    }
    LoopRun run;
    run.start(*client, {Message::user(QStringLiteral("write the file"))}, &m_tools, StreamOptions{},
              CancellationToken());
    QVERIFY(run.wait());
    QCOMPARE(m_toolRuns.load(), 0);
    QCOMPARE(int(m_server->requests().size()), ToolLoopClient::MaxSameRefusedRounds);
    // What the model was told after the first round.
    const QByteArray second = m_server->requests().at(1).body;
    QVERIFY2(second.contains(
                 "the arguments of this call were cut off: the reply reached the model's output limit"),
             second.constData());
    const StreamEvent last = run.events.last();
    QCOMPARE(last.type, StreamEvent::Type::Incomplete);
    QVERIFY2(last.error.contains(QStringLiteral("the same tool call that cannot run (echo) 3 times in a row, "
                                                "each time cut off at the model's output limit")),
             qPrintable(last.error));
    QCOMPARE(run.ofType(StreamEvent::Type::ToolRejected).size(), ToolLoopClient::MaxSameRefusedRounds);
}

// Issue 12 point 4: the compaction's usage is every usage event of the nested request (a refused tool round
// is one more request), reported with the applied event.
void TestToolLoopClient::compactionUsageCountsEveryNestedRequest()
{
    auto client = makeClient(20000);
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c9"), QStringLiteral("echo"), QStringLiteral(R"({"text":"no"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("summary")}, 700)));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("after")}, 11)));
    LoopRun run;
    run.start(*client,
              {Message::system(QString(45000, QLatin1Char('s'))), Message::user(QStringLiteral("go"))},
              &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 1);
    QVERIFY(applied.first().autoCompaction->usage);
    const TokenUsage usage = *applied.first().autoCompaction->usage;
    QCOMPARE(usage.inputTokens, 20 + 700); // the refused tool round, then the summary
    QCOMPARE(usage.outputTokens, 7 + 5);
    QCOMPARE(usage.totalTokens, 27 + 705);
    // The parent's own usage events are the parent's requests only.
    const auto parentUsage = run.ofType(StreamEvent::Type::Usage);
    QCOMPARE(parentUsage.size(), 2);
    QCOMPARE(parentUsage.at(0).usage->inputTokens, 20);
    QCOMPARE(parentUsage.at(1).usage->inputTokens, 11);
}

// Issue 12 point 6: a compaction model that keeps calling tools gets MaxCompactionToolRounds refusals, then
// the nested request fails with that reason; the failure suppresses automatic compaction until a new tool
// turn (S46), and the parent request goes out unchanged.
void TestToolLoopClient::nestedRequestStopsAfterAFewToolRounds()
{
    auto client = makeClient(20000);
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    for (int round = 0; round <= ToolLoopClient::MaxCompactionToolRounds; ++round)
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("r%1").arg(round), QStringLiteral("echo"),
                       QStringLiteral(R"({"text":"no"})")}})));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("parent answer")})));
    LoopRun run;
    run.start(*client,
              {Message::system(QString(45000, QLatin1Char('s'))), Message::user(QStringLiteral("go"))},
              &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(run.wait());
    const auto requests = m_server->requests();
    QCOMPARE(requests.size(), 1 + ToolLoopClient::MaxCompactionToolRounds + 1 + 1);
    QCOMPARE(m_toolRuns.load(), 1); // only the parent's call ran
    const auto failed = run.ofType(StreamEvent::Type::AutoCompactionFailed);
    QCOMPARE(failed.size(), 1);
    QVERIFY2(
        failed.first().error.contains(QStringLiteral("kept calling tools instead of writing the summary")),
        qPrintable(failed.first().error));
    QVERIFY(run.ofType(StreamEvent::Type::AutoCompactionApplied).isEmpty());
    // The parent request after the failure is the one it would have been: system, user, call, result.
    QVERIFY(!isCompactionRequest(requests.last()));
    QCOMPARE(requestMessages(requests.last()).size(), 4);
    QCOMPARE(run.text(), QStringLiteral("parent answer"));
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
}

// Issue 12 point 2 at the client: a manual compaction request replays pending state without taking it and
// saves none, so when it does not apply the next turn replays exactly what it would have replayed.
void TestToolLoopClient::manualCompactionKeepsPendingState()
{
    auto client = makeClient();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("call_p"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"broken"}})"));
    LoopRun first;
    first.start(*client, conversation(), &m_tools, StreamOptions{}, CancellationToken());
    QVERIFY(first.wait());
    const QJsonArray pending = client->pendingState();
    QCOMPARE(pending.size(), 2);

    // The manual compaction: a refused tool call, then an error.
    StreamOptions manual;
    manual.disableToolCalls = true;
    manual.disableAutoCompaction = true;
    manual.keepPendingState = true;
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("call_m"), QStringLiteral("echo"), QStringLiteral(R"({"text":"m"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"no summary"}})"));
    MessageList compaction = conversation();
    compaction.append(Message::user(CompactionPrompts::manualPrompt()));
    LoopRun attempt;
    attempt.start(*client, compaction, &m_tools, manual, CancellationToken());
    QVERIFY(attempt.wait());
    QCOMPARE(attempt.events.last().type, StreamEvent::Type::Incomplete);
    QCOMPARE(m_toolRuns.load(), 1);
    // The compaction request carried the pending turn (its summary would have covered it)...
    QCOMPARE(requestMessages(m_server->requests().at(2)).size(), 5);
    // ...and left it as it was, without its own refused call.
    QCOMPARE(client->pendingState(), pending);
    QVERIFY(!QJsonDocument(client->pendingState())
                 .toJson()
                 .contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
}

QTEST_GUILESS_MAIN(TestToolLoopClient)
// An interrupted turn that a later turn carried to the provider is sent as it was sent in the requests after
// it, in place of its replayed calls (the prompt cache); never where the conversation is no longer the one it
// was in: a prompt before it changed, another reply in its place, or after reset().
void TestToolLoopClient::aSentTurnIsUsedOnlyWhereItsReplayIs()
{
    ToolActivity read;
    read.tool = QStringLiteral("echo");
    read.input = QJsonObject{{QStringLiteral("text"), QStringLiteral("x")}};
    read.status = QStringLiteral("success");
    const Message system = Message::system(QStringLiteral("You are a test agent."));
    const Message first = Message::user(QStringLiteral("first"));
    const Message replayed = Message::assistant(QString(), TurnMemory{{read}});
    const Message second = Message::user(QStringLiteral("second"));
    const Message answer = Message::assistant(QStringLiteral("two"));
    const Message third = Message::user(QStringLiteral("third"));

    // The interrupted turn (a call, then the request after it fails), and the turn that carried it.
    auto client = makeClient();
    ClientConfig config = client->protocol().config();
    config.maxAttempts = 1;
    client = std::make_unique<ToolLoopClient>(std::make_unique<OpenAiChatProtocol>(config));
    auto stream = [&](const MessageList &messages) {
        m_server->clearRequests();
        LoopRun run;
        run.start(*client, messages, &m_tools, StreamOptions{}, CancellationToken());
        return run.wait() ? QString::fromUtf8(m_server->requests().constLast().body) : QString();
    };
    auto interruptThenCarry = [&] {
        client->reset();
        m_server->enqueue(FakeProviderServer::sseResponse(
            toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
        m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"broken"}})"));
        stream({system, first});
        m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("two")})));
        return stream({system, first, second});
    };
    const QString carried = interruptThenCarry();
    QVERIFY(carried.contains(QStringLiteral(R"("id":"c1")")));

    // In its place: the provider's own call, as the request before sent it.
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("three")})));
    QString next = stream({system, first, replayed, second, answer, third});
    QVERIFY(next.contains(QStringLiteral(R"("id":"c1")")));
    QVERIFY(!next.contains(QStringLiteral("historical_")));
    QCOMPARE(requestMessages(m_server->requests().constLast()).size(),
             7); // sys, first, call, result, 2, 2, 3

    // Another reply where the replayed turn was: the history as it is, and the sent turn forgotten.
    Message other = Message::assistant(QStringLiteral("a different reply"));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("three")})));
    next = stream({system, first, other, second, answer, third});
    QVERIFY(!next.contains(QStringLiteral(R"("id":"c1")")));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("three")})));
    next = stream({system, first, replayed, second, answer, third});
    QVERIFY(!next.contains(QStringLiteral(R"("id":"c1")")));
    QVERIFY(next.contains(QStringLiteral("historical_")));

    // A prompt before it that changed.
    interruptThenCarry();
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("three")})));
    next = stream({system, Message::user(QStringLiteral("first, edited")), replayed, second, answer, third});
    QVERIFY(!next.contains(QStringLiteral(R"("id":"c1")")));

    // Two turns interrupted one after the other are carried together and join the history together, each
    // as one replayed message after its prompt: both are sent as they were.
    client->reset();
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c1"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"broken"}})"));
    stream({system, first});
    m_server->enqueue(FakeProviderServer::sseResponse(
        toolBody({{QStringLiteral("c2"), QStringLiteral("echo"), QStringLiteral(R"({"text":"x"})")}})));
    m_server->enqueue(FakeProviderServer::jsonResponse(400, R"({"error":{"message":"broken"}})"));
    stream({system, first, second});
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("three")})));
    QVERIFY(stream({system, first, second, third}).contains(QStringLiteral(R"("id":"c2")")));
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("four")})));
    next = stream({system, first, replayed, second, replayed, third,
                   Message::assistant(QStringLiteral("three")), Message::user(QStringLiteral("fourth"))});
    QVERIFY(next.contains(QStringLiteral(R"("id":"c1")")));
    QVERIFY(next.contains(QStringLiteral(R"("id":"c2")")));
    QVERIFY(!next.contains(QStringLiteral("historical_")));

    // After reset() (a new session, an undone compaction).
    interruptThenCarry();
    client->reset();
    m_server->enqueue(FakeProviderServer::sseResponse(textBody({QStringLiteral("three")})));
    next = stream({system, first, replayed, second, answer, third});
    QVERIFY(!next.contains(QStringLiteral(R"("id":"c1")")));
    QVERIFY(next.contains(QStringLiteral("historical_")));
}

#include "tst_toolloopclient.moc"
