#include "settings/providercatalog.h"

#include "config/modelregistry.h"

namespace keen {

const QList<ProviderCatalog::Provider> &ProviderCatalog::providers()
{
    return ProviderTable::all();
}

const ProviderCatalog::Provider *ProviderCatalog::provider(const QString &id)
{
    return ProviderTable::find(id);
}

QString ProviderCatalog::providerName(const QString &id)
{
    const Provider *entry = provider(id);
    return entry ? entry->name : id;
}

QStringList ProviderCatalog::modelIds(const QString &providerId)
{
    QStringList ids;
    for (const ModelInfo &model : ModelRegistry::builtIn().models(providerId))
        ids << model.id;
    return ids;
}

QStringList ProviderCatalog::thinkingEfforts(const QString &providerId, const QString &modelId)
{
    return ModelRegistry::builtIn().thinkingEfforts(providerId, modelId);
}

qint64 ProviderCatalog::contextWindow(const QString &providerId, const QString &modelId)
{
    return ModelRegistry::builtIn().contextWindow(providerId, modelId);
}

QString ProviderCatalog::baseUrlPlaceholder(const Provider *provider)
{
    if (!provider || provider->needsBaseUrl())
        return tr("Required, for example http://localhost:8080/v1");
    return tr("Default endpoint");
}

} // namespace keen
