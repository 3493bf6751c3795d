#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace keen {

// An incremental Server-Sent Events parser, correct for any split of the bytes: LF, CRLF and CR line ends
// (a CR at the end of one read and an LF at the start of the next count as one line end), several data:
// lines joined with "\n", event: names, comment lines, one optional space after the colon, UTF-8 decoded
// per complete line (so characters split across reads survive), and a final event without a trailing blank
// line (flushed by finish()). A line or event larger than the cap is an error, not an out-of-memory.
class SseParser
{
public:
    struct Event
    {
        QString event; // the event: field, empty when absent
        QString data;  // data: lines joined with "\n"
        QString id;
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
    QString m_data;
    QString m_id;
    bool m_hasData = false;
    qsizetype m_eventBytes = 0;
    QString m_error;
};

} // namespace keen
