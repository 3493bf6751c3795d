#include "loop/clientfactory.h"

#include "auth/filecredentialstorage.h"
#include "auth/keychaincredentialstorage.h"
#include "loop/toolloopclient.h"
#include "providers/anthropic/anthropicprotocol.h"
#include "providers/bedrock/bedrockprotocol.h"
#include "providers/gemini/geminiprotocol.h"
#include "providers/openai/openaichatprotocol.h"
#include "providers/openai/openaicodexprotocol.h"
#include "providers/openai/openairesponsesprotocol.h"

#include <QCoreApplication>
#include <QStringList>

namespace keen {

namespace {

// OpenAI-compatible providers with a well-known endpoint.
QString defaultChatBaseUrl(const QString &provider)
{
    if (provider == QLatin1String("deepseek"))
        return QStringLiteral("https://api.deepseek.com/");
    if (provider == QLatin1String("moonshotai"))
        return QStringLiteral("https://api.moonshot.ai/v1/");
    if (provider == QLatin1String("zai"))
        return QStringLiteral("https://api.z.ai/api/paas/v4/");
    return {};
}

} // namespace

QStringList supportedProviders()
{
    return {
        QStringLiteral("anthropic"), QStringLiteral("openai"),         QStringLiteral("openai-codex"),
        QStringLiteral("googleai"),  QStringLiteral("amazon-bedrock"), QStringLiteral("openai-compatible"),
        QStringLiteral("deepseek"),  QStringLiteral("moonshotai"),     QStringLiteral("zai"),
        QStringLiteral("minimax")};
}

Result<std::shared_ptr<LlmClient>> createLlmClient(const ClientConfig &original)
{
    using R = Result<std::shared_ptr<LlmClient>>;
    ClientConfig config = original;
    const QString &provider = config.providerId;
    std::unique_ptr<ProviderProtocol> protocol;
    if (provider == QLatin1String("anthropic")) {
        protocol = std::make_unique<AnthropicProtocol>(config);
    } else if (provider == QLatin1String("minimax")) {
        if (config.baseUrl.isEmpty())
            config.baseUrl = QStringLiteral("https://api.minimax.io/anthropic");
        protocol = std::make_unique<AnthropicProtocol>(config);
    } else if (provider == QLatin1String("openai")) {
        protocol = std::make_unique<OpenAiResponsesProtocol>(config);
    } else if (provider == QLatin1String("openai-codex")) {
        protocol = std::make_unique<OpenAiCodexProtocol>(
            config, std::make_shared<KeychainCredentialStorage>(std::make_shared<FileCredentialStorage>()));
    } else if (provider == QLatin1String("googleai")) {
        protocol = std::make_unique<GeminiProtocol>(config);
    } else if (provider == QLatin1String("amazon-bedrock")) {
        protocol = std::make_unique<BedrockProtocol>(config);
    } else if (provider == QLatin1String("openai-compatible") || !defaultChatBaseUrl(provider).isEmpty()) {
        if (config.baseUrl.isEmpty())
            config.baseUrl = defaultChatBaseUrl(provider);
        if (config.baseUrl.isEmpty())
            return R::failure(QStringLiteral("base_url must be configured for provider: %1").arg(provider));
        protocol = std::make_unique<OpenAiChatProtocol>(config);
    } else {
        return R::failure(
            QCoreApplication::translate("ClientFactory", "unknown provider \"%1\"; known providers: %2")
                .arg(provider, supportedProviders().join(QStringLiteral(", "))));
    }
    if (config.model.isEmpty())
        return R::failure(
            QCoreApplication::translate("ClientFactory", "no model is set for provider %1").arg(provider));
    return std::shared_ptr<LlmClient>(std::make_shared<ToolLoopClient>(std::move(protocol)));
}

} // namespace keen
