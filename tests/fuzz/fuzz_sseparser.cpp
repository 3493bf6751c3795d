// The SSE parser under any bytes and any split: no crash, no leak, events never larger than the cap.
#include "fuzzsupport.h"
#include "stream/sseparser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    // A small cap, so the fuzzer reaches the over-the-cap paths with small inputs.
    constexpr qsizetype cap = 4096;
    keen::SseParser parser(cap);
    qsizetype events = 0;
    const auto check = [&](const QList<keen::SseParser::Event> &batch) {
        for (const keen::SseParser::Event &event : batch) {
            if (event.data.size() > cap)
                __builtin_trap();
            ++events;
        }
    };
    keen::fuzz::feedInPieces(data, size, [&](const QByteArray &piece) {
        check(parser.feed(piece));
        return !parser.hasError();
    });
    check(parser.finish());
    if (parser.hasError() && parser.error().isEmpty())
        __builtin_trap();
    return 0;
}
