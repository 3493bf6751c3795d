// The Gemini stream decoder (SSE underneath) under any body and any split: no crash, no leak, and a
// failure always says what went wrong.
#include "decoderfuzzing.h"
#include "providers/gemini/geminiprotocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    static const keen::GeminiProtocol protocol(keen::fuzz::fuzzConfig(QStringLiteral("googleai")));
    keen::fuzz::decodeWith(protocol, data, size);
    return 0;
}
