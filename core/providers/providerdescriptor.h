#pragma once

#include <QString>
#include <QStringList>

namespace keen {

// The wire format a provider speaks; the client factory picks the protocol class from it.
enum class WireProtocol {
    AnthropicMessages, // Anthropic Messages (also MiniMax)
    OpenAiResponses,   // OpenAI Responses
    OpenAiCodex,       // Responses at the ChatGPT Codex endpoint, with the sign-in's token
    OpenAiChat,        // Chat Completions (DeepSeek, Moonshot, Z.ai, every OpenAI-compatible server)
    Gemini,            // Gemini streamGenerateContent
    Bedrock,           // Bedrock ConverseStream
};

// How a provider authenticates (reference 8.1 AuthModeForProvider).
enum class AuthMode {
    ApiKey, // a key is required
    Aws,    // Amazon Bedrock: AWS credentials; a key is optional and means bearer auth
    OAuth,  // OpenAI Codex: ChatGPT sign-in, no key
    None,   // OpenAI-compatible servers: a key is optional
};

// Where the model pickers get a provider's models.
enum class ModelListSource {
    Registry, // resources/models.json (ModelRegistry)
    Server,   // the running server's GET /models (local servers, found by the first-run probe)
    Settings, // only what settings.json lists or the person types
};

// Everything the app knows about one provider id. One table (ProviderTable) holds them all; the client
// factory, the config resolver, the key lookup, the first-run setup and the settings dialog read it.
struct ProviderDescriptor
{
    QString id;   // key in settings.json "providers", --provider
    QString name; // shown in the provider lists (translated)
    WireProtocol protocol = WireProtocol::OpenAiChat;
    // The endpoint used when settings name none. Empty where the protocol derives it (Bedrock's regional
    // endpoint) or where it must be configured (openai-compatible).
    QString defaultBaseUrl;
    AuthMode auth = AuthMode::ApiKey;
    QStringList
        keyEnvironmentVariables; // only this provider's own; openai-compatible never borrows another's
    ModelListSource models = ModelListSource::Registry;
    // The id ClientConfig carries: presets such as "ollama" are spoken to as "openai-compatible".
    QString clientId;
    bool probedLocally = false; // the first-run setup looks for it on this machine (defaultBaseUrl's port)

    bool needsKey() const { return auth == AuthMode::ApiKey; }
    // The person must name the endpoint: a Chat Completions server without a known URL (openai-compatible).
    // The other protocols derive theirs when none is set (Bedrock's regional endpoint).
    bool needsBaseUrl() const { return protocol == WireProtocol::OpenAiChat && defaultBaseUrl.isEmpty(); }
    // A key field makes sense: required, optional (servers, Bedrock's bearer token), never for the sign-in.
    bool acceptsKey() const { return auth != AuthMode::OAuth; }
    // An OpenAI-compatible endpoint with a known URL, offered instead of typing one.
    bool isPreset() const { return clientId != id; }
};

} // namespace keen
