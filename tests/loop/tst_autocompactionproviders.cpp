// Automatic compaction through the shared tool loop for all six provider protocols (OpenAI Chat Completions,
// OpenAI Responses, OpenAI Codex, Anthropic, Gemini, Bedrock) against the loopback fake provider (seed
// "Automatic compaction", S34-S48; issue 5 "Tests"). Each provider's stream bodies are scripted here:
// one tool turn under a large system prompt, then the private compaction request, then the resumed parent
// request. Prompt-cache parity is proven against a second run of the same script with a huge context window,
// whose second request is exactly the parent request the compaction request stands in for.

#include "fakeproviderserver.h"
#include "protocoltestsupport.h"
#include "providerscript.h"
#include "testenvironment.h"

#include "loop/autocompactiongate.h"
#include "loop/compactionprompts.h"
#include "loop/compactionslicer.h"
#include "loop/contextbudget.h"
#include "loop/toolloopclient.h"
#include "tools/toolregistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

using namespace keen;
using namespace keen::test;
using ProviderScript::contentKey;
using ProviderScript::finalUserText;
using ProviderScript::historyKey;
using ProviderScript::isAlternating;
using ProviderScript::textOf;
using ProviderScript::withoutCacheMarkers;

// Declared before the helpers: moc's tokenizer loses track in string literals with escaped quotes.
class TestAutoCompactionProviders final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aMessageCutToFitIsCalledAMessage();
    void triggerAndPromptCacheParity_S34_S35_S36_S37_S44_data();
    void triggerAndPromptCacheParity_S34_S35_S36_S37_S44();
    void toolCallsRefusedInOneShotCompaction_S14_S38_data();
    void toolCallsRefusedInOneShotCompaction_S14_S38();
    void nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48_data();
    void nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48();
    void failedCompactionSendsParentUnchanged_S46_data();
    void failedCompactionSendsParentUnchanged_S46();
    void compactionSeesNativeLoopAndGenericHistory_data();
    void compactionSeesNativeLoopAndGenericHistory();
    void contextLengthErrorNeverStartsCompaction_data();
    void contextLengthErrorNeverStartsCompaction();
    void contextLengthErrorWithTheGateOpenNeverCompacts_S6_data();
    void contextLengthErrorWithTheGateOpenNeverCompacts_S6();
    void compactionRequestsCarryTheTurnsProgressAndResults_S15_data();
    void compactionRequestsCarryTheTurnsProgressAndResults_S15();
    void stillOverBudgetAfterCompactionGoesOutUnchanged_data();
    void stillOverBudgetAfterCompactionGoesOutUnchanged();
    void noRoomForAnyCompactionRequest_data();
    void noRoomForAnyCompactionRequest();
    void overBudgetRequestKeepsEveryToolResult_data();
    void overBudgetRequestKeepsEveryToolResult();
    void interruptedTurnStillCompactsNextTurn_data();
    void interruptedTurnStillCompactsNextTurn();
    void anInterruptedTurnIsReplayedAfterItsPrompt_data();
    void anInterruptedTurnIsReplayedAfterItsPrompt();
    void replayedCallIdsAreNumberedInTheWholeConversation_data();
    void replayedCallIdsAreNumberedInTheWholeConversation();
    void fiveCompactionsDoNotNest_data();
    void fiveCompactionsDoNotNest();
    void compactionUsageSumsNestedRequests_data();
    void compactionUsageSumsNestedRequests();
    void nestedRequestGivesUpAfterAFewToolRounds_data();
    void nestedRequestGivesUpAfterAFewToolRounds();
    void overBudgetCompactionIsSlicedAndCut_data();
    void overBudgetCompactionIsSlicedAndCut();
    void tooManyPartsLeaveOutOldestOutputs_data();
    void tooManyPartsLeaveOutOldestOutputs();
    void manualCompactionIsSlicedToo_data();
    void manualCompactionIsSlicedToo();

private:
    static void addProviders();
};

namespace {

const qint64 SmallWindow =
    20000; // budget 15904, threshold 14314 tokens: a 45000-byte system prompt crosses it
const qint64 HugeWindow = 10000000; // never crossed

QString systemText()
{
    return QStringLiteral("You are Keen. ") + QString(45000, QLatin1Char('s'));
}

QString userText()
{
    return QStringLiteral("implement this exactly");
}

FakeProviderServer::Response toolCallResponse(const QString &provider, const QString &id,
                                              const QString &arguments)
{
    return ProviderScript::toolCall(provider, id, QStringLiteral("echo"), arguments);
}

FakeProviderServer::Response textResponse(const QString &provider, const QString &text)
{
    return ProviderScript::text(provider, text);
}

std::unique_ptr<ProviderProtocol> makeProtocol(const QString &provider, const QUrl &base, qint64 window)
{
    return ProviderScript::makeProtocol(provider, base, window);
}

struct Run
{
    bool finished = false;
    QList<StreamEvent> events;
    QList<QJsonObject> bodies; // every request body, in order
    QList<QByteArray> rawBodies;
    int toolRuns = 0;
    int unusedResponses = 0;

    QString text() const
    {
        QString text;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::Chunk)
                text += event.content;
        }
        return text;
    }
    QList<StreamEvent> ofType(StreamEvent::Type type) const
    {
        QList<StreamEvent> result;
        for (const StreamEvent &event : events) {
            if (event.type == type)
                result.append(event);
        }
        return result;
    }
    QStringList compactionEvents() const
    {
        QStringList names;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::AutoCompactionStarted ||
                event.type == StreamEvent::Type::AutoCompactionApplied ||
                event.type == StreamEvent::Type::AutoCompactionFailed ||
                event.type == StreamEvent::Type::AutoCompactionCancelled)
                names.append(event.typeName());
        }
        return names;
    }
};

// The echo tool; it can interrupt the stream it runs in, as a person's Ctrl+C during a tool run does.
class EchoTool final : public Tool
{
public:
    explicit EchoTool(QJsonValue output)
        : m_output(std::move(output))
    {}
    QString name() const override { return QStringLiteral("echo"); }
    QString description() const override { return QStringLiteral("Echoes text back."); }
    QJsonObject inputSchema() const override
    {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                           {QStringLiteral("properties"),
                            QJsonObject{{QStringLiteral("text"),
                                         QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}}};
    }
    // A null output echoes the input's text.
    ToolResult execute(const QJsonObject &input, ToolContext &context) override
    {
        ++runs;
        if (interruptNextRun.exchange(false))
            context.cancel.cancel();
        {
            std::lock_guard lock(m_mutex);
            if (!m_nextOutputs.isEmpty())
                return ToolResult::success(m_nextOutputs.takeFirst());
        }
        if (m_output.isNull())
            return ToolResult::success(
                QJsonObject{{QStringLiteral("echo"), input.value(QStringLiteral("text"))}});
        return ToolResult::success(m_output);
    }
    // The outputs of the next runs, one each, before the constructor's output applies again.
    void queueOutputs(const QList<QJsonValue> &outputs)
    {
        std::lock_guard lock(m_mutex);
        m_nextOutputs += outputs;
    }
    std::atomic_int runs{0};
    std::atomic_bool interruptNextRun{false};

private:
    QJsonValue m_output;
    std::mutex m_mutex;
    QList<QJsonValue> m_nextOutputs;
};

// One provider client on the loopback fake provider, kept across streams (pending state lives in it).
class Harness
{
public:
    Harness(const QString &provider, qint64 window,
            const QJsonValue &toolOutput = QJsonObject{{QStringLiteral("echo"), QStringLiteral("x")}})
        : m_provider(provider)
        , m_echo(std::make_shared<EchoTool>(toolOutput))
        , m_client(makeProtocol(provider, m_server.baseUrl(), window))
    {
        m_tools.add(m_echo);
    }

    // One streamChat answered from responses; the run holds only this stream's requests.
    Run stream(const MessageList &messages, const QList<FakeProviderServer::Response> &responses,
               StreamOptions options = {})
    {
        m_server.clearRequests();
        for (const FakeProviderServer::Response &response : responses)
            m_server.enqueue(response);
        const int runsBefore = m_echo->runs;
        std::mutex mutex;
        Run run;
        QList<StreamEvent> events;
        std::atomic_bool finished = false;
        options.sessionId = QStringLiteral("1234-5678");
        std::thread worker([&] {
            m_client.streamChat(messages, &m_tools, options, CancellationToken(),
                                [&](const StreamEvent &event) {
                                    std::lock_guard lock(mutex);
                                    events.append(event);
                                });
            finished = true;
        });
        run.finished = FakeProviderServer::spinUntil([&] { return finished.load(); }, 20000);
        if (!run.finished)
            m_server.closeAllConnections();
        worker.join();
        run.events = events;
        for (const FakeProviderServer::Request &request : m_server.requests()) {
            run.bodies.append(request.json.object());
            run.rawBodies.append(request.body);
        }
        run.toolRuns = m_echo->runs - runsBefore;
        run.unusedResponses = int(m_server.pendingResponses());
        return run;
    }

    // One streamChat where every compaction request (its final user text is prompt), however many there
    // are, is answered with "## Goal\nsummary part N" and every other request with the next of parent,
    // chosen as the request arrives.
    Run streamAnswering(const MessageList &messages, QList<FakeProviderServer::Response> parent,
                        const QString &prompt = CompactionPrompts::automaticPrompt(),
                        StreamOptions options = {})
    {
        int summaries = 0;
        const auto connection = QObject::connect(
            &m_server, &FakeProviderServer::requestReceived, &m_server, [&, this](int index) {
                const QJsonObject body = m_server.requests().at(index).json.object();
                if (finalUserText(m_provider, body) == prompt)
                    m_server.enqueue(ProviderScript::text(
                        m_provider, QStringLiteral("## Goal\nsummary part %1").arg(++summaries)));
                else if (!parent.isEmpty())
                    m_server.enqueue(parent.takeFirst());
            });
        Run run = stream(messages, {}, options);
        QObject::disconnect(connection);
        return run;
    }

    EchoTool &echo() { return *m_echo; }
    ToolLoopClient &client() { return m_client; }

private:
    QString m_provider;
    FakeProviderServer m_server;
    std::shared_ptr<EchoTool> m_echo;
    ToolRegistry m_tools;
    ToolLoopClient m_client;
};

// One streamChat of [system, user] with the echo tool, answered from the scripted responses.
Run runScript(const QString &provider, qint64 window, const QList<FakeProviderServer::Response> &responses)
{
    Harness harness(provider, window);
    return harness.stream({Message::system(systemText()), Message::user(userText())}, responses);
}

// The issue 16 case: a file of about 19,000 estimated tokens.
QString bigFile()
{
    QString file = QStringLiteral("BEGIN-OF-FILE\n");
    for (int i = 0; i < 570; ++i)
        file += QString(99, QLatin1Char(char('a' + i % 26))) + QLatin1Char('\n');
    return file + QStringLiteral("END-OF-FILE");
}

bool isCompactionRequest(const QString &provider, const QJsonObject &body)
{
    return finalUserText(provider, body) == CompactionPrompts::automaticPrompt();
}

} // namespace

void TestAutoCompactionProviders::addProviders()
{
    ProviderScript::addProviderRows();
}

void TestAutoCompactionProviders::triggerAndPromptCacheParity_S34_S35_S36_S37_S44_data()
{
    addProviders();
}

// proves S34, S35, S36, S37, S44
void TestAutoCompactionProviders::triggerAndPromptCacheParity_S34_S35_S36_S37_S44()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString args = QStringLiteral("{\"text\":\"x\"}");
    const Run compacted = runScript(provider, SmallWindow,
                                    {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                     textResponse(provider, QStringLiteral("PRIVATE SUMMARY")),
                                     textResponse(provider, QStringLiteral("after"))});
    const Run plain = runScript(provider, HugeWindow,
                                {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                 textResponse(provider, QStringLiteral("after"))});
    QVERIFY(compacted.finished);
    QVERIFY(plain.finished);
    QVERIFY2(plain.events.last().type == StreamEvent::Type::Done, qPrintable(plain.events.last().error));
    QVERIFY2(compacted.events.last().type == StreamEvent::Type::Done,
             qPrintable(compacted.events.last().error));

    // S36: the first request of a turn never compacts; after the tool turn the small window triggers it
    // (S35), the huge one does not.
    QCOMPARE(compacted.bodies.size(), 3);
    QCOMPARE(plain.bodies.size(), 2);
    QCOMPARE(compacted.bodies.at(0), plain.bodies.at(0));
    QVERIFY(!isCompactionRequest(provider, compacted.bodies.at(0)));
    QVERIFY(isCompactionRequest(provider, compacted.bodies.at(1)));
    QVERIFY(!isCompactionRequest(provider, plain.bodies.at(1)));
    QVERIFY(!isCompactionRequest(provider, compacted.bodies.at(2)));
    QVERIFY(plain.compactionEvents().isEmpty());
    QCOMPARE(compacted.toolRuns, 1);
    QCOMPARE(plain.toolRuns, 1);

    // S37, S44: the compaction request is the parent request it replaces plus the final prompt. Everything
    // but the history is identical (system field, tool definitions, model, settings, cache keys).
    const QString key = historyKey(provider);
    const QJsonObject compaction = compacted.bodies.at(1);
    const QJsonObject parent = plain.bodies.at(1);
    QJsonObject compactionRest = compaction;
    QJsonObject parentRest = parent;
    compactionRest.remove(key);
    parentRest.remove(key);
    QCOMPARE(compactionRest, parentRest);
    for (const char *field : {"tools", "toolConfig", "system", "systemInstruction", "instructions"}) {
        const QString name = QLatin1String(field);
        QCOMPARE(compaction.contains(name), parent.contains(name));
    }
    QVERIFY(compaction.contains(QStringLiteral("tools")) ||
            compaction.contains(QStringLiteral("toolConfig")));

    const QJsonArray compactionHistory = compaction.value(key).toArray();
    const QJsonArray parentHistory = parent.value(key).toArray();
    if (!isAlternating(provider)) {
        // The prompt is one more message after the parent's history, byte for byte the same before it.
        QCOMPARE(compactionHistory.size(), parentHistory.size() + 1);
        for (qsizetype i = 0; i < parentHistory.size(); ++i)
            QCOMPARE(compactionHistory.at(i), parentHistory.at(i));
        QCOMPARE(compactionHistory.last().toObject(),
                 (QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                              {QStringLiteral("content"), CompactionPrompts::automaticPrompt()}}));
    } else {
        // Turns must alternate: the prompt joins the trailing user message (the tool results) as a final
        // text block. Every earlier message is identical; the last one starts with the same blocks.
        QCOMPARE(compactionHistory.size(), parentHistory.size());
        for (qsizetype i = 0; i + 1 < parentHistory.size(); ++i)
            QCOMPARE(compactionHistory.at(i), parentHistory.at(i));
        const QJsonObject last = compactionHistory.last().toObject();
        const QJsonObject parentLast = parentHistory.last().toObject();
        QCOMPARE(last.value(QStringLiteral("role")), parentLast.value(QStringLiteral("role")));
        const QJsonArray blocks = withoutCacheMarkers(last.value(contentKey(provider)).toArray());
        const QJsonArray parentBlocks = withoutCacheMarkers(parentLast.value(contentKey(provider)).toArray());
        QCOMPARE(blocks.size(), parentBlocks.size() + 1);
        for (qsizetype i = 0; i < parentBlocks.size(); ++i)
            QCOMPARE(blocks.at(i), parentBlocks.at(i));
        QCOMPARE(textOf(blocks.last()), CompactionPrompts::automaticPrompt());
    }
}

void TestAutoCompactionProviders::toolCallsRefusedInOneShotCompaction_S14_S38_data()
{
    addProviders();
}

// proves S14, S38
void TestAutoCompactionProviders::toolCallsRefusedInOneShotCompaction_S14_S38()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const Run run =
        runScript(provider, SmallWindow,
                  {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
                   toolCallResponse(provider, QStringLiteral("call_2"), QStringLiteral("{\"text\":\"y\"}")),
                   textResponse(provider, QStringLiteral("PRIVATE SUMMARY")),
                   textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    QCOMPARE(run.bodies.size(), 4);
    QVERIFY(isCompactionRequest(provider, run.bodies.at(1)));

    // The tool the compaction model asked for never ran; its refusal went back to the model (S14, S38).
    QCOMPARE(run.toolRuns, 1);
    const QString key = historyKey(provider);
    QCOMPARE(run.bodies.at(2).value(key).toArray().size(), run.bodies.at(1).value(key).toArray().size() + 2);
    QVERIFY(run.rawBodies.at(2).contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
    QVERIFY(!run.rawBodies.at(1).contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
    // The follow-up is still the compaction conversation, not the parent's.
    QVERIFY(run.rawBodies.at(2).contains("Compact this conversation."));

    // Nothing of the nested request reached the parent: one tool start (the parent's), no summary (S39).
    QCOMPARE(run.ofType(StreamEvent::Type::ToolStart).size(), 1);
    QCOMPARE(run.text(), QStringLiteral("after"));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    const StreamEvent applied = run.ofType(StreamEvent::Type::AutoCompactionApplied).first();
    QVERIFY(applied.autoCompaction->replacement.last().content.contains(QStringLiteral("PRIVATE SUMMARY")));
    QVERIFY(!isCompactionRequest(provider, run.bodies.at(3)));
    QVERIFY(!run.rawBodies.at(3).contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
}

void TestAutoCompactionProviders::nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48_data()
{
    addProviders();
}

// proves S39, S41, S43, S44, S45, S47, S48
void TestAutoCompactionProviders::nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const Run run =
        runScript(provider, SmallWindow,
                  {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
                   textResponse(provider, QStringLiteral("PRIVATE SUMMARY")),
                   textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    QCOMPARE(run.bodies.size(), 3);

    // S39, S48: the summary stays private; the lifecycle is started, then applied.
    QCOMPARE(run.text(), QStringLiteral("after"));
    for (const StreamEvent &event : run.events)
        QVERIFY(!event.content.contains(QStringLiteral("PRIVATE SUMMARY")));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    const StreamEvent applied = run.ofType(StreamEvent::Type::AutoCompactionApplied).first();
    const MessageList replacement = applied.autoCompaction->replacement;
    QCOMPARE(replacement.size(), 2);
    QCOMPARE(replacement.at(0), Message::system(systemText())); // S41
    const QString compactedText = replacement.at(1).content;
    QVERIFY(compactedText.contains(QStringLiteral("<compacted_context>")));
    QVERIFY(compactedText.contains(QStringLiteral("PRIVATE SUMMARY")));
    QVERIFY(compactedText.contains(QStringLiteral("<last_user_message>")));
    QVERIFY(compactedText.endsWith(userText() + QStringLiteral("\n</last_user_message>"))); // S42

    // S43, S47: the resumed parent request carries the replacement in the provider's native shape.
    const QString key = historyKey(provider);
    const QJsonObject first = run.bodies.at(0);
    const QJsonObject resumed = run.bodies.at(2);
    const QJsonArray history = resumed.value(key).toArray();
    const QJsonObject lastMessage = history.last().toObject();
    QCOMPARE(lastMessage.value(QStringLiteral("role")).toString(), QStringLiteral("user"));
    QCOMPARE(finalUserText(provider, resumed), compactedText);
    if (provider == QLatin1String("openai-compatible") || provider == QLatin1String("openai")) {
        // The system message is rebuilt as the first message (Chat) or input item (Responses).
        QCOMPARE(history.size(), 2);
        QCOMPARE(history.at(0), first.value(key).toArray().at(0));
        QCOMPARE(history.at(0)[QStringLiteral("role")].toString(), QStringLiteral("system"));
        QCOMPARE(history.at(0)[QStringLiteral("content")].toString(), systemText());
        QCOMPARE(lastMessage.value(QStringLiteral("content")).toString(), compactedText);
    } else if (provider == QLatin1String("openai-codex")) {
        QCOMPARE(resumed.value(QStringLiteral("instructions")).toString(), systemText());
        QCOMPARE(history.size(), 1);
        QCOMPARE(lastMessage.value(QStringLiteral("content")).toString(), compactedText);
    } else {
        QCOMPARE(history.size(), 1);
        const QJsonArray blocks = withoutCacheMarkers(lastMessage.value(contentKey(provider)).toArray());
        QCOMPARE(blocks.size(), 1);
        QCOMPARE(textOf(blocks.at(0)), compactedText);
        const QString systemField = provider == QLatin1String("googleai")
                                        ? QStringLiteral("systemInstruction")
                                        : QStringLiteral("system");
        QVERIFY(resumed.contains(systemField));
        QCOMPARE(resumed.value(systemField), first.value(systemField)); // system blocks kept byte-identical
    }
    // Everything but the history (system field, tool definitions, model, settings) equals the turn's first
    // request: the tool definitions are attached again (S44).
    QJsonObject resumedRest = resumed;
    QJsonObject firstRest = first;
    resumedRest.remove(key);
    firstRest.remove(key);
    QCOMPARE(resumedRest, firstRest);
    QVERIFY(resumed.contains(QStringLiteral("tools")) || resumed.contains(QStringLiteral("toolConfig")));
    QCOMPARE(run.rawBodies.at(2).count("PRIVATE SUMMARY"), 1);
}

void TestAutoCompactionProviders::failedCompactionSendsParentUnchanged_S46_data()
{
    addProviders();
}

// proves S46
void TestAutoCompactionProviders::failedCompactionSendsParentUnchanged_S46()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString args = QStringLiteral("{\"text\":\"x\"}");
    const Run failed = runScript(provider, SmallWindow,
                                 {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                  ProviderScript::badRequest(provider, QStringLiteral("compaction refused")),
                                  textResponse(provider, QStringLiteral("after"))});
    const Run plain = runScript(provider, HugeWindow,
                                {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                 textResponse(provider, QStringLiteral("after"))});
    QVERIFY(failed.finished);
    QVERIFY(plain.finished);
    QVERIFY2(failed.events.last().type == StreamEvent::Type::Done, qPrintable(failed.events.last().error));
    QCOMPARE(failed.bodies.size(), 3);
    QCOMPARE(plain.bodies.size(), 2);
    QVERIFY(isCompactionRequest(provider, failed.bodies.at(1)));
    // The original parent request goes on exactly as it would have without compaction.
    QCOMPARE(failed.bodies.at(2), plain.bodies.at(1));
    QCOMPARE(failed.rawBodies.at(2), plain.rawBodies.at(1));
    QCOMPARE(failed.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionFailed)}));
    const StreamEvent failure = failed.ofType(StreamEvent::Type::AutoCompactionFailed).first();
    QVERIFY2(failure.autoCompaction->error.contains(QStringLiteral("compaction refused")),
             qPrintable(failure.autoCompaction->error));
    QVERIFY(failed.ofType(StreamEvent::Type::Retry).isEmpty());
    QCOMPARE(failed.text(), QStringLiteral("after"));
}

void TestAutoCompactionProviders::compactionSeesNativeLoopAndGenericHistory_data()
{
    addProviders();
}

// proves S7, S8, S15: during the stream the loop keeps the provider's native history (the compaction request
// carries this loop's tool call and its full raw result in the provider's own shape) and the generic
// history (the replacement is built from neutral messages: the system message as written, the user's words).
void TestAutoCompactionProviders::compactionSeesNativeLoopAndGenericHistory()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    // Small enough that the seed's single compaction request fits the input budget (issue 16 slices it
    // otherwise); the system prompt alone crosses the threshold.
    const QString marker = QStringLiteral("RAW-OUTPUT-7f3e ") + QString(300, QLatin1Char('r'));
    Harness harness(provider, SmallWindow, QJsonObject{{QStringLiteral("found"), marker}});
    const Run run = harness.stream(
        {Message::system(systemText()), Message::user(userText())},
        {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"probe\"}")),
         textResponse(provider, QStringLiteral("## Goal\nsummary")),
         textResponse(provider, QStringLiteral("ok"))});
    QVERIFY(run.finished);
    QCOMPARE(run.bodies.size(), 3);
    QVERIFY(isCompactionRequest(provider, run.bodies.at(1)));
    const QByteArray compaction = run.rawBodies.at(1);
    // Native: the tool call with its arguments and the whole raw result, in the provider's shape (S7, S8).
    QVERIFY(compaction.contains(marker.toUtf8()));
    QVERIFY(compaction.contains("probe"));
    const QJsonArray history = run.bodies.at(1).value(historyKey(provider)).toArray();
    const QByteArray historyBytes = QJsonDocument(history).toJson(QJsonDocument::Compact);
    if (provider == QLatin1String("openai-compatible"))
        QVERIFY(historyBytes.contains("\"tool_calls\"") && historyBytes.contains("\"role\":\"tool\""));
    else if (ProviderScript::isResponses(provider))
        QVERIFY(historyBytes.contains("\"function_call\"") &&
                historyBytes.contains("\"function_call_output\""));
    else if (provider == QLatin1String("anthropic"))
        QVERIFY(historyBytes.contains("\"tool_use\"") && historyBytes.contains("\"tool_result\""));
    else if (provider == QLatin1String("googleai"))
        QVERIFY(historyBytes.contains("\"functionCall\"") && historyBytes.contains("\"functionResponse\""));
    else
        QVERIFY(historyBytes.contains("\"toolUse\"") && historyBytes.contains("\"toolResult\""));
    // The active loop's progress and results are what the automatic prompt asks to keep (S15).
    QVERIFY(CompactionPrompts::automaticPrompt().contains(
        QStringLiteral("Keep the progress of the current task")));
    QVERIFY(CompactionPrompts::automaticPrompt().contains(
        QStringLiteral("every tool result that still matters")));
    // Generic: neutral messages, no wire shapes (S7).
    const MessageList replacement =
        run.ofType(StreamEvent::Type::AutoCompactionApplied).first().autoCompaction->replacement;
    QCOMPARE(replacement.size(), 2);
    QCOMPARE(replacement.at(0), Message::system(systemText()));
    QCOMPARE(replacement.at(1).role, Message::Role::User);
    QVERIFY(!replacement.at(1).turnMemory);
    QVERIFY(replacement.at(1).content.contains(QStringLiteral("## Goal\nsummary")));
}

void TestAutoCompactionProviders::contextLengthErrorNeverStartsCompaction_data()
{
    addProviders();
}

// proves S6 for every provider: automatic compaction enabled, the estimate above the threshold, and the
// provider's context-window error is the turn's error; no compaction request, no retry.
void TestAutoCompactionProviders::contextLengthErrorNeverStartsCompaction()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    QVERIFY(ContextBudget::shouldAutoCompact(ContextBudget::estimateTokens(systemText().size()),
                                             ContextBudget::inputBudget(SmallWindow)));
    const Run run = runScript(provider, SmallWindow, {ProviderScript::contextLengthError(provider)});
    QVERIFY(run.finished);
    QCOMPARE(run.bodies.size(), 1);
    QCOMPARE(run.events.last().type, StreamEvent::Type::Error);
    QVERIFY2(run.events.last().error.contains(ProviderScript::contextErrorText(provider)),
             qPrintable(run.events.last().error));
    QVERIFY(run.compactionEvents().isEmpty());
    QVERIFY(run.ofType(StreamEvent::Type::Retry).isEmpty());
}

void TestAutoCompactionProviders::contextLengthErrorWithTheGateOpenNeverCompacts_S6_data()
{
    addProviders();
}

// proves S6 with the gate open: a tool turn has completed, a proactive compaction succeeded (nothing is
// suppressed) and the estimate of the resumed request is still at the threshold (the system prompt alone
// crosses it) though within the input budget. So when the provider refuses that request as too long, every
// precondition of an automatic compaction holds: were the error path to compact (call maybeAutoCompact, or
// compact and retry), a second compaction request would go out here, and it would be answered. None goes out:
// the provider's error ends the turn as it said it, the replacement already applied stays the history.
void TestAutoCompactionProviders::contextLengthErrorWithTheGateOpenNeverCompacts_S6()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    Harness harness(provider, SmallWindow);
    // Every compaction request, however many, is answered with a summary; the parent requests with a tool
    // call, then the context-window error, then a reply only a retry after a compaction would get.
    const Run run = harness.streamAnswering(
        {Message::system(systemText()), Message::user(userText())},
        {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
         ProviderScript::contextLengthError(provider),
         textResponse(provider, QStringLiteral("RETRIED AFTER A REACTIVE COMPACTION"))});
    QVERIFY(run.finished);

    // The turn's own proactive compaction, before the second parent request, was applied (S35, S47).
    QCOMPARE(run.toolRuns, 1);
    QCOMPARE(run.bodies.size(), 3);
    QVERIFY(!isCompactionRequest(provider, run.bodies.at(0)));
    QVERIFY(isCompactionRequest(provider, run.bodies.at(1)));
    QVERIFY(!isCompactionRequest(provider, run.bodies.at(2)));
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 1);
    const MessageList replacement = applied.first().autoCompaction->replacement;
    QCOMPARE(finalUserText(provider, run.bodies.at(2)), replacement.last().content);

    // The gate was open when the error came: a tool turn, no suppression, not one-shot, automatic on, and an
    // estimate at the threshold (the system prompt alone, a lower bound of the loop's estimate, reaches it);
    // the refused request was within the input budget, so this is not S5's over-budget request.
    AutoCompactionGate gate;
    gate.newToolTurn = true;
    gate.estimatedTokens = ContextBudget::estimateTokens(systemText().size());
    gate.budget = ContextBudget::inputBudget(SmallWindow);
    QVERIFY(gate.allows());
    QVERIFY(ContextBudget::estimateTokens(run.rawBodies.at(2).size()) <=
            ContextBudget::inputBudget(SmallWindow));

    // S6: no second compaction, no retry; the provider's error is the turn's error.
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    QVERIFY(run.ofType(StreamEvent::Type::Retry).isEmpty());
    QVERIFY(run.ofType(StreamEvent::Type::Done).isEmpty());
    QVERIFY(!run.text().contains(QStringLiteral("RETRIED")));
    // Nothing was done after the replacement, so the turn fails (no pending state to carry): the history the
    // app keeps is the replacement it persisted when the compaction applied.
    QCOMPARE(run.events.last().type, StreamEvent::Type::Error);
    QVERIFY2(run.events.last().error.contains(ProviderScript::contextErrorText(provider)),
             qPrintable(run.events.last().error));
    QVERIFY(harness.client().pendingState().isEmpty());
}

void TestAutoCompactionProviders::compactionRequestsCarryTheTurnsProgressAndResults_S15_data()
{
    addProviders();
}

// proves S15 in behaviour: what an automatic summary can preserve is what its request carries. The first
// compaction request of a turn carries the turn's tool calls and their raw results, which no saved history
// holds yet; a second compaction in the same turn carries the first replacement (its summary, the person's
// words) and the tool work done since, and nothing of the history the first summary replaced.
void TestAutoCompactionProviders::compactionRequestsCarryTheTurnsProgressAndResults_S15()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString firstResult = QStringLiteral("TOOL-RESULT-ONE-a71c ") + QString(300, QLatin1Char('r'));
    const QString secondResult = QStringLiteral("TOOL-RESULT-TWO-e5d0 ") + QString(300, QLatin1Char('q'));
    const QString firstSummary = QStringLiteral("## Goal\nSUMMARY-ONE-4b1d: read the first probe");
    Harness harness(provider, SmallWindow);
    harness.echo().queueOutputs({QJsonObject{{QStringLiteral("found"), firstResult}},
                                 QJsonObject{{QStringLiteral("found"), secondResult}}});
    const MessageList messages{Message::system(systemText()), Message::user(userText())};
    const Run run =
        harness.stream(messages, {toolCallResponse(provider, QStringLiteral("call_1"),
                                                   QStringLiteral("{\"text\":\"first-probe-11\"}")),
                                  textResponse(provider, firstSummary),
                                  toolCallResponse(provider, QStringLiteral("call_2"),
                                                   QStringLiteral("{\"text\":\"second-probe-22\"}")),
                                  textResponse(provider, QStringLiteral("## Goal\nSUMMARY-TWO-9c8e")),
                                  textResponse(provider, QStringLiteral("all done"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    QCOMPARE(run.toolRuns, 2);
    QCOMPARE(run.bodies.size(), 5);
    QCOMPARE(run.ofType(StreamEvent::Type::AutoCompactionApplied).size(), 2);
    QVERIFY(isCompactionRequest(provider, run.bodies.at(1)));
    QVERIFY(isCompactionRequest(provider, run.bodies.at(3)));
    for (const int parent : {0, 2, 4})
        QVERIFY(!isCompactionRequest(provider, run.bodies.at(parent)));
    // Unsaved: the conversation the turn started from holds none of the turn's results.
    for (const Message &message : messages)
        QVERIFY(!message.content.contains(QStringLiteral("TOOL-RESULT")));

    // The order in a request: the work (summary so far, calls, results) before the final prompt.
    auto before = [](const QByteArray &body, const QByteArray &earlier, const QByteArray &later) {
        const qsizetype at = body.indexOf(earlier);
        return at >= 0 && at < body.indexOf(later);
    };
    const QByteArray prompt = "Compact this conversation.";

    // The first compaction: this turn's call and its whole raw result.
    const QByteArray first = run.rawBodies.at(1);
    QVERIFY(first.contains(firstResult.toUtf8()));
    QVERIFY(first.contains("first-probe-11"));
    QVERIFY(first.contains(userText().toUtf8()));
    QVERIFY(before(first, "first-probe-11", "TOOL-RESULT-ONE-a71c"));
    QVERIFY(before(first, "TOOL-RESULT-ONE-a71c", prompt));

    // The second: the first replacement (its summary and the person's words) and the newer call and result.
    const QByteArray second = run.rawBodies.at(3);
    QCOMPARE(second.count("<compacted_context>"), 1);
    QVERIFY(second.contains("SUMMARY-ONE-4b1d: read the first probe"));
    QVERIFY(second.contains("<last_user_message>"));
    QVERIFY(second.contains(userText().toUtf8()));
    QVERIFY(second.contains(secondResult.toUtf8()));
    QVERIFY(second.contains("second-probe-22"));
    QVERIFY(before(second, "SUMMARY-ONE-4b1d", "second-probe-22"));
    QVERIFY(before(second, "second-probe-22", "TOOL-RESULT-TWO-e5d0"));
    QVERIFY(before(second, "TOOL-RESULT-TWO-e5d0", prompt));
    // What the first summary replaced is not sent again.
    QVERIFY(!second.contains("TOOL-RESULT-ONE-a71c"));
    QVERIFY(!second.contains("first-probe-11"));

    // The turn goes on from the second replacement.
    const MessageList last =
        run.ofType(StreamEvent::Type::AutoCompactionApplied).last().autoCompaction->replacement;
    QVERIFY(last.last().content.contains(QStringLiteral("SUMMARY-TWO-9c8e")));
    QCOMPARE(finalUserText(provider, run.bodies.at(4)), last.last().content);
    QCOMPARE(run.text(), QStringLiteral("all done"));
}

void TestAutoCompactionProviders::stillOverBudgetAfterCompactionGoesOutUnchanged_data()
{
    addProviders();
}

// proves S5, S4: the model's summary is so long that even the compacted request is over the input budget.
// It is sent as built from the replacement, nothing pruned or shortened, and the provider's context-window
// error ends the turn through the normal error path, without a second compaction.
void TestAutoCompactionProviders::stillOverBudgetAfterCompactionGoesOutUnchanged()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString system = systemText();
    const QString longSummary = QStringLiteral("## Goal\n") + QString(20000, QLatin1Char('g'));
    QVERIFY(ContextBudget::estimateTokens(system.size() + longSummary.size()) >
            ContextBudget::inputBudget(SmallWindow));
    Harness harness(provider, SmallWindow);
    const MessageList messages{Message::system(system), Message::user(userText())};
    const Run run = harness.stream(
        messages, {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
                   textResponse(provider, longSummary), ProviderScript::contextLengthError(provider)});
    QVERIFY(run.finished);
    QCOMPARE(run.bodies.size(), 3);
    QVERIFY(isCompactionRequest(provider, run.bodies.at(1)));
    // The seed's single compaction request: it fit the budget.
    QVERIFY(ContextBudget::estimateTokens(run.rawBodies.at(1).size()) <=
            ContextBudget::inputBudget(SmallWindow));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    const MessageList replacement =
        run.ofType(StreamEvent::Type::AutoCompactionApplied).first().autoCompaction->replacement;
    QVERIFY(run.ofType(StreamEvent::Type::AutoCompactionApplied)
                .first()
                .autoCompaction->strategy.isSingleRequest());

    // The resumed request is exactly the protocol's request for the replacement, over the budget.
    std::unique_ptr<ProviderProtocol> protocol =
        makeProtocol(provider, QUrl(QStringLiteral("http://127.0.0.1:1")), SmallWindow);
    QVERIFY(protocol->prepare(CancellationToken()));
    const NativeHistory native = protocol->rebuildAfterCompaction(protocol->toNative(messages), replacement);
    RequestContext context;
    context.options.sessionId = QStringLiteral("1234-5678");
    context.stableIndex = int(native.messages.size()) - 1;
    ToolRegistry tools;
    tools.add(std::make_shared<EchoTool>(QJsonValue()));
    const QJsonObject expected =
        QJsonDocument::fromJson(protocol->buildRequest(native, tools.specs(), context).body).object();
    QCOMPARE(run.bodies.at(2), expected);
    QVERIFY(ContextBudget::estimateTokens(run.rawBodies.at(2).size()) >
            ContextBudget::inputBudget(SmallWindow));
    QVERIFY(run.rawBodies.at(2).contains(system.toUtf8()));             // the whole system prompt
    QVERIFY(run.rawBodies.at(2).contains(longSummary.mid(9).toUtf8())); // and the whole summary

    // The provider's error, as the provider said it, ends the turn.
    QCOMPARE(run.events.last().type, StreamEvent::Type::Error);
    QVERIFY2(run.events.last().error.contains(ProviderScript::contextErrorText(provider)),
             qPrintable(run.events.last().error));
    QVERIFY(run.ofType(StreamEvent::Type::Retry).isEmpty());
}

void TestAutoCompactionProviders::noRoomForAnyCompactionRequest_data()
{
    addProviders();
}

// Issue 16 with S5, S46: the system prompt alone is over the input budget, so no compaction request can fit.
// None is sent; the compaction fails with that reason, the parent request goes out unchanged, and the
// provider's context-window error is the turn's error, as the provider said it.
void TestAutoCompactionProviders::noRoomForAnyCompactionRequest()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString system = QStringLiteral("You are Keen. ") + QString(60000, QLatin1Char('s'));
    QVERIFY(ContextBudget::estimateTokens(system.size()) > ContextBudget::inputBudget(SmallWindow));
    Harness harness(provider, SmallWindow);
    const Run run = harness.stream(
        {Message::system(system), Message::user(userText())},
        {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
         ProviderScript::contextLengthError(provider)});
    QVERIFY(run.finished);
    QCOMPARE(run.bodies.size(), 2);
    QVERIFY(!isCompactionRequest(provider, run.bodies.at(1)));
    QVERIFY(run.rawBodies.at(1).contains(system.toUtf8()));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionFailed)}));
    const QString why = run.ofType(StreamEvent::Type::AutoCompactionFailed).first().error;
    QVERIFY2(why.contains(QStringLiteral("leave no room")), qPrintable(why));
    // The turn ran a tool, so it ends incomplete (the terminal-event rule), with the provider's words.
    QCOMPARE(run.events.last().type, StreamEvent::Type::Incomplete);
    QVERIFY2(run.events.last().error.contains(ProviderScript::contextErrorText(provider)),
             qPrintable(run.events.last().error));
}

void TestAutoCompactionProviders::overBudgetRequestKeepsEveryToolResult_data()
{
    addProviders();
}

// proves S4: automatic compaction is the only over-budget path. A tool result that alone exceeds the input
// budget goes to the provider whole when the compaction fails, and the request is the one the turn would
// have sent with no compaction at all.
void TestAutoCompactionProviders::overBudgetRequestKeepsEveryToolResult()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString output =
        QStringLiteral("BEGIN ") + QString(60000, QLatin1Char('z')) + QStringLiteral(" END");
    QVERIFY(ContextBudget::estimateTokens(output.size()) > ContextBudget::inputBudget(SmallWindow));
    const QJsonObject result{{QStringLiteral("content"), output}};
    const MessageList messages{Message::system(QStringLiteral("You are Keen.")), Message::user(userText())};
    const QList<FakeProviderServer::Response> plainScript{
        toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
        textResponse(provider, QStringLiteral("after"))};
    Harness failing(provider, SmallWindow, result);
    const Run failed =
        failing.stream(messages, {plainScript.at(0),
                                  ProviderScript::badRequest(provider, QStringLiteral("compaction refused")),
                                  plainScript.at(1)});
    Harness huge(provider, HugeWindow, result);
    const Run plain = huge.stream(messages, plainScript);
    QVERIFY(failed.finished);
    QVERIFY(plain.finished);
    QCOMPARE(failed.bodies.size(), 3);
    QVERIFY(isCompactionRequest(provider, failed.bodies.at(1)));
    QVERIFY(failed.rawBodies.at(2).contains(output.toUtf8()));
    QCOMPARE(failed.bodies.at(2), plain.bodies.at(1));
    QCOMPARE(failed.events.last().type, StreamEvent::Type::Done);
}

void TestAutoCompactionProviders::interruptedTurnStillCompactsNextTurn_data()
{
    addProviders();
}

// Issue 12 point 1, proves S36 (pending state blocks only until reconciled): a turn interrupted during a tool
// run leaves pending state; the next turn replays it and, once a request carrying it has completed, compacts
// when it crosses the threshold. The compaction request carries the interrupted turn's work; after it the
// pending state is gone.
void TestAutoCompactionProviders::interruptedTurnStillCompactsNextTurn()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString marker = QStringLiteral("INTERRUPTED-WORK-5a1b");
    Harness harness(provider, SmallWindow, QJsonValue::Null);
    const MessageList first{Message::system(systemText()), Message::user(userText())};
    harness.echo().interruptNextRun = true; // Ctrl+C while the tool runs
    const Run interrupted =
        harness.stream(first, {toolCallResponse(provider, QStringLiteral("call_1"),
                                                QStringLiteral("{\"text\":\"%1\"}").arg(marker))});
    QVERIFY(interrupted.finished);
    QCOMPARE(interrupted.toolRuns, 1);
    QVERIFY(!harness.client().pendingState().isEmpty());

    MessageList next = first;
    next.append(Message::user(QStringLiteral("go on")));
    const Run resumed = harness.stream(
        next, {toolCallResponse(provider, QStringLiteral("call_2"), QStringLiteral("{\"text\":\"b\"}")),
               textResponse(provider, QStringLiteral("## Goal\nsummary")),
               textResponse(provider, QStringLiteral("done"))});
    QVERIFY(resumed.finished);
    QVERIFY2(resumed.events.last().type == StreamEvent::Type::Done, qPrintable(resumed.events.last().error));
    QCOMPARE(resumed.bodies.size(), 3);
    QVERIFY(resumed.rawBodies.at(0).contains(marker.toUtf8())); // the pending turn is replayed
    QVERIFY(isCompactionRequest(provider, resumed.bodies.at(1)));
    QVERIFY(resumed.rawBodies.at(1).contains(marker.toUtf8())); // and summarised
    QCOMPARE(resumed.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    QVERIFY(!resumed.rawBodies.at(2).contains(marker.toUtf8()));
    const QString replacement = resumed.ofType(StreamEvent::Type::AutoCompactionApplied)
                                    .first()
                                    .autoCompaction->replacement.last()
                                    .content;
    QCOMPARE(finalUserText(provider, resumed.bodies.at(2)), replacement);
    QVERIFY(replacement.endsWith(QStringLiteral("go on\n</last_user_message>")));
    QVERIFY(harness.client().pendingState().isEmpty());
}

void TestAutoCompactionProviders::anInterruptedTurnIsReplayedAfterItsPrompt_data()
{
    addProviders();
}

// Found in the window with Anthropic (thinking on): after Esc during a command, the next message was refused
// with HTTP 400, "Expected `thinking` or `redacted_thinking`, but found `text`". The interrupted prompt and
// the new one are consecutive user messages, which the APIs whose turns alternate merge into one; the
// replayed call and its result went before that merged message, so the model saw its call before the prompt
// it answered, and the call was merged into the reply before it. Then with Gemini, two interrupted turns in a
// row: both replayed calls went after the second prompt, on every protocol. Each replayed turn goes between
// its prompt and the next.
void TestAutoCompactionProviders::anInterruptedTurnIsReplayedAfterItsPrompt()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString first = QStringLiteral("FIRST-INTERRUPTED-CALL-77c2");
    const QString second = QStringLiteral("SECOND-INTERRUPTED-CALL-9d01");
    Harness harness(provider, HugeWindow, QJsonValue::Null);
    MessageList conversation{Message::system(QStringLiteral("You are Keen.")),
                             Message::user(QStringLiteral("an earlier prompt")),
                             Message::assistant(QStringLiteral("AN-EARLIER-REPLY")),
                             Message::user(QStringLiteral("the interrupted prompt"))};
    for (const QString &marker : {first, second}) {
        harness.echo().interruptNextRun = true; // Esc while the tool runs
        const Run interrupted =
            harness.stream(conversation, {toolCallResponse(provider, QStringLiteral("call_") + marker.left(5),
                                                           QStringLiteral("{\"text\":\"%1\"}").arg(marker))});
        QVERIFY(interrupted.finished);
        QVERIFY(!harness.client().pendingState().isEmpty());
        conversation.append(Message::user(marker == first ? QStringLiteral("the next prompt")
                                                          : QStringLiteral("the third prompt")));
    }

    const Run resumed = harness.stream(conversation, {textResponse(provider, QStringLiteral("done"))});
    QVERIFY(resumed.finished);
    QVERIFY2(resumed.events.last().type == StreamEvent::Type::Done, qPrintable(resumed.events.last().error));
    const QByteArray body = resumed.rawBodies.at(0);
    QList<qsizetype> positions;
    for (const QByteArray &text :
         {QByteArray("AN-EARLIER-REPLY"), QByteArray("the interrupted prompt"), first.toUtf8(),
          QByteArray("the next prompt"), second.toUtf8(), QByteArray("the third prompt")})
        positions.append(body.indexOf(text));
    QVERIFY2(!positions.contains(-1), body.constData());
    QVERIFY2(std::is_sorted(positions.cbegin(), positions.cend()), body.constData());
    if (isAlternating(provider)) {
        // The reply before the interrupted prompt is a message of its own, and each later prompt shares the
        // user message of the results before it (the roles alternate).
        const QJsonArray messages = resumed.bodies.at(0).value(historyKey(provider)).toArray();
        QStringList roles;
        for (const QJsonValue &message : messages)
            roles.append(message[QStringLiteral("role")].toString());
        QCOMPARE(roles.size(), 7);
        for (int i = 1; i < roles.size(); ++i)
            QVERIFY2(roles.at(i) != roles.at(i - 1), qPrintable(roles.join(QLatin1Char(' '))));
        const QByteArray lastMessage =
            QJsonDocument(messages.last().toObject()).toJson(QJsonDocument::Compact);
        QVERIFY(lastMessage.contains("the third prompt"));
        QVERIFY(lastMessage.contains(second.toUtf8())); // the echoed result
    }
    QVERIFY(harness.client().pendingState().isEmpty());
}

void TestAutoCompactionProviders::replayedCallIdsAreNumberedInTheWholeConversation_data()
{
    addProviders();
}

// The conversation around pending turns is built in parts: a part numbers the calls it replays from its
// place in the whole conversation, as one build of the whole does, so two parts never share a call id.
void TestAutoCompactionProviders::replayedCallIdsAreNumberedInTheWholeConversation()
{
    QFETCH(QString, provider);
    Harness harness(provider, HugeWindow);
    ToolActivity read;
    read.tool = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")}};
    read.status = QStringLiteral("success");
    const MessageList messages{Message::system(QStringLiteral("You are Keen.")),
                               Message::user(QStringLiteral("read a")),
                               Message::assistant(QStringLiteral("Read it."), TurnMemory{{read}}),
                               Message::user(QStringLiteral("read it again")),
                               Message::assistant(QStringLiteral("Read it again."), TurnMemory{{read}}),
                               Message::user(QStringLiteral("thanks"))};
    const ProviderProtocol &protocol = harness.client().protocol();
    const auto ids = [](const QJsonArray &native) {
        QStringList found;
        const QString text = QString::fromUtf8(QJsonDocument(native).toJson(QJsonDocument::Compact));
        for (const QRegularExpressionMatch &match :
             QRegularExpression(QStringLiteral("historical_\\d+_\\d+")).globalMatch(text))
            found.append(match.captured());
        return found;
    };
    const QStringList whole = ids(protocol.toNative(messages).messages);
    QJsonArray parts = protocol.toNative(messages.first(3)).messages;
    for (const QJsonValue &message : protocol.toNative(messages.mid(3), 3).messages)
        parts.append(message);
    QCOMPARE(ids(parts), whole);
    if (provider != QLatin1String("googleai")) { // Gemini's calls carry no id: name and order match them
        QCOMPARE(whole.size(), 4);               // each call and its result
        QVERIFY(whole.first() != whole.last());
    }
}

void TestAutoCompactionProviders::fiveCompactionsDoNotNest_data()
{
    addProviders();
}

// Issue 12 point 5, proves S41, S42 over repeated compactions: five compactions in one turn, every
// replacement holds the person's words once and has the same size.
void TestAutoCompactionProviders::fiveCompactionsDoNotNest()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    QList<FakeProviderServer::Response> script;
    for (int round = 1; round <= 5; ++round) {
        script.append(toolCallResponse(provider, QStringLiteral("call_%1").arg(round),
                                       QStringLiteral("{\"text\":\"%1\"}").arg(round)));
        script.append(textResponse(provider, QStringLiteral("## Goal\nsummary number %1").arg(round)));
    }
    script.append(textResponse(provider, QStringLiteral("all done")));
    const Run run = runScript(provider, SmallWindow, script);
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 5);
    QList<qsizetype> sizes;
    for (int i = 0; i < applied.size(); ++i) {
        const QString content = applied.at(i).autoCompaction->replacement.last().content;
        QCOMPARE(content.count(QStringLiteral("<compacted_context>")), 1);
        QCOMPARE(content.count(userText()), 1);
        QVERIFY(content.contains(QStringLiteral("summary number %1").arg(i + 1)));
        sizes.append(content.size());
    }
    for (qsizetype size : std::as_const(sizes))
        QCOMPARE(size, sizes.first());
    const QJsonObject last = run.bodies.last();
    QCOMPARE(finalUserText(provider, last), applied.last().autoCompaction->replacement.last().content);
    QCOMPARE(run.rawBodies.last().count("<compacted_context>"), 1);
}

void TestAutoCompactionProviders::compactionUsageSumsNestedRequests_data()
{
    addProviders();
}

// Issue 12 point 4: the applied event carries the usage of every request of the nested stream.
void TestAutoCompactionProviders::compactionUsageSumsNestedRequests()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const Run run =
        runScript(provider, SmallWindow,
                  {ProviderScript::toolCall(provider, QStringLiteral("call_1"), QStringLiteral("echo"),
                                            QStringLiteral("{\"text\":\"x\"}"), 30, 5),
                   ProviderScript::toolCall(provider, QStringLiteral("call_2"), QStringLiteral("echo"),
                                            QStringLiteral("{\"text\":\"y\"}"), 100, 10),
                   ProviderScript::text(provider, QStringLiteral("## Goal\nsummary"), 200, 20),
                   ProviderScript::text(provider, QStringLiteral("after"), 40, 4)});
    QVERIFY(run.finished);
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 1);
    QVERIFY(applied.first().autoCompaction->usage);
    QCOMPARE(applied.first().autoCompaction->usage->inputTokens, 300);
    QCOMPARE(applied.first().autoCompaction->usage->outputTokens, 30);
    const auto usage = run.ofType(StreamEvent::Type::Usage);
    QCOMPARE(usage.size(), 2); // the parent's two requests only
    QCOMPARE(usage.at(0).usage->inputTokens, 30);
    QCOMPARE(usage.at(1).usage->inputTokens, 40);
}

void TestAutoCompactionProviders::nestedRequestGivesUpAfterAFewToolRounds_data()
{
    addProviders();
}

// Issue 12 point 6, proves S46: the nested request refuses tools for a few rounds, then fails with a clear
// reason; the parent request goes out as if no compaction had been tried.
void TestAutoCompactionProviders::nestedRequestGivesUpAfterAFewToolRounds()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString args = QStringLiteral("{\"text\":\"x\"}");
    QList<FakeProviderServer::Response> script{toolCallResponse(provider, QStringLiteral("call_1"), args)};
    for (int round = 0; round <= ToolLoopClient::MaxCompactionToolRounds; ++round)
        script.append(toolCallResponse(provider, QStringLiteral("refused_%1").arg(round), args));
    script.append(textResponse(provider, QStringLiteral("after")));
    const Run run = runScript(provider, SmallWindow, script);
    const Run plain = runScript(provider, HugeWindow,
                                {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                 textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QCOMPARE(run.bodies.size(), 1 + ToolLoopClient::MaxCompactionToolRounds + 1 + 1);
    QCOMPARE(run.toolRuns, 1);
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionFailed)}));
    const QString reason = run.ofType(StreamEvent::Type::AutoCompactionFailed).first().autoCompaction->error;
    QVERIFY2(reason.contains(QStringLiteral("kept calling tools instead of writing the summary")),
             qPrintable(reason));
    QCOMPARE(run.bodies.last(), plain.bodies.at(1));
    QCOMPARE(run.text(), QStringLiteral("after"));
    QCOMPARE(run.events.last().type, StreamEvent::Type::Done);
}

void TestAutoCompactionProviders::overBudgetCompactionIsSlicedAndCut_data()
{
    addProviders();
}

// Issue 16 "no dead end at 100%": a 9,000-token window and one file read of about 19,000 tokens. The seed's
// compaction request (the parent request plus the prompt) cannot be sent, so the conversation is summarised
// in parts that each fit the input budget: the person's message first, then the output, cut to its head and
// tail with a note, behind the summary so far. The strategy is on the applied event; the resumed request
// fits.
void TestAutoCompactionProviders::overBudgetCompactionIsSlicedAndCut()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const qint64 window = 9000;
    const qint64 budget = ContextBudget::inputBudget(window);
    const QString file = bigFile();
    QVERIFY(ContextBudget::estimateTokens(file.size()) > 3 * budget);
    Harness harness(provider, window, QJsonObject{{QStringLiteral("content"), file}});
    const Run run = harness.streamAnswering(
        {Message::system(QStringLiteral("You are Keen.")), Message::user(userText())},
        {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
         textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    const AutoCompactionInfo applied =
        *run.ofType(StreamEvent::Type::AutoCompactionApplied).first().autoCompaction;
    QCOMPARE(applied.strategy.slices, 2);
    QCOMPARE(applied.strategy.cutOutputs, 1);
    QVERIFY(applied.strategy.cutCharacters > 40000);
    QCOMPARE(applied.strategy.droppedOutputs, 0);

    // The parent's request, the two parts, the resumed parent request.
    QCOMPARE(run.bodies.size(), 4);
    for (int i : {1, 2}) {
        QVERIFY(isCompactionRequest(provider, run.bodies.at(i)));
        QVERIFY2(ContextBudget::estimateTokens(run.rawBodies.at(i).size()) <= budget,
                 qPrintable(QStringLiteral("request %1: %2 bytes").arg(i).arg(run.rawBodies.at(i).size())));
    }
    QVERIFY(run.rawBodies.at(1).contains(userText().toUtf8()));
    QVERIFY(!run.rawBodies.at(1).contains("BEGIN-OF-FILE"));
    QVERIFY(run.rawBodies.at(2).contains("<summary_so_far>"));
    QVERIFY(run.rawBodies.at(2).contains("summary part 1"));
    QVERIFY(run.rawBodies.at(2).contains("BEGIN-OF-FILE"));
    QVERIFY(run.rawBodies.at(2).contains("END-OF-FILE"));
    QVERIFY(run.rawBodies.at(2).contains("characters cut here to fit the compaction request"));

    // The last summary merged the first; the person's words stay verbatim outside it (S41, S42).
    const QString replacement = applied.replacement.last().content;
    QVERIFY(replacement.contains(QStringLiteral("summary part 2")));
    QVERIFY(replacement.endsWith(userText() + QStringLiteral("\n</last_user_message>")));
    QCOMPARE(finalUserText(provider, run.bodies.at(3)), replacement);
    QVERIFY(ContextBudget::estimateTokens(run.rawBodies.at(3).size()) <= budget);
    QCOMPARE(run.toolRuns, 1);
    QCOMPARE(run.text(), QStringLiteral("after"));
}

void TestAutoCompactionProviders::tooManyPartsLeaveOutOldestOutputs_data()
{
    addProviders();
}

// Issue 16, the last resort: twenty earlier tool outputs of 5,000 characters would need more than
// CompactionSlicer::MaxParts requests, so the oldest are left out, each with a note saying so; every request
// still fits, the newest output is summarised.
void TestAutoCompactionProviders::tooManyPartsLeaveOutOldestOutputs()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const qint64 window = 9000;
    const qint64 budget = ContextBudget::inputBudget(window);
    MessageList messages{Message::system(QStringLiteral("You are Keen."))};
    for (int i = 0; i < 20; ++i) {
        ToolActivity activity;
        activity.tool = QStringLiteral("read_file");
        activity.status = QStringLiteral("success");
        activity.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("file%1.txt").arg(i)}};
        activity.retainedOutput =
            QString(QStringLiteral("OUTPUT-%1-START ").arg(i) + QString(5000, QLatin1Char('o')));
        messages.append(Message::user(QStringLiteral("step %1").arg(i)));
        messages.append(Message::assistant(QStringLiteral("read %1").arg(i), TurnMemory{{activity}}));
    }
    messages.append(Message::user(userText()));
    Harness harness(provider, window);
    const Run run = harness.streamAnswering(
        messages, {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
                   textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    const auto applied = run.ofType(StreamEvent::Type::AutoCompactionApplied);
    QCOMPARE(applied.size(), 1);
    const CompactionStrategy strategy = applied.first().autoCompaction->strategy;
    QVERIFY(strategy.droppedOutputs > 0);
    QVERIFY(strategy.droppedCharacters > 5000 * strategy.droppedOutputs);
    QVERIFY(strategy.slices <= CompactionSlicer::MaxParts);
    QCOMPARE(run.bodies.size(), 1 + strategy.slices + 1);

    QByteArray parts;
    for (int i = 1; i <= strategy.slices; ++i) {
        QVERIFY(isCompactionRequest(provider, run.bodies.at(i)));
        QVERIFY2(ContextBudget::estimateTokens(run.rawBodies.at(i).size()) <= budget,
                 qPrintable(QStringLiteral("request %1: %2 bytes").arg(i).arg(run.rawBodies.at(i).size())));
        parts += run.rawBodies.at(i);
    }
    QVERIFY(!parts.contains("OUTPUT-0-START"));                             // the oldest is left out
    QVERIFY(parts.contains("Tool result of read_file file0.txt left out")); // with a note
    // Named for the person, oldest first, in the event and on the row.
    QCOMPARE(strategy.dropped.size(), strategy.droppedOutputs);
    QVERIFY2(strategy.dropped.first().startsWith(QStringLiteral("read_file file0.txt (")),
             qPrintable(strategy.dropped.first()));
    QVERIFY(strategy.describe().contains(QStringLiteral("read_file file0.txt")));
    QVERIFY(parts.contains("OUTPUT-19-START")); // the newest is summarised
    QVERIFY(parts.contains("step 0"));          // the conversation itself is all there
    QCOMPARE(run.text(), QStringLiteral("after"));
}

void TestAutoCompactionProviders::manualCompactionIsSlicedToo_data()
{
    addProviders();
}

// Issue 16 for /compact: the same history (a 9,000-token window, a 19,000-token file read) as a manual
// compaction. The earlier parts are summarised privately, each request with the person's focus and within the
// budget; the last part, with the summary so far in front, streams visibly as the seed's request would (S25);
// the strategy is reported before it.
void TestAutoCompactionProviders::manualCompactionIsSlicedToo()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const qint64 window = 9000;
    const qint64 budget = ContextBudget::inputBudget(window);
    ToolActivity read;
    read.tool = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("big.txt")}};
    read.status = QStringLiteral("success");
    read.retainedOutput = bigFile();
    const QString prompt = CompactionPrompts::manualPrompt(QStringLiteral("keep the parser notes"));
    const MessageList messages{Message::system(QStringLiteral("You are Keen.")), Message::user(userText()),
                               Message::assistant(QStringLiteral("I read it."), TurnMemory{{read}}),
                               Message::user(prompt)};
    StreamOptions options;
    options.disableToolCalls = true;
    options.disableAutoCompaction = true;
    options.keepPendingState = true;
    options.manualCompaction = true;
    Harness harness(provider, window);
    const Run run = harness.streamAnswering(messages, {}, prompt, options);
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    const auto sliced = run.ofType(StreamEvent::Type::CompactionSliced);
    QCOMPARE(sliced.size(), 1);
    const CompactionStrategy strategy = sliced.first().autoCompaction->strategy;
    QVERIFY(strategy.slices >= 2);
    QCOMPARE(strategy.cutOutputs, 1);
    QCOMPARE(strategy.cutMessages, 0); // the read's output, not a message
    QCOMPARE(strategy.droppedOutputs, 0);
    QCOMPARE(run.bodies.size(), strategy.slices);
    for (int i = 0; i < run.bodies.size(); ++i) {
        QCOMPARE(finalUserText(provider, run.bodies.at(i)), prompt);
        QVERIFY2(ContextBudget::estimateTokens(run.rawBodies.at(i).size()) <= budget,
                 qPrintable(QStringLiteral("request %1: %2 bytes").arg(i).arg(run.rawBodies.at(i).size())));
    }
    const QByteArray last = run.rawBodies.constLast();
    QVERIFY(last.contains("<summary_so_far>"));
    QVERIFY(last.contains(QStringLiteral("summary part %1").arg(strategy.slices - 1).toUtf8()));
    // Only the last part is visible, and it is the summary that applies.
    QCOMPARE(run.text(), QStringLiteral("## Goal\nsummary part %1").arg(strategy.slices));
    // What the private parts cost is reported with the strategy, so it counts as compaction usage.
    QVERIFY(sliced.first().autoCompaction->usage.has_value());
    QVERIFY(sliced.first().autoCompaction->usage->inputTokens > 0);
}

// Seen when tried: a pasted log of 7.6 MB, cut to fit a compaction request, was called "1 long output cut by
// 7,516,440 characters" on the checkpoint row, as if a tool had printed it. A message cut to fit is called a
// message; a tool output an output; both, both.
void TestAutoCompactionProviders::aMessageCutToFitIsCalledAMessage()
{
    const QString log = QStringLiteral("a pasted log line\n").repeated(5000);
    ToolActivity read;
    read.tool = QStringLiteral("read_file");
    read.status = QStringLiteral("success");
    read.retainedOutput = QStringLiteral("file line\n").repeated(5000);
    auto cutAll = [](const MessageList &conversation) {
        CompactionSlicer slicer(conversation);
        while (!slicer.atEnd())
            slicer.nextPart(8000);
        return slicer.strategy();
    };
    CompactionStrategy strategy = cutAll({Message::user(log), Message::assistant(QStringLiteral("Seen."))});
    QCOMPARE(strategy.cutOutputs, 1);
    QCOMPARE(strategy.cutMessages, 1);
    QVERIFY2(strategy.describe().contains(QStringLiteral("1 long message cut by")),
             qPrintable(strategy.describe()));

    strategy = cutAll({Message::user(QStringLiteral("read it")),
                       Message::assistant(QStringLiteral("Done."), TurnMemory{{read}})});
    QCOMPARE(strategy.cutMessages, 0);
    QVERIFY2(strategy.describe().contains(QStringLiteral("1 long output cut by")),
             qPrintable(strategy.describe()));

    strategy = cutAll({Message::user(log), Message::assistant(QStringLiteral("Done."), TurnMemory{{read}})});
    QCOMPARE(strategy.cutOutputs, 2);
    QCOMPARE(strategy.cutMessages, 1);
    QVERIFY2(strategy.describe().contains(QStringLiteral("2 long messages and outputs cut by")),
             qPrintable(strategy.describe()));
    // Kept in the compaction_applied event (only when there is one), read back the same.
    QCOMPARE(strategy.toJson().value(QStringLiteral("cut_messages")).toInt(), 1);
    QCOMPARE(CompactionStrategy::fromJson(strategy.toJson()), strategy);
    strategy.cutMessages = 0;
    QVERIFY(!strategy.toJson().contains(QStringLiteral("cut_messages")));
}

QTEST_GUILESS_MAIN(TestAutoCompactionProviders)
#include "tst_autocompactionproviders.moc"
