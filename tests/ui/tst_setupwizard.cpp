// The first-run setup: Finish waits until every field the chosen provider needs (ProviderDescriptor) is
// filled, and a line under the fields says what is still missing.
#include "providers/providertable.h"
#include "settings/localserverprobe.h"
#include "settings/setupwizard.h"

#include "fakeproviderserver.h"
#include "storedchatgptsignin.h"
#include "testenvironment.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QThreadPool>

using namespace keen;

class TestSetupWizard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void openAiCompatibleServerNeedsABaseUrlAndAModel();
    void hostedProviderNeedsAKeyUnlessTheEnvironmentHasOne();
    void everyProviderStartsCompleteOrSaysWhatIsMissing();
    void chatGptFinishesOnlyAfterASuccessfulSignIn();
    void chatGptFinishesAtOnceWithAStoredSignIn();
    void typedModelIsUsedExactlyEvenWhenAListedOneStartsWithIt();
    void localServersAreListedOnlyWhenFound();
    void aServersModelsFillTheModelBoxOnceItsUrlIsEntered();

private:
    // A wizard on its key-and-model page for providerId.
    static std::unique_ptr<SetupWizard> detailsFor(const QString &providerId);

    test::TestEnvironment m_env;
};

void TestSetupWizard::initTestCase()
{
    qputenv("KEEN_DISABLE_KEYCHAIN", "1"); // no stored key: secrets.json under the test's KEEN_HOME is empty
    for (const ProviderDescriptor &provider : ProviderTable::all()) {
        for (const QString &variable : provider.keyEnvironmentVariables)
            qunsetenv(variable.toLatin1().constData());
    }
}

std::unique_ptr<SetupWizard> TestSetupWizard::detailsFor(const QString &providerId)
{
    auto wizard = std::make_unique<SetupWizard>();
    wizard->probe()->setTargets({}); // no probing of this machine's ports from a test
    auto *provider = wizard->findChild<QComboBox *>(QStringLiteral("setupProvider"));
    provider->setCurrentIndex(provider->findData(providerId));
    wizard->show();
    wizard->next();
    return wizard;
}

// Tried as a user: "OpenAI-compatible server", Next, Finish with Base URL and Model empty was accepted, and
// the first prompt failed with "base_url must be configured for provider: openai-compatible".
void TestSetupWizard::openAiCompatibleServerNeedsABaseUrlAndAModel()
{
    const auto wizard = detailsFor(QStringLiteral("openai-compatible"));
    QAbstractButton *finish = wizard->button(QWizard::FinishButton);
    auto *baseUrl = wizard->findChild<QLineEdit *>(QStringLiteral("setupBaseUrl"));
    auto *model = wizard->findChild<QComboBox *>(QStringLiteral("setupModel"));
    auto *missing = wizard->findChild<QLabel *>(QStringLiteral("setupMissing"));
    QVERIFY(finish && baseUrl && model && missing);
    QVERIFY(finish->isVisible());
    QVERIFY(!finish->isEnabled());
    QVERIFY(missing->isVisible());
    QCOMPARE(missing->text(),
             QStringLiteral("Enter the server's base URL, for example http://localhost:8080/v1.\n"
                            "Enter the name of a model."));
    QCOMPARE(baseUrl->placeholderText(), QStringLiteral("Required, for example http://localhost:8080/v1"));
    // Enter does not finish either.
    QList<ClientConfig> configured;
    connect(wizard.get(), &SetupWizard::configured, this,
            [&configured](const ClientConfig &config) { configured << config; });
    QTest::keyClick(baseUrl, Qt::Key_Return);
    QVERIFY(wizard->isVisible());
    QVERIFY(configured.isEmpty());

    QTest::keyClicks(baseUrl, QStringLiteral("http://127.0.0.1:8080/v1"));
    QVERIFY(!finish->isEnabled());
    QCOMPARE(missing->text(), QStringLiteral("Enter the name of a model."));
    QTest::keyClicks(model->lineEdit(), QStringLiteral("   "));
    QVERIFY(!finish->isEnabled()); // white space is no name
    QTest::keyClicks(model->lineEdit(), QStringLiteral("local-model"));
    QVERIFY(finish->isEnabled());
    QVERIFY(!missing->isVisible());

    QTest::mouseClick(finish, Qt::LeftButton);
    QCOMPARE(configured.size(), 1);
    const ClientConfig config = configured.constFirst();
    QCOMPARE(config.providerId, QStringLiteral("openai-compatible"));
    QCOMPARE(config.baseUrl, QStringLiteral("http://127.0.0.1:8080/v1"));
    QCOMPARE(config.model, QStringLiteral("local-model"));
}

// A provider that needs a key: Finish waits for one, unless its environment variable already holds it.
void TestSetupWizard::hostedProviderNeedsAKeyUnlessTheEnvironmentHasOne()
{
    {
        const auto wizard = detailsFor(QStringLiteral("anthropic"));
        QAbstractButton *finish = wizard->button(QWizard::FinishButton);
        auto *missing = wizard->findChild<QLabel *>(QStringLiteral("setupMissing"));
        QVERIFY(!finish->isEnabled());
        QCOMPARE(missing->text(),
                 QStringLiteral("Enter the API key (or set ANTHROPIC_API_KEY before starting Keen)."));
        // The registry's model is chosen, the default endpoint is filled in.
        QCOMPARE(wizard->findChild<QComboBox *>(QStringLiteral("setupModel"))->currentText(),
                 QStringLiteral("claude-fable-5-1"));
        QTest::keyClicks(wizard->findChild<QLineEdit *>(QStringLiteral("setupApiKey")),
                         QStringLiteral("sk-1"));
        QVERIFY(finish->isEnabled());
    }
    qputenv("ANTHROPIC_API_KEY", "from-the-environment");
    const auto unset = qScopeGuard([] { qunsetenv("ANTHROPIC_API_KEY"); });
    const auto wizard = detailsFor(QStringLiteral("anthropic"));
    QVERIFY(wizard->button(QWizard::FinishButton)->isEnabled());
    QCOMPARE(wizard->findChild<QLineEdit *>(QStringLiteral("setupApiKey"))->placeholderText(),
             QStringLiteral("Set in ANTHROPIC_API_KEY"));
}

// Every provider of the table opens its page either ready to finish (the registry's model, the default
// endpoint, no key required) or with the line that says what to enter; never silently incomplete.
void TestSetupWizard::everyProviderStartsCompleteOrSaysWhatIsMissing()
{
    for (const ProviderDescriptor &descriptor : ProviderTable::all()) {
        const auto wizard = detailsFor(descriptor.id);
        auto *label = wizard->findChild<QLabel *>(QStringLiteral("setupMissing"));
        QVERIFY2(label, qPrintable(descriptor.id));
        const QString missing = label->isVisible() ? label->text() : QString();
        const bool canFinish = wizard->button(QWizard::FinishButton)->isEnabled();
        QVERIFY2(canFinish == missing.isEmpty(), qPrintable(descriptor.id));
        // What the table says the provider needs, and nothing more: a key where one is required (none is
        // set here), the base URL of a Chat Completions server without a known one, a model always (the
        // registry's first is chosen, where there is a registry).
        QCOMPARE(missing.contains(QStringLiteral("API key")), descriptor.auth == AuthMode::ApiKey);
        QCOMPARE(missing.contains(QStringLiteral("base URL")),
                 descriptor.protocol == WireProtocol::OpenAiChat && descriptor.defaultBaseUrl.isEmpty());
        QCOMPARE(missing.contains(QStringLiteral("model")),
                 wizard->findChild<QComboBox *>(QStringLiteral("setupModel"))->currentText().isEmpty());
        // The ChatGPT sign-in where it authenticates (none is stored here).
        QCOMPARE(missing.contains(QStringLiteral("Sign in with ChatGPT.")),
                 descriptor.auth == AuthMode::OAuth);
        QCOMPARE(wizard->findChild<QPushButton *>(QStringLiteral("chatGptSignInButton"))->isVisible(),
                 descriptor.auth == AuthMode::OAuth);
    }
}

// Tried as a user: "ChatGPT (Codex sign-in)", Next, Finish was enabled without signing in, and the first turn
// failed. The page offers the sign-in, as the settings dialog does, and Finish waits until it succeeded.
void TestSetupWizard::chatGptFinishesOnlyAfterASuccessfulSignIn()
{
    const auto wizard = detailsFor(QStringLiteral("openai-codex"));
    QAbstractButton *finish = wizard->button(QWizard::FinishButton);
    auto *missing = wizard->findChild<QLabel *>(QStringLiteral("setupMissing"));
    auto *signIn = wizard->findChild<QPushButton *>(QStringLiteral("chatGptSignInButton"));
    auto *status = wizard->findChild<QLabel *>(QStringLiteral("chatGptSignInStatus"));
    QVERIFY(signIn && status);
    QVERIFY(signIn->isVisible());
    QVERIFY(!finish->isEnabled());
    QCOMPARE(missing->text(), QStringLiteral("Sign in with ChatGPT."));
    // Still nothing stored once the lookup has answered: it ran on the thread pool, and its answer reaches
    // the wizard through the event loop.
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QVERIFY(!finish->isEnabled());

    // The window runs the sign-in (browser and loopback callback) and reports its end to the wizard.
    QSignalSpy requested(wizard.get(), &SetupWizard::chatGptSignInRequested);
    QTest::mouseClick(signIn, Qt::LeftButton);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(status->text(), QStringLiteral("Finish signing in with ChatGPT in your browser..."));
    wizard->showChatGptSignIn(false, QStringLiteral("ChatGPT sign-in failed: access_denied"));
    QCOMPARE(status->text(), QStringLiteral("ChatGPT sign-in failed: access_denied"));
    QVERIFY(!finish->isEnabled());
    QVERIFY(missing->isVisible());

    wizard->showChatGptSignIn(true, QStringLiteral("✓ Signed in with ChatGPT."));
    QCOMPARE(status->text(), QStringLiteral("✓ Signed in with ChatGPT."));
    QVERIFY(finish->isEnabled());
    QVERIFY(!missing->isVisible());
    QList<ClientConfig> configured;
    connect(wizard.get(), &SetupWizard::configured, this,
            [&configured](const ClientConfig &config) { configured << config; });
    QTest::mouseClick(finish, Qt::LeftButton);
    QCOMPARE(configured.size(), 1);
    QCOMPARE(configured.constFirst().providerId, QStringLiteral("openai-codex"));
    QVERIFY(configured.constFirst().apiKey.isEmpty());
}

// A ChatGPT sign-in stored earlier (the keychain, here its file fallback in KEEN_HOME) is enough.
void TestSetupWizard::chatGptFinishesAtOnceWithAStoredSignIn()
{
    const test::StoredChatGptSignIn signIn;
    QVERIFY(signIn.wasStored());

    const auto wizard = detailsFor(QStringLiteral("openai-codex"));
    QTRY_VERIFY(wizard->button(QWizard::FinishButton)->isEnabled());
    QVERIFY(!wizard->findChild<QLabel *>(QStringLiteral("setupMissing"))->isVisible());
    QCOMPARE(wizard->findChild<QLabel *>(QStringLiteral("chatGptSignInStatus"))->text(),
             QStringLiteral("Signed in with ChatGPT."));
}

// "claude-fable-5" typed and Enter became "claude-fable-5-1", the first listed model starting with it.
void TestSetupWizard::typedModelIsUsedExactlyEvenWhenAListedOneStartsWithIt()
{
    const auto wizard = detailsFor(QStringLiteral("anthropic"));
    wizard->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(wizard.get()));
    QTest::keyClicks(wizard->findChild<QLineEdit *>(QStringLiteral("setupApiKey")), QStringLiteral("sk-1"));
    auto *model = wizard->findChild<QComboBox *>(QStringLiteral("setupModel"));
    QCOMPARE(model->itemText(0), QStringLiteral("claude-fable-5-1"));
    model->lineEdit()->setFocus(Qt::MouseFocusReason);
    model->lineEdit()->selectAll();
    QTest::keyClick(model->lineEdit(), Qt::Key_Backspace);
    QTest::keyClicks(model->lineEdit(), QStringLiteral("claude-fable-5"));
    // The listed names starting with it are offered below; Enter (the offer has the keyboard) keeps the text.
    QAbstractItemView *popup = model->completer()->popup();
    QVERIFY(popup->isVisible());
    QTest::keyClick(popup, Qt::Key_Return);
    QVERIFY(!popup->isVisible());
    QCOMPARE(model->currentText(), QStringLiteral("claude-fable-5"));
    QList<ClientConfig> configured;
    connect(wizard.get(), &SetupWizard::configured, this,
            [&configured](const ClientConfig &config) { configured << config; });
    QTest::mouseClick(wizard->button(QWizard::FinishButton), Qt::LeftButton);
    QCOMPARE(configured.size(), 1);
    QCOMPARE(configured.constFirst().model, QStringLiteral("claude-fable-5"));
}

// Found when tried: with no local server running, the first page showed "No local server found." above an
// empty list box. The box shows only what was found.
void TestSetupWizard::localServersAreListedOnlyWhenFound()
{
    SetupWizard wizard;
    wizard.probe()->setTargets({});
    wizard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&wizard));
    wizard.probe()->start();
    auto *status = wizard.findChild<QLabel *>(QStringLiteral("probeStatus"));
    auto *list = wizard.findChild<QListWidget *>(QStringLiteral("localServerList"));
    QTRY_COMPARE(status->text(), QStringLiteral("No local server found."));
    QVERIFY(!list->isVisible());

    test::FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueue(
        test::FakeProviderServer::jsonResponse(200, R"({"data":[{"id":"qwen3"},{"id":"gemma3"}]})"));
    const QString baseUrl = server.baseUrl().toString() + QStringLiteral("/v1");
    wizard.probe()->setTargets({{QStringLiteral("ollama"), QStringLiteral("Ollama"), baseUrl}});
    wizard.probe()->start();
    QTRY_COMPARE(status->text(), QStringLiteral("Local servers found:"));
    QVERIFY(list->isVisible());
    QCOMPARE(list->count(), 1);
    QCOMPARE(list->item(0)->text(), QStringLiteral("Ollama at %1 (2 models)").arg(baseUrl));
}

// Found when tried: for an OpenAI-compatible server the Model box stayed empty after the base URL was
// entered; a person had to know the exact name of a model the server runs. The server is asked as soon as
// the URL is entered: its models fill the box and the first is chosen unless a name is typed already.
void TestSetupWizard::aServersModelsFillTheModelBoxOnceItsUrlIsEntered()
{
    test::FakeProviderServer server;
    QVERIFY(server.isListening());
    const QByteArray models = R"({"object":"list","data":[{"id":"qwen3"},{"id":"gemma3"}]})";
    server.enqueue(test::FakeProviderServer::jsonResponse(200, models));
    server.enqueue(test::FakeProviderServer::jsonResponse(200, models));
    const auto wizard = detailsFor(QStringLiteral("openai-compatible"));
    auto *baseUrl = wizard->findChild<QLineEdit *>(QStringLiteral("setupBaseUrl"));
    auto *model = wizard->findChild<QComboBox *>(QStringLiteral("setupModel"));
    auto *said = wizard->findChild<QLabel *>(QStringLiteral("setupServerModels"));
    QVERIFY(baseUrl && model && said);
    QVERIFY(!said->isVisible()); // nothing to ask yet

    const QString url = server.baseUrl().toString() + QStringLiteral("/v1");
    baseUrl->setFocus();
    QTest::keyClicks(baseUrl, url);
    QTRY_COMPARE(model->currentText(), QStringLiteral("qwen3"));
    QCOMPARE(model->count(), 2);
    QCOMPARE(said->text(), QStringLiteral("The server has 2 models."));
    QVERIFY(said->isVisible());
    QVERIFY(wizard->missing().isEmpty());
    QVERIFY(wizard->button(QWizard::FinishButton)->isEnabled());
    QCOMPARE(server.requests().first().path, QByteArray("/v1/models"));

    // A name already typed stays when the server answers again.
    model->setCurrentText(QStringLiteral("my-finetune"));
    QTest::keyClick(baseUrl, Qt::Key_Backspace);
    QTest::keyClicks(baseUrl, QStringLiteral("1"));
    QTRY_COMPARE(server.requests().size(), 2);
    QTRY_COMPARE(said->text(), QStringLiteral("The server has 2 models."));
    QCOMPARE(model->currentText(), QStringLiteral("my-finetune"));

    // Nothing listening there: said, and the name is still to be typed.
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    model->setCurrentText(QString());
    baseUrl->setText(QString());
    QTest::keyClicks(baseUrl, QStringLiteral("http://127.0.0.1:%1/v1").arg(port));
    QTRY_VERIFY2(said->text().startsWith(QStringLiteral("Could not ask the server for its models: ")),
                 qPrintable(said->text()));
    QVERIFY(!wizard->button(QWizard::FinishButton)->isEnabled());

    // A hosted service whose models are not in the registry is not asked just for being picked.
    const auto hosted = detailsFor(QStringLiteral("openrouter"));
    QVERIFY(!hosted->findChild<QLabel *>(QStringLiteral("setupServerModels"))->isVisible());
}

QTEST_MAIN(TestSetupWizard)
#include "tst_setupwizard.moc"
