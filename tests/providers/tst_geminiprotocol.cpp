// GeminiProtocol and GeminiStreamDecoder: every captured Gemini stream decoded whole, byte by byte and in
// random splits; request bodies against the *.request.json captures.

#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "providers/gemini/geminiprotocol.h"

#include <QRegularExpression>
#include <QTest>

using namespace keen;
using namespace keen::test;

namespace {

ClientConfig geminiConfig()
{
    ClientConfig config;
    config.providerId = QStringLiteral("googleai");
    config.model = QStringLiteral("gemini-2.5-flash");
    config.apiKey = QStringLiteral("AIza-test-key");
    return config;
}

// The first thoughtSignature in a fixture, read independently of the decoder.
QString firstSignature(const QByteArray &body)
{
    static const QRegularExpression pattern(QStringLiteral("\"thoughtSignature\": \"([^\"]+)\""));
    return pattern.match(QString::fromUtf8(body)).captured(1);
}

QByteArray dataEvent(const QByteArray &json)
{
    return "data: " + json + "\r\n\r\n";
}

QJsonObject part(const QString &text)
{
    return QJsonObject{{QStringLiteral("text"), text}};
}

} // namespace

class TestGeminiProtocol : public QObject
{
    Q_OBJECT

private:
    GeminiProtocol m_protocol{geminiConfig()};

    void addSplitRows()
    {
        QTest::addColumn<int>("split");
        QTest::addColumn<quint32>("seed");
        for (const auto &[name, mode] : splitModes())
            QTest::newRow(qPrintable(name)) << int(mode.first) << mode.second;
    }
    Decoded decodeFixture(const QString &name)
    {
        QFETCH(int, split);
        QFETCH(quint32, seed);
        return decodeBody(m_protocol, readFixture(QStringLiteral("gemini/") + name), Split(split), seed);
    }

private Q_SLOTS:
    void decodesText_data() { addSplitRows(); }
    void decodesText()
    {
        const Decoded d = decodeFixture(QStringLiteral("text.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text, QStringLiteral("The capital of France is Paris.\n"));
        QCOMPARE(d.streamedText, d.turn().text);
        QCOMPARE(d.turn().stopReason, QStringLiteral("STOP"));
        // Early chunks said 15 prompt tokens; the final chunk revised it to 13.
        QCOMPARE(d.turn().usage->inputTokens, 13);
        QCOMPARE(d.turn().usage->outputTokens, 8);
        QCOMPARE(d.turn().usage->totalTokens, 21);
        QCOMPARE(d.turn().assistantNative,
                 (QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("model")},
                                         {QStringLiteral("parts"), QJsonArray{part(d.turn().text)}}}}));
    }

    void decodesThoughtParts_data() { addSplitRows(); }
    void decodesThoughtParts()
    {
        const Decoded d = decodeFixture(QStringLiteral("thinking-thought-parts.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QVERIFY(d.turn().reasoning.startsWith(
            QLatin1String("**Clarifying User Goals**\n\nI'm currently focused o")));
        QVERIFY(d.turn().reasoning.endsWith(
            QLatin1String("regardless of specific circumstances or locations.\n\n\n")));
        QCOMPARE(d.turn().reasoning.size(), 1575);
        QCOMPARE(d.streamedReasoning, d.turn().reasoning);
        QVERIFY(d.turn().text.startsWith(
            QLatin1String("This is a great question! Safely crossing the street is")));
        QVERIFY(d.turn().text.endsWith(
            QLatin1String("be predictable**. Always assume a driver might not see you.")));
        QCOMPARE(d.turn().text.size(), 1938);
        QCOMPARE(d.streamedText, d.turn().text);
        QVERIFY(!d.turn().text.contains(QLatin1String("Clarifying User Goals")));
        QCOMPARE(d.turn().usage->inputTokens, 34);
        QCOMPARE(d.turn().usage->outputTokens, 469);
        QCOMPARE(d.turn().usage->reasoningTokens, 787);
        QCOMPARE(d.turn().usage->totalTokens, 1290);
        // The signed first text chunk stays a part of its own with its signature; the rest merges after it.
        const QJsonArray parts = d.turn().assistantNative.at(0)[QStringLiteral("parts")].toArray();
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts.at(0)[QStringLiteral("thoughtSignature")].toString(),
                 firstSignature(readFixture(QStringLiteral("gemini/thinking-thought-parts.sse"))));
        QCOMPARE(parts.at(0)[QStringLiteral("text")].toString(),
                 QStringLiteral(
                     "This is a great question! Safely crossing the street is all about being aware and "
                     "predictable. Here is a step-by-step"));
        QVERIFY(!parts.at(1).toObject().contains(QStringLiteral("thoughtSignature")));
        QCOMPARE(parts.at(0)[QStringLiteral("text")].toString() +
                     parts.at(1)[QStringLiteral("text")].toString(),
                 d.turn().text);
    }

    void decodesFunctionCallWithSignature_data() { addSplitRows(); }
    void decodesFunctionCallWithSignature()
    {
        const Decoded d = decodeFixture(QStringLiteral("function-call-thought-signature.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        const QString signature =
            firstSignature(readFixture(QStringLiteral("gemini/function-call-thought-signature.sse")));
        QCOMPARE(signature.size(), 1408);
        QCOMPARE(d.turn().text, QString());
        QCOMPARE(d.turn().toolCalls.size(), 1);
        const ToolCallRequest &call = d.turn().toolCalls.at(0);
        QCOMPARE(call.id, QStringLiteral("gemini_call_0"));
        QCOMPARE(call.name, QStringLiteral("get_country"));
        QCOMPARE(call.input, QJsonObject());
        QCOMPARE(call.arguments, QStringLiteral("{}"));
        QCOMPARE(call.native.value(QStringLiteral("thoughtSignature")).toString(), signature);
        QVERIFY(!call.native.contains(QStringLiteral("id")));
        // Replayed with the signature on the functionCall part itself.
        const QJsonArray expected{QJsonObject{
            {QStringLiteral("role"), QStringLiteral("model")},
            {QStringLiteral("parts"),
             QJsonArray{QJsonObject{{QStringLiteral("functionCall"),
                                     QJsonObject{{QStringLiteral("name"), QStringLiteral("get_country")},
                                                 {QStringLiteral("args"), QJsonObject()}}},
                                    {QStringLiteral("thoughtSignature"), signature}}}}}};
        QCOMPARE(m_protocol.assistantMessages(d.turn()), expected);
        QCOMPARE(d.turn().usage->inputTokens, 29);
        QCOMPARE(d.turn().usage->outputTokens, 10);
        QCOMPARE(d.turn().usage->reasoningTokens, 202);
        QCOMPARE(d.turn().usage->totalTokens, 241);
    }

    void decodesTextAfterFunctionResponse_data() { addSplitRows(); }
    void decodesTextAfterFunctionResponse()
    {
        const Decoded d = decodeFixture(QStringLiteral("text-after-function-response.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text, QStringLiteral("The capital of Mexico is Mexico City."));
        QCOMPARE(d.turn().usage->inputTokens, 257);
        QCOMPARE(d.turn().usage->outputTokens, 8);
        QCOMPARE(d.turn().usage->totalTokens, 265);
    }

    void decodesUsageOnEveryChunk_data() { addSplitRows(); }
    void decodesUsageOnEveryChunk()
    {
        const Decoded d = decodeFixture(QStringLiteral("usage-every-chunk.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QStringList numbers;
        for (int i = 1; i <= 30; ++i)
            numbers.append(QString::number(i));
        QCOMPARE(d.turn().text, numbers.join(QLatin1Char('\n')));
        TokenUsage expected;
        expected.inputTokens = 18;
        expected.outputTokens = 80;
        expected.reasoningTokens = 35;
        expected.totalTokens = 133;
        QCOMPARE(*d.turn().usage, expected);
    }

    void truncatedStreamIsAnError_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char *name :
             {"text.sse", "thinking-thought-parts.sse", "function-call-thought-signature.sse",
              "text-after-function-response.sse", "usage-every-chunk.sse"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    // A body that ends before the finish reason, at an event boundary or inside the last event's JSON, is a
    // truncation (retried by the tool loop), never an empty or partial answer.
    void truncatedStreamIsAnError()
    {
        QFETCH(QString, fixture);
        const QByteArray body = readFixture(QStringLiteral("gemini/") + fixture);
        const qsizetype last = body.lastIndexOf("data: ");
        for (const QByteArray &cut : {body.left(last), body.left(last + 20)}) {
            for (Split split : {Split::Whole, Split::Bytewise}) {
                const Decoded d = decodeBody(m_protocol, cut, split);
                QVERIFY(!d.ok());
                QCOMPARE(d.error.kind, ProviderError::Kind::Truncated);
                QVERIFY(d.error.isRetryable());
                QVERIFY(d.error.message.contains(QLatin1String("finish reason")));
            }
        }
    }

    void errorsInsideTheStream()
    {
        const QByteArray first =
            dataEvent(R"({"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"}}]})");
        Decoded d = decodeBody(
            m_protocol,
            first +
                dataEvent(
                    R"({"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}})"),
            Split::Bytewise);
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::Overloaded);
        QVERIFY(d.error.message.contains(QLatin1String("The model is overloaded.")));
        QCOMPARE(d.streamedText, QStringLiteral("Hel"));

        d = decodeBody(
            m_protocol,
            dataEvent(
                R"({"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5}})"),
            Split::Whole);
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::InvalidRequest);
        QVERIFY(d.error.message.contains(QLatin1String("SAFETY")));

        d = decodeBody(m_protocol, first + "data: {not json\r\n\r\n", Split::Whole);
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::Stream);
        QVERIFY(!d.error.isRetryable()); // malformed (the event ended), not cut off
    }

    void parallelFunctionCalls()
    {
        const QByteArray body =
            dataEvent(
                R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Checking."},{"functionCall":{"name":"read_file","args":{"path":"a.txt"}},"thoughtSignature":"c2lnMQ=="},{"functionCall":{"name":"glob","args":{}}}]}}]})") +
            dataEvent(
                R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call-from-api","name":"grep","args":{"pattern":"x"}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"totalTokenCount":13,"cachedContentTokenCount":4}})");
        const Decoded d = decodeBody(m_protocol, body, Split::Random, 11);
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().toolCalls.size(), 3);
        QCOMPARE(d.turn().toolCalls.at(0).id, QStringLiteral("gemini_call_0"));
        QCOMPARE(d.turn().toolCalls.at(0).input,
                 (QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")}}));
        QCOMPARE(d.turn().toolCalls.at(1).id, QStringLiteral("gemini_call_1"));
        QCOMPARE(d.turn().toolCalls.at(1).name, QStringLiteral("glob"));
        QCOMPARE(d.turn().toolCalls.at(2).id, QStringLiteral("call-from-api"));
        QCOMPARE(d.turn().usage->cachedTokens, 4);
        QCOMPARE(d.turn().usage->cacheReadTokens, 4);
        const QJsonArray parts = d.turn().assistantNative.at(0)[QStringLiteral("parts")].toArray();
        QCOMPARE(parts.size(), 4);
        QCOMPARE(parts.at(1)[QStringLiteral("thoughtSignature")].toString(), QStringLiteral("c2lnMQ=="));
        QVERIFY(!parts.at(2).toObject().contains(QStringLiteral("thoughtSignature")));

        // Results in call order in one user message; an id the API gave goes back with its response.
        QList<ToolOutcome> outcomes;
        for (const ToolCallRequest &call : d.turn().toolCalls)
            outcomes.append(ToolOutcome{call, QStringLiteral("{\"ok\":true}"), false});
        const QJsonArray results = m_protocol.toolResultMessages(outcomes);
        QCOMPARE(results.size(), 1);
        const QJsonArray responses = results.at(0)[QStringLiteral("parts")].toArray();
        QCOMPARE(responses.size(), 3);
        QCOMPARE(responses.at(0)[QStringLiteral("functionResponse")].toObject(),
                 (QJsonObject{{QStringLiteral("name"), QStringLiteral("read_file")},
                              {QStringLiteral("response"), QJsonObject{{QStringLiteral("ok"), true}}}}));
        QCOMPARE(responses.at(2)[QStringLiteral("functionResponse")][QStringLiteral("id")].toString(),
                 QStringLiteral("call-from-api"));
    }

    void nonObjectResultsAreWrapped_data()
    {
        QTest::addColumn<QString>("result");
        QTest::addColumn<QJsonObject>("response");
        QTest::newRow("object") << QStringLiteral("{\"a\":1}") << QJsonObject{{QStringLiteral("a"), 1}};
        QTest::newRow("string") << QStringLiteral("\"hello\"")
                                << QJsonObject{{QStringLiteral("result"), QStringLiteral("hello")}};
        QTest::newRow("number") << QStringLiteral("42") << QJsonObject{{QStringLiteral("result"), 42}};
        QTest::newRow("array") << QStringLiteral("[1,2]")
                               << QJsonObject{{QStringLiteral("result"), QJsonArray{1, 2}}};
        QTest::newRow("plain text") << QStringLiteral("not json")
                                    << QJsonObject{{QStringLiteral("result"), QStringLiteral("not json")}};
    }
    void nonObjectResultsAreWrapped()
    {
        QFETCH(QString, result);
        QFETCH(QJsonObject, response);
        QCOMPARE(GeminiProtocol::responseObject(result), response);
    }

    void httpErrorsAreClassified_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("retryAfterMs");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("404 model") << 404
                                   << readFixture(QStringLiteral("gemini/error-404-model-not-found.json"))
                                   << int(ProviderError::Kind::InvalidRequest) << -1
                                   << QStringLiteral("model not found: models/gemini-3.6-flahs is not found");
        QTest::newRow("429 quota") << 429
                                   << readFixture(QStringLiteral("gemini/error-429-resource-exhausted.json"))
                                   << int(ProviderError::Kind::RateLimit) << 47000
                                   << QStringLiteral("exceeded your current quota");
        QTest::newRow("400 context")
            << 400
            << QByteArray(
                   R"({"error":{"code":400,"message":"The input token count (1411465) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})")
            << int(ProviderError::Kind::ContextLength) << -1 << QStringLiteral("1048576");
        QTest::newRow("400 bad key")
            << 400
            << QByteArray(
                   R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}})")
            << int(ProviderError::Kind::Authentication) << -1 << QStringLiteral("API key not valid");
        QTest::newRow("400 other")
            << 400
            << QByteArray(
                   R"({"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}})")
            << int(ProviderError::Kind::InvalidRequest) << -1 << QStringLiteral("Invalid JSON payload");
        QTest::newRow("403")
            << 403
            << QByteArray(
                   R"({"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}})")
            << int(ProviderError::Kind::Authentication) << -1 << QStringLiteral("Permission denied");
        QTest::newRow("503")
            << 503
            << QByteArray(
                   R"({"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}})")
            << int(ProviderError::Kind::Overloaded) << -1 << QStringLiteral("overloaded");
        QTest::newRow("500 array")
            << 500 << QByteArray(R"([{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}])")
            << int(ProviderError::Kind::Overloaded) << -1 << QStringLiteral("Internal error");
    }
    void httpErrorsAreClassified()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(int, kind);
        QFETCH(int, retryAfterMs);
        QFETCH(QString, mentions);
        const ProviderError error =
            m_protocol.classifyHttpError(status, body, {{"content-type", "application/json"}});
        QCOMPARE(int(error.kind), kind);
        QCOMPARE(error.httpStatus, status);
        QCOMPARE(error.retryAfterMs.value_or(-1), retryAfterMs);
        QVERIFY2(error.message.contains(mentions), qPrintable(error.message));
        QVERIFY(!error.message.contains(QLatin1String("AIza-test-key")));
    }

    void endpointAndHeaders()
    {
        const HttpRequestSpec spec =
            m_protocol.buildRequest(m_protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {});
        QCOMPARE(spec.url, QUrl(QStringLiteral("https://generativelanguage.googleapis.com/v1beta/models/"
                                               "gemini-2.5-flash:streamGenerateContent?alt=sse")));
        bool hasKey = false;
        for (const auto &[name, value] : spec.headers)
            hasKey = hasKey || (name == "x-goog-api-key" && value == "AIza-test-key");
        QVERIFY(hasKey);
        QVERIFY(!spec.url.toString().contains(QLatin1String("AIza"))); // the key never goes in the URL

        ClientConfig custom = geminiConfig();
        custom.baseUrl = QStringLiteral("http://127.0.0.1:9999/v1beta/");
        custom.model = QStringLiteral("models/gemini-3-pro-preview");
        QCOMPARE(
            GeminiProtocol(custom).endpoint(),
            QUrl(QStringLiteral(
                "http://127.0.0.1:9999/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse")));
    }

    void thinkingConfig_data()
    {
        QTest::addColumn<QString>("effort");
        QTest::addColumn<QJsonValue>("generationConfig");
        auto config = [](const QString &level) {
            QJsonObject thinking{{QStringLiteral("includeThoughts"), true}};
            if (!level.isEmpty())
                thinking.insert(QStringLiteral("thinkingLevel"), level);
            return QJsonValue(QJsonObject{{QStringLiteral("thinkingConfig"), thinking}});
        };
        QTest::newRow("unset") << QString() << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("disabled") << QStringLiteral("disabled") << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("minimal") << QStringLiteral("minimal") << config(QStringLiteral("minimal"));
        QTest::newRow("low") << QStringLiteral("low") << config(QStringLiteral("low"));
        QTest::newRow("medium") << QStringLiteral("medium") << config(QStringLiteral("medium"));
        QTest::newRow("high") << QStringLiteral("high") << config(QStringLiteral("high"));
        QTest::newRow("max") << QStringLiteral("max") << config(QStringLiteral("high"));
        QTest::newRow("adaptive") << QStringLiteral("adaptive") << config(QString());
    }
    void thinkingConfig()
    {
        QFETCH(QString, effort);
        QFETCH(QJsonValue, generationConfig);
        ClientConfig config = geminiConfig();
        config.thinkingEffort = effort;
        GeminiProtocol protocol(config);
        const QJsonObject body = jsonObject(
            protocol.buildRequest(protocol.toNative({Message::user(QStringLiteral("x"))}), {}, {}).body);
        QCOMPARE(body.value(QStringLiteral("generationConfig")), generationConfig);
    }

    void requestBodyShape()
    {
        ToolRegistry tools;
        const QJsonObject schema{
            {QStringLiteral("type"), QStringLiteral("object")},
            {QStringLiteral("properties"),
             QJsonObject{
                 {QStringLiteral("path"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}},
            {QStringLiteral("additionalProperties"), false}};
        tools.add(
            std::make_shared<FakeTool>(QStringLiteral("read_file"), QStringLiteral("Reads a file"), schema));
        tools.add(
            std::make_shared<FakeTool>(QStringLiteral("bash"), QStringLiteral("Runs"),
                                       QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}));
        const MessageList messages{
            Message::system(QStringLiteral("You are a helpful chatbot.")),
            Message::user(QStringLiteral("first")), Message::assistant(QStringLiteral("answer")),
            Message::user(QStringLiteral("summary")), Message::user(QStringLiteral("next"))};
        const QJsonObject body =
            jsonObject(m_protocol.buildRequest(m_protocol.toNative(messages), tools.specs(), {}).body);
        QCOMPARE(body.value(QStringLiteral("systemInstruction")).toObject(),
                 (QJsonObject{{QStringLiteral("parts"),
                               QJsonArray{part(QStringLiteral("You are a helpful chatbot."))}}}));
        const QJsonArray expected{
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("parts"), QJsonArray{part(QStringLiteral("first"))}}},
            QJsonObject{{QStringLiteral("role"), QStringLiteral("model")},
                        {QStringLiteral("parts"), QJsonArray{part(QStringLiteral("answer"))}}},
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("parts"),
                         QJsonArray{part(QStringLiteral("summary")), part(QStringLiteral("next"))}}}};
        QCOMPARE(body.value(QStringLiteral("contents")).toArray(), expected);
        const QJsonArray declarations = body.value(QStringLiteral("tools"))
                                            .toArray()
                                            .at(0)[QStringLiteral("functionDeclarations")]
                                            .toArray();
        QCOMPARE(declarations.size(), 2);
        QCOMPARE(declarations.at(1).toObject(),
                 (QJsonObject{{QStringLiteral("name"), QStringLiteral("read_file")},
                              {QStringLiteral("description"), QStringLiteral("Reads a file")},
                              {QStringLiteral("parametersJsonSchema"), schema}}));
        QVERIFY(!body.contains(QStringLiteral("generationConfig")));
    }

    void historicalCallsCarryASignatureAndWrappedResults()
    {
        TurnMemory memory;
        ToolActivity a;
        a.textOffset = 4;
        a.tool = QStringLiteral("bash");
        a.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}};
        a.status = QStringLiteral("success");
        a.retainedOutput = QStringLiteral("plain output");
        memory.toolActivity = {a};
        const QJsonArray contents = m_protocol
                                        .toNative({Message::user(QStringLiteral("go")),
                                                   Message::assistant(QStringLiteral("Ok. Done."), memory)})
                                        .messages;
        QCOMPARE(contents.size(), 4);
        const QJsonArray call = contents.at(1)[QStringLiteral("parts")].toArray();
        QCOMPARE(call.at(0).toObject(), part(QStringLiteral("Ok. ")));
        QCOMPARE(call.at(1)[QStringLiteral("functionCall")].toObject(),
                 (QJsonObject{{QStringLiteral("name"), QStringLiteral("bash")},
                              {QStringLiteral("args"),
                               QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}}}}));
        QCOMPARE(call.at(1)[QStringLiteral("thoughtSignature")].toString(),
                 QLatin1String(GeminiProtocol::HistoricalSignature));
        QCOMPARE(contents.at(2)[QStringLiteral("role")].toString(), QStringLiteral("user"));
        QCOMPARE(contents.at(2)[QStringLiteral("parts")]
                     .toArray()
                     .at(0)[QStringLiteral("functionResponse")]
                     .toObject(),
                 (QJsonObject{{QStringLiteral("name"), QStringLiteral("bash")},
                              {QStringLiteral("response"),
                               QJsonObject{{QStringLiteral("result"), QStringLiteral("plain output")}}}}));
        QCOMPARE(contents.at(3).toObject(),
                 (QJsonObject{{QStringLiteral("role"), QStringLiteral("model")},
                              {QStringLiteral("parts"), QJsonArray{part(QStringLiteral("Done."))}}}));
    }

    void requestMatchesCapturedFunctionResponseShape()
    {
        const QJsonObject captured =
            jsonObject(readFixture(QStringLiteral("gemini/text-after-function-response.request.json")));
        const Decoded first =
            decodeBody(m_protocol, readFixture(QStringLiteral("gemini/function-call-thought-signature.sse")),
                       Split::Whole);
        QVERIFY(first.ok());
        NativeHistory history = m_protocol.toNative(
            {Message::user(QStringLiteral("What is the capital of the user country? Call the tool"))});
        for (const QJsonValue &m : m_protocol.assistantMessages(first.turn()))
            history.messages.append(m);
        for (const QJsonValue &m : m_protocol.toolResultMessages({ToolOutcome{
                 first.turn().toolCalls.at(0), QStringLiteral("{\"return_value\":\"Mexico\"}"), false}}))
            history.messages.append(m);
        ToolRegistry tools;
        tools.add(
            std::make_shared<FakeTool>(QStringLiteral("get_country"), QString(),
                                       QJsonObject{{QStringLiteral("additionalProperties"), false},
                                                   {QStringLiteral("properties"), QJsonObject()},
                                                   {QStringLiteral("type"), QStringLiteral("object")}}));
        const QJsonObject body = jsonObject(m_protocol.buildRequest(history, tools.specs(), {}).body);
        const QJsonArray contents = body.value(QStringLiteral("contents")).toArray();
        const QJsonArray expected = captured.value(QStringLiteral("contents")).toArray();
        QCOMPARE(contents.size(), 3);
        QCOMPARE(contents.at(0), expected.at(0));
        // The recorder's client added its own call ids; the API sent none, so none go back.
        QCOMPARE(contents.at(1)[QStringLiteral("role")], expected.at(1)[QStringLiteral("role")]);
        const QJsonObject ours = contents.at(1)[QStringLiteral("parts")].toArray().at(0).toObject();
        const QJsonObject theirs = expected.at(1)[QStringLiteral("parts")].toArray().at(0).toObject();
        QCOMPARE(ours.value(QStringLiteral("functionCall")),
                 withoutKey(theirs.value(QStringLiteral("functionCall")), QStringLiteral("id")));
        // Same signature bytes: we echo what the API sent (base64), the recorder re-encoded it as base64url.
        QCOMPARE(
            QByteArray::fromBase64(ours.value(QStringLiteral("thoughtSignature")).toString().toLatin1()),
            QByteArray::fromBase64(theirs.value(QStringLiteral("thoughtSignature")).toString().toLatin1(),
                                   QByteArray::Base64UrlEncoding));
        QCOMPARE(contents.at(2), withoutKey(expected.at(2), QStringLiteral("id")));
        const QJsonObject declaration = body.value(QStringLiteral("tools"))
                                            .toArray()
                                            .at(0)[QStringLiteral("functionDeclarations")]
                                            .toArray()
                                            .at(0)
                                            .toObject();
        const QJsonObject recorded = captured.value(QStringLiteral("tools"))
                                         .toArray()
                                         .at(0)[QStringLiteral("functionDeclarations")]
                                         .toArray()
                                         .at(0)
                                         .toObject();
        QCOMPARE(declaration.value(QStringLiteral("name")), recorded.value(QStringLiteral("name")));
        QCOMPARE(declaration.value(QStringLiteral("parametersJsonSchema")),
                 recorded.value(QStringLiteral("parameters_json_schema")));
    }
};

QTEST_GUILESS_MAIN(TestGeminiProtocol)
#include "tst_geminiprotocol.moc"
