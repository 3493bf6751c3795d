// OpenAiChatProtocol and its ChatCompletionsStreamDecoder against the captured Chat Completions streams in
// fixtures/openai-chat (OpenAI, Groq, OpenRouter, DeepSeek): every fixture decoded whole, byte by byte and in
// random pieces; request bodies against reference 1.2 and the recorded request shapes.

#include "conversation/historyreplay.h"
#include "openaitestsupport.h"
#include "providers/openai/openaichatprotocol.h"

#include <QJsonArray>
#include <QTest>

using namespace keen;
using namespace keen::test::openai;

namespace {

ClientConfig config(const QString &provider = QStringLiteral("openai-compatible"),
                    const QString &model = QStringLiteral("gpt-4o"))
{
    ClientConfig config;
    config.providerId = provider;
    config.model = model;
    config.baseUrl = QStringLiteral("http://localhost:11434/v1/");
    config.apiKey = QStringLiteral("sk-test-secret");
    return config;
}

QJsonObject requestBody(const OpenAiChatProtocol &protocol, const MessageList &messages,
                        const ToolSpecList &tools = {})
{
    return QJsonDocument::fromJson(protocol.buildRequest(protocol.toNative(messages), tools, {}).body)
        .object();
}

} // namespace

class TestOpenAiChatProtocol final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decodesText_data();
    void decodesText();
    void decodesParallelToolCalls_data();
    void decodesParallelToolCalls();
    void decodesDeepSeekReasoningAndUsageOnFinishChunk_data();
    void decodesDeepSeekReasoningAndUsageOnFinishChunk();
    void groqMidStreamErrorEvent_data();
    void groqMidStreamErrorEvent();
    void openRouterErrorChunkAfterFinish_data();
    void openRouterErrorChunkAfterFinish();
    void truncatedStreamIsAnError_data();
    void truncatedStreamIsAnError();
    void finishReasonWithoutDoneCompletes();
    void ignoresCallsWithoutName();
    void callsSharingAnIndexStayApart_data();
    void callsSharingAnIndexStayApart();
    void aWholeCompletionReadsAsItsStream();
    void malformedDataIsAStreamError();
    void invalidUtf8InTextReadsAsReplacementCharacter();
    void classifiesHttpErrors();
    void requestBodyShape();
    void requestHeadersAndUrl();
    void defaultBaseUrls();
    void thinkingParameters_data();
    void thinkingParameters();
    void toNativeReplaysToolHistory();
    void assistantAndToolResultMessages();
};

void TestOpenAiChatProtocol::decodesText_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("stop");
    QTest::addColumn<int>("input");
    QTest::addColumn<int>("output");
    const QList<std::tuple<const char *, QString, QString, int, int>> rows{
        {"text-include-usage.sse",
         QStringLiteral(
             "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, "
             "I recommend checking a reliable weather website or a weather app."),
         QStringLiteral("stop"), 14, 30},
        {"finish-length.sse", QStringLiteral("{\""), QStringLiteral("length"), 79, 1},
        // A refusal is shown as the reply.
        {"refusal.sse", QStringLiteral("I'm sorry, I can't assist with that request."),
         QStringLiteral("stop"), 79, 11},
    };
    for (const auto &[file, text, stop, input, output] : rows) {
        addSplitRows(file, [&](QTestData &row) {
            row << QStringLiteral("openai-chat/") + QLatin1String(file) << text << stop << input << output;
        });
    }
}

void TestOpenAiChatProtocol::decodesText()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    QFETCH(QString, file);
    QFETCH(QString, text);
    QFETCH(QString, stop);
    QFETCH(int, input);
    QFETCH(int, output);

    const OpenAiChatProtocol protocol(config());
    const Decoded decoded = decode(protocol, fixture(file), Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    QCOMPARE(decoded.streamedText, text);
    QCOMPARE(decoded.turn().text, text);
    QCOMPARE(decoded.turn().reasoning, QString());
    QVERIFY(decoded.turn().toolCalls.isEmpty());
    QCOMPARE(decoded.turn().stopReason, stop);
    QVERIFY(decoded.turn().usage.has_value());
    QCOMPARE(decoded.turn().usage->inputTokens, input);
    QCOMPARE(decoded.turn().usage->outputTokens, output);
    QCOMPARE(decoded.turn().usage->totalTokens, input + output);
    const QJsonArray native = protocol.assistantMessages(decoded.turn());
    QCOMPARE(native.size(), 1);
    QCOMPARE(native.at(0).toObject(), (QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                                   {QStringLiteral("content"), text}}));
}

void TestOpenAiChatProtocol::decodesParallelToolCalls_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("parallel-tool-calls-usage.sse", [](QTestData &) {});
}

void TestOpenAiChatProtocol::decodesParallelToolCalls()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiChatProtocol protocol(config());
    const Decoded decoded = decode(
        protocol, fixture(QStringLiteral("openai-chat/parallel-tool-calls-usage.sse")), Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    const ModelTurn &turn = decoded.turn();
    QCOMPARE(turn.text, QString());
    QCOMPARE(turn.stopReason, QStringLiteral("tool_calls"));
    QCOMPARE(turn.toolCalls.size(), 2);
    QCOMPARE(turn.toolCalls.at(0).id, QStringLiteral("call_JMW1whyEaYG438VE1OIflxA2"));
    QCOMPARE(turn.toolCalls.at(0).name, QStringLiteral("GetWeatherArgs"));
    QCOMPARE(turn.toolCalls.at(0).arguments,
             QStringLiteral(R"({"city": "Edinburgh", "country": "GB", "units": "c"})"));
    QCOMPARE(turn.toolCalls.at(0).input, (QJsonObject{{QStringLiteral("city"), QStringLiteral("Edinburgh")},
                                                      {QStringLiteral("country"), QStringLiteral("GB")},
                                                      {QStringLiteral("units"), QStringLiteral("c")}}));
    QCOMPARE(turn.toolCalls.at(1).id, QStringLiteral("call_DNYTawLBoN8fj3KN6qU9N1Ou"));
    QCOMPARE(turn.toolCalls.at(1).name, QStringLiteral("get_stock_price"));
    QCOMPARE(turn.toolCalls.at(1).arguments, QStringLiteral(R"({"ticker": "AAPL", "exchange": "NASDAQ"})"));
    QCOMPARE(turn.usage->inputTokens, 149);
    QCOMPARE(turn.usage->outputTokens, 60);
    QCOMPARE(turn.usage->totalTokens, 209);

    // The native assistant message: content null, tool_calls with their arguments as strings.
    const QJsonObject assistant = protocol.assistantMessages(turn).at(0).toObject();
    QVERIFY(assistant.value(QStringLiteral("content")).isNull());
    QVERIFY(!assistant.contains(QStringLiteral("reasoning_content")));
    const QJsonArray calls = assistant.value(QStringLiteral("tool_calls")).toArray();
    QCOMPARE(calls.size(), 2);
    QCOMPARE(calls.at(1).toObject(),
             (QJsonObject{{QStringLiteral("id"), QStringLiteral("call_DNYTawLBoN8fj3KN6qU9N1Ou")},
                          {QStringLiteral("type"), QStringLiteral("function")},
                          {QStringLiteral("function"),
                           QJsonObject{{QStringLiteral("name"), QStringLiteral("get_stock_price")},
                                       {QStringLiteral("arguments"),
                                        QStringLiteral(R"({"ticker": "AAPL", "exchange": "NASDAQ"})")}}}}));
}

void TestOpenAiChatProtocol::decodesDeepSeekReasoningAndUsageOnFinishChunk_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("compat-deepseek-reasoning-content-usage.sse", [](QTestData &) {});
}

void TestOpenAiChatProtocol::decodesDeepSeekReasoningAndUsageOnFinishChunk()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiChatProtocol protocol(
        config(QStringLiteral("deepseek"), QStringLiteral("deepseek-reasoner")));
    const Decoded decoded =
        decode(protocol, fixture(QStringLiteral("openai-chat/compat-deepseek-reasoning-content-usage.sse")),
               Split(split), seed);
    QVERIFY2(decoded.ok(), qPrintable(decoded.result->error()));
    const ModelTurn &turn = decoded.turn();
    QCOMPARE(turn.text, QStringLiteral("Hello there! \U0001F60A How can I help you today?"));
    QCOMPARE(decoded.streamedText, turn.text);
    QCOMPARE(turn.reasoning.toUtf8().size(), 882);
    QVERIFY(turn.reasoning.startsWith(QStringLiteral("Hmm, the user just said \"Hello\".")));
    QCOMPARE(sha256(turn.reasoning),
             QByteArrayLiteral("d29146ea4f40dfde7b6155babd3d948397e1b174950e603ef18518f0ff85585a"));
    QCOMPARE(decoded.streamedReasoning, turn.reasoning);
    // Reasoning chunks all come before the first text chunk here.
    QCOMPARE(decoded.events.first().type, StreamEvent::Type::ReasoningChunk);
    QCOMPARE(decoded.events.last().type, StreamEvent::Type::Chunk);
    QCOMPARE(turn.usage->inputTokens, 6);
    QCOMPARE(turn.usage->outputTokens, 212);
    QCOMPARE(turn.usage->totalTokens, 218);
    QCOMPARE(turn.usage->reasoningTokens, 198);
    QCOMPARE(turn.usage->cachedTokens, 0);
    // Reasoning goes back as reasoning_content on the assistant message (reference 1.2).
    const QJsonObject assistant = protocol.assistantMessages(turn).at(0).toObject();
    QCOMPARE(assistant.value(QStringLiteral("reasoning_content")).toString(), turn.reasoning);
    QCOMPARE(assistant.value(QStringLiteral("content")).toString(), turn.text);
}

void TestOpenAiChatProtocol::groqMidStreamErrorEvent_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("compat-groq-reasoning-then-midstream-error-event.sse", [](QTestData &) {});
}

void TestOpenAiChatProtocol::groqMidStreamErrorEvent()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiChatProtocol protocol(
        config(QStringLiteral("openai-compatible"), QStringLiteral("openai/gpt-oss-120b")));
    const Decoded decoded = decode(
        protocol, fixture(QStringLiteral("openai-chat/compat-groq-reasoning-then-midstream-error-event.sse")),
        Split(split), seed);
    QVERIFY(!decoded.ok());
    // The reasoning before the error was streamed live.
    QCOMPARE(decoded.streamedReasoning.toUtf8().size(), 412);
    QCOMPARE(sha256(decoded.streamedReasoning),
             QByteArrayLiteral("42abcfd444c13a252daf3a905d1959fe1881cf8631c56e434cf9dd844576524f"));
    QCOMPARE(decoded.error.kind, ProviderError::Kind::InvalidRequest); // status_code 400 inside the event
    QCOMPARE(decoded.error.httpStatus, 400);
    QVERIFY(!decoded.error.isRetryable());
    QVERIFY2(decoded.error.message.startsWith(QStringLiteral("Tool call validation failed: ")),
             qPrintable(decoded.error.message));
    QVERIFY(decoded.error.message.endsWith(QStringLiteral("(tool_use_failed)")));
    QCOMPARE(decoded.result->error(), decoded.error.message);
}

void TestOpenAiChatProtocol::openRouterErrorChunkAfterFinish_data()
{
    QTest::addColumn<int>("split");
    QTest::addColumn<quint32>("seed");
    addSplitRows("compat-openrouter-comments-error-chunk.sse", [](QTestData &) {});
}

void TestOpenAiChatProtocol::openRouterErrorChunkAfterFinish()
{
    QFETCH(int, split);
    QFETCH(quint32, seed);
    const OpenAiChatProtocol protocol(config());
    const Decoded decoded =
        decode(protocol, fixture(QStringLiteral("openai-chat/compat-openrouter-comments-error-chunk.sse")),
               Split(split), seed);
    // A finish_reason came first, but the error chunk after it still fails the response.
    QVERIFY(!decoded.ok());
    if (Split(split) == Split::Bytewise)
        QVERIFY(decoded.failedEarly); // [DONE] was still to come
    QCOMPARE(decoded.streamedReasoning, QStringLiteral("We need to respond to a greeting. The user"));
    QCOMPARE(decoded.streamedText, QString());
    QCOMPARE(decoded.error.message, QStringLiteral("Token limit reached"));
    QCOMPARE(decoded.error.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(!decoded.error.isRetryable());
}

void TestOpenAiChatProtocol::truncatedStreamIsAnError_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("cutBefore");
    QTest::newRow("text before finish")
        << QStringLiteral("openai-chat/text-include-usage.sse")
        << QByteArray("data: {\"id\":\"chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL\","
                      "\"object\":\"chat.completion.chunk\",\"created\":1727346168,"
                      "\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":"
                      "\"fp_5050236cbd\",\"choices\":[{\"index\":0,\"delta\":{},");
    QTest::newRow("tools before finish") << QStringLiteral("openai-chat/parallel-tool-calls-usage.sse")
                                         << QByteArray("\"finish_reason\":\"tool_calls\"");
    QTest::newRow("deepseek mid text")
        << QStringLiteral("openai-chat/compat-deepseek-reasoning-content-usage.sse")
        << QByteArray("\" today\"");
}

void TestOpenAiChatProtocol::truncatedStreamIsAnError()
{
    QFETCH(QString, file);
    QFETCH(QByteArray, cutBefore);
    QByteArray body = fixture(file);
    const qsizetype cut = body.indexOf(cutBefore);
    QVERIFY(cut > 0);
    // Cut inside an event, and at an event boundary: neither is a silent empty answer, both are a truncation
    // (which the tool loop retries).
    for (const QByteArray &truncated : {body.left(cut), body.left(body.lastIndexOf("\n\n", cut) + 2)}) {
        const OpenAiChatProtocol protocol(config());
        const Decoded decoded = decode(protocol, truncated, Split::Random, 7);
        QVERIFY(!decoded.ok());
        QCOMPARE(decoded.error.kind, ProviderError::Kind::Truncated);
        QVERIFY(decoded.error.isRetryable());
        QCOMPARE(decoded.error.message, QStringLiteral("stream ended before the response was complete"));
    }
}

void TestOpenAiChatProtocol::finishReasonWithoutDoneCompletes()
{
    // Some compatible servers close right after the finish chunk; a finish_reason is a terminal marker too.
    QByteArray body = fixture(QStringLiteral("openai-chat/finish-length.sse"));
    body.truncate(body.indexOf("data: [DONE]"));
    const OpenAiChatProtocol protocol(config());
    const Decoded decoded = decode(protocol, body, Split::Whole);
    QVERIFY(decoded.ok());
    QCOMPARE(decoded.turn().text, QStringLiteral("{\""));
}

void TestOpenAiChatProtocol::ignoresCallsWithoutName()
{
    const QByteArray body =
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{"
        "\"name\":"
        "\"\",\"arguments\":\"{}\"}},{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"glob\",\"arguments\":"
        "\"\"}}]}}]}"
        "\n\n"
        "data: "
        "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{"
        "\\\"p"
        "attern\\\":\\\"*.md\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
    const OpenAiChatProtocol protocol(config());
    const Decoded decoded = decode(protocol, body, Split::Bytewise);
    QVERIFY(decoded.ok());
    QCOMPARE(decoded.turn().toolCalls.size(), 1);
    QCOMPARE(decoded.turn().toolCalls.at(0).id, QStringLiteral("b"));
    QCOMPARE(decoded.turn().toolCalls.at(0).input,
             (QJsonObject{{QStringLiteral("pattern"), QStringLiteral("*.md")}}));
    QCOMPARE(protocol.assistantMessages(decoded.turn()).at(0)[QStringLiteral("tool_calls")].toArray().size(),
             1);
}

void TestOpenAiChatProtocol::callsSharingAnIndexStayApart_data()
{
    // Each entry is one chunk's tool_calls array.
    QTest::addColumn<QStringList>("deltas");
    QTest::addColumn<QStringList>("ids");    // of the decoded calls, in order
    QTest::addColumn<QStringList>("names");  // the same
    QTest::addColumn<QStringList>("inputs"); // each call's input, compact JSON
    const QString readA = QStringLiteral(R"({"name":"read_file","arguments":"{\"path\":\"a.txt\"}"})");
    const QString readB = QStringLiteral(R"({"name":"read_file","arguments":"{\"path\":\"b.txt\"}"})");
    const QStringList bothReads{QStringLiteral(R"({"path":"a.txt"})"), QStringLiteral(R"({"path":"b.txt"})")};
    QTest::newRow("ollama: every call index 0")
        << QStringList{QStringLiteral(R"([{"index":0,"id":"call_a","type":"function","function":%1}])")
                           .arg(readA),
                       QStringLiteral(R"([{"index":0,"id":"call_b","type":"function","function":%1}])")
                           .arg(readB)}
        << QStringList{QStringLiteral("call_a"), QStringLiteral("call_b")}
        << QStringList{QStringLiteral("read_file"), QStringLiteral("read_file")} << bothReads;
    QTest::newRow("older ollama: no index")
        << QStringList{QStringLiteral(R"([{"id":"call_a","function":%1}])").arg(readA),
                       QStringLiteral(R"([{"id":"call_b","function":%1}])").arg(readB)}
        << QStringList{QStringLiteral("call_a"), QStringLiteral("call_b")}
        << QStringList{QStringLiteral("read_file"), QStringLiteral("read_file")} << bothReads;
    QTest::newRow("vllm: one call's id on every fragment")
        << QStringList{QStringLiteral(
                           R"([{"index":0,"id":"call_x","function":{"name":"bash","arguments":""}}])"),
                       QStringLiteral(R"([{"index":0,"id":"call_x","function":{"arguments":"{\"comm"}}])"),
                       QStringLiteral(
                           R"([{"index":0,"id":"call_x","function":{"arguments":"and\":\"ls\"}"}}])")}
        << QStringList{QStringLiteral("call_x")} << QStringList{QStringLiteral("bash")}
        << QStringList{QStringLiteral(R"({"command":"ls"})")};
    QTest::newRow("no ids: another tool after complete arguments")
        << QStringList{QStringLiteral(R"([{"index":0,"function":%1}])").arg(readA),
                       QStringLiteral(
                           R"([{"index":0,"function":{"name":"glob","arguments":"{\"pattern\":\"*.md\"}"}}])")}
        << QStringList{QStringLiteral("call_0"), QStringLiteral("call_1")}
        << QStringList{QStringLiteral("read_file"), QStringLiteral("glob")}
        << QStringList{QStringLiteral(R"({"path":"a.txt"})"), QStringLiteral(R"({"pattern":"*.md"})")};
    QTest::newRow("openai: interleaved fragments by index")
        << QStringList{QStringLiteral(
                           R"([{"index":0,"id":"call_a","function":{"name":"read_file","arguments":""}}])"),
                       QStringLiteral(
                           R"([{"index":1,"id":"call_b","function":{"name":"read_file","arguments":"{\"pa"}}])"),
                       QStringLiteral(R"([{"index":0,"function":{"arguments":"{\"path\":\"a.txt\"}"}}])"),
                       QStringLiteral(R"([{"index":1,"function":{"arguments":"th\":\"b.txt\"}"}}])")}
        << QStringList{QStringLiteral("call_a"), QStringLiteral("call_b")}
        << QStringList{QStringLiteral("read_file"), QStringLiteral("read_file")} << bothReads;
}

// Found reading how local servers stream parallel calls (2026-12-07): Ollama numbers every call of a parallel
// batch 0 and sends each whole, so the decoder, which joins fragments by index, made one call of two: the
// first call's id and name with both argument texts ("{...}{...}", read as {}), and the second call never
// ran. A different id (or, without ids, another tool after complete arguments) starts a call of its own.
void TestOpenAiChatProtocol::callsSharingAnIndexStayApart()
{
    QFETCH(QStringList, deltas);
    QFETCH(QStringList, ids);
    QFETCH(QStringList, names);
    QFETCH(QStringList, inputs);
    QByteArray body;
    for (const QString &calls : deltas)
        body += R"(data: {"choices":[{"index":0,"delta":{"tool_calls":)" + calls.toUtf8() + "}}]}\n\n";
    body += R"(data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"
            "\n\ndata: [DONE]\n\n";
    const OpenAiChatProtocol protocol(config());
    for (const Split split : {Split::Whole, Split::Bytewise}) {
        const Decoded decoded = decode(protocol, body, split);
        QVERIFY2(decoded.ok(), qPrintable(decoded.error.message));
        const QList<ToolCallRequest> calls = decoded.turn().toolCalls;
        QCOMPARE(calls.size(), ids.size());
        for (qsizetype i = 0; i < calls.size(); ++i) {
            QCOMPARE(calls.at(i).id, ids.at(i));
            QCOMPARE(calls.at(i).name, names.at(i));
            QCOMPARE(QJsonDocument(calls.at(i).input).toJson(QJsonDocument::Compact), inputs.at(i).toUtf8());
        }
        // The replayed assistant message names each call once, so each result answers its own call.
        const QJsonArray replayed =
            protocol.assistantMessages(decoded.turn()).at(0)[QStringLiteral("tool_calls")].toArray();
        QCOMPARE(replayed.size(), ids.size());
    }
}

// A server that ignores "stream": true sends the whole chat.completion: read as the one chunk it would have
// streamed, reasoning, text, calls and usage alike.
void TestOpenAiChatProtocol::aWholeCompletionReadsAsItsStream()
{
    const OpenAiChatProtocol protocol(config());
    const std::optional<QByteArray> stream = protocol.documentAsStream(
        R"({"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant",)"
        R"("reasoning_content":"Look first.","content":"Reading both.","tool_calls":[{"id":"call_a","type":)"
        R"("function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}},{"id":"call_b","type":)"
        R"("function","function":{"name":"read_file","arguments":"{\"path\":\"b.txt\"}"}}]},"finish_reason":)"
        R"("tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}})");
    QVERIFY(stream);
    const Decoded decoded = decode(protocol, *stream, Split::Bytewise);
    QVERIFY2(decoded.ok(), qPrintable(decoded.error.message));
    QCOMPARE(decoded.turn().reasoning, QStringLiteral("Look first."));
    QCOMPARE(decoded.turn().text, QStringLiteral("Reading both."));
    QCOMPARE(decoded.streamedText, QStringLiteral("Reading both."));
    QCOMPARE(decoded.turn().toolCalls.size(), 2);
    QCOMPARE(decoded.turn().toolCalls.at(1).id, QStringLiteral("call_b"));
    QCOMPARE(decoded.turn().toolCalls.at(1).input[QStringLiteral("path")].toString(),
             QStringLiteral("b.txt"));
    QVERIFY(decoded.turn().usage);
    QCOMPARE(decoded.turn().usage->inputTokens, 120);
    QCOMPARE(decoded.turn().stopReason, QStringLiteral("tool_calls"));

    // An error object is the stream's error; anything else is not read.
    const std::optional<QByteArray> error =
        protocol.documentAsStream(R"({"error":{"message":"model 'm' not found","code":404}})");
    QVERIFY(error);
    const Decoded failed = decode(protocol, *error, Split::Whole);
    QVERIFY(!failed.ok());
    QVERIFY2(failed.error.message.contains(QStringLiteral("model 'm' not found")),
             qPrintable(failed.error.message));
    QVERIFY(!protocol.documentAsStream(R"({"model":"m","message":{"content":"hi"},"done":true})"));
    QVERIFY(!protocol.documentAsStream("[1, 2]"));
    QVERIFY(!protocol.documentAsStream("<html></html>"));
}

void TestOpenAiChatProtocol::malformedDataIsAStreamError()
{
    const OpenAiChatProtocol protocol(config());
    const Decoded decoded = decode(protocol, "data: {\"choices\":[\n\ndata: [DONE]\n\n", Split::Whole);
    QVERIFY(!decoded.ok());
    QCOMPARE(decoded.error.kind, ProviderError::Kind::Stream);
    QVERIFY(!decoded.error.isRetryable()); // malformed data is not retried, unlike a cut-off body
}

// Event data reaches the JSON parser as the bytes the server sent. A stray invalid byte inside a string must
// not end the turn: it reads as U+FFFD, as it did when the data was decoded to text first.
void TestOpenAiChatProtocol::invalidUtf8InTextReadsAsReplacementCharacter()
{
    const OpenAiChatProtocol protocol(config());
    const QByteArray body(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"caf\xC3\xA9 \xFF ok\"}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
        "data: [DONE]\n\n");
    for (const Split split : {Split::Whole, Split::Bytewise}) {
        const Decoded decoded = decode(protocol, body, split);
        QVERIFY2(decoded.ok(), qPrintable(decoded.error.message));
        const QString expected = QStringLiteral("caf\u00E9 \uFFFD ok");
        QCOMPARE(decoded.streamedText, expected);
        QCOMPARE(decoded.turn().text, expected);
    }
}

void TestOpenAiChatProtocol::classifiesHttpErrors()
{
    const OpenAiChatProtocol protocol(config());
    const HeaderList json{{"Content-Type", "application/json"}};

    const ProviderError context = protocol.classifyHttpError(
        400, fixture(QStringLiteral("openai-chat/error-400-context-length-exceeded.json")), json);
    QCOMPARE(context.kind, ProviderError::Kind::ContextLength);
    QCOMPARE(context.httpStatus, 400);
    QVERIFY(context.message.contains(QStringLiteral("maximum context length is 128000 tokens")));
    QVERIFY(!context.isRetryable());

    // llama.cpp's server has its own type and words for it (seen in its users' reports).
    const ProviderError llamaCpp = protocol.classifyHttpError(
        400,
        R"json({"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}})json",
        json);
    QCOMPARE(llamaCpp.kind, ProviderError::Kind::ContextLength);

    // llama-server started without --jinja refuses every request with tools (seen in many users' reports):
    // said with what to do, and not retried, as the same request gets the same 500.
    const ProviderError jinja = protocol.classifyHttpError(
        500, R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})",
        json);
    QCOMPARE(jinja.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(!jinja.isRetryable());
    QCOMPARE(jinja.message,
             QStringLiteral(
                 "the request was rejected (HTTP 500): tools param requires --jinja flag (server_error). "
                 "The agent's tools need llama-server started with --jinja (and a chat template that "
                 "knows tools)"));
    QVERIFY2(llamaCpp.message.contains(
                 QStringLiteral("too long for the model's context window (HTTP 400): request "
                                "(4476 tokens) exceeds the available context size")),
             qPrintable(llamaCpp.message));

    const ProviderError invalid = protocol.classifyHttpError(
        400, fixture(QStringLiteral("openai-chat/error-400-invalid-image-url.json")), json);
    QCOMPARE(invalid.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(invalid.message.contains(QStringLiteral("(invalid_image_url)")));

    const QByteArray authBody =
        R"({"error":{"message":"Incorrect API key provided: sk-test-***ret.","type":"invalid_request_error","code":"invalid_api_key"}})";
    const ProviderError auth = protocol.classifyHttpError(401, authBody, json);
    QCOMPARE(auth.kind, ProviderError::Kind::Authentication);
    QVERIFY(!auth.message.contains(QStringLiteral("sk-test-secret")));
    QCOMPARE(protocol.classifyHttpError(403, "{}", json).kind, ProviderError::Kind::Authentication);

    const QByteArray rateBody =
        R"({"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}})";
    const ProviderError rate = protocol.classifyHttpError(429, rateBody, HeaderList{{"Retry-After", "7"}});
    QCOMPARE(rate.kind, ProviderError::Kind::RateLimit);
    QCOMPARE(rate.retryAfterMs, 7000);
    QVERIFY(rate.isRetryable());
    QCOMPARE(protocol.classifyHttpError(429, rateBody, HeaderList{{"retry-after-ms", "1500"}}).retryAfterMs,
             1500);

    const QByteArray quotaBody =
        R"({"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}})";
    const ProviderError quota = protocol.classifyHttpError(429, quotaBody, HeaderList{{"Retry-After", "1"}});
    QCOMPARE(quota.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(!quota.isRetryable());
    QVERIFY2(quota.message.contains(QStringLiteral("quota")), qPrintable(quota.message));

    QCOMPARE(
        protocol.classifyHttpError(500, R"({"error":{"message":"boom","type":"server_error"}})", json).kind,
        ProviderError::Kind::Overloaded);
    QCOMPARE(protocol.classifyHttpError(503, "<html>Service Unavailable</html>", {}).kind,
             ProviderError::Kind::Overloaded);
    const ProviderError notFound = protocol.classifyHttpError(
        404, R"({"error":{"message":"The model `x` does not exist","code":"model_not_found"}})", json);
    QCOMPARE(notFound.kind, ProviderError::Kind::InvalidRequest);
    QVERIFY(notFound.message.contains(QStringLiteral("(model_not_found)")));
}

void TestOpenAiChatProtocol::requestBodyShape()
{
    const OpenAiChatProtocol protocol(config());
    const ToolRegistry tools = weatherAndStockTools();
    const QJsonObject body = requestBody(
        protocol, {Message::system(QStringLiteral("Be concise.")), Message::user(QStringLiteral("Hello"))},
        tools.specs());
    // The recorded request shapes plus reference 1.2: stream with include_usage, messages, function tools.
    QCOMPARE(body.keys(),
             (QStringList{QStringLiteral("messages"), QStringLiteral("model"), QStringLiteral("stream"),
                          QStringLiteral("stream_options"), QStringLiteral("tools")}));
    QCOMPARE(body.value(QStringLiteral("model")).toString(), QStringLiteral("gpt-4o"));
    QCOMPARE(body.value(QStringLiteral("stream")), QJsonValue(true));
    QCOMPARE(body.value(QStringLiteral("stream_options")).toObject(),
             (QJsonObject{{QStringLiteral("include_usage"), true}}));
    const QJsonObject recorded =
        fixtureJson(QStringLiteral("openai-chat/compat-deepseek-reasoning-content-usage.request.json"));
    QCOMPARE(body.value(QStringLiteral("stream_options")), recorded.value(QStringLiteral("stream_options")));
    QCOMPARE(body.value(QStringLiteral("messages")).toArray(),
             (QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                                     {QStringLiteral("content"), QStringLiteral("Be concise.")}},
                         QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                     {QStringLiteral("content"), QStringLiteral("Hello")}}}));

    const QJsonArray definitions = body.value(QStringLiteral("tools")).toArray();
    QCOMPARE(definitions.size(), 2);
    // Sorted by name (registry order), each {type:function, function:{name, description, parameters,
    // strict}}.
    const QJsonObject first = definitions.at(0).toObject();
    QCOMPARE(first.keys(), (QStringList{QStringLiteral("function"), QStringLiteral("type")}));
    const QJsonObject recordedTool =
        fixtureJson(
            QStringLiteral("openai-chat/compat-groq-reasoning-then-midstream-error-event.request.json"))
            .value(QStringLiteral("tools"))
            .toArray()
            .at(0)
            .toObject();
    QCOMPARE(first.keys(), recordedTool.keys());
    QCOMPARE(first.value(QStringLiteral("type")).toString(), QStringLiteral("function"));
    const QJsonObject function = first.value(QStringLiteral("function")).toObject();
    QCOMPARE(function.value(QStringLiteral("name")).toString(), QStringLiteral("GetWeatherArgs"));
    QCOMPARE(function.value(QStringLiteral("description")).toString(), QStringLiteral("Weather in a city"));
    QCOMPARE(function.value(QStringLiteral("parameters")).toObject(), objectSchema(QStringLiteral("city")));
    QCOMPARE(function.value(QStringLiteral("strict")), QJsonValue(false));
    QCOMPARE(definitions.at(1)[QStringLiteral("function")][QStringLiteral("name")].toString(),
             QStringLiteral("get_stock_price"));

    // No tools: no tools key at all.
    QVERIFY(!requestBody(protocol, {Message::user(QStringLiteral("Hi"))}).contains(QStringLiteral("tools")));
    const ToolRegistry empty;
    QVERIFY(!requestBody(protocol, {Message::user(QStringLiteral("Hi"))}, empty.specs())
                 .contains(QStringLiteral("tools")));
}

void TestOpenAiChatProtocol::requestHeadersAndUrl()
{
    ClientConfig cfg = config();
    cfg.headers = {{"X-Title", "Keen"}, {"HTTP-Referer", "https://keen.example"}};
    const OpenAiChatProtocol protocol(cfg);
    const HttpRequestSpec spec =
        protocol.buildRequest(protocol.toNative({Message::user(QStringLiteral("Hi"))}), {}, {});
    QCOMPARE(spec.url, QUrl(QStringLiteral("http://localhost:11434/v1/chat/completions")));
    QVERIFY(!spec.http1Only);
    QVERIFY(
        spec.headers.contains(qMakePair(QByteArray("Authorization"), QByteArray("Bearer sk-test-secret"))));
    QVERIFY(spec.headers.contains(qMakePair(QByteArray("Content-Type"), QByteArray("application/json"))));
    QVERIFY(spec.headers.contains(qMakePair(QByteArray("X-Title"), QByteArray("Keen"))));
    QVERIFY(spec.headers.contains(qMakePair(QByteArray("HTTP-Referer"), QByteArray("https://keen.example"))));

    // A local server without a key: no Authorization header at all.
    cfg.apiKey.clear();
    cfg.headers.clear();
    const OpenAiChatProtocol keyless(cfg);
    const HttpRequestSpec plain = keyless.buildRequest({}, {}, {});
    for (const auto &header : plain.headers)
        QVERIFY(header.first.compare("Authorization", Qt::CaseInsensitive) != 0);
}

void TestOpenAiChatProtocol::defaultBaseUrls()
{
    for (const auto &[provider, url] : QList<std::pair<QString, QString>>{
             {QStringLiteral("deepseek"), QStringLiteral("https://api.deepseek.com/chat/completions")},
             {QStringLiteral("moonshotai"), QStringLiteral("https://api.moonshot.ai/v1/chat/completions")},
             {QStringLiteral("zai"), QStringLiteral("https://api.z.ai/api/paas/v4/chat/completions")}}) {
        ClientConfig cfg = config(provider, QStringLiteral("m"));
        cfg.baseUrl.clear();
        const OpenAiChatProtocol protocol(cfg);
        QCOMPARE(protocol.buildRequest({}, {}, {}).url, QUrl(url));
    }
    QCOMPARE(OpenAiChatProtocol::defaultBaseUrl(QStringLiteral("openai-compatible")), QString());
}

void TestOpenAiChatProtocol::thinkingParameters_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("effort");
    QTest::addColumn<QJsonValue>("reasoningEffort"); // undefined: absent
    QTest::addColumn<QJsonValue>("thinking");

    const QJsonValue absent(QJsonValue::Undefined);
    auto type = [](const char *value) {
        return QJsonValue(QJsonObject{{QStringLiteral("type"), QLatin1String(value)}});
    };
    QTest::newRow("deepseek on") << QStringLiteral("deepseek") << QStringLiteral("deepseek-v4")
                                 << QStringLiteral("high") << QJsonValue(QStringLiteral("high"))
                                 << type("enabled");
    QTest::newRow("deepseek off") << QStringLiteral("deepseek") << QStringLiteral("deepseek-v4")
                                  << QStringLiteral("disabled") << absent << type("disabled");
    QTest::newRow("kimi-k3 effort") << QStringLiteral("moonshotai") << QStringLiteral("kimi-k3")
                                    << QStringLiteral("medium") << QJsonValue(QStringLiteral("medium"))
                                    << absent;
    QTest::newRow("kimi-k2.6 type") << QStringLiteral("moonshotai") << QStringLiteral("kimi-k2.6")
                                    << QStringLiteral("enabled") << absent << type("enabled");
    QTest::newRow("glm-5.3 toggle") << QStringLiteral("zai") << QStringLiteral("glm-5.3")
                                    << QStringLiteral("low") << QJsonValue(QStringLiteral("low"))
                                    << type("enabled");
    QTest::newRow("glm-5.1 type") << QStringLiteral("zai") << QStringLiteral("glm-5.1")
                                  << QStringLiteral("disabled") << absent << type("disabled");
    QTest::newRow("glm other none") << QStringLiteral("zai") << QStringLiteral("glm-4.6")
                                    << QStringLiteral("high") << absent << absent;
    QTest::newRow("compatible effort")
        << QStringLiteral("openai-compatible") << QStringLiteral("qwen3") << QStringLiteral("low")
        << QJsonValue(QStringLiteral("low")) << absent;
    QTest::newRow("no effort") << QStringLiteral("deepseek") << QStringLiteral("deepseek-v4") << QString()
                               << absent << absent;
}

void TestOpenAiChatProtocol::thinkingParameters()
{
    QFETCH(QString, provider);
    QFETCH(QString, model);
    QFETCH(QString, effort);
    QFETCH(QJsonValue, reasoningEffort);
    QFETCH(QJsonValue, thinking);
    ClientConfig cfg = config(provider, model);
    cfg.thinkingEffort = effort;
    const OpenAiChatProtocol protocol(cfg);
    const QJsonObject body = requestBody(protocol, {Message::user(QStringLiteral("Hi"))});
    QCOMPARE(body.value(QStringLiteral("reasoning_effort")), reasoningEffort);
    QCOMPARE(body.value(QStringLiteral("thinking")), thinking);
}

void TestOpenAiChatProtocol::toNativeReplaysToolHistory()
{
    const OpenAiChatProtocol protocol(config());
    const NativeHistory native = protocol.toNative(conversationWithToolHistory());
    QVERIFY(native.system.isNull() || native.system.isUndefined());
    auto call = [](const char *id, const char *name, const char *arguments) {
        return QJsonObject{{QStringLiteral("id"), QLatin1String(id)},
                           {QStringLiteral("type"), QStringLiteral("function")},
                           {QStringLiteral("function"),
                            QJsonObject{{QStringLiteral("name"), QLatin1String(name)},
                                        {QStringLiteral("arguments"), QLatin1String(arguments)}}}};
    };
    auto result = [](const char *id, const char *content) {
        return QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                           {QStringLiteral("tool_call_id"), QLatin1String(id)},
                           {QStringLiteral("content"), QLatin1String(content)}};
    };
    const QJsonArray expected{
        QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                    {QStringLiteral("content"), QStringLiteral("You are Keen.")}},
        QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                    {QStringLiteral("content"), QStringLiteral("What is in the README?")}},
        QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                    {QStringLiteral("content"), QStringLiteral("Let me see")},
                    {QStringLiteral("tool_calls"),
                     QJsonArray{call("historical_2_0", "read_file", R"({"path":"README.md"})"),
                                call("historical_2_1", "bash", R"({"command":"false"})")}}},
        result("historical_2_0", R"({"content":"# Keen"})"),
        result("historical_2_1", R"({"exit_code":1,"status":"error"})"),
        QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                    {QStringLiteral("content"), QStringLiteral(". It says Keen.")}},
        QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                    {QStringLiteral("content"), QStringLiteral("Thanks")}},
    };
    QCOMPARE(native.messages, expected);

    // A turn that starts with a tool call: the assistant message has null content.
    TurnMemory memory;
    ToolActivity glob;
    glob.tool = QStringLiteral("glob");
    glob.status = QStringLiteral("success");
    memory.toolActivity = {glob};
    const NativeHistory leading = protocol.toNative(
        {Message::user(QStringLiteral("go")), Message::assistant(QStringLiteral("Done."), memory)});
    QCOMPARE(leading.messages.size(), 4);
    QVERIFY(leading.messages.at(1)[QStringLiteral("content")].isNull());
    QCOMPARE(
        leading.messages
            .at(1)[QStringLiteral("tool_calls")][0][QStringLiteral("function")][QStringLiteral("arguments")]
            .toString(),
        QStringLiteral("{}"));
    QCOMPARE(leading.messages.at(2)[QStringLiteral("content")].toString(),
             QStringLiteral(R"({"status":"success"})"));
}

void TestOpenAiChatProtocol::assistantAndToolResultMessages()
{
    const OpenAiChatProtocol protocol(config());
    ToolCallRequest call;
    call.id = QStringLiteral("call_1");
    call.name = QStringLiteral("glob");
    const QJsonArray results =
        protocol.toolResultMessages({ToolOutcome{call, QStringLiteral(R"({"files":[]})"), false},
                                     ToolOutcome{call, QStringLiteral(R"({"error":"nope"})"), true}});
    QCOMPARE(results.size(), 2);
    QCOMPARE(results.at(0).toObject(),
             (QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                          {QStringLiteral("tool_call_id"), QStringLiteral("call_1")},
                          {QStringLiteral("content"), QStringLiteral(R"({"files":[]})")}}));

    NativeHistory history;
    protocol.appendUserText(history, QStringLiteral("next"));
    QCOMPARE(history.messages.last().toObject(),
             (QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                          {QStringLiteral("content"), QStringLiteral("next")}}));
}

QTEST_GUILESS_MAIN(TestOpenAiChatProtocol)
#include "tst_openaichatprotocol.moc"
