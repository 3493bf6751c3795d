#pragma once

#include "base/result.h"
#include "providers/providertable.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

struct ModelInfo
{
    QString id;
    QString name;
    qint64 contextWindow = 0; // 0: unknown
    QStringList thinkingEfforts;

    bool supportsThinkingEffort() const { return !thinkingEfforts.isEmpty(); }
};

struct ProviderInfo
{
    QString id;
    QString name;
    QList<ModelInfo> models;
    QString defaultBaseUrl;
    AuthMode auth = AuthMode::ApiKey;
    bool preset = false; // an OpenAI-compatible preset (ProviderDescriptor::isPreset)
};

// The model registry (reference 1.8) loaded as data from resources/models.json: the models of the providers
// in ProviderTable. Provider facts (endpoint, auth) come from the table, never from this data.
class ModelRegistry
{
    Q_DECLARE_TR_FUNCTIONS(ModelRegistry)

public:
    static constexpr qint64 DefaultContextWindow = 200000;

    // The registry built into the app (:/keen/models.json), loaded once.
    static const ModelRegistry &builtIn();
    // Parses {"providers":[{id,name,models:[{id,name,context_window,thinking_efforts}]}]}; source names the
    // data in error messages.
    static Result<ModelRegistry> fromJson(const QByteArray &json, const QString &source);

    // The providers of ProviderTable in its order with their registry models, then registry providers the
    // table does not know (custom data).
    QList<ProviderInfo> providers() const;
    QStringList providerIds() const;
    std::optional<ProviderInfo> provider(const QString &providerId) const;
    QString providerName(const QString &providerId) const; // the id itself when unknown
    QList<ModelInfo> models(const QString &providerId) const;
    std::optional<ModelInfo> model(const QString &providerId, const QString &modelId) const;

    // The registry's window, or nullopt for an unknown model or a window <= 0.
    std::optional<qint64> knownContextWindow(const QString &providerId, const QString &modelId) const;
    // The registry's window, else DefaultContextWindow.
    qint64 contextWindow(const QString &providerId, const QString &modelId) const;
    QStringList thinkingEfforts(const QString &providerId, const QString &modelId) const;

private:
    QList<ProviderInfo> m_providers;
};

} // namespace keen
