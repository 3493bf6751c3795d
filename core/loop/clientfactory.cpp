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
#include "providers/providertable.h"

#include <QCoreApplication>
#include <QStringList>
#include <QUrl>

namespace keen {

Result<std::unique_ptr<ProviderProtocol>> createProviderProtocol(const ClientConfig &original)
{
    using R = Result<std::unique_ptr<ProviderProtocol>>;
    const ProviderDescriptor *descriptor = ProviderTable::find(original.providerId);
    // A server the person named under "providers" in settings.json is an OpenAI-compatible one at its URL.
    if (!descriptor && !original.baseUrl.isEmpty())
        descriptor = ProviderTable::find(ProviderTable::clientProvider(original.providerId));
    if (!descriptor)
        return R::failure(
            QCoreApplication::translate("ClientFactory", "unknown provider \"%1\"; known providers: %2")
                .arg(original.providerId, ProviderTable::ids().join(QStringLiteral(", "))));
    if (!original.baseUrl.isEmpty()) {
        // Said here, naming the URL: the network layer would only report an empty host ("Host  not found").
        const QUrl url(original.baseUrl, QUrl::StrictMode);
        QString why;
        if (!url.isValid())
            why = url.errorString();
        else if (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
            why = QCoreApplication::translate("ClientFactory", "it must start with http:// or https://");
        else if (url.host().isEmpty())
            why = QCoreApplication::translate("ClientFactory", "it names no host");
        if (!why.isEmpty())
            return R::failure(
                QCoreApplication::translate("ClientFactory", "base_url \"%1\" is not a usable URL: %2")
                    .arg(original.baseUrl, why));
    }
    ClientConfig config = original;
    config.providerId = descriptor->clientId;
    std::unique_ptr<ProviderProtocol> protocol;
    switch (descriptor->protocol) {
    case WireProtocol::AnthropicMessages:
        protocol = std::make_unique<AnthropicProtocol>(config);
        break;
    case WireProtocol::OpenAiResponses:
        protocol = std::make_unique<OpenAiResponsesProtocol>(config);
        break;
    case WireProtocol::OpenAiCodex:
        protocol = std::make_unique<OpenAiCodexProtocol>(
            config, std::make_shared<KeychainCredentialStorage>(std::make_shared<FileCredentialStorage>()));
        break;
    case WireProtocol::Gemini:
        protocol = std::make_unique<GeminiProtocol>(config);
        break;
    case WireProtocol::Bedrock:
        protocol = std::make_unique<BedrockProtocol>(config);
        break;
    case WireProtocol::OpenAiChat:
        if (config.baseUrl.isEmpty())
            config.baseUrl = descriptor->defaultBaseUrl;
        if (config.baseUrl.isEmpty())
            return R::failure(
                QStringLiteral("base_url must be configured for provider: %1").arg(original.providerId));
        protocol = std::make_unique<OpenAiChatProtocol>(config);
        break;
    }
    return protocol;
}

Result<std::shared_ptr<LlmClient>> createLlmClient(const ClientConfig &config)
{
    using R = Result<std::shared_ptr<LlmClient>>;
    Result<std::unique_ptr<ProviderProtocol>> protocol = createProviderProtocol(config);
    if (!protocol)
        return R::failure(protocol.error());
    if (config.model.isEmpty())
        return R::failure(QCoreApplication::translate("ClientFactory", "no model is set for provider %1")
                              .arg(config.providerId));
    return std::shared_ptr<LlmClient>(std::make_shared<ToolLoopClient>(std::move(*protocol)));
}

} // namespace keen
