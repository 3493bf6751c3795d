#pragma once

#include <QByteArray>

namespace keen {

// Tells a stream of events from a whole document by the first bytes of a successful reply's body. A server
// that ignores "stream": true answers with the complete response as JSON, and a wrong base_url often reaches
// a web page: fed to a stream decoder, either is read as no events at all and reported as a stream that
// ended early (and retried). An SSE stream starts with a field name, a comment or a blank line, and an AWS
// event stream with a binary length, never with '{', '[' or '<': those bodies are kept whole instead.
class ReplyBodySniffer
{
public:
    // A document larger than this is not kept (the reply is then reported as too large to read).
    explicit ReplyBodySniffer(qsizetype maxDocumentBytes);

    // The bytes for the stream decoder: nothing while only white space has come (it is held back until the
    // shape is known) or when the body is a document, which is kept instead.
    QByteArray take(const QByteArray &bytes);

    bool isDocument() const { return m_shape == Shape::Document; }
    bool documentTooLarge() const { return m_documentTooLarge; }
    // The whole body when it is a document (up to the limit).
    const QByteArray &document() const { return m_document; }
    // The body's first bytes, whatever its shape, for an error message.
    const QByteArray &head() const { return m_head; }

    // Whether a reply is a stream of events by its Content-Type (parameters and case ignored) or, for a
    // server that labels its stream wrongly, by its first line (an SSE field or comment). An empty body is
    // not judged: it says nothing either way.
    static bool looksLikeEventStream(const QByteArray &contentType, const QByteArray &head);
    // "text/event-stream" of "Text/Event-Stream; charset=utf-8".
    static QByteArray mediaType(const QByteArray &contentType);

    static constexpr qsizetype HeadBytes = 512;

private:
    enum class Shape { Unknown, Stream, Document };

    qsizetype m_maxDocumentBytes;
    Shape m_shape = Shape::Unknown;
    QByteArray m_heldBack; // leading white space, before the shape is known
    QByteArray m_document;
    QByteArray m_head;
    bool m_documentTooLarge = false;
};

} // namespace keen
