// The first-run setup: Finish waits until every field the chosen provider needs (ProviderDescriptor) is
// filled, and a line under the fields says what is still missing.
#include "providers/providertable.h"
#include "settings/localserverprobe.h"
#include "settings/setupwizard.h"

#include "testenvironment.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScopeGuard>
#include <QTest>

using namespace keen;

class TestSetupWizard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void openAiCompatibleServerNeedsABaseUrlAndAModel();
    void hostedProviderNeedsAKeyUnlessTheEnvironmentHasOne();
    void everyProviderStartsCompleteOrSaysWhatIsMissing();

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
    }
}

QTEST_MAIN(TestSetupWizard)
#include "tst_setupwizard.moc"
