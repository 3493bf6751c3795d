// The Anthropic Messages stream decoder (SSE underneath) under any body and any split: no crash, no leak, and
// a failure always says what went wrong.
#include "decoderfuzzing.h"
#include "providers/anthropic/anthropicprotocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    static const keen::AnthropicProtocol protocol(keen::fuzz::fuzzConfig(QStringLiteral("anthropic")));
    keen::fuzz::decodeWith(protocol, data, size);
    return 0;
}
