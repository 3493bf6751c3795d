#include "providers/openai/chatchunkscanner.h"

#include <QByteArray>

#include <utility>

namespace keen {

namespace {

// Skipped values nest at most this deep; deeper ones go to the full parser.
constexpr int MaxDepth = 32;
// Skipped numbers longer than this, or with an exponent, go to the full parser (it may reject what does not
// fit a double; the chunk's "created" time has 10 digits).
constexpr int MaxNumberLength = 20;

// QString::fromUtf8 drops a byte order mark at the start. Qt's full parse reads a string without escapes
// that way too, but decodes one with escapes itself and keeps the mark (U+FEFF): this is for the latter.
QString textKeepingByteOrderMark(const char *utf8, qsizetype size)
{
    QString text = QString::fromUtf8(utf8, size);
    if (size >= 3 && uchar(utf8[0]) == 0xEF && uchar(utf8[1]) == 0xBB && uchar(utf8[2]) == 0xBF)
        text.prepend(QChar(0xFEFF));
    return text;
}

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
bool isValidUtf8(const uchar *p, const uchar *end)
{
    while (p < end) {
        const uchar lead = *p;
        if (lead < 0x80) {
            ++p;
            continue;
        }
        int trailing = 0;
        uint codePoint = 0;
        if (lead >= 0xC2 && lead <= 0xDF) {
            trailing = 1;
            codePoint = lead & 0x1F;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            trailing = 2;
            codePoint = lead & 0x0F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            trailing = 3;
            codePoint = lead & 0x07;
        } else {
            return false;
        }
        if (end - p <= trailing)
            return false;
        for (int i = 1; i <= trailing; ++i) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            codePoint = (codePoint << 6) | (p[i] & 0x3F);
        }
        if (trailing == 2 && (codePoint < 0x800 || (codePoint >= 0xD800 && codePoint <= 0xDFFF)))
            return false;
        if (trailing == 3 && (codePoint < 0x10000 || codePoint > 0x10FFFF))
            return false;
        p += trailing + 1;
    }
    return true;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendUtf8(QByteArray &out, uint codePoint)
{
    if (codePoint < 0x80) {
        out.append(char(codePoint));
    } else if (codePoint < 0x800) {
        out.append(char(0xC0 | (codePoint >> 6)));
        out.append(char(0x80 | (codePoint & 0x3F)));
    } else if (codePoint < 0x10000) {
        out.append(char(0xE0 | (codePoint >> 12)));
        out.append(char(0x80 | ((codePoint >> 6) & 0x3F)));
        out.append(char(0x80 | (codePoint & 0x3F)));
    } else {
        out.append(char(0xF0 | (codePoint >> 18)));
        out.append(char(0x80 | ((codePoint >> 12) & 0x3F)));
        out.append(char(0x80 | ((codePoint >> 6) & 0x3F)));
        out.append(char(0x80 | (codePoint & 0x3F)));
    }
}

// A position in the event's bytes. Every reader returns false (or nullopt) when the bytes are not what the
// scanner takes; the caller then gives up on the whole event.
class Cursor
{
public:
    explicit Cursor(QByteArrayView bytes)
        : m_p(bytes.data())
        , m_end(bytes.data() + bytes.size())
    {}

    bool atEndAfterSpace()
    {
        skipSpace();
        return m_p == m_end;
    }

    bool consume(char c)
    {
        skipSpace();
        if (m_p < m_end && *m_p == c) {
            ++m_p;
            return true;
        }
        return false;
    }

    bool consumeNull() { return consumeWord("null"); }

    // A key: its bytes as written (a key with an escape is not one the scanner reads or needs to).
    std::optional<QByteArrayView> key()
    {
        if (!consume('"'))
            return std::nullopt;
        const char *start = m_p;
        while (m_p < m_end && *m_p != '"') {
            if (*m_p == '\\' || uchar(*m_p) < 0x20)
                return std::nullopt;
            ++m_p;
        }
        if (m_p == m_end ||
            !isValidUtf8(reinterpret_cast<const uchar *>(start), reinterpret_cast<const uchar *>(m_p)))
            return std::nullopt;
        const QByteArrayView name(start, m_p - start);
        ++m_p;
        if (!consume(':'))
            return std::nullopt;
        return name;
    }

    // A string value; its text goes to *text when text is not null.
    bool string(QString *text)
    {
        if (!consume('"'))
            return false;
        const char *start = m_p;
        bool ascii = true;
        bool escaped = false;
        while (m_p < m_end && *m_p != '"') {
            const uchar c = uchar(*m_p);
            if (c == '\\') {
                if (m_end - m_p < 2)
                    return false;
                escaped = true;
                m_p += 2; // the escaped character cannot end the string; checked when decoding
                continue;
            }
            if (c < 0x20)
                return false;
            if (c >= 0x80)
                ascii = false;
            ++m_p;
        }
        if (m_p >= m_end)
            return false;
        const char *stop = m_p;
        ++m_p;
        if (!escaped) {
            if (ascii) {
                if (text)
                    *text = QString::fromLatin1(start, stop - start);
                return true;
            }
            if (!isValidUtf8(reinterpret_cast<const uchar *>(start), reinterpret_cast<const uchar *>(stop)))
                return false;
            if (text)
                *text = QString::fromUtf8(start, stop - start);
            return true;
        }
        QByteArray utf8;
        utf8.reserve(stop - start);
        const char *raw = start; // the start of the bytes not yet copied
        for (const char *p = start; p < stop;) {
            if (*p != '\\') {
                ++p;
                continue;
            }
            utf8.append(raw, p - raw);
            const char kind = p[1];
            p += 2;
            switch (kind) {
            case '"':
                utf8.append('"');
                break;
            case '\\':
                utf8.append('\\');
                break;
            case '/':
                utf8.append('/');
                break;
            case 'b':
                utf8.append('\b');
                break;
            case 'f':
                utf8.append('\f');
                break;
            case 'n':
                utf8.append('\n');
                break;
            case 'r':
                utf8.append('\r');
                break;
            case 't':
                utf8.append('\t');
                break;
            case 'u': {
                const int unit = hexUnit(p, stop);
                if (unit < 0)
                    return false;
                p += 4;
                uint codePoint = uint(unit);
                if (unit >= 0xDC00 && unit <= 0xDFFF)
                    return false; // a lone low surrogate
                if (unit >= 0xD800 && unit <= 0xDBFF) {
                    // Only a high surrogate escape followed by a low one: the full parser decides the rest.
                    if (stop - p < 6 || p[0] != '\\' || p[1] != 'u')
                        return false;
                    const int low = hexUnit(p + 2, stop);
                    if (low < 0xDC00 || low > 0xDFFF)
                        return false;
                    p += 6;
                    codePoint = 0x10000 + ((uint(unit) - 0xD800) << 10) + (uint(low) - 0xDC00);
                }
                appendUtf8(utf8, codePoint);
                break;
            }
            default:
                return false;
            }
            raw = p;
        }
        utf8.append(raw, stop - raw);
        // The escapes were written as valid UTF-8; the raw bytes between them are checked with them.
        if (!isValidUtf8(reinterpret_cast<const uchar *>(utf8.constData()),
                         reinterpret_cast<const uchar *>(utf8.constData() + utf8.size())))
            return false;
        if (text)
            *text = textKeepingByteOrderMark(utf8.constData(), utf8.size());
        return true;
    }

    // A string or null (null gives an empty text), nothing else.
    bool stringOrNull(QString *text)
    {
        if (consumeNull()) {
            text->clear();
            return true;
        }
        return string(text);
    }

    // Whether the next value is the number 0, written just so; anything else is for the full parser.
    bool zero()
    {
        skipSpace();
        const char *start = m_p;
        if (!number())
            return false;
        return m_p - start == 1 && *start == '0';
    }

    bool skipValue(int depth = 0)
    {
        if (depth > MaxDepth)
            return false;
        skipSpace();
        if (m_p == m_end)
            return false;
        switch (*m_p) {
        case '"':
            return string(nullptr);
        case '{':
            ++m_p;
            if (consume('}'))
                return true;
            do {
                if (!key() || !skipValue(depth + 1))
                    return false;
            } while (consume(','));
            return consume('}');
        case '[':
            ++m_p;
            if (consume(']'))
                return true;
            do {
                if (!skipValue(depth + 1))
                    return false;
            } while (consume(','));
            return consume(']');
        case 't':
            return consumeWord("true");
        case 'f':
            return consumeWord("false");
        case 'n':
            return consumeWord("null");
        default:
            return number();
        }
    }

private:
    void skipSpace()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }

    bool consumeWord(const char *word)
    {
        skipSpace();
        const char *p = m_p;
        for (; *word; ++word, ++p) {
            if (p == m_end || *p != *word)
                return false;
        }
        m_p = p;
        return true;
    }

    // -?(0|[1-9][0-9]*)(.[0-9]+)?, short; exponents are left to the full parser.
    bool number()
    {
        const char *start = m_p;
        if (m_p < m_end && *m_p == '-')
            ++m_p;
        if (m_p == m_end || *m_p < '0' || *m_p > '9')
            return false;
        if (*m_p == '0') {
            ++m_p;
        } else {
            while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
                ++m_p;
        }
        if (m_p < m_end && *m_p == '.') {
            ++m_p;
            const char *digits = m_p;
            while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
                ++m_p;
            if (m_p == digits)
                return false;
        }
        if (m_p < m_end && (*m_p == 'e' || *m_p == 'E'))
            return false;
        return m_p - start <= MaxNumberLength;
    }

    static int hexUnit(const char *p, const char *stop)
    {
        if (stop - p < 4)
            return -1;
        int unit = 0;
        for (int i = 0; i < 4; ++i) {
            const int digit = hexValue(p[i]);
            if (digit < 0)
                return -1;
            unit = unit * 16 + digit;
        }
        return unit;
    }

    const char *m_p;
    const char *m_end;
};

// The delta of choice 0: its texts, and no tool calls.
bool readDelta(Cursor &in, ChatChunkScanner::Chunk &chunk)
{
    if (!in.consume('{'))
        return false;
    QString reasoningContent, reasoning, reasoningText;
    bool seenContent = false, seenRefusal = false, seenReasoningContent = false, seenReasoning = false,
         seenReasoningText = false;
    const auto once = [](bool &seen) { return !std::exchange(seen, true); };
    if (!in.consume('}')) {
        do {
            const std::optional<QByteArrayView> key = in.key();
            if (!key)
                return false;
            bool read = true;
            if (*key == "content")
                read = once(seenContent) && in.stringOrNull(&chunk.content);
            else if (*key == "refusal")
                read = once(seenRefusal) && in.stringOrNull(&chunk.refusal);
            else if (*key == "reasoning_content")
                read = once(seenReasoningContent) && in.stringOrNull(&reasoningContent);
            else if (*key == "reasoning")
                read = once(seenReasoning) && in.stringOrNull(&reasoning);
            else if (*key == "reasoning_text")
                read = once(seenReasoningText) && in.stringOrNull(&reasoningText);
            else if (*key == "tool_calls")
                read = in.consumeNull();
            else
                read = in.skipValue();
            if (!read)
                return false;
        } while (in.consume(','));
        if (!in.consume('}'))
            return false;
    }
    chunk.reasoning = !reasoningContent.isEmpty() ? reasoningContent
                      : !reasoning.isEmpty()      ? reasoning
                                                  : reasoningText;
    return true;
}

bool readChoice(Cursor &in, ChatChunkScanner::Chunk &chunk)
{
    if (!in.consume('{'))
        return false;
    bool seenIndex = false, seenDelta = false, seenFinish = false;
    const auto once = [](bool &seen) { return !std::exchange(seen, true); };
    if (in.consume('}'))
        return true;
    do {
        const std::optional<QByteArrayView> key = in.key();
        if (!key)
            return false;
        bool read = true;
        if (*key == "index")
            read = once(seenIndex) && in.zero();
        else if (*key == "delta")
            read = once(seenDelta) && readDelta(in, chunk);
        else if (*key == "finish_reason")
            read = once(seenFinish) && in.stringOrNull(&chunk.finishReason);
        else
            read = in.skipValue();
        if (!read)
            return false;
    } while (in.consume(','));
    return in.consume('}');
}

// An empty array, or one choice.
bool readChoices(Cursor &in, ChatChunkScanner::Chunk &chunk)
{
    if (!in.consume('['))
        return false;
    if (in.consume(']'))
        return true;
    return readChoice(in, chunk) && in.consume(']');
}

} // namespace

std::optional<ChatChunkScanner::Chunk> ChatChunkScanner::scan(QByteArrayView json)
{
    Cursor in(json);
    Chunk chunk;
    if (!in.consume('{'))
        return std::nullopt;
    if (!in.consume('}')) {
        bool seenChoices = false;
        do {
            const std::optional<QByteArrayView> key = in.key();
            if (!key)
                return std::nullopt;
            bool read = true;
            if (*key == "choices")
                read = !std::exchange(seenChoices, true) && readChoices(in, chunk);
            else if (*key == "usage" || *key == "error")
                read = in.consumeNull(); // anything else there is for the full parser
            else
                read = in.skipValue();
            if (!read)
                return std::nullopt;
        } while (in.consume(','));
        if (!in.consume('}'))
            return std::nullopt;
    }
    if (!in.atEndAfterSpace())
        return std::nullopt;
    return chunk;
}

} // namespace keen
