// The AWS event-stream decoder on AWS's cross-SDK vectors, smithy-rs's vectors and recorded Bedrock streams,
// split at every offset.
#include "stream/crc32.h"
#include "stream/eventstreamdecoder.h"
#include "testenvironment.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>
#include <QTimeZone>
#include <QUuid>
#include <QtEndian>

using namespace keen;

using Decoder = EventStreamDecoder;
using Message = EventStreamDecoder::Message;
using Type = EventStreamDecoder::Header::Type;

namespace {

struct Outcome
{
    QList<Message> messages;
    bool ok = false;
    Decoder::Error error = Decoder::Error::None;
};

Outcome decodePieces(const QList<QByteArray> &pieces, qsizetype maxFrameBytes = Decoder::DefaultMaxFrameBytes)
{
    Decoder decoder(maxFrameBytes);
    Outcome outcome;
    for (const QByteArray &piece : pieces)
        outcome.messages += decoder.feed(piece);
    outcome.ok = decoder.finish();
    outcome.error = decoder.errorKind();
    return outcome;
}

QList<QByteArray> bytewise(const QByteArray &bytes)
{
    QList<QByteArray> pieces;
    for (char c : bytes)
        pieces.append(QByteArray(1, c));
    return pieces;
}

QList<QByteArray> randomPieces(const QByteArray &bytes, quint32 seed, int maxPiece)
{
    QRandomGenerator random(seed);
    QList<QByteArray> pieces;
    for (qsizetype pos = 0; pos < bytes.size();) {
        const qsizetype n = std::min<qsizetype>(random.bounded(0, maxPiece + 1), bytes.size() - pos);
        pieces.append(bytes.mid(pos, n));
        pos += n;
    }
    return pieces;
}

// A comparable description of decoded messages.
QStringList describe(const QList<Message> &messages)
{
    QStringList out;
    for (const Message &m : messages) {
        QString line;
        for (const EventStreamDecoder::Header &h : m.headers)
            line += h.name + QLatin1Char('=') + QString::number(int(h.type)) + QLatin1Char(':') +
                    h.value.toString() + QLatin1Char(';');
        out.append(line + QLatin1Char('|') + QString::fromLatin1(m.payload.toBase64()));
    }
    return out;
}

quint32 u32At(const QByteArray &bytes, qsizetype offset)
{
    return qFromBigEndian<quint32>(bytes.constData() + offset);
}

QByteArray frameWithPrelude(quint32 total, quint32 headersLength)
{
    QByteArray prelude(8, Qt::Uninitialized);
    qToBigEndian(total, prelude.data());
    qToBigEndian(headersLength, prelude.data() + 4);
    char crc[4];
    qToBigEndian(Crc32::checksum(prelude), crc);
    prelude.append(crc, 4);
    return prelude;
}

Message sampleMessage(const QString &eventType, const QByteArray &payload)
{
    Message m;
    m.headers = {{QStringLiteral(":event-type"), Type::String, eventType},
                 {QStringLiteral(":content-type"), Type::String, QStringLiteral("application/json")},
                 {QStringLiteral(":message-type"), Type::String, QStringLiteral("event")}};
    m.payload = payload;
    return m;
}

} // namespace

class TestEventStreamDecoder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void crc32KnownValues();
    void awsSdkPositive_data();
    void awsSdkPositive();
    void awsSdkNegative_data();
    void awsSdkNegative();
    void smithyValid();
    void smithyInvalid_data();
    void smithyInvalid();
    void bedrockStreams_data();
    void bedrockStreams();
    void bedrockException();
    void mergedFramesInOneRead();
    void frameSizeCap();
    void badLengths();
    void truncatedFrame();
    void errorIsSticky();
    void encodeRoundTripsEveryType();
};

void TestEventStreamDecoder::crc32KnownValues()
{
    QCOMPARE(Crc32::checksum("123456789"), 0xCBF43926u);
    QCOMPARE(Crc32::checksum(""), 0u);
    QCOMPARE(Crc32::checksum("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
    QCOMPARE(Crc32().update("12345").update("").update("6789").value(), 0xCBF43926u);
}

void TestEventStreamDecoder::awsSdkPositive_data()
{
    QTest::addColumn<QString>("name");
    for (const char *name :
         {"all_headers", "empty_message", "int32_header", "payload_no_headers", "payload_one_str_header"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestEventStreamDecoder::awsSdkPositive()
{
    QFETCH(QString, name);
    const QByteArray encoded = test::readFixture(QStringLiteral("aws/eventstream/encoded/positive/") + name);
    const QJsonObject decoded =
        QJsonDocument::fromJson(test::readFixture(QStringLiteral("aws/eventstream/decoded/positive/") + name))
            .object();
    QVERIFY(!encoded.isEmpty());
    QVERIFY(!decoded.isEmpty());

    // The frame fields the JSON describes (CRCs are written there as signed int32).
    QCOMPARE(encoded.size(), decoded.value(QStringLiteral("total_length")).toInteger());
    QCOMPARE(qint64(u32At(encoded, 4)), decoded.value(QStringLiteral("headers_length")).toInteger());
    QCOMPARE(u32At(encoded, 8), quint32(decoded.value(QStringLiteral("prelude_crc")).toInteger()));
    QCOMPARE(u32At(encoded, encoded.size() - 4),
             quint32(decoded.value(QStringLiteral("message_crc")).toInteger()));

    const Outcome whole = decodePieces({encoded});
    QVERIFY(whole.ok);
    QCOMPARE(whole.messages.size(), 1);
    const Message &message = whole.messages.first();
    QCOMPARE(message.payload,
             QByteArray::fromBase64(decoded.value(QStringLiteral("payload")).toString().toLatin1()));

    const QJsonArray headers = decoded.value(QStringLiteral("headers")).toArray();
    QCOMPARE(message.headers.size(), headers.size());
    for (qsizetype i = 0; i < headers.size(); ++i) {
        const QJsonObject want = headers.at(i).toObject();
        const EventStreamDecoder::Header &got = message.headers.at(i);
        QCOMPARE(got.name, want.value(QStringLiteral("name")).toString());
        QCOMPARE(int(got.type), want.value(QStringLiteral("type")).toInt());
        const QJsonValue value = want.value(QStringLiteral("value"));
        switch (got.type) {
        case Type::BoolTrue:
        case Type::BoolFalse:
            QCOMPARE(got.value.toBool(), value.toBool());
            break;
        case Type::Byte:
        case Type::Short:
        case Type::Integer:
        case Type::Long:
            QCOMPARE(got.value.toLongLong(), value.toInteger());
            break;
        case Type::Timestamp:
            QCOMPARE(got.value.toDateTime().toMSecsSinceEpoch(), value.toInteger());
            break;
        case Type::ByteArray:
            QCOMPARE(got.value.toByteArray(), QByteArray::fromBase64(value.toString().toLatin1()));
            break;
        case Type::String:
            QCOMPARE(got.value.toString(),
                     QString::fromUtf8(QByteArray::fromBase64(value.toString().toLatin1())));
            break;
        case Type::Uuid:
            QCOMPARE(got.value.toUuid().toRfc4122(), QByteArray::fromBase64(value.toString().toLatin1()));
            break;
        }
    }
    QCOMPARE(Decoder::encode(message), encoded);

    // Every split into two and three reads, and one byte at a time.
    const QStringList want = describe(whole.messages);
    QCOMPARE(describe(decodePieces(bytewise(encoded)).messages), want);
    for (qsizetype i = 0; i <= encoded.size(); ++i) {
        for (qsizetype j = i; j <= encoded.size(); ++j) {
            const Outcome split =
                decodePieces({encoded.first(i), encoded.sliced(i, j - i), encoded.sliced(j)});
            if (!split.ok || describe(split.messages) != want) {
                qWarning("split at %lld and %lld", qlonglong(i), qlonglong(j));
                QVERIFY(split.ok);
                QCOMPARE(describe(split.messages), want);
            }
        }
    }
}

void TestEventStreamDecoder::awsSdkNegative_data()
{
    QTest::addColumn<QString>("name");
    for (const char *name :
         {"corrupted_header_len", "corrupted_headers", "corrupted_length", "corrupted_payload"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestEventStreamDecoder::awsSdkNegative()
{
    QFETCH(QString, name);
    const QByteArray encoded = test::readFixture(QStringLiteral("aws/eventstream/encoded/negative/") + name);
    const QByteArray expected = test::readFixture(QStringLiteral("aws/eventstream/decoded/negative/") + name);
    QVERIFY(!encoded.isEmpty());
    const Decoder::Error kind = expected == "Prelude checksum mismatch"   ? Decoder::Error::PreludeChecksum
                                : expected == "Message checksum mismatch" ? Decoder::Error::MessageChecksum
                                                                          : Decoder::Error::None;
    QVERIFY2(kind != Decoder::Error::None, expected.constData());

    for (qsizetype i = 0; i <= encoded.size(); ++i) {
        const Outcome outcome = decodePieces({encoded.first(i), encoded.sliced(i)});
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.messages.isEmpty());
        QCOMPARE(outcome.error, kind);
    }

    // A corrupt length is caught from the prelude alone, without waiting for bytes that never come.
    Decoder decoder;
    qsizetype fed = 0;
    for (char c : encoded) {
        QVERIFY(decoder.feed(QByteArray(1, c)).isEmpty());
        ++fed;
        if (decoder.hasError())
            break;
    }
    QCOMPARE(decoder.errorKind(), kind);
    if (kind == Decoder::Error::PreludeChecksum)
        QCOMPARE(fed, Decoder::PreludeBytes);
    QVERIFY(!decoder.error().isEmpty());
}

void TestEventStreamDecoder::smithyValid()
{
    const QByteArray all = test::readFixture(
        QStringLiteral("aws/eventstream/smithy-rs-test_data/valid_with_all_headers_and_payload"));
    QCOMPARE(all.size(), 150);
    std::optional<Message> message = Decoder::decodeFrame(all);
    QVERIFY(message);
    QCOMPARE(message->payload, QByteArray("some payload"));
    const QList<EventStreamDecoder::Header> &h = message->headers;
    QCOMPARE(h.size(), 10);
    QCOMPARE(h.at(0).name, QStringLiteral("true"));
    QCOMPARE(h.at(0).type, Type::BoolTrue);
    QCOMPARE(h.at(0).value, QVariant(true));
    QCOMPARE(h.at(1).type, Type::BoolFalse);
    QCOMPARE(h.at(1).value, QVariant(false));
    QCOMPARE(h.at(2).type, Type::Byte);
    QCOMPARE(h.at(2).value.toInt(), 50);
    QCOMPARE(h.at(3).type, Type::Short);
    QCOMPARE(h.at(3).value.toInt(), 20000);
    QCOMPARE(h.at(4).type, Type::Integer);
    QCOMPARE(h.at(4).value.toInt(), 500000);
    QCOMPARE(h.at(5).type, Type::Long);
    QCOMPARE(h.at(5).value.toLongLong(), 50000000000LL);
    QCOMPARE(h.at(6).type, Type::ByteArray);
    QCOMPARE(h.at(6).value.toByteArray(), QByteArray("some bytes"));
    QCOMPARE(h.at(7).name, QStringLiteral("str"));
    QCOMPARE(h.at(7).type, Type::String);
    QCOMPARE(message->stringHeader(u"str"), QStringLiteral("some str"));
    QCOMPARE(h.at(8).type, Type::Timestamp);
    QCOMPARE(h.at(8).value.toDateTime().toMSecsSinceEpoch(), 5000000000LL);
    QCOMPARE(h.at(9).type, Type::Uuid);
    QCOMPARE(h.at(9).value.toUuid(), QUuid(QStringLiteral("b79bc914-de21-4e13-b8b2-bc47e85b7f0b")));
    // smithy-rs re-encodes this message from its values and expects the same bytes.
    QCOMPARE(Decoder::encode(*message), all);

    message = Decoder::decodeFrame(
        test::readFixture(QStringLiteral("aws/eventstream/smithy-rs-test_data/valid_empty_payload")));
    QVERIFY(message);
    QCOMPARE(message->headers.size(), 1);
    QCOMPARE(message->headers.first().name, QStringLiteral("some-header"));
    QCOMPARE(message->headers.first().type, Type::Short);
    QCOMPARE(message->header(u"some-header").toInt(), 500);
    QVERIFY(message->payload.isEmpty());

    message = Decoder::decodeFrame(
        test::readFixture(QStringLiteral("aws/eventstream/smithy-rs-test_data/valid_no_headers")));
    QVERIFY(message);
    QVERIFY(message->headers.isEmpty());
    QCOMPARE(message->payload, QByteArray("another test payload"));
}

void TestEventStreamDecoder::smithyInvalid_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<Decoder::Error>("expected"); // None: any rejection (these also carry a bad message CRC)
    QTest::newRow("invalid_prelude_checksum")
        << QStringLiteral("invalid_prelude_checksum") << Decoder::Error::PreludeChecksum;
    QTest::newRow("invalid_message_checksum")
        << QStringLiteral("invalid_message_checksum") << Decoder::Error::MessageChecksum;
    QTest::newRow("invalid_headers_length")
        << QStringLiteral("invalid_headers_length") << Decoder::Error::BadLength;
    for (const char *name :
         {"invalid_header_value_type", "invalid_header_name_length", "invalid_header_string_value_length",
          "invalid_header_string_length_cut_off", "invalid_header_name_length_too_long"})
        QTest::newRow(name) << QString::fromLatin1(name) << Decoder::Error::None;
}

void TestEventStreamDecoder::smithyInvalid()
{
    QFETCH(QString, name);
    QFETCH(Decoder::Error, expected);
    const QByteArray bytes = test::readFixture(QStringLiteral("aws/eventstream/smithy-rs-test_data/") + name);
    QVERIFY(!bytes.isEmpty());
    for (qsizetype i = 0; i <= bytes.size(); ++i) {
        const Outcome outcome = decodePieces({bytes.first(i), bytes.sliced(i)});
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.messages.isEmpty());
        if (expected != Decoder::Error::None)
            QCOMPARE(outcome.error, expected);
    }
    Decoder::Error kind = Decoder::Error::None;
    QString error;
    QVERIFY(!Decoder::decodeFrame(bytes, &kind, &error));
    QVERIFY(kind != Decoder::Error::None);
    QVERIFY(!error.isEmpty());
}

void TestEventStreamDecoder::bedrockStreams_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("frames");
    QTest::addColumn<bool>("everyOffset");
    QTest::newRow("text-nova") << QStringLiteral("bedrock/text-nova.bin") << 33 << true;
    QTest::newRow("tool-use-claude") << QStringLiteral("bedrock/tool-use-claude.bin") << 15 << true;
    QTest::newRow("reasoning-claude") << QStringLiteral("bedrock/reasoning-claude.bin") << 192 << false;
}

void TestEventStreamDecoder::bedrockStreams()
{
    QFETCH(QString, file);
    QFETCH(int, frames);
    QFETCH(bool, everyOffset);
    const QByteArray bytes = test::readFixture(file);
    QVERIFY(!bytes.isEmpty());

    const Outcome whole = decodePieces({bytes});
    QVERIFY(whole.ok);
    QCOMPARE(whole.messages.size(), frames);
    for (const Message &m : whole.messages) {
        QVERIFY(m.isEvent());
        QCOMPARE(m.contentType(), QStringLiteral("application/json"));
        QVERIFY(!m.eventType().isEmpty());
        QJsonParseError parseError;
        QVERIFY(QJsonDocument::fromJson(m.payload, &parseError).isObject());
    }
    // metadata follows messageStop and is the last frame.
    QCOMPARE(whole.messages.first().eventType(), QStringLiteral("messageStart"));
    QCOMPARE(whole.messages.at(frames - 2).eventType(), QStringLiteral("messageStop"));
    QCOMPARE(whole.messages.last().eventType(), QStringLiteral("metadata"));

    const QStringList want = describe(whole.messages);
    const Outcome bytesAtATime = decodePieces(bytewise(bytes));
    QVERIFY(bytesAtATime.ok);
    QCOMPARE(describe(bytesAtATime.messages), want);
    for (quint32 seed = 1; seed <= 30; ++seed) {
        const Outcome random = decodePieces(randomPieces(bytes, seed, 1 + int(seed * 37) % 400));
        QVERIFY(random.ok);
        QCOMPARE(describe(random.messages), want);
    }
    if (everyOffset) {
        for (qsizetype i = 0; i <= bytes.size(); ++i) {
            const Outcome split = decodePieces({bytes.first(i), bytes.sliced(i)});
            if (!split.ok || split.messages.size() != frames) {
                qWarning("split at %lld", qlonglong(i));
                QVERIFY(split.ok);
                QCOMPARE(split.messages.size(), frames);
            }
            QCOMPARE(describe(split.messages), want);
        }
    }
    // Cut anywhere inside: the messages before the cut survive, the rest is reported as truncated.
    const Outcome cut = decodePieces({bytes.first(bytes.size() - 1)});
    QVERIFY(!cut.ok);
    QCOMPARE(cut.error, Decoder::Error::Truncated);
    QCOMPARE(cut.messages.size(), frames - 1);
}

void TestEventStreamDecoder::bedrockException()
{
    const QByteArray bytes = test::readFixture(QStringLiteral("bedrock/exception-service-unavailable.bin"));
    QCOMPARE(bytes.size(), 177);
    for (qsizetype i = 0; i <= bytes.size(); ++i) {
        const Outcome outcome = decodePieces({bytes.first(i), bytes.sliced(i)});
        QVERIFY(outcome.ok);
        QCOMPARE(outcome.messages.size(), 1);
        const Message &m = outcome.messages.first();
        QVERIFY(m.isException());
        QVERIFY(!m.isEvent());
        QCOMPARE(m.messageType(), QStringLiteral("exception"));
        QCOMPARE(m.exceptionType(), QStringLiteral("serviceUnavailableException"));
        QCOMPARE(QJsonDocument::fromJson(m.payload).object().value(QStringLiteral("message")).toString(),
                 QStringLiteral("Bedrock is unable to process your request."));
    }
}

void TestEventStreamDecoder::mergedFramesInOneRead()
{
    QByteArray all;
    int count = 0;
    for (const char *name :
         {"all_headers", "empty_message", "int32_header", "payload_no_headers", "payload_one_str_header"}) {
        all += test::readFixture(QStringLiteral("aws/eventstream/encoded/positive/") +
                                 QString::fromLatin1(name));
        ++count;
    }
    all += test::readFixture(QStringLiteral("bedrock/tool-use-claude.bin"));
    count += 15;
    const Outcome merged = decodePieces({all});
    QVERIFY(merged.ok);
    QCOMPARE(merged.messages.size(), count);
    for (quint32 seed = 100; seed < 110; ++seed)
        QCOMPARE(describe(decodePieces(randomPieces(all, seed, 97)).messages), describe(merged.messages));
}

void TestEventStreamDecoder::frameSizeCap()
{
    // A prelude (with a correct CRC) announcing 100 MiB is refused at once, before any of it is buffered.
    Decoder decoder;
    QVERIFY(decoder.feed(frameWithPrelude(100 * 1024 * 1024, 0)).isEmpty());
    QCOMPARE(decoder.errorKind(), Decoder::Error::FrameTooLarge);

    // A smaller cap applies to real frames too.
    const QByteArray frame =
        Decoder::encode(sampleMessage(QStringLiteral("contentBlockDelta"), QByteArray(200, 'x')));
    QCOMPARE(decodePieces({frame}, 100).error, Decoder::Error::FrameTooLarge);
    QVERIFY(decodePieces({frame}, frame.size()).ok);
}

void TestEventStreamDecoder::badLengths()
{
    QCOMPARE(decodePieces({frameWithPrelude(15, 0) + QByteArray(3, '\0')}).error, Decoder::Error::BadLength);
    QCOMPARE(decodePieces({frameWithPrelude(100, 85) + QByteArray(88, '\0')}).error,
             Decoder::Error::BadLength);
    // headers_length that fits exactly is fine as far as lengths go (the message CRC then fails).
    QCOMPARE(decodePieces({frameWithPrelude(100, 84) + QByteArray(88, '\0')}).error,
             Decoder::Error::MessageChecksum);
}

void TestEventStreamDecoder::truncatedFrame()
{
    const QByteArray frame =
        Decoder::encode(sampleMessage(QStringLiteral("messageStop"), "{\"stopReason\":\"end_turn\"}"));
    for (qsizetype cut = 1; cut < frame.size(); ++cut) {
        const Outcome outcome = decodePieces({frame.first(cut)});
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.error, Decoder::Error::Truncated);
        QVERIFY(outcome.messages.isEmpty());
    }
    QVERIFY(decodePieces({}).ok); // an empty body is not truncated
}

void TestEventStreamDecoder::errorIsSticky()
{
    const QByteArray good =
        Decoder::encode(sampleMessage(QStringLiteral("messageStart"), "{\"role\":\"assistant\"}"));
    QByteArray bad = good;
    bad[bad.size() - 5] = 'X'; // inside the payload: the message CRC fails
    Decoder decoder;
    QCOMPARE(decoder.feed(good).size(), 1);
    QVERIFY(decoder.feed(bad).isEmpty());
    QCOMPARE(decoder.errorKind(), Decoder::Error::MessageChecksum);
    QVERIFY(decoder.feed(good).isEmpty());
    QVERIFY(!decoder.finish());
}

void TestEventStreamDecoder::encodeRoundTripsEveryType()
{
    Message m;
    m.headers = {
        {QStringLiteral("t"), Type::BoolTrue, true},
        {QStringLiteral("f"), Type::BoolFalse, false},
        {QStringLiteral("b"), Type::Byte, -7},
        {QStringLiteral("s"), Type::Short, -300},
        {QStringLiteral("i"), Type::Integer, -70000},
        {QStringLiteral("l"), Type::Long, qlonglong(-1) << 40},
        {QStringLiteral("bytes"), Type::ByteArray, QByteArray("\0\1\2", 3)},
        {QStringLiteral("str \u00e9"), Type::String, QStringLiteral("\U0001F600 text")},
        {QStringLiteral("time"), Type::Timestamp,
         QDateTime::fromMSecsSinceEpoch(1700000000123, QTimeZone::utc())},
        {QStringLiteral("uuid"), Type::Uuid, QUuid(QStringLiteral("b79bc914-de21-4e13-b8b2-bc47e85b7f0b"))},
    };
    m.payload = "payload";
    const QByteArray frame = Decoder::encode(m);
    const std::optional<Message> back = Decoder::decodeFrame(frame);
    QVERIFY(back);
    QCOMPARE(describe({*back}), describe({m}));
    QCOMPARE(back->header(u"time").toDateTime().toMSecsSinceEpoch(), 1700000000123);
    QVERIFY(!back->header(u"missing").isValid());
}

QTEST_GUILESS_MAIN(TestEventStreamDecoder)
#include "tst_eventstreamdecoder.moc"
