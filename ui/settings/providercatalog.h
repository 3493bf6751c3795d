#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace keen {

// What the provider and model pickers offer: the model registry data (:/keen/models.json) plus the local
// OpenAI-compatible servers. Read-only; the settings dialog and the toolbar share it.
class ProviderCatalog
{
public:
    struct Model
    {
        QString id;
        QString name;
        qint64 contextWindow = 0;
        QStringList thinkingEfforts;
    };
    struct Provider
    {
        QString id;
        QString name;
        QString defaultBaseUrl;
        bool needsApiKey = true;
        bool local = false; // an OpenAI-compatible server on this machine
        int defaultPort = 0;
        QList<Model> models;
    };

    static const QList<Provider> &providers();
    static const Provider *provider(const QString &id);
    static QString providerName(const QString &id);
    static QStringList modelIds(const QString &providerId);
    static QStringList thinkingEfforts(const QString &providerId, const QString &modelId);
    // The registry's window, else 200000.
    static qint64 contextWindow(const QString &providerId, const QString &modelId);
};

} // namespace keen
