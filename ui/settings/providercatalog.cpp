#include "settings/providercatalog.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keen {

namespace {
QList<ProviderCatalog::Provider> load()
{
    QList<ProviderCatalog::Provider> list;
    QFile file(QStringLiteral(":/keen/models.json"));
    if (file.open(QIODevice::ReadOnly)) {
        const QJsonArray providers =
            QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("providers")).toArray();
        for (const QJsonValue &value : providers) {
            const QJsonObject object = value.toObject();
            ProviderCatalog::Provider provider;
            provider.id = object.value(QStringLiteral("id")).toString();
            provider.name = object.value(QStringLiteral("name")).toString(provider.id);
            provider.needsApiKey = provider.id != QLatin1String("openai-codex") &&
                                   provider.id != QLatin1String("amazon-bedrock");
            const QJsonArray models = object.value(QStringLiteral("models")).toArray();
            for (const QJsonValue &modelValue : models) {
                const QJsonObject model = modelValue.toObject();
                QStringList efforts;
                const QJsonArray effortList = model.value(QStringLiteral("thinking_efforts")).toArray();
                for (const QJsonValue &effort : effortList)
                    efforts << effort.toString();
                provider.models.append({model.value(QStringLiteral("id")).toString(),
                                        model.value(QStringLiteral("name")).toString(),
                                        model.value(QStringLiteral("context_window")).toInteger(), efforts});
            }
            if (!provider.id.isEmpty())
                list.append(provider);
        }
    }
    auto local = [](const char *id, const char *name, int port) {
        ProviderCatalog::Provider provider;
        provider.id = QLatin1String(id);
        provider.name = QCoreApplication::translate("ProviderCatalog", name);
        provider.defaultBaseUrl = QStringLiteral("http://localhost:%1/v1").arg(port);
        provider.needsApiKey = false;
        provider.local = true;
        provider.defaultPort = port;
        return provider;
    };
    list.append(local("ollama", QT_TRANSLATE_NOOP("ProviderCatalog", "Ollama"), 11434));
    list.append(local("llamacpp", QT_TRANSLATE_NOOP("ProviderCatalog", "llama.cpp server"), 8080));
    list.append(local("lmstudio", QT_TRANSLATE_NOOP("ProviderCatalog", "LM Studio"), 1234));
    ProviderCatalog::Provider custom;
    custom.id = QStringLiteral("openai-compatible");
    custom.name = QCoreApplication::translate("ProviderCatalog", "OpenAI-compatible server");
    custom.needsApiKey = false;
    bool present = false;
    for (const auto &provider : std::as_const(list))
        present = present || provider.id == custom.id;
    if (!present)
        list.append(custom);
    return list;
}
} // namespace

const QList<ProviderCatalog::Provider> &ProviderCatalog::providers()
{
    static const QList<Provider> list = load();
    return list;
}

const ProviderCatalog::Provider *ProviderCatalog::provider(const QString &id)
{
    for (const Provider &entry : providers()) {
        if (entry.id == id)
            return &entry;
    }
    return nullptr;
}

QString ProviderCatalog::providerName(const QString &id)
{
    const Provider *entry = provider(id);
    return entry ? entry->name : id;
}

QStringList ProviderCatalog::modelIds(const QString &providerId)
{
    QStringList ids;
    if (const Provider *entry = provider(providerId)) {
        for (const Model &model : entry->models)
            ids << model.id;
    }
    return ids;
}

QStringList ProviderCatalog::thinkingEfforts(const QString &providerId, const QString &modelId)
{
    if (const Provider *entry = provider(providerId)) {
        for (const Model &model : entry->models) {
            if (model.id == modelId)
                return model.thinkingEfforts;
        }
    }
    return {};
}

qint64 ProviderCatalog::contextWindow(const QString &providerId, const QString &modelId)
{
    if (const Provider *entry = provider(providerId)) {
        for (const Model &model : entry->models) {
            if (model.id == modelId && model.contextWindow > 0)
                return model.contextWindow;
        }
    }
    return 200000;
}

} // namespace keen
