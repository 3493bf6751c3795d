// OpenAI Chat Completions, Responses and Codex end to end: ToolLoopClient drives each protocol against the
// loopback fake provider through a turn with two parallel tool calls and then a text answer, the bodies
// written in awkward splits. Checks the events, the tools' inputs and the follow-up request carrying both
// calls and their results in the provider's native shape.

#include "fakeproviderserver.h"
#include "openaitestsupport.h"
#include "testenvironment.h"
#include "toolloopsupport.h"

#include "loop/toolloopclient.h"
#include "memorycredentialstorage.h"
#include "providers/openai/openaichatprotocol.h"
#include "providers/openai/openaicodexprotocol.h"
#include "providers/openai/openairesponsesprotocol.h"

#include <QJsonArray>
#include <QTest>

using namespace keen;
using namespace keen::test;
using namespace keen::test::openai;

// Declared before the helpers: moc's tokenizer loses track in raw strings with escaped quotes.
class TestOpenAiToolLoop final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parallelToolTurn_data();
    void parallelToolTurn();
};

namespace {

QByteArray sseEvent(const QByteArray &json)
{
    const QByteArray type =
        QJsonDocument::fromJson(json).object().value(QStringLiteral("type")).toString().toUtf8();
    return "event: " + type + "\ndata: " + json + "\n\n";
}

// A Responses turn: a reasoning item, then two function calls with their arguments streamed in pieces.
QByteArray responsesParallelCalls(bool emptyCompletedOutput)
{
    const QByteArray reasoning = R"({"type":"reasoning","id":"rs_1","encrypted_content":"ENC","summary":[]})";
    const QByteArray weather =
        R"({"type":"function_call","id":"fc_w","call_id":"call_w","name":"GetWeatherArgs","arguments":"{\"city\":\"Paris\"}","status":"completed"})";
    const QByteArray stock =
        R"({"type":"function_call","id":"fc_s","call_id":"call_s","name":"get_stock_price","arguments":"{\"ticker\":\"AAPL\"}","status":"completed"})";
    const QByteArray output = emptyCompletedOutput ? QByteArray() : reasoning + ',' + weather + ',' + stock;
    return sseEvent(
               R"({"type":"response.created","sequence_number":0,"response":{"status":"in_progress","output":[]}})") +
           sseEvent(R"({"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":)" +
                    reasoning + "}") +
           sseEvent(
               R"({"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"type":"function_call","id":"fc_w","call_id":"call_w","name":"GetWeatherArgs","arguments":""}})") +
           sseEvent(
               R"({"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_w","output_index":1,"delta":"{\"city\":"})") +
           sseEvent(
               R"({"type":"response.function_call_arguments.delta","sequence_number":4,"item_id":"fc_w","output_index":1,"delta":"\"Paris\"}"})") +
           sseEvent(R"({"type":"response.output_item.done","sequence_number":5,"output_index":1,"item":)" +
                    weather + "}") +
           sseEvent(R"({"type":"response.output_item.done","sequence_number":6,"output_index":2,"item":)" +
                    stock + "}") +
           sseEvent(
               R"({"type":"response.completed","sequence_number":7,"response":{"status":"completed","output":[)" +
               output +
               R"(],"usage":{"input_tokens":40,"output_tokens":12,"total_tokens":52,"output_tokens_details":{"reasoning_tokens":5}}}})");
}

} // namespace

void TestOpenAiToolLoop::parallelToolTurn_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<int>("splitKind");
    for (const char *provider : {"openai-compatible", "openai", "openai-codex"}) {
        QTest::addRow("%s/random", provider) << QString::fromLatin1(provider) << 0;
        QTest::addRow("%s/bytewise", provider) << QString::fromLatin1(provider) << 1;
    }
}

void TestOpenAiToolLoop::parallelToolTurn()
{
    QFETCH(QString, provider);
    QFETCH(int, splitKind);
    TestEnvironment environment;
    FakeProviderServer server;
    QVERIFY(server.isListening());
    const FakeProviderServer::SplitMode split = splitKind == 0
                                                    ? FakeProviderServer::SplitMode::randomSplits(23)
                                                    : FakeProviderServer::SplitMode::oneByteAtATime();

    ClientConfig config;
    config.providerId = provider;
    config.apiKey = QStringLiteral("test-key");
    config.retryBaseDelayMs = 10;
    std::unique_ptr<ProviderProtocol> protocol;
    QString finalText;
    if (provider == QLatin1String("openai-compatible")) {
        config.model = QStringLiteral("gpt-4o");
        config.baseUrl = server.baseUrl().toString() + QStringLiteral("/v1");
        protocol = std::make_unique<OpenAiChatProtocol>(config);
        server.enqueueFixture(QStringLiteral("openai-chat/parallel-tool-calls-usage.sse"), split);
        server.enqueueFixture(QStringLiteral("openai-chat/text-include-usage.sse"), split);
        finalText = QStringLiteral("checking a reliable weather website or a weather app.");
    } else if (provider == QLatin1String("openai")) {
        config.model = QStringLiteral("gpt-5");
        config.thinkingEffort = QStringLiteral("low");
        config.baseUrl = server.baseUrl().toString() + QStringLiteral("/v1");
        protocol = std::make_unique<OpenAiResponsesProtocol>(config);
        server.enqueue(
            FakeProviderServer::Response{200, "text/event-stream", {}, responsesParallelCalls(false), split});
        server.enqueueFixture(QStringLiteral("openai-responses/text-after-function-call-output.sse"), split);
        finalText = QStringLiteral("The capital of France is Paris.");
    } else {
        config.model = QStringLiteral("gpt-5-codex");
        config.apiKey.clear();
        config.baseUrl = server.baseUrl().toString() + QStringLiteral("/backend-api/codex");
        auto storage = std::make_shared<MemoryCredentialStorage>();
        CodexCredentials credentials;
        credentials.accessToken = QStringLiteral("codex-access");
        credentials.refreshToken = QStringLiteral("codex-refresh");
        credentials.expiresAt = QDateTime::currentDateTimeUtc().addSecs(3600);
        credentials.accountId = QStringLiteral("acct-7");
        storage->m_credentials = credentials;
        protocol = std::make_unique<OpenAiCodexProtocol>(config, storage);
        server.enqueue(
            FakeProviderServer::Response{200, "text/event-stream", {}, responsesParallelCalls(true), split});
        server.enqueueFixture(QStringLiteral("openai-responses/text-after-function-call-output.sse"), split);
        finalText = QStringLiteral("The capital of France is Paris.");
    }

    const ToolRegistry tools = weatherAndStockTools();
    auto *weather = static_cast<CannedTool *>(tools.find(QStringLiteral("GetWeatherArgs")).get());
    auto *stock = static_cast<CannedTool *>(tools.find(QStringLiteral("get_stock_price")).get());

    ToolLoopClient client(std::move(protocol));
    StreamOptions options;
    options.sessionId = QStringLiteral("1234-5678");
    const std::optional<QList<StreamEvent>> run =
        runToolLoop(client, server,
                    {Message::system(QStringLiteral("You are terse.")),
                     Message::user(QStringLiteral("Weather in Edinburgh and the AAPL price?"))},
                    tools, options, 120000);
    QVERIFY(run);

    const QList<StreamEvent> events = *run;
    QVERIFY(!events.isEmpty());
    QVERIFY2(events.last().type == StreamEvent::Type::Done,
             qPrintable(events.last().typeName() + events.last().error));
    QStringList started;
    QStringList ended;
    QString text;
    int usages = 0;
    for (const StreamEvent &event : std::as_const(events)) {
        if (event.type == StreamEvent::Type::ToolStart)
            started.append(event.toolCall->name);
        else if (event.type == StreamEvent::Type::ToolEnd)
            ended.append(event.toolCall->name);
        else if (event.type == StreamEvent::Type::Chunk)
            text += event.content;
        else if (event.type == StreamEvent::Type::Usage)
            ++usages;
        QVERIFY2(event.type != StreamEvent::Type::Retry, qPrintable(event.error));
    }
    QCOMPARE(started, (QStringList{QStringLiteral("GetWeatherArgs"), QStringLiteral("get_stock_price")}));
    QCOMPARE(ended, started);
    QVERIFY2(text.endsWith(finalText), qPrintable(text));
    QCOMPARE(usages, 2);
    QCOMPARE(weather->inputs().size(), 1);
    QCOMPARE(stock->inputs().size(), 1);

    QCOMPARE(server.requests().size(), 2);
    const FakeProviderServer::Request first = server.requests().at(0);
    const FakeProviderServer::Request second = server.requests().at(1);
    const QJsonObject body = second.json.object();
    QCOMPARE(body[QStringLiteral("stream")], QJsonValue(true));
    if (provider == QLatin1String("openai-compatible")) {
        QCOMPARE(weather->inputs().first(),
                 (QJsonObject{{QStringLiteral("city"), QStringLiteral("Edinburgh")},
                              {QStringLiteral("country"), QStringLiteral("GB")},
                              {QStringLiteral("units"), QStringLiteral("c")}}));
        QCOMPARE(second.path, QByteArray("/v1/chat/completions"));
        QCOMPARE(second.header("authorization"), QByteArray("Bearer test-key"));
        QCOMPARE(body[QStringLiteral("stream_options")][QStringLiteral("include_usage")], QJsonValue(true));
        const QJsonArray messages = body[QStringLiteral("messages")].toArray();
        QCOMPARE(messages.size(), 5); // system, user, assistant(tool_calls), tool, tool
        const QJsonArray calls = messages.at(2)[QStringLiteral("tool_calls")].toArray();
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(0)[QStringLiteral("id")].toString(),
                 QStringLiteral("call_JMW1whyEaYG438VE1OIflxA2"));
        QVERIFY(calls.at(0)[QStringLiteral("function")][QStringLiteral("arguments")].isString());
        QCOMPARE(messages.at(3)[QStringLiteral("role")].toString(), QStringLiteral("tool"));
        QCOMPARE(messages.at(3)[QStringLiteral("tool_call_id")].toString(),
                 QStringLiteral("call_JMW1whyEaYG438VE1OIflxA2"));
        QCOMPARE(messages.at(3)[QStringLiteral("content")].toString(), QStringLiteral(R"({"celsius":12})"));
        QCOMPARE(messages.at(4)[QStringLiteral("tool_call_id")].toString(),
                 QStringLiteral("call_DNYTawLBoN8fj3KN6qU9N1Ou"));
        QCOMPARE(messages.at(4)[QStringLiteral("content")].toString(), QStringLiteral(R"({"price":187.5})"));
        return;
    }

    QCOMPARE(weather->inputs().first(), (QJsonObject{{QStringLiteral("city"), QStringLiteral("Paris")}}));
    QCOMPARE(body[QStringLiteral("store")], QJsonValue(false));
    QCOMPARE(body[QStringLiteral("prompt_cache_key")].toString(), QStringLiteral("12345678"));
    const QJsonArray input = body[QStringLiteral("input")].toArray();
    QStringList shape;
    for (const QJsonValue &item : input)
        shape.append(item[QStringLiteral("type")].toString(item[QStringLiteral("role")].toString()));
    QStringList expected{QStringLiteral("user"),
                         QStringLiteral("reasoning"),
                         QStringLiteral("function_call"),
                         QStringLiteral("function_call"),
                         QStringLiteral("function_call_output"),
                         QStringLiteral("function_call_output")};
    if (provider == QLatin1String("openai")) {
        expected.prepend(QStringLiteral("system"));
        QCOMPARE(second.path, QByteArray("/v1/responses"));
        QCOMPARE(second.header("authorization"), QByteArray("Bearer test-key"));
        QVERIFY(!first.hasHeader("originator"));
        QCOMPARE(body[QStringLiteral("include")].toArray(),
                 QJsonArray{QStringLiteral("reasoning.encrypted_content")});
    } else {
        QCOMPARE(second.path, QByteArray("/backend-api/codex/responses"));
        QCOMPARE(second.header("authorization"), QByteArray("Bearer codex-access"));
        QCOMPARE(second.header("originator"), QByteArray("keen-desktop"));
        QCOMPARE(second.header("chatgpt-account-id"), QByteArray("acct-7"));
        QVERIFY(second.header("user-agent").startsWith("keen-desktop ("));
        QCOMPARE(body[QStringLiteral("instructions")].toString(), QStringLiteral("You are terse."));
    }
    QCOMPARE(shape, expected);
    const qsizetype at = input.size() - 2;
    QCOMPARE(input.at(at - 3)[QStringLiteral("encrypted_content")].toString(), QStringLiteral("ENC"));
    QCOMPARE(input.at(at).toObject(),
             (QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call_output")},
                          {QStringLiteral("call_id"), QStringLiteral("call_w")},
                          {QStringLiteral("output"), QStringLiteral(R"({"celsius":12})")}}));
    QCOMPARE(input.at(at + 1)[QStringLiteral("call_id")].toString(), QStringLiteral("call_s"));
}

QTEST_GUILESS_MAIN(TestOpenAiToolLoop)
#include "tst_openaitoolloop.moc"
