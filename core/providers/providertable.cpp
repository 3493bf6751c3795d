#include "providers/providertable.h"

namespace keen {

namespace {

const QString kOpenAiCompatible = QStringLiteral("openai-compatible");

QList<ProviderDescriptor> buildTable()
{
    using P = WireProtocol;
    using M = ModelListSource;
    auto entry = [](const char *id, QString name, P protocol, const char *baseUrl, AuthMode auth,
                    QStringList variables, M models, const char *clientId = nullptr) {
        ProviderDescriptor descriptor;
        descriptor.id = QString::fromLatin1(id);
        descriptor.name = std::move(name);
        descriptor.protocol = protocol;
        descriptor.defaultBaseUrl = QString::fromLatin1(baseUrl);
        descriptor.auth = auth;
        descriptor.keyEnvironmentVariables = std::move(variables);
        descriptor.models = models;
        descriptor.clientId = clientId ? QString::fromLatin1(clientId) : descriptor.id;
        return descriptor;
    };
    auto local = [&entry](const char *id, QString name, const char *baseUrl) {
        ProviderDescriptor descriptor = entry(id, std::move(name), P::OpenAiChat, baseUrl, AuthMode::None, {},
                                              M::Server, "openai-compatible");
        descriptor.probedLocally = true;
        return descriptor;
    };
    const auto key = [](const char *variable) { return QStringList{QString::fromLatin1(variable)}; };
    return {
        entry("anthropic", QStringLiteral("Anthropic"), P::AnthropicMessages, "https://api.anthropic.com",
              AuthMode::ApiKey, key("ANTHROPIC_API_KEY"), M::Registry),
        entry("openai", QStringLiteral("OpenAI"), P::OpenAiResponses, "https://api.openai.com/v1",
              AuthMode::ApiKey, key("OPENAI_API_KEY"), M::Registry),
        entry("openai-codex", ProviderTable::tr("ChatGPT (Codex sign-in)"), P::OpenAiCodex,
              "https://chatgpt.com/backend-api/codex/", AuthMode::OAuth, {}, M::Registry),
        entry("googleai", QStringLiteral("Google Gemini"), P::Gemini,
              "https://generativelanguage.googleapis.com/v1beta", AuthMode::ApiKey,
              {QStringLiteral("GEMINI_API_KEY"), QStringLiteral("GOOGLE_API_KEY")}, M::Registry),
        entry("amazon-bedrock", QStringLiteral("Amazon Bedrock"), P::Bedrock, "", AuthMode::Aws,
              key("AWS_BEARER_TOKEN_BEDROCK"), M::Registry),
        entry("deepseek", QStringLiteral("DeepSeek"), P::OpenAiChat, "https://api.deepseek.com/",
              AuthMode::ApiKey, key("DEEPSEEK_API_KEY"), M::Registry),
        entry("moonshotai", QStringLiteral("Moonshot AI"), P::OpenAiChat, "https://api.moonshot.ai/v1/",
              AuthMode::ApiKey, key("MOONSHOT_API_KEY"), M::Registry),
        entry("zai", QStringLiteral("Z.ai"), P::OpenAiChat, "https://api.z.ai/api/paas/v4/", AuthMode::ApiKey,
              key("ZAI_API_KEY"), M::Registry),
        entry("minimax", QStringLiteral("MiniMax"), P::AnthropicMessages, "https://api.minimax.io/anthropic",
              AuthMode::ApiKey, key("MINIMAX_API_KEY"), M::Registry),
        entry("openrouter", QStringLiteral("OpenRouter"), P::OpenAiChat, "https://openrouter.ai/api/v1",
              AuthMode::ApiKey, key("OPENROUTER_API_KEY"), M::Settings, "openai-compatible"),
        local("ollama", QStringLiteral("Ollama"), "http://localhost:11434/v1"),
        local("llamacpp", ProviderTable::tr("llama.cpp server"), "http://localhost:8080/v1"),
        local("lmstudio", QStringLiteral("LM Studio"), "http://localhost:1234/v1"),
        entry("vllm", QStringLiteral("vLLM"), P::OpenAiChat, "http://localhost:8000/v1", AuthMode::None, {},
              M::Server, "openai-compatible"),
        entry("openai-compatible", ProviderTable::tr("OpenAI-compatible server"), P::OpenAiChat, "",
              AuthMode::None, {}, M::Settings),
    };
}

} // namespace

const QList<ProviderDescriptor> &ProviderTable::all()
{
    static const QList<ProviderDescriptor> table = buildTable();
    return table;
}

const ProviderDescriptor *ProviderTable::find(const QString &providerId)
{
    for (const ProviderDescriptor &descriptor : all()) {
        if (descriptor.id == providerId)
            return &descriptor;
    }
    return nullptr;
}

QStringList ProviderTable::ids()
{
    QStringList ids;
    for (const ProviderDescriptor &descriptor : all())
        ids.append(descriptor.id);
    return ids;
}

QString ProviderTable::defaultBaseUrl(const QString &providerId)
{
    const ProviderDescriptor *descriptor = find(providerId);
    return descriptor ? descriptor->defaultBaseUrl : QString();
}

AuthMode ProviderTable::authMode(const QString &providerId)
{
    const ProviderDescriptor *descriptor = find(providerId);
    return descriptor ? descriptor->auth : AuthMode::None;
}

QString ProviderTable::clientProvider(const QString &providerId)
{
    const ProviderDescriptor *descriptor = find(providerId);
    return descriptor ? descriptor->clientId : kOpenAiCompatible;
}

QStringList ProviderTable::keyEnvironmentVariables(const QString &providerId)
{
    const ProviderDescriptor *descriptor = find(providerId);
    return descriptor ? descriptor->keyEnvironmentVariables : QStringList();
}

} // namespace keen
