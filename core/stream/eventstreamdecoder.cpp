#include "stream/eventstreamdecoder.h"

#include "stream/crc32.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QStringDecoder>
#include <QTimeZone>
#include <QUuid>
#include <QtEndian>

namespace keen {

namespace {

quint32 readU32(QByteArrayView bytes, qsizetype offset)
{
    return qFromBigEndian<quint32>(bytes.data() + offset);
}

void appendU32(QByteArray &out, quint32 value)
{
    char bytes[4];
    qToBigEndian(value, bytes);
    out.append(bytes, 4);
}

template<typename T> void appendBigEndian(QByteArray &out, T value)
{
    char bytes[sizeof(T)];
    qToBigEndian(value, bytes);
    out.append(bytes, sizeof(T));
}

// Reads the header block; a header that runs past the block, an unknown type or a name that is not UTF-8
// fails.
bool parseHeaders(QByteArrayView block, QList<EventStreamDecoder::Header> &out, QString &error)
{
    using Type = EventStreamDecoder::Header::Type;
    qsizetype pos = 0;
    const qsizetype size = block.size();
    auto need = [&](qsizetype n) {
        if (size - pos >= n)
            return true;
        error = QCoreApplication::translate("keen::EventStreamDecoder",
                                            "An event-stream header runs past the end of its block.");
        return false;
    };

    while (pos < size) {
        const quint8 nameLength = quint8(block.at(pos++));
        if (nameLength == 0) {
            error = QCoreApplication::translate("keen::EventStreamDecoder",
                                                "An event-stream header has an empty name.");
            return false;
        }
        if (!need(nameLength + 1))
            return false;
        QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        EventStreamDecoder::Header header;
        header.name = utf8(block.sliced(pos, nameLength));
        if (utf8.hasError()) {
            error = QCoreApplication::translate("keen::EventStreamDecoder",
                                                "An event-stream header name is not valid UTF-8.");
            return false;
        }
        pos += nameLength;
        const quint8 type = quint8(block.at(pos++));
        switch (type) {
        case quint8(Type::BoolTrue):
        case quint8(Type::BoolFalse):
            header.value = type == quint8(Type::BoolTrue);
            break;
        case quint8(Type::Byte):
            if (!need(1))
                return false;
            header.value = int(qint8(block.at(pos)));
            pos += 1;
            break;
        case quint8(Type::Short):
            if (!need(2))
                return false;
            header.value = int(qFromBigEndian<qint16>(block.data() + pos));
            pos += 2;
            break;
        case quint8(Type::Integer):
            if (!need(4))
                return false;
            header.value = int(qFromBigEndian<qint32>(block.data() + pos));
            pos += 4;
            break;
        case quint8(Type::Long):
            if (!need(8))
                return false;
            header.value = qlonglong(qFromBigEndian<qint64>(block.data() + pos));
            pos += 8;
            break;
        case quint8(Type::Timestamp):
            if (!need(8))
                return false;
            header.value =
                QDateTime::fromMSecsSinceEpoch(qFromBigEndian<qint64>(block.data() + pos), QTimeZone::utc());
            pos += 8;
            break;
        case quint8(Type::ByteArray):
        case quint8(Type::String): {
            if (!need(2))
                return false;
            const quint16 length = qFromBigEndian<quint16>(block.data() + pos);
            pos += 2;
            if (!need(length))
                return false;
            const QByteArrayView bytes = block.sliced(pos, length);
            pos += length;
            if (type == quint8(Type::ByteArray)) {
                header.value = bytes.toByteArray();
            } else {
                QStringDecoder valueDecoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
                header.value = QString(valueDecoder(bytes));
                if (valueDecoder.hasError()) {
                    error = QCoreApplication::translate("keen::EventStreamDecoder",
                                                        "An event-stream string header is not valid UTF-8.");
                    return false;
                }
            }
            break;
        }
        case quint8(Type::Uuid):
            if (!need(16))
                return false;
            header.value = QUuid::fromRfc4122(block.sliced(pos, 16));
            pos += 16;
            break;
        default:
            error = QCoreApplication::translate("keen::EventStreamDecoder",
                                                "An event-stream header has the unknown value type %1.")
                        .arg(type);
            return false;
        }
        header.type = Type(type);
        out.append(std::move(header));
    }
    return true;
}

} // namespace

QVariant EventStreamDecoder::Message::header(QStringView name) const
{
    for (const Header &h : headers) {
        if (h.name == name)
            return h.value;
    }
    return {};
}

QString EventStreamDecoder::Message::stringHeader(QStringView name) const
{
    return header(name).toString();
}

EventStreamDecoder::EventStreamDecoder(qsizetype maxFrameBytes)
    : m_maxFrameBytes(std::max(maxFrameBytes, MinimumFrameBytes))
{}

QList<EventStreamDecoder::Message> EventStreamDecoder::feed(const QByteArray &bytes)
{
    QList<Message> out;
    if (hasError())
        return out;
    m_buffer.append(bytes);

    qsizetype pos = 0;
    while (m_buffer.size() - pos >= PreludeBytes) {
        const QByteArrayView rest = QByteArrayView(m_buffer).sliced(pos);
        if (m_checkedFrameBytes == 0) {
            const quint32 total = readU32(rest, 0);
            const quint32 headersLength = readU32(rest, 4);
            const quint32 preludeCrc = readU32(rest, 8);
            const quint32 actual = Crc32::checksum(rest.first(8));
            if (actual != preludeCrc) {
                fail(Error::PreludeChecksum,
                     QCoreApplication::translate(
                         "keen::EventStreamDecoder",
                         "Event-stream prelude checksum mismatch (expected %1, got %2).")
                         .arg(preludeCrc, 8, 16, QLatin1Char('0'))
                         .arg(actual, 8, 16, QLatin1Char('0')));
                return {};
            }
            if (total < MinimumFrameBytes || headersLength > total - MinimumFrameBytes) {
                fail(Error::BadLength,
                     QCoreApplication::translate(
                         "keen::EventStreamDecoder",
                         "Event-stream frame lengths are inconsistent (total %1, headers %2).")
                         .arg(total)
                         .arg(headersLength));
                return {};
            }
            if (qint64(total) > qint64(m_maxFrameBytes)) {
                fail(Error::FrameTooLarge,
                     QCoreApplication::translate(
                         "keen::EventStreamDecoder",
                         "Event-stream frame of %1 bytes exceeds the limit of %2 bytes.")
                         .arg(total)
                         .arg(m_maxFrameBytes));
                return {};
            }
            m_checkedFrameBytes = total;
        }
        if (rest.size() < qsizetype(m_checkedFrameBytes))
            break;

        Message message;
        QString error;
        const Error kind = parseFrame(rest.first(m_checkedFrameBytes), message, error);
        if (kind != Error::None) {
            fail(kind, error);
            return {};
        }
        out.append(std::move(message));
        pos += m_checkedFrameBytes;
        m_checkedFrameBytes = 0;
    }
    if (pos > 0)
        m_buffer.remove(0, pos);
    return out;
}

bool EventStreamDecoder::finish()
{
    if (hasError())
        return false;
    if (!m_buffer.isEmpty()) {
        fail(Error::Truncated,
             QCoreApplication::translate("keen::EventStreamDecoder",
                                         "The event stream ended inside a frame (%1 bytes left over).")
                 .arg(m_buffer.size()));
        return false;
    }
    return true;
}

std::optional<EventStreamDecoder::Message> EventStreamDecoder::decodeFrame(QByteArrayView frame,
                                                                           Error *errorKind, QString *error)
{
    EventStreamDecoder decoder(std::max(frame.size(), DefaultMaxFrameBytes));
    QList<Message> messages = decoder.feed(frame.toByteArray());
    const bool clean = decoder.finish();
    if (errorKind)
        *errorKind = decoder.errorKind();
    if (error)
        *error = decoder.error();
    if (!clean || messages.size() != 1) {
        if (clean && error)
            *error = QCoreApplication::translate("keen::EventStreamDecoder",
                                                 "Expected exactly one event-stream frame.");
        if (clean && errorKind)
            *errorKind = Error::BadLength;
        return std::nullopt;
    }
    return messages.takeFirst();
}

EventStreamDecoder::Error EventStreamDecoder::parseFrame(QByteArrayView frame, Message &out, QString &error)
{
    // The prelude and lengths were checked by feed(); the message CRC covers everything before it.
    const qsizetype total = frame.size();
    const quint32 headersLength = readU32(frame, 4);
    const quint32 messageCrc = readU32(frame, total - 4);
    const quint32 actual = Crc32::checksum(frame.first(total - 4));
    if (actual != messageCrc) {
        error = QCoreApplication::translate("keen::EventStreamDecoder",
                                            "Event-stream message checksum mismatch (expected %1, got %2).")
                    .arg(messageCrc, 8, 16, QLatin1Char('0'))
                    .arg(actual, 8, 16, QLatin1Char('0'));
        return Error::MessageChecksum;
    }
    if (!parseHeaders(frame.sliced(PreludeBytes, headersLength), out.headers, error))
        return Error::BadHeader;
    const qsizetype payloadStart = PreludeBytes + headersLength;
    out.payload = frame.sliced(payloadStart, total - 4 - payloadStart).toByteArray();
    return Error::None;
}

QByteArray EventStreamDecoder::encode(const Message &message)
{
    using Type = Header::Type;
    QByteArray headers;
    for (const Header &h : message.headers) {
        const QByteArray name = h.name.toUtf8();
        headers.append(char(quint8(name.size())));
        headers.append(name);
        headers.append(char(h.type));
        switch (h.type) {
        case Type::BoolTrue:
        case Type::BoolFalse:
            break;
        case Type::Byte:
            headers.append(char(qint8(h.value.toInt())));
            break;
        case Type::Short:
            appendBigEndian(headers, qint16(h.value.toInt()));
            break;
        case Type::Integer:
            appendBigEndian(headers, qint32(h.value.toInt()));
            break;
        case Type::Long:
            appendBigEndian(headers, qint64(h.value.toLongLong()));
            break;
        case Type::Timestamp:
            appendBigEndian(headers, qint64(h.value.toDateTime().toMSecsSinceEpoch()));
            break;
        case Type::ByteArray:
        case Type::String: {
            const QByteArray bytes =
                h.type == Type::String ? h.value.toString().toUtf8() : h.value.toByteArray();
            appendBigEndian(headers, quint16(bytes.size()));
            headers.append(bytes);
            break;
        }
        case Type::Uuid:
            headers.append(h.value.toUuid().toRfc4122());
            break;
        }
    }

    QByteArray frame;
    const quint32 total = quint32(MinimumFrameBytes + headers.size() + message.payload.size());
    appendU32(frame, total);
    appendU32(frame, quint32(headers.size()));
    appendU32(frame, Crc32::checksum(frame));
    frame.append(headers);
    frame.append(message.payload);
    appendU32(frame, Crc32::checksum(frame));
    return frame;
}

void EventStreamDecoder::fail(Error kind, const QString &message)
{
    m_errorKind = kind;
    m_error = message;
    m_buffer = QByteArray();
    m_checkedFrameBytes = 0;
}

} // namespace keen
