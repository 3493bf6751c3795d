#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

// How a provider authenticates (reference 8.1 AuthModeForProvider).
enum class AuthMode {
    ApiKey, // a key is required
    Aws,    // Amazon Bedrock: AWS credentials; a key is optional and means bearer auth
    OAuth,  // OpenAI Codex: ChatGPT sign-in, no key
    None,   // OpenAI-compatible servers: a key is optional
};

// A ready-made OpenAI Chat Completions-compatible endpoint the user can pick instead of typing a base URL.
struct ProviderPreset
{
    QString id;             // key in settings.json "providers"
    QString name;           // shown in the provider list
    QString baseUrl;        // default base URL
    QString clientProvider; // the provider id the client factory routes on
    AuthMode auth = AuthMode::None;
};

// Static facts about provider ids that are not in the model registry data: default endpoints, the auth each
// needs, which environment variables hold its key, and the OpenAI-compatible presets.
class ProviderPresets
{
public:
    static const QList<ProviderPreset> &all();
    static std::optional<ProviderPreset> find(const QString &id);

    // The endpoint used when settings name none; empty where the client picks it (Bedrock's regional
    // endpoint) or where it must be configured (openai-compatible).
    static QString defaultBaseUrl(const QString &providerId);
    static AuthMode authMode(const QString &providerId);
    // The id ClientConfig carries: presets such as "ollama" are spoken to by the openai-compatible client.
    // Ids that are neither built in nor presets are custom OpenAI-compatible servers.
    static QString clientProvider(const QString &providerId);
    // The environment variables that hold a key for exactly this provider (openai-compatible has none, so it
    // never borrows another provider's key).
    static QStringList keyEnvironmentVariables(const QString &providerId);
    // True for ids the app knows without settings (registry providers and presets).
    static bool isKnown(const QString &providerId);
};

} // namespace keen
