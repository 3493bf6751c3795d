#include "stream/replybodysniffer.h"

#include <QByteArrayView>
#include <QList>

#include <utility>

namespace keen {

namespace {

bool isWhiteSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

} // namespace

ReplyBodySniffer::ReplyBodySniffer(qsizetype maxDocumentBytes)
    : m_maxDocumentBytes(maxDocumentBytes)
{}

QByteArray ReplyBodySniffer::take(const QByteArray &bytes)
{
    if (m_head.size() < HeadBytes)
        m_head.append(bytes.left(HeadBytes - m_head.size()));
    if (m_shape == Shape::Stream)
        return bytes; // the common case: handed on without a copy
    if (m_shape == Shape::Unknown) {
        qsizetype first = 0;
        while (first < bytes.size() && isWhiteSpace(bytes.at(first)))
            ++first;
        if (first == bytes.size()) {
            m_heldBack.append(bytes);
            return {};
        }
        const char c = bytes.at(first);
        m_shape = (c == '{' || c == '[' || c == '<') ? Shape::Document : Shape::Stream;
        if (m_shape == Shape::Stream)
            return std::exchange(m_heldBack, QByteArray()) + bytes;
        m_document = std::exchange(m_heldBack, QByteArray());
    }
    if (m_document.size() + bytes.size() > m_maxDocumentBytes)
        m_documentTooLarge = true;
    else
        m_document.append(bytes);
    return {};
}

QByteArray ReplyBodySniffer::mediaType(const QByteArray &contentType)
{
    const qsizetype semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.first(semicolon)).trimmed().toLower();
}

bool ReplyBodySniffer::looksLikeEventStream(const QByteArray &contentType, const QByteArray &head)
{
    const QByteArray type = mediaType(contentType);
    if (type == "text/event-stream" || type == "application/vnd.amazon.eventstream")
        return true;
    const QByteArray start = head.trimmed();
    if (start.isEmpty())
        return true;
    if (start.startsWith(':'))
        return true; // a comment, as a keep-alive
    const qsizetype lineEnd = start.indexOf('\n');
    const QByteArray firstLine = lineEnd < 0 ? start : start.first(lineEnd);
    const qsizetype colon = firstLine.indexOf(':');
    if (colon < 0)
        return false;
    static const QList<QByteArray> fields{"data", "event", "id", "retry"};
    return fields.contains(firstLine.left(colon).trimmed());
}

} // namespace keen
