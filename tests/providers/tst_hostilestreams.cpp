// Every provider's stream decoder against hostile values in otherwise valid captured streams (issue 14):
// token counts near and above 2^63, huge doubles, negatives and strings are clamped and their sums saturate
// (the asan preset runs this with UBSan, where an overflow aborts); data that is JSON but not an object is
// named; a 64 MiB line (or frame) is a clear error as soon as it passes the cap, never buffered whole.

#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "conversation/tokenusage.h"
#include "providers/anthropic/anthropicprotocol.h"
#include "providers/bedrock/bedrockprotocol.h"
#include "providers/gemini/geminiprotocol.h"
#include "providers/openai/openaichatprotocol.h"
#include "providers/openai/openairesponsesprotocol.h"
#include "stream/crc32.h"
#include "stream/eventstreamdecoder.h"
#include "stream/sseparser.h"

#include <QRegularExpression>
#include <QTest>
#include <QtEndian>

#include <memory>

using namespace keen;
using namespace keen::test;

namespace {

ClientConfig config(const char *provider, const char *model)
{
    ClientConfig config;
    config.providerId = QLatin1String(provider);
    config.model = QLatin1String(model);
    config.apiKey = QStringLiteral("test-key");
    config.awsRegion = QStringLiteral("us-west-2");
    return config;
}

std::unique_ptr<ProviderProtocol> protocolFor(const QString &family)
{
    if (family == QLatin1String("openai-chat"))
        return std::make_unique<OpenAiChatProtocol>(config("openai-compatible", "gpt-4o"));
    if (family == QLatin1String("openai-responses"))
        return std::make_unique<OpenAiResponsesProtocol>(config("openai", "gpt-5"));
    if (family == QLatin1String("anthropic"))
        return std::make_unique<AnthropicProtocol>(config("anthropic", "claude-sonnet-4-5"));
    if (family == QLatin1String("gemini"))
        return std::make_unique<GeminiProtocol>(config("googleai", "gemini-2.5-flash"));
    return std::make_unique<BedrockProtocol>(config("amazon-bedrock", "us.amazon.nova-pro-v1:0"));
}

// Every "...tokens...": <number> (snake or camel case) in a JSON text gets the hostile value.
QByteArray withCounts(const QByteArray &json, const QByteArray &value)
{
    static const QRegularExpression count(
        QStringLiteral(R"(("[A-Za-z_]*[Tt]okens?[A-Za-z_]*"\s*:\s*)-?[0-9.eE+]+)"));
    QString text = QString::fromUtf8(json);
    text.replace(count, QStringLiteral("\\1") + QString::fromLatin1(value));
    return text.toUtf8();
}

QByteArray bedrockFrame(const char *type, const QByteArray &payload)
{
    EventStreamDecoder::Message message;
    message.headers = {
        {QStringLiteral(":message-type"), EventStreamDecoder::Header::Type::String, QStringLiteral("event")},
        {QStringLiteral(":event-type"), EventStreamDecoder::Header::Type::String, QLatin1String(type)},
        {QStringLiteral(":content-type"), EventStreamDecoder::Header::Type::String,
         QStringLiteral("application/json")},
    };
    message.payload = payload;
    return EventStreamDecoder::encode(message);
}

QByteArray bedrockBody(const QByteArray &value)
{
    return bedrockFrame("messageStart", R"({"role":"assistant"})") +
           bedrockFrame("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"Hi"}})") +
           bedrockFrame("contentBlockStop", R"({"contentBlockIndex":0})") +
           bedrockFrame("messageStop", R"({"stopReason":"end_turn"})") +
           bedrockFrame("metadata",
                        withCounts(R"({"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2,)"
                                   R"("cacheReadInputTokens":1,"cacheWriteInputTokens":1}})",
                                   value));
}

QByteArray hostileBody(const QString &family, const QByteArray &value)
{
    if (family == QLatin1String("bedrock"))
        return bedrockBody(value);
    const QHash<QString, QString> fixture{
        {QStringLiteral("openai-chat"), QStringLiteral("openai-chat/text-include-usage.sse")},
        {QStringLiteral("openai-responses"),
         QStringLiteral("openai-responses/reasoning-summary-then-text.sse")},
        {QStringLiteral("anthropic"), QStringLiteral("anthropic/text.sse")},
        {QStringLiteral("gemini"), QStringLiteral("gemini/usage-every-chunk.sse")},
    };
    return withCounts(readFixture(fixture.value(family)), value);
}

} // namespace

class TestHostileStreams final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tokenCountsAreClampedAndSaturate_data();
    void tokenCountsAreClampedAndSaturate();
    void tokenUsageArithmetic();
    void dataThatIsNotAnObjectIsNamed_data();
    void dataThatIsNotAnObjectIsNamed();
    void hugeLineIsAClearError_data();
    void hugeLineIsAClearError();
};

void TestHostileStreams::tokenCountsAreClampedAndSaturate_data()
{
    QTest::addColumn<QString>("family");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("each"); // what every count becomes
    const QList<std::tuple<const char *, QByteArray, qint64>> values{
        {"2^63-1", "9223372036854775807", TokenUsage::MaxCount},
        {"2^63", "9223372036854775808", TokenUsage::MaxCount},
        {"2^62", "4611686018427387904", TokenUsage::MaxCount},
        {"1e300", "1e300", TokenUsage::MaxCount},
        {"negative", "-5", 0},
        {"fraction", "12.75", 12},
        {"string", "\"12\"", 0},
    };
    for (const char *family : {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"}) {
        for (const auto &[name, value, each] : values)
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(family), QLatin1String(name))))
                << QString::fromLatin1(family) << value << each;
    }
}

void TestHostileStreams::tokenCountsAreClampedAndSaturate()
{
    QFETCH(QString, family);
    QFETCH(QByteArray, value);
    QFETCH(qint64, each);
    const auto protocol = protocolFor(family);
    const QByteArray body = hostileBody(family, value);
    QVERIFY(body.contains(value));
    const Decoded decoded = decodeBody(*protocol, body, Split::Random, 7);
    QVERIFY2(decoded.ok(), qPrintable(decoded.error.message));
    if (!decoded.turn().usage) {
        QCOMPARE(each, qint64(0)); // Anthropic reports no usage when no count is a number
        return;
    }
    const TokenUsage usage = *decoded.turn().usage;
    // Whatever the provider claimed, every count is in range: no sum wrapped around to a negative number.
    for (const qint64 count : {usage.inputTokens, usage.outputTokens, usage.totalTokens, usage.cachedTokens,
                               usage.cacheReadTokens, usage.cacheWriteTokens, usage.reasoningTokens})
        QVERIFY2(count >= 0 && count <= TokenUsage::MaxCount, qPrintable(QString::number(count)));
    QCOMPARE(usage.outputTokens, each);
    // Input is a sum for Anthropic and Bedrock (input + cache reads + cache writes): saturated, not wrapped.
    QVERIFY(usage.inputTokens >= each);
    QCOMPARE(usage.totalTokens >= usage.outputTokens, true);
    if (each == TokenUsage::MaxCount)
        QCOMPARE(usage.totalTokens, TokenUsage::MaxCount);
}

void TestHostileStreams::tokenUsageArithmetic()
{
    QCOMPARE(TokenUsage::count(QJsonValue(42)), qint64(42));
    QCOMPARE(TokenUsage::count(QJsonValue(qint64(1) << 60)), TokenUsage::MaxCount);
    QCOMPARE(TokenUsage::count(QJsonValue(std::numeric_limits<double>::infinity())), qint64(0));
    QCOMPARE(TokenUsage::count(QJsonValue(std::numeric_limits<double>::quiet_NaN())), qint64(0));
    QCOMPARE(TokenUsage::count(QJsonValue(-1e300)), qint64(0));
    QCOMPARE(TokenUsage::count(QJsonValue(QStringLiteral("5"))), qint64(0));
    QCOMPARE(TokenUsage::count(QJsonValue()), qint64(0));
    QCOMPARE(TokenUsage::add(TokenUsage::MaxCount, TokenUsage::MaxCount), TokenUsage::MaxCount);
    QCOMPARE(TokenUsage::add(std::numeric_limits<qint64>::max(), std::numeric_limits<qint64>::max()),
             TokenUsage::MaxCount);
    QCOMPARE(TokenUsage::add(-7, 3), qint64(3));
    QCOMPARE(TokenUsage::add(2, 3), qint64(5));
}

void TestHostileStreams::dataThatIsNotAnObjectIsNamed_data()
{
    QTest::addColumn<QString>("family");
    QTest::addColumn<QByteArray>("data");
    for (const char *family : {"openai-chat", "openai-responses", "anthropic", "gemini"}) {
        for (const char *data : {"[1,2,3]", "42", "\"text\"", "null"})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(family), QLatin1String(data))))
                << QString::fromLatin1(family) << QByteArray(data);
    }
}

void TestHostileStreams::dataThatIsNotAnObjectIsNamed()
{
    QFETCH(QString, family);
    QFETCH(QByteArray, data);
    const auto protocol = protocolFor(family);
    const Decoded decoded = decodeBody(*protocol, "data: " + data + "\n\n", Split::Whole);
    QVERIFY(!decoded.ok());
    QCOMPARE(decoded.error.kind, ProviderError::Kind::Stream);
    QVERIFY(!decoded.error.isRetryable());
    // A person learns what was wrong, never "no error occurred".
    QVERIFY2(!decoded.error.message.contains(QStringLiteral("no error occurred")),
             qPrintable(decoded.error.message));
    QVERIFY2(decoded.error.message.contains(QStringLiteral("malformed")), qPrintable(decoded.error.message));
}

void TestHostileStreams::hugeLineIsAClearError_data()
{
    QTest::addColumn<QString>("family");
    for (const char *family : {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"})
        QTest::newRow(family) << QString::fromLatin1(family);
}

void TestHostileStreams::hugeLineIsAClearError()
{
    QFETCH(QString, family);
    const auto protocol = protocolFor(family);
    auto decoder = protocol->createDecoder([](const StreamEvent &) {});
    constexpr qsizetype mebibyte = 1024 * 1024;
    constexpr int pieces = 64; // a 64 MiB line, read 1 MiB at a time as the network would deliver it
    if (family == QLatin1String("bedrock")) {
        // A frame whose (valid) prelude announces 64 MiB.
        QByteArray prelude(8, '\0');
        qToBigEndian<quint32>(quint32(pieces * mebibyte), prelude.data());
        qToBigEndian<quint32>(0, prelude.data() + 4);
        QByteArray crc(4, '\0');
        qToBigEndian<quint32>(Crc32::checksum(prelude), crc.data());
        decoder->feed(prelude + crc);
    } else {
        decoder->feed("data: ");
    }
    const QByteArray piece(mebibyte, 'x'); // the same piece each time: the test itself holds 1 MiB
    int fed = 0;
    while (!decoder->failed() && fed < pieces) {
        decoder->feed(piece);
        ++fed;
    }
    QVERIFY2(decoder->failed(), "the decoder took a 64 MiB line");
    // It gave up once the line passed the 16 MiB cap, not at the end.
    QVERIFY2(fed <= int(SseParser::DefaultMaxEventBytes / mebibyte) + 1, qPrintable(QString::number(fed)));
    const Result<ModelTurn> turn = decoder->finish();
    QVERIFY(!turn);
    QCOMPARE(decoder->error().kind, ProviderError::Kind::Stream);
    QVERIFY(!decoder->error().isRetryable()); // the same request would send the same huge line
    const QString message = decoder->error().message;
    QVERIFY2(message.contains(QString::number(SseParser::DefaultMaxEventBytes)) ||
                 message.contains(QString::number(EventStreamDecoder::DefaultMaxFrameBytes)),
             qPrintable(message));
}

QTEST_GUILESS_MAIN(TestHostileStreams)
#include "tst_hostilestreams.moc"
