#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace keen {

// An incremental Server-Sent Events parser, correct for any split of the bytes: LF, CRLF and CR line ends
// (a CR at the end of one read and an LF at the start of the next count as one line end), several data:
// lines joined with "\n", event: names, comment lines, one optional space after the colon, and a final event
// without a trailing blank line (flushed by finish()). A line or event larger than the cap is an error, not
// an out-of-memory. Event data stays the UTF-8 bytes the server sent: every provider's data is JSON, which
// the decoders parse from bytes, so decoding it to UTF-16 first would only be converted back (twice the work
// per event on a 7-character chunk).
class SseParser
{
public:
    struct Event
    {
        QString event;   // the event: field, empty when absent
        QByteArray data; // data: lines joined with "\n", UTF-8 as sent (whole lines, so no split character)
        QString id;

        // The data as text, for messages and tests (invalid UTF-8 becomes U+FFFD).
        QString text() const { return QString::fromUtf8(data); }
    };

    static constexpr qsizetype DefaultMaxEventBytes = 16 * 1024 * 1024;

    explicit SseParser(qsizetype maxEventBytes = DefaultMaxEventBytes);

    // Appends bytes and returns the events they completed. After an error it returns nothing more.
    QList<Event> feed(const QByteArray &bytes);
    // End of the body: dispatches a pending event that had no trailing blank line.
    QList<Event> finish();

    bool hasError() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

private:
    void processLine(const QByteArray &line, QList<Event> &out);
    void dispatch(QList<Event> &out);
    bool checkEventSize();
    void fail(const QString &message);

    qsizetype m_maxEventBytes;
    QByteArray m_buffer;          // bytes not yet forming a complete line
    bool m_skipLeadingLf = false; // the previous read ended in CR
    bool m_atStart = true;        // no line seen yet, so a UTF-8 byte order mark is still dropped
    QString m_eventName;
    QByteArray m_data;
    QString m_id;
    bool m_hasData = false;
    qsizetype m_eventBytes = 0;
    QString m_error;
};

} // namespace keen

// Moved by memcpy when the list of one read's events grows: all three members are relocatable.
Q_DECLARE_TYPEINFO(keen::SseParser::Event, Q_RELOCATABLE_TYPE);
