// AnthropicProtocol and AnthropicStreamDecoder: every captured Anthropic stream decoded whole, byte by byte
// and in random splits; request bodies against the *.request.json captures and reference 1.5.

#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "conversation/historyreplay.h"
#include "providers/anthropic/anthropicprotocol.h"

#include <QTest>

using namespace keen;
using namespace keen::test;

namespace {

static const char ThinkingSignature[] =
    "EuYDCmMIDBgCKkC05Zda4P+Cdk/LQKE+Aol4ZY3EY4wLDrf8XcApz2PiqrxiRjS7uY1kGtZ63vVlaVmtuIpdsHbkdfGHb9AsBYw+"
    "MhljbGF1ZGUtaGFpa3UtNC01LTIwMjUxMDAxOAASDAXGiw23anViCe75HBoMATySwgVJ0A405/0FIjDbVX0lAn7rEq/ejcuOZWDi"
    "hLSbS9KGihD2QsWmXzp2Ly5ZD5vtKOcKvhEDQ0PCeVkqsALmnx7FhoJ7TQQyomwwFY+zA/Sft9n7u3lNE/RzbZMF4jmvo9i1vtNL"
    "ETK18iSdCAhSy+NJLFRK/vcw6sVaDNrEMGgIadv5iZ0Jmx+iHyR8sXbasYDMbN07/ype7JGpKxHCdQOrNA7plS39Yy5l7hqJz4ue"
    "YoCpMxc+IkNY+TCyMpKwGxYqKSUdElyLr0Ko3vXtdLJBTJQuMtU+cz+UPHkpTbGRPntg/hBvNztCjlqqeM6PKoE8rsDJMx0+q1eO"
    "rFPC9SYgCZqSGHlSHoOexnfkrN2aTlZjcBcFblXq76bKF1YHINp3uL+jByhp91XFSkhF+b43BC9PDtRUYKw3wT+IZlEI6V3GppKB"
    "DSa8L0Sgm8m1Bb2PYvi3oIv+LDpUImrMckjemNZmBeGcEZQ4FjZiGAE=";
static const char RedactedData0[] =
    "EqkECkYIBxgCKkA8AZ4noDfV5VcOJe/p3JTRB6Xz5297mrWhl3MbHSXDKTMfuB/Z52U2teiWWTN0gg4eQ4bGS9TPilFX/xWTIq9H"
    "EgyOmstSPriNwyn1G7AaDC51r0hQ062qEd55IiIwYQj3Z3MSBBv0bSVdXi60LEHDvC7tzzmpQfw5Hb6R9rtyOz/6vC/xPw9/E1mU"
    "qfBqKpADO2HS2QlE/CnuzR901nZOn0TOw7kEXwH7kg30c85b9W7iKALgEejY9sELMBdPyIZNlTgKqNOKtY3R/aV5rGIRPTHh2Wh9"
    "Ijmqsf/TT7i//Z+InaYTo6f/fxF8R0vFXMRPOBME4XIscb05HcNhh4c9FDkpqQGYKaq31IR1NNwPWA0BsvdDz7SIo1nfx4H+X0qK"
    "KqqegKnQ3ynaXiD5ydT1C4U7fku4ftgF0LGwIk4PwXBE+4BP0DcKr1HV3cn7YSyNakBSDTvRJMKcXW6hl7X3w2a4//sxjC1Cjq0u"
    "zkIHkhzRWirN0OSXt+g3m6b1ex0wGmSyuO17Ak6kgVBpxwPugtrqsflG0oujFem44hecXJ9LQNssPf4RSlcydiG8EXp/XLGTe0Yf"
    "Hbe3kJagkowSH/Dm6ErXBiVs7249brncyY8WA+7MOoqIM82YIU095B9frCqDJDUWnN84VwOszRrcaywmpJXZO4aeQLMC1kXD5Wab"
    "u+O/00tD/X67EWkkWuR0AhDIXXjpot45vnBd4ewJ/hgB";
static const char RedactedData1[] =
    "EtgBCkYIBxgCKkDQfGkwzflEJP5asG3oQfJXcTwJLoRznn8CmuczWCsJ36dv93X9H0NCeaJRbi5BrCA2DyMgFnRKRuzZx8VTv5ax"
    "EgwkFmcHJk8BSiZMZRQaDDYv2KZPfbFgRa2QjyIwm47f5YYsSK9CT/oh/WWpU1HJJVHr8lrC6HG1ItRdtMvYQYmEGy+KhyfcIACf"
    "bssVKkDGv/NKqNMOAcu0bd66gJ2+R1R0PX11Jxn2Nd1JtZqkxx7vMT/PXtHDhm9jkDZ2k/6RjRRFuab/DBV3yRYdZ1J0GAE=";

ClientConfig anthropicConfig()
{
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.model = QStringLiteral("claude-sonnet-4-5");
    config.apiKey = QStringLiteral("sk-ant-test");
    return config;
}

QJsonObject text(const QString &value)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), value}};
}

QJsonObject ephemeral()
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("ephemeral")}};
}

ToolActivity activity(int offset, const QString &tool, const QJsonObject &input, const QString &status)
{
    ToolActivity a;
    a.textOffset = offset;
    a.tool = tool;
    a.input = input;
    a.status = status;
    return a;
}

QByteArray sse(const QByteArray &type, const QByteArray &json)
{
    return "event: " + type + "\ndata: " + json + "\n\n";
}

} // namespace

class TestAnthropicProtocol : public QObject
{
    Q_OBJECT

private:
    AnthropicProtocol m_protocol{anthropicConfig()};

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
        return decodeBody(m_protocol, readFixture(QStringLiteral("anthropic/") + name), Split(split), seed);
    }

private Q_SLOTS:
    void decodesText_data() { addSplitRows(); }
    void decodesText()
    {
        const Decoded d = decodeFixture(QStringLiteral("text.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text, QStringLiteral("- Captain\n- Scoop"));
        QCOMPARE(d.streamedText, d.turn().text);
        QCOMPARE(d.turn().reasoning, QString());
        QVERIFY(d.turn().toolCalls.isEmpty());
        QCOMPARE(d.turn().stopReason, QStringLiteral("end_turn"));
        QVERIFY(d.turn().usage);
        QCOMPARE(d.turn().usage->inputTokens, 17);
        QCOMPARE(d.turn().usage->outputTokens, 10);
        QCOMPARE(d.turn().usage->totalTokens, 27);
        QCOMPARE(d.turn().usage->cachedTokens, 0);
        const QJsonArray expected{QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                              {QStringLiteral("content"), QJsonArray{text(d.turn().text)}}}};
        QCOMPARE(d.turn().assistantNative, expected);
        QCOMPARE(m_protocol.assistantMessages(d.turn()), expected);
    }

    void decodesThinkingWithSignature_data() { addSplitRows(); }
    void decodesThinkingWithSignature()
    {
        const Decoded d = decodeFixture(QStringLiteral("thinking-signature.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        const QString reasoning = QStringLiteral(
            "The user wants two names for a pet pelican, and they want me to be brief. I'll suggest two "
            "names that "
            "would suit a pelican well.\n\nSome good options:\n- Pelé (play on pelican)\n- Pouch "
            "(referencing their "
            "bill pouch)\n- Captain Beak\n- Squirt\n- Scoop\n- Wing\n\nLet me give two brief, catchy names:");
        const QString answer = QStringLiteral(
            "1. **Pouch** - references their iconic bill pouch\n2. **Pelé** - playful take on \"pelican\"");
        QCOMPARE(d.turn().reasoning, reasoning);
        QCOMPARE(d.streamedReasoning, reasoning);
        QCOMPARE(d.turn().text, answer);
        QCOMPARE(d.streamedText, answer);
        QCOMPARE(d.turn().usage->inputTokens, 46);
        QCOMPARE(d.turn().usage->outputTokens, 133);
        // The thinking block is replayed verbatim, signature included, before the text.
        const QJsonArray content = d.turn().assistantNative.at(0)[QStringLiteral("content")].toArray();
        QCOMPARE(content.size(), 2);
        QCOMPARE(content.at(0).toObject(),
                 (QJsonObject{{QStringLiteral("type"), QStringLiteral("thinking")},
                              {QStringLiteral("thinking"), reasoning},
                              {QStringLiteral("signature"), QLatin1String(ThinkingSignature)}}));
        QCOMPARE(content.at(1).toObject(), text(answer));
    }

    void decodesRedactedThinking_data() { addSplitRows(); }
    void decodesRedactedThinking()
    {
        const Decoded d = decodeFixture(QStringLiteral("redacted-thinking.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text,
                 QStringLiteral(
                     "I notice that you've sent what appears to be some kind of test string or command. I "
                     "don't have any special \"magic string\" triggers or backdoor commands that would "
                     "expose internal systems or change my behavior.\n\nI'm Claude, an AI assistant "
                     "created by Anthropic to be helpful, harmless, and honest. How can I assist you today "
                     "with a legitimate task or question?"));
        QCOMPARE(d.streamedText, d.turn().text);
        QCOMPARE(d.turn().reasoning, QString());
        const QJsonArray content = d.turn().assistantNative.at(0)[QStringLiteral("content")].toArray();
        QCOMPARE(content.size(), 3);
        QCOMPARE(content.at(0).toObject(),
                 (QJsonObject{{QStringLiteral("type"), QStringLiteral("redacted_thinking")},
                              {QStringLiteral("data"), QLatin1String(RedactedData0)}}));
        QCOMPARE(content.at(1).toObject(),
                 (QJsonObject{{QStringLiteral("type"), QStringLiteral("redacted_thinking")},
                              {QStringLiteral("data"), QLatin1String(RedactedData1)}}));
        QCOMPARE(content.at(2).toObject(), text(d.turn().text));
        QCOMPARE(d.turn().usage->outputTokens, 189);
    }

    void decodesParallelToolUse_data() { addSplitRows(); }
    void decodesParallelToolUse()
    {
        const Decoded d = decodeFixture(QStringLiteral("parallel-tool-use.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text,
                 QStringLiteral("Certainly! I can help you with that information. To get the weather and "
                                "current time in San Francisco, I'll need to use two separate "
                                "functions. Let me fetch that data for you."));
        QCOMPARE(d.turn().stopReason, QStringLiteral("tool_use"));
        QCOMPARE(d.turn().toolCalls.size(), 2);
        const ToolCallRequest &weather = d.turn().toolCalls.at(0);
        QCOMPARE(weather.id, QStringLiteral("toolu_014x5X91kx3fvdhpLvwXZWE2"));
        QCOMPARE(weather.name, QStringLiteral("get_weather"));
        QCOMPARE(weather.arguments,
                 QStringLiteral("{\"location\": \"San Francisco, CA\", \"unit\": \"celsius\"}"));
        QCOMPARE(weather.input,
                 (QJsonObject{{QStringLiteral("location"), QStringLiteral("San Francisco, CA")},
                              {QStringLiteral("unit"), QStringLiteral("celsius")}}));
        const ToolCallRequest &time = d.turn().toolCalls.at(1);
        QCOMPARE(time.id, QStringLiteral("toolu_0121kXsENLvoDZ72LCuAnCCz"));
        QCOMPARE(time.name, QStringLiteral("get_time"));
        QCOMPARE(time.input,
                 (QJsonObject{{QStringLiteral("timezone"), QStringLiteral("America/Los_Angeles")}}));
        QCOMPARE(d.turn().usage->inputTokens, 506);
        QCOMPARE(d.turn().usage->outputTokens, 153);
        const QJsonArray content = d.turn().assistantNative.at(0)[QStringLiteral("content")].toArray();
        QCOMPARE(content.size(), 3);
        QCOMPARE(content.at(1).toObject(), (QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                                        {QStringLiteral("id"), weather.id},
                                                        {QStringLiteral("name"), weather.name},
                                                        {QStringLiteral("input"), weather.input}}));
    }

    void decodesToolUseWithoutArguments_data() { addSplitRows(); }
    void decodesToolUseWithoutArguments()
    {
        const Decoded d = decodeFixture(QStringLiteral("parallel-tool-use-no-args.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text, QString());
        QCOMPARE(d.turn().toolCalls.size(), 2);
        QCOMPARE(d.turn().toolCalls.at(0).id, QStringLiteral("toolu_01LtHJmixrs9NcWQkK8hu8hj"));
        QCOMPARE(d.turn().toolCalls.at(1).id, QStringLiteral("toolu_01N8a4jWyf116qKTMqKKmjyt"));
        for (const ToolCallRequest &call : d.turn().toolCalls) {
            QCOMPARE(call.name, QStringLiteral("pelican_name_generator"));
            QCOMPARE(call.input, QJsonObject()); // only "" was streamed
        }
        QCOMPARE(d.turn().usage->inputTokens, 542);
        QCOMPARE(d.turn().usage->outputTokens, 62);
    }

    void decodesTextAfterToolResults_data() { addSplitRows(); }
    void decodesTextAfterToolResults()
    {
        const Decoded d = decodeFixture(QStringLiteral("text-after-tool-results.sse"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text,
                 QStringLiteral(
                     "Here are two great names for your pet pelican:\n\n1. **Charles** - A sophisticated "
                     "and dignified name, perfect for a pelican with personality!\n2. **Sammy** - A "
                     "friendly and playful name that gives off warm, approachable vibes.\n\nEither of "
                     "these would make an excellent name for your feathered friend! 🦅"));
        QCOMPARE(d.streamedText, d.turn().text);
        QCOMPARE(d.turn().usage->inputTokens, 678);
        QCOMPARE(d.turn().usage->outputTokens, 82);
    }

    void truncatedStreamIsAnError_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<int>("split");
        for (const char *name :
             {"text.sse", "thinking-signature.sse", "redacted-thinking.sse", "parallel-tool-use.sse",
              "parallel-tool-use-no-args.sse", "text-after-tool-results.sse"}) {
            QTest::newRow(qPrintable(QLatin1String(name) + QLatin1String("/whole")))
                << QString::fromLatin1(name) << int(Split::Whole);
            QTest::newRow(qPrintable(QLatin1String(name) + QLatin1String("/bytewise")))
                << QString::fromLatin1(name) << int(Split::Bytewise);
        }
    }
    void truncatedStreamIsAnError()
    {
        QFETCH(QString, fixture);
        QFETCH(int, split);
        const QByteArray body = readFixture(QStringLiteral("anthropic/") + fixture);
        const qsizetype stop = body.lastIndexOf("event: message_stop");
        QVERIFY(stop > 0);
        // A truncation, which the tool loop retries.
        const Decoded d = decodeBody(m_protocol, body.left(stop), Split(split));
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::Truncated);
        QVERIFY(d.error.isRetryable());
        QVERIFY(d.error.message.contains(QLatin1String("message_stop")));
        // Cut in the middle of an event as well (its JSON cut off is not "malformed data").
        const Decoded mid = decodeBody(m_protocol, body.left(body.size() / 2), Split(split));
        QVERIFY(!mid.ok());
        QCOMPARE(mid.error.kind, ProviderError::Kind::Truncated);
        QVERIFY2(mid.error.message.contains(QLatin1String("message_stop")), qPrintable(mid.error.message));
        // And inside the data of the last event before message_stop.
        const qsizetype lastData = body.lastIndexOf("data: ", stop);
        const Decoded inData = decodeBody(m_protocol, body.left(lastData + 12), Split(split));
        QVERIFY(!inData.ok());
        QCOMPARE(inData.error.kind, ProviderError::Kind::Truncated);
    }

    void errorEventFailsTheStream_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("retryable");
        QTest::newRow("overloaded")
            << QByteArray(
                   R"({"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"} })")
            << int(ProviderError::Kind::Overloaded) << true;
        QTest::newRow("api_error")
            << QByteArray(
                   R"({"type":"error","error":{"type":"api_error","message":"Internal server error"}})")
            << int(ProviderError::Kind::Overloaded) << true;
        QTest::newRow("rate_limit")
            << QByteArray(R"({"type":"error","error":{"type":"rate_limit_error","message":"slow down"}})")
            << int(ProviderError::Kind::RateLimit) << true;
        QTest::newRow("invalid")
            << QByteArray(R"({"type":"error","error":{"type":"invalid_request_error","message":"bad"}})")
            << int(ProviderError::Kind::InvalidRequest) << false;
    }
    void errorEventFailsTheStream()
    {
        QFETCH(QByteArray, payload);
        QFETCH(int, kind);
        QFETCH(bool, retryable);
        const QByteArray text = readFixture(QStringLiteral("anthropic/text.sse"));
        const qsizetype cut = text.indexOf("event: content_block_stop");
        for (Split split : {Split::Whole, Split::Bytewise}) {
            const Decoded d =
                decodeBody(m_protocol, text.left(cut) + sse("error", payload) + "event: ping\n", split);
            QVERIFY(!d.ok());
            QCOMPARE(int(d.error.kind), kind);
            QCOMPARE(d.error.isRetryable(), retryable);
            QCOMPARE(d.streamedText, QStringLiteral("- Captain\n- Scoop")); // what arrived before was shown
        }
    }

    void malformedToolInputBecomesEmptyObject()
    {
        const QByteArray body =
            sse("message_start",
                R"({"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}})") +
            sse("content_block_start",
                R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_x","name":"grep","input":{}}})") +
            sse("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
                                       "\"input_json_delta\",\"partial_json\":"
                                       "\"{\\\"pattern\\\": \\\"a\"}}") +
            sse("content_block_stop", R"({"type":"content_block_stop","index":0})")
            // A nameless, idless tool_use is dropped.
            +
            sse("content_block_start",
                R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"","name":"","input":{}}})") +
            sse("content_block_stop", R"({"type":"content_block_stop","index":1})") +
            sse("message_delta",
                R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}})") +
            sse("message_stop", R"({"type":"message_stop"})");
        const Decoded d = decodeBody(m_protocol, body, Split::Bytewise);
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().toolCalls.size(), 1);
        QCOMPARE(d.turn().toolCalls.at(0).input, QJsonObject());
        QCOMPARE(d.turn().toolCalls.at(0).arguments, QStringLiteral("{\"pattern\": \"a"));
        QCOMPARE(d.turn().assistantNative.at(0)[QStringLiteral("content")].toArray().size(), 1);
    }

    void usageCountsCacheTokens()
    {
        const QByteArray body =
            sse("message_start",
                R"({"type":"message_start","message":{"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":50,"output_tokens":1}}})") +
            sse("unknown_future_event", R"({"type":"unknown_future_event","x":1})") +
            sse("content_block_start",
                R"({"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srv","name":"web_search","input":{}}})") +
            sse("content_block_stop", R"({"type":"content_block_stop","index":0})") +
            sse("content_block_start",
                R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})") +
            sse("content_block_delta",
                R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ok"}})") +
            sse("content_block_stop", R"({"type":"content_block_stop","index":1})") +
            sse("message_delta",
                R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42,"cache_read_input_tokens":60}})") +
            sse("message_stop", R"({"type":"message_stop"})");
        const Decoded d = decodeBody(m_protocol, body, Split::Random, 7);
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text, QStringLiteral("ok"));
        QVERIFY(d.turn().toolCalls.isEmpty()); // server tool blocks are not ours to run
        TokenUsage expected;
        expected.inputTokens = 10 + 100 + 60;
        expected.outputTokens = 42;
        expected.totalTokens = 170 + 42;
        expected.cachedTokens = 160;
        expected.cacheReadTokens = 60;
        expected.cacheWriteTokens = 100;
        QCOMPARE(*d.turn().usage, expected);
    }

    void httpErrorsAreClassified_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("retryAfter");
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("retryAfterMs");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("prompt too long")
            << 400 << readFixture(QStringLiteral("anthropic/error-400-prompt-too-long.json")) << QByteArray()
            << int(ProviderError::Kind::ContextLength) << -1 << QStringLiteral("209924 tokens");
        QTest::newRow("exceed context limit")
            << 400
            << QByteArray(
                   R"({"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again"}})")
            << QByteArray() << int(ProviderError::Kind::ContextLength) << -1
            << QStringLiteral("exceed context limit");
        QTest::newRow("invalid request")
            << 400 << readFixture(QStringLiteral("anthropic/error-400-invalid-request.json")) << QByteArray()
            << int(ProviderError::Kind::InvalidRequest) << -1 << QStringLiteral("effort level 'xhigh'");
        QTest::newRow("401")
            << 401
            << QByteArray(
                   R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})")
            << QByteArray() << int(ProviderError::Kind::Authentication) << -1
            << QStringLiteral("invalid x-api-key");
        QTest::newRow("403") << 403
                             << QByteArray(
                                    R"({"type":"error","error":{"type":"permission_error","message":"no"}})")
                             << QByteArray() << int(ProviderError::Kind::Authentication) << -1
                             << QStringLiteral("no");
        QTest::newRow("429")
            << 429
            << QByteArray(
                   R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}})")
            << QByteArray("30") << int(ProviderError::Kind::RateLimit) << 30000
            << QStringLiteral("per-minute");
        QTest::newRow("529")
            << 529
            << QByteArray(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})")
            << QByteArray() << int(ProviderError::Kind::Overloaded) << -1 << QStringLiteral("Overloaded");
        QTest::newRow("500") << 500
                             << QByteArray(
                                    R"({"type":"error","error":{"type":"api_error","message":"Internal"}})")
                             << QByteArray("2") << int(ProviderError::Kind::Overloaded) << 2000
                             << QStringLiteral("Internal");
        QTest::newRow("502 html") << 502 << QByteArray("<html>Bad gateway</html>") << QByteArray()
                                  << int(ProviderError::Kind::Overloaded) << -1
                                  << QStringLiteral("Bad gateway");
        QTest::newRow("404")
            << 404
            << QByteArray(
                   R"({"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}})")
            << QByteArray() << int(ProviderError::Kind::InvalidRequest) << -1
            << QStringLiteral("claude-nope");
    }
    void httpErrorsAreClassified()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, retryAfter);
        QFETCH(int, kind);
        QFETCH(int, retryAfterMs);
        QFETCH(QString, mentions);
        HeaderList headers{{"content-type", "application/json"}};
        if (!retryAfter.isEmpty())
            headers.append({"Retry-After", retryAfter});
        const ProviderError error = m_protocol.classifyHttpError(status, body, headers);
        QCOMPARE(int(error.kind), kind);
        QCOMPARE(error.httpStatus, status);
        QCOMPARE(error.retryAfterMs.value_or(-1), retryAfterMs);
        QVERIFY2(error.message.contains(mentions), qPrintable(error.message));
        QVERIFY(error.message.startsWith(QLatin1String("Anthropic")));
        QVERIFY(!error.message.contains(QLatin1String("sk-ant-test")));
    }

    void endpointAndHeaders()
    {
        HttpRequestSpec spec = m_protocol.buildRequest(
            m_protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, RequestContext{});
        QCOMPARE(spec.url, QUrl(QStringLiteral("https://api.anthropic.com/v1/messages")));
        auto header = [&spec](const QByteArray &name) {
            for (const auto &[key, value] : spec.headers) {
                if (key.compare(name, Qt::CaseInsensitive) == 0)
                    return value;
            }
            return QByteArray();
        };
        QCOMPARE(header("x-api-key"), QByteArray("sk-ant-test"));
        QCOMPARE(header("anthropic-version"), QByteArray("2023-06-01"));
        QCOMPARE(header("content-type"), QByteArray("application/json"));

        ClientConfig minimax = anthropicConfig();
        minimax.providerId = QStringLiteral("minimax");
        minimax.model = QStringLiteral("MiniMax-M2");
        minimax.thinkingEffort = QStringLiteral("high");
        minimax.headers = {{"X-Extra", "1"}, {"anthropic-version", "2099-01-01"}};
        AnthropicProtocol mm(minimax);
        spec = mm.buildRequest(mm.toNative({Message::user(QStringLiteral("hi"))}), {}, RequestContext{});
        QCOMPARE(spec.url, QUrl(QStringLiteral("https://api.minimax.io/anthropic/v1/messages")));
        QCOMPARE(header("X-Extra"), QByteArray("1"));
        QCOMPARE(header("anthropic-version"), QByteArray("2099-01-01")); // the setting wins, sent once
        int versions = 0;
        for (const auto &pair : spec.headers)
            versions += pair.first.compare("anthropic-version", Qt::CaseInsensitive) == 0 ? 1 : 0;
        QCOMPARE(versions, 1);
        // MiniMax gets thinking parameters only on M3.
        QVERIFY(!jsonObject(spec.body).contains(QStringLiteral("thinking")));
        minimax.model = QStringLiteral("MiniMax-M3");
        QVERIFY(jsonObject(AnthropicProtocol(minimax).buildRequest({}, {}, {}).body)
                    .contains(QStringLiteral("thinking")));

        ClientConfig custom = anthropicConfig();
        custom.baseUrl = QStringLiteral("http://127.0.0.1:8080/");
        QCOMPARE(AnthropicProtocol(custom).endpoint(),
                 QUrl(QStringLiteral("http://127.0.0.1:8080/v1/messages")));
        custom.baseUrl = QStringLiteral("https://proxy.example/anthropic/v1");
        QCOMPARE(AnthropicProtocol(custom).endpoint(),
                 QUrl(QStringLiteral("https://proxy.example/anthropic/v1/messages")));
    }

    void bodyBasics()
    {
        const QJsonObject body =
            jsonObject(m_protocol
                           .buildRequest(m_protocol.toNative({Message::system(QStringLiteral("S")),
                                                              Message::user(QStringLiteral("hi"))}),
                                         {}, RequestContext{})
                           .body);
        QCOMPARE(body.value(QStringLiteral("model")).toString(), QStringLiteral("claude-sonnet-4-5"));
        QCOMPARE(body.value(QStringLiteral("max_tokens")).toInt(), 64000);
        QCOMPARE(body.value(QStringLiteral("stream")).toBool(), true);
        QVERIFY(!body.contains(QStringLiteral("tools")));
        QVERIFY(!body.contains(QStringLiteral("thinking")));
        QCOMPARE(body.value(QStringLiteral("system")).toArray(),
                 (QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                         {QStringLiteral("text"), QStringLiteral("S")},
                                         {QStringLiteral("cache_control"), ephemeral()}}}));
    }

    void thinkingParameters_data()
    {
        QTest::addColumn<QString>("effort");
        QTest::addColumn<QJsonValue>("thinking");
        QTest::addColumn<QJsonValue>("outputConfig");
        const QJsonValue none(QJsonValue::Undefined);
        const QJsonObject adaptive{{QStringLiteral("type"), QStringLiteral("adaptive")}};
        for (const char *effort : {"low", "medium", "high", "xhigh", "max"})
            QTest::newRow(effort) << QString::fromLatin1(effort) << QJsonValue(adaptive)
                                  << QJsonValue(QJsonObject{
                                         {QStringLiteral("effort"), QString::fromLatin1(effort)}});
        QTest::newRow("adaptive") << QStringLiteral("adaptive") << QJsonValue(adaptive) << none;
        QTest::newRow("enabled") << QStringLiteral("enabled")
                                 << QJsonValue(
                                        QJsonObject{{QStringLiteral("type"), QStringLiteral("enabled")}})
                                 << none;
        QTest::newRow("disabled") << QStringLiteral("disabled")
                                  << QJsonValue(
                                         QJsonObject{{QStringLiteral("type"), QStringLiteral("disabled")}})
                                  << none;
        QTest::newRow("unset") << QString() << none << none;
    }
    void thinkingParameters()
    {
        QFETCH(QString, effort);
        QFETCH(QJsonValue, thinking);
        QFETCH(QJsonValue, outputConfig);
        ClientConfig config = anthropicConfig();
        config.thinkingEffort = effort;
        AnthropicProtocol protocol(config);
        const QJsonObject body = jsonObject(
            protocol.buildRequest(protocol.toNative({Message::user(QStringLiteral("x"))}), {}, {}).body);
        QCOMPARE(body.value(QStringLiteral("thinking")), thinking);
        QCOMPARE(body.value(QStringLiteral("output_config")), outputConfig);
    }

    void consecutiveUserMessagesAreMerged()
    {
        // A manual compaction's summary followed by the next prompt: two user messages in a row.
        const MessageList messages{
            Message::system(QStringLiteral("S1")),    Message::system(QStringLiteral("S2")),
            Message::user(QStringLiteral("first")),   Message::assistant(QStringLiteral("answer")),
            Message::user(QStringLiteral("summary")), Message::user(QStringLiteral("next"))};
        const NativeHistory native = m_protocol.toNative(messages);
        QCOMPARE(native.system.toArray(),
                 (QJsonArray{text(QStringLiteral("S1")), text(QStringLiteral("S2"))}));
        const QJsonArray expected{
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("content"), QJsonArray{text(QStringLiteral("first"))}}},
            QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                        {QStringLiteral("content"), QJsonArray{text(QStringLiteral("answer"))}}},
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("content"),
                         QJsonArray{text(QStringLiteral("summary")), text(QStringLiteral("next"))}}}};
        QCOMPARE(native.messages, expected);
        // An empty assistant message vanishes and its neighbours merge.
        const NativeHistory gap =
            m_protocol.toNative({Message::user(QStringLiteral("a")), Message::assistant(QString()),
                                 Message::user(QStringLiteral("b"))});
        QCOMPARE(gap.messages.size(), 1);
        QCOMPARE(gap.messages.at(0)[QStringLiteral("content")].toArray().size(), 2);
    }

    void historicalToolActivityIsReplayedAsPairs()
    {
        // "Let me look." then two calls (the second failed), then "Done.", then one more call at the very
        // end.
        const QString answer = QStringLiteral("Let me look.Done.");
        TurnMemory memory;
        memory.toolActivity = {
            activity(12, QStringLiteral("read_file"), {{QStringLiteral("path"), QStringLiteral("a.txt")}},
                     QStringLiteral("success")),
            activity(12, QStringLiteral("bash"), {{QStringLiteral("command"), QStringLiteral("false")}},
                     QStringLiteral("error")),
            activity(17, QStringLiteral("glob"), {}, QStringLiteral("success")),
        };
        memory.toolActivity[1].exitCode = 1;
        const MessageList messages{Message::system(QStringLiteral("S")), Message::user(QStringLiteral("go")),
                                   Message::assistant(answer, memory),
                                   Message::user(QStringLiteral("thanks"))};
        const QJsonArray native = m_protocol.toNative(messages).messages;
        auto toolUse = [](const QString &id, const QString &name, const QJsonObject &input) {
            return QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                               {QStringLiteral("id"), id},
                               {QStringLiteral("name"), name},
                               {QStringLiteral("input"), input}};
        };
        auto toolResult = [](const QString &id, const QString &content, bool isError) {
            QJsonObject block{{QStringLiteral("type"), QStringLiteral("tool_result")},
                              {QStringLiteral("tool_use_id"), id},
                              {QStringLiteral("content"), content}};
            if (isError)
                block.insert(QStringLiteral("is_error"), true);
            return block;
        };
        auto msg = [](const char *role, const QJsonArray &content) {
            return QJsonObject{{QStringLiteral("role"), QLatin1String(role)},
                               {QStringLiteral("content"), content}};
        };
        const QJsonArray expected{
            msg("user", {text(QStringLiteral("go"))}),
            msg("assistant", {text(QStringLiteral("Let me look.")),
                              toolUse(QStringLiteral("historical_2_0"), QStringLiteral("read_file"),
                                      {{QStringLiteral("path"), QStringLiteral("a.txt")}}),
                              toolUse(QStringLiteral("historical_2_1"), QStringLiteral("bash"),
                                      {{QStringLiteral("command"), QStringLiteral("false")}})}),
            msg("user", {toolResult(QStringLiteral("historical_2_0"),
                                    QStringLiteral("{\"status\":\"success\"}"), false),
                         toolResult(QStringLiteral("historical_2_1"),
                                    QStringLiteral("{\"exit_code\":1,\"status\":\"error\"}"), true)}),
            msg("assistant", {text(QStringLiteral("Done.")),
                              toolUse(QStringLiteral("historical_2_2"), QStringLiteral("glob"), {})}),
            // The last call's result and the next prompt share one user message, results first.
            msg("user", {toolResult(QStringLiteral("historical_2_2"),
                                    QStringLiteral("{\"status\":\"success\"}"), false),
                         text(QStringLiteral("thanks"))}),
        };
        QCOMPARE(native, expected);
    }

    void cacheControlBreakpoints()
    {
        ToolRegistry tools;
        tools.add(
            std::make_shared<FakeTool>(QStringLiteral("read_file"), QStringLiteral("Reads"),
                                       QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}));
        tools.add(
            std::make_shared<FakeTool>(QStringLiteral("bash"), QStringLiteral("Runs"),
                                       QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}));
        NativeHistory history = m_protocol.toNative(
            {Message::system(QStringLiteral("S1")), Message::system(QStringLiteral("S2")),
             Message::user(QStringLiteral("u1")), Message::assistant(QStringLiteral("a1")),
             Message::user(QStringLiteral("u2"))});
        // This turn's loop additions: an assistant tool call and its result.
        ModelTurn turn;
        turn.assistantNative = QJsonArray{
            QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                        {QStringLiteral("content"),
                         QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("thinking")},
                                                {QStringLiteral("thinking"), QStringLiteral("t")},
                                                {QStringLiteral("signature"), QStringLiteral("sig")}},
                                    QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                                {QStringLiteral("id"), QStringLiteral("toolu_1")},
                                                {QStringLiteral("name"), QStringLiteral("bash")},
                                                {QStringLiteral("input"), QJsonObject()}}}}}};
        const int stable = int(history.messages.size()) - 1;
        for (const QJsonValue &m : m_protocol.assistantMessages(turn))
            history.messages.append(m);
        ToolOutcome outcome;
        outcome.call.id = QStringLiteral("toolu_1");
        outcome.call.name = QStringLiteral("bash");
        outcome.content = QStringLiteral("{\"output\":\"x\"}");
        for (const QJsonValue &m : m_protocol.toolResultMessages({outcome}))
            history.messages.append(m);
        QCOMPARE(history.messages.size(), 5);

        RequestContext context;
        context.stableIndex = stable;
        QJsonObject body = jsonObject(m_protocol.buildRequest(history, tools.specs(), context).body);
        QCOMPARE(countKey(body, QStringLiteral("cache_control")), 4);
        const QJsonArray system = body.value(QStringLiteral("system")).toArray();
        QVERIFY(!system.at(0).toObject().contains(QStringLiteral("cache_control")));
        QCOMPARE(system.at(1)[QStringLiteral("cache_control")].toObject(), ephemeral());
        const QJsonArray toolDefs = body.value(QStringLiteral("tools")).toArray();
        QCOMPARE(toolDefs.at(0)[QStringLiteral("name")].toString(), QStringLiteral("bash")); // sorted by name
        QCOMPARE(toolDefs.at(1)[QStringLiteral("cache_control")].toObject(), ephemeral());
        const QJsonArray messages = body.value(QStringLiteral("messages")).toArray();
        QCOMPARE(messages.at(stable)[QStringLiteral("content")]
                     .toArray()
                     .last()[QStringLiteral("cache_control")]
                     .toObject(),
                 ephemeral());
        QCOMPARE(messages.last()[QStringLiteral("content")]
                     .toArray()
                     .last()[QStringLiteral("cache_control")]
                     .toObject(),
                 ephemeral());

        // Markers already in stored history (an earlier request's) are cleared first: still exactly four.
        NativeHistory stale = history;
        stale.messages = messages;
        context.stableIndex = 3;
        body = jsonObject(m_protocol.buildRequest(stale, tools.specs(), context).body);
        QCOMPARE(countKey(body, QStringLiteral("cache_control")), 4);
        // Thinking blocks may not carry a marker: the assistant message is marked on its tool_use.
        const QJsonArray assistant =
            body.value(QStringLiteral("messages")).toArray().at(3)[QStringLiteral("content")].toArray();
        QVERIFY(!assistant.at(0).toObject().contains(QStringLiteral("cache_control")));
        QCOMPARE(assistant.at(1)[QStringLiteral("cache_control")].toObject(), ephemeral());

        // No stable message (-1), or the stable message is the last one: three markers.
        context.stableIndex = -1;
        QCOMPARE(countKey(jsonObject(m_protocol.buildRequest(history, tools.specs(), context).body),
                          QStringLiteral("cache_control")),
                 3);
        context.stableIndex = 4;
        QCOMPARE(countKey(jsonObject(m_protocol.buildRequest(history, tools.specs(), context).body),
                          QStringLiteral("cache_control")),
                 3);
    }

    void requestMatchesCapturedToolResultShape()
    {
        // Rebuild the recorded follow-up request of text-after-tool-results.request.json from its first turn.
        const QJsonObject captured =
            jsonObject(readFixture(QStringLiteral("anthropic/text-after-tool-results.request.json")));
        const Decoded first = decodeBody(
            m_protocol, readFixture(QStringLiteral("anthropic/parallel-tool-use-no-args.sse")), Split::Whole);
        QVERIFY(first.ok());
        NativeHistory history =
            m_protocol.toNative({Message::user(QStringLiteral("Two names for a pet pelican"))});
        for (const QJsonValue &m : m_protocol.assistantMessages(first.turn()))
            history.messages.append(m);
        QList<ToolOutcome> outcomes;
        for (const auto &[call, result] : {std::pair{first.turn().toolCalls.at(0), QStringLiteral("Charles")},
                                           std::pair{first.turn().toolCalls.at(1), QStringLiteral("Sammy")}})
            outcomes.append(ToolOutcome{call, result, false});
        for (const QJsonValue &m : m_protocol.toolResultMessages(outcomes))
            history.messages.append(m);

        ToolRegistry tools;
        tools.add(
            std::make_shared<FakeTool>(QStringLiteral("pelican_name_generator"), QString(),
                                       QJsonObject{{QStringLiteral("properties"), QJsonObject()},
                                                   {QStringLiteral("type"), QStringLiteral("object")}}));
        const QJsonObject body =
            jsonObject(m_protocol.buildRequest(history, tools.specs(), RequestContext{}).body);
        const QJsonArray messages =
            withoutKey(body.value(QStringLiteral("messages")), QStringLiteral("cache_control")).toArray();
        const QJsonArray expected = captured.value(QStringLiteral("messages")).toArray();
        QCOMPARE(messages.size(), 3);
        QCOMPARE(messages.at(0), expected.at(0));
        QCOMPARE(messages.at(2), expected.at(2)); // both results in one user message
        // The recorder's client put a " " text block first; the tool_use blocks are the same.
        QJsonArray recordedCalls = expected.at(1)[QStringLiteral("content")].toArray();
        recordedCalls.removeFirst();
        QCOMPARE(messages.at(1)[QStringLiteral("content")].toArray(), recordedCalls);
        QCOMPARE(withoutKey(body.value(QStringLiteral("tools")), QStringLiteral("cache_control")),
                 captured.value(QStringLiteral("tools")));
    }

    void toolResultsGoInOneUserMessage()
    {
        ToolOutcome ok{ToolCallRequest{QStringLiteral("toolu_a"), QStringLiteral("read_file"), {}, {}, {}},
                       QStringLiteral("\"text\""), false};
        ToolOutcome bad{ToolCallRequest{QStringLiteral("toolu_b"), QStringLiteral("bash"), {}, {}, {}},
                        QStringLiteral("{\"error\":\"boom\"}"), true};
        const QJsonArray messages = m_protocol.toolResultMessages({ok, bad});
        QCOMPARE(messages.size(), 1);
        const QJsonArray content = messages.at(0)[QStringLiteral("content")].toArray();
        QCOMPARE(content.size(), 2);
        QCOMPARE(content.at(0)[QStringLiteral("tool_use_id")].toString(), QStringLiteral("toolu_a"));
        QVERIFY(!content.at(0).toObject().contains(QStringLiteral("is_error")));
        QCOMPARE(content.at(1)[QStringLiteral("is_error")].toBool(), true);
        QCOMPARE(content.at(1)[QStringLiteral("content")].toString(), QStringLiteral("{\"error\":\"boom\"}"));

        // A user text appended after the results merges into that same user message.
        NativeHistory history;
        history.messages = messages;
        m_protocol.appendUserText(history, QStringLiteral("continue"));
        QCOMPARE(history.messages.size(), 1);
        QCOMPARE(history.messages.at(0)[QStringLiteral("content")].toArray().last().toObject(),
                 text(QStringLiteral("continue")));
        history.messages.append(
            QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                        {QStringLiteral("content"), QJsonArray{text(QStringLiteral("a"))}}});
        m_protocol.appendUserText(history, QStringLiteral("more"));
        QCOMPARE(history.messages.size(), 3);
    }

    void injectedPendingStateIsMergedAtRequestTime()
    {
        // The tool loop puts a saved partial turn right before the new prompt: results, then the prompt.
        NativeHistory history = m_protocol.toNative({Message::user(QStringLiteral("old prompt"))});
        ModelTurn turn;
        turn.toolCalls = {ToolCallRequest{QStringLiteral("toolu_p"), QStringLiteral("bash"), {}, {}, {}}};
        for (const QJsonValue &m : m_protocol.assistantMessages(turn))
            history.messages.append(m);
        for (const QJsonValue &m : m_protocol.toolResultMessages(
                 {ToolOutcome{turn.toolCalls.at(0), QStringLiteral("{\"ok\":true}"), false}}))
            history.messages.append(m);
        history.messages.append(
            QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                        {QStringLiteral("content"), QJsonArray{text(QStringLiteral("new prompt"))}}});
        RequestContext context;
        context.stableIndex = 3;
        const QJsonArray messages = jsonObject(m_protocol.buildRequest(history, {}, context).body)
                                        .value(QStringLiteral("messages"))
                                        .toArray();
        QCOMPARE(messages.size(), 3);
        const QJsonArray last = messages.at(2)[QStringLiteral("content")].toArray();
        QCOMPARE(last.size(), 2);
        QCOMPARE(last.at(0)[QStringLiteral("type")].toString(), QStringLiteral("tool_result"));
        QCOMPARE(last.at(1)[QStringLiteral("text")].toString(), QStringLiteral("new prompt"));
        QCOMPARE(countKey(messages, QStringLiteral("cache_control")), 1);
    }

    void rebuildAfterCompactionKeepsSystemBlocks()
    {
        NativeHistory current = m_protocol.toNative({Message::system(QStringLiteral("original system")),
                                                     Message::user(QStringLiteral("old")),
                                                     Message::assistant(QStringLiteral("old answer"))});
        const MessageList replacement{Message::system(QStringLiteral("a different system")),
                                      Message::user(QStringLiteral("<summary>")),
                                      Message::user(QStringLiteral("latest prompt"))};
        const NativeHistory rebuilt = m_protocol.rebuildAfterCompaction(current, replacement);
        QCOMPARE(rebuilt.system, current.system);
        QCOMPARE(rebuilt.messages,
                 (QJsonArray{QJsonObject{
                     {QStringLiteral("role"), QStringLiteral("user")},
                     {QStringLiteral("content"), QJsonArray{text(QStringLiteral("<summary>")),
                                                            text(QStringLiteral("latest prompt"))}}}}));
    }
};

QTEST_GUILESS_MAIN(TestAnthropicProtocol)
#include "tst_anthropicprotocol.moc"
