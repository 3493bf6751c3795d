#include "stream/sseparser.h"

#include <QCoreApplication>

#include <algorithm>
#include <utility>

namespace keen {

namespace {

// The UTF-8 byte order mark, which the SSE specification strips once at the start of a stream.
constexpr char Bom[] = "\xEF\xBB\xBF";
constexpr qsizetype BomSize = 3;

} // namespace

SseParser::SseParser(qsizetype maxEventBytes)
    : m_maxEventBytes(std::max<qsizetype>(maxEventBytes, 1))
{}

void SseParser::feed(const QByteArray &bytes, const EventHandler &handler)
{
    if (hasError() || bytes.isEmpty())
        return;

    const char *const begin = bytes.constData();
    const char *const end = begin + bytes.size();
    const char *pos = begin;

    if (m_skipLeadingLf) {
        // The previous read ended in CR; an LF right after it belongs to the same line end.
        m_skipLeadingLf = false;
        if (*pos == '\n')
            ++pos;
    }

    while (pos < end && !hasError()) {
        const char *lineEnd = std::find_if(pos, end, [](char c) { return c == '\r' || c == '\n'; });
        if (lineEnd == end) {
            // No line end yet: keep the tail, but never let a single line grow past the cap, so a
            // server that never ends its line costs at most the cap plus one read.
            const qsizetype tail = end - pos;
            if (m_buffer.size() + tail > m_maxEventBytes) {
                fail(QCoreApplication::translate("keen::SseParser",
                                                 "The server sent a stream line longer than %1 bytes.")
                         .arg(m_maxEventBytes));
                break;
            }
            m_buffer.append(pos, tail);
            break;
        }

        const qsizetype length = lineEnd - pos;
        if (m_buffer.size() + length > m_maxEventBytes) {
            fail(QCoreApplication::translate("keen::SseParser",
                                             "The server sent a stream line longer than %1 bytes.")
                     .arg(m_maxEventBytes));
            break;
        }
        if (m_buffer.isEmpty()) {
            processLine(QByteArrayView(pos, length), true, handler);
        } else {
            m_buffer.append(pos, length);
            const QByteArray line = std::exchange(m_buffer, QByteArray());
            processLine(line, false, handler);
        }

        pos = lineEnd + 1;
        if (*lineEnd == '\r') {
            if (pos == end)
                m_skipLeadingLf = true;
            else if (*pos == '\n')
                ++pos;
        }
    }
    keepDataView(); // the next read's blank line may dispatch it
}

void SseParser::finish(const EventHandler &handler)
{
    if (hasError())
        return;
    if (!m_buffer.isEmpty()) {
        const QByteArray line = std::exchange(m_buffer, QByteArray());
        processLine(line, false, handler);
    }
    if (!hasError())
        dispatch(handler);
    m_skipLeadingLf = false;
    m_atStart = true;
}

namespace {

// Collects owning copies: an event's data may point into bytes that are gone once feed returns.
SseParser::EventHandler collectInto(QList<SseParser::Event> &events)
{
    return [&events](const SseParser::Event &event) {
        events.append(
            SseParser::Event{event.event, QByteArray(event.data.constData(), event.data.size()), event.id});
    };
}

} // namespace

QList<SseParser::Event> SseParser::feed(const QByteArray &bytes)
{
    QList<Event> events;
    feed(bytes, collectInto(events));
    return hasError() ? QList<Event>() : events;
}

QList<SseParser::Event> SseParser::finish()
{
    QList<Event> events;
    finish(collectInto(events));
    return hasError() ? QList<Event>() : events;
}

void SseParser::processLine(QByteArrayView line, bool inInput, const EventHandler &handler)
{
    if (m_atStart) {
        m_atStart = false;
        if (line.startsWith(QByteArrayView(Bom, BomSize)))
            line = line.sliced(BomSize);
    }

    if (line.isEmpty()) {
        dispatch(handler);
        return;
    }
    if (line.front() == ':')
        return; // a comment, such as ": keep-alive" or ": OPENROUTER PROCESSING"

    QByteArrayView field = line;
    QByteArrayView value;
    const qsizetype colon = line.indexOf(':');
    if (colon >= 0) {
        field = line.first(colon);
        value = line.sliced(colon + 1);
        if (value.startsWith(' '))
            value = value.sliced(1);
    }

    if (field == "data") {
        // Whole lines only, so a UTF-8 character split across reads is whole again here.
        m_eventBytes += value.size() + 1;
        if (!checkEventSize())
            return;
        if (!m_hasData && inInput) {
            m_dataView = value; // the usual event: one data line, read in one piece
        } else {
            keepDataView();
            if (m_hasData)
                m_data.append('\n');
            m_data.append(value);
        }
        m_hasData = true;
    } else if (field == "event") {
        m_eventBytes += value.size();
        if (!checkEventSize())
            return;
        m_eventName = QString::fromUtf8(value);
    } else if (field == "id") {
        // The specification ignores an id that contains NUL; the last id persists across events.
        if (!value.contains('\0'))
            m_id = QString::fromUtf8(value);
    }
    // "retry" and unknown fields (including junk lines without a colon) are ignored, as the specification
    // says.
}

void SseParser::dispatch(const EventHandler &handler)
{
    // An event without data lines is not dispatched, as in the specification (an "event:" alone does
    // nothing).
    if (m_hasData) {
        const Event event{m_eventName,
                          m_dataView.data() ? QByteArray::fromRawData(m_dataView.data(), m_dataView.size())
                                            : std::exchange(m_data, QByteArray()),
                          m_id};
        m_dataView = {};
        handler(event);
    }
    m_eventName.clear();
    m_data.clear();
    m_dataView = {};
    m_hasData = false;
    m_eventBytes = 0;
}

void SseParser::keepDataView()
{
    if (m_dataView.data()) {
        m_data = m_dataView.toByteArray();
        m_dataView = {};
    }
}

bool SseParser::checkEventSize()
{
    if (m_eventBytes <= m_maxEventBytes)
        return true;
    fail(
        QCoreApplication::translate("keen::SseParser", "The server sent a stream event larger than %1 bytes.")
            .arg(m_maxEventBytes));
    return false;
}

void SseParser::fail(const QString &message)
{
    m_error = message;
    // Give the memory back right away: after an error nothing more is parsed.
    m_buffer = QByteArray();
    m_data = QByteArray();
    m_dataView = {};
    m_eventName = QString();
}

} // namespace keen
