#pragma once

#include "base/result.h"
#include "config/launchoptions.h"
#include "config/modelregistry.h"
#include "config/secretstore.h"
#include "config/settings.h"
#include "providers/clientconfig.h"

#include <QCoreApplication>
#include <functional>

namespace keen {

struct ResolvedClientConfig
{
    ClientConfig config; // config.providerId is the id as the person named it ("ollama", "my-server")
    QString warning;     // from the key lookup (a key in a plain file)
};

// Builds the ClientConfig for this process from settings.json, the model registry, the keys and the launch
// flags.
class ConfigResolver
{
    Q_DECLARE_TR_FUNCTIONS(ConfigResolver)

public:
    explicit ConfigResolver(Settings settings, const ModelRegistry &registry = ModelRegistry::builtIn());

    // Everything except the key; no I/O, so it is safe on the GUI thread. Flags override the settings.
    Result<ResolvedClientConfig> resolveWithoutKey(const LaunchOptions &options) const;
    // With the key (blocking: worker threads and headless runs).
    Result<ResolvedClientConfig> resolve(const LaunchOptions &options,
                                         SecretStore::FileFallback fallback) const;
    // For the GUI thread: done runs on context's thread.
    void resolveAsync(const LaunchOptions &options, SecretStore::FileFallback fallback, QObject *context,
                      std::function<void(const Result<ResolvedClientConfig> &)> done) const;

private:
    Settings m_settings;
    const ModelRegistry &m_registry;
};

} // namespace keen
