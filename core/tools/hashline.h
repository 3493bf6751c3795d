#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

namespace keen {

// Hash-anchored lines (reference 2.2): read_file shows every line as `N:HASH|text`, where HASH is the first
// three hex digits of the FNV-1a-32 hash of the raw line, and edit_file addresses lines as "N:HASH" so an
// edit made against a stale view of the file is refused instead of landing on the wrong line.
class Hashline
{
public:
    static quint32 fnv1a32(QByteArrayView bytes);
    // Three lower-case hex digits.
    static QString hash(QByteArrayView rawLine);

    // Splits on '\n' and drops one trailing '\r' per line (CRLF files); a final newline does not start an
    // extra empty line. The lines keep their raw bytes otherwise.
    static QList<QByteArray> splitLines(const QByteArray &content);

    // "12:abc" -> {12, "abc"}; line 0 when the text is not an anchor.
    struct Anchor
    {
        int line = 0;
        QString hash;
        bool isValid() const { return line > 0 && hash.size() == 3; }
    };
    static Anchor parseAnchor(const QString &text);
};

} // namespace keen
