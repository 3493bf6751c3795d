#include "settings/setupcheck.h"

#include "settings/providercatalog.h"

namespace keen {

QString SetupCheck::keyVariableSet(const QString &providerId)
{
    const ProviderCatalog::Provider *provider = ProviderCatalog::provider(providerId);
    if (!provider)
        return {};
    for (const QString &variable : provider->keyEnvironmentVariables) {
        if (!qEnvironmentVariable(variable.toLatin1().constData()).trimmed().isEmpty())
            return variable;
    }
    return {};
}

QStringList SetupCheck::missing(const Fields &fields)
{
    const ProviderCatalog::Provider *provider = ProviderCatalog::provider(fields.providerId);
    QStringList missing;
    // Servers (no key required), Bedrock (AWS credentials) and Codex (the sign-in) never need one here.
    if (provider && provider->needsKey() && fields.apiKey.trimmed().isEmpty() && !fields.keyStored &&
        keyVariableSet(fields.providerId).isEmpty()) {
        const QStringList variables = provider->keyEnvironmentVariables;
        missing
            << (variables.isEmpty()
                    ? tr("Enter the API key.")
                    : tr("Enter the API key (or set %1 before starting Keen).").arg(variables.constFirst()));
    }
    if (provider && provider->auth == AuthMode::OAuth && !fields.signedIn)
        missing << tr("Sign in with ChatGPT.");
    // An id the table does not know is a custom OpenAI-compatible server: it has no endpoint of its own.
    if ((!provider || provider->needsBaseUrl()) && fields.baseUrl.trimmed().isEmpty())
        missing << tr("Enter the server's base URL, for example http://localhost:8080/v1.");
    if (fields.model.trimmed().isEmpty())
        missing << tr("Enter the name of a model.");
    return missing;
}

} // namespace keen
