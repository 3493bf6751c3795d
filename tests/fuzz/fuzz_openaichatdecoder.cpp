// The OpenAI Chat Completions stream decoder (SSE underneath) under any body and any split: no crash, no
// leak, and a failure always says what went wrong.
#include "decoderfuzzing.h"
#include "providers/openai/openaichatprotocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    static const keen::OpenAiChatProtocol protocol(
        keen::fuzz::fuzzConfig(QStringLiteral("openai-compatible")));
    keen::fuzz::decodeWith(protocol, data, size);
    return 0;
}
