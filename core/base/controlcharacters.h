#pragma once

#include <QByteArray>
#include <QString>

namespace keen {

// Characters that must never reach an HTTP header (names, values, keys): C0 controls except tab, DEL, the
// C1 controls U+0080 to U+009F (NEL, U+0085, is a line break to some parsers) and the line and paragraph
// separators U+2028 and U+2029. A header with one would be cut into another header somewhere on its way, or
// sent MIME-encoded as something the person never typed.
class ControlCharacters
{
public:
    ControlCharacters() = delete;

    static bool isControl(char32_t c);
    static bool in(const QString &text);
    // The same check on UTF-8 bytes, as headers are sent.
    static bool inUtf8(const QByteArray &bytes);
};

} // namespace keen
