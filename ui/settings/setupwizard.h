#pragma once

#include "providers/clientconfig.h"

#include <QWizard>

#include <optional>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QTimer;
class QWizardPage;

namespace keen {

class ChatGptSignInRow;
class ContextWindowSpinBox;
class ConnectionTest;
class LocalServerProbe;

// First run (no provider configured): pick a provider (local OpenAI-compatible servers found on their usual
// ports are listed first), then the key and the model. Finish stays disabled, with a line saying what to
// enter, while SetupCheck finds something missing: a model always, the base URL of a server without a known
// one, a key where one is required and none is in the environment or stored already, the ChatGPT sign-in for
// Codex (run by the owner through chatGptSignInRequested, as in the settings dialog) unless one is stored.
// For a server that lists its own models (a local server, an OpenAI-compatible one; not a hosted service),
// the server is asked for them as soon as a base URL is entered, and the first is chosen when no model is
// typed yet.
class SetupWizard final : public QWizard
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SetupWizard)

public:
    explicit SetupWizard(QWidget *parent = nullptr);
    ~SetupWizard() override;

    LocalServerProbe *probe() const { return m_probe; }
    ClientConfig config() const;
    // A local server's window as entered, when it differs from the registry's: what
    // providers.<id>.context_window should hold. Empty for a hosted provider.
    std::optional<qint64> contextWindowSetting() const;
    // What must still be entered on the key-and-model page, one sentence each; empty when it can finish.
    QStringList missing() const;

public Q_SLOTS:
    // The end of a sign-in started by chatGptSignInRequested.
    void showChatGptSignIn(bool ok, const QString &message);

Q_SIGNALS:
    void configured(const keen::ClientConfig &config);
    void chatGptSignInRequested();

protected:
    void initializePage(int id) override;

private:
    void updateMissing();
    // Whether a key for the provider is already in the environment or stored (asked off the GUI thread).
    void lookForKey(const QString &providerId);
    // Asks the server at the entered base URL for its models (providers whose models are not in the
    // registry); the answer fills the Model box and the line under the form.
    void listServerModels();
    void offerListedModels(const QStringList &listed);
    // A server the person runs (not a hosted service): it is asked for its models, and its window is theirs
    // to enter.
    bool choseLocalServer() const;

    LocalServerProbe *m_probe;
    QListWidget *m_found;
    QLabel *m_probeStatus;
    QComboBox *m_provider;
    QLineEdit *m_apiKey;
    QLineEdit *m_baseUrl;
    QComboBox *m_model;
    ContextWindowSpinBox *m_contextWindow;
    QFormLayout *m_detailsForm;
    ChatGptSignInRow *m_signIn;
    QLabel *m_missing;
    QLabel *m_serverModels; // what asking the server for its models gave
    ConnectionTest *m_modelLister;
    QTimer *m_listSoon;          // a pause in typing the base URL asks the server
    bool m_modelsListed = false; // the last question was answered with a list
    QWizardPage *m_detailsPage;
    bool m_keyStored = false; // the app holds a key for the provider: the field may stay empty
    quint64 m_keyQuery = 0;   // only the newest answer counts
};

} // namespace keen
