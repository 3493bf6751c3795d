// OpenAiResponsesProtocol and ResponsesStreamDecoder against the captured Responses streams in
// fixtures/openai-responses: every fixture decoded whole, byte by byte and in random pieces; the error,
// response.failed and response.incomplete events; request bodies against reference 1.3 and the recorded
// shapes.

#include "openaitestsupport.h"
#include "providers/openai/openairesponsesprotocol.h"

#include <QJsonArray>
#include <QTest>

using namespace keen;
using namespace keen::test::openai;

namespace {

ClientConfig config()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai");
    config.model = QStringLiteral("gpt-5");
    config.apiKey = QStringLiteral("sk-test-secret");
    return config;
}

QJsonObject body(const HttpRequestSpec &spec)
{
    return QJsonDocument::fromJson(spec.body).object();
}

QList<QString> types(const QJsonArray &items)
{
    QList<QString> out;
    for (const QJsonValue &item : items)
        out.append(item[QStringLiteral("type")].toString());
    return out;
}

// The final text of the message items in response.completed: an independent check on the streamed deltas.
QString completedText(const QByteArray &sse)
{
    const qsizetype at = sse.indexOf("data: {\"type\":\"response.completed\"");
    const qsizetype end = sse.indexOf('\n', at);
    const QJsonObject completed = QJsonDocument::fromJson(sse.mid(at + 6, end - at - 6)).object();
    QString text;
    for (const QJsonValue &item : completed[QStringLiteral("response")][QStringLiteral("output")].toArray()) {
        for (const QJsonValue &part : item[QStringLiteral("content")].toArray())
            text += part[QStringLiteral("text")].toString();
    }
    return text;
}

QByteArray sseEvent(const QByteArray &json)
{
    const QByteArray type =
        QJsonDocument::fromJson(json).object().value(QStringLiteral("type")).toString().toUtf8();
    return "event: " + type + "\ndata: " + json + "\n\n";
}

} // namespace

class TestOpenAiResponsesProtocol final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decodesFunctionCall_data();
    void decodesFunctionCall();
    void decodesTextAfterFunctionCallOutput_data();
    void decodesTextAfterFunctionCallOutput();
    void decodesReasoningSummaryThenText_data();
    void decodesReasoningSummaryThenText();
    void decodesReasoningItemThenFunctionCall_data();
    void decodesReasoningItemThenFunctionCall();
    void insufficientQuotaErrorEvent_data();
    void insufficientQuotaErrorEvent();
    void flatErrorEvent();
    void responseFailedContextLength();
    void responseIncomplete();
    void truncatedStreamIsAnError_data();
    void truncatedStreamIsAnError();
    void deduplicatesCallsAndTakesItemsMissingFromCompleted();
    void classifiesHttpErrors();
    void requestBodyShape();
    void reasoningOnlyWhenAsked();
    void toNativeReplaysToolHistory();
    void continuationReplaysOutputItemsAndCallOutputs();
};

void TestOpenAiResponsesProtocol::decodesFunctionCall_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("function-call.sse", [](QTestData &) {});
}

void TestOpenAiResponsesProtocol::decodesFunctionCall()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded =
        decode(protocol, fixture(QStringLiteral("openai-responses/function-call.sse")), Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    const ModelTurn &turn = decoded.turn();
    QVERIFY(decoded.events.isEmpty());
    QCOMPARE(turn.text, QString());
    QCOMPARE(turn.toolCalls.size(), 1);
    QCOMPARE(turn.toolCalls.at(0).id, QStringLiteral("call_kL0PCQV7M2WMoVX8V8OtYSAL"));
    QCOMPARE(turn.toolCalls.at(0).name, QStringLiteral("get_capital"));
    QCOMPARE(turn.toolCalls.at(0).arguments, QStringLiteral(R"({"country":"France"})"));
    QCOMPARE(turn.toolCalls.at(0).input,
             (QJsonObject{{QStringLiteral("country"), QStringLiteral("France")}}));
    QCOMPARE(turn.toolCalls.at(0).native[QStringLiteral("id")].toString(),
             QStringLiteral("fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2"));
    QCOMPARE(turn.usage->inputTokens, 255);
    QCOMPARE(turn.usage->outputTokens, 16);
    QCOMPARE(turn.usage->totalTokens, 271);
    QCOMPARE(turn.usage->reasoningTokens, 0);
    QCOMPARE(types(turn.assistantNative), (QList<QString>{QStringLiteral("function_call")}));
    QCOMPARE(turn.assistantNative.at(0)[QStringLiteral("call_id")].toString(),
             QStringLiteral("call_kL0PCQV7M2WMoVX8V8OtYSAL"));
}

void TestOpenAiResponsesProtocol::decodesTextAfterFunctionCallOutput_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("text-after-function-call-output.sse", [](QTestData &) {});
}

void TestOpenAiResponsesProtocol::decodesTextAfterFunctionCallOutput()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded =
        decode(protocol, fixture(QStringLiteral("openai-responses/text-after-function-call-output.sse")),
               Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    // Streamed once: the output_text.done, content_part.done, output_item.done and completed copies add
    // nothing.
    QCOMPARE(decoded.streamedText, QStringLiteral("The capital of France is Paris."));
    QCOMPARE(decoded.events.size(), 7);
    QCOMPARE(decoded.turn().text, decoded.streamedText);
    QVERIFY(decoded.turn().toolCalls.isEmpty());
    QCOMPARE(decoded.turn().usage->inputTokens, 278);
    QCOMPARE(decoded.turn().usage->outputTokens, 9);
    QCOMPARE(types(decoded.turn().assistantNative), (QList<QString>{QStringLiteral("message")}));
}

void TestOpenAiResponsesProtocol::decodesReasoningSummaryThenText_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("reasoning-summary-then-text.sse", [](QTestData &) {});
}

void TestOpenAiResponsesProtocol::decodesReasoningSummaryThenText()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const QByteArray sse = fixture(QStringLiteral("openai-responses/reasoning-summary-then-text.sse"));
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(protocol, sse, Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    const ModelTurn &turn = decoded.turn();
    QCOMPARE(turn.text, completedText(sse));
    QCOMPARE(turn.text.toUtf8().size(), 1275);
    QCOMPARE(sha256(turn.text),
             QByteArrayLiteral("4242cea70d53d7d1eb50d239ff4eaa73c101b72b1198b763679653eaec7fd88b"));
    QCOMPARE(decoded.streamedText, turn.text);
    // Four summary parts, one paragraph each.
    QCOMPARE(turn.reasoning.toUtf8().size(), 2048);
    QCOMPARE(sha256(turn.reasoning),
             QByteArrayLiteral("850ada24574b27f42b158f5c750bb1fcc5a6d5fbe0a5899e206aa378bd0bfa2f"));
    QVERIFY(turn.reasoning.startsWith(QStringLiteral("**Providing street crossing instructions**\n\n")));
    QCOMPARE(decoded.streamedReasoning, turn.reasoning);
    QCOMPARE(turn.usage->reasoningTokens, 1408);
    QCOMPARE(turn.usage->outputTokens, 1680);
    QCOMPARE(types(turn.assistantNative),
             (QList<QString>{QStringLiteral("reasoning"), QStringLiteral("message")}));
    QVERIFY(turn.assistantNative.at(0)[QStringLiteral("encrypted_content")].toString().startsWith(
        QStringLiteral("gAAAA")));
    QCOMPARE(turn.assistantNative.at(0)[QStringLiteral("summary")].toArray().size(), 4);
}

void TestOpenAiResponsesProtocol::decodesReasoningItemThenFunctionCall_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("reasoning-item-then-function-call-usage.sse", [](QTestData &) {});
}

void TestOpenAiResponsesProtocol::decodesReasoningItemThenFunctionCall()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const QByteArray sse =
        fixture(QStringLiteral("openai-responses/reasoning-item-then-function-call-usage.sse"));
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(protocol, sse, Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    const ModelTurn &turn = decoded.turn();
    QCOMPARE(turn.reasoning, QString()); // no summary was asked for
    QCOMPARE(turn.toolCalls.size(), 1);
    QCOMPARE(turn.toolCalls.at(0).id, QStringLiteral("call_CWXgs68YprAjp6t0371hiPOI"));
    QCOMPARE(turn.toolCalls.at(0).name, QStringLiteral("final_result"));
    QCOMPARE(turn.toolCalls.at(0).arguments, QStringLiteral(R"({"result":6666})"));
    QCOMPARE(turn.toolCalls.at(0).input, (QJsonObject{{QStringLiteral("result"), 6666}}));
    QCOMPARE(turn.usage->inputTokens, 53);
    QCOMPARE(turn.usage->outputTokens, 469);
    QCOMPARE(turn.usage->totalTokens, 522);
    QCOMPARE(turn.usage->reasoningTokens, 448);
    QCOMPARE(turn.usage->cachedTokens, 0);
    // The reasoning item is replayed verbatim, with the encrypted content of the completed response.
    QCOMPARE(types(turn.assistantNative),
             (QList<QString>{QStringLiteral("reasoning"), QStringLiteral("function_call")}));
    const QJsonObject reasoning = turn.assistantNative.at(0).toObject();
    QCOMPARE(reasoning[QStringLiteral("id")].toString(),
             QStringLiteral("rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405"));
    const qsizetype completedAt = sse.indexOf("response.completed\",");
    const QByteArray encrypted = reasoning[QStringLiteral("encrypted_content")].toString().toUtf8();
    QVERIFY(encrypted.size() > 100);
    QVERIFY(sse.indexOf(encrypted, completedAt) > completedAt);
}

void TestOpenAiResponsesProtocol::insufficientQuotaErrorEvent_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("error-insufficient-quota.reframed.sse", [](QTestData &) {});
}

void TestOpenAiResponsesProtocol::insufficientQuotaErrorEvent()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded =
        decode(protocol, fixture(QStringLiteral("openai-responses/error-insufficient-quota.reframed.sse")),
               Split(split), seed);
    QVERIFY(!decoded.ok());
    QCOMPARE(decoded.error.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(!decoded.error.isRetryable());
    QVERIFY2(decoded.error.message.contains(QStringLiteral(
                 "You exceeded your current quota, please check your plan and billing details.")),
             qPrintable(decoded.error.message));
    QVERIFY(decoded.error.message.endsWith(QStringLiteral("(insufficient_quota)")));
    QCOMPARE(decoded.result->error(), decoded.error.message);
}

void TestOpenAiResponsesProtocol::flatErrorEvent()
{
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(
        protocol,
        sseEvent(R"({"type":"error","code":"rate_limit_exceeded","message":"Slow down","param":null})"),
        Split::Bytewise);
    QVERIFY(!decoded.ok());
    QCOMPARE(decoded.error.kind, ProviderError::Kind::RateLimit);
    QCOMPARE(decoded.error.message, QStringLiteral("Slow down (rate_limit_exceeded)"));
}

void TestOpenAiResponsesProtocol::responseFailedContextLength()
{
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(
        protocol,
        sseEvent(R"({"type":"response.created","response":{"status":"in_progress"}})") +
            sseEvent(
                R"({"type":"response.failed","response":{"status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}})"),
        Split::Random, 5);
    QVERIFY(!decoded.ok());
    QCOMPARE(decoded.error.kind, ProviderError::Kind::ContextLength);
    QCOMPARE(
        decoded.error.message,
        QStringLiteral("Your input exceeds the context window of this model. (context_length_exceeded)"));
}

void TestOpenAiResponsesProtocol::responseIncomplete()
{
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(
        protocol,
        sseEvent(
            R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Partial"})") +
            sseEvent(
                R"({"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}})"),
        Split::Whole);
    QVERIFY(!decoded.ok());
    QCOMPARE(decoded.streamedText, QStringLiteral("Partial"));
    QCOMPARE(decoded.error.kind, ProviderError::Kind::Stream);
    QVERIFY(!decoded.error.isRetryable()); // the same request would stop at the same limit
    QCOMPARE(decoded.error.message, QStringLiteral("response incomplete (max_output_tokens)"));
}

void TestOpenAiResponsesProtocol::truncatedStreamIsAnError_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("function call") << QStringLiteral("openai-responses/function-call.sse");
    QTest::newRow("text") << QStringLiteral("openai-responses/text-after-function-call-output.sse");
    QTest::newRow("reasoning") << QStringLiteral("openai-responses/reasoning-summary-then-text.sse");
}

void TestOpenAiResponsesProtocol::truncatedStreamIsAnError()
{
    QFETCH(QString, file);
    const QByteArray sse = fixture(file);
    const qsizetype completed = sse.indexOf("event: response.completed");
    QVERIFY(completed > 0);
    // At the event boundary before response.completed, and in the middle of response.completed: a truncation,
    // which the tool loop retries.
    for (const QByteArray &truncated : {sse.left(completed), sse.left(completed + 200)}) {
        const OpenAiResponsesProtocol protocol(config());
        const Decoded decoded = decode(protocol, truncated, Split::Random, 3);
        QVERIFY(!decoded.ok());
        QCOMPARE(decoded.error.kind, ProviderError::Kind::Truncated);
        QVERIFY(decoded.error.isRetryable());
        QCOMPARE(decoded.error.message, QStringLiteral("stream ended before the response was complete"));
    }
}

void TestOpenAiResponsesProtocol::deduplicatesCallsAndTakesItemsMissingFromCompleted()
{
    // Two parallel calls: one in output_item.done only (the Codex backend completes with an empty output),
    // one in both output_item.done and response.completed.
    const QByteArray callA =
        R"({"type":"function_call","id":"fc_a","call_id":"call_a","name":"read_file","arguments":"{\"path\":\"a\"}","status":"completed"})";
    const QByteArray callB =
        R"({"type":"function_call","id":"fc_b","call_id":"call_b","name":"glob","arguments":"{\"pattern\":\"*\"}","status":"completed"})";
    const QByteArray sse =
        sseEvent(R"({"type":"response.output_item.done","output_index":0,"item":)" + callA + "}") +
        sseEvent(R"({"type":"response.output_item.done","output_index":1,"item":)" + callB + "}") +
        sseEvent(R"({"type":"response.completed","response":{"status":"completed","output":[)" + callB +
                 R"(],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}})");
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(protocol, sse, Split::Bytewise);
    QVERIFY(decoded.ok());
    QCOMPARE(decoded.turn().toolCalls.size(), 2);
    QCOMPARE(decoded.turn().toolCalls.at(0).id, QStringLiteral("call_b"));
    QCOMPARE(decoded.turn().toolCalls.at(1).id, QStringLiteral("call_a"));
    QCOMPARE(decoded.turn().toolCalls.at(1).input,
             (QJsonObject{{QStringLiteral("path"), QStringLiteral("a")}}));
    QCOMPARE(decoded.turn().assistantNative.size(), 2);
}

void TestOpenAiResponsesProtocol::classifiesHttpErrors()
{
    const OpenAiResponsesProtocol protocol(config());
    const ProviderError invalid = protocol.classifyHttpError(
        400, fixture(QStringLiteral("openai-responses/error-400-invalid-temperature.json")), {});
    QCOMPARE(invalid.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(invalid.message.contains(QStringLiteral("Invalid 'temperature'")));
    QVERIFY(invalid.message.contains(QStringLiteral("(decimal_below_min_value)")));
    const ProviderError context = protocol.classifyHttpError(
        400,
        R"({"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}})",
        {});
    QCOMPARE(context.kind, ProviderError::Kind::ContextLength);
    const ProviderError rate = protocol.classifyHttpError(429, "{}", {{"retry-after", "3"}});
    QCOMPARE(rate.kind, ProviderError::Kind::RateLimit);
    QCOMPARE(rate.retryAfterMs, 3000);
}

void TestOpenAiResponsesProtocol::requestBodyShape()
{
    ClientConfig cfg = config();
    cfg.headers = {{"OpenAI-Project", "proj_1"}};
    const OpenAiResponsesProtocol protocol(cfg);
    const ToolRegistry tools = weatherAndStockTools();
    RequestContext context;
    context.options.sessionId = QStringLiteral("0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9");
    const HttpRequestSpec spec = protocol.buildRequest(
        protocol.toNative({Message::system(QStringLiteral("Be brief.")),
                           Message::user(QStringLiteral("What is the capital of France?"))}),
        tools.specs(), context);
    QCOMPARE(spec.url, QUrl(QStringLiteral("https://api.openai.com/v1/responses")));
    QVERIFY(!spec.http1Only);
    QVERIFY(
        spec.headers.contains(qMakePair(QByteArray("Authorization"), QByteArray("Bearer sk-test-secret"))));
    QVERIFY(spec.headers.contains(qMakePair(QByteArray("OpenAI-Project"), QByteArray("proj_1"))));

    const QJsonObject json = body(spec);
    QCOMPARE(json.keys(), (QStringList{QStringLiteral("input"), QStringLiteral("model"),
                                       QStringLiteral("prompt_cache_key"), QStringLiteral("store"),
                                       QStringLiteral("stream"), QStringLiteral("tools")}));
    QCOMPARE(json[QStringLiteral("store")], QJsonValue(false));
    QCOMPARE(json[QStringLiteral("stream")], QJsonValue(true));
    QCOMPARE(json[QStringLiteral("prompt_cache_key")].toString(),
             QStringLiteral("0f1e2d3c4b5a69788695a4b3c2d1e0f9"));
    // Input items as {role, content}, like the recorded request.
    const QJsonObject recorded = fixtureJson(QStringLiteral("openai-responses/function-call.request.json"));
    const QJsonArray input = json[QStringLiteral("input")].toArray();
    QCOMPARE(input.size(), 2);
    QCOMPARE(input.at(0).toObject(), (QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                                                  {QStringLiteral("content"), QStringLiteral("Be brief.")}}));
    QCOMPARE(input.at(1), recorded[QStringLiteral("input")].toArray().at(0));
    // Tools are flat: {type, name, description, parameters, strict:false}, the recorded keys.
    const QJsonArray definitions = json[QStringLiteral("tools")].toArray();
    QCOMPARE(definitions.size(), 2);
    const QJsonObject tool = definitions.at(0).toObject();
    QCOMPARE(tool.keys(), recorded[QStringLiteral("tools")].toArray().at(0).toObject().keys());
    QCOMPARE(tool[QStringLiteral("type")].toString(), QStringLiteral("function"));
    QCOMPARE(tool[QStringLiteral("name")].toString(), QStringLiteral("GetWeatherArgs"));
    QCOMPARE(tool[QStringLiteral("strict")], QJsonValue(false));
    QCOMPARE(tool[QStringLiteral("parameters")].toObject(), objectSchema(QStringLiteral("city")));

    // Base URL override.
    cfg.baseUrl = QStringLiteral("http://127.0.0.1:9/v1/");
    QCOMPARE(OpenAiResponsesProtocol(cfg).buildRequest({}, {}, {}).url,
             QUrl(QStringLiteral("http://127.0.0.1:9/v1/responses")));
}

void TestOpenAiResponsesProtocol::reasoningOnlyWhenAsked()
{
    ClientConfig cfg = config();
    QJsonObject json = body(OpenAiResponsesProtocol(cfg).buildRequest({}, {}, {}));
    QVERIFY(!json.contains(QStringLiteral("reasoning")));
    QVERIFY(!json.contains(QStringLiteral("include")));
    QVERIFY(!json.contains(QStringLiteral("prompt_cache_key"))); // no session id

    cfg.thinkingEffort = QStringLiteral("high");
    json = body(OpenAiResponsesProtocol(cfg).buildRequest({}, {}, {}));
    QCOMPARE(json[QStringLiteral("reasoning")].toObject(),
             (QJsonObject{{QStringLiteral("effort"), QStringLiteral("high")}}));
    const QJsonObject recorded =
        fixtureJson(QStringLiteral("openai-responses/reasoning-summary-then-text.request.json"));
    QCOMPARE(json[QStringLiteral("include")], recorded[QStringLiteral("include")]);

    cfg.thinkingEffort = QStringLiteral("none");
    json = body(OpenAiResponsesProtocol(cfg).buildRequest({}, {}, {}));
    QCOMPARE(json[QStringLiteral("reasoning")][QStringLiteral("effort")].toString(), QStringLiteral("none"));
    QVERIFY(!json.contains(QStringLiteral("include")));
}

void TestOpenAiResponsesProtocol::toNativeReplaysToolHistory()
{
    const OpenAiResponsesProtocol protocol(config());
    const NativeHistory native = protocol.toNative(conversationWithToolHistory());
    auto role = [](const char *role, const char *content) {
        return QJsonObject{{QStringLiteral("role"), QLatin1String(role)},
                           {QStringLiteral("content"), QLatin1String(content)}};
    };
    auto call = [](const char *id, const char *name, const char *arguments) {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call")},
                           {QStringLiteral("call_id"), QLatin1String(id)},
                           {QStringLiteral("name"), QLatin1String(name)},
                           {QStringLiteral("arguments"), QLatin1String(arguments)}};
    };
    auto output = [](const char *id, const char *text) {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call_output")},
                           {QStringLiteral("call_id"), QLatin1String(id)},
                           {QStringLiteral("output"), QLatin1String(text)}};
    };
    const QJsonArray expected{
        role("system", "You are Keen."),
        role("user", "What is in the README?"),
        role("assistant", "Let me see"),
        call("historical_2_0", "read_file", R"({"path":"README.md"})"),
        output("historical_2_0", R"({"content":"# Keen"})"),
        call("historical_2_1", "bash", R"({"command":"false"})"),
        output("historical_2_1", R"({"exit_code":1,"status":"error"})"),
        role("assistant", ". It says Keen."),
        role("user", "Thanks"),
    };
    QCOMPARE(native.messages, expected);
    QVERIFY(native.system.isNull() || native.system.isUndefined());
}

void TestOpenAiResponsesProtocol::continuationReplaysOutputItemsAndCallOutputs()
{
    const OpenAiResponsesProtocol protocol(config());
    const Decoded decoded = decode(
        protocol, fixture(QStringLiteral("openai-responses/reasoning-item-then-function-call-usage.sse")),
        Split::Whole);
    QVERIFY(decoded.ok());
    NativeHistory history = protocol.toNative({Message::user(QStringLiteral("Calculate 100 * 200 / 3"))});
    for (const QJsonValue &item : protocol.assistantMessages(decoded.turn()))
        history.messages.append(item);
    const QList<ToolOutcome> outcomes{
        ToolOutcome{decoded.turn().toolCalls.at(0), QStringLiteral(R"({"ok":true})"), false}};
    for (const QJsonValue &item : protocol.toolResultMessages(outcomes))
        history.messages.append(item);

    const QJsonArray input = body(protocol.buildRequest(history, {}, {}))[QStringLiteral("input")].toArray();
    QCOMPARE(types(input),
             (QList<QString>{QString(), QStringLiteral("reasoning"), QStringLiteral("function_call"),
                             QStringLiteral("function_call_output")}));
    QVERIFY(!input.at(1)[QStringLiteral("encrypted_content")].toString().isEmpty());
    // The output answers the call by its call_id, not the fc_ item id.
    QCOMPARE(input.at(3).toObject(),
             (QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call_output")},
                          {QStringLiteral("call_id"), QStringLiteral("call_CWXgs68YprAjp6t0371hiPOI")},
                          {QStringLiteral("output"), QStringLiteral(R"({"ok":true})")}}));
    QCOMPARE(input.at(2)[QStringLiteral("call_id")], input.at(3)[QStringLiteral("call_id")]);

    protocol.appendUserText(history, QStringLiteral("and now?"));
    QCOMPARE(history.messages.last().toObject(),
             (QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                          {QStringLiteral("content"), QStringLiteral("and now?")}}));
}

QTEST_GUILESS_MAIN(TestOpenAiResponsesProtocol)
#include "tst_openairesponsesprotocol.moc"
