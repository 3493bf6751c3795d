// Anthropic, Gemini and Bedrock end to end: ToolLoopClient drives each protocol against the loopback fake
// provider through a turn with two parallel tool calls, then a text answer, with the bodies written in
// awkward splits. Checks the events, the tools' inputs and the follow-up request carrying both results.

#include "fakeproviderserver.h"
#include "protocoltestsupport.h"
#include "testenvironment.h"
#include "toolloopsupport.h"

#include "loop/toolloopclient.h"
#include "providers/anthropic/anthropicprotocol.h"
#include "providers/bedrock/bedrockprotocol.h"
#include "providers/gemini/geminiprotocol.h"
#include "stream/eventstreamdecoder.h"

#include <QTest>

using namespace keen;
using namespace keen::test;

namespace {

QByteArray bedrockEvent(const char *type, const QByteArray &payload)
{
    EventStreamDecoder::Message message;
    message.headers = {
        {QStringLiteral(":event-type"), EventStreamDecoder::Header::Type::String, QLatin1String(type)},
        {QStringLiteral(":content-type"), EventStreamDecoder::Header::Type::String,
         QStringLiteral("application/json")},
        {QStringLiteral(":message-type"), EventStreamDecoder::Header::Type::String, QStringLiteral("event")},
    };
    message.payload = payload;
    return EventStreamDecoder::encode(message);
}

QByteArray bedrockParallelCalls()
{
    return bedrockEvent("messageStart", R"({"role":"assistant"})") +
           bedrockEvent(
               "contentBlockStart",
               R"({"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_w","name":"get_weather"}}})") +
           bedrockEvent("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"toolUse":{"input":""}}})") +
           bedrockEvent("contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"{"
                                             "\\\"location\\\": \\\"Paris\\\"}\"}}}") +
           bedrockEvent("contentBlockStop", R"({"contentBlockIndex":0})") +
           bedrockEvent(
               "contentBlockStart",
               R"({"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_t","name":"get_time"}}})") +
           bedrockEvent("contentBlockDelta", R"({"contentBlockIndex":1,"delta":{"toolUse":{"input":""}}})") +
           bedrockEvent("contentBlockStop", R"({"contentBlockIndex":1})") +
           bedrockEvent("messageStop", R"({"stopReason":"tool_use"})") +
           bedrockEvent("metadata", R"({"usage":{"inputTokens":40,"outputTokens":12,"totalTokens":52}})");
}

QByteArray geminiParallelCalls()
{
    return QByteArrayLiteral(
        "data: "
        "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_"
        "weather\","
        "\"args\":{\"location\":\"Paris\"}},\"thoughtSignature\":\"c2ln\"},{\"functionCall\":{\"name\":\"get_"
        "time\","
        "\"args\":{}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":40,"
        "\"candidatesTokenCount\":12,\"totalTokenCount\":52}}\r\n\r\n");
}

} // namespace

class TestProtocolToolLoop : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parallelToolTurn_data()
    {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<int>("splitKind");
        for (const char *provider : {"anthropic", "googleai", "amazon-bedrock"}) {
            QTest::newRow(qPrintable(QLatin1String(provider) + QLatin1String("/random")))
                << QString::fromLatin1(provider) << 0;
            QTest::newRow(qPrintable(QLatin1String(provider) + QLatin1String("/bytewise")))
                << QString::fromLatin1(provider) << 1;
        }
    }
    void parallelToolTurn()
    {
        QFETCH(QString, provider);
        QFETCH(int, splitKind);
        TestEnvironment environment;
        FakeProviderServer server;
        QVERIFY(server.isListening());
        const FakeProviderServer::SplitMode split = splitKind == 0
                                                        ? FakeProviderServer::SplitMode::randomSplits(17)
                                                        : FakeProviderServer::SplitMode::oneByteAtATime();

        ClientConfig config;
        config.providerId = provider;
        config.apiKey = QStringLiteral("test-key");
        config.baseUrl = server.baseUrl().toString();
        config.retryBaseDelayMs = 10;
        std::unique_ptr<ProviderProtocol> protocol;
        QString finalText;
        QJsonObject weatherInput{{QStringLiteral("location"), QStringLiteral("Paris")}};
        if (provider == QLatin1String("anthropic")) {
            config.model = QStringLiteral("claude-sonnet-4-5");
            protocol = std::make_unique<AnthropicProtocol>(config);
            server.enqueueFixture(QStringLiteral("anthropic/parallel-tool-use.sse"), split);
            server.enqueueFixture(QStringLiteral("anthropic/text.sse"), split);
            weatherInput = {{QStringLiteral("location"), QStringLiteral("San Francisco, CA")},
                            {QStringLiteral("unit"), QStringLiteral("celsius")}};
            finalText = QStringLiteral("- Captain\n- Scoop");
        } else if (provider == QLatin1String("googleai")) {
            config.model = QStringLiteral("gemini-2.5-flash");
            protocol = std::make_unique<GeminiProtocol>(config);
            server.enqueue(
                FakeProviderServer::Response{200, "text/event-stream", {}, geminiParallelCalls(), split});
            server.enqueueFixture(QStringLiteral("gemini/text.sse"), split);
            finalText = QStringLiteral("The capital of France is Paris.\n");
        } else {
            config.model = QStringLiteral("us.amazon.nova-micro-v1:0");
            config.awsRegion = QStringLiteral("us-east-1");
            protocol = std::make_unique<BedrockProtocol>(config, QProcessEnvironment());
            server.enqueue(FakeProviderServer::Response{
                200, "application/vnd.amazon.eventstream", {}, bedrockParallelCalls(), split});
            server.enqueueFixture(QStringLiteral("bedrock/text-nova.bin"), split);
            finalText = QStringLiteral("The capital of France is Paris.");
        }

        auto weather =
            std::make_shared<FakeTool>(QStringLiteral("get_weather"), QStringLiteral("Weather"),
                                       QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}},
                                       QJsonObject{{QStringLiteral("temperature"), QStringLiteral("18C")}});
        auto time =
            std::make_shared<FakeTool>(QStringLiteral("get_time"), QStringLiteral("Time"),
                                       QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}},
                                       QJsonObject{{QStringLiteral("time"), QStringLiteral("12:00")}});
        ToolRegistry tools;
        tools.add(weather);
        tools.add(time);

        ToolLoopClient client(std::move(protocol));
        const std::optional<QList<StreamEvent>> run =
            runToolLoop(client, server,
                        {Message::system(QStringLiteral("You are terse.")),
                         Message::user(QStringLiteral("Weather and time?"))},
                        tools, StreamOptions{}, 60000);
        QVERIFY(run);

        const QList<StreamEvent> events = *run;
        QVERIFY(!events.isEmpty());
        QCOMPARE(events.last().typeName(), StreamEvent::typeName(StreamEvent::Type::Done));
        QStringList started;
        QStringList ended;
        QString text;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::ToolStart)
                started.append(event.toolCall->name);
            else if (event.type == StreamEvent::Type::ToolEnd)
                ended.append(event.toolCall->name);
            else if (event.type == StreamEvent::Type::Chunk)
                text += event.content;
            QVERIFY2(event.type != StreamEvent::Type::Retry, qPrintable(event.error));
        }
        QCOMPARE(started, (QStringList{QStringLiteral("get_weather"), QStringLiteral("get_time")}));
        QCOMPARE(ended, started);
        QVERIFY2(text.contains(finalText), qPrintable(text));
        QCOMPARE(weather->inputs(), QList<QJsonObject>{weatherInput});
        QCOMPARE(time->inputs().size(), 1);

        // The follow-up request carries both results, in call order, in one user message.
        QCOMPARE(server.requests().size(), 2);
        const QJsonObject second = server.requests().at(1).json.object();
        if (provider == QLatin1String("anthropic")) {
            const QJsonArray messages = second.value(QStringLiteral("messages")).toArray();
            QCOMPARE(messages.size(), 3);
            const QJsonArray results = messages.last()[QStringLiteral("content")].toArray();
            QCOMPARE(results.size(), 2);
            QCOMPARE(results.at(0)[QStringLiteral("tool_use_id")].toString(),
                     QStringLiteral("toolu_014x5X91kx3fvdhpLvwXZWE2"));
            QCOMPARE(results.at(1)[QStringLiteral("tool_use_id")].toString(),
                     QStringLiteral("toolu_0121kXsENLvoDZ72LCuAnCCz"));
            QCOMPARE(results.at(0)[QStringLiteral("content")].toString(),
                     QStringLiteral("{\"temperature\":\"18C\"}"));
            QCOMPARE(countKey(second, QStringLiteral("cache_control")), 4);
            QCOMPARE(server.requests().at(1).path, QByteArray("/v1/messages"));
        } else if (provider == QLatin1String("googleai")) {
            const QJsonArray contents = second.value(QStringLiteral("contents")).toArray();
            QCOMPARE(contents.size(), 3);
            QCOMPARE(contents.at(1)[QStringLiteral("parts")]
                         .toArray()
                         .at(0)[QStringLiteral("thoughtSignature")]
                         .toString(),
                     QStringLiteral("c2ln"));
            const QJsonArray results = contents.last()[QStringLiteral("parts")].toArray();
            QCOMPARE(results.size(), 2);
            QCOMPARE(results.at(0)[QStringLiteral("functionResponse")][QStringLiteral("name")].toString(),
                     QStringLiteral("get_weather"));
            QCOMPARE(results.at(1)[QStringLiteral("functionResponse")][QStringLiteral("response")].toObject(),
                     (QJsonObject{{QStringLiteral("time"), QStringLiteral("12:00")}}));
            QCOMPARE(server.requests().at(1).header("x-goog-api-key"), QByteArray("test-key"));
        } else {
            const QJsonArray messages = second.value(QStringLiteral("messages")).toArray();
            QCOMPARE(messages.size(), 3);
            const QJsonArray results = messages.last()[QStringLiteral("content")].toArray();
            QCOMPARE(results.size(), 3); // two results and the cache point
            QCOMPARE(results.at(0)[QStringLiteral("toolResult")][QStringLiteral("toolUseId")].toString(),
                     QStringLiteral("tooluse_w"));
            QCOMPARE(results.at(1)[QStringLiteral("toolResult")][QStringLiteral("toolUseId")].toString(),
                     QStringLiteral("tooluse_t"));
            QCOMPARE(server.requests().at(1).path,
                     QByteArray("/model/us.amazon.nova-micro-v1%3A0/converse-stream"));
            QCOMPARE(server.requests().at(1).header("authorization"), QByteArray("Bearer test-key"));
        }
    }
};

QTEST_GUILESS_MAIN(TestProtocolToolLoop)
#include "tst_protocoltoolloop.moc"
