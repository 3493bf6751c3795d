#pragma once

#include <QByteArrayView>
#include <QtGlobal>

namespace keen {

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): the checksum of zlib's crc32(), used by the AWS
// event-stream framing. Table driven, so keen_core needs no zlib of its own.
class Crc32
{
public:
    static quint32 checksum(QByteArrayView data) { return Crc32().update(data).value(); }

    // Feeds more bytes; checksum(a + b) == Crc32().update(a).update(b).value().
    Crc32 &update(QByteArrayView data);
    quint32 value() const { return ~m_state; }

private:
    quint32 m_state = 0xFFFFFFFFu;
};

} // namespace keen
