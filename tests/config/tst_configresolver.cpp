// Building a ClientConfig from settings, registry, keys and launch flags.
#include "config/configresolver.h"
#include "sourceregistry.h"
#include "stream/httpstreamer.h"
#include "testenvironment.h"

#include <QFile>
#include <QTest>

using namespace keen;

namespace {

Settings anthropicSettings()
{
    Settings settings;
    settings.activeProvider = QStringLiteral("anthropic");
    settings.activeModel = QStringLiteral("claude-sonnet-4-6");
    settings.thinkingEffort = QStringLiteral("high");
    ProviderSettings anthropic;
    anthropic.models = {QStringLiteral("claude-sonnet-4-6")};
    anthropic.headers.insert(QStringLiteral("x-team"), QStringLiteral("core"));
    settings.providers.insert(QStringLiteral("anthropic"), anthropic);
    ProviderSettings openai;
    openai.models = {QStringLiteral("gpt-5.4"), QStringLiteral("gpt-5.5")};
    settings.providers.insert(QStringLiteral("openai"), openai);
    return settings;
}

LaunchOptions flags(const QString &provider = QString(), const QString &model = QString())
{
    LaunchOptions options;
    options.provider = provider;
    options.model = model;
    return options;
}

// Key variables cleared and the keychain kept out, restored afterwards.
struct CleanKeys
{
    CleanKeys()
    {
        for (const char *name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"})
            qunsetenv(name);
        qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    }
    ~CleanKeys() { qunsetenv("KEEN_DISABLE_KEYCHAIN"); }
};

} // namespace

class TestConfigResolver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void activeProviderAndModelFromSettings();
    void providerFlagPicksItsFirstConfiguredModel();
    void flagsOverrideSettings();
    void contextWindowPrecedence();
    void thinkingEffortMustSuitTheModel();
    void openAiCompatibleNeedsBaseUrl();
    void presetsUseTheOpenAiCompatibleClient();
    void missingKeySaysWhereToSetIt();
    void keyComesFromTheSecretStore();
    void controlCharactersInHeadersOrKeyAreRefused_data();
    void controlCharactersInHeadersOrKeyAreRefused();
    void theLastCheckBeforeTheWireRefusesC1AndLineSeparators();
    void noProviderOrUnknownProviderIsAnError();
    void asyncResolveDeliversOnContext();
};

void TestConfigResolver::activeProviderAndModelFromSettings()
{
    const auto resolved =
        ConfigResolver(anthropicSettings(), test::sourceModelRegistry()).resolveWithoutKey(flags());
    QVERIFY2(resolved.ok(), qPrintable(resolved.error()));
    QCOMPARE(resolved->config.providerId, QStringLiteral("anthropic"));
    QCOMPARE(resolved->config.model, QStringLiteral("claude-sonnet-4-6"));
    QVERIFY(resolved->config.baseUrl.isEmpty()); // the client's own endpoint
    QCOMPARE(resolved->config.headers.size(), 1);
    QCOMPARE(resolved->config.headers.first(), (QPair<QByteArray, QByteArray>("x-team", "core")));
    QCOMPARE(resolved->config.thinkingEffort, QStringLiteral("high"));
    QCOMPARE(resolved->config.contextWindow, 1000000);
}

void TestConfigResolver::providerFlagPicksItsFirstConfiguredModel()
{
    const ConfigResolver resolver(anthropicSettings(), test::sourceModelRegistry());
    auto resolved = resolver.resolveWithoutKey(flags(QStringLiteral("openai")));
    QVERIFY(resolved.ok());
    QCOMPARE(resolved->config.model, QStringLiteral("gpt-5.4"));
    // Without configured models: the registry's first.
    resolved = resolver.resolveWithoutKey(flags(QStringLiteral("googleai")));
    QVERIFY(resolved.ok());
    QCOMPARE(resolved->config.model, QStringLiteral("gemini-3.1-pro-preview"));
    // Naming the active provider keeps the active model.
    resolved = resolver.resolveWithoutKey(flags(QStringLiteral("anthropic")));
    QCOMPARE(resolved->config.model, QStringLiteral("claude-sonnet-4-6"));
}

void TestConfigResolver::flagsOverrideSettings()
{
    LaunchOptions options = flags(QStringLiteral("openai"), QStringLiteral("gpt-5.5"));
    options.baseUrl = QStringLiteral("https://proxy.example/v1");
    const auto resolved =
        ConfigResolver(anthropicSettings(), test::sourceModelRegistry()).resolveWithoutKey(options);
    QVERIFY(resolved.ok());
    QCOMPARE(resolved->config.providerId, QStringLiteral("openai"));
    QCOMPARE(resolved->config.model, QStringLiteral("gpt-5.5"));
    QCOMPARE(resolved->config.baseUrl, QStringLiteral("https://proxy.example/v1"));
    QVERIFY(resolved->config.headers.isEmpty());
}

void TestConfigResolver::contextWindowPrecedence()
{
    Settings settings = anthropicSettings();
    LaunchOptions options;
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             1000000); // registry
    settings.contextWindow = 300000;
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             300000); // settings
    options.contextWindow = 50000;
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             50000); // flag
    ProviderSettings anthropic = settings.provider(QStringLiteral("anthropic"));
    anthropic.contextWindow = 120000;
    settings.providers.insert(QStringLiteral("anthropic"), anthropic);
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             50000); // the flag over the provider's
    options.contextWindow.reset();
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             120000); // the provider's over the top-level one
    LaunchOptions otherProvider;
    otherProvider.provider = QStringLiteral("openai");
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(otherProvider)
                 ->config.contextWindow,
             300000); // another provider: the top-level one
    // A model's own window (providers.<id>.context_windows) over its provider's, for that model only.
    anthropic.modelContextWindows.insert(QStringLiteral("claude-sonnet-4-6"), 64000);
    settings.providers.insert(QStringLiteral("anthropic"), anthropic);
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             64000);
    LaunchOptions otherModel;
    otherModel.model = QStringLiteral("claude-opus-4-5");
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(otherModel)
                 ->config.contextWindow,
             120000);
    anthropic.modelContextWindows.clear();
    anthropic.contextWindow.reset();
    settings.providers.insert(QStringLiteral("anthropic"), anthropic);
    settings.contextWindow.reset();
    options.contextWindow.reset();
    options.model = QStringLiteral("claude-unknown");
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(options)
                 ->config.contextWindow,
             200000); // default
}

void TestConfigResolver::thinkingEffortMustSuitTheModel()
{
    Settings settings = anthropicSettings();
    settings.thinkingEffort = QStringLiteral("xhigh"); // not offered by claude-sonnet-4-6
    QVERIFY(ConfigResolver(settings, test::sourceModelRegistry())
                .resolveWithoutKey(flags())
                ->config.thinkingEffort.isEmpty());
    settings.activeModel = QStringLiteral("claude-haiku-4-5"); // no thinking efforts at all
    settings.thinkingEffort = QStringLiteral("high");
    QVERIFY(ConfigResolver(settings, test::sourceModelRegistry())
                .resolveWithoutKey(flags())
                ->config.thinkingEffort.isEmpty());
    settings.activeModel = QStringLiteral("custom-model"); // unknown: pass through
    QCOMPARE(ConfigResolver(settings, test::sourceModelRegistry())
                 .resolveWithoutKey(flags())
                 ->config.thinkingEffort,
             QStringLiteral("high"));
}

void TestConfigResolver::openAiCompatibleNeedsBaseUrl()
{
    Settings settings;
    settings.activeProvider = QStringLiteral("openai-compatible");
    settings.activeModel = QStringLiteral("qwen3");
    settings.providers.insert(QStringLiteral("openai-compatible"), ProviderSettings{});
    const auto missing = ConfigResolver(settings, test::sourceModelRegistry()).resolveWithoutKey(flags());
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error(), QStringLiteral("base_url must be configured for provider: openai-compatible"));

    settings.providers[QStringLiteral("openai-compatible")].baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
    test::TestEnvironment env;
    CleanKeys keys;
    qputenv("OPENAI_API_KEY", "must-not-be-borrowed");
    const auto resolved = ConfigResolver(settings, test::sourceModelRegistry())
                              .resolve(flags(), SecretStore::FileFallback::Deny);
    QVERIFY2(resolved.ok(), qPrintable(resolved.error()));
    QCOMPARE(resolved->config.baseUrl, QStringLiteral("http://127.0.0.1:9/v1"));
    QVERIFY(resolved->config.apiKey.isEmpty());
    qunsetenv("OPENAI_API_KEY");
}

void TestConfigResolver::presetsUseTheOpenAiCompatibleClient()
{
    Settings settings;
    settings.activeProvider = QStringLiteral("ollama");
    settings.activeModel = QStringLiteral("llama4");
    const auto ollama = ConfigResolver(settings, test::sourceModelRegistry()).resolveWithoutKey(flags());
    QVERIFY2(ollama.ok(), qPrintable(ollama.error()));
    // The id stays the person's (the window shows "Ollama" and saves "ollama" back); the client factory
    // speaks to it as an OpenAI-compatible server.
    QCOMPARE(ollama->config.providerId, QStringLiteral("ollama"));
    QCOMPARE(ollama->config.baseUrl, QStringLiteral("http://localhost:11434/v1"));
    QCOMPARE(ollama->config.contextWindow, 200000);

    settings.activeProvider = QStringLiteral("deepseek");
    settings.activeModel.clear();
    const auto deepseek = ConfigResolver(settings, test::sourceModelRegistry()).resolveWithoutKey(flags());
    QVERIFY(deepseek.ok());
    QCOMPARE(deepseek->config.providerId, QStringLiteral("deepseek"));
    QCOMPARE(deepseek->config.baseUrl, QStringLiteral("https://api.deepseek.com/"));
    QCOMPARE(deepseek->config.model, QStringLiteral("deepseek-v4-flash"));
}

void TestConfigResolver::missingKeySaysWhereToSetIt()
{
    test::TestEnvironment env;
    CleanKeys keys;
    const auto resolved = ConfigResolver(anthropicSettings(), test::sourceModelRegistry())
                              .resolve(flags(), SecretStore::FileFallback::Deny);
    QVERIFY(!resolved.ok());
    QVERIFY2(resolved.error().contains(QStringLiteral("ANTHROPIC_API_KEY")), qPrintable(resolved.error()));
    QVERIFY2(resolved.error().contains(Settings::defaultPath()), qPrintable(resolved.error()));
}

void TestConfigResolver::keyComesFromTheSecretStore()
{
    test::TestEnvironment env;
    CleanKeys keys;
    qputenv("ANTHROPIC_API_KEY", "anthropic-key");
    const auto resolved = ConfigResolver(anthropicSettings(), test::sourceModelRegistry())
                              .resolve(flags(), SecretStore::FileFallback::Deny);
    QVERIFY2(resolved.ok(), qPrintable(resolved.error()));
    QCOMPARE(resolved->config.apiKey, QStringLiteral("anthropic-key"));
    QVERIFY(resolved->warning.isEmpty());
    qunsetenv("ANTHROPIC_API_KEY");
}

void TestConfigResolver::controlCharactersInHeadersOrKeyAreRefused_data()
{
    QTest::addColumn<QString>("headerName");
    QTest::addColumn<QString>("headerValue");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QString>("expected"); // in the error; empty when the configuration is fine
    const QByteArray good = "sk-canary-good";
    QTest::newRow("fine") << QStringLiteral("x-team") << QStringLiteral("core") << good << QString();
    QTest::newRow("tab in value is fine")
        << QStringLiteral("x-team") << QStringLiteral("a\tb") << good << QString();
    QTest::newRow("LF in value") << QStringLiteral("x-team") << QStringLiteral("core\nX-Injected: 1") << good
                                 << QStringLiteral("x-team");
    QTest::newRow("CR in value") << QStringLiteral("x-team") << QStringLiteral("core\r") << good
                                 << QStringLiteral("x-team");
    QTest::newRow("NUL in value") << QStringLiteral("x-team") << QString(QChar(0)) << good
                                  << QStringLiteral("x-team");
    // C1 controls and the Unicode line and paragraph separators were sent MIME-encoded (issue 14).
    QTest::newRow("NEL (U+0085) in value")
        << QStringLiteral("x-team") << QStringLiteral("core\u0085X-Injected: 1") << good
        << QStringLiteral("x-team");
    QTest::newRow("U+0080 in value") << QStringLiteral("x-team") << QStringLiteral("core\u0080") << good
                                     << QStringLiteral("x-team");
    QTest::newRow("U+009F in value") << QStringLiteral("x-team") << QStringLiteral("core\u009f") << good
                                     << QStringLiteral("x-team");
    QTest::newRow("DEL in value") << QStringLiteral("x-team") << QStringLiteral("core\u007f") << good
                                  << QStringLiteral("x-team");
    QTest::newRow("U+2028 in value") << QStringLiteral("x-team") << QStringLiteral("core\u2028X-Injected: 1")
                                     << good << QStringLiteral("x-team");
    QTest::newRow("U+2029 in value") << QStringLiteral("x-team") << QStringLiteral("core\u2029") << good
                                     << QStringLiteral("x-team");
    QTest::newRow("NEL in name") << QStringLiteral("x-team\u0085X-Injected") << QStringLiteral("core") << good
                                 << QStringLiteral("headers");
    QTest::newRow("accents and CJK in value are fine")
        << QStringLiteral("x-team") << QStringLiteral("Grüße 日本") << good << QString();
    QTest::newRow("NEL in key") << QStringLiteral("x-team") << QStringLiteral("core")
                                << QByteArray("sk-canary-bad\xc2\x85X-Injected: 1")
                                << QStringLiteral("ANTHROPIC_API_KEY");
    QTest::newRow("LF in name") << QStringLiteral("x-team\nX-Injected") << QStringLiteral("core") << good
                                << QStringLiteral("headers");
    QTest::newRow("colon in name") << QStringLiteral("x-team: evil") << QStringLiteral("core") << good
                                   << QStringLiteral("headers");
    QTest::newRow("space in name") << QStringLiteral("x team") << QStringLiteral("core") << good
                                   << QStringLiteral("headers");
    QTest::newRow("empty name") << QString() << QStringLiteral("core") << good << QStringLiteral("headers");
    QTest::newRow("LF in key") << QStringLiteral("x-team") << QStringLiteral("core")
                               << QByteArray("sk-canary-bad\nX-Injected: 1")
                               << QStringLiteral("ANTHROPIC_API_KEY");
}

void TestConfigResolver::controlCharactersInHeadersOrKeyAreRefused()
{
    // A line break would start another header on the wire (issue 14): refused with a clear error.
    QFETCH(QString, headerName);
    QFETCH(QString, headerValue);
    QFETCH(QByteArray, key);
    QFETCH(QString, expected);
    test::TestEnvironment env;
    CleanKeys keys;
    qputenv("ANTHROPIC_API_KEY", key);
    Settings settings = anthropicSettings();
    settings.providers[QStringLiteral("anthropic")].headers = {{headerName, headerValue}};
    const auto resolved = ConfigResolver(settings, test::sourceModelRegistry())
                              .resolve(flags(), SecretStore::FileFallback::Deny);
    qunsetenv("ANTHROPIC_API_KEY");
    if (expected.isEmpty()) {
        QVERIFY2(resolved.ok(), qPrintable(resolved.error()));
        return;
    }
    QVERIFY(!resolved.ok());
    QVERIFY2(resolved.error().contains(expected), qPrintable(resolved.error()));
    // The key itself is never quoted back.
    QVERIFY2(!resolved.error().contains(QStringLiteral("sk-canary")), qPrintable(resolved.error()));
}

void TestConfigResolver::theLastCheckBeforeTheWireRefusesC1AndLineSeparators()
{
    // Every header of every request passes HttpStreamer::checkHeaders (a key from a helper or the keychain
    // included): a NEL or U+2028 there is refused with the message a line break gets, naming the header.
    for (const QByteArray &value : {QByteArray("Bearer sk\xc2\x85X-Injected: 1"),
                                    QByteArray("sk\xe2\x80\xa8x"), QByteArray("sk\xe2\x80\xa9x"),
                                    QByteArray("sk\xc2\x9fx"), QByteArray("sk\x7f"), QByteArray("sk\nx")}) {
        const QString error = HttpStreamer::checkHeaders({{"authorization", value}});
        QVERIFY2(error.contains(QLatin1String("\"authorization\" contains a line break or another control")),
                 qPrintable(error));
    }
    QCOMPARE(HttpStreamer::checkHeaders({{"x-team", "Gr\xc3\xbc\xc3\x9f"
                                                    "e\tok"}}),
             QString());
}

void TestConfigResolver::noProviderOrUnknownProviderIsAnError()
{
    test::TestEnvironment env;
    const auto none = ConfigResolver(Settings{}, test::sourceModelRegistry()).resolveWithoutKey(flags());
    QVERIFY(!none.ok());
    QVERIFY2(none.error().contains(QStringLiteral("--provider")), qPrintable(none.error()));
    const auto unknown = ConfigResolver(Settings{}, test::sourceModelRegistry())
                             .resolveWithoutKey(flags(QStringLiteral("nope")));
    QVERIFY(!unknown.ok());
    QVERIFY2(unknown.error().contains(QStringLiteral("nope")), qPrintable(unknown.error()));
    QVERIFY2(unknown.error().contains(QStringLiteral("anthropic")), qPrintable(unknown.error()));
}

void TestConfigResolver::asyncResolveDeliversOnContext()
{
    test::TestEnvironment env;
    CleanKeys keys;
    qputenv("ANTHROPIC_API_KEY", "async-key");
    QObject context;
    std::optional<Result<ResolvedClientConfig>> result;
    ConfigResolver(anthropicSettings(), test::sourceModelRegistry())
        .resolveAsync(flags(), SecretStore::FileFallback::Deny, &context,
                      [&result](const Result<ResolvedClientConfig> &resolved) { result = resolved; });
    QTRY_VERIFY(result.has_value());
    QVERIFY(result->ok());
    QCOMPARE((*result)->config.apiKey, QStringLiteral("async-key"));
    qunsetenv("ANTHROPIC_API_KEY");

    result.reset();
    ConfigResolver(Settings{}, test::sourceModelRegistry())
        .resolveAsync(flags(), SecretStore::FileFallback::Deny, &context,
                      [&result](const Result<ResolvedClientConfig> &resolved) { result = resolved; });
    QVERIFY(!result.has_value()); // always later, never inside the call
    QTRY_VERIFY(result.has_value());
    QVERIFY(!result->ok());
}

QTEST_GUILESS_MAIN(TestConfigResolver)
#include "tst_configresolver.moc"
