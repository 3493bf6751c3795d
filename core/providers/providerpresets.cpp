#include "providers/providerpresets.h"

namespace keen {

namespace {

const QString kOpenAiCompatible = QStringLiteral("openai-compatible");

// Providers with their own client (reference 1.1 client routing).
const QStringList &builtInProviders()
{
    static const QStringList ids{
        QStringLiteral("anthropic"),
        QStringLiteral("amazon-bedrock"),
        QStringLiteral("openai"),
        QStringLiteral("openai-codex"),
        kOpenAiCompatible,
        QStringLiteral("googleai"),
        QStringLiteral("moonshotai"),
        QStringLiteral("zai"),
        QStringLiteral("deepseek"),
    };
    return ids;
}

} // namespace

const QList<ProviderPreset> &ProviderPresets::all()
{
    static const QList<ProviderPreset> presets{
        {QStringLiteral("ollama"), QStringLiteral("Ollama"), QStringLiteral("http://localhost:11434/v1"),
         kOpenAiCompatible, AuthMode::None},
        {QStringLiteral("llamacpp"), QStringLiteral("llama.cpp"), QStringLiteral("http://localhost:8080/v1"),
         kOpenAiCompatible, AuthMode::None},
        {QStringLiteral("lmstudio"), QStringLiteral("LM Studio"), QStringLiteral("http://localhost:1234/v1"),
         kOpenAiCompatible, AuthMode::None},
        {QStringLiteral("vllm"), QStringLiteral("vLLM"), QStringLiteral("http://localhost:8000/v1"),
         kOpenAiCompatible, AuthMode::None},
        {QStringLiteral("openrouter"), QStringLiteral("OpenRouter"),
         QStringLiteral("https://openrouter.ai/api/v1"), kOpenAiCompatible, AuthMode::ApiKey},
        // These three have registry entries and their own routing; the preset only adds the endpoint.
        {QStringLiteral("deepseek"), QStringLiteral("DeepSeek"), QStringLiteral("https://api.deepseek.com/"),
         QStringLiteral("deepseek"), AuthMode::ApiKey},
        {QStringLiteral("moonshotai"), QStringLiteral("Moonshot AI"),
         QStringLiteral("https://api.moonshot.ai/v1/"), QStringLiteral("moonshotai"), AuthMode::ApiKey},
        {QStringLiteral("zai"), QStringLiteral("Z.ai"), QStringLiteral("https://api.z.ai/api/paas/v4/"),
         QStringLiteral("zai"), AuthMode::ApiKey},
    };
    return presets;
}

std::optional<ProviderPreset> ProviderPresets::find(const QString &id)
{
    for (const ProviderPreset &preset : all()) {
        if (preset.id == id)
            return preset;
    }
    return std::nullopt;
}

QString ProviderPresets::defaultBaseUrl(const QString &providerId)
{
    if (const auto preset = find(providerId))
        return preset->baseUrl;
    if (providerId == QLatin1String("anthropic"))
        return QStringLiteral("https://api.anthropic.com");
    if (providerId == QLatin1String("openai"))
        return QStringLiteral("https://api.openai.com/v1");
    if (providerId == QLatin1String("openai-codex"))
        return QStringLiteral("https://chatgpt.com/backend-api/codex/");
    if (providerId == QLatin1String("googleai"))
        return QStringLiteral("https://generativelanguage.googleapis.com");
    return {};
}

AuthMode ProviderPresets::authMode(const QString &providerId)
{
    if (providerId == QLatin1String("amazon-bedrock"))
        return AuthMode::Aws;
    if (providerId == QLatin1String("openai-codex"))
        return AuthMode::OAuth;
    if (const auto preset = find(providerId))
        return preset->auth;
    if (clientProvider(providerId) == kOpenAiCompatible)
        return AuthMode::None;
    return AuthMode::ApiKey;
}

QString ProviderPresets::clientProvider(const QString &providerId)
{
    if (builtInProviders().contains(providerId))
        return providerId;
    if (const auto preset = find(providerId))
        return preset->clientProvider;
    return kOpenAiCompatible;
}

QStringList ProviderPresets::keyEnvironmentVariables(const QString &providerId)
{
    if (providerId == QLatin1String("openai"))
        return {QStringLiteral("OPENAI_API_KEY")};
    if (providerId == QLatin1String("anthropic"))
        return {QStringLiteral("ANTHROPIC_API_KEY")};
    if (providerId == QLatin1String("googleai"))
        return {QStringLiteral("GEMINI_API_KEY"), QStringLiteral("GOOGLE_API_KEY")};
    if (providerId == QLatin1String("amazon-bedrock"))
        return {QStringLiteral("AWS_BEARER_TOKEN_BEDROCK")};
    if (providerId == QLatin1String("deepseek"))
        return {QStringLiteral("DEEPSEEK_API_KEY")};
    if (providerId == QLatin1String("moonshotai"))
        return {QStringLiteral("MOONSHOT_API_KEY")};
    if (providerId == QLatin1String("zai"))
        return {QStringLiteral("ZAI_API_KEY")};
    if (providerId == QLatin1String("openrouter"))
        return {QStringLiteral("OPENROUTER_API_KEY")};
    return {};
}

bool ProviderPresets::isKnown(const QString &providerId)
{
    return builtInProviders().contains(providerId) || find(providerId).has_value();
}

} // namespace keen
