#include "config/configresolver.h"

#include "base/controlcharacters.h"
#include "providers/providertable.h"

#include <QCoreApplication>

#include <algorithm>

namespace keen {

namespace {

const QString kOpenAiCompatible = QStringLiteral("openai-compatible");

// A line break in a header would start another header on the wire (issue 14); C1 controls and U+2028/9
// too (ControlCharacters).
bool hasControlCharacter(const QString &text)
{
    return ControlCharacters::in(text);
}

// Never quotes the key, only where it came from.
Result<void> checkKey(const QString &providerId, const ResolvedSecret &secret)
{
    if (!hasControlCharacter(secret.key))
        return {};
    return Result<void>::failure(
        ConfigResolver::tr("The API key for %1 from %2 contains a line break or another control "
                           "character, so it was not used. Store the key alone on one line.")
            .arg(providerId, secret.origin));
}

} // namespace

ConfigResolver::ConfigResolver(Settings settings, const ModelRegistry &registry)
    : m_settings(std::move(settings))
    , m_registry(registry)
{}

Result<ResolvedClientConfig> ConfigResolver::resolveWithoutKey(const LaunchOptions &options) const
{
    using Resolved = Result<ResolvedClientConfig>;
    const QString providerId = !options.provider.isEmpty() ? options.provider : m_settings.activeProvider;
    if (providerId.isEmpty())
        return Resolved::failure(
            ConfigResolver::tr("No provider is configured. Choose one in Settings (saved in %1) or pass "
                               "--provider.")
                .arg(Settings::defaultPath()));
    const ProviderDescriptor *descriptor = ProviderTable::find(providerId);
    if (!descriptor && !m_settings.providers.contains(providerId))
        return Resolved::failure(
            ConfigResolver::tr("Unknown provider %1. Known providers: %2. A custom OpenAI-compatible server "
                               "needs an entry under \"providers\" in %3.")
                .arg(providerId, ProviderTable::ids().join(QStringLiteral(", ")), Settings::defaultPath()));
    const ProviderSettings provider = m_settings.provider(providerId);

    // Model: the flag; else, when the flag switched provider, that provider's first configured model; else
    // the active model; else the first configured or registry model.
    QString model = options.model;
    const bool switchedProvider =
        !options.provider.isEmpty() && options.provider != m_settings.activeProvider;
    if (model.isEmpty() && !switchedProvider)
        model = m_settings.activeModel;
    if (model.isEmpty() && !provider.models.isEmpty())
        model = provider.models.first();
    if (model.isEmpty() && !m_registry.models(providerId).isEmpty())
        model = m_registry.models(providerId).first().id;
    if (model.isEmpty())
        return Resolved::failure(
            ConfigResolver::tr(
                "No model is configured for provider %1. Choose one in Settings, pass --model, "
                "or list models under \"providers\".\"%1\".\"models\" in %2.")
                .arg(providerId, Settings::defaultPath()));

    ResolvedClientConfig resolved;
    ClientConfig &config = resolved.config;
    // The person's own id ("ollama", or a custom server's name): the window shows it and saves it back;
    // the client factory maps it to the protocol that speaks to it.
    config.providerId = providerId;
    config.model = model;

    config.baseUrl = !options.baseUrl.isEmpty() ? options.baseUrl : provider.baseUrl;
    // Chat Completions endpoints are named here (presets are only reachable through theirs); the other
    // protocols take their default from the same table when the URL stays empty.
    if (config.baseUrl.isEmpty() && descriptor && descriptor->protocol == WireProtocol::OpenAiChat)
        config.baseUrl = descriptor->defaultBaseUrl;
    if (config.baseUrl.isEmpty() && ProviderTable::clientProvider(providerId) == kOpenAiCompatible)
        return Resolved::failure(QStringLiteral("base_url must be configured for provider: ") + providerId);

    for (auto it = provider.headers.cbegin(); it != provider.headers.cend(); ++it) {
        if (hasControlCharacter(it.key()) || hasControlCharacter(it.value()) ||
            it.key().trimmed().isEmpty() || it.key().contains(QLatin1Char(':')) ||
            it.key().contains(QLatin1Char(' ')))
            return Resolved::failure(
                tr("The header \"%1\" under \"providers\".\"%2\".\"headers\" in %3 has an "
                   "invalid name or a line break or control character in its value.")
                    .arg(it.key().simplified(), providerId, Settings::defaultPath()));
        config.headers.append({it.key().toUtf8(), it.value().toUtf8()});
    }

    // A registry model takes only the efforts it lists; an unknown model gets whatever was configured.
    config.thinkingEffort = m_settings.thinkingEffort;
    if (const auto info = m_registry.model(providerId, model)) {
        if (!info->thinkingEfforts.contains(config.thinkingEffort))
            config.thinkingEffort.clear();
    }

    if (options.contextWindow)
        config.contextWindow = *options.contextWindow;
    else if (const auto window = m_settings.contextWindowFor(providerId, model))
        config.contextWindow = *window;
    else
        config.contextWindow = m_registry.contextWindow(providerId, model);

    if (providerId == QLatin1String("amazon-bedrock")) {
        config.awsRegion = qEnvironmentVariable("AWS_REGION", qEnvironmentVariable("AWS_DEFAULT_REGION"));
        config.awsProfile = qEnvironmentVariable("AWS_PROFILE");
    }
    if (!provider.apiKeyHelper.isEmpty()) {
        const QString helper = provider.apiKeyHelper;
        config.refreshApiKey = [providerId, helper] { return SecretStore::runHelper(providerId, helper); };
    }
    return resolved;
}

Result<ResolvedClientConfig> ConfigResolver::resolve(const LaunchOptions &options,
                                                     SecretStore::FileFallback fallback) const
{
    Result<ResolvedClientConfig> resolved = resolveWithoutKey(options);
    if (!resolved)
        return resolved;
    const Result<ResolvedSecret> secret = SecretStore::resolve(
        resolved->config.providerId, m_settings.provider(resolved->config.providerId), fallback);
    if (!secret)
        return Result<ResolvedClientConfig>::failure(secret.error());
    if (const Result<void> usable = checkKey(resolved->config.providerId, *secret); !usable)
        return Result<ResolvedClientConfig>::failure(usable.error());
    resolved->config.apiKey = secret->key;
    resolved->warning = secret->warning;
    return resolved;
}

void ConfigResolver::resolveAsync(const LaunchOptions &options, SecretStore::FileFallback fallback,
                                  QObject *context,
                                  std::function<void(const Result<ResolvedClientConfig> &)> done) const
{
    Result<ResolvedClientConfig> resolved = resolveWithoutKey(options);
    if (!resolved) {
        // Keep the contract: done always runs later, on context's thread.
        QMetaObject::invokeMethod(
            context, [done = std::move(done), resolved]() { done(resolved); }, Qt::QueuedConnection);
        return;
    }
    const QString providerId = resolved->config.providerId;
    SecretStore::resolveAsync(
        providerId, m_settings.provider(providerId), fallback, context,
        [done = std::move(done), base = *resolved](const Result<ResolvedSecret> &secret) {
            if (!secret) {
                done(Result<ResolvedClientConfig>::failure(secret.error()));
                return;
            }
            if (const Result<void> usable = checkKey(base.config.providerId, *secret); !usable) {
                done(Result<ResolvedClientConfig>::failure(usable.error()));
                return;
            }
            ResolvedClientConfig config = base;
            config.config.apiKey = secret->key;
            config.warning = secret->warning;
            done(config);
        });
}

} // namespace keen
