// The one provider table (issue 13): every provider id in ProviderTable resolves through ConfigResolver and
// gets a client from the factory; the model registry data and the table agree; MiniMax is accepted by both.
#include "config/configresolver.h"
#include "loop/clientfactory.h"
#include "loop/llmclient.h"
#include "providers/providerprotocol.h"
#include "providers/providertable.h"

#include "sourceregistry.h"
#include "testenvironment.h"

#include <QFile>
#include <QTest>

using namespace keen;

class TestProviderTable : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyProviderResolvesAndBuildsAClient_data();
    void everyProviderResolvesAndBuildsAClient();
    void tableIdsAreUniqueAndComplete();
    void registryAndTableAgree();
    void unknownProviderIsRefusedByResolverAndFactoryAlike();
    void customServerKeepsItsNameAndUsesTheCompatibleClient();
    void chatProviderWithoutBaseUrlIsAClearError();

private:
    test::TestEnvironment m_env;
};

void TestProviderTable::everyProviderResolvesAndBuildsAClient_data()
{
    QTest::addColumn<QString>("id");
    for (const ProviderDescriptor &descriptor : ProviderTable::all())
        QTest::newRow(qPrintable(descriptor.id)) << descriptor.id;
}

void TestProviderTable::everyProviderResolvesAndBuildsAClient()
{
    QFETCH(QString, id);
    const ProviderDescriptor *descriptor = ProviderTable::find(id);
    QVERIFY(descriptor);

    Settings settings;
    settings.activeProvider = id;
    ProviderSettings provider;
    // Providers whose models come from the server or the settings need a listed model; openai-compatible also
    // needs its URL, which it has no default for.
    if (descriptor->models != ModelListSource::Registry)
        provider.models = {QStringLiteral("local-model")};
    if (descriptor->defaultBaseUrl.isEmpty() && descriptor->protocol == WireProtocol::OpenAiChat)
        provider.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
    settings.providers.insert(id, provider);

    const ConfigResolver resolver(settings, test::sourceModelRegistry());
    const Result<ResolvedClientConfig> resolved = resolver.resolveWithoutKey(LaunchOptions());
    QVERIFY2(resolved.ok(), qPrintable(resolved.ok() ? QString() : resolved.error()));
    QCOMPARE(resolved->config.providerId, id);
    QVERIFY(!resolved->config.model.isEmpty());
    if (descriptor->models == ModelListSource::Registry)
        QCOMPARE(resolved->config.model, test::sourceModelRegistry().models(id).constFirst().id);

    // The factory builds a client from what the resolver made...
    const Result<std::shared_ptr<LlmClient>> client = createLlmClient(resolved->config);
    QVERIFY2(client.ok(), qPrintable(client.ok() ? QString() : client.error()));
    QVERIFY(*client);
    // ...and the protocol behind it.
    const Result<std::unique_ptr<ProviderProtocol>> protocol = createProviderProtocol(resolved->config);
    QVERIFY2(protocol.ok(), qPrintable(protocol.ok() ? QString() : protocol.error()));
    // The protocol speaks as the table's client id and, for Chat Completions, at the table's endpoint.
    QCOMPARE((*protocol)->config().providerId, descriptor->clientId);
    if (descriptor->protocol == WireProtocol::OpenAiChat && !descriptor->defaultBaseUrl.isEmpty())
        QCOMPARE((*protocol)->config().baseUrl, descriptor->defaultBaseUrl);
}

void TestProviderTable::tableIdsAreUniqueAndComplete()
{
    const QStringList ids = ProviderTable::ids();
    QCOMPARE(QSet<QString>(ids.cbegin(), ids.cend()).size(), ids.size());
    // Every provider of the README's table, and MiniMax, which the factory always routed.
    for (const char *id :
         {"anthropic", "openai", "openai-codex", "googleai", "amazon-bedrock", "openai-compatible",
          "deepseek", "moonshotai", "zai", "minimax", "ollama", "llamacpp", "lmstudio", "vllm", "openrouter"})
        QVERIFY2(ids.contains(QLatin1String(id)), id);
    for (const ProviderDescriptor &descriptor : ProviderTable::all()) {
        QVERIFY2(!descriptor.name.isEmpty(), qPrintable(descriptor.id));
        QVERIFY2(ProviderTable::isKnown(descriptor.clientId), qPrintable(descriptor.id));
        // A provider that needs a key says where it may come from.
        if (descriptor.needsKey())
            QVERIFY2(!descriptor.keyEnvironmentVariables.isEmpty(), qPrintable(descriptor.id));
    }
}

void TestProviderTable::registryAndTableAgree()
{
    // Registry providers are table providers and vice versa: nothing listed in one place only.
    for (const ProviderInfo &info : test::sourceModelRegistry().providers())
        QVERIFY2(ProviderTable::isKnown(info.id), qPrintable(info.id));
    for (const ProviderDescriptor &descriptor : ProviderTable::all()) {
        if (descriptor.models == ModelListSource::Registry)
            QVERIFY2(!test::sourceModelRegistry().models(descriptor.id).isEmpty(), qPrintable(descriptor.id));
    }
    QCOMPARE(test::sourceModelRegistry().providerIds().mid(0, ProviderTable::ids().size()),
             ProviderTable::ids());
    QCOMPARE(
        test::sourceModelRegistry().contextWindow(QStringLiteral("minimax"), QStringLiteral("MiniMax-M3")),
        1000000);
}

void TestProviderTable::unknownProviderIsRefusedByResolverAndFactoryAlike()
{
    Settings settings;
    settings.activeProvider = QStringLiteral("no-such-provider");
    settings.activeModel = QStringLiteral("m");
    const Result<ResolvedClientConfig> resolved =
        ConfigResolver(settings, test::sourceModelRegistry()).resolveWithoutKey(LaunchOptions());
    QVERIFY(!resolved.ok());
    QVERIFY2(resolved.error().contains(QStringLiteral("minimax")), qPrintable(resolved.error()));
    ClientConfig config;
    config.providerId = QStringLiteral("no-such-provider");
    config.model = QStringLiteral("m");
    const Result<std::shared_ptr<LlmClient>> client = createLlmClient(config);
    QVERIFY(!client.ok());
    QVERIFY2(client.error().contains(ProviderTable::ids().join(QStringLiteral(", "))),
             qPrintable(client.error()));
}

// A server the person named under "providers" keeps its name in the config and is spoken to as an
// OpenAI-compatible server at its URL.
void TestProviderTable::customServerKeepsItsNameAndUsesTheCompatibleClient()
{
    Settings settings;
    settings.activeProvider = QStringLiteral("my-server");
    ProviderSettings server;
    server.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
    server.models = {QStringLiteral("local-model")};
    settings.providers.insert(QStringLiteral("my-server"), server);
    const Result<ResolvedClientConfig> resolved =
        ConfigResolver(settings, test::sourceModelRegistry()).resolveWithoutKey(LaunchOptions());
    QVERIFY2(resolved.ok(), qPrintable(resolved.ok() ? QString() : resolved.error()));
    QCOMPARE(resolved->config.providerId, QStringLiteral("my-server"));
    const Result<std::unique_ptr<ProviderProtocol>> protocol = createProviderProtocol(resolved->config);
    QVERIFY2(protocol.ok(), qPrintable(protocol.ok() ? QString() : protocol.error()));
    QCOMPARE((*protocol)->config().providerId, QStringLiteral("openai-compatible"));
    QCOMPARE((*protocol)->config().baseUrl, QStringLiteral("http://127.0.0.1:9/v1"));

    settings.providers[QStringLiteral("my-server")].baseUrl.clear();
    const Result<ResolvedClientConfig> noUrl =
        ConfigResolver(settings, test::sourceModelRegistry()).resolveWithoutKey(LaunchOptions());
    QVERIFY(!noUrl.ok());
    QCOMPARE(noUrl.error(), QStringLiteral("base_url must be configured for provider: my-server"));
}

void TestProviderTable::chatProviderWithoutBaseUrlIsAClearError()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.model = QStringLiteral("m");
    const Result<std::shared_ptr<LlmClient>> client = createLlmClient(config);
    QVERIFY(!client.ok());
    QCOMPARE(client.error(), QStringLiteral("base_url must be configured for provider: openai-compatible"));
}

QTEST_GUILESS_MAIN(TestProviderTable)
#include "tst_providertable.moc"
