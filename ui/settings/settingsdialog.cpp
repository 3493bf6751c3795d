#include "settings/settingsdialog.h"

#include "agent/connectiontest.h"
#include "config/secretstore.h"
#include "providers/providertable.h"
#include "settings/chatgptsigninrow.h"
#include "settings/contextwindowspinbox.h"
#include "settings/modelcombobox.h"
#include "settings/providercatalog.h"
#include "settings/setupcheck.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace keen {

SettingsDialog::SettingsDialog(const ClientConfig &config, QWidget *parent)
    : QDialog(parent)
    , m_base(config)
    , m_connectionTest(new ConnectionTest(this))
{
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Provider Settings"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    layout->addLayout(form);

    m_provider = new QComboBox(this);
    m_provider->setObjectName(QStringLiteral("settingsProvider"));
    for (const ProviderCatalog::Provider &provider : ProviderCatalog::providers())
        m_provider->addItem(provider.name, provider.id);
    form->addRow(tr("&Provider:"), m_provider);

    m_apiKey = new QLineEdit(this);
    m_apiKey->setObjectName(QStringLiteral("settingsApiKey"));
    m_apiKey->setEchoMode(QLineEdit::Password);
    // Where OK puts a typed key: without a keychain it goes to secrets.json, unencrypted (the window says
    // so).
    m_apiKey->setPlaceholderText(
        SecretStore::keychainUnavailableReason().isEmpty()
            ? tr("Stored in the system keychain")
            : tr("Stored unencrypted in %1 (no system keychain)").arg(SecretStore::secretsFilePath()));
    form->addRow(tr("API &key:"), m_apiKey);

    auto *storedRow = new QHBoxLayout;
    m_storedKey = new QLabel(this);
    m_storedKey->setObjectName(QStringLiteral("settingsStoredKey"));
    m_removeKey = new QPushButton(tr("&Remove Stored Key"), this);
    m_removeKey->setObjectName(QStringLiteral("settingsRemoveKey"));
    m_removeKey->setVisible(false);
    storedRow->addWidget(m_storedKey, 1);
    storedRow->addWidget(m_removeKey);
    form->addRow(QString(), storedRow);

    m_baseUrl = new QLineEdit(this);
    m_baseUrl->setObjectName(QStringLiteral("settingsBaseUrl"));
    form->addRow(tr("&Base URL:"), m_baseUrl);

    m_headers = new QPlainTextEdit(this);
    m_headers->setObjectName(QStringLiteral("settingsHeaders"));
    m_headers->setPlaceholderText(tr("One per line: Name: value"));
    m_headers->setTabChangesFocus(true);
    m_headers->setFixedHeight(m_headers->fontMetrics().lineSpacing() * 3 + 12);
    form->addRow(tr("&Headers:"), m_headers);

    m_model = new ModelComboBox(this);
    m_model->setObjectName(QStringLiteral("settingsModel"));
    form->addRow(tr("&Model:"), m_model);

    m_thinking = new QComboBox(this);
    m_thinking->setObjectName(QStringLiteral("settingsThinking"));
    form->addRow(tr("&Thinking effort:"), m_thinking);

    m_contextWindow = new ContextWindowSpinBox(this);
    m_contextWindow->setObjectName(QStringLiteral("settingsContextWindow"));
    form->addRow(tr("Context &window:"), m_contextWindow);

    auto *buttonsRow = new QHBoxLayout;
    m_test = new QPushButton(tr("&Test Connection"), this);
    m_test->setObjectName(QStringLiteral("testConnectionButton"));
    m_signIn = new ChatGptSignInRow(this);
    buttonsRow->addWidget(m_test);
    buttonsRow->addWidget(m_signIn, 1);
    buttonsRow->addStretch();
    layout->addLayout(buttonsRow);
    m_testResult = new QLabel(this);
    m_testResult->setTextFormat(Qt::PlainText); // a server's error text is never taken as rich text
    m_testResult->setObjectName(QStringLiteral("testConnectionResult"));
    m_testResult->setWordWrap(true);
    layout->addWidget(m_testResult);

    m_reviewCompaction = new QCheckBox(tr("&Review manual compaction summaries before they apply"), this);
    m_reviewCompaction->setObjectName(QStringLiteral("reviewCompactionCheck"));
    m_reviewCompaction->setToolTip(tr("The summary of Compact and /compact opens for editing beside what it "
                                      "replaces; nothing changes until you accept it"));
    layout->addWidget(m_reviewCompaction);

    m_pinBudget = new QSpinBox(this);
    m_pinBudget->setObjectName(QStringLiteral("pinBudgetSpin"));
    m_pinBudget->setRange(1, 100); // what settings.json and the session accept: a stored 80 stays 80
    m_pinBudget->setSuffix(tr("% of the input budget"));
    m_pinBudget->setToolTip(tr("Pinned messages, code and notes travel verbatim after a compaction; a pin "
                               "that would take more than this is refused"));
    auto *pinRow = new QHBoxLayout;
    auto *pinLabel = new QLabel(tr("&Pins may take up to"), this);
    pinLabel->setBuddy(m_pinBudget);
    pinRow->addWidget(pinLabel);
    pinRow->addWidget(m_pinBudget);
    pinRow->addStretch();
    layout->addLayout(pinRow);

    m_missing = new QLabel(this);
    m_missing->setObjectName(QStringLiteral("settingsMissing"));
    m_missing->setWordWrap(true);
    m_missing->setTextFormat(Qt::PlainText);
    layout->addWidget(m_missing);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!missing().isEmpty())
            return; // OK is disabled then; the next turn would fail with this configuration
        Q_EMIT configAccepted(this->config());
        accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_test, &QPushButton::clicked, this, &SettingsDialog::testConnection);
    connect(m_connectionTest, &ConnectionTest::modelsListed, this, [this](const QStringList &models) {
        if (m_provider->currentData().toString() == m_testedProvider)
            offerListedModels(models); // not a list of the provider the person has left meanwhile
    });
    connect(m_connectionTest, &ConnectionTest::finished, this, [this](bool ok, const QString &message) {
        m_test->setEnabled(true);
        m_testResult->setText(message);
        Q_EMIT connectionTested(ok, message);
    });
    connect(m_signIn, &ChatGptSignInRow::signInRequested, this, &SettingsDialog::chatGptSignInRequested);
    connect(m_signIn, &ChatGptSignInRow::signedInChanged, this, &SettingsDialog::updateMissing);
    for (QLineEdit *field : {m_apiKey, m_baseUrl})
        connect(field, &QLineEdit::textChanged, this, &SettingsDialog::updateMissing);
    connect(m_removeKey, &QPushButton::clicked, this, &SettingsDialog::removeStoredKey);
    connect(m_provider, &QComboBox::currentIndexChanged, this, &SettingsDialog::onProviderChanged);
    connect(m_model, &QComboBox::currentTextChanged, this, &SettingsDialog::onModelChanged);
    setConfig(config);
    resize(520, sizeHint().height());
}

SettingsDialog::~SettingsDialog() = default;

bool SettingsDialog::reviewCompaction() const
{
    return m_reviewCompaction->isChecked();
}

void SettingsDialog::setReviewCompaction(bool review)
{
    m_reviewCompaction->setChecked(review);
}

int SettingsDialog::pinBudgetPercent() const
{
    return m_pinBudget->value();
}

void SettingsDialog::setPinBudgetPercent(int percent)
{
    m_pinBudget->setValue(percent);
}

void SettingsDialog::setContextWindows(const ContextWindows &windows)
{
    m_contextWindows = windows;
    m_contextWindow->setEnabled(!windows.thisRun);
    if (windows.thisRun)
        m_contextWindow->setToolTip(tr("Set by --context-window for this run"));
    showContextWindow();
}

qint64 SettingsDialog::defaultContextWindow() const
{
    return m_contextWindows.everyProvider.value_or(ProviderCatalog::contextWindow(
        m_provider->currentData().toString(), m_model->currentText().trimmed()));
}

bool SettingsDialog::modelHasOwnContextWindow() const
{
    return m_contextWindows.perModel.value(m_provider->currentData().toString())
        .contains(m_model->currentText().trimmed());
}

void SettingsDialog::showContextWindow()
{
    const QString providerId = m_provider->currentData().toString();
    const qint64 window = m_contextWindows.thisRun.value_or(
        m_contextWindows.perModel.value(providerId)
            .value(m_model->currentText().trimmed(),
                   m_contextWindows.perProvider.value(providerId, defaultContextWindow())));
    m_contextWindow->setWindow(window);
}

std::optional<qint64> SettingsDialog::contextWindowSetting() const
{
    if (m_contextWindows.thisRun)
        return std::nullopt;
    if (modelHasOwnContextWindow())
        return m_contextWindow->value();
    if (m_contextWindow->value() == defaultContextWindow())
        return std::nullopt;
    return m_contextWindow->value();
}

void SettingsDialog::setConfig(const ClientConfig &config)
{
    m_base = config;
    int index = m_provider->findData(config.providerId);
    if (index < 0 && !config.providerId.isEmpty()) {
        m_provider->addItem(config.providerId, config.providerId);
        index = m_provider->count() - 1;
    }
    m_provider->setCurrentIndex(qMax(0, index));
    onProviderChanged();
    m_apiKey->setText(config.apiKey);
    if (!config.baseUrl.isEmpty())
        m_baseUrl->setText(config.baseUrl);
    QStringList headers;
    for (const auto &header : config.headers)
        headers << QString::fromUtf8(header.first) + QStringLiteral(": ") + QString::fromUtf8(header.second);
    m_headers->setPlainText(headers.join(QLatin1Char('\n')));
    if (!config.model.isEmpty())
        m_model->setCurrentText(config.model);
    const int effort = m_thinking->findText(config.thinkingEffort);
    if (effort >= 0)
        m_thinking->setCurrentIndex(effort);
}

void SettingsDialog::onProviderChanged()
{
    const QString providerId = m_provider->currentData().toString();
    const ProviderCatalog::Provider *provider = ProviderCatalog::provider(providerId);
    m_model->clear();
    m_model->addItems(ProviderCatalog::modelIds(providerId));
    m_baseUrl->setText(provider ? provider->defaultBaseUrl : QString());
    m_baseUrl->setPlaceholderText(ProviderCatalog::baseUrlPlaceholder(provider));
    // Back on the provider the dialog opened with: its base URL and model again, not the defaults (an
    // OpenAI-compatible server has neither).
    if (providerId == m_base.providerId) {
        if (!m_base.baseUrl.isEmpty())
            m_baseUrl->setText(m_base.baseUrl);
        if (!m_base.model.isEmpty())
            m_model->setCurrentText(m_base.model);
    }
    m_apiKey->setEnabled(!provider || provider->acceptsKey());
    // The key the dialog opened with is that provider's: OK would store it for (and send it to) another one.
    // A key typed in here stays.
    if (m_apiKey->text().isEmpty() || m_apiKey->text() == m_base.apiKey)
        m_apiKey->setText(providerId == m_base.providerId ? m_base.apiKey : QString());
    const bool signIn = provider && provider->auth == AuthMode::OAuth;
    m_signIn->setVisible(signIn);
    if (signIn)
        m_signIn->lookUp();
    onModelChanged();
    refreshStoredKey();
}

void SettingsDialog::offerListedModels(const QStringList &listed)
{
    // The registry's models first (they carry the context window and efforts), then what the server listed
    // beyond them. The name in the field stays, typed or chosen; an empty field gets the first one.
    const QString current = m_model->currentText();
    QStringList models = ProviderCatalog::modelIds(m_provider->currentData().toString());
    for (const QString &model : listed) {
        if (!models.contains(model))
            models << model;
    }
    QSignalBlocker blocker(m_model);
    m_model->clear();
    m_model->addItems(models);
    if (!current.trimmed().isEmpty())
        m_model->setCurrentText(current);
    blocker.unblock();
    onModelChanged(); // the efforts of the model now shown
}

void SettingsDialog::setProvidersWithKeyInSettings(const QStringList &providerIds)
{
    m_keysInSettings = providerIds;
    refreshStoredKey();
}

void SettingsDialog::refreshStoredKey()
{
    const QString providerId = m_provider->currentData().toString();
    const quint64 query = ++m_keyQuery;
    const bool inSettings = m_keysInSettings.contains(providerId);
    m_removeKey->setVisible(false);
    m_storedKey->clear();
    m_storedHint.clear();
    m_keyStored = inSettings;
    updateMissing();
    if (providerId.isEmpty())
        return;
    SecretStore::storedKeyAsync(providerId, this, [this, query, inSettings](const Result<StoredKey> &stored) {
        if (query != m_keyQuery)
            return; // the provider changed meanwhile
        m_keyStored = inSettings || (stored && stored->location != StoredKey::Location::None);
        updateMissing();
        if (!stored) {
            m_storedKey->setText(tr("The stored key could not be read: %1").arg(stored.error()));
            return;
        }
        switch (stored->location) {
        case StoredKey::Location::None:
            if (inSettings) {
                m_storedKey->setText(tr("Set in settings.json (api_key or api_key_helper)."));
            } else if (const QString variable = keyVariableSet(); !variable.isEmpty()) {
                // The key field may show that key masked: say where it comes from, or "No key stored" under
                // a filled field reads as a contradiction.
                m_storedKey->setText(
                    tr("No key stored: the key in use comes from the environment variable %1.")
                        .arg(variable));
            } else {
                m_storedKey->setText(tr("No key stored."));
            }
            return;
        case StoredKey::Location::Keychain:
            m_storedKey->setText(tr("Stored in keychain %1").arg(stored->hint));
            break;
        case StoredKey::Location::SecretsFile:
            m_storedKey->setText(
                tr("Stored unencrypted in %1 %2").arg(SecretStore::secretsFilePath(), stored->hint));
            break;
        }
        m_storedHint = stored->hint;
        m_removeKey->setVisible(true);
        m_removeKey->setEnabled(true);
    });
}

QString SettingsDialog::keyVariableSet() const
{
    const QStringList variables =
        ProviderTable::keyEnvironmentVariables(m_provider->currentData().toString());
    for (const QString &variable : variables) {
        if (!qEnvironmentVariableIsEmpty(variable.toLocal8Bit().constData()))
            return variable;
    }
    return {};
}

void SettingsDialog::removeStoredKey()
{
    const QString providerId = m_provider->currentData().toString();
    // The window opens the dialog with the key it uses, which is this stored one unless an environment
    // variable overrides it. Left in the field, OK would store the removed key again.
    const bool showsRemovedKey = providerId == m_base.providerId && !m_base.apiKey.isEmpty() &&
                                 m_apiKey->text() == m_base.apiKey &&
                                 SecretStore::keyHint(m_base.apiKey) == m_storedHint;
    m_removeKey->setEnabled(false);
    ++m_keyQuery; // an answer still on its way describes the key being removed
    SecretStore::removeKeyAsync(providerId, this, [this, showsRemovedKey](const Result<void> &removed) {
        if (!removed) {
            m_removeKey->setEnabled(true);
            m_storedKey->setText(removed.error());
            return;
        }
        if (showsRemovedKey) {
            m_base.apiKey.clear();
            m_apiKey->clear();
        }
        refreshStoredKey();
    });
}

QStringList SettingsDialog::missing() const
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

void SettingsDialog::updateMissing()
{
    const QStringList lines = missing();
    m_missing->setText(lines.join(QLatin1Char('\n')));
    m_missing->setVisible(!lines.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(lines.isEmpty());
}

void SettingsDialog::showChatGptSignIn(bool ok, const QString &message)
{
    m_signIn->showResult(ok, message);
}

void SettingsDialog::onModelChanged()
{
    const QString current = m_thinking->currentText();
    m_thinking->clear();
    const QStringList efforts =
        ProviderCatalog::thinkingEfforts(m_provider->currentData().toString(), m_model->currentText());
    m_thinking->addItem(tr("default"), QString());
    for (const QString &effort : efforts)
        m_thinking->addItem(effort, effort);
    m_thinking->setEnabled(!efforts.isEmpty());
    const int index = m_thinking->findText(current);
    if (index >= 0)
        m_thinking->setCurrentIndex(index);
    showContextWindow();
    updateMissing();
}

ClientConfig SettingsDialog::config() const
{
    ClientConfig config = m_base;
    config.providerId = m_provider->currentData().toString();
    config.apiKey = m_apiKey->text();
    config.baseUrl = m_baseUrl->text().trimmed();
    config.model = m_model->currentText().trimmed();
    config.thinkingEffort = m_thinking->currentData().toString();
    config.headers.clear();
    const QStringList lines = m_headers->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        if (colon > 0)
            config.headers.append(
                {line.left(colon).trimmed().toUtf8(), line.mid(colon + 1).trimmed().toUtf8()});
    }
    config.contextWindow = m_contextWindow->value();
    return config;
}

bool SettingsDialog::keyEntered() const
{
    const QString key = m_apiKey->text();
    return !key.isEmpty() &&
           !(m_provider->currentData().toString() == m_base.providerId && key == m_base.apiKey);
}

void SettingsDialog::testConnection()
{
    m_test->setEnabled(false);
    m_testResult->setText(tr("Testing..."));
    m_testedProvider = m_provider->currentData().toString();
    // The provider's protocol builds the request (its own auth); the reply arrives through the event loop.
    m_connectionTest->start(config());
}

} // namespace keen

#include "moc_settingsdialog.cpp"
