#pragma once

// Shared by the libFuzzer targets in this folder: a QCoreApplication for the whole run (Qt's translate and
// text codecs want one) and a way to cut the input into the pieces a network could deliver.

#include <QByteArray>
#include <QCoreApplication>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace keen::fuzz {

inline void ensureApplication()
{
    static int argc = 1;
    static char name[] = "keen-fuzz";
    static char *argv[] = {name, nullptr};
    static QCoreApplication *app = QCoreApplication::instance() ? nullptr : new QCoreApplication(argc, argv);
    Q_UNUSED(app);
}

// The first byte chooses the piece size (0: all at once, else 1..255 bytes); the rest is the body. Each piece
// goes to feed(); feed() returns false to stop early (a decoder that failed).
inline void feedInPieces(const uint8_t *data, size_t size,
                         const std::function<bool(const QByteArray &)> &feed)
{
    if (size == 0)
        return;
    const size_t piece = data[0] == 0 ? size : data[0];
    for (size_t offset = 1; offset < size; offset += piece) {
        const size_t length = std::min(piece, size - offset);
        if (!feed(QByteArray(reinterpret_cast<const char *>(data + offset), qsizetype(length))))
            return;
    }
}

} // namespace keen::fuzz
