#include "config/modelregistry.h"

#include "base/logcategories.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keen {

namespace {

ModelRegistry loadBuiltIn()
{
    const QString path = QStringLiteral(":/keen/models.json");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        qCWarning(LogCategories::models) << "the built-in model registry is missing:" << path;
        return *ModelRegistry::fromJson(QByteArrayLiteral("{\"providers\":[]}"), path);
    }
    auto registry = ModelRegistry::fromJson(file.readAll(), path);
    if (!registry) {
        qCWarning(LogCategories::models) << registry.error();
        return *ModelRegistry::fromJson(QByteArrayLiteral("{\"providers\":[]}"), path);
    }
    return *registry;
}

} // namespace

const ModelRegistry &ModelRegistry::builtIn()
{
    static const ModelRegistry registry = loadBuiltIn();
    return registry;
}

Result<ModelRegistry> ModelRegistry::fromJson(const QByteArray &json, const QString &source)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Result<ModelRegistry>::failure(
            ModelRegistry::tr("The model registry %1 is not valid JSON: %2 (at byte %3)")
                .arg(source, parseError.errorString())
                .arg(parseError.offset));
    const QJsonValue providers = document.object().value(QStringLiteral("providers"));
    if (!document.isObject() || !providers.isArray())
        return Result<ModelRegistry>::failure(
            ModelRegistry::tr("The model registry %1 has no \"providers\" list").arg(source));

    ModelRegistry registry;
    const QJsonArray providerArray = providers.toArray();
    for (const QJsonValue &providerValue : providerArray) {
        const QJsonObject object = providerValue.toObject();
        ProviderInfo provider;
        provider.id = object.value(QStringLiteral("id")).toString();
        if (provider.id.isEmpty())
            return Result<ModelRegistry>::failure(
                ModelRegistry::tr("The model registry %1 has a provider without an id").arg(source));
        provider.name = object.value(QStringLiteral("name")).toString(provider.id);
        provider.defaultBaseUrl = ProviderTable::defaultBaseUrl(provider.id);
        provider.auth = ProviderTable::authMode(provider.id);
        const QJsonArray models = object.value(QStringLiteral("models")).toArray();
        for (const QJsonValue &modelValue : models) {
            const QJsonObject modelObject = modelValue.toObject();
            ModelInfo model;
            model.id = modelObject.value(QStringLiteral("id")).toString();
            if (model.id.isEmpty())
                continue;
            model.name = modelObject.value(QStringLiteral("name")).toString(model.id);
            model.contextWindow = qint64(modelObject.value(QStringLiteral("context_window")).toDouble());
            const QJsonArray efforts = modelObject.value(QStringLiteral("thinking_efforts")).toArray();
            for (const QJsonValue &effort : efforts)
                model.thinkingEfforts.append(effort.toString());
            provider.models.append(model);
        }
        registry.m_providers.append(provider);
    }
    return registry;
}

QList<ProviderInfo> ModelRegistry::providers() const
{
    QList<ProviderInfo> all;
    for (const ProviderDescriptor &descriptor : ProviderTable::all()) {
        ProviderInfo info;
        info.id = descriptor.id;
        info.name = descriptor.name;
        info.models = models(descriptor.id);
        info.defaultBaseUrl = descriptor.defaultBaseUrl;
        info.auth = descriptor.auth;
        info.preset = descriptor.isPreset();
        all.append(info);
    }
    for (const ProviderInfo &provider : m_providers) {
        if (!ProviderTable::isKnown(provider.id))
            all.append(provider);
    }
    return all;
}

QStringList ModelRegistry::providerIds() const
{
    QStringList ids;
    for (const ProviderInfo &provider : providers())
        ids.append(provider.id);
    return ids;
}

std::optional<ProviderInfo> ModelRegistry::provider(const QString &providerId) const
{
    for (const ProviderInfo &provider : providers()) {
        if (provider.id == providerId)
            return provider;
    }
    return std::nullopt;
}

QString ModelRegistry::providerName(const QString &providerId) const
{
    if (const auto info = provider(providerId))
        return info->name;
    return providerId;
}

QList<ModelInfo> ModelRegistry::models(const QString &providerId) const
{
    for (const ProviderInfo &provider : m_providers) {
        if (provider.id == providerId)
            return provider.models;
    }
    return {};
}

std::optional<ModelInfo> ModelRegistry::model(const QString &providerId, const QString &modelId) const
{
    for (const ModelInfo &model : models(providerId)) {
        if (model.id == modelId)
            return model;
    }
    return std::nullopt;
}

std::optional<qint64> ModelRegistry::knownContextWindow(const QString &providerId,
                                                        const QString &modelId) const
{
    const auto info = model(providerId, modelId);
    if (!info || info->contextWindow <= 0)
        return std::nullopt;
    return info->contextWindow;
}

qint64 ModelRegistry::contextWindow(const QString &providerId, const QString &modelId) const
{
    return knownContextWindow(providerId, modelId).value_or(DefaultContextWindow);
}

QStringList ModelRegistry::thinkingEfforts(const QString &providerId, const QString &modelId) const
{
    if (const auto info = model(providerId, modelId))
        return info->thinkingEfforts;
    return {};
}

} // namespace keen
