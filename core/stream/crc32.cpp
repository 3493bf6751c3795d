#include "stream/crc32.h"

#include <array>

namespace keen {

namespace {

constexpr std::array<quint32, 256> makeTable()
{
    std::array<quint32, 256> table{};
    for (quint32 i = 0; i < 256; ++i) {
        quint32 c = i;
        for (int bit = 0; bit < 8; ++bit)
            c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
        table[i] = c;
    }
    return table;
}

constexpr std::array<quint32, 256> Table = makeTable();

} // namespace

Crc32 &Crc32::update(QByteArrayView data)
{
    quint32 state = m_state;
    for (const char c : data)
        state = Table[(state ^ quint8(c)) & 0xFFu] ^ (state >> 8);
    m_state = state;
    return *this;
}

} // namespace keen
