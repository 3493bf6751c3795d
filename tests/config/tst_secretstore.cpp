// API keys (reference 8.1, DESIGN "Secrets"): helper > environment > keychain > settings api_key >
// secrets.json (only when allowed, with a warning). A canary key must never appear in an error message or a
// log line.
#include "auth/keychain.h"
#include "config/secretstore.h"
#include "config/settings.h"
#include "testenvironment.h"

#include <QFile>
#include <QFileInfo>
#include <QMutex>
#include <QTest>
#include <QThread>

using namespace keen;

namespace {

const QString kCanary = QStringLiteral("sk-canary-1234567890");

QStringList g_log;
QMutex g_logMutex;
QtMessageHandler g_previousHandler = nullptr;

void captureLog(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    {
        QMutexLocker lock(&g_logMutex);
        g_log.append(message);
    }
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

ProviderSettings withHelper(const QString &command)
{
    ProviderSettings provider;
    provider.apiKeyHelper = command;
    return provider;
}

// Keeps the real keychain out of a test unless it asks for it, and restores the key variables.
class KeyEnvironment
{
public:
    KeyEnvironment()
    {
        for (const char *name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                                 "AWS_BEARER_TOKEN_BEDROCK", "DEEPSEEK_API_KEY", "MOONSHOT_API_KEY",
                                 "ZAI_API_KEY", "OPENROUTER_API_KEY", "KEEN_DISABLE_KEYCHAIN"}) {
            m_saved.append({name, qgetenv(name), qEnvironmentVariableIsSet(name)});
            qunsetenv(name);
        }
        qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    }
    ~KeyEnvironment()
    {
        for (const Saved &saved : m_saved) {
            if (saved.wasSet)
                qputenv(saved.name, saved.value);
            else
                qunsetenv(saved.name);
        }
    }

private:
    struct Saved
    {
        const char *name;
        QByteArray value;
        bool wasSet;
    };
    QList<Saved> m_saved;
};

} // namespace

class TestSecretStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void helperOverridesEverything();
    void helperErrors();
    void helperKeyIsOnlyItsFirstLine();
    void environmentVariablesPerProvider();
    void openAiCompatibleNeverBorrowsAKey();
    void settingsApiKeyIsUsedWithWarning();
    void plainFileOnlyWhenAllowed();
    void storeFallsBackToPrivateFileOnlyWhenAllowed();
    void missingKeyNamesVariableAndSettingsFile();
    void providersWithoutKeysResolveEmpty();
    void asyncDeliversOnTheCallersThread();
    void realKeychainRoundTripWhenAvailable();
    void canaryNeverAppearsInErrorsOrLogs();
};

void TestSecretStore::initTestCase()
{
    g_previousHandler = qInstallMessageHandler(captureLog);
}

void TestSecretStore::helperOverridesEverything()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    qputenv("OPENAI_API_KEY", "from-env");
    ProviderSettings provider = withHelper(QStringLiteral("printf '  from-helper \\n'"));
    provider.apiKey = QStringLiteral("from-settings");
    const auto secret =
        SecretStore::resolve(QStringLiteral("openai"), provider, SecretStore::FileFallback::Allow);
    QVERIFY2(secret.ok(), qPrintable(secret.error()));
    QCOMPARE(secret->key, QStringLiteral("from-helper"));
    QCOMPARE(secret->source, ResolvedSecret::Source::Helper);
    QVERIFY(secret->warning.isEmpty());
}

void TestSecretStore::helperKeyIsOnlyItsFirstLine()
{
    // A "pass show" entry: the password, then notes that must never be sent anywhere (issue 14).
    test::TestEnvironment env;
    KeyEnvironment keys;
    const auto secret = SecretStore::resolve(
        QStringLiteral("openai"),
        withHelper(QStringLiteral("printf 'sk-first-line\\nlogin: me@example.com\\nrecovery: 1234\\n'")),
        SecretStore::FileFallback::Deny);
    QVERIFY2(secret.ok(), qPrintable(secret.error()));
    QCOMPARE(secret->key, QStringLiteral("sk-first-line"));
    // CRLF output keeps only the key too.
    const auto crlf = SecretStore::resolve(QStringLiteral("openai"),
                                           withHelper(QStringLiteral("printf 'sk-crlf\\r\\nnotes\\r\\n'")),
                                           SecretStore::FileFallback::Deny);
    QVERIFY2(crlf.ok(), qPrintable(crlf.error()));
    QCOMPARE(crlf->key, QStringLiteral("sk-crlf"));
}

void TestSecretStore::helperErrors()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    const auto empty = SecretStore::runHelper(QStringLiteral("openai"), QStringLiteral("printf '  \\n'"));
    QVERIFY(!empty.ok());
    QVERIFY2(empty.error().contains(QStringLiteral("printed no key")), qPrintable(empty.error()));
    const auto failing = SecretStore::runHelper(QStringLiteral("openai"), QStringLiteral("exit 4"));
    QVERIFY(!failing.ok());
    QVERIFY2(failing.error().contains(QStringLiteral("exit code 4")), qPrintable(failing.error()));
    QElapsedTimer timer;
    timer.start();
    const auto slow =
        SecretStore::runHelper(QStringLiteral("openai"), QStringLiteral("sleep 5; echo k"), 300);
    QVERIFY(!slow.ok());
    QVERIFY(timer.elapsed() < 3000);
    QVERIFY2(slow.error().contains(QStringLiteral("did not finish")), qPrintable(slow.error()));
    QCOMPARE(SecretStore::HelperTimeoutMs, 30000);
    // A failing helper is an error even when an environment variable would have a key: it overrides.
    qputenv("OPENAI_API_KEY", "from-env");
    QVERIFY(!SecretStore::resolve(QStringLiteral("openai"), withHelper(QStringLiteral("false")),
                                  SecretStore::FileFallback::Deny)
                 .ok());
}

void TestSecretStore::environmentVariablesPerProvider()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    const QList<QPair<QString, QByteArray>> cases{
        {QStringLiteral("openai"), "OPENAI_API_KEY"},
        {QStringLiteral("anthropic"), "ANTHROPIC_API_KEY"},
        {QStringLiteral("googleai"), "GEMINI_API_KEY"},
        {QStringLiteral("amazon-bedrock"), "AWS_BEARER_TOKEN_BEDROCK"},
        {QStringLiteral("deepseek"), "DEEPSEEK_API_KEY"},
        {QStringLiteral("moonshotai"), "MOONSHOT_API_KEY"},
        {QStringLiteral("zai"), "ZAI_API_KEY"},
        {QStringLiteral("openrouter"), "OPENROUTER_API_KEY"},
    };
    for (const auto &[provider, variable] : cases) {
        qputenv(variable.constData(), "key-" + variable);
        const auto secret = SecretStore::resolve(provider, {}, SecretStore::FileFallback::Deny);
        QVERIFY2(secret.ok(), qPrintable(secret.error()));
        QCOMPARE(secret->key, QString::fromLatin1("key-" + variable));
        QCOMPARE(secret->source, ResolvedSecret::Source::Environment);
        QCOMPARE(secret->origin, QString::fromLatin1(variable));
        qunsetenv(variable.constData());
    }
    qputenv("GOOGLE_API_KEY", "google-key");
    QCOMPARE(SecretStore::resolve(QStringLiteral("googleai"), {}, SecretStore::FileFallback::Deny)->key,
             QStringLiteral("google-key"));
    qputenv("GEMINI_API_KEY", "gemini-key");
    QCOMPARE(SecretStore::resolve(QStringLiteral("googleai"), {}, SecretStore::FileFallback::Deny)->key,
             QStringLiteral("gemini-key"));
}

void TestSecretStore::openAiCompatibleNeverBorrowsAKey()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    qputenv("OPENAI_API_KEY", "openai-key");
    qputenv("OPENROUTER_API_KEY", "router-key");
    for (const QString &provider : {QStringLiteral("openai-compatible"), QStringLiteral("ollama")}) {
        const auto secret = SecretStore::resolve(provider, {}, SecretStore::FileFallback::Deny);
        QVERIFY2(secret.ok(), qPrintable(secret.error()));
        QVERIFY(secret->key.isEmpty());
        QCOMPARE(secret->source, ResolvedSecret::Source::None);
    }
}

void TestSecretStore::settingsApiKeyIsUsedWithWarning()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    ProviderSettings provider;
    provider.apiKey = QStringLiteral("in-settings");
    const auto secret =
        SecretStore::resolve(QStringLiteral("anthropic"), provider, SecretStore::FileFallback::Deny);
    QVERIFY(secret.ok());
    QCOMPARE(secret->key, QStringLiteral("in-settings"));
    QCOMPARE(secret->source, ResolvedSecret::Source::SettingsFile);
    QVERIFY(secret->warning.contains(Settings::defaultPath()));
    QVERIFY(!secret->warning.contains(QStringLiteral("in-settings")));
}

void TestSecretStore::plainFileOnlyWhenAllowed()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    writeFile(SecretStore::secretsFilePath(), R"({"api_keys": {"anthropic": "from-file"}})");
    QVERIFY(!SecretStore::resolve(QStringLiteral("anthropic"), {}, SecretStore::FileFallback::Deny).ok());
    const auto secret =
        SecretStore::resolve(QStringLiteral("anthropic"), {}, SecretStore::FileFallback::Allow);
    QVERIFY2(secret.ok(), qPrintable(secret.error()));
    QCOMPARE(secret->key, QStringLiteral("from-file"));
    QCOMPARE(secret->source, ResolvedSecret::Source::SecretsFile);
    QVERIFY(secret->warning.contains(SecretStore::secretsFilePath()));
    QVERIFY(secret->warning.contains(QStringLiteral("unencrypted")));
}

void TestSecretStore::storeFallsBackToPrivateFileOnlyWhenAllowed()
{
    test::TestEnvironment env;
    KeyEnvironment keys; // keychain disabled: "no secret service answers"
    const auto denied = SecretStore::storeKey(QStringLiteral("openai"), QStringLiteral("k1"),
                                              SecretStore::FileFallback::Deny);
    QVERIFY(!denied.ok());
    QVERIFY(!QFile::exists(SecretStore::secretsFilePath()));

    const auto stored = SecretStore::storeKey(QStringLiteral("openai"), QStringLiteral("k1"),
                                              SecretStore::FileFallback::Allow);
    QVERIFY2(stored.ok(), qPrintable(stored.error()));
    QVERIFY(stored->contains(QStringLiteral("unencrypted")));
    QCOMPARE(QFileInfo(SecretStore::secretsFilePath()).permissions() &
                 (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup |
                  QFileDevice::WriteOther),
             QFileDevice::Permissions());
    QCOMPARE(SecretStore::resolve(QStringLiteral("openai"), {}, SecretStore::FileFallback::Allow)->key,
             QStringLiteral("k1"));

    QVERIFY(SecretStore::removeKey(QStringLiteral("openai")).ok());
    QVERIFY(!SecretStore::resolve(QStringLiteral("openai"), {}, SecretStore::FileFallback::Allow).ok());
}

void TestSecretStore::missingKeyNamesVariableAndSettingsFile()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    const auto missing =
        SecretStore::resolve(QStringLiteral("anthropic"), {}, SecretStore::FileFallback::Allow);
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().contains(QStringLiteral("ANTHROPIC_API_KEY")), qPrintable(missing.error()));
    QVERIFY2(missing.error().contains(Settings::defaultPath()), qPrintable(missing.error()));
    QVERIFY2(missing.error().contains(QStringLiteral("keychain")), qPrintable(missing.error()));
}

void TestSecretStore::providersWithoutKeysResolveEmpty()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    for (const QString &provider :
         {QStringLiteral("amazon-bedrock"), QStringLiteral("openai-codex"), QStringLiteral("lmstudio")}) {
        const auto secret = SecretStore::resolve(provider, {}, SecretStore::FileFallback::Deny);
        QVERIFY2(secret.ok(), qPrintable(provider + QLatin1String(": ") + secret.error()));
        QVERIFY(secret->key.isEmpty());
    }
}

void TestSecretStore::asyncDeliversOnTheCallersThread()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    qputenv("OPENAI_API_KEY", "async-key");
    QObject context;
    bool called = false;
    QThread *thread = nullptr;
    QString key;
    SecretStore::resolveAsync(QStringLiteral("openai"), {}, SecretStore::FileFallback::Deny, &context,
                              [&](const Result<ResolvedSecret> &secret) {
                                  called = true;
                                  thread = QThread::currentThread();
                                  key = secret.ok() ? secret->key : secret.error();
                              });
    QTRY_VERIFY(called);
    QCOMPARE(thread, QThread::currentThread());
    QCOMPARE(key, QStringLiteral("async-key"));

    bool stored = false;
    SecretStore::storeKeyAsync(QStringLiteral("openai"), QStringLiteral("k"), SecretStore::FileFallback::Deny,
                               &context, [&](const Result<QString> &result) { stored = !result.ok(); });
    QTRY_VERIFY(stored); // keychain disabled and no fallback: an error, delivered asynchronously
}

void TestSecretStore::realKeychainRoundTripWhenAvailable()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    qunsetenv("KEEN_DISABLE_KEYCHAIN");
    const QString provider =
        QStringLiteral("keen-test-") + QString::number(QCoreApplication::applicationPid());
    const KeychainReply probe =
        Keychain::wait(Keychain::write(SecretStore::keychainKey(provider), kCanary), 10000);
    if (!probe.ok()) {
        // ctest runs this with a private keyring (KEEN_TEST_REQUIRE_KEYCHAIN=1): there it must work. Run by
        // hand without a secret service, the failure itself must be clean.
        QVERIFY2(!qEnvironmentVariableIsSet("KEEN_TEST_REQUIRE_KEYCHAIN"), qPrintable(probe.error));
        QVERIFY(!probe.error.contains(kCanary));
        QVERIFY(!probe.error.isEmpty());
        return;
    }
    ProviderSettings settings;
    const auto secret = SecretStore::resolve(provider, settings, SecretStore::FileFallback::Deny);
    QVERIFY2(secret.ok(), qPrintable(secret.error()));
    QCOMPARE(secret->key, kCanary);
    QCOMPARE(secret->source, ResolvedSecret::Source::Keychain);
    // The settings dialog learns that a key is in the keychain from a hint, never the key (issue 15).
    const Result<StoredKey> stored = SecretStore::storedKey(provider);
    QVERIFY2(stored.ok(), qPrintable(stored.ok() ? QString() : stored.error()));
    QCOMPARE(stored->location, StoredKey::Location::Keychain);
    QCOMPARE(stored->hint, QStringLiteral("••••") + kCanary.right(4));
    QVERIFY(!stored->hint.contains(kCanary.left(8)));
    QVERIFY(SecretStore::removeKey(provider).ok());
    QCOMPARE(Keychain::wait(Keychain::read(SecretStore::keychainKey(provider))).status,
             KeychainReply::Status::NotFound);
    QCOMPARE(SecretStore::storedKey(provider)->location, StoredKey::Location::None);
}

void TestSecretStore::canaryNeverAppearsInErrorsOrLogs()
{
    test::TestEnvironment env;
    KeyEnvironment keys;
    {
        QMutexLocker lock(&g_logMutex);
        g_log.clear();
    }
    QStringList errors;
    auto collect = [&errors](const QString &error) { errors.append(error); };
    const QString canary = kCanary;

    // Helpers that print the key and then fail, that carry the key in the command, and that time out.
    for (const QString &command :
         {QStringLiteral("echo %1; exit 1").arg(canary), QStringLiteral("echo %1 >&2; exit 2").arg(canary),
          QStringLiteral("false # %1").arg(canary), QStringLiteral("kill -9 $$ # %1").arg(canary)}) {
        const auto result = SecretStore::resolve(QStringLiteral("openai"), withHelper(command),
                                                 SecretStore::FileFallback::Allow);
        QVERIFY(!result.ok());
        collect(result.error());
    }
    const auto slow =
        SecretStore::runHelper(QStringLiteral("openai"), QStringLiteral("sleep 3; echo %1").arg(canary), 200);
    QVERIFY(!slow.ok());
    collect(slow.error());

    // The keychain refusing the key (disabled here), then the real keychain (no secret service in most test
    // environments, so it fails with the backend's own error).
    const auto refused =
        SecretStore::storeKey(QStringLiteral("openai"), canary, SecretStore::FileFallback::Deny);
    QVERIFY(!refused.ok());
    collect(refused.error());
    qunsetenv("KEEN_DISABLE_KEYCHAIN");
    const auto real =
        SecretStore::storeKey(QStringLiteral("keen-canary-test"), canary, SecretStore::FileFallback::Deny);
    if (real.ok())
        SecretStore::removeKey(QStringLiteral("keen-canary-test"));
    else
        collect(real.error());
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");

    // Damaged secrets.json and settings.json that hold the key.
    writeFile(SecretStore::secretsFilePath(),
              QStringLiteral("{\"api_keys\": {\"openai\": \"%1\"").arg(canary).toUtf8());
    const auto damaged = SecretStore::resolve(QStringLiteral("openai"), {}, SecretStore::FileFallback::Allow);
    QVERIFY(!damaged.ok());
    collect(damaged.error());
    const auto storeIntoDamaged =
        SecretStore::storeKey(QStringLiteral("openai"), canary, SecretStore::FileFallback::Allow);
    QVERIFY(!storeIntoDamaged.ok());
    collect(storeIntoDamaged.error());
    writeFile(SecretStore::secretsFilePath(),
              QStringLiteral("{\"api_keys\": [\"%1\"]}").arg(canary).toUtf8());
    const auto wrongShape =
        SecretStore::resolve(QStringLiteral("openai"), {}, SecretStore::FileFallback::Allow);
    QVERIFY(!wrongShape.ok());
    collect(wrongShape.error());

    writeFile(Settings::defaultPath(),
              QStringLiteral("{\"providers\": {\"openai\": {\"api_key\": \"%1\"}").arg(canary).toUtf8());
    const auto badSettings = Settings::load();
    QVERIFY(!badSettings.ok());
    collect(badSettings.error());
    writeFile(Settings::defaultPath(),
              QStringLiteral("{\"providers\": {\"openai\": {\"api_key\": \"%1\", \"models\": 5}}}")
                  .arg(canary)
                  .toUtf8());
    const auto wrongType = Settings::load();
    QVERIFY(!wrongType.ok());
    collect(wrongType.error());

    // A key that resolves fine still reports only where it came from.
    ProviderSettings inSettings;
    inSettings.apiKey = canary;
    const auto fine =
        SecretStore::resolve(QStringLiteral("openai"), inSettings, SecretStore::FileFallback::Deny);
    QVERIFY(fine.ok());
    collect(fine->warning);
    collect(fine->origin);

    QVERIFY(errors.size() >= 12);
    for (const QString &error : std::as_const(errors)) {
        QVERIFY2(!error.isEmpty(), "every error path must explain itself");
        QVERIFY2(!error.contains(canary), qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("sk-canary")), qPrintable(error));
    }
    QMutexLocker lock(&g_logMutex);
    for (const QString &line : std::as_const(g_log))
        QVERIFY2(!line.contains(QStringLiteral("sk-canary")), qPrintable(line));
}

QTEST_GUILESS_MAIN(TestSecretStore)
#include "tst_secretstore.moc"
