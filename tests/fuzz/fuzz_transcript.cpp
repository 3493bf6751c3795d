// The transcript loader and its projection under any file content: no crash, no leak, seqs of loaded events
// usable, and the projected conversation maps to a provider's request (what resuming a session does).
#include "providers/openai/openaichatprotocol.h"
#include "transcriptfuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    keen::fuzz::ensureApplication();
    const std::optional<keen::LoadedSession> loaded = keen::fuzz::loadTranscript(data, size);
    if (!loaded)
        return 0;
    const keen::MessageList conversation = keen::buildConversation(loaded->events);
    static const keen::OpenAiChatProtocol protocol([] {
        keen::ClientConfig config;
        config.providerId = QStringLiteral("openai-compatible");
        config.model = QStringLiteral("fuzz");
        config.baseUrl = QStringLiteral("http://127.0.0.1:9");
        return config;
    }());
    (void)protocol.toNative(conversation);
    return 0;
}
