#include "base/controlcharacters.h"

#include <QStringDecoder>

namespace keen {

bool ControlCharacters::isControl(char32_t c)
{
    return (c < 0x20 && c != U'\t') || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029;
}

bool ControlCharacters::in(const QString &text)
{
    // Every character meant here is in the BMP: UTF-16 units suffice.
    for (const QChar c : text) {
        if (isControl(c.unicode()))
            return true;
    }
    return false;
}

bool ControlCharacters::inUtf8(const QByteArray &bytes)
{
    // ASCII first: most headers are, and need no decoding.
    bool ascii = true;
    for (const char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x80) {
            ascii = false;
        } else if (isControl(u)) {
            return true;
        }
    }
    if (ascii)
        return false;
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decoder(bytes);
    return in(text);
}

} // namespace keen
