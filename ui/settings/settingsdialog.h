#pragma once

#include "providers/clientconfig.h"

#include <QDialog>
#include <QMap>

#include <optional>

class QCheckBox;

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace keen {

class ChatGptSignInRow;
class ContextWindowSpinBox;
class ConnectionTest;

// Provider settings: provider, API key (masked; a key already in the keychain is shown as a hint and can be
// removed), base URL, extra headers, model, thinking effort, a
// connection test (asynchronous, off the GUI thread's critical path) and ChatGPT sign-in for Codex (reported
// as a signal so the core's OAuth flow can take it; its end comes back through showChatGptSignIn). OK stays
// disabled, with a line saying what to enter, while SetupCheck finds the configuration unusable.
class SettingsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SettingsDialog)

public:
    explicit SettingsDialog(const ClientConfig &config, QWidget *parent = nullptr);
    ~SettingsDialog() override;

    ClientConfig config() const;
    // The key field holds a key the person typed or pasted, not the one the dialog opened with (which may
    // come from the environment, settings.json or a helper, and is not to be copied into the keychain).
    bool keyEntered() const;
    void setConfig(const ClientConfig &config);
    // Issue 16: "Review manual compaction summaries before they apply" (settings.json compaction_review).
    bool reviewCompaction() const;
    void setReviewCompaction(bool review);
    // Issue 16: the share of the input budget pins may take (settings.json pin_budget_percent).
    int pinBudgetPercent() const;
    void setPinBudgetPercent(int percent);
    // Where the window of a provider's models comes from, besides the registry (settings.json).
    struct ContextWindows
    {
        QMap<QString, QMap<QString, qint64>> perModel; // providers.<id>.context_windows.<model>
        QMap<QString, qint64> perProvider;             // providers.<id>.context_window
        std::optional<qint64> everyProvider;           // context_window
        std::optional<qint64> thisRun; // --context-window: the field shows it and cannot change it
    };
    void setContextWindows(const ContextWindows &windows);
    // The window typed for the chosen provider when it differs from what it would be without one (the
    // top-level context_window, else the registry's): what providers.<id>.context_window should hold. For a
    // model with a window of its own in settings.json (modelHasOwnContextWindow), what that should hold.
    std::optional<qint64> contextWindowSetting() const;
    bool modelHasOwnContextWindow() const;
    // What must still be entered before OK, one sentence each (SetupCheck); empty when OK is enabled.
    QStringList missing() const;
    // Providers whose settings.json entry has an api_key or api_key_helper: they need no key typed here.
    void setProvidersWithKeyInSettings(const QStringList &providerIds);

public Q_SLOTS:
    void testConnection();
    // The end of a sign-in started by chatGptSignInRequested.
    void showChatGptSignIn(bool ok, const QString &message);

Q_SIGNALS:
    void configAccepted(const keen::ClientConfig &config);
    void chatGptSignInRequested();
    void connectionTested(bool ok, const QString &message);

private:
    void onProviderChanged();
    // Asks (off the GUI thread) whether the app holds a key for the current provider and shows its hint.
    void refreshStoredKey();
    // The first of the provider's key environment variables that is set, empty when none is.
    QString keyVariableSet() const;
    void removeStoredKey();
    void onModelChanged();
    // The window without a providers.<id>.context_window of the chosen provider, and with it.
    qint64 defaultContextWindow() const;
    void showContextWindow();
    void updateMissing();
    // After a connection test: the models the server listed join the Model list.
    void offerListedModels(const QStringList &models);

    ClientConfig m_base;
    QComboBox *m_provider;
    QLineEdit *m_apiKey;
    QLineEdit *m_baseUrl;
    QPlainTextEdit *m_headers;
    QComboBox *m_model;
    QComboBox *m_thinking;
    QLabel *m_storedKey;
    QPushButton *m_removeKey;
    quint64 m_keyQuery = 0; // only the newest answer is shown
    QString m_storedHint;   // of the key shown as stored, to know whether the key field holds that key
    QStringList m_keysInSettings;
    bool m_keyStored = false; // the app holds a key for the current provider: the field may stay empty
    QPushButton *m_test;
    ChatGptSignInRow *m_signIn;
    QLabel *m_missing;
    QDialogButtonBox *m_buttons;
    QLabel *m_testResult;
    QString m_testedProvider; // whose models the running connection test lists
    QCheckBox *m_reviewCompaction;
    QSpinBox *m_pinBudget;
    ContextWindowSpinBox *m_contextWindow;
    ContextWindows m_contextWindows;
    ConnectionTest *m_connectionTest;
};

} // namespace keen
