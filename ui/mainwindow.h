#pragma once

#include "base/cancellationtoken.h"
#include "config/launchoptions.h"
#include "config/settings.h"
#include "conversation/agentmode.h"
#include "providers/clientconfig.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>
#include <QThreadPool>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QToolButton;

namespace keen {

class AgentSession;
class ConfigResolver;
class ChatPanel;
class ColorSchemeController;
class ContextMeter;
class ModelComboBox;
class Notifier;
class SessionNotifications;
class SessionBrowserPanel;
class SessionStore;

// The main window: the sessions sidebar, the chat panel, a toolbar (sidebar, New session, Compact, Stop,
// mode, provider and model), the status bar (folder and branch, provider/model and thinking effort, context
// meter, token totals, elapsed time). It works in one folder at a time: File > Open Folder, Open Recent, a
// folder dropped on it, or the command line. Opens already set up from the launch flags.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    // The width the conversation keeps while the sessions sidebar can still narrow.
    static constexpr int MinChatWidth = 480;

    explicit MainWindow(const LaunchOptions &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    AgentSession *session() const { return m_session; }
    ChatPanel *chatPanel() const { return m_chat; }
    ColorSchemeController *colorScheme() const { return m_colorScheme; }
    Notifier *notifier() const { return m_notifier; }
    // Where "finished while you were away" goes: the desktop's notification server unless replaced (tests).
    void setNotifier(Notifier *notifier);
    QStringList recentFolders() const { return m_recentFolders; }
    // Applies a provider setup (from the settings dialog, the pickers or the flags) to the session.
    void applyClientConfig(const ClientConfig &config);
    // Where a choice of model came from: its confirmation and refusals go to the chat (/model) or to the
    // status bar (the toolbar, where the box itself shows the result). Errors always go to the chat.
    enum class ChoiceFrom { Toolbar, Command };
    // Makes model (trimmed) the current provider's active model at once: session (the next request), toolbar,
    // status bar and settings.json (active_model; added to the provider's "models" where its models come
    // from settings). An empty name is refused and the box shows the model in use again. While a turn runs,
    // the turn finishes with the model it started with and the status bar says the new one comes next.
    void useModel(const QString &model, ChoiceFrom from);
    // /model PROVIDER/NAME or the toolbar's provider box: the provider as settings.json configures it (base
    // URL, headers, key), with that model or, when model is empty, the provider's configured or first one.
    // A provider that is not ready (no key, no base URL) is reported in the chat and nothing changes.
    void switchProvider(const QString &providerId, const QString &model, ChoiceFrom from);
    // /model's argument: NAME, or PROVIDER/NAME (an unknown provider is reported with the valid ids).
    void chooseModel(const QString &choice);
    // The session's shutdown token was cancelled (SIGTERM or SIGINT through SignalWatcher, a logout): the
    // running turn is stopping already; quit once it is saved, at once when nothing runs.
    void quitAfterStopping();
    // Cancelled by SignalWatcher (app/windowmain.cpp); the session's turns descend from it.
    CancellationToken shutdownToken() const;

public Q_SLOTS:
    void showAbout();
    void showSettings();
    void showSessionBrowser();
    void cycleMode();
    // File > Open Folder...: a folder dialog, then openFolder().
    void chooseFolder();
    // Works in another folder from now on: a new conversation there. Asks first while a turn runs.
    void openFolder(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    // The sessions sidebar (a dock on the left, shown unless the person closed it).
    void installSessionBrowser();
    void connectNotifications();
    void loadInitialConfig(const LoadedSettings &loaded);
    // Saves the provider choice in settings.json and the key in the keychain (off the GUI thread).
    // Saves the setup to settings.json; a key the person entered (KeyEntered::Yes) goes to the keychain.
    enum class KeyEntered { No, Yes };
    void persistClientConfig(const ClientConfig &config, KeyEntered keyEntered);
    // Saves the active provider, model and thinking effort; a model of a provider whose models come from
    // settings.json (openai-compatible, a custom server, the local servers) joins its "models".
    void persistModelChoice(const ClientConfig &config);
    // After a provider change: the previous model's status line and the "from the next turn" note.
    void announceModel(const ClientConfig &before, ChoiceFrom from);
    // The key for the session's provider from the keychain, the environment or a helper, off the GUI thread;
    // set unless the person switched provider or typed a key meanwhile.
    // A configuration chosen in the first-run setup or the settings: applied, saved, and its key looked up
    // when none was typed.
    void useChosenSetup(const ClientConfig &config, KeyEntered keyEntered);
    void adoptKeyWhenResolved(const ConfigResolver &resolver, const LaunchOptions &options);
    // Runs the ChatGPT sign-in (browser, loopback callback) for the settings dialog or the first-run setup,
    // owned by owner; report receives its end, which the status bar shows too.
    void signInWithChatGpt(QObject *owner, std::function<void(bool ok, const QString &message)> report);
    // /logout: the ChatGPT sign-in is removed; says so when the provider has none.
    void signOutOfChatGpt();
    // /cleanup and File > Clean Up Old Data: finds what is old on a worker, asks, deletes on a worker.
    void cleanUpOldData();
    // Changes settings.json in place; a broken file is reported in the chat, never overwritten.
    void keepInputHistory();
    // providers.<id>.context_window: saved, or removed when empty (the window then follows the registry).
    // The window of all of a provider's models (model empty: the setup's and Settings' field), or of one
    // model that has its own in settings.json (context_windows); none: what it would be without.
    void rememberContextWindow(const QString &providerId, const QString &model, std::optional<qint64> window);
    // Queues change for settings.json (SettingsWriter): it runs later, on the writer's thread and in every
    // read until then, so it captures values, never references, and sets values (twice gives the same).
    void saveSettings(const std::function<void(Settings &)> &change);
    void updateStatus();
    void updateTitle();
    void updateMetrics();
    // Estimates the history the session holds now, for the meter until the provider reports usage.
    void estimateHistory();
    void updateBusy(bool busy);
    // During a manual compaction Stop reads "Cancel Compaction" and has no Ctrl+C shortcut.
    void showStopAsCancelCompaction(bool cancelCompaction);
    // Conversation > Undo Compaction: enabled when a compaction is in effect and nothing runs (issue 16).
    void updateUndoCompaction();
    void updateBranch();
    void updateSessionTitle();
    void populateModels();
    void openSession(const QString &sessionId);
    QAction *makeAction(const QString &text, const QString &objectName, const QKeySequence &shortcut);
    void setIconName(QAction *action, const QString &name);
    void refreshIcons();

    // Folders
    static QString initialWorkspace(const LaunchOptions &options, const Settings &settings, bool *ask);
    // While a turn or compaction runs, leaving the conversation (another folder, another session, a new
    // session) asks first; "Stop and ..." stops it and does `leave` once it has really ended.
    void askBeforeLeaving(const QString &kind, const QString &title, const QString &text,
                          const QString &stopText, std::function<void()> leave);
    void newSession();
    // Runs leave at once when nothing runs, else stops the turn (or the manual compaction) and runs it once
    // the stopped turn is saved.
    void stopThen(std::function<void()> leave);
    void switchWorkspace(const QString &folder);
    void syncWorkspace(); // the chat's file index, the sidebar, branch, status and title follow the session
    void rememberFolder(const QString &folder);
    void rebuildRecentMenu();
    void askForFirstFolder();

    void focusFromNotification(const QString &sessionId);
    void setColorScheme(Settings::ColorScheme scheme);

    LaunchOptions m_options;
    AgentSession *m_session = nullptr;
    std::shared_ptr<SessionStore> m_store;
    ChatPanel *m_chat = nullptr;
    ColorSchemeController *m_colorScheme = nullptr;
    Notifier *m_notifier = nullptr;
    SessionNotifications *m_sessionNotifications = nullptr;

    QAction *m_newSessionAction = nullptr;
    QAction *m_openFolderAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_clearRecentAction = nullptr;
    QAction *m_compactAction = nullptr;
    QAction *m_undoCompactionAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_cycleModeAction = nullptr;
    QAction *m_settingsAction = nullptr;
    QAction *m_sessionsAction = nullptr;
    QAction *m_showThinkingAction = nullptr;
    QAction *m_providerAction = nullptr;
    QAction *m_modelAction = nullptr;
    QActionGroup *m_schemeGroup = nullptr;
    QMenu *m_recentMenu = nullptr;
    QAction *m_recentNone = nullptr; // "No Recent Folders", shown when no other folder is offered
    quint64 m_recentCheck = 0;       // moves on when the menu is built again, so an older check is dropped
    QComboBox *m_modeCombo = nullptr;
    QComboBox *m_providerCombo = nullptr;
    ModelComboBox *m_modelCombo = nullptr;
    QHash<QAction *, QString> m_iconNames;
    QHash<QString, QStringList> m_configuredModels; // settings.json "providers".<id>."models", for the box
    quint64 m_providerSwitch = 0;                   // only the newest switchProvider() applies

    QLabel *m_workspaceLabel = nullptr;
    QLabel *m_modelLabel = nullptr;
    ContextMeter *m_meter = nullptr;
    QToolButton *m_compactSuggestion = nullptr;
    QToolButton *m_mcpProblems = nullptr; // "MCP: 1 server failed", shown while one has; opens /mcp
    QLabel *m_tokensLabel = nullptr;
    QLabel *m_elapsedLabel = nullptr;
    QString m_branch;
    QElapsedTimer m_elapsed;
    QTimer m_elapsedTimer;

    QDockWidget *m_sessionDock = nullptr;
    // The sidebar's width as the person left it; a narrow window narrows the sidebar first, down to its
    // minimum, so the conversation keeps MinChatWidth, and a wider one gives this width back.
    int m_sidebarWidth = 0;
    void fitSidebar();
    SessionBrowserPanel *m_sessionBrowser = nullptr;
    bool m_updatingPickers = false;

    QString m_shownWorkspace; // the folder the chat, sidebar and title show
    QStringList m_recentFolders;
    std::optional<qint64> m_contextWindowSetting;   // settings.json context_window, read at start
    QMap<QString, qint64> m_providerContextWindows; // providers.<id>.context_window, kept as saved
    // providers.<id>.context_windows: per provider, the window of a model, kept as saved
    QMap<QString, QMap<QString, qint64>> m_modelContextWindows;
    // Reads and writes the input history of earlier runs on one worker thread, in the order asked.
    QThreadPool m_historyFile;
    std::function<void()> m_afterStop; // what the person chose to do once the running turn has stopped
    int m_shutdownCallback = -1;       // on the session's shutdown token
    QString m_sessionTitle;
    bool m_askForFolder = false;
    bool m_cleaningUp = false;
    std::optional<qint64> m_estimate; // the history held, while no usage report measured it
};

} // namespace keen
