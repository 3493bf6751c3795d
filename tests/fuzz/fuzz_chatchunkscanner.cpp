// The Chat Completions fast path (ChatChunkScanner) against the full JSON parse, on any bytes: whatever the
// scanner accepts is valid JSON that the decoder's full parse reads the same way. A difference is a crash.
// Each input is tried as a whole event, and as the inside of a content string and of a reasoning string, so
// the mutations also reach the text the scanner decodes (coverage alone does not tell a skipped string from
// one that is read).
#include "chatchunkreference.h"
#include "fuzzsupport.h"

#include <cstdio>

namespace {

void check(const QByteArray &json)
{
    const std::optional<keen::ChatChunkScanner::Chunk> scanned = keen::ChatChunkScanner::scan(json);
    if (!scanned)
        return;
    const QString mismatch = keen::test::chatChunkMismatch(json, *scanned);
    if (!mismatch.isEmpty()) {
        std::fprintf(stderr, "%s\n", qPrintable(mismatch));
        __builtin_trap();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    check(input);
    check(R"({"choices":[{"index":0,"delta":{"content":")" + input + R"("},"finish_reason":null}]})");
    check(R"({"choices":[{"delta":{"reasoning_content":")" + input + R"("}}]})");
    return 0;
}
