// The settings dialog's connection test (issue 13): each provider's own protocol builds a models-list
// request, so each gets its own authentication; sent to a loopback fake server, never to the network.
#include "agent/connectiontest.h"
#include "providers/localserverhint.h"
#include "providers/providertable.h"

#include "fakeproviderserver.h"
#include "testenvironment.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace keen;
using test::FakeProviderServer;

class TestConnectionTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void requestCarriesTheProvidersOwnAuth_data();
    void requestCarriesTheProvidersOwnAuth();
    void bedrockWithoutKeySignsWithSigV4();
    void refusalNamesTheStatusNeverTheKey();
    void aLocalServerThatIsNotRunningIsNamed();
    void codexWithoutSignInSaysSoAndSendsNothing();
    void listedModelsAreReadInTheProtocolsShape_data();
    void listedModelsAreReadInTheProtocolsShape();
    void aWebPageIsNotTakenForTheApi();

private:
    test::TestEnvironment m_env;
};

void TestConnectionTest::initTestCase()
{
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    for (const char *name :
         {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"})
        qunsetenv(name);
    qputenv("AWS_REGION", "eu-west-1");
}

void TestConnectionTest::requestCarriesTheProvidersOwnAuth_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("basePath"); // appended to the server's URL as the configured base URL
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QByteArray>("value");     // the header's expected value; empty: the header is absent
    QTest::addColumn<QByteArray>("forbidden"); // a header that must not be sent
    QTest::newRow("anthropic") << "anthropic"
                               << "" << QByteArray("/v1/models") << QByteArray("x-api-key")
                               << QByteArray("key-123") << QByteArray("authorization");
    QTest::newRow("minimax") << "minimax"
                             << "/anthropic" << QByteArray("/anthropic/v1/models") << QByteArray("x-api-key")
                             << QByteArray("key-123") << QByteArray("authorization");
    QTest::newRow("googleai") << "googleai"
                              << "/v1beta" << QByteArray("/v1beta/models") << QByteArray("x-goog-api-key")
                              << QByteArray("key-123") << QByteArray("authorization");
    QTest::newRow("openai") << "openai"
                            << "/v1" << QByteArray("/v1/models") << QByteArray("authorization")
                            << QByteArray("Bearer key-123") << QByteArray("x-api-key");
    for (const char *id :
         {"deepseek", "moonshotai", "zai", "openrouter", "ollama", "vllm", "openai-compatible"})
        QTest::newRow(id) << QString::fromLatin1(id) << "/v1" << QByteArray("/v1/models")
                          << QByteArray("authorization") << QByteArray("Bearer key-123")
                          << QByteArray("x-api-key");
    QTest::newRow("amazon-bedrock bearer")
        << "amazon-bedrock"
        << "" << QByteArray("/foundation-models") << QByteArray("authorization")
        << QByteArray("Bearer key-123") << QByteArray("x-amz-date");
}

void TestConnectionTest::requestCarriesTheProvidersOwnAuth()
{
    QFETCH(QString, provider);
    QFETCH(QString, basePath);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, header);
    QFETCH(QByteArray, value);
    QFETCH(QByteArray, forbidden);
    QVERIFY(ProviderTable::isKnown(provider));

    FakeProviderServer server;
    server.enqueue(FakeProviderServer::jsonResponse(200, R"({"data":[{"id":"m"}]})"));
    ClientConfig config;
    config.providerId = provider;
    config.baseUrl = server.baseUrl().toString() + basePath;
    config.apiKey = QStringLiteral("key-123");
    ConnectionTest test;
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("✓ Connected."));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(server.requests().size(), 1);
    const FakeProviderServer::Request request = server.lastRequest();
    QCOMPARE(request.method, QByteArray("GET"));
    QCOMPARE(request.path, path);
    QCOMPARE(request.header(header), value);
    QVERIFY2(!request.hasHeader(forbidden), forbidden.constData());
}

void TestConnectionTest::bedrockWithoutKeySignsWithSigV4()
{
    qputenv("AWS_ACCESS_KEY_ID", "AKIDCONNECTIONTEST");
    qputenv("AWS_SECRET_ACCESS_KEY", "secret-never-sent");
    FakeProviderServer server;
    server.enqueue(FakeProviderServer::jsonResponse(200, R"({"modelSummaries":[]})"));
    ClientConfig config;
    config.providerId = QStringLiteral("amazon-bedrock");
    config.baseUrl = server.baseUrl().toString();
    ConnectionTest test;
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    qunsetenv("AWS_ACCESS_KEY_ID");
    qunsetenv("AWS_SECRET_ACCESS_KEY");
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    const FakeProviderServer::Request request = server.lastRequest();
    QCOMPARE(request.path, QByteArray("/foundation-models"));
    const QByteArray authorization = request.header("authorization");
    QVERIFY2(authorization.startsWith("AWS4-HMAC-SHA256 Credential=AKIDCONNECTIONTEST/"),
             authorization.constData());
    QVERIFY2(authorization.contains("/eu-west-1/bedrock/aws4_request"), authorization.constData());
    QVERIFY(request.hasHeader("x-amz-date"));
    for (const auto &[name, headerValue] : request.headers)
        QVERIFY(!headerValue.contains("secret-never-sent"));
}

void TestConnectionTest::refusalNamesTheStatusNeverTheKey()
{
    FakeProviderServer server;
    server.enqueue(FakeProviderServer::jsonResponse(401, R"({"error":{"message":"bad key canary-key-7"}})"));
    ClientConfig config;
    config.providerId = QStringLiteral("googleai");
    config.baseUrl = server.baseUrl().toString();
    config.apiKey = QStringLiteral("canary-key-7");
    ConnectionTest test;
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    const QString message = finished.at(0).at(1).toString();
    // What the chat would say of it: the provider's own words, with the key it quoted taken out.
    QVERIFY2(message.startsWith(QStringLiteral("✗ ")) && message.contains(QStringLiteral("HTTP 401")) &&
                 message.contains(QStringLiteral("bad key [redacted]")),
             qPrintable(message));
    QVERIFY(!message.contains(QStringLiteral("canary-key-7")));

    // A body that says nothing: the status.
    server.enqueue(FakeProviderServer::jsonResponse(503, QByteArray()));
    test.start(config);
    QVERIFY(finished.wait(10000));
    QVERIFY2(finished.at(1).at(1).toString().contains(QStringLiteral("HTTP 503")),
             qPrintable(finished.at(1).at(1).toString()));
}

// Seen when tried: Test Connection against a local server that was not running said only "✗ Connection
// refused"; the chat says which server to start. Both say it now.
void TestConnectionTest::aLocalServerThatIsNotRunningIsNamed()
{
    QTcpServer closed; // a port nothing listens on once this closes
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.baseUrl = QStringLiteral("http://127.0.0.1:%1/v1").arg(port);
    ConnectionTest test;
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QCOMPARE(finished.at(0).at(1).toString(),
             QStringLiteral(
                 "✗ connection refused at http://127.0.0.1:%1: is the local server running on that port?")
                 .arg(port));

    // On Ollama's port, the server is named (the provider table's preset).
    const QUrl ollama(ProviderTable::find(QStringLiteral("ollama"))->defaultBaseUrl);
    QCOMPARE(LocalServerHint::connectionRefused(ollama),
             QStringLiteral("connection refused at http://localhost:11434: is Ollama running?"));
}

void TestConnectionTest::codexWithoutSignInSaysSoAndSendsNothing()
{
    FakeProviderServer server;
    ClientConfig config;
    config.providerId = QStringLiteral("openai-codex");
    config.baseUrl = server.baseUrl().toString();
    ConnectionTest test;
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    const QString message = finished.at(0).at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("sign in")), qPrintable(message));
    QVERIFY(server.requests().isEmpty());
}

void TestConnectionTest::listedModelsAreReadInTheProtocolsShape_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("models"); // what modelsListed carries; empty: not emitted
    const QByteArray data =
        R"({"object":"list","data":[{"id":"llama3.2"},{"id":"qwen2.5-coder"},{"id":"llama3.2"}]})";
    const QStringList both{QStringLiteral("llama3.2"), QStringLiteral("qwen2.5-coder")};
    QTest::newRow("openai-compatible") << "openai-compatible" << data << both;
    QTest::newRow("anthropic") << "anthropic" << data << both;
    QTest::newRow("googleai")
        << "googleai"
        << QByteArray(
               R"({"models":[{"name":"models/gemini-3.6-flash","supportedGenerationMethods":["generateContent"]},)"
               R"({"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}]})")
        << QStringList{QStringLiteral("gemini-3.6-flash")};
    QTest::newRow("empty list") << "openai-compatible" << QByteArray(R"({"data":[]})") << QStringList();
}

// The settings dialog fills its Model list from what the connection test fetched.
void TestConnectionTest::listedModelsAreReadInTheProtocolsShape()
{
    QFETCH(QString, provider);
    QFETCH(QByteArray, body);
    QFETCH(QStringList, models);
    FakeProviderServer server;
    server.enqueue(FakeProviderServer::jsonResponse(200, body));
    ClientConfig config;
    config.providerId = provider;
    config.baseUrl = server.baseUrl().toString();
    config.apiKey = QStringLiteral("key-123");
    ConnectionTest test;
    QSignalSpy listed(&test, &ConnectionTest::modelsListed);
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    if (models.isEmpty()) {
        QCOMPARE(listed.count(), 0);
    } else {
        QCOMPARE(listed.count(), 1);
        QCOMPARE(listed.at(0).at(0).toStringList(), models);
    }
}

// Found trying a base URL that reached a web server instead of the API (2026-12-07): its page answered the
// models request with 200, and Test Connection said "✓ Connected." while every chat request then failed.
void TestConnectionTest::aWebPageIsNotTakenForTheApi()
{
    FakeProviderServer server;
    FakeProviderServer::Response page;
    page.contentType = "text/html";
    page.body =
        "<html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>";
    server.enqueue(page);
    server.enqueue(FakeProviderServer::jsonResponse(200, "ok")); // not JSON either, whatever it is labelled
    FakeProviderServer::Response missing; // a server without the API's paths, as Ollama's root without /v1
    missing.status = 404;
    missing.contentType = "text/plain";
    missing.body = "404 page not found";
    server.enqueue(missing);
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.baseUrl = server.baseUrl().toString();
    ConnectionTest test;
    QSignalSpy listed(&test, &ConnectionTest::modelsListed);
    QSignalSpy finished(&test, &ConnectionTest::finished);
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QCOMPARE(
        finished.at(0).at(1).toString(),
        QStringLiteral("✗ The server answered with text/html (“Welcome to nginx!”), not "
                       "with the API's list of models. Check the base URL: it must be the address of the "
                       "API."));
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(1).at(0).toBool(), false);
    QVERIFY2(finished.at(1).at(1).toString().contains(
                 QStringLiteral("application/json (“ok”), not with the API's")),
             qPrintable(finished.at(1).at(1).toString()));
    test.start(config);
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(2).at(0).toBool(), false);
    QVERIFY2(finished.at(2).at(1).toString().endsWith(
                 QStringLiteral("Nothing answers at %1/models: check base_url (an OpenAI-compatible server's "
                                "usually ends in /v1)")
                     .arg(server.baseUrl().toString())),
             qPrintable(finished.at(2).at(1).toString()));
    QCOMPARE(listed.count(), 0);
}

QTEST_GUILESS_MAIN(TestConnectionTest)
#include "tst_connectiontest.moc"
