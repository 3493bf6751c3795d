// The Bedrock ConverseStream decoder (AWS event-stream underneath) under any body and any split: no crash, no
// leak, and a failure always says what went wrong.
#include "decoderfuzzing.h"
#include "providers/bedrock/bedrockprotocol.h"

#include <QProcessEnvironment>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    // No AWS environment: the decoder never needs credentials.
    static const keen::BedrockProtocol protocol(keen::fuzz::fuzzConfig(QStringLiteral("amazon-bedrock")),
                                                QProcessEnvironment(), QStringLiteral("/nonexistent"));
    keen::fuzz::decodeWith(protocol, data, size);
    return 0;
}
