// The OpenAI Responses stream decoder (SSE underneath) under any body and any split: no crash, no leak, and a
// failure always says what went wrong.
#include "decoderfuzzing.h"
#include "providers/openai/openairesponsesprotocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    static const keen::OpenAiResponsesProtocol protocol(keen::fuzz::fuzzConfig(QStringLiteral("openai")));
    keen::fuzz::decodeWith(protocol, data, size);
    return 0;
}
