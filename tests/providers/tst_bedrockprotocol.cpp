// BedrockProtocol and BedrockStreamDecoder: every captured ConverseStream body decoded whole, byte by byte
// and in random splits; exception frames, CRC damage and truncation; request bodies against the captures;
// auth.

#include "fakeproviderserver.h"
#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "auth/awsssocredentials.h"
#include "providers/bedrock/bedrockprotocol.h"
#include "stream/eventstreamdecoder.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QtEndian>

#include <optional>
#include <thread>

using namespace keen;
using namespace keen::test;

namespace {

ClientConfig bedrockConfig()
{
    ClientConfig config;
    config.providerId = QStringLiteral("amazon-bedrock");
    config.model = QStringLiteral("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
    config.awsRegion = QStringLiteral("us-west-2");
    config.apiKey = QStringLiteral("bedrock-api-key-test");
    return config;
}

// Signed with AWS keys (no Bedrock API key), from the profile named, or the default chain when it is empty.
ClientConfig sigV4Config(const QString &profile = QString())
{
    ClientConfig config = bedrockConfig();
    config.apiKey.clear();
    config.awsProfile = profile;
    return config;
}

// STS's answer to AssumeRole: the role's keys (key id keyId, valid for an hour).
FakeProviderServer::Response stsRoleAnswer(const QByteArray &keyId)
{
    const QByteArray expires = QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate).toUtf8();
    FakeProviderServer::Response response;
    response.contentType = "text/xml";
    response.body =
        "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>"
        "<Credentials><AccessKeyId>" +
        keyId + "</AccessKeyId><SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-token-" +
        keyId + "</SessionToken><Expiration>" + expires +
        "</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>";
    return response;
}

QByteArray frame(const QString &messageType, const QString &typeHeader, const QString &type,
                 const QByteArray &payload)
{
    EventStreamDecoder::Message message;
    message.headers = {
        {QStringLiteral(":message-type"), EventStreamDecoder::Header::Type::String, messageType},
        {typeHeader, EventStreamDecoder::Header::Type::String, type},
        {QStringLiteral(":content-type"), EventStreamDecoder::Header::Type::String,
         QStringLiteral("application/json")},
    };
    message.payload = payload;
    return EventStreamDecoder::encode(message);
}

QByteArray eventFrame(const char *type, const QByteArray &payload)
{
    return frame(QStringLiteral("event"), QStringLiteral(":event-type"), QLatin1String(type), payload);
}

QByteArray exceptionFrame(const char *type, const QByteArray &payload)
{
    return frame(QStringLiteral("exception"), QStringLiteral(":exception-type"), QLatin1String(type),
                 payload);
}

// Offsets where each frame of a body starts.
QList<qsizetype> frameStarts(const QByteArray &body)
{
    QList<qsizetype> starts;
    qsizetype offset = 0;
    while (offset + 4 <= body.size()) {
        starts.append(offset);
        offset += qFromBigEndian<quint32>(body.constData() + offset);
    }
    return starts;
}

QByteArray header(const HttpRequestSpec &spec, const QByteArray &name)
{
    for (const auto &[key, value] : spec.headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

} // namespace

class TestBedrockProtocol : public QObject
{
    Q_OBJECT

private:
    BedrockProtocol m_protocol{bedrockConfig(), QProcessEnvironment()};

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
        return decodeBody(m_protocol, readFixture(QStringLiteral("bedrock/") + name), Split(split), seed);
    }

private Q_SLOTS:
    void decodesText_data() { addSplitRows(); }
    void decodesText()
    {
        const Decoded d = decodeFixture(QStringLiteral("text-nova.bin"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text,
                 QStringLiteral(
                     "The capital of France is Paris. Paris is not only the capital city but also the most "
                     "populous city in France, and it is a major center for culture, commerce, fashion, "
                     "and international diplomacy. Known for its historical landmarks, such as the Eiffel "
                     "Tower, the Louvre Museum, and Notre-Dame Cathedral, Paris is often referred to as "
                     "\"The City of Light\" or \"The City of Love.\""));
        QCOMPARE(d.streamedText, d.turn().text);
        QCOMPARE(d.turn().stopReason, QStringLiteral("end_turn"));
        TokenUsage usage;
        usage.inputTokens = 13;
        usage.outputTokens = 82;
        usage.totalTokens = 95;
        QCOMPARE(*d.turn().usage, usage);
        QCOMPARE(
            d.turn().assistantNative,
            (QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                    {QStringLiteral("content"),
                                     QJsonArray{QJsonObject{{QStringLiteral("text"), d.turn().text}}}}}}));
    }

    void decodesToolUse_data() { addSplitRows(); }
    void decodesToolUse()
    {
        const Decoded d = decodeFixture(QStringLiteral("tool-use-claude.bin"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().text,
                 QStringLiteral("I'll check the current weather in San Francisco, CA for you."));
        QCOMPARE(d.turn().stopReason, QStringLiteral("tool_use"));
        QCOMPARE(d.turn().toolCalls.size(), 1);
        const ToolCallRequest &call = d.turn().toolCalls.at(0);
        QCOMPARE(call.id, QStringLiteral("tooluse_Zsi5nODkqYT50BEZ9GG8ud"));
        QCOMPARE(call.name, QStringLiteral("get_weather"));
        QCOMPARE(call.arguments, QStringLiteral("{\"location\": \"San Francisco, CA\"}"));
        QCOMPARE(call.input,
                 (QJsonObject{{QStringLiteral("location"), QStringLiteral("San Francisco, CA")}}));
        QCOMPARE(d.turn().usage->inputTokens, 446);
        QCOMPARE(d.turn().usage->outputTokens, 76);
        QCOMPARE(d.turn().usage->totalTokens, 522);
    }

    void decodesReasoningWithSignature_data() { addSplitRows(); }
    void decodesReasoningWithSignature()
    {
        const Decoded d = decodeFixture(QStringLiteral("reasoning-claude.bin"));
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QVERIFY(d.turn().reasoning.startsWith(
            QLatin1String("I need to find the smallest n where n! is divisible by 10^6,")));
        QVERIFY(d.turn().reasoning.endsWith(QLatin1String("6 factors of 5, while n=24 only gives 4.")));
        QCOMPARE(d.turn().reasoning.size(), 302);
        QCOMPARE(d.streamedReasoning, d.turn().reasoning);
        QVERIFY(d.turn().text.startsWith(QLatin1String("## Setting Up the Problem\n\nI need the sm")));
        QVERIFY(d.turn().text.endsWith(QStringLiteral("e by $2^6 \\cdot 5^6 = 10^6$. ✓")));
        QCOMPARE(d.turn().text.size(), 1976);
        QCOMPARE(d.streamedText, d.turn().text);
        const QJsonArray content = d.turn().assistantNative.at(0)[QStringLiteral("content")].toArray();
        QCOMPARE(content.size(), 2);
        const QJsonObject reasoningText =
            content.at(0)[QStringLiteral("reasoningContent")][QStringLiteral("reasoningText")].toObject();
        QCOMPARE(reasoningText.value(QStringLiteral("text")).toString(), d.turn().reasoning);
        const QString signature = reasoningText.value(QStringLiteral("signature")).toString();
        QCOMPARE(signature.size(), 836);
        QVERIFY(signature.startsWith(QLatin1String("Eu0ECmQIDxABGAIqQPg2")));
        QVERIFY(signature.endsWith(QLatin1String("d1CoWIrXn1+/TfyRGAE=")));
        QCOMPARE(d.turn().usage->outputTokens, 1196);
    }

    void exceptionFrameFromAFixture_data() { addSplitRows(); }
    void exceptionFrameFromAFixture()
    {
        const Decoded d = decodeFixture(QStringLiteral("exception-service-unavailable.bin"));
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::Overloaded);
        QVERIFY(d.error.isRetryable());
        QVERIFY2(d.error.message.contains(QLatin1String("Bedrock is unable to process your request.")),
                 qPrintable(d.error.message));
    }

    void exceptionFramesAreClassified_data()
    {
        QTest::addColumn<QByteArray>("type");
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("kind");
        QTest::newRow("throttling") << QByteArray("throttlingException")
                                    << QByteArray(R"({"message":"Too many requests"})")
                                    << int(ProviderError::Kind::RateLimit);
        QTest::newRow("internal") << QByteArray("internalServerException")
                                  << QByteArray(R"({"message":"oops"})")
                                  << int(ProviderError::Kind::Overloaded);
        QTest::newRow("model stream")
            << QByteArray("modelStreamErrorException") << QByteArray(R"({"message":"x"})")
            << int(ProviderError::Kind::Overloaded);
        QTest::newRow("context") << QByteArray("validationException")
                                 << QByteArray(R"({"message":"Input is too long for requested model."})")
                                 << int(ProviderError::Kind::ContextLength);
        QTest::newRow("validation") << QByteArray("validationException")
                                    << QByteArray(R"({"message":"bad field"})")
                                    << int(ProviderError::Kind::InvalidRequest);
    }
    void exceptionFramesAreClassified()
    {
        QFETCH(QByteArray, type);
        QFETCH(QByteArray, payload);
        QFETCH(int, kind);
        const QByteArray body =
            eventFrame("messageStart", R"({"role":"assistant"})") +
            eventFrame("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"Hi"}})") +
            exceptionFrame(type.constData(), payload);
        const Decoded d = decodeBody(m_protocol, body, Split::Bytewise);
        QVERIFY(!d.ok());
        QCOMPARE(int(d.error.kind), kind);
        QCOMPARE(d.streamedText, QStringLiteral("Hi"));
    }

    void truncationAndDamage()
    {
        const QByteArray body = readFixture(QStringLiteral("bedrock/tool-use-claude.bin"));
        const QList<qsizetype> starts = frameStarts(body);
        QCOMPARE(starts.size(), 15);
        // Ending at any frame boundary before messageStop is a truncation (retried by the tool loop).
        for (qsizetype i = 1; i < starts.size() - 1; ++i) {
            const Decoded d = decodeBody(m_protocol, body.left(starts.at(i)), Split::Whole);
            QVERIFY2(!d.ok(), qPrintable(QString::number(i)));
            QCOMPARE(d.error.kind, ProviderError::Kind::Truncated);
            QVERIFY(d.error.isRetryable());
            QVERIFY2(d.error.message.contains(QLatin1String("before messageStop")),
                     qPrintable(d.error.message));
        }
        // Ending inside a frame as well.
        Decoded d = decodeBody(m_protocol, body.left(starts.at(5) + 7), Split::Bytewise);
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::Truncated);
        QVERIFY(d.error.isRetryable());
        QVERIFY2(d.error.message.contains(QLatin1String("ended inside a frame")),
                 qPrintable(d.error.message));
        // messageStop arrived but metadata did not: the answer is complete, only its usage is missing.
        d = decodeBody(m_protocol, body.left(starts.last()), Split::Whole);
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().toolCalls.size(), 1);
        QVERIFY(!d.turn().usage);
        // A damaged payload fails its CRC.
        QByteArray damaged = body;
        damaged[starts.at(3) + 40] = char(damaged.at(starts.at(3) + 40) ^ 0x20);
        d = decodeBody(m_protocol, damaged, Split::Random, 3);
        QVERIFY(!d.ok());
        QCOMPARE(d.error.kind, ProviderError::Kind::Stream);
        QVERIFY(!d.error.isRetryable()); // damaged data is not retried
    }

    void redactedReasoningAndEmptyToolInput()
    {
        const QByteArray body =
            eventFrame("messageStart", R"({"role":"assistant"})") +
            eventFrame(
                "contentBlockDelta",
                R"({"contentBlockIndex":0,"delta":{"reasoningContent":{"redactedContent":"cmVkYWN0ZWQ="}}})") +
            eventFrame("contentBlockStop", R"({"contentBlockIndex":0})") +
            eventFrame(
                "contentBlockStart",
                R"({"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_a","name":"glob","type":"tool_use"}}})") +
            eventFrame("contentBlockDelta", R"({"contentBlockIndex":1,"delta":{"toolUse":{"input":""}}})") +
            eventFrame("contentBlockStop", R"({"contentBlockIndex":1})") +
            eventFrame(
                "contentBlockStart",
                R"({"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"tooluse_b","name":"grep","type":"tool_use"}}})") +
            eventFrame("contentBlockDelta",
                       "{\"contentBlockIndex\":2,\"delta\":{\"toolUse\":{\"input\":\"{\\\"pattern\\\"\"}}}") +
            eventFrame("contentBlockStop", R"({"contentBlockIndex":2})") +
            eventFrame("messageStop", R"({"stopReason":"tool_use"})") +
            eventFrame(
                "metadata",
                R"({"usage":{"inputTokens":10,"outputTokens":5,"totalTokens":315,"cacheReadInputTokens":200,"cacheWriteInputTokens":100}})");
        const Decoded d = decodeBody(m_protocol, body, Split::Random, 5);
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.turn().toolCalls.size(), 2);
        QCOMPARE(d.turn().toolCalls.at(0).input, QJsonObject()); // "" only
        QCOMPARE(d.turn().toolCalls.at(1).input, QJsonObject()); // malformed
        const QJsonArray content = d.turn().assistantNative.at(0)[QStringLiteral("content")].toArray();
        QCOMPARE(
            content.at(0)[QStringLiteral("reasoningContent")][QStringLiteral("redactedContent")].toString(),
            QStringLiteral("cmVkYWN0ZWQ="));
        TokenUsage usage;
        usage.inputTokens = 310;
        usage.outputTokens = 5;
        usage.totalTokens = 315;
        usage.cachedTokens = 300;
        usage.cacheReadTokens = 200;
        usage.cacheWriteTokens = 100;
        QCOMPARE(*d.turn().usage, usage);
    }

    void httpErrorsAreClassified_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("errorType");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("invalid model")
            << 400 << readFixture(QStringLiteral("bedrock/error-400-invalid-model.json"))
            << QByteArray("ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/")
            << int(ProviderError::Kind::InvalidRequest)
            << QStringLiteral("ValidationException: The provided model identifier is invalid.");
        QTest::newRow("too long") << 400
                                  << QByteArray(R"({"message":"Input is too long for requested model."})")
                                  << QByteArray("ValidationException")
                                  << int(ProviderError::Kind::ContextLength)
                                  << QStringLiteral("Input is too long");
        QTest::newRow("denied")
            << 403 << QByteArray("{\"message\":\"You don't have access to the model\"}")
            << QByteArray("AccessDeniedException:http://internal.amazon.com/coral/com.amazon.bedrock/")
            << int(ProviderError::Kind::Authentication) << QStringLiteral("access to the model");
        QTest::newRow("throttled") << 429 << QByteArray(R"({"message":"Too many requests, please wait"})")
                                   << QByteArray("ThrottlingException") << int(ProviderError::Kind::RateLimit)
                                   << QStringLiteral("Too many requests");
        QTest::newRow("unavailable") << 503 << QByteArray(R"({"message":"Service unavailable"})")
                                     << QByteArray() << int(ProviderError::Kind::Overloaded)
                                     << QStringLiteral("Service unavailable");
        QTest::newRow("__type") << 404
                                << QByteArray("{\"__type\":\"com.amazon.coral.service#"
                                              "ResourceNotFoundException\",\"Message\":\"Model not found\"}")
                                << QByteArray() << int(ProviderError::Kind::InvalidRequest)
                                << QStringLiteral("ResourceNotFoundException: Model not found");
    }
    void httpErrorsAreClassified()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, errorType);
        QFETCH(int, kind);
        QFETCH(QString, mentions);
        HeaderList headers{{"Content-Type", "application/json"}};
        if (!errorType.isEmpty())
            headers.append({"x-amzn-ErrorType", errorType});
        const ProviderError error = m_protocol.classifyHttpError(status, body, headers);
        QCOMPARE(int(error.kind), kind);
        QCOMPARE(error.httpStatus, status);
        QVERIFY2(error.message.contains(mentions), qPrintable(error.message));
        QVERIFY(!error.message.contains(QLatin1String("bedrock-api-key-test")));
    }

    void endpointAndRegion()
    {
        QCOMPARE(m_protocol.endpoint().toString(QUrl::FullyEncoded),
                 QStringLiteral("https://bedrock-runtime.us-west-2.amazonaws.com/model/"
                                "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"));
        ClientConfig config = bedrockConfig();
        config.awsRegion.clear();
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_REGION"), QStringLiteral("eu-central-1"));
        QCOMPARE(BedrockProtocol(config, environment).region(), QStringLiteral("eu-central-1"));
        QCOMPARE(BedrockProtocol(config, QProcessEnvironment(), QStringLiteral("/nonexistent")).region(),
                 QStringLiteral("us-east-1"));
        config.model = QStringLiteral(
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-micro-v1:0");
        config.baseUrl = QStringLiteral("http://127.0.0.1:4566/");
        QCOMPARE(
            BedrockProtocol(config, QProcessEnvironment()).endpoint().toString(QUrl::FullyEncoded),
            QStringLiteral("http://127.0.0.1:4566/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3A"
                           "inference-profile%2Fus.amazon.nova-micro-v1%3A0/converse-stream"));
    }

    void bearerTokenAuth()
    {
        const HttpRequestSpec spec =
            m_protocol.buildRequest(m_protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {});
        QCOMPARE(header(spec, "authorization"), QByteArray("Bearer bedrock-api-key-test"));
        QCOMPARE(header(spec, "content-type"), QByteArray("application/json"));
        QVERIFY(header(spec, "x-amz-date").isEmpty());
    }

    void sigv4Auth()
    {
        ClientConfig config = sigV4Config();
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_ACCESS_KEY_ID"), QStringLiteral("AKIDEXAMPLE"));
        environment.insert(QStringLiteral("AWS_SECRET_ACCESS_KEY"),
                           QStringLiteral("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
        environment.insert(QStringLiteral("AWS_SESSION_TOKEN"), QStringLiteral("session-token"));
        BedrockProtocol protocol(config, environment, QStringLiteral("/nonexistent"));
        QVERIFY(protocol.prepare(CancellationToken()).ok());
        const QDateTime time(QDate(2026, 1, 2), QTime(3, 4, 5), Qt::UTC);
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {}, time);
        const QByteArray authorization = header(spec, "authorization");
        QVERIFY2(authorization.startsWith(
                     "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260102/us-west-2/bedrock/aws4_request, "
                     "SignedHeaders="),
                 authorization.constData());
        QVERIFY(authorization.contains("host"));
        QVERIFY(authorization.contains("x-amz-date"));
        QVERIFY(authorization.contains("Signature="));
        QCOMPARE(header(spec, "x-amz-date"), QByteArray("20260102T030405Z"));
        QCOMPARE(header(spec, "x-amz-security-token"), QByteArray("session-token"));
        // Signing is deterministic for a fixed clock, and changes with the body.
        QCOMPARE(header(protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {},
                                                {}, time),
                        "authorization"),
                 authorization);
        QVERIFY(header(protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("ho"))}), {},
                                               {}, time),
                       "authorization") != authorization);

        // No key and no credentials: prepare() says so plainly.
        BedrockProtocol none(config, QProcessEnvironment(), QStringLiteral("/nonexistent"));
        const Result<void> prepared = none.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY(prepared.error().startsWith(QLatin1String("Amazon Bedrock")));
    }

    // A profile with credential_process (aws-vault, granted, a password manager) was refused as
    // unsupported. The command's keys sign the request, and are kept until five minutes before they expire:
    // a helper may ask the person, so it must not run for every request.
    void credentialProcessKeysSignAndAreKeptUntilTheyExpire()
    {
        QTemporaryDir home;
        const QString counter = home.filePath(QStringLiteral("runs"));
        const auto helper = [&](const QString &name, const QByteArray &body) {
            const QString path = home.filePath(name);
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly))
                return QString();
            file.write("#!/bin/sh\necho run >> '" + counter.toUtf8() + "'\n" + body);
            file.close();
            file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
            return path;
        };
        const QString later = QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate);
        const QString fresh = helper(
            QStringLiteral("fresh.sh"),
            "printf '{\"Version\": 1, \"AccessKeyId\": \"ASIAPROCESSKEY\", \"SecretAccessKey\": \"s3cr3t\", "
            "\"SessionToken\": \"process-token\", \"Expiration\": \"" +
                later.toUtf8() + "\"}'\n");
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile tools]\nregion = eu-west-1\ncredential_process = " +
                                    fresh.toUtf8() + " --profile tools\n"));
        ClientConfig config = sigV4Config(QStringLiteral("tools"));
        const auto runs = [&] {
            QFile file(counter);
            return file.open(QIODevice::ReadOnly) ? file.readAll().count('\n') : 0;
        };
        BedrockProtocol protocol(config, QProcessEnvironment(), home.path());
        QVERIFY(protocol.prepare(CancellationToken()).ok());
        QVERIFY(protocol.prepare(CancellationToken()).ok());
        QCOMPARE(runs(), 1);
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY2(header(spec, "authorization").contains("Credential=ASIAPROCESSKEY/"),
                 header(spec, "authorization").constData());
        QCOMPARE(header(spec, "x-amz-security-token"), QByteArray("process-token"));

        // Keys about to expire are taken again; keys without an expiration are kept.
        const QString soon = QDateTime::currentDateTimeUtc().addSecs(60).toString(Qt::ISODate);
        QVERIFY(test::writeFile(
            home.filePath(QStringLiteral("fresh.sh")),
            "#!/bin/sh\necho run >> '" + counter.toUtf8() +
                "'\nprintf '{\"Version\": 1, \"AccessKeyId\": \"ASIASOON\", \"SecretAccessKey\": \"s\", "
                "\"Expiration\": \"" +
                soon.toUtf8() + "\"}'\n"));
        BedrockProtocol expiring(config, QProcessEnvironment(), home.path());
        QVERIFY(expiring.prepare(CancellationToken()).ok());
        QVERIFY(expiring.prepare(CancellationToken()).ok());
        QCOMPARE(runs(), 3);

        // A failing helper: its stderr line says why; what it printed on stdout is never repeated.
        const QString failing =
            helper(QStringLiteral("failing.sh"),
                   "echo 'AccessKeyId SECRET-ON-STDOUT'\necho 'Run aws sso login first' >&2\n"
                   "exit 3\n");
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile tools]\ncredential_process = " + failing.toUtf8() + "\n"));
        BedrockProtocol failed(config, QProcessEnvironment(), home.path());
        Result<void> prepared = failed.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("failed (exit code 3): Run aws sso login first")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("SECRET-ON-STDOUT")));

        const QString garbled = helper(QStringLiteral("garbled.sh"), "echo 'AKIA-LOOKING SECRET-GARBLE'\n");
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile tools]\ncredential_process = " + garbled.toUtf8() + "\n"));
        BedrockProtocol unreadable(config, QProcessEnvironment(), home.path());
        prepared = unreadable.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("did not print credentials")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("SECRET-GARBLE")));

        // A helper waiting for a person stops with the turn (Esc).
        const QString waiting = helper(QStringLiteral("waiting.sh"), "exec sleep 30\n");
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile tools]\ncredential_process = " + waiting.toUtf8() + "\n"));
        BedrockProtocol stopped(config, QProcessEnvironment(), home.path());
        CancellationToken cancel;
        QTimer::singleShot(200, [cancel] { cancel.cancel(); });
        QElapsedTimer clock;
        clock.start();
        std::optional<Result<void>> outcome;
        std::thread worker([&] { outcome = stopped.prepare(cancel); });
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 20000);
        worker.join();
        QVERIFY(!outcome->ok());
        QVERIFY(clock.elapsed() < 20000); // not the helper's 30 s
    }

    // A profile signed in with `aws sso login` was refused as unsupported. The CLI's cached sign-in is sent
    // to the SSO portal for the role's keys, which sign the requests until they are about to expire; an
    // expired sign-in or a refusal says to sign in again, and never quotes the token.
    void ssoSignInGivesTheRoleKeys()
    {
        QTemporaryDir home;
        FakeProviderServer portal;
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\n"
                                "sso_role_name = BedrockUser\nregion = us-west-2\n"
                                "[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\n"
                                "sso_region = eu-west-1\n"));
        const QString cache = home.filePath(QStringLiteral(".aws/sso/cache/") +
                                            AwsSsoCredentials::cacheFileName(QStringLiteral("corp")));
        const auto signIn = [&](qint64 secondsLeft, const char *format = "yyyy-MM-dd'T'HH:mm:ss'Z'") {
            const QString expiresAt =
                QDateTime::currentDateTimeUtc().addSecs(secondsLeft).toString(QLatin1String(format));
            return test::writeFile(cache,
                                   "{\"startUrl\": \"https://corp.awsapps.com/start\", \"region\": "
                                   "\"eu-west-1\", \"accessToken\": \"sso-access-token\", \"expiresAt\": \"" +
                                       expiresAt.toUtf8() + "\"}");
        };
        QVERIFY(signIn(3600, "yyyy-MM-dd'T'HH:mm:ss'UTC'")); // as older CLIs wrote it
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_ENDPOINT_URL_SSO"), portal.baseUrl().toString());
        ClientConfig config = sigV4Config(QStringLiteral("dev"));
        const qint64 roleExpires = QDateTime::currentDateTimeUtc().addSecs(3600).toMSecsSinceEpoch();
        portal.enqueue(FakeProviderServer::jsonResponse(
            200,
            "{\"roleCredentials\": {\"accessKeyId\": \"ASIASSOKEY\", \"secretAccessKey\": \"sso-secret\", "
            "\"sessionToken\": \"sso-session-token\", \"expiration\": " +
                QByteArray::number(roleExpires) + "}}"));
        BedrockProtocol protocol(config, environment, home.path());
        Result<void> prepared = protocol.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QVERIFY(protocol.prepare(CancellationToken()).ok()); // kept: no second request
        QCOMPARE(portal.requests().size(), 1);
        const FakeProviderServer::Request asked = portal.requests().first();
        QCOMPARE(asked.path, QByteArray("/federation/credentials"));
        QVERIFY(asked.query.contains("account_id=111122223333"));
        QVERIFY(asked.query.contains("role_name=BedrockUser"));
        QCOMPARE(asked.header("x-amz-sso_bearer_token"), QByteArray("sso-access-token"));
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY(header(spec, "authorization").contains("Credential=ASIASSOKEY/"));
        QCOMPARE(header(spec, "x-amz-security-token"), QByteArray("sso-session-token"));

        // The portal refuses (the sign-in was revoked): sign in again, the token never quoted.
        portal.enqueue(
            FakeProviderServer::jsonResponse(401, "{\"message\": \"Session token not found or invalid\"}"));
        BedrockProtocol refused(config, environment, home.path());
        prepared = refused.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("aws sso login --profile dev")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("sso-access-token")));

        // An expired sign-in without a refresh token is not sent at all.
        QVERIFY(signIn(-60));
        BedrockProtocol expired(config, environment, home.path());
        prepared = expired.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("has expired")), qPrintable(prepared.error()));
        QCOMPARE(portal.requests().size(), 2);

        // One with a refresh token (what `aws sso login` with an sso-session writes) is renewed, as the SDKs
        // do, and written back so the CLI uses the new token too: a window open all day outlives the hour a
        // token lasts.
        const QString expiredAt =
            QDateTime::currentDateTimeUtc().addSecs(-60).toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss'Z'"));
        QVERIFY(
            test::writeFile(cache, "{\"accessToken\": \"old-token\", \"expiresAt\": \"" + expiredAt.toUtf8() +
                                       "\", \"refreshToken\": \"refresh-1\", \"clientId\": \"client\", "
                                       "\"clientSecret\": \"client-secret\", \"region\": \"eu-west-1\"}"));
        environment.insert(QStringLiteral("AWS_ENDPOINT_URL_SSO_OIDC"), portal.baseUrl().toString());
        portal.enqueue(FakeProviderServer::jsonResponse(
            200, "{\"accessToken\": \"new-token\", \"expiresIn\": 3600, \"refreshToken\": \"refresh-2\", "
                 "\"tokenType\": \"Bearer\"}"));
        portal.enqueue(FakeProviderServer::jsonResponse(
            200, "{\"roleCredentials\": {\"accessKeyId\": \"ASIARENEWED\", \"secretAccessKey\": \"s\", "
                 "\"sessionToken\": \"t\", \"expiration\": " +
                     QByteArray::number(roleExpires) + "}}"));
        BedrockProtocol renewed(config, environment, home.path());
        prepared = renewed.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QCOMPARE(portal.requests().size(), 4);
        const FakeProviderServer::Request refresh = portal.requests().at(2);
        QCOMPARE(refresh.path, QByteArray("/token"));
        QCOMPARE(refresh.json.object().value(QStringLiteral("grantType")).toString(),
                 QStringLiteral("refresh_token"));
        QCOMPARE(refresh.json.object().value(QStringLiteral("refreshToken")).toString(),
                 QStringLiteral("refresh-1"));
        QCOMPARE(portal.requests().at(3).header("x-amz-sso_bearer_token"), QByteArray("new-token"));
        QFile written(cache);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QJsonObject kept = QJsonDocument::fromJson(written.readAll()).object();
        QCOMPARE(kept.value(QStringLiteral("accessToken")).toString(), QStringLiteral("new-token"));
        QCOMPARE(kept.value(QStringLiteral("refreshToken")).toString(), QStringLiteral("refresh-2"));
        QCOMPARE(kept.value(QStringLiteral("clientSecret")).toString(), QStringLiteral("client-secret"));
        QCOMPARE(written.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
    }

    // A profile assuming a role (role_arn, source_profile) was refused as unsupported. STS AssumeRole is
    // asked with the source profile's keys (signed for sts), the role's keys sign the requests; a source that
    // is a role itself is followed; a refusal says what STS said.
    void assumeRoleGivesTheRolesKeys()
    {
        QTemporaryDir home;
        FakeProviderServer sts;
        QVERIFY(
            test::writeFile(home.filePath(QStringLiteral(".aws/credentials")),
                            "[base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = base-secret\n"));
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile dev]\nrole_arn = arn:aws:iam::111122223333:role/Bedrock\n"
                                "source_profile = hop\nexternal_id = xyz-42\nrole_session_name = me\n"
                                "region = us-west-2\n"
                                "[profile hop]\nrole_arn = arn:aws:iam::444455556666:role/Hop\n"
                                "source_profile = base\n"));
        sts.enqueue(stsRoleAnswer("ASIAHOP"));
        sts.enqueue(stsRoleAnswer("ASIADEV"));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_ENDPOINT_URL_STS"), sts.baseUrl().toString());
        ClientConfig config = sigV4Config(QStringLiteral("dev"));
        BedrockProtocol protocol(config, environment, home.path());
        Result<void> prepared = protocol.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QVERIFY(protocol.prepare(CancellationToken()).ok()); // kept
        QCOMPARE(sts.requests().size(), 2);
        const FakeProviderServer::Request hop = sts.requests().at(0);
        QVERIFY(hop.body.contains("Action=AssumeRole"));
        QVERIFY(hop.body.contains("RoleArn=arn%3Aaws%3Aiam%3A%3A444455556666%3Arole%2FHop"));
        QVERIFY(hop.header("authorization").contains("Credential=AKIDBASE/"));
        QVERIFY(hop.header("authorization").contains("/us-west-2/sts/aws4_request"));
        const FakeProviderServer::Request dev = sts.requests().at(1);
        QVERIFY(dev.body.contains("RoleArn=arn%3Aaws%3Aiam%3A%3A111122223333%3Arole%2FBedrock"));
        QVERIFY(dev.body.contains("ExternalId=xyz-42"));
        QVERIFY(dev.body.contains("RoleSessionName=me"));
        QVERIFY(dev.header("authorization").contains("Credential=ASIAHOP/"));
        QCOMPARE(dev.header("x-amz-security-token"), QByteArray("role-token-ASIAHOP"));
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY(header(spec, "authorization").contains("Credential=ASIADEV/"));

        // STS says no: its code and message are shown.
        FakeProviderServer::Response denied;
        denied.status = 403;
        denied.contentType = "text/xml";
        denied.body =
            "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not "
            "authorized to perform: sts:AssumeRole</Message></Error></ErrorResponse>";
        sts.enqueue(denied);
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile dev]\nrole_arn = arn:aws:iam::111122223333:role/Bedrock\n"
                                "source_profile = base\n"));
        BedrockProtocol refused(config, environment, home.path());
        prepared = refused.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("HTTP 403, AccessDenied): User is not authorized")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("base-secret")));
    }

    // `run` in a CI job or a Kubernetes pod: AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN asks STS
    // AssumeRoleWithWebIdentity with the token (unsigned: the token is the proof), and the role's keys sign.
    void webIdentityTokenGivesTheRolesKeys()
    {
        QTemporaryDir home;
        FakeProviderServer sts;
        const QString tokenFile = home.filePath(QStringLiteral("token"));
        QVERIFY(test::writeFile(tokenFile, "eyJ-web-identity-token\n"));
        FakeProviderServer::Response answer;
        answer.contentType = "text/xml";
        answer.body = "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>"
                      "<AccessKeyId>ASIAWEBID</AccessKeyId><SecretAccessKey>w</SecretAccessKey>"
                      "<SessionToken>web-token</SessionToken><Expiration>" +
                      QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate).toUtf8() +
                      "</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
                      "</AssumeRoleWithWebIdentityResponse>";
        sts.enqueue(answer);
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_ENDPOINT_URL_STS"), sts.baseUrl().toString());
        environment.insert(QStringLiteral("AWS_WEB_IDENTITY_TOKEN_FILE"), tokenFile);
        environment.insert(QStringLiteral("AWS_ROLE_ARN"),
                           QStringLiteral("arn:aws:iam::111122223333:role/ci"));
        environment.insert(QStringLiteral("AWS_ROLE_SESSION_NAME"), QStringLiteral("build-42"));
        ClientConfig config = sigV4Config();
        BedrockProtocol protocol(config, environment, home.path());
        Result<void> prepared = protocol.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QCOMPARE(sts.requests().size(), 1);
        const FakeProviderServer::Request asked = sts.requests().first();
        QVERIFY(asked.body.contains("Action=AssumeRoleWithWebIdentity"));
        QVERIFY(asked.body.contains("WebIdentityToken=eyJ-web-identity-token&") ||
                asked.body.endsWith("WebIdentityToken=eyJ-web-identity-token"));
        QVERIFY(asked.body.contains("RoleSessionName=build-42"));
        QVERIFY(!asked.hasHeader("authorization"));
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY(header(spec, "authorization").contains("Credential=ASIAWEBID/"));

        // A token file that cannot be read is named.
        environment.insert(QStringLiteral("AWS_WEB_IDENTITY_TOKEN_FILE"),
                           home.filePath(QStringLiteral("gone")));
        BedrockProtocol missing(config, environment, home.path());
        prepared = missing.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("Cannot read the web identity token")) &&
                     prepared.error().contains(QStringLiteral("not a file")),
                 qPrintable(prepared.error()));
        QCOMPARE(sts.requests().size(), 1);
    }

    // Inside an ECS task, a CodeBuild job or an EKS pod (Pod Identity), the keys come from the container's
    // endpoint (here AWS_CONTAINER_CREDENTIALS_FULL_URI to a loopback fake), asked with the token of
    // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE. They sign the requests until they are about to expire; a
    // refusal, an answer without keys, a token with a line break and an endpoint the SDKs would not ask are
    // each said plainly, never quoting the token.
    void containerCredentialsSignAndAreRenewed()
    {
        QTemporaryDir home;
        FakeProviderServer container;
        const QString tokenFile = home.filePath(QStringLiteral("pod-token"));
        QVERIFY(test::writeFile(tokenFile, "fake-pod-identity-token\n"));
        const auto answer = [](const QByteArray &key, qint64 secondsLeft) {
            const QByteArray expires =
                QDateTime::currentDateTimeUtc().addSecs(secondsLeft).toString(Qt::ISODate).toUtf8();
            return FakeProviderServer::jsonResponse(
                200, "{\"RoleArn\": \"arn:aws:iam::111122223333:role/task\", \"AccessKeyId\": \"" + key +
                         "\", \"SecretAccessKey\": \"fake-container-secret\", \"Token\": \"container-token-" +
                         key + "\", \"Expiration\": \"" + expires + "\"}");
        };
        container.enqueue(answer("ASIASOON", 60)); // within five minutes of expiring: asked again
        container.enqueue(answer("ASIATASK", 3600));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
                           container.baseUrl().toString() + QStringLiteral("/v1/credentials"));
        environment.insert(QStringLiteral("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"), tokenFile);
        environment.insert(QStringLiteral("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
                           QStringLiteral("fake-env-token-the-file-beats"));
        ClientConfig config = sigV4Config();
        BedrockProtocol protocol(config, environment, home.path());
        Result<void> prepared = protocol.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QVERIFY(protocol.prepare(CancellationToken()).ok());
        QVERIFY(protocol.prepare(CancellationToken()).ok()); // kept: the second keys last an hour
        QCOMPARE(container.requests().size(), 2);
        const FakeProviderServer::Request asked = container.requests().first();
        QCOMPARE(asked.method, QByteArray("GET"));
        QCOMPARE(asked.path, QByteArray("/v1/credentials"));
        QCOMPARE(asked.header("authorization"), QByteArray("fake-pod-identity-token"));
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY2(header(spec, "authorization").contains("Credential=ASIATASK/"),
                 header(spec, "authorization").constData());
        QCOMPARE(header(spec, "x-amz-security-token"), QByteArray("container-token-ASIATASK"));

        // The endpoint fails: it is named, with the status; the token it echoes is not repeated.
        container.enqueue(FakeProviderServer::jsonResponse(
            500, "{\"code\": \"InternalError\", \"message\": \"bad token fake-pod-identity-token\"}"));
        BedrockProtocol failing(config, environment, home.path());
        prepared = failing.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(
                     QStringLiteral("AWS container credentials endpoint 127.0.0.1:%1 answered HTTP 500")
                         .arg(container.baseUrl().port())),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("fake-pod-identity-token")));

        // An answer without all the keys says which are missing, and quotes none.
        container.enqueue(FakeProviderServer::jsonResponse(200, "{\"AccessKeyId\": \"ASIAHALF\"}"));
        BedrockProtocol half(config, environment, home.path());
        prepared = half.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("gave no SecretAccessKey, Token, Expiration")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("ASIAHALF")));
        QCOMPARE(container.requests().size(), 4);

        // A token with a line break would add a header of its own: it is not sent at all.
        QVERIFY(test::writeFile(tokenFile, "fake-token\r\nX-Injected: yes\n"));
        BedrockProtocol injected(config, environment, home.path());
        prepared = injected.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("contains a line break")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("X-Injected")));
        QVERIFY(!prepared.error().contains(QStringLiteral("fake-token")));
        QCOMPARE(container.requests().size(), 4);
        // NEL (U+0085) is a line break to some parsers: the same.
        QVERIFY(test::writeFile(tokenFile, "fake-token\xc2\x85X-Injected: yes"));
        BedrockProtocol nextLine(config, environment, home.path());
        prepared = nextLine.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("contains a line break")),
                 qPrintable(prepared.error()));
        QCOMPARE(container.requests().size(), 4);

        // A full URI the SDKs would not ask (plain http to another host) is refused before any request.
        QVERIFY(test::writeFile(tokenFile, "fake-pod-identity-token\n"));
        environment.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
                           QStringLiteral("http://192.0.2.10/v1/credentials?id=private"));
        BedrockProtocol refused(config, environment, home.path());
        prepared = refused.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI names "
                                                          "http://192.0.2.10, which Keen does not ask")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("private")));
        QCOMPARE(container.requests().size(), 4);
    }

    // A profile with role_arn and credential_source = EcsContainer was refused as unsupported: the
    // container's keys now ask STS for the role, and the role's keys sign.
    void ecsContainerRoleGivesTheRolesKeys()
    {
        QTemporaryDir home;
        FakeProviderServer container;
        FakeProviderServer sts;
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile dev]\nrole_arn = arn:aws:iam::111122223333:role/Bedrock\n"
                                "credential_source = EcsContainer\nregion = us-west-2\n"));
        const QByteArray expires =
            QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate).toUtf8();
        container.enqueue(FakeProviderServer::jsonResponse(
            200, "{\"AccessKeyId\": \"ASIACONTAINER\", \"SecretAccessKey\": \"fake-container-secret\", "
                 "\"Token\": \"container-token\", \"Expiration\": \"" +
                     expires + "\"}"));
        sts.enqueue(stsRoleAnswer("ASIADEV"));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_ENDPOINT_URL_STS"), sts.baseUrl().toString());
        environment.insert(QStringLiteral("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
                           container.baseUrl().toString() + QStringLiteral("/task"));
        environment.insert(QStringLiteral("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
                           QStringLiteral("fake-ecs-token"));
        ClientConfig config = sigV4Config(QStringLiteral("dev"));
        BedrockProtocol protocol(config, environment, home.path());
        Result<void> prepared = protocol.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QVERIFY(protocol.prepare(CancellationToken()).ok()); // kept
        QCOMPARE(container.requests().size(), 1);
        QCOMPARE(container.requests().first().header("authorization"), QByteArray("fake-ecs-token"));
        QCOMPARE(sts.requests().size(), 1);
        const FakeProviderServer::Request asked = sts.requests().first();
        QVERIFY(asked.body.contains("Action=AssumeRole&"));
        QVERIFY(asked.body.contains("RoleArn=arn%3Aaws%3Aiam%3A%3A111122223333%3Arole%2FBedrock"));
        QVERIFY2(asked.header("authorization").contains("Credential=ASIACONTAINER/"),
                 asked.header("authorization").constData());
        QVERIFY(asked.header("authorization").contains("/us-west-2/sts/aws4_request"));
        QCOMPARE(asked.header("x-amz-security-token"), QByteArray("container-token"));
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY(header(spec, "authorization").contains("Credential=ASIADEV/"));
        QCOMPARE(header(spec, "x-amz-security-token"), QByteArray("role-token-ASIADEV"));

        // The container's failure is the source's: named as such.
        container.enqueue(FakeProviderServer::jsonResponse(403, "{}"));
        BedrockProtocol refused(config, environment, home.path());
        prepared = refused.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("The source of the AWS profile \"dev\"")) &&
                     prepared.error().contains(QStringLiteral("answered HTTP 403.")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("fake-ecs-token")));
        QCOMPARE(sts.requests().size(), 1);
    }

    // On an EC2 instance with nothing else configured, the instance's IAM role gives the keys (IMDSv2: a
    // session token, the role's name, its keys, each asked with the token; here
    // AWS_EC2_METADATA_SERVICE_ENDPOINT points at a loopback fake). They sign until they are about to expire.
    // An instance without a role, a service that does not answer (off EC2), a token with a line break and
    // AWS_EC2_METADATA_DISABLED each end in "No AWS credentials found" saying what to set, never quoting the
    // token; a role with credential_source = Ec2InstanceMetadata asks STS with the instance's keys.
    void instanceMetadataGivesTheInstanceRolesKeys()
    {
        QTemporaryDir home;
        FakeProviderServer imds;
        const auto text = [](int status, const QByteArray &body) {
            FakeProviderServer::Response response;
            response.status = status;
            response.contentType = "text/plain";
            response.body = body;
            response.chunked = false;
            return response;
        };
        const auto keys = [](const QByteArray &key) {
            const QByteArray expires =
                QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate).toUtf8();
            return FakeProviderServer::jsonResponse(
                200, "{\"Code\": \"Success\", \"Type\": \"AWS-HMAC\", \"AccessKeyId\": \"" + key +
                         "\", \"SecretAccessKey\": \"fake-instance-secret\", \"Token\": \"instance-token-" +
                         key + "\", \"Expiration\": \"" + expires + "\"}");
        };
        imds.enqueue(text(200, "fake-imds-session-token"));
        imds.enqueue(text(200, "BedrockRole\n"));
        imds.enqueue(keys("ASIAINSTANCE"));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("AWS_EC2_METADATA_SERVICE_ENDPOINT"), imds.baseUrl().toString());
        const ClientConfig config = sigV4Config();
        BedrockProtocol protocol(config, environment, home.path());
        Result<void> prepared = protocol.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QVERIFY(protocol.prepare(CancellationToken()).ok()); // kept: they last an hour
        QCOMPARE(imds.requests().size(), 3);
        QCOMPARE(imds.requests().at(0).method, QByteArray("PUT"));
        QCOMPARE(imds.requests().at(0).path, QByteArray("/latest/api/token"));
        QCOMPARE(imds.requests().at(0).header("x-aws-ec2-metadata-token-ttl-seconds"), QByteArray("21600"));
        QCOMPARE(imds.requests().at(1).method, QByteArray("GET"));
        QCOMPARE(imds.requests().at(1).path, QByteArray("/latest/meta-data/iam/security-credentials/"));
        QCOMPARE(imds.requests().at(1).header("x-aws-ec2-metadata-token"),
                 QByteArray("fake-imds-session-token"));
        QCOMPARE(imds.requests().at(2).path,
                 QByteArray("/latest/meta-data/iam/security-credentials/BedrockRole"));
        QCOMPARE(imds.requests().at(2).header("x-aws-ec2-metadata-token"),
                 QByteArray("fake-imds-session-token"));
        const HttpRequestSpec spec =
            protocol.buildRequestAt(protocol.toNative({Message::user(QStringLiteral("hi"))}), {}, {},
                                    QDateTime::currentDateTimeUtc());
        QVERIFY2(header(spec, "authorization").contains("Credential=ASIAINSTANCE/"),
                 header(spec, "authorization").constData());
        QCOMPARE(header(spec, "x-amz-security-token"), QByteArray("instance-token-ASIAINSTANCE"));

        // An instance without a role.
        imds.enqueue(text(200, "fake-imds-session-token"));
        imds.enqueue(text(404, "Not Found"));
        BedrockProtocol noRole(config, environment, home.path());
        prepared = noRole.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(
            prepared.error().contains(QStringLiteral("No AWS credentials found: set AWS_ACCESS_KEY_ID")) &&
                prepared.error().contains(QStringLiteral("this EC2 instance has no IAM role")),
            qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("fake-imds-session-token")));

        // A session token with a line break would add a header of its own: not sent.
        imds.enqueue(text(200, "fake-token\r\nX-Injected: yes"));
        BedrockProtocol injected(config, environment, home.path());
        prepared = injected.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(prepared.error().contains(QStringLiteral("a session token Keen does not send")),
                 qPrintable(prepared.error()));
        QVERIFY(!prepared.error().contains(QStringLiteral("X-Injected")));
        QCOMPARE(imds.requests().size(), 6);

        // Off EC2: nothing answers; the error says what to set and why the last source gave nothing.
        QProcessEnvironment offEc2;
        offEc2.insert(QStringLiteral("AWS_EC2_METADATA_SERVICE_ENDPOINT"),
                      QStringLiteral("http://127.0.0.1:1"));
        BedrockProtocol laptop(config, offEc2, home.path());
        prepared = laptop.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY2(
            prepared.error().contains(QStringLiteral("No AWS credentials found: set AWS_ACCESS_KEY_ID")) &&
                prepared.error().contains(QStringLiteral("the EC2 instance metadata at http://127.0.0.1:1 "
                                                         "did not answer")),
            qPrintable(prepared.error()));
        // Turned off: not asked at all.
        environment.insert(QStringLiteral("AWS_EC2_METADATA_DISABLED"), QStringLiteral("true"));
        BedrockProtocol disabled(config, environment, home.path());
        prepared = disabled.prepare(CancellationToken());
        QVERIFY(!prepared.ok());
        QVERIFY(prepared.error().contains(QStringLiteral("No AWS credentials found")));
        QVERIFY(!prepared.error().contains(QStringLiteral("instance metadata")));
        QCOMPARE(imds.requests().size(), 6);
        environment.remove(QStringLiteral("AWS_EC2_METADATA_DISABLED"));

        // A role whose credential_source is the instance: its keys ask STS for the role.
        FakeProviderServer sts;
        QVERIFY(test::writeFile(home.filePath(QStringLiteral(".aws/config")),
                                "[profile ec2]\nrole_arn = arn:aws:iam::111122223333:role/Bedrock\n"
                                "credential_source = Ec2InstanceMetadata\nregion = us-west-2\n"));
        imds.enqueue(text(200, "fake-imds-session-token"));
        imds.enqueue(text(200, "InstanceRole"));
        imds.enqueue(keys("ASIAFORSTS"));
        sts.enqueue(stsRoleAnswer("ASIAROLE"));
        environment.insert(QStringLiteral("AWS_ENDPOINT_URL_STS"), sts.baseUrl().toString());
        BedrockProtocol role(sigV4Config(QStringLiteral("ec2")), environment, home.path());
        prepared = role.prepare(CancellationToken());
        QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
        QCOMPARE(imds.requests().size(), 9);
        QCOMPARE(sts.requests().size(), 1);
        QVERIFY(sts.requests().first().header("authorization").contains("Credential=ASIAFORSTS/"));
        const HttpRequestSpec roleSpec = role.buildRequestAt(
            role.toNative({Message::user(QStringLiteral("hi"))}), {}, {}, QDateTime::currentDateTimeUtc());
        QVERIFY(header(roleSpec, "authorization").contains("Credential=ASIAROLE/"));
    }

    void requestBodyShapeAndCachePoints()
    {
        ToolRegistry tools;
        const QJsonObject schema{
            {QStringLiteral("properties"),
             QJsonObject{{QStringLiteral("location"),
                          QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}},
            {QStringLiteral("required"), QJsonArray{QStringLiteral("location")}},
            {QStringLiteral("type"), QStringLiteral("object")}};
        tools.add(std::make_shared<FakeTool>(QStringLiteral("get_weather"),
                                             QStringLiteral("Get the weather for a location."), schema));
        const QJsonObject captured =
            jsonObject(readFixture(QStringLiteral("bedrock/tool-result-followup.request.json")));

        // Rebuild the recorded follow-up from the recorded first turn.
        const Decoded first =
            decodeBody(m_protocol, readFixture(QStringLiteral("bedrock/tool-use-claude.bin")), Split::Whole);
        QVERIFY(first.ok());
        NativeHistory history =
            m_protocol.toNative({Message::system(QStringLiteral("Be brief.")),
                                 Message::user(QStringLiteral("What is the weather in San Francisco, CA?"))});
        const int stable = int(history.messages.size()) - 1;
        for (const QJsonValue &m : m_protocol.assistantMessages(first.turn()))
            history.messages.append(m);
        for (const QJsonValue &m : m_protocol.toolResultMessages(
                 {ToolOutcome{first.turn().toolCalls.at(0), QStringLiteral("It's sunny."), false}}))
            history.messages.append(m);
        RequestContext context;
        context.stableIndex = stable;
        const QJsonObject body = jsonObject(m_protocol.buildRequest(history, tools.specs(), context).body);

        QCOMPARE(countKey(body, QStringLiteral("cachePoint")), 4);
        const QJsonObject point{
            {QStringLiteral("cachePoint"), QJsonObject{{QStringLiteral("type"), QStringLiteral("default")}}}};
        QCOMPARE(body.value(QStringLiteral("system")).toArray(),
                 (QJsonArray{QJsonObject{{QStringLiteral("text"), QStringLiteral("Be brief.")}}, point}));
        QCOMPARE(body.value(QStringLiteral("inferenceConfig")).toObject(),
                 (QJsonObject{{QStringLiteral("maxTokens"), 64000}}));
        const QJsonArray toolList =
            body.value(QStringLiteral("toolConfig"))[QStringLiteral("tools")].toArray();
        QCOMPARE(toolList.size(), 2);
        QCOMPARE(toolList.at(0),
                 captured.value(QStringLiteral("toolConfig"))[QStringLiteral("tools")].toArray().at(0));
        QCOMPARE(toolList.at(1).toObject(), point);

        const QJsonArray messages = body.value(QStringLiteral("messages")).toArray();
        const QJsonArray expected = captured.value(QStringLiteral("messages")).toArray();
        QCOMPARE(messages.size(), 3);
        auto withoutPoint = [](QJsonValue message) {
            QJsonObject object = message.toObject();
            QJsonArray content = object.value(QStringLiteral("content")).toArray();
            if (!content.isEmpty() && content.last().toObject().contains(QStringLiteral("cachePoint")))
                content.removeLast();
            object.insert(QStringLiteral("content"), content);
            return object;
        };
        QCOMPARE(messages.at(0).toObject().value(QStringLiteral("content")).toArray().last().toObject(),
                 point);
        QCOMPARE(withoutPoint(messages.at(0)), expected.at(0).toObject());
        QCOMPARE(messages.at(2).toObject().value(QStringLiteral("content")).toArray().last().toObject(),
                 point);
        QCOMPARE(withoutPoint(messages.at(2)), expected.at(2).toObject());
        // Our assistant turn also replays the text before the call; the toolUse block is the recorded one.
        const QJsonArray assistant = messages.at(1)[QStringLiteral("content")].toArray();
        QCOMPARE(assistant.size(), 2);
        QCOMPARE(assistant.at(1), expected.at(1)[QStringLiteral("content")].toArray().at(0));

        // Stored cache points from an earlier request are dropped: still four.
        NativeHistory again = history;
        again.messages = messages;
        QCOMPARE(countKey(jsonObject(m_protocol.buildRequest(again, tools.specs(), context).body),
                          QStringLiteral("cachePoint")),
                 4);
    }

    void thinkingFields_data()
    {
        QTest::addColumn<QString>("effort");
        QTest::addColumn<QJsonValue>("fields");
        QTest::newRow("unset") << QString() << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("high") << QStringLiteral("high")
                              << QJsonValue(QJsonObject{
                                     {QStringLiteral("thinking"),
                                      QJsonObject{{QStringLiteral("type"), QStringLiteral("adaptive")}}},
                                     {QStringLiteral("output_config"),
                                      QJsonObject{{QStringLiteral("effort"), QStringLiteral("high")}}}});
        QTest::newRow("max") << QStringLiteral("max")
                             << QJsonValue(QJsonObject{
                                    {QStringLiteral("thinking"),
                                     QJsonObject{{QStringLiteral("type"), QStringLiteral("adaptive")}}},
                                    {QStringLiteral("output_config"),
                                     QJsonObject{{QStringLiteral("effort"), QStringLiteral("max")}}}});
    }
    void thinkingFields()
    {
        QFETCH(QString, effort);
        QFETCH(QJsonValue, fields);
        ClientConfig config = bedrockConfig();
        config.thinkingEffort = effort;
        BedrockProtocol protocol(config, QProcessEnvironment());
        const QJsonObject body = jsonObject(
            protocol.buildRequest(protocol.toNative({Message::user(QStringLiteral("x"))}), {}, {}).body);
        QCOMPARE(body.value(QStringLiteral("additionalModelRequestFields")), fields);
    }

    void alternationAndCompaction()
    {
        TurnMemory memory;
        ToolActivity a;
        a.textOffset = 0;
        a.tool = QStringLiteral("bash");
        a.status = QStringLiteral("error");
        a.exitCode = 2;
        memory.toolActivity = {a};
        const NativeHistory native = m_protocol.toNative(
            {Message::system(QStringLiteral("S")), Message::user(QStringLiteral("u")),
             Message::assistant(QString(), memory), Message::user(QStringLiteral("summary")),
             Message::user(QStringLiteral("next"))});
        QCOMPARE(native.messages.size(), 3);
        QCOMPARE(native.messages.at(1)[QStringLiteral("content")].toArray().at(0).toObject(),
                 (QJsonObject{{QStringLiteral("toolUse"),
                               QJsonObject{{QStringLiteral("toolUseId"), QStringLiteral("historical_2_0")},
                                           {QStringLiteral("name"), QStringLiteral("bash")},
                                           {QStringLiteral("input"), QJsonObject()}}}}));
        const QJsonArray last = native.messages.at(2)[QStringLiteral("content")].toArray();
        QCOMPARE(last.size(), 3); // the result, then both user texts
        QCOMPARE(last.at(0)[QStringLiteral("toolResult")][QStringLiteral("status")].toString(),
                 QStringLiteral("error"));
        QCOMPARE(last.at(0)[QStringLiteral("toolResult")][QStringLiteral("content")]
                     .toArray()
                     .at(0)[QStringLiteral("text")]
                     .toString(),
                 QStringLiteral("{\"exit_code\":2,\"status\":\"error\"}"));
        QCOMPARE(last.at(2)[QStringLiteral("text")].toString(), QStringLiteral("next"));

        const NativeHistory rebuilt = m_protocol.rebuildAfterCompaction(
            native, {Message::system(QStringLiteral("other")), Message::user(QStringLiteral("<summary>"))});
        QCOMPARE(rebuilt.system, native.system);
        QCOMPARE(rebuilt.messages.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestBedrockProtocol)
#include "tst_bedrockprotocol.moc"
