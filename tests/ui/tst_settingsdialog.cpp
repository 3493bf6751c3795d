// Settings, first-run probing of local servers and the /context table.
#include "config/modelregistry.h"
#include "config/secretstore.h"
#include "contextdialog.h"
#include "providers/providertable.h"
#include "settings/localserverprobe.h"
#include "settings/settingsdialog.h"
#include "settings/setupwizard.h"

#include "storedchatgptsignin.h"
#include "testenvironment.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QThreadPool>

#include <tuple>

using namespace keen;

namespace {
// A loopback server that answers every request with one JSON body, like an OpenAI-compatible /v1/models.
class ModelsServer : public QTcpServer
{
public:
    explicit ModelsServer(int status = 200)
        : m_status(status)
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    m_request += socket->readAll();
                    if (!m_request.contains("\r\n\r\n"))
                        return;
                    const QByteArray body =
                        R"({"object":"list","data":[{"id":"llama3.2"},{"id":"qwen2.5-coder"}]})";
                    socket->write("HTTP/1.1 " + QByteArray::number(m_status) +
                                  " X\r\nContent-Type: application/json\r\n"
                                  "Content-Length: " +
                                  QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
                    socket->disconnectFromHost();
                });
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(serverPort()); }
    QByteArray request() const { return m_request; }

private:
    int m_status;
    QByteArray m_request;
};
} // namespace

class TestSettingsDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void apiKeyIsMaskedAndConfigRoundTrips();
    void thinkingEffortIsShownAndKept();
    void storedKeyIsShownMaskedAndCanBeRemoved();
    void removedKeyIsNotStoredAgainByOk();
    void keyOfOneProviderIsNotOfferedToAnother();
    void backOnTheFirstProviderItsSettingsReturn();
    void providerListsComeFromTheTable();
    void testConnectionReportsSuccessAndSendsTheKey();
    void testConnectionReportsHttpErrorsWithoutTheKey();
    void testConnectionFillsTheModelListKeepingATypedName();
    void baseUrlPlaceholderSaysWhatAServerNeeds();
    void chatGptSignInIsOfferedForCodex();
    void okStaysDisabledUntilAServerHasABaseUrlAndAModel();
    void okWaitsForAKeyUnlessOneIsStoredOrInTheEnvironment();
    void providersWithoutARequiredKeyAreNotBlocked();
    void codexOkWaitsForAChatGptSignInUnlessOneIsStored();
    void typedModelIsSavedExactlyEvenWhenAListedOneStartsWithIt();
    void probeFindsLocalServers();
    void contextTableRows();
    void keyFieldSaysWhereAKeyGoesWithoutAKeychain();

private:
    test::TestEnvironment m_env;
};

void TestSettingsDialog::initTestCase()
{
    // No Secret Service in this test: keys the app stores go to secrets.json under the test's KEEN_HOME.
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    // Nor keys of the machine running the test: OK would be enabled by them.
    for (const ProviderDescriptor &provider : ProviderTable::all()) {
        for (const QString &variable : provider.keyEnvironmentVariables)
            qunsetenv(variable.toLatin1().constData());
    }
}

namespace {
QPushButton *okButton(const SettingsDialog &dialog)
{
    return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
}

// The line under the fields, as a person sees it: empty when hidden.
QString missingLine(const SettingsDialog &dialog)
{
    const auto *label = dialog.findChild<QLabel *>(QStringLiteral("settingsMissing"));
    return label->isVisible() ? label->text() : QString();
}
} // namespace

// Issue 15: the dialog says that a key is already stored (as a hint, never the key) and removes it.
void TestSettingsDialog::storedKeyIsShownMaskedAndCanBeRemoved()
{
    const QString key = QStringLiteral("sk-stored-secret-7890");
    // Stored the way the window stores a key: on a worker thread, the answer back on this one.
    std::optional<Result<QString>> saved;
    QObject context;
    SecretStore::storeKeyAsync(QStringLiteral("deepseek"), key, SecretStore::FileFallback::Allow, &context,
                               [&saved](const Result<QString> &result) { saved = result; });
    QTRY_VERIFY(saved.has_value());
    QVERIFY2(saved->ok(), qPrintable(saved->ok() ? QString() : saved->error()));

    ClientConfig config;
    config.providerId = QStringLiteral("deepseek");
    SettingsDialog dialog(config);
    dialog.show();
    auto *stored = dialog.findChild<QLabel *>(QStringLiteral("settingsStoredKey"));
    auto *remove = dialog.findChild<QPushButton *>(QStringLiteral("settingsRemoveKey"));
    QVERIFY(stored && remove);
    const QString expected =
        QStringLiteral("Stored unencrypted in %1 ••••7890").arg(SecretStore::secretsFilePath());
    QTRY_COMPARE(stored->text(), expected);
    QVERIFY(remove->isVisible());
    QVERIFY(!stored->text().contains(QStringLiteral("stored-secret")));
    // The key field stays empty: the stored key is never loaded into the dialog.
    QVERIFY(dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"))->text().isEmpty());

    // Another provider has none.
    auto *provider = dialog.findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("zai")));
    QTRY_COMPARE(stored->text(), QStringLiteral("No key stored."));
    QVERIFY(!remove->isVisible());
    // Its key comes from the environment: the line says so (under a masked key field, "No key stored"
    // alone read as a contradiction).
    const QString variable = ProviderTable::keyEnvironmentVariables(QStringLiteral("zai")).value(0);
    QVERIFY(!variable.isEmpty());
    qputenv(variable.toLocal8Bit().constData(), "sk-from-the-environment");
    provider->setCurrentIndex(provider->findData(QStringLiteral("deepseek")));
    QTRY_COMPARE(stored->text(), expected);
    provider->setCurrentIndex(provider->findData(QStringLiteral("zai")));
    QTRY_COMPARE(stored->text(),
                 QStringLiteral("No key stored: the key in use comes from the environment variable %1.")
                     .arg(variable));
    QVERIFY(!stored->text().contains(QStringLiteral("sk-from")));
    qunsetenv(variable.toLocal8Bit().constData());
    provider->setCurrentIndex(provider->findData(QStringLiteral("deepseek")));
    QTRY_COMPARE(stored->text(), expected);

    QTest::mouseClick(remove, Qt::LeftButton);
    QTRY_COMPARE(stored->text(), QStringLiteral("No key stored."));
    QVERIFY(!remove->isVisible());
    QFile secrets(SecretStore::secretsFilePath());
    QVERIFY(secrets.open(QIODevice::ReadOnly));
    QVERIFY(!secrets.readAll().contains("stored-secret"));
}

// Issue 15: the window opens Settings with the key its session uses, which is the stored one. After Remove
// Stored Key that key left in the field would be stored again by OK: the field empties, OK keeps no key.
void TestSettingsDialog::removedKeyIsNotStoredAgainByOk()
{
    const QString key = QStringLiteral("sk-removed-secret-4321");
    std::optional<Result<QString>> saved;
    QObject context;
    SecretStore::storeKeyAsync(QStringLiteral("moonshotai"), key, SecretStore::FileFallback::Allow, &context,
                               [&saved](const Result<QString> &result) { saved = result; });
    QTRY_VERIFY(saved.has_value());
    QVERIFY(saved->ok());

    ClientConfig config;
    config.providerId = QStringLiteral("moonshotai");
    config.apiKey = key; // as MainWindow passes m_session->clientConfig()
    SettingsDialog dialog(config);
    dialog.show();
    auto *stored = dialog.findChild<QLabel *>(QStringLiteral("settingsStoredKey"));
    auto *remove = dialog.findChild<QPushButton *>(QStringLiteral("settingsRemoveKey"));
    auto *field = dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"));
    QTRY_VERIFY(remove->isVisible());
    QCOMPARE(field->text(), key);

    QTest::mouseClick(remove, Qt::LeftButton);
    QTRY_COMPARE(stored->text(), QStringLiteral("No key stored."));
    QVERIFY(field->text().isEmpty());
    std::optional<ClientConfig> accepted;
    connect(&dialog, &SettingsDialog::configAccepted, this,
            [&accepted](const ClientConfig &config) { accepted = config; });
    // Moonshot has no key now: OK waits for one instead of saving a configuration that cannot connect.
    QTRY_VERIFY(!okButton(dialog)->isEnabled());
    QTest::keyClick(&dialog, Qt::Key_Return);
    QVERIFY(!accepted.has_value());
    // A new key is what OK keeps, never the removed one.
    QTest::keyClicks(field, QStringLiteral("sk-new-secret-5555"));
    QVERIFY(okButton(dialog)->isEnabled());
    QTest::keyClick(&dialog, Qt::Key_Return);
    QVERIFY(accepted.has_value());
    QCOMPARE(accepted->apiKey, QStringLiteral("sk-new-secret-5555"));
}

// Issue 15: switching the provider in Settings showed the other provider's key in the key field (and beside
// it "No key stored."); OK then stored that key for the new provider and sent it there.
void TestSettingsDialog::keyOfOneProviderIsNotOfferedToAnother()
{
    ClientConfig config;
    config.providerId = QStringLiteral("deepseek");
    config.apiKey = QStringLiteral("sk-deepseek-only-1111");
    SettingsDialog dialog(config);
    auto *provider = dialog.findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    auto *field = dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"));
    QCOMPARE(field->text(), config.apiKey);

    provider->setCurrentIndex(provider->findData(QStringLiteral("zai")));
    QVERIFY(field->text().isEmpty());
    QVERIFY(dialog.config().apiKey.isEmpty());
    // Back on its own provider the key is there again.
    provider->setCurrentIndex(provider->findData(QStringLiteral("deepseek")));
    QCOMPARE(field->text(), config.apiKey);

    // A key typed in after choosing a provider stays when the person picks another one.
    provider->setCurrentIndex(provider->findData(QStringLiteral("zai")));
    field->setText(QStringLiteral("sk-typed-for-zai-2222"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("minimax")));
    QCOMPARE(field->text(), QStringLiteral("sk-typed-for-zai-2222"));
}

// Issue 15: looking at another provider and coming back reset an OpenAI-compatible server's base URL and
// model to empty (its defaults), so OK then saved a configuration that cannot connect.
void TestSettingsDialog::backOnTheFirstProviderItsSettingsReturn()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.baseUrl = QStringLiteral("http://127.0.0.1:18080/v1");
    config.model = QStringLiteral("local-model");
    config.apiKey = QStringLiteral("sk-local-key-123456");
    SettingsDialog dialog(config);
    auto *provider = dialog.findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("deepseek")));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl"))->text(),
             QStringLiteral("https://api.deepseek.com/"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("openai-compatible")));
    QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl"))->text(), config.baseUrl);
    QCOMPARE(dialog.findChild<QComboBox *>(QStringLiteral("settingsModel"))->currentText(), config.model);
    const ClientConfig back = dialog.config();
    QCOMPARE(back.baseUrl, config.baseUrl);
    QCOMPARE(back.model, config.model);
    QCOMPARE(back.apiKey, config.apiKey);
}

void TestSettingsDialog::apiKeyIsMaskedAndConfigRoundTrips()
{
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.model = QStringLiteral("claude-fable-5-1");
    config.apiKey = QStringLiteral("sk-secret");
    config.headers = {{"X-Team", "core"}};
    SettingsDialog dialog(config);
    auto *key = dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"));
    QCOMPARE(key->echoMode(), QLineEdit::Password);
    const ClientConfig back = dialog.config();
    QCOMPARE(back.providerId, config.providerId);
    QCOMPARE(back.model, config.model);
    QCOMPARE(back.apiKey, config.apiKey);
    QCOMPARE(back.headers, config.headers);
    QSignalSpy accepted(&dialog, &SettingsDialog::configAccepted);
    dialog.show();
    QTest::keyClick(&dialog, Qt::Key_Return);
    QCOMPARE(accepted.count(), 1);
}

// The dialog opens on the effort the session uses (the window's status bar says "thinking: high"), and OK
// without touching it keeps that effort instead of resetting it to the provider default.
void TestSettingsDialog::thinkingEffortIsShownAndKept()
{
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.model = QStringLiteral("claude-fable-5-1");
    config.thinkingEffort = QStringLiteral("high");
    SettingsDialog dialog(config);
    dialog.open();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto *thinking = dialog.findChild<QComboBox *>(QStringLiteral("settingsThinking"));
    QVERIFY(thinking);
    QCOMPARE(thinking->currentText(), QStringLiteral("high"));
    QVERIFY(thinking->isEnabled());
    QCOMPARE(dialog.config().thinkingEffort, QStringLiteral("high"));

    // Choosing another model that also offers "high" keeps the choice.
    auto *model = dialog.findChild<QComboBox *>(QStringLiteral("settingsModel"));
    model->setCurrentText(QStringLiteral("claude-fable-5"));
    QCOMPARE(thinking->currentText(), QStringLiteral("high"));
    QCOMPARE(dialog.config().thinkingEffort, QStringLiteral("high"));
}

// The settings dialog's and the first-run setup's provider lists are the provider table, in its order, with
// its names; the model list of a provider is the registry's.
void TestSettingsDialog::providerListsComeFromTheTable()
{
    QStringList tableIds;
    QStringList tableNames;
    for (const ProviderDescriptor &descriptor : ProviderTable::all()) {
        tableIds << descriptor.id;
        tableNames << descriptor.name;
    }
    auto items = [](QComboBox *combo) {
        QStringList ids;
        QStringList names;
        for (int i = 0; i < combo->count(); ++i) {
            ids << combo->itemData(i).toString();
            names << combo->itemText(i);
        }
        return std::pair{ids, names};
    };

    SettingsDialog dialog(ClientConfig{});
    auto *settingsProvider = dialog.findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    QVERIFY(settingsProvider);
    QCOMPARE(items(settingsProvider).first, tableIds);
    QCOMPARE(items(settingsProvider).second, tableNames);
    settingsProvider->setCurrentIndex(settingsProvider->findData(QStringLiteral("minimax")));
    auto *model = dialog.findChild<QComboBox *>(QStringLiteral("settingsModel"));
    QStringList registryModels;
    for (const ModelInfo &info : ModelRegistry::builtIn().models(QStringLiteral("minimax")))
        registryModels << info.id;
    QVERIFY(!registryModels.isEmpty());
    QCOMPARE(items(model).second, registryModels);
    // The key field follows the table's auth mode: none for the ChatGPT sign-in.
    auto *key = dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"));
    QVERIFY(key->isEnabled());
    settingsProvider->setCurrentIndex(settingsProvider->findData(QStringLiteral("openai-codex")));
    QVERIFY(!key->isEnabled());

    SetupWizard wizard;
    wizard.probe()->setTargets({}); // no probing of this machine's ports from a test
    auto *setupProvider = wizard.findChild<QComboBox *>(QStringLiteral("setupProvider"));
    QVERIFY(setupProvider);
    QCOMPARE(items(setupProvider).first, tableIds);
    QCOMPARE(items(setupProvider).second, tableNames);
}

void TestSettingsDialog::testConnectionReportsSuccessAndSendsTheKey()
{
    ModelsServer server;
    ClientConfig config;
    config.providerId = QStringLiteral("ollama");
    config.baseUrl = server.baseUrl();
    config.apiKey = QStringLiteral("local-key");
    SettingsDialog dialog(config);
    dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl"))->setText(server.baseUrl());
    QSignalSpy tested(&dialog, &SettingsDialog::connectionTested);
    QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("testConnectionButton")),
                      Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!tested.isEmpty(), 5000);
    QCOMPARE(tested.at(0).at(0).toBool(), true);
    QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("testConnectionResult"))->text(),
             QStringLiteral("✓ Connected."));
    QVERIFY(server.request().startsWith("GET /v1/models"));
    QVERIFY(server.request().contains("Bearer local-key"));
}

void TestSettingsDialog::testConnectionReportsHttpErrorsWithoutTheKey()
{
    ModelsServer server(401);
    ClientConfig config;
    config.providerId = QStringLiteral("ollama");
    config.apiKey = QStringLiteral("canary-key-123");
    SettingsDialog dialog(config);
    dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl"))->setText(server.baseUrl());
    QSignalSpy tested(&dialog, &SettingsDialog::connectionTested);
    dialog.testConnection();
    QTRY_VERIFY_WITH_TIMEOUT(!tested.isEmpty(), 5000);
    QCOMPARE(tested.at(0).at(0).toBool(), false);
    const QString message = tested.at(0).at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("401")), qPrintable(message));
    QVERIFY(!message.contains(QStringLiteral("canary")));
}

// Tried as a user: after "✓ Connected." the Model list of an OpenAI-compatible server stayed empty although
// the server lists its models. The models the test fetched fill the list; a name typed before stays.
void TestSettingsDialog::testConnectionFillsTheModelListKeepingATypedName()
{
    ModelsServer server;
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    SettingsDialog dialog(config);
    dialog.show();
    auto *model = dialog.findChild<QComboBox *>(QStringLiteral("settingsModel"));
    QCOMPARE(model->count(), 0);
    QTest::keyClicks(dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl")), server.baseUrl());
    QTest::keyClicks(model->lineEdit(), QStringLiteral("my-typed-model"));
    QSignalSpy tested(&dialog, &SettingsDialog::connectionTested);
    QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("testConnectionButton")),
                      Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!tested.isEmpty(), 5000);
    QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("testConnectionResult"))->text(),
             QStringLiteral("✓ Connected."));
    QStringList listed;
    for (int i = 0; i < model->count(); ++i)
        listed << model->itemText(i);
    QCOMPARE(listed, (QStringList{QStringLiteral("llama3.2"), QStringLiteral("qwen2.5-coder")}));
    QCOMPARE(model->currentText(), QStringLiteral("my-typed-model"));
    QCOMPARE(dialog.config().model, QStringLiteral("my-typed-model"));

    // With nothing typed, the first model listed is chosen.
    model->clearEditText();
    tested.clear();
    dialog.testConnection();
    QTRY_VERIFY_WITH_TIMEOUT(!tested.isEmpty(), 5000);
    QCOMPARE(model->count(), 2);
    QCOMPARE(model->currentText(), QStringLiteral("llama3.2"));
    QCOMPARE(dialog.config().model, QStringLiteral("llama3.2"));
}

// The Base URL field of a server without a known endpoint said "Default endpoint", which it has none of.
void TestSettingsDialog::baseUrlPlaceholderSaysWhatAServerNeeds()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    SettingsDialog dialog(config);
    auto *baseUrl = dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl"));
    QVERIFY(baseUrl->text().isEmpty());
    QCOMPARE(baseUrl->placeholderText(), QStringLiteral("Required, for example http://localhost:8080/v1"));
    auto *provider = dialog.findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("amazon-bedrock")));
    QCOMPARE(baseUrl->placeholderText(), QStringLiteral("Default endpoint")); // the regional one
    provider->setCurrentIndex(provider->findData(QStringLiteral("openai-compatible")));
    QCOMPARE(baseUrl->placeholderText(), QStringLiteral("Required, for example http://localhost:8080/v1"));
}

void TestSettingsDialog::chatGptSignInIsOfferedForCodex()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-codex");
    SettingsDialog dialog(config);
    dialog.show();
    auto *signIn = dialog.findChild<QPushButton *>(QStringLiteral("chatGptSignInButton"));
    QVERIFY(signIn->isVisible());
    QSignalSpy requested(&dialog, &SettingsDialog::chatGptSignInRequested);
    QTest::mouseClick(signIn, Qt::LeftButton);
    QCOMPARE(requested.count(), 1);
    auto *provider = dialog.findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("anthropic")));
    QVERIFY(!signIn->isVisible());
}

// Tried as a user: "OpenAI-compatible server" with Base URL and Model empty, OK saved it and the next turn
// failed. OK now stays disabled and the dialog says what to enter, as the first-run setup does.
void TestSettingsDialog::okStaysDisabledUntilAServerHasABaseUrlAndAModel()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    SettingsDialog dialog(config);
    dialog.show();
    QList<ClientConfig> accepted;
    connect(&dialog, &SettingsDialog::configAccepted, this,
            [&accepted](const ClientConfig &config) { accepted << config; });
    QVERIFY(!okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog),
             QStringLiteral("Enter the server's base URL, for example http://localhost:8080/v1.\n"
                            "Enter the name of a model."));
    QTest::keyClick(&dialog, Qt::Key_Return);
    QVERIFY(dialog.isVisible());
    QCOMPARE(accepted.count(), 0);

    QTest::keyClicks(dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl")),
                     QStringLiteral("http://127.0.0.1:8080/v1"));
    QVERIFY(!okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog), QStringLiteral("Enter the name of a model."));
    auto *model = dialog.findChild<QComboBox *>(QStringLiteral("settingsModel"));
    QTest::keyClicks(model->lineEdit(), QStringLiteral("  "));
    QVERIFY(!okButton(dialog)->isEnabled()); // white space is no name
    QTest::keyClicks(model->lineEdit(), QStringLiteral("local-model"));
    QVERIFY(okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog), QString());

    // Back to an empty base URL: disabled again.
    dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl"))->clear();
    QVERIFY(!okButton(dialog)->isEnabled());
    QTest::keyClicks(dialog.findChild<QLineEdit *>(QStringLiteral("settingsBaseUrl")),
                     QStringLiteral("http://127.0.0.1:8080/v1"));
    QTest::mouseClick(okButton(dialog), Qt::LeftButton);
    QCOMPARE(accepted.count(), 1);
    const ClientConfig saved = accepted.constFirst();
    QCOMPARE(saved.baseUrl, QStringLiteral("http://127.0.0.1:8080/v1"));
    QCOMPARE(saved.model, QStringLiteral("local-model"));
}

// A provider that requires a key: OK waits for one typed in, unless the app has one stored or its environment
// variable holds one (the dialog then shows where, and the field may stay empty).
void TestSettingsDialog::okWaitsForAKeyUnlessOneIsStoredOrInTheEnvironment()
{
    ClientConfig config;
    config.providerId = QStringLiteral("zai");
    {
        SettingsDialog dialog(config);
        dialog.show();
        QTRY_COMPARE(dialog.findChild<QLabel *>(QStringLiteral("settingsStoredKey"))->text(),
                     QStringLiteral("No key stored."));
        QVERIFY(!okButton(dialog)->isEnabled());
        QCOMPARE(missingLine(dialog),
                 QStringLiteral("Enter the API key (or set ZAI_API_KEY before starting Keen)."));
        QTest::keyClicks(dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey")),
                         QStringLiteral("sk-typed"));
        QVERIFY(okButton(dialog)->isEnabled());
        QCOMPARE(missingLine(dialog), QString());
    }
    {
        qputenv("ZAI_API_KEY", "from-the-environment");
        const auto unset = qScopeGuard([] { qunsetenv("ZAI_API_KEY"); });
        SettingsDialog dialog(config);
        dialog.show();
        QVERIFY(okButton(dialog)->isEnabled());
        QCOMPARE(missingLine(dialog), QString());
    }
    // Stored by the app: enabled once the dialog has found it; after Remove Stored Key, disabled again.
    std::optional<Result<QString>> saved;
    QObject context;
    SecretStore::storeKeyAsync(QStringLiteral("zai"), QStringLiteral("sk-stored-for-zai-3333"),
                               SecretStore::FileFallback::Allow, &context,
                               [&saved](const Result<QString> &result) { saved = result; });
    QTRY_VERIFY(saved.has_value());
    QVERIFY(saved->ok());
    SettingsDialog dialog(config);
    dialog.show();
    QTRY_VERIFY(okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog), QString());
    QVERIFY(dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"))->text().isEmpty());
    QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("settingsRemoveKey")), Qt::LeftButton);
    QTRY_COMPARE(dialog.findChild<QLabel *>(QStringLiteral("settingsStoredKey"))->text(),
                 QStringLiteral("No key stored."));
    QVERIFY(!okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog),
             QStringLiteral("Enter the API key (or set ZAI_API_KEY before starting Keen)."));
}

// Local servers need no key, Bedrock signs with AWS credentials: OK is not held back for a key they lack.
void TestSettingsDialog::providersWithoutARequiredKeyAreNotBlocked()
{
    for (const QString &providerId : {QStringLiteral("ollama"), QStringLiteral("amazon-bedrock")}) {
        ClientConfig config;
        config.providerId = providerId;
        config.model = QStringLiteral("some-model");
        SettingsDialog dialog(config);
        dialog.show();
        QVERIFY2(okButton(dialog)->isEnabled(), qPrintable(providerId));
        QCOMPARE(missingLine(dialog), QString());
        // Nor does the key lookup's answer: it ran on the thread pool and reaches the dialog through the
        // event loop.
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QVERIFY2(okButton(dialog)->isEnabled(), qPrintable(providerId));
    }
}

// ChatGPT (Codex sign-in) without a sign-in cannot answer a turn: OK waits until the sign-in succeeds, or
// is enabled at once when one is stored already.
void TestSettingsDialog::codexOkWaitsForAChatGptSignInUnlessOneIsStored()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-codex");
    {
        SettingsDialog dialog(config);
        dialog.show();
        auto *status = dialog.findChild<QLabel *>(QStringLiteral("chatGptSignInStatus"));
        QVERIFY(status && status->isVisible());
        QVERIFY(!okButton(dialog)->isEnabled());
        QCOMPARE(missingLine(dialog), QStringLiteral("Sign in with ChatGPT."));
        // The window runs the sign-in and reports its end; a failure leaves OK disabled.
        QTest::mouseClick(dialog.findChild<QPushButton *>(QStringLiteral("chatGptSignInButton")),
                          Qt::LeftButton);
        QCOMPARE(status->text(), QStringLiteral("Finish signing in with ChatGPT in your browser..."));
        dialog.showChatGptSignIn(false, QStringLiteral("ChatGPT sign-in failed: access_denied"));
        QCOMPARE(status->text(), QStringLiteral("ChatGPT sign-in failed: access_denied"));
        QVERIFY(!okButton(dialog)->isEnabled());
        dialog.showChatGptSignIn(true, QStringLiteral("✓ Signed in with ChatGPT."));
        QCOMPARE(status->text(), QStringLiteral("✓ Signed in with ChatGPT."));
        QVERIFY(okButton(dialog)->isEnabled());
        QCOMPARE(missingLine(dialog), QString());
    }

    const test::StoredChatGptSignIn signIn;
    QVERIFY(signIn.wasStored());
    SettingsDialog dialog(config);
    dialog.show();
    QTRY_VERIFY(okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog), QString());
    QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("chatGptSignInStatus"))->text(),
             QStringLiteral("Signed in with ChatGPT."));

    // Signed in, the row offers Sign Out: the stored sign-in goes, and OK waits for a new one.
    auto *signOutButton = dialog.findChild<QPushButton *>(QStringLiteral("chatGptSignOutButton"));
    QVERIFY(signOutButton && signOutButton->isVisible());
    QTest::mouseClick(signOutButton, Qt::LeftButton);
    QTRY_COMPARE(dialog.findChild<QLabel *>(QStringLiteral("chatGptSignInStatus"))->text(),
                 QStringLiteral("Signed out of ChatGPT."));
    QVERIFY(!signOutButton->isVisible());
    QVERIFY(!okButton(dialog)->isEnabled());
    QCOMPARE(missingLine(dialog), QStringLiteral("Sign in with ChatGPT."));
    QVERIFY(!signIn.isStillStored());
}

// Tried as a user: "claude-fable-5" typed in the Model box and Enter saved "claude-fable-5-1", the first
// listed model starting with it, so that model could not be chosen by typing. The typed name is kept exactly;
// a listed model can still be picked from the completions.
void TestSettingsDialog::typedModelIsSavedExactlyEvenWhenAListedOneStartsWithIt()
{
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.apiKey = QStringLiteral("sk-secret");
    config.model = QStringLiteral("claude-opus-5");
    QList<ClientConfig> accepted;
    // A shown dialog whose Model field holds text, typed as a person types it.
    auto typed = [this, &config, &accepted](const QString &text) {
        auto dialog = std::make_unique<SettingsDialog>(config);
        connect(dialog.get(), &SettingsDialog::configAccepted, this,
                [&accepted](const ClientConfig &config) { accepted << config; });
        dialog->show();
        dialog->activateWindow();
        std::ignore = QTest::qWaitForWindowActive(dialog.get()); // callers check the field has the focus
        auto *model = dialog->findChild<QComboBox *>(QStringLiteral("settingsModel"));
        model->lineEdit()->setFocus(Qt::MouseFocusReason);
        model->lineEdit()->selectAll();
        QTest::keyClick(model->lineEdit(), Qt::Key_Backspace);
        QTest::keyClicks(model->lineEdit(), text);
        return std::pair{std::move(dialog), model};
    };

    {
        const auto [dialog, model] = typed(QStringLiteral("claude-fable-5"));
        QVERIFY(model->lineEdit()->hasFocus());
        QCOMPARE(model->itemText(0), QStringLiteral("claude-fable-5-1"));
        QCOMPARE(model->currentText(), QStringLiteral("claude-fable-5"));
        // The listed names starting with it are offered below; Enter closes the offer and keeps the text.
        QAbstractItemView *popup = model->completer()->popup();
        QVERIFY(popup->isVisible());
        QTest::keyClick(popup, Qt::Key_Return); // the open offer has the keyboard
        QVERIFY(!popup->isVisible());
        QCOMPARE(model->currentText(), QStringLiteral("claude-fable-5"));
        QVERIFY(accepted.isEmpty());
        // Enter again is OK: exactly the typed name is saved.
        QTest::keyClick(model->lineEdit(), Qt::Key_Return);
        QCOMPARE(accepted.size(), 1);
        QCOMPARE(accepted.constFirst().model, QStringLiteral("claude-fable-5"));
    }
    {
        // Letter case is the person's too: nothing listed matches, Enter saves it as typed.
        const auto [dialog, model] = typed(QStringLiteral("Claude-Opus-5"));
        QVERIFY(model->lineEdit()->hasFocus());
        QVERIFY(!model->completer()->popup()->isVisible());
        QTest::keyClick(model->lineEdit(), Qt::Key_Return);
        QCOMPARE(accepted.size(), 2);
        QCOMPARE(accepted.constLast().model, QStringLiteral("Claude-Opus-5"));
    }
    {
        // Picked from the completions of what was typed: the first match, chosen with Down and Enter.
        const auto [dialog, model] = typed(QStringLiteral("claude-son"));
        QVERIFY(model->lineEdit()->hasFocus());
        QAbstractItemView *popup = model->completer()->popup();
        QVERIFY(popup->isVisible());
        QTest::keyClick(popup, Qt::Key_Down);
        QTest::keyClick(popup, Qt::Key_Return);
        QCOMPARE(model->currentText(), QStringLiteral("claude-sonnet-5"));
        QCOMPARE(accepted.size(), 2);
        // And from the box's own list: the model above it.
        QTest::keyClick(model, Qt::Key_Up);
        QCOMPARE(model->currentText(), QStringLiteral("claude-fable-5"));
        QTest::mouseClick(okButton(*dialog), Qt::LeftButton);
        QCOMPARE(accepted.size(), 3);
        QCOMPARE(accepted.constLast().model, QStringLiteral("claude-fable-5"));
    }
}

void TestSettingsDialog::probeFindsLocalServers()
{
    ModelsServer server;
    LocalServerProbe probe;
    probe.setTargets(
        {{QStringLiteral("ollama"), QStringLiteral("Ollama"), server.baseUrl()},
         {QStringLiteral("lmstudio"), QStringLiteral("LM Studio"), QStringLiteral("http://127.0.0.1:1/v1")}});
    QSignalSpy finished(&probe, &LocalServerProbe::finished);
    probe.start(2000);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 5000);
    QCOMPARE(probe.servers().size(), 1);
    QCOMPARE(probe.servers().constFirst().providerId, QStringLiteral("ollama"));
    QCOMPARE(probe.servers().constFirst().models,
             (QStringList{QStringLiteral("llama3.2"), QStringLiteral("qwen2.5-coder")}));
    const QList<LocalServerProbe::Target> targets = LocalServerProbe::defaultTargets();
    QCOMPARE(targets.size(), 3);
    QVERIFY(targets.at(0).baseUrl.contains(QStringLiteral(":11434")));
    QVERIFY(targets.at(1).baseUrl.contains(QStringLiteral(":8080")));
    QVERIFY(targets.at(2).baseUrl.contains(QStringLiteral(":1234")));
}

void TestSettingsDialog::contextTableRows()
{
    ContextBreakdown breakdown;
    breakdown.systemPromptTokens = 3000;
    breakdown.toolDefinitionCount = 9;
    breakdown.toolDefinitionTokens = 4000;
    breakdown.userTokens = 2000;
    breakdown.assistantTokens = 1000;
    breakdown.toolResultTokens = 10000;
    breakdown.totalTokens = 20000;
    breakdown.contextWindow = 200000;
    breakdown.anchoredToProvider = true;
    ContextDialog dialog(breakdown);
    QTableWidget *table = dialog.table();
    QStringList names;
    for (int row = 0; row < table->rowCount(); ++row)
        names << table->item(row, 0)->text();
    QCOMPARE(names,
             (QStringList{QStringLiteral("System prompt"), QStringLiteral("Tool definitions (9)"),
                          QStringLiteral("User messages"), QStringLiteral("Assistant messages"),
                          QStringLiteral("Tool results"), QStringLiteral("Total"), QStringLiteral("Free")}));
    QCOMPARE(table->item(5, 2)->text(), QStringLiteral("10.0%"));
    QCOMPARE(table->item(6, 1)->text(), QLocale().toString(180000));
    QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("contextNote"))->text(), breakdown.note());
    QVERIFY(!dialog.findChild<QLabel *>(QStringLiteral("contextCompactionUsage"))); // none ran

    // Issue 12 point 4: what compaction requests cost is shown apart from the context rows.
    breakdown.compactionUsage.inputTokens = 31000;
    breakdown.compactionUsage.outputTokens = 1200;
    ContextDialog compacted(breakdown);
    QCOMPARE(compacted.table()->rowCount(), table->rowCount());
    const QLabel *cost = compacted.findChild<QLabel *>(QStringLiteral("contextCompactionUsage"));
    QVERIFY(cost);
    QCOMPARE(cost->text(), QStringLiteral("Compaction requests this session: %1 input / %2 output tokens")
                               .arg(QLocale().toString(31000), QLocale().toString(1200)));
}

// Found by a tester: with no keychain (KEEN_DISABLE_KEYCHAIN=1 here, as in CI) the empty key field said
// "Stored in the system keychain", while OK puts a typed key in secrets.json, unencrypted.
void TestSettingsDialog::keyFieldSaysWhereAKeyGoesWithoutAKeychain()
{
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.model = QStringLiteral("claude-fable-5-1");
    SettingsDialog dialog(config);
    const QString placeholder =
        dialog.findChild<QLineEdit *>(QStringLiteral("settingsApiKey"))->placeholderText();
    QCOMPARE(
        placeholder,
        QStringLiteral("Stored unencrypted in %1 (no system keychain)").arg(SecretStore::secretsFilePath()));
}

QTEST_MAIN(TestSettingsDialog)
#include "tst_settingsdialog.moc"
