// The model registry as data (reference 1.8) and the provider presets.
#include "config/modelregistry.h"
#include "providers/providertable.h"
#include "sourceregistry.h"

#include <QFile>
#include <QTest>

using namespace keen;

class TestModelRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void builtInRegistryIsCompiledIn();
    void builtInHasReferenceValues();
    void unknownModelGets200k();
    void providerListIncludesPresets();
    void presetsAndDefaults_data();
    void presetsAndDefaults();
    void keyEnvironmentVariablesPerProvider();
    void badRegistryDataIsAnError();
};

void TestModelRegistry::builtInRegistryIsCompiledIn()
{
    QVERIFY2(!ModelRegistry::builtIn().models(QStringLiteral("anthropic")).isEmpty(),
             "the model registry data must be compiled into keen_core");
    QCOMPARE(ModelRegistry::builtIn().providerIds(), test::sourceModelRegistry().providerIds());
}

void TestModelRegistry::builtInHasReferenceValues()
{
    const ModelRegistry &registry = test::sourceModelRegistry();
    QVERIFY(registry.providerIds().contains(QStringLiteral("anthropic")));
    QCOMPARE(registry.providerName(QStringLiteral("anthropic")), QStringLiteral("Anthropic"));
    QCOMPARE(registry.contextWindow(QStringLiteral("anthropic"), QStringLiteral("claude-sonnet-4-6")),
             1000000);
    QCOMPARE(registry.thinkingEfforts(QStringLiteral("anthropic"), QStringLiteral("claude-sonnet-4-6")),
             (QStringList{QStringLiteral("low"), QStringLiteral("medium"), QStringLiteral("high"),
                          QStringLiteral("max")}));
    const auto haiku = registry.model(QStringLiteral("anthropic"), QStringLiteral("claude-haiku-4-5"));
    QVERIFY(haiku);
    QCOMPARE(haiku->contextWindow, 200000);
    QVERIFY(!haiku->supportsThinkingEffort());
    QCOMPARE(registry.contextWindow(QStringLiteral("openai-codex"), QStringLiteral("gpt-5.5")), 272000);
    QCOMPARE(registry.contextWindow(QStringLiteral("googleai"), QStringLiteral("gemini-3.1-pro-preview")),
             1048576);
    QCOMPARE(registry.contextWindow(QStringLiteral("deepseek"), QStringLiteral("deepseek-v4-pro")), 1000000);
    QVERIFY(registry.models(QStringLiteral("openai-compatible")).isEmpty());
    QCOMPARE(registry.provider(QStringLiteral("openai-compatible"))->auth, AuthMode::None);
    QCOMPARE(registry.provider(QStringLiteral("amazon-bedrock"))->auth, AuthMode::Aws);
    QCOMPARE(registry.provider(QStringLiteral("openai-codex"))->auth, AuthMode::OAuth);
    QCOMPARE(registry.provider(QStringLiteral("openai"))->auth, AuthMode::ApiKey);
}

void TestModelRegistry::unknownModelGets200k()
{
    const ModelRegistry &registry = test::sourceModelRegistry();
    QCOMPARE(ModelRegistry::DefaultContextWindow, 200000);
    QCOMPARE(registry.contextWindow(QStringLiteral("anthropic"), QStringLiteral("no-such-model")), 200000);
    QCOMPARE(registry.contextWindow(QStringLiteral("no-such-provider"), QStringLiteral("x")), 200000);
    QVERIFY(!registry.knownContextWindow(QStringLiteral("anthropic"), QStringLiteral("no-such-model")));
    const auto data = ModelRegistry::fromJson(
        R"({"providers":[{"id":"p","name":"P","models":[{"id":"zero","context_window":0}]}]})",
        QStringLiteral("t"));
    QVERIFY(data.ok());
    QVERIFY(!data->knownContextWindow(QStringLiteral("p"), QStringLiteral("zero")));
    QCOMPARE(data->contextWindow(QStringLiteral("p"), QStringLiteral("zero")), 200000);
}

void TestModelRegistry::providerListIncludesPresets()
{
    const QStringList ids = test::sourceModelRegistry().providerIds();
    for (const char *id :
         {"ollama", "llamacpp", "lmstudio", "vllm", "openrouter", "deepseek", "moonshotai", "zai"})
        QVERIFY2(ids.contains(QLatin1String(id)), id);
    QCOMPARE(ids.count(QStringLiteral("deepseek")), 1); // the preset merges with the registry entry
    const auto ollama = test::sourceModelRegistry().provider(QStringLiteral("ollama"));
    QVERIFY(ollama && ollama->preset);
    QCOMPARE(ollama->name, QStringLiteral("Ollama"));
    QCOMPARE(ollama->defaultBaseUrl, QStringLiteral("http://localhost:11434/v1"));
}

void TestModelRegistry::presetsAndDefaults_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<QString>("client");
    QTest::addColumn<int>("auth");
    const int none = int(AuthMode::None);
    const int key = int(AuthMode::ApiKey);
    QTest::newRow("ollama") << QStringLiteral("ollama") << QStringLiteral("http://localhost:11434/v1")
                            << QStringLiteral("openai-compatible") << none;
    QTest::newRow("llamacpp") << QStringLiteral("llamacpp") << QStringLiteral("http://localhost:8080/v1")
                              << QStringLiteral("openai-compatible") << none;
    QTest::newRow("lmstudio") << QStringLiteral("lmstudio") << QStringLiteral("http://localhost:1234/v1")
                              << QStringLiteral("openai-compatible") << none;
    QTest::newRow("vllm") << QStringLiteral("vllm") << QStringLiteral("http://localhost:8000/v1")
                          << QStringLiteral("openai-compatible") << none;
    QTest::newRow("openrouter") << QStringLiteral("openrouter")
                                << QStringLiteral("https://openrouter.ai/api/v1")
                                << QStringLiteral("openai-compatible") << key;
    QTest::newRow("deepseek") << QStringLiteral("deepseek") << QStringLiteral("https://api.deepseek.com/")
                              << QStringLiteral("deepseek") << key;
    QTest::newRow("moonshotai") << QStringLiteral("moonshotai")
                                << QStringLiteral("https://api.moonshot.ai/v1/")
                                << QStringLiteral("moonshotai") << key;
    QTest::newRow("zai") << QStringLiteral("zai") << QStringLiteral("https://api.z.ai/api/paas/v4/")
                         << QStringLiteral("zai") << key;
    QTest::newRow("openai-compatible") << QStringLiteral("openai-compatible") << QStringLiteral("")
                                       << QStringLiteral("openai-compatible") << none;
    QTest::newRow("custom") << QStringLiteral("my-server") << QStringLiteral("")
                            << QStringLiteral("openai-compatible") << none;
    QTest::newRow("codex") << QStringLiteral("openai-codex")
                           << QStringLiteral("https://chatgpt.com/backend-api/codex/")
                           << QStringLiteral("openai-codex") << int(AuthMode::OAuth);
    QTest::newRow("bedrock") << QStringLiteral("amazon-bedrock") << QStringLiteral("")
                             << QStringLiteral("amazon-bedrock") << int(AuthMode::Aws);
    QTest::newRow("anthropic") << QStringLiteral("anthropic") << QStringLiteral("https://api.anthropic.com")
                               << QStringLiteral("anthropic") << key;
    QTest::newRow("minimax") << QStringLiteral("minimax")
                             << QStringLiteral("https://api.minimax.io/anthropic")
                             << QStringLiteral("minimax") << key;
    QTest::newRow("googleai") << QStringLiteral("googleai")
                              << QStringLiteral("https://generativelanguage.googleapis.com/v1beta")
                              << QStringLiteral("googleai") << key;
}

void TestModelRegistry::presetsAndDefaults()
{
    QFETCH(QString, id);
    QFETCH(QString, baseUrl);
    QFETCH(QString, client);
    QFETCH(int, auth);
    QCOMPARE(ProviderTable::defaultBaseUrl(id), baseUrl);
    QCOMPARE(ProviderTable::clientProvider(id), client);
    QCOMPARE(int(ProviderTable::authMode(id)), auth);
}

void TestModelRegistry::keyEnvironmentVariablesPerProvider()
{
    QCOMPARE(ProviderTable::keyEnvironmentVariables(QStringLiteral("openai")),
             QStringList{QStringLiteral("OPENAI_API_KEY")});
    QCOMPARE(ProviderTable::keyEnvironmentVariables(QStringLiteral("googleai")),
             (QStringList{QStringLiteral("GEMINI_API_KEY"), QStringLiteral("GOOGLE_API_KEY")}));
    QCOMPARE(ProviderTable::keyEnvironmentVariables(QStringLiteral("amazon-bedrock")),
             QStringList{QStringLiteral("AWS_BEARER_TOKEN_BEDROCK")});
    QCOMPARE(ProviderTable::keyEnvironmentVariables(QStringLiteral("moonshotai")),
             QStringList{QStringLiteral("MOONSHOT_API_KEY")});
    QVERIFY(ProviderTable::keyEnvironmentVariables(QStringLiteral("openai-compatible")).isEmpty());
    QVERIFY(ProviderTable::keyEnvironmentVariables(QStringLiteral("ollama")).isEmpty());
}

void TestModelRegistry::badRegistryDataIsAnError()
{
    const auto broken = ModelRegistry::fromJson("{\"providers\": [", QStringLiteral("models.json"));
    QVERIFY(!broken.ok());
    QVERIFY(broken.error().contains(QStringLiteral("models.json")));
    const auto noList = ModelRegistry::fromJson("{}", QStringLiteral("models.json"));
    QVERIFY(!noList.ok());
}

QTEST_GUILESS_MAIN(TestModelRegistry)
#include "tst_modelregistry.moc"
