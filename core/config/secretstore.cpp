#include "config/secretstore.h"

#include "auth/keychain.h"
#include "base/privatefolder.h"
#include "base/regularfile.h"
#include "base/whenfinished.h"
#include "providers/providertable.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSaveFile>
#include <QtConcurrent>

#include <sys/stat.h>

namespace keen {

namespace {

const QString kApiKeys = QStringLiteral("api_keys");
constexpr qint64 MaxSecretsFileBytes = 1024 * 1024;

QString blockingOnGuiThread()
{
    return SecretStore::tr(
        "internal error: a blocking key lookup on the GUI thread (use the asynchronous API)");
}

// secrets.json: {"api_keys":{"<provider>":"<key>"}}. Errors name the file, never its content.
Result<QJsonObject> readSecretsFile(const QString &path)
{
    // Keys are short: 1 MiB holds thousands. A FIFO or device in its place is named, never waited on.
    const RegularFile::Read read = RegularFile::read(path, MaxSecretsFileBytes);
    if (read.problem == RegularFile::Problem::Missing)
        return QJsonObject{};
    if (!read.ok())
        return Result<QJsonObject>::failure(
            SecretStore::tr("Cannot read the secrets file %1: %2").arg(path, read.reason));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(read.bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject() ||
        (document.object().contains(kApiKeys) && !document.object().value(kApiKeys).isObject()))
        return Result<QJsonObject>::failure(
            SecretStore::tr("The secrets file %1 is damaged (it must be {\"api_keys\": "
                            "{\"provider\": \"key\"}}). Remove it and "
                            "enter the key again.")
                .arg(path));
    return document.object().value(kApiKeys).toObject();
}

Result<void> writeSecretsFile(const QString &path, const QJsonObject &keys)
{
    const QString folder = QFileInfo(path).absolutePath();
    if (Result<void> made = PrivateFolder::ensure(folder); !made)
        return Result<void>::failure(SecretStore::tr("Cannot create the folder %1").arg(made.error()));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(
            SecretStore::tr("Cannot write the secrets file %1: %2").arg(path, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(QJsonObject{{kApiKeys, keys}}).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return Result<void>::failure(
            SecretStore::tr("Cannot write the secrets file %1: %2").arg(path, file.errorString()));
    return {};
}

QString plainFileWarning(const QString &providerId, const QString &path)
{
    return SecretStore::tr(
               "The API key for %1 is stored unencrypted in %2 because no system keychain is available.")
        .arg(providerId, path);
}

// QFuture needs default-constructible values; Result has no default.
template<typename T> struct Outcome
{
    std::optional<Result<T>> result;
};

} // namespace

QString SecretStore::keychainUnavailableReason()
{
    return Keychain::unavailableReason();
}

QString SecretStore::secretsFilePath()
{
    return QDir(Settings::configDirectory()).filePath(QStringLiteral("secrets.json"));
}

QString SecretStore::keychainKey(const QString &providerId)
{
    return QStringLiteral("api-key/") + providerId;
}

Result<QString> SecretStore::runHelper(const QString &providerId, const QString &command, int timeoutMs)
{
    // The command itself is never quoted back: people write keys straight into it ("echo sk-...").
    QProcess process;
    process.setProgram(QStringLiteral("/bin/sh"));
    process.setArguments({QStringLiteral("-c"), command});
    process.setStandardInputFile(QProcess::nullDevice());
    process.start();
    if (!process.waitForStarted(timeoutMs))
        return Result<QString>::failure(SecretStore::tr("The api_key_helper for %1 could not be started: %2")
                                            .arg(providerId, process.errorString()));
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        return Result<QString>::failure(
            SecretStore::tr("The api_key_helper for %1 did not finish within %2 seconds")
                .arg(providerId)
                .arg(timeoutMs / 1000));
    }
    if (process.exitStatus() != QProcess::NormalExit)
        return Result<QString>::failure(SecretStore::tr("The api_key_helper for %1 crashed").arg(providerId));
    if (process.exitCode() != 0)
        return Result<QString>::failure(
            SecretStore::tr("The api_key_helper for %1 failed with exit code %2 (its output is not "
                            "shown because it may contain the key)")
                .arg(providerId)
                .arg(process.exitCode()));
    // Only the first line is the key: a multi-line entry ("pass show" with notes below the password) must
    // never send its other lines anywhere.
    const QByteArray output = process.readAllStandardOutput();
    const qsizetype lineEnd = output.indexOf('\n');
    const QString key = QString::fromUtf8(lineEnd < 0 ? output : output.first(lineEnd)).trimmed();
    if (key.isEmpty())
        return Result<QString>::failure(
            SecretStore::tr("The api_key_helper for %1 printed no key").arg(providerId));
    return key;
}

Result<ResolvedSecret> SecretStore::resolve(const QString &providerId, const ProviderSettings &provider,
                                            FileFallback fallback)
{
    using Resolved = Result<ResolvedSecret>;
    if (Keychain::isGuiThread())
        return Resolved::failure(blockingOnGuiThread());

    if (!provider.apiKeyHelper.trimmed().isEmpty()) {
        const Result<QString> key = runHelper(providerId, provider.apiKeyHelper);
        if (!key)
            return Resolved::failure(key.error());
        return ResolvedSecret{*key, ResolvedSecret::Source::Helper, QStringLiteral("api_key_helper"), {}};
    }

    const QStringList variables = ProviderTable::keyEnvironmentVariables(providerId);
    for (const QString &variable : variables) {
        const QString key = qEnvironmentVariable(variable.toLatin1().constData()).trimmed();
        if (!key.isEmpty())
            return ResolvedSecret{key, ResolvedSecret::Source::Environment, variable, {}};
    }

    const KeychainReply reply = Keychain::wait(Keychain::read(keychainKey(providerId)));
    if (reply.ok() && !reply.secret.isEmpty())
        return ResolvedSecret{reply.secret, ResolvedSecret::Source::Keychain, Keychain::serviceName(), {}};
    const bool keychainUnusable = !reply.ok() && reply.status != KeychainReply::Status::NotFound;

    if (!provider.apiKey.isEmpty()) {
        const QString path = Settings::defaultPath();
        return ResolvedSecret{
            provider.apiKey, ResolvedSecret::Source::SettingsFile, path,
            SecretStore::tr("The API key for %1 is stored unencrypted in %2.").arg(providerId, path)};
    }

    if (fallback == FileFallback::Allow) {
        const QString path = secretsFilePath();
        const Result<QJsonObject> keys = readSecretsFile(path);
        if (!keys)
            return Resolved::failure(keys.error());
        const QString key = keys->value(providerId).toString();
        if (!key.isEmpty())
            return ResolvedSecret{key, ResolvedSecret::Source::SecretsFile, path,
                                  plainFileWarning(providerId, path)};
    }

    if (ProviderTable::authMode(providerId) != AuthMode::ApiKey)
        return ResolvedSecret{};

    QString message =
        variables.isEmpty()
            ? SecretStore::tr(
                  "No API key for %1. Save a key from Settings, or set \"api_key_helper\" for \"%1\" in %2.")
                  .arg(providerId, Settings::defaultPath())
            : SecretStore::tr(
                  "No API key for %1. Set %2, save a key from Settings, or set \"api_key_helper\" for \"%1\" "
                  "in %3.")
                  .arg(providerId, variables.join(SecretStore::tr(" or ")), Settings::defaultPath());
    if (keychainUnusable)
        message +=
            QLatin1Char(' ') + SecretStore::tr("The system keychain could not be used: %1").arg(reply.error);
    return Resolved::failure(message);
}

void SecretStore::resolveAsync(const QString &providerId, const ProviderSettings &provider,
                               FileFallback fallback, QObject *context,
                               std::function<void(const Result<ResolvedSecret> &)> done)
{
    whenFinished(QtConcurrent::run([providerId, provider, fallback]() {
                     return Outcome<ResolvedSecret>{resolve(providerId, provider, fallback)};
                 }),
                 context,
                 [done = std::move(done)](const Outcome<ResolvedSecret> &outcome) { done(*outcome.result); });
}

Result<QString> SecretStore::storeKey(const QString &providerId, const QString &key, FileFallback fallback)
{
    if (Keychain::isGuiThread())
        return Result<QString>::failure(blockingOnGuiThread());
    if (key.trimmed().isEmpty())
        return Result<QString>::failure(SecretStore::tr("The API key for %1 is empty").arg(providerId));
    const KeychainReply reply = Keychain::wait(Keychain::write(keychainKey(providerId), key.trimmed()));
    if (reply.ok())
        return QString();
    if (fallback == FileFallback::Deny)
        return Result<QString>::failure(
            SecretStore::tr("Cannot store the API key for %1 in the system keychain: %2")
                .arg(providerId, reply.error));

    const QString path = secretsFilePath();
    Result<QJsonObject> keys = readSecretsFile(path);
    if (!keys)
        return Result<QString>::failure(keys.error());
    keys->insert(providerId, key.trimmed());
    const Result<void> written = writeSecretsFile(path, *keys);
    if (!written)
        return Result<QString>::failure(written.error());
    return plainFileWarning(providerId, path);
}

void SecretStore::storeKeyAsync(const QString &providerId, const QString &key, FileFallback fallback,
                                QObject *context, std::function<void(const Result<QString> &)> done)
{
    whenFinished(QtConcurrent::run([providerId, key, fallback]() {
                     return Outcome<QString>{storeKey(providerId, key, fallback)};
                 }),
                 context,
                 [done = std::move(done)](const Outcome<QString> &outcome) { done(*outcome.result); });
}

Result<void> SecretStore::removeKey(const QString &providerId)
{
    if (Keychain::isGuiThread())
        return Result<void>::failure(blockingOnGuiThread());
    const KeychainReply reply = Keychain::wait(Keychain::remove(keychainKey(providerId)));
    const QString path = secretsFilePath();
    if (QFile::exists(path)) {
        Result<QJsonObject> keys = readSecretsFile(path);
        if (!keys)
            return Result<void>::failure(keys.error());
        if (keys->contains(providerId)) {
            keys->remove(providerId);
            const Result<void> written = writeSecretsFile(path, *keys);
            if (!written)
                return written;
        }
    }
    if (!reply.ok() && reply.status == KeychainReply::Status::Failed)
        return Result<void>::failure(
            SecretStore::tr("Cannot remove the API key for %1 from the system keychain: %2")
                .arg(providerId, reply.error));
    return {};
}

void SecretStore::removeKeyAsync(const QString &providerId, QObject *context,
                                 std::function<void(const Result<void> &)> done)
{
    whenFinished(QtConcurrent::run([providerId]() { return Outcome<void>{removeKey(providerId)}; }), context,
                 [done = std::move(done)](const Outcome<void> &outcome) { done(*outcome.result); });
}

QString SecretStore::keyHint(const QString &key)
{
    const QString dots = QStringLiteral("••••");
    // Short keys would give away too large a part of themselves.
    return key.size() >= 12 ? dots + key.right(4) : dots;
}

Result<StoredKey> SecretStore::storedKey(const QString &providerId)
{
    if (Keychain::isGuiThread())
        return Result<StoredKey>::failure(blockingOnGuiThread());
    const KeychainReply reply = Keychain::wait(Keychain::read(keychainKey(providerId)));
    if (reply.ok() && !reply.secret.isEmpty())
        return StoredKey{StoredKey::Location::Keychain, keyHint(reply.secret)};
    const Result<QJsonObject> keys = readSecretsFile(secretsFilePath());
    if (!keys)
        return Result<StoredKey>::failure(keys.error());
    const QString key = keys->value(providerId).toString();
    if (!key.isEmpty())
        return StoredKey{StoredKey::Location::SecretsFile, keyHint(key)};
    return StoredKey{};
}

void SecretStore::storedKeyAsync(const QString &providerId, QObject *context,
                                 std::function<void(const Result<StoredKey> &)> done)
{
    whenFinished(QtConcurrent::run([providerId]() { return Outcome<StoredKey>{storedKey(providerId)}; }),
                 context,
                 [done = std::move(done)](const Outcome<StoredKey> &outcome) { done(*outcome.result); });
}

} // namespace keen
