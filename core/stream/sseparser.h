#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>

namespace keen {

// An incremental Server-Sent Events parser, correct for any split of the bytes: LF, CRLF and CR line ends
// (a CR at the end of one read and an LF at the start of the next count as one line end), several data:
// lines joined with "\n", event: names, comment lines, one optional space after the colon, and a final event
// without a trailing blank line (flushed by finish()). A line or event larger than the cap is an error, not
// an out-of-memory. Event data stays the UTF-8 bytes the server sent: every provider's data is JSON, which
// the decoders parse from bytes, so decoding it to UTF-16 first would only be converted back (twice the work
// per event on a 7-character chunk). The decoders take each event as it completes (feed with a handler): an
// event whose one data line sits whole in the bytes being fed is not copied at all.
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

    // Called with each event as it completes, in order. The event is valid during the call only: its data may
    // point into the bytes being fed.
    using EventHandler = std::function<void(const Event &event)>;

    // Appends bytes and hands on the events they completed. After an error nothing more is handed on.
    void feed(const QByteArray &bytes, const EventHandler &handler);
    // End of the body: hands on a pending event that had no trailing blank line.
    void finish(const EventHandler &handler);

    // The same, returning copies of the events (for callers that keep them).
    QList<Event> feed(const QByteArray &bytes);
    QList<Event> finish();

    bool hasError() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

private:
    // inInput: the line lies in the bytes being fed (valid until feed returns), not in a buffer of this
    // parser.
    void processLine(QByteArrayView line, bool inInput, const EventHandler &handler);
    void dispatch(const EventHandler &handler);
    void keepDataView(); // copies data still pointing into the input, before the input goes away
    bool checkEventSize();
    void fail(const QString &message);

    qsizetype m_maxEventBytes;
    QByteArray m_buffer;          // bytes not yet forming a complete line
    bool m_skipLeadingLf = false; // the previous read ended in CR
    bool m_atStart = true;        // no line seen yet, so a UTF-8 byte order mark is still dropped
    QString m_eventName;
    QByteArray m_data;
    QByteArrayView m_dataView; // the event's one data line, still in the input (m_data is empty then)
    QString m_id;
    bool m_hasData = false;
    qsizetype m_eventBytes = 0;
    QString m_error;
};

} // namespace keen

// Moved by memcpy when the list of one read's events grows: all three members are relocatable.
Q_DECLARE_TYPEINFO(keen::SseParser::Event, Q_RELOCATABLE_TYPE);
