#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QVariant>

#include <optional>

namespace keen {

// An incremental decoder of the AWS event-stream framing (application/vnd.amazon.eventstream, what Bedrock
// ConverseStream answers with). Frames may be split or merged arbitrarily across reads. Checks the prelude
// CRC as soon as 12 bytes are there (so a corrupt length never makes it wait for bytes that will not come),
// then the lengths against each other and a frame size cap, then the message CRC, then the headers.
//
// Frame: [total_length u32][headers_length u32][prelude_crc u32][headers][payload][message_crc u32], big
// endian; header := [name_len u8][name][type u8][value].
class EventStreamDecoder
{
public:
    struct Header
    {
        // The wire value types 0-9.
        enum class Type : quint8 {
            BoolTrue = 0,
            BoolFalse = 1,
            Byte = 2,      // value: int
            Short = 3,     // value: int
            Integer = 4,   // value: int
            Long = 5,      // value: qlonglong
            ByteArray = 6, // value: QByteArray
            String = 7,    // value: QString (UTF-8 on the wire)
            Timestamp = 8, // value: QDateTime in UTC, milliseconds since the epoch on the wire
            Uuid = 9,      // value: QUuid
        };

        QString name;
        Type type = Type::String;
        QVariant value; // bool for the two bool types
    };

    struct Message
    {
        QList<Header> headers; // in wire order
        QByteArray payload;

        // The value of the first header with that name, or an invalid QVariant.
        QVariant header(QStringView name) const;
        // The header as text (empty when absent).
        QString stringHeader(QStringView name) const;

        QString messageType() const { return stringHeader(u":message-type"); } // event | exception | error
        QString eventType() const
        {
            return stringHeader(u":event-type");
        } // messageStart, contentBlockDelta...
        QString exceptionType() const { return stringHeader(u":exception-type"); } // throttlingException...
        QString contentType() const { return stringHeader(u":content-type"); }
        QString errorCode() const { return stringHeader(u":error-code"); }       // for :message-type error
        QString errorMessage() const { return stringHeader(u":error-message"); } // for :message-type error
        bool isEvent() const { return messageType() == u"event"; }
        bool isException() const { return messageType() == u"exception"; }
        bool isError() const { return messageType() == u"error"; }
    };

    enum class Error {
        None,
        PreludeChecksum, // the prelude CRC does not match (a corrupt length is caught here)
        MessageChecksum, // the message CRC does not match
        BadLength,       // total_length below the minimum, or headers_length larger than the frame allows
        FrameTooLarge,   // total_length above the cap
        BadHeader,       // a header runs past its block, has an unknown type or a name that is not UTF-8
        Truncated,       // the body ended inside a frame
    };

    // AWS limits a message to 16 MiB (and its headers to 128 KiB).
    static constexpr qsizetype DefaultMaxFrameBytes = 16 * 1024 * 1024;
    static constexpr qsizetype PreludeBytes = 12;
    static constexpr qsizetype MinimumFrameBytes = 16;

    explicit EventStreamDecoder(qsizetype maxFrameBytes = DefaultMaxFrameBytes);

    // Appends bytes and returns the messages they completed. After an error it returns nothing more.
    QList<Message> feed(const QByteArray &bytes);
    // End of the body: false (and Truncated) when it ended inside a frame.
    bool finish();

    bool hasError() const { return m_errorKind != Error::None; }
    Error errorKind() const { return m_errorKind; }
    QString error() const { return m_error; }

    // Decodes exactly one whole frame (convenient for tests and single frames).
    static std::optional<Message> decodeFrame(QByteArrayView frame, Error *errorKind = nullptr,
                                              QString *error = nullptr);
    // Encodes a message into one frame with both CRCs; the fake provider and the tests use it.
    static QByteArray encode(const Message &message);

private:
    static Error parseFrame(QByteArrayView frame, Message &out, QString &error);
    void fail(Error kind, const QString &message);

    qsizetype m_maxFrameBytes;
    QByteArray m_buffer;             // bytes of the frame(s) not yet complete
    quint32 m_checkedFrameBytes = 0; // total_length of the frame at the front, once its prelude passed
    Error m_errorKind = Error::None;
    QString m_error;
};

} // namespace keen
