// The AWS event-stream decoder under any bytes and any split: no crash, no leak, frames never above the cap,
// and a frame it accepts encodes back to the same bytes' meaning.
#include "fuzzsupport.h"
#include "stream/eventstreamdecoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    constexpr qsizetype cap = 64 * 1024;
    keen::EventStreamDecoder decoder(cap);
    keen::fuzz::feedInPieces(data, size, [&](const QByteArray &piece) {
        for (const keen::EventStreamDecoder::Message &message : decoder.feed(piece)) {
            if (message.payload.size() > cap)
                __builtin_trap();
            // Re-encoding and decoding a decoded message gives it back.
            const QByteArray frame = keen::EventStreamDecoder::encode(message);
            const auto again = keen::EventStreamDecoder::decodeFrame(frame);
            if (!again || again->payload != message.payload ||
                again->headers.size() != message.headers.size())
                __builtin_trap();
            (void)message.messageType();
            (void)message.eventType();
            (void)message.errorMessage();
        }
        return !decoder.hasError();
    });
    decoder.finish();
    if (size > 1)
        (void)keen::EventStreamDecoder::decodeFrame(
            QByteArrayView(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1)));
    return 0;
}
