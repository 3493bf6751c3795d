#include "settings/setupwizard.h"

#include "agent/connectiontest.h"
#include "config/secretstore.h"
#include "settings/chatgptsigninrow.h"
#include "settings/contextwindowspinbox.h"
#include "settings/localserverprobe.h"
#include "settings/modelcombobox.h"
#include "settings/providercatalog.h"
#include "settings/setupcheck.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QWizardPage>

#include <algorithm>

namespace keen {

namespace {
// The key-and-model page: complete when the wizard says nothing is missing.
class DetailsPage final : public QWizardPage
{
public:
    DetailsPage(const SetupWizard *wizard, QWidget *parent)
        : QWizardPage(parent)
        , m_wizard(wizard)
    {}
    bool isComplete() const override { return m_wizard->missing().isEmpty(); }

private:
    const SetupWizard *m_wizard;
};
} // namespace

SetupWizard::SetupWizard(QWidget *parent)
    : QWizard(parent)
    , m_probe(new LocalServerProbe(this))
    , m_modelLister(new ConnectionTest(this))
    , m_listSoon(new QTimer(this))
{
    setObjectName(QStringLiteral("setupWizard"));
    setWindowTitle(tr("Welcome to Keen"));
    setOption(QWizard::NoBackButtonOnStartPage);

    auto *providerPage = new QWizardPage(this);
    providerPage->setTitle(tr("Choose a provider"));
    providerPage->setSubTitle(
        tr("Keen talks to a large language model. Pick a hosted provider or a server on "
           "this machine."));
    auto *providerLayout = new QVBoxLayout(providerPage);
    m_probeStatus =
        new QLabel(tr("Looking for local servers (Ollama, llama.cpp, LM Studio)..."), providerPage);
    m_probeStatus->setObjectName(QStringLiteral("probeStatus"));
    m_found = new QListWidget(providerPage);
    m_found->setObjectName(QStringLiteral("localServerList"));
    m_found->setAccessibleName(tr("Local servers found"));
    m_found->setMaximumHeight(110);
    m_provider = new QComboBox(providerPage);
    m_provider->setObjectName(QStringLiteral("setupProvider"));
    m_provider->setAccessibleName(tr("Provider"));
    for (const ProviderCatalog::Provider &provider : ProviderCatalog::providers())
        m_provider->addItem(provider.name, provider.id);
    providerLayout->addWidget(m_probeStatus);
    providerLayout->addWidget(m_found);
    auto *providerForm = new QFormLayout;
    providerForm->addRow(tr("&Provider:"), m_provider);
    providerLayout->addLayout(providerForm);
    addPage(providerPage);

    auto *detailsPage = new DetailsPage(this, this);
    m_detailsPage = detailsPage;
    detailsPage->setTitle(tr("Key and model"));
    auto *form = new QFormLayout(detailsPage);
    m_detailsForm = form;
    m_apiKey = new QLineEdit(detailsPage);
    m_apiKey->setObjectName(QStringLiteral("setupApiKey"));
    m_apiKey->setEchoMode(QLineEdit::Password);
    m_baseUrl = new QLineEdit(detailsPage);
    m_baseUrl->setObjectName(QStringLiteral("setupBaseUrl"));
    m_model = new ModelComboBox(detailsPage);
    m_model->setObjectName(QStringLiteral("setupModel"));
    m_signIn = new ChatGptSignInRow(detailsPage);
    form->addRow(tr("API &key:"), m_apiKey);
    form->addRow(tr("&Base URL:"), m_baseUrl);
    form->addRow(tr("&Model:"), m_model);
    m_contextWindow = new ContextWindowSpinBox(detailsPage); // a local server's only; Settings has it too
    m_contextWindow->setObjectName(QStringLiteral("setupContextWindow"));
    form->addRow(tr("Context &window:"), m_contextWindow);
    form->addRow(m_signIn);
    m_missing = new QLabel(detailsPage);
    m_missing->setObjectName(QStringLiteral("setupMissing"));
    m_missing->setWordWrap(true);
    m_missing->setTextFormat(Qt::PlainText);
    form->addRow(m_missing);
    m_serverModels = new QLabel(detailsPage);
    m_serverModels->setObjectName(QStringLiteral("setupServerModels"));
    m_serverModels->setWordWrap(true);
    m_serverModels->setTextFormat(Qt::PlainText);
    m_serverModels->hide();
    form->addRow(m_serverModels);
    addPage(detailsPage);
    m_listSoon->setSingleShot(true);
    m_listSoon->setInterval(600);
    connect(m_listSoon, &QTimer::timeout, this, &SetupWizard::listServerModels);
    connect(m_baseUrl, &QLineEdit::textEdited, m_listSoon, qOverload<>(&QTimer::start));
    connect(m_baseUrl, &QLineEdit::editingFinished, this, [this] {
        if (m_listSoon->isActive()) {
            m_listSoon->stop();
            listServerModels();
        }
    });
    connect(m_modelLister, &ConnectionTest::modelsListed, this, &SetupWizard::offerListedModels);
    connect(m_modelLister, &ConnectionTest::finished, this, [this](bool ok, const QString &message) {
        if (!ok)
            m_serverModels->setText(tr("Could not ask the server for its models: %1").arg(message));
        else if (!m_modelsListed)
            m_serverModels->setText(tr("The server lists no models; enter the name of one."));
    });
    for (QLineEdit *field : {m_apiKey, m_baseUrl})
        connect(field, &QLineEdit::textChanged, this, &SetupWizard::updateMissing);
    connect(m_model, &QComboBox::currentTextChanged, this, &SetupWizard::updateMissing);
    connect(m_signIn, &ChatGptSignInRow::signInRequested, this, &SetupWizard::chatGptSignInRequested);
    connect(m_signIn, &ChatGptSignInRow::signedInChanged, this, &SetupWizard::updateMissing);

    connect(m_probe, &LocalServerProbe::serverFound, this, [this](const LocalServerProbe::Server &server) {
        auto *item = new QListWidgetItem(
            server.models.size() == 1
                ? tr("%1 at %2 (1 model)").arg(server.name, server.baseUrl)
                : tr("%1 at %2 (%3 models)").arg(server.name, server.baseUrl).arg(server.models.size()),
            m_found);
        item->setData(Qt::UserRole, server.providerId);
        item->setData(Qt::UserRole + 1, server.baseUrl);
        item->setData(Qt::UserRole + 2, server.models);
        if (m_found->count() == 1)
            m_found->setCurrentItem(item);
    });
    connect(m_probe, &LocalServerProbe::finished, this, [this] {
        m_probeStatus->setText(m_found->count() == 0 ? tr("No local server found.")
                                                     : tr("Local servers found:"));
        m_found->setVisible(m_found->count() > 0); // an empty box read as a list that failed to load
    });
    connect(m_found, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
        if (item)
            m_provider->setCurrentIndex(qMax(0, m_provider->findData(item->data(Qt::UserRole))));
    });
    connect(this, &QWizard::accepted, this, [this] { Q_EMIT configured(config()); });
    // From the event loop: whoever made the wizard can still point the probe elsewhere (tests never probe
    // the machine's own ports).
    QTimer::singleShot(0, m_probe, [probe = m_probe] { probe->start(); });
}

SetupWizard::~SetupWizard()
{
    // The URL field loses the focus while the pages are destroyed, after this wizard's own part: its
    // editingFinished must not reach it then (UBSan saw the call on a half-destroyed wizard).
    disconnect(m_baseUrl, nullptr, this, nullptr);
}

void SetupWizard::initializePage(int id)
{
    QWizard::initializePage(id);
    if (id != 1)
        return;
    const QString providerId = m_provider->currentData().toString();
    const ProviderCatalog::Provider *provider = ProviderCatalog::provider(providerId);
    m_baseUrl->setText(provider ? provider->defaultBaseUrl : QString());
    m_baseUrl->setPlaceholderText(ProviderCatalog::baseUrlPlaceholder(provider));
    m_apiKey->setEnabled(!provider || provider->acceptsKey());
    const bool signIn = provider && provider->auth == AuthMode::OAuth;
    m_signIn->setVisible(signIn);
    if (signIn)
        m_signIn->lookUp();
    lookForKey(providerId);
    m_model->clear();
    QStringList models = ProviderCatalog::modelIds(providerId);
    if (QListWidgetItem *item = m_found->currentItem();
        item && item->data(Qt::UserRole).toString() == providerId) {
        m_baseUrl->setText(item->data(Qt::UserRole + 1).toString());
        models = item->data(Qt::UserRole + 2).toStringList() + models;
    }
    m_model->addItems(models);
    m_detailsForm->setRowVisible(m_contextWindow, choseLocalServer());
    m_contextWindow->setWindow(ProviderCatalog::contextWindow(providerId, m_model->currentText().trimmed()));
    updateMissing();
    listServerModels();
}

bool SetupWizard::choseLocalServer() const
{
    const ProviderCatalog::Provider *provider =
        ProviderCatalog::provider(m_provider->currentData().toString());
    return provider && provider->models != ModelListSource::Registry &&
           !provider->defaultBaseUrl.startsWith(QLatin1String("https://"));
}

void SetupWizard::listServerModels()
{
    // A server the person runs or names (not a hosted service, which is asked only by Test Connection in
    // the settings): nothing leaves the machine for a provider merely looked at.
    const ClientConfig wanted = config();
    if (!choseLocalServer() || wanted.baseUrl.isEmpty()) {
        m_serverModels->hide();
        return;
    }
    m_modelsListed = false;
    m_serverModels->setText(tr("Asking %1 for its models...").arg(wanted.baseUrl));
    m_serverModels->show();
    m_modelLister->start(wanted); // a newer question supersedes an older one still waiting
}

void SetupWizard::offerListedModels(const QStringList &listed)
{
    // What the server has first; a name already typed stays, an empty field gets the first one.
    m_modelsListed = true;
    const QString typed = m_model->currentText().trimmed();
    QStringList models = listed;
    for (int i = 0; i < m_model->count(); ++i) {
        if (!models.contains(m_model->itemText(i)))
            models << m_model->itemText(i);
    }
    m_model->clear();
    m_model->addItems(models);
    if (!typed.isEmpty())
        m_model->setCurrentText(typed);
    m_serverModels->setText(listed.size() == 1 ? tr("The server has 1 model.")
                                               : tr("The server has %1 models.").arg(listed.size()));
    updateMissing();
}

void SetupWizard::lookForKey(const QString &providerId)
{
    const quint64 query = ++m_keyQuery;
    m_keyStored = false;
    m_apiKey->setPlaceholderText(QString());
    const ProviderCatalog::Provider *provider = ProviderCatalog::provider(providerId);
    if (!provider || !provider->needsKey())
        return;
    if (const QString variable = SetupCheck::keyVariableSet(providerId); !variable.isEmpty()) {
        m_apiKey->setPlaceholderText(tr("Set in %1").arg(variable));
        return;
    }
    SecretStore::storedKeyAsync(providerId, this, [this, query](const Result<StoredKey> &stored) {
        if (query != m_keyQuery || !stored || stored->location == StoredKey::Location::None)
            return;
        m_keyStored = true;
        m_apiKey->setPlaceholderText(tr("Stored %1").arg(stored->hint));
        updateMissing();
    });
}

QStringList SetupWizard::missing() const
{
    SetupCheck::Fields fields;
    fields.providerId = m_provider->currentData().toString();
    fields.apiKey = m_apiKey->text();
    fields.baseUrl = m_baseUrl->text();
    fields.model = m_model->currentText();
    fields.keyStored = m_keyStored;
    fields.signedIn = m_signIn->isSignedIn();
    return SetupCheck::missing(fields);
}

void SetupWizard::showChatGptSignIn(bool ok, const QString &message)
{
    m_signIn->showResult(ok, message);
}

void SetupWizard::updateMissing()
{
    const QStringList lines = missing();
    m_missing->setText(lines.join(QLatin1Char('\n')));
    m_missing->setVisible(!lines.isEmpty());
    Q_EMIT m_detailsPage->completeChanged();
}

ClientConfig SetupWizard::config() const
{
    ClientConfig config;
    config.providerId = m_provider->currentData().toString();
    config.apiKey = m_apiKey->text();
    config.baseUrl = m_baseUrl->text().trimmed();
    config.model = m_model->currentText().trimmed();
    config.contextWindow =
        contextWindowSetting().value_or(ProviderCatalog::contextWindow(config.providerId, config.model));
    return config;
}

std::optional<qint64> SetupWizard::contextWindowSetting() const
{
    if (!choseLocalServer() ||
        m_contextWindow->value() == ProviderCatalog::contextWindow(m_provider->currentData().toString(),
                                                                   m_model->currentText().trimmed()))
        return std::nullopt;
    return m_contextWindow->value();
}

} // namespace keen

#include "moc_setupwizard.cpp"
