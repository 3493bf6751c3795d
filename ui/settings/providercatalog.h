#pragma once

#include "providers/providertable.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

namespace keen {

// What the provider and model pickers offer: the providers of ProviderTable, in its order, with the models of
// the model registry (ModelRegistry::builtIn, the one reader of models.json). The settings dialog, the
// first-run setup and the toolbar share it.
class ProviderCatalog
{
    Q_DECLARE_TR_FUNCTIONS(ProviderCatalog)

public:
    using Provider = ProviderDescriptor;

    static const QList<Provider> &providers();
    static const Provider *provider(const QString &id);
    static QString providerName(const QString &id);
    static QStringList modelIds(const QString &providerId);
    static QStringList thinkingEfforts(const QString &providerId, const QString &modelId);
    // The registry's window, else ModelRegistry::DefaultContextWindow.
    static qint64 contextWindow(const QString &providerId, const QString &modelId);
    // What the Base URL field says while empty: the default is used, or (a server without one) what to enter.
    static QString baseUrlPlaceholder(const Provider *provider);
};

} // namespace keen
