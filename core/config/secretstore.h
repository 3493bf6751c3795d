#pragma once

#include "base/result.h"
#include "config/settings.h"

#include <QCoreApplication>
#include <QObject>
#include <QString>

#include <functional>

namespace keen {

struct ResolvedSecret
{
    enum class Source { None, Helper, Environment, Keychain, SettingsFile, SecretsFile };

    QString
        key; // empty when the provider needs none (openai-compatible, Bedrock with AWS credentials, Codex)
    Source source = Source::None;
    QString origin;  // the environment variable or file it came from; never the key
    QString warning; // set when the key sits in a plain file; the UI shows it
};

// Where a saved key of a provider is, for the settings dialog. Carries only a hint (the last four characters
// of a long key), never the key.
struct StoredKey
{
    enum class Location { None, Keychain, SecretsFile };

    Location location = Location::None;
    QString hint; // "••••1234"; "••••" alone for keys of fewer than 12 characters
};

// Finds a provider's API key: api_key_helper (overrides everything), then the provider's environment
// variables, then the OS keychain, then settings.json's api_key, then secrets.json when the caller allows the
// plain-file fallback. A key never appears in an error message or a log line.
class SecretStore
{
    Q_DECLARE_TR_FUNCTIONS(SecretStore)

public:
    enum class FileFallback { Deny, Allow };
    static constexpr int HelperTimeoutMs = 30000;

    // Where the plain-file fallback keeps keys: $KEEN_HOME (or the config folder)/secrets.json, mode 0600.
    static QString secretsFilePath();
    // Keychain::unavailableReason(): why a key saved now cannot go to the keychain; empty when it may.
    static QString keychainUnavailableReason();
    static QString keychainKey(const QString &providerId);

    // Runs the helper with sh -c; stdout trimmed is the key. An empty result, a failure or a timeout is an
    // error.
    static Result<QString> runHelper(const QString &providerId, const QString &command,
                                     int timeoutMs = HelperTimeoutMs);

    // Blocking: for worker threads and headless runs. On the GUI thread it fails at once; use resolveAsync.
    static Result<ResolvedSecret> resolve(const QString &providerId, const ProviderSettings &provider,
                                          FileFallback fallback);
    // Runs resolve on a worker thread and calls done on context's thread (never if context is gone).
    static void resolveAsync(const QString &providerId, const ProviderSettings &provider,
                             FileFallback fallback, QObject *context,
                             std::function<void(const Result<ResolvedSecret> &)> done);

    // Saves the key in the keychain; when that fails and the caller allows it, in secrets.json. Returns the
    // warning to show (empty when the keychain took it). Blocking, like resolve.
    static Result<QString> storeKey(const QString &providerId, const QString &key, FileFallback fallback);
    static void storeKeyAsync(const QString &providerId, const QString &key, FileFallback fallback,
                              QObject *context, std::function<void(const Result<QString> &)> done);
    // Removes the key from the keychain and secrets.json.
    static Result<void> removeKey(const QString &providerId);
    static void removeKeyAsync(const QString &providerId, QObject *context,
                               std::function<void(const Result<void> &)> done);

    // The key saved by the app (keychain, else secrets.json), as a hint; environment variables, helpers and
    // settings.json are not "stored" here. Blocking; storedKeyAsync calls done on context's thread.
    static Result<StoredKey> storedKey(const QString &providerId);
    static void storedKeyAsync(const QString &providerId, QObject *context,
                               std::function<void(const Result<StoredKey> &)> done);
    static QString keyHint(const QString &key);
};

} // namespace keen
