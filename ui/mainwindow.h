#pragma once

#include "config/launchoptions.h"
#include "conversation/agentmode.h"
#include "providers/clientconfig.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QTimer>

#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QToolButton;

namespace keen {

class AgentSession;
class ChatPanel;
class ContextMeter;
class SessionBrowserPanel;
class SessionStore;

// The main window: toolbar (New session, Compact, Stop, mode, provider and model), the chat panel, the
// status bar (workspace and branch, provider/model and thinking effort, context meter, token totals, elapsed
// time) and the session browser dock. Opens already set up from the launch flags.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    explicit MainWindow(const LaunchOptions &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    AgentSession *session() const { return m_session; }
    ChatPanel *chatPanel() const { return m_chat; }
    // Applies a provider setup (from the settings dialog, the pickers or the flags) to the session.
    void applyClientConfig(const ClientConfig &config);

public Q_SLOTS:
    void showAbout();
    void showSettings();
    void showSessionBrowser();
    void cycleMode();

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    // The session browser dock (Ctrl+Shift+S).
    void installSessionBrowser();
    void loadInitialConfig();
    // Saves the provider choice in settings.json and the key in the keychain (off the GUI thread).
    void persistClientConfig(const ClientConfig &config);
    void updateStatus();
    void updateMetrics();
    void updateBusy(bool busy);
    void updateBranch();
    void populateModels();
    void openSession(const QString &sessionId);
    QAction *makeAction(const QString &text, const QString &objectName, const QKeySequence &shortcut);

    LaunchOptions m_options;
    AgentSession *m_session = nullptr;
    std::shared_ptr<SessionStore> m_store;
    ChatPanel *m_chat = nullptr;

    QAction *m_newSessionAction = nullptr;
    QAction *m_compactAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_cycleModeAction = nullptr;
    QAction *m_settingsAction = nullptr;
    QAction *m_sessionsAction = nullptr;
    QAction *m_showThinkingAction = nullptr;
    QAction *m_providerAction = nullptr;
    QAction *m_modelAction = nullptr;
    QComboBox *m_modeCombo = nullptr;
    QComboBox *m_providerCombo = nullptr;
    QComboBox *m_modelCombo = nullptr;

    QLabel *m_workspaceLabel = nullptr;
    QLabel *m_modelLabel = nullptr;
    ContextMeter *m_meter = nullptr;
    QToolButton *m_compactSuggestion = nullptr;
    QLabel *m_tokensLabel = nullptr;
    QLabel *m_elapsedLabel = nullptr;
    QString m_branch;
    QElapsedTimer m_elapsed;
    QTimer m_elapsedTimer;

    QDockWidget *m_sessionDock = nullptr;
    SessionBrowserPanel *m_sessionBrowser = nullptr;
    bool m_updatingPickers = false;
    std::optional<qint64> m_estimate; // the history after a compaction, until usage is reported
};

} // namespace keen
