#include "mainwindow.h"

#include "agent/agentsession.h"
#include "agent/datacleanup.h"
#include "agent/workspaceinfo.h"
#include "base/logcategories.h"
#include "base/logfile.h"
#include "base/privatefolder.h"
#include "base/whenfinished.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"
#include "colorschemecontroller.h"
#include "config/chatgptsignin.h"
#include "config/configresolver.h"
#include "config/inputhistory.h"
#include "config/secretstore.h"
#include "config/settingswriter.h"
#include "contextmeter.h"
#include "desktopnotifier.h"
#include "displaypath.h"
#include "icons.h"
#include "providers/providertable.h"
#include "session/sessionstore.h"
#include "sessionnotifications.h"
#include "sessions/sessionbrowserpanel.h"
#include "sessions/sessionlistmodel.h"
#include "settings/modelcombobox.h"
#include "settings/providercatalog.h"
#include "settings/settingsdialog.h"
#include "settings/setupwizard.h"
#include "tokenformat.h"

#include <QAbstractItemView>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFuture>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QResizeEvent>
#include <QSet>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

namespace keen {

namespace {

// An Open Recent entry: the first nine numbered for the keyboard (&1 to &9).
QString recentFolderLabel(int number, const QString &folder)
{
    return number < 10 ? QStringLiteral("&%1 %2").arg(number).arg(displayPath(folder)) : displayPath(folder);
}

// A toolbar field and its label in one widget: a narrow window moves them into the toolbar's overflow menu
// together, never a label without its box. The label's mnemonic focuses the box.
QWidget *labelledField(const QString &label, QWidget *field, QToolBar *bar)
{
    auto *box = new QWidget(bar);
    auto *layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *text = new QLabel(label, box);
    text->setBuddy(field);
    layout->addWidget(text);
    layout->addWidget(field);
    return box;
}
constexpr int kSidebarWidth = 300;

// Window geometry and the sidebar's place and width: beside settings.json, so KEEN_HOME keeps them too.
QString windowStatePath()
{
    return QDir(Settings::configDirectory()).filePath(QStringLiteral("window.ini"));
}

// The one local folder a drag carries, or nothing.
QString droppedFolder(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1)
        return {};
    const QUrl url = mime->urls().constFirst();
    if (!url.isLocalFile())
        return {};
    const QFileInfo info(url.toLocalFile());
    return info.isDir() ? info.absoluteFilePath() : QString();
}
} // namespace

MainWindow::MainWindow(const LaunchOptions &options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(options)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.keen.KeenDesktop"),
                                   QIcon(QStringLiteral(":/keen/keen-desktop.svg"))));
    setAcceptDrops(true);
    resize(1180, 800);

    // A damaged settings.json: its valid keys are used, the defaults for the rest, and the window says why.
    const LoadedSettings loaded = Settings::loadOrDefaults();
    const Settings &settings = loaded.settings;
    m_recentFolders = settings.recentFolders;
    m_contextWindowSetting = settings.contextWindow;
    for (auto it = settings.providers.cbegin(); it != settings.providers.cend(); ++it) {
        m_configuredModels.insert(it.key(), it->models);
        if (it->contextWindow)
            m_providerContextWindows.insert(it.key(), *it->contextWindow);
        if (!it->modelContextWindows.isEmpty())
            m_modelContextWindows.insert(it.key(), it->modelContextWindows);
    }

    m_colorScheme = new ColorSchemeController(this);
    m_colorScheme->setScheme(settings.colorScheme);
    m_colorScheme->watchSystem();
    m_notifier = new DesktopNotifier(this);

    m_session = new AgentSession(this);
    m_store = std::make_shared<SessionStore>();
    m_session->setSessionStore(m_store);
    m_session->setWorkspace(initialWorkspace(options, settings, &m_askForFolder));
    m_session->setToolHistoryFull(settings.toolHistory == Settings::ToolHistory::Full);
    m_session->setReviewManualCompaction(settings.reviewCompaction);
    m_session->setPinBudgetPercent(settings.pinBudgetPercent.value_or(AgentSession::DefaultPinBudgetPercent));

    m_chat = new ChatPanel(m_session, this);
    keepInputHistory();
    m_chat->setShowThinking(settings.showThinking);
    m_chat->setZoomPercent(settings.zoomPercent);
    setCentralWidget(m_chat);

    createActions();
    createMenus();
    createToolBar();
    createStatusBar();
    installSessionBrowser();
    refreshIcons();
    syncWorkspace();
    if (!m_askForFolder && options.sessionId.isEmpty())
        rememberFolder(m_session->workspace());
    loadInitialConfig(loaded);
    connectNotifications();

    connect(m_chat, &ChatPanel::busyChanged, this, &MainWindow::updateBusy);
    connect(m_chat, &ChatPanel::undoableCompactionChanged, this, &MainWindow::updateUndoCompaction);
    connect(m_session, &AgentSession::historyReplaced, this, &MainWindow::updateUndoCompaction);
    connect(m_chat, &ChatPanel::metricsChanged, this, &MainWindow::updateMetrics);
    connect(m_chat, &ChatPanel::settingsRequested, this, &MainWindow::showSettings);
    connect(m_chat, &ChatPanel::quitRequested, this, &MainWindow::close);
    connect(m_chat, &ChatPanel::logoutRequested, this, &MainWindow::signOutOfChatGpt);
    connect(m_chat, &ChatPanel::cleanupRequested, this, &MainWindow::cleanUpOldData);
    connect(m_chat, &ChatPanel::modelRequested, this, &MainWindow::chooseModel);
    connect(m_chat, &ChatPanel::sessionsRequested, this, &MainWindow::showSessionBrowser);
    connect(m_chat, &ChatPanel::modeChanged, this, [this](AgentMode mode) {
        m_modeCombo->setCurrentIndex(int(mode));
        updateStatus();
    });
    connect(m_chat, &ChatPanel::showThinkingChanged, this, [this](bool show) {
        m_showThinkingAction->setChecked(show);
        saveSettings([show](Settings &settings) { settings.showThinking = show; });
    });
    connect(m_chat, &ChatPanel::zoomChanged, this, [this](int percent) {
        saveSettings([percent](Settings &settings) { settings.zoomPercent = percent; });
    });
    connect(m_chat, &ChatPanel::toolHistoryChanged, this, [this](bool full) {
        saveSettings([full](Settings &settings) {
            settings.toolHistory = full ? Settings::ToolHistory::Full : Settings::ToolHistory::None;
        });
    });
    connect(m_chat, &ChatPanel::reviewerModelChanged, this,
            [this](const QString &provider, const QString &model) {
                saveSettings([provider, model](Settings &settings) {
                    settings.adversaryProvider = provider;
                    settings.adversaryModel = model;
                });
            });
    connect(m_chat, &ChatPanel::thinkingRequested, this, [this](const QString &effort) {
        const ClientConfig config = m_session->clientConfig();
        const QStringList efforts = ProviderCatalog::thinkingEfforts(config.providerId, config.model);
        if (!efforts.isEmpty() && !efforts.contains(effort)) {
            m_chat->model()->addLine(ChatItem::Kind::Error,
                                     tr("Usage: /thinking %1").arg(efforts.join(QLatin1Char('|'))));
            return;
        }
        ClientConfig changed = config;
        changed.thinkingEffort = effort;
        applyClientConfig(changed);
        persistModelChoice(changed); // reference 6.1: saved to the global config
        m_chat->model()->addLine(ChatItem::Kind::Status, tr("✓ Thinking effort: %1").arg(effort));
    });
    connect(m_session, &AgentSession::sessionChanged, this, [this](const QString &) {
        // Opening a session of another folder moves the window there.
        if (m_session->workspace() != m_shownWorkspace) {
            syncWorkspace();
            rememberFolder(m_session->workspace());
        }
        updateSessionTitle();
        updateStatus();
        m_exportAction->setEnabled(!m_session->sessionId().isEmpty());
    });
    connect(m_session, &AgentSession::turnStarted, this, [this](const QString &text) {
        if (m_sessionTitle.isEmpty()) {
            // As the sidebar names it: a skill's activation by its command, a pasted log by its start.
            m_sessionTitle = SessionInfo::preview(text, SessionInfo::TitleLength);
            updateTitle();
        }
    });
    // Any compaction (manual or automatic, even mid-turn) and an opened session replace the history: the
    // meter shows a local estimate of it at once, until the provider reports the next request.
    connect(m_session, &AgentSession::historyReplaced, this, [this] {
        estimateHistory();
        updateMetrics();
    });
    // The folder's instructions, skills and memory were read on a worker: until the provider reports a
    // request, the meter's estimate counts them now.
    connect(m_session, &AgentSession::systemPromptEstimated, this, [this] {
        if (m_session->isBusy() || m_session->lastUsage())
            return;
        estimateHistory();
        updateMetrics();
    });
    // Issue 16: the meter's mark follows the session's threshold (set in Context, or read from a session).
    connect(m_session, &AgentSession::compactionPolicyChanged, this, &MainWindow::updateMetrics);
    connect(m_session, &AgentSession::mcpStatusChanged, this, [this] {
        const QStringList problems = m_session->mcpProblems();
        m_mcpProblems->setVisible(!problems.isEmpty());
        m_mcpProblems->setText(problems.size() == 1 ? tr("⚠ MCP: 1 server failed")
                                                    : tr("⚠ MCP: %1 servers failed").arg(problems.size()));
        m_mcpProblems->setToolTip(problems.join(QLatin1Char('\n')) + QStringLiteral("\n\n") +
                                  tr("Click to show the MCP servers (/mcp)."));
        m_mcpProblems->setAccessibleName(m_mcpProblems->text());
    });
    connect(m_colorScheme, &ColorSchemeController::changed, this, [this] {
        Icons::setPreferBundled(m_colorScheme->usesOwnPalette());
        refreshIcons();
    });

    m_elapsedTimer.setInterval(1000);
    connect(&m_elapsedTimer, &QTimer::timeout, this, [this] {
        m_elapsedLabel->setText(tr("%1 elapsed").arg(TokenFormat::elapsed(m_elapsed.elapsed())));
    });

    QSettings state(windowStatePath(), QSettings::IniFormat);
    restoreGeometry(state.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(state.value(QStringLiteral("window/state")).toByteArray());

    updateStatus();
    updateMetrics();
    updateBusy(false);
    m_chat->setFocus();

    if (!options.sessionId.isEmpty()) {
        QTimer::singleShot(0, this, [this] { openSession(m_options.sessionId); });
    }
    // Runs on the thread that cancels (the signal watcher's): only a queued call crosses to this one.
    m_shutdownCallback = m_session->shutdownToken().onCancelled(
        [this] { QMetaObject::invokeMethod(this, &MainWindow::quitAfterStopping, Qt::QueuedConnection); });
}

MainWindow::~MainWindow()
{
    m_session->shutdownToken().removeCallback(m_shutdownCallback);
    // The Model box loses the focus while the widgets are destroyed, after the session: that is no choice.
    disconnect(m_modelCombo->lineEdit(), nullptr, this, nullptr);
    SettingsWriter::waitForWrites(); // a setting changed just before Quit is on disk when the app ends
}

QString MainWindow::initialWorkspace(const LaunchOptions &options, const Settings &settings, bool *ask)
{
    *ask = false;
    if (!options.workspace.isEmpty())
        return QDir(options.workspace).absolutePath();
    const QString current = QDir::currentPath();
    if (!options.sessionId.isEmpty() || QDir(current) != QDir::home())
        return current;
    // Started from the menu (in the home folder): the last folder, or ask on the first run.
    for (const QString &folder : settings.recentFolders) {
        if (QFileInfo(folder).isDir())
            return folder;
    }
    *ask = true;
    return current;
}

QAction *MainWindow::makeAction(const QString &text, const QString &objectName, const QKeySequence &shortcut)
{
    auto *action = new QAction(text, this);
    action->setObjectName(objectName);
    const QString plain = QString(text).remove(QLatin1Char('&'));
    if (!shortcut.isEmpty()) {
        action->setShortcut(shortcut);
        action->setToolTip(tr("%1 (%2)").arg(plain, shortcut.toString(QKeySequence::NativeText)));
    } else {
        action->setToolTip(plain);
    }
    action->setStatusTip(plain);
    addAction(action); // shortcuts work with the toolbar hidden
    return action;
}

void MainWindow::setIconName(QAction *action, const QString &name)
{
    m_iconNames.insert(action, name);
}

void MainWindow::refreshIcons()
{
    // Bundled icons are drawn in the palette's colours: redraw them when it changes.
    for (auto it = m_iconNames.cbegin(); it != m_iconNames.cend(); ++it)
        it.key()->setIcon(Icons::icon(it.value(), palette()));
}

void MainWindow::createActions()
{
    m_newSessionAction =
        makeAction(tr("&New Session"), QStringLiteral("newSessionAction"), QKeySequence::New);
    setIconName(m_newSessionAction, QStringLiteral("document-new"));
    connect(m_newSessionAction, &QAction::triggered, this, &MainWindow::newSession);

    m_openFolderAction =
        makeAction(tr("&Open Folder..."), QStringLiteral("openFolderAction"), QKeySequence::Open);
    m_openFolderAction->setPriority(QAction::LowPriority);
    setIconName(m_openFolderAction, QStringLiteral("folder-open"));
    connect(m_openFolderAction, &QAction::triggered, this, &MainWindow::chooseFolder);

    // The sidebar's More menu exports the session selected there; this one exports the one in the window,
    // also with the sidebar hidden.
    m_exportAction = makeAction(tr("&Export Conversation..."), QStringLiteral("exportConversationAction"),
                                QKeySequence(QStringLiteral("Ctrl+E")));
    m_exportAction->setToolTip(tr("Save this conversation as a Markdown file"));
    m_exportAction->setEnabled(false); // until the conversation is saved
    setIconName(m_exportAction, QStringLiteral("document-export"));
    connect(m_exportAction, &QAction::triggered, this, [this] {
        m_sessionBrowser->exportSession(m_session->sessionId(),
                                        m_sessionTitle.isEmpty() ? tr("conversation") : m_sessionTitle);
    });

    m_clearRecentAction = new QAction(tr("&Clear List"), this);
    m_clearRecentAction->setObjectName(QStringLiteral("clearRecentFoldersAction"));
    setIconName(m_clearRecentAction, QStringLiteral("edit-clear-history"));
    connect(m_clearRecentAction, &QAction::triggered, this, [this] {
        m_recentFolders.clear();
        saveSettings([](Settings &settings) { settings.recentFolders.clear(); });
        rebuildRecentMenu();
    });

    m_compactAction = makeAction(tr("&Compact"), QStringLiteral("compactAction"),
                                 QKeySequence(QStringLiteral("Ctrl+Shift+K")));
    m_compactAction->setToolTip(tr("Compact: summarize the conversation into a smaller context (%1)")
                                    .arg(m_compactAction->shortcut().toString(QKeySequence::NativeText)));
    setIconName(m_compactAction, QStringLiteral("keen-compact"));
    connect(m_compactAction, &QAction::triggered, m_chat, [this] { m_chat->compact(); });

    m_undoCompactionAction =
        makeAction(tr("&Undo Compaction"), QStringLiteral("undoCompactionAction"), QKeySequence());
    m_undoCompactionAction->setToolTip(
        tr("Undo the latest compaction: the conversation continues from before it, later turns kept"));
    m_undoCompactionAction->setEnabled(false);
    setIconName(m_undoCompactionAction, QStringLiteral("edit-undo"));
    connect(m_undoCompactionAction, &QAction::triggered, m_chat, [this] { m_chat->undoCompaction(); });

    // Ctrl+C: the editor and the transcript copy a selection first and interrupt otherwise.
    m_stopAction =
        makeAction(tr("&Stop"), QStringLiteral("stopAction"), QKeySequence(QStringLiteral("Ctrl+C")));
    m_stopAction->setShortcutContext(Qt::WindowShortcut);
    setIconName(m_stopAction, QStringLiteral("process-stop"));
    connect(m_stopAction, &QAction::triggered, m_chat, [this] {
        // While a manual compaction runs the action is "Cancel Compaction" without its Ctrl+C shortcut (the
        // key is ignored then, reference 4.2): the button and the menu item cancel it as Esc does.
        if (m_session->compactionMode() == AgentSession::CompactionMode::Manual)
            m_session->cancelCompaction();
        else
            m_chat->interrupt();
    });
    connect(m_session, &AgentSession::compactionStarted, this, [this](AgentSession::CompactionMode mode) {
        if (mode == AgentSession::CompactionMode::Manual)
            showStopAsCancelCompaction(true);
    });
    connect(m_session, &AgentSession::compactionFinished, this, [this](AgentSession::CompactionMode mode) {
        if (mode == AgentSession::CompactionMode::Manual)
            showStopAsCancelCompaction(false);
    });

    // Shift+Tab arrives as Backtab (X11 adds Shift); listing Shift+Tab as well made X11 match two shortcuts,
    // an ambiguity that fires none. The menu names the keys a person presses: a text with a tab keeps its
    // own.
    m_cycleModeAction =
        makeAction(tr("Next &Mode") + QStringLiteral("\t") +
                       QKeySequence(Qt::SHIFT | Qt::Key_Tab).toString(QKeySequence::NativeText),
                   QStringLiteral("cycleModeAction"), QKeySequence(Qt::SHIFT | Qt::Key_Backtab));
    m_cycleModeAction->setShortcuts(
        {QKeySequence(Qt::SHIFT | Qt::Key_Backtab), QKeySequence(Qt::Key_Backtab)});
    m_cycleModeAction->setToolTip(tr("Next mode: build, plan, yolo (Shift+Tab)"));
    connect(m_cycleModeAction, &QAction::triggered, this, &MainWindow::cycleMode);

    m_settingsAction = makeAction(tr("&Settings..."), QStringLiteral("settingsAction"),
                                  QKeySequence(QStringLiteral("Ctrl+,")));
    m_settingsAction->setPriority(QAction::LowPriority);
    setIconName(m_settingsAction, QStringLiteral("preferences-system"));
    connect(m_settingsAction, &QAction::triggered, this, &MainWindow::showSettings);

    m_showThinkingAction = makeAction(tr("Show &Thinking"), QStringLiteral("showThinkingAction"),
                                      QKeySequence(QStringLiteral("Ctrl+T")));
    m_showThinkingAction->setCheckable(true);
    m_showThinkingAction->setChecked(m_chat->showThinking());
    connect(m_showThinkingAction, &QAction::toggled, m_chat, [this](bool show) {
        if (show != m_chat->showThinking())
            m_chat->setShowThinking(show);
    });

    m_providerAction = makeAction(tr("Choose &Provider"), QStringLiteral("providerAction"),
                                  QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    m_modelAction = makeAction(tr("Choose M&odel"), QStringLiteral("modelAction"),
                               QKeySequence(QStringLiteral("Ctrl+Shift+M")));

    m_schemeGroup = new QActionGroup(this);
    m_schemeGroup->setExclusive(true);
    const QList<QPair<Settings::ColorScheme, QString>> schemes{
        {Settings::ColorScheme::System, tr("Follow the &System")},
        {Settings::ColorScheme::Light, tr("&Light")},
        {Settings::ColorScheme::Dark, tr("&Dark")},
    };
    for (const auto &[scheme, text] : schemes) {
        QAction *action = m_schemeGroup->addAction(text);
        const QString name = Settings::colorSchemeName(scheme);
        action->setObjectName(QStringLiteral("colorScheme%1Action").arg(name.at(0).toUpper() + name.mid(1)));
        action->setCheckable(true);
        action->setChecked(scheme == m_colorScheme->scheme());
        connect(action, &QAction::triggered, this, [this, scheme] { setColorScheme(scheme); });
    }
}

void MainWindow::createMenus()
{
    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(m_newSessionAction);
    fileMenu->addAction(m_openFolderAction);
    m_recentMenu = fileMenu->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("openRecentMenu"));
    m_recentMenu->setIcon(Icons::icon(QStringLiteral("document-open-recent"), palette()));
    rebuildRecentMenu();
    fileMenu->addAction(m_exportAction);
    fileMenu->addSeparator();
    QAction *cleanup = fileMenu->addAction(tr("Clean &Up Old Data..."), this, &MainWindow::cleanUpOldData);
    cleanup->setObjectName(QStringLiteral("cleanupAction"));
    fileMenu->addAction(m_settingsAction);
    fileMenu->addSeparator();
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setObjectName(QStringLiteral("quitAction"));
    setIconName(quit, QStringLiteral("application-exit"));

    QMenu *sessionMenu = menuBar()->addMenu(tr("&Conversation"));
    sessionMenu->addAction(m_compactAction);
    sessionMenu->addAction(m_undoCompactionAction);
    sessionMenu->addAction(m_stopAction);
    sessionMenu->addAction(m_cycleModeAction);
    QAction *contextAction =
        sessionMenu->addAction(tr("Show C&ontext..."), m_chat, &ChatPanel::showContextDialog);
    contextAction->setObjectName(QStringLiteral("contextAction"));
    QAction *pinsAction = sessionMenu->addAction(tr("&Pins..."), m_chat, &ChatPanel::showPinsDialog);
    pinsAction->setObjectName(QStringLiteral("pinsAction"));
    contextAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+I")));
    setIconName(contextAction, QStringLiteral("keen-context"));
    sessionMenu->addSeparator();
    sessionMenu->addActions({m_chat->findAction(), m_chat->findNextAction(), m_chat->findPreviousAction()});
    setIconName(m_chat->findAction(), QStringLiteral("edit-find"));
    setIconName(m_chat->findNextAction(), QStringLiteral("go-down"));
    setIconName(m_chat->findPreviousAction(), QStringLiteral("go-up"));

    // Filled in installSessionBrowser(), which makes the Sessions toggle.
    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->setObjectName(QStringLiteral("viewMenu"));

    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *commands =
        helpMenu->addAction(tr("&Commands"), this, [this] { m_chat->runCommand(QStringLiteral("/help")); });
    commands->setShortcut(QKeySequence::HelpContents);
    commands->setObjectName(QStringLiteral("helpAction"));
    setIconName(commands, QStringLiteral("help-contents"));
    // What went wrong before, for a bug report: the logs (README, "Where data lives").
    QAction *logs = helpMenu->addAction(tr("Open &Log Folder"), this, [] {
        const QString folder = LogFile::defaultFolder();
        PrivateFolder::ensure(folder); // none yet when nothing was logged
        QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
    });
    logs->setObjectName(QStringLiteral("openLogFolderAction"));
    setIconName(logs, QStringLiteral("folder-open"));
    QAction *about = helpMenu->addAction(tr("&About Keen Desktop"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("aboutAction"));
    setIconName(about, QStringLiteral("help-about"));
    helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    // Text beside the icon for the conversation's actions; low-priority actions show only their icon.
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    for (QAction *action : {m_newSessionAction, m_compactAction, m_stopAction}) {
        bar->addAction(action);
        if (QWidget *button = bar->widgetForAction(action)) {
            button->setAccessibleName(action->text().remove(QLatin1Char('&')));
            button->setAccessibleDescription(action->toolTip());
        }
    }
    bar->addSeparator();

    m_modeCombo = new QComboBox(bar);
    m_modeCombo->setObjectName(QStringLiteral("modeCombo"));
    m_modeCombo->addItem(tr("build"), int(AgentMode::Build));
    m_modeCombo->addItem(tr("plan"), int(AgentMode::Plan));
    m_modeCombo->addItem(tr("yolo"), int(AgentMode::Yolo));
    m_modeCombo->setAccessibleName(tr("Mode"));
    m_modeCombo->setToolTip(
        tr("Mode: build asks before writes, plan refuses writes, yolo never asks (Shift+Tab)"));
    m_modeCombo->setFocusPolicy(Qt::StrongFocus);
    connect(m_modeCombo, &QComboBox::activated, this,
            [this](int index) { m_chat->setMode(AgentMode(m_modeCombo->itemData(index).toInt())); });
    bar->addWidget(labelledField(tr(" Mode: "), m_modeCombo, bar));
    bar->addSeparator();

    m_providerCombo = new QComboBox(bar);
    m_providerCombo->setObjectName(QStringLiteral("providerCombo"));
    m_providerCombo->setAccessibleName(tr("Provider"));
    m_providerCombo->setToolTip(
        tr("Provider (%1)").arg(m_providerAction->shortcut().toString(QKeySequence::NativeText)));
    for (const ProviderCatalog::Provider &provider : ProviderCatalog::providers())
        m_providerCombo->addItem(provider.name, provider.id);
    m_modelCombo = new ModelComboBox(bar);
    m_modelCombo->setObjectName(QStringLiteral("modelCombo"));
    m_modelCombo->setMinimumContentsLength(22);
    m_modelCombo->setAccessibleName(tr("Model"));
    m_modelCombo->setToolTip(
        tr("Model (%1)").arg(m_modelAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_providerAction, &QAction::triggered, m_providerCombo, [this] {
        m_providerCombo->setFocus(Qt::ShortcutFocusReason);
        m_providerCombo->showPopup();
    });
    connect(m_modelAction, &QAction::triggered, m_modelCombo,
            [this] { m_modelCombo->setFocus(Qt::ShortcutFocusReason); });
    // Another provider is set up as settings.json has it (its own key, base URL and headers), never with the
    // previous provider's key.
    connect(m_providerCombo, &QComboBox::activated, this, [this] {
        if (m_updatingPickers)
            return;
        const QString providerId = m_providerCombo->currentData().toString();
        if (providerId != m_session->clientConfig().providerId)
            switchProvider(providerId, QString(), ChoiceFrom::Toolbar);
    });
    // A model chosen from the list, or typed and confirmed with Enter or by leaving the box (a name the list
    // does not have included: the combo box itself reports neither).
    connect(m_modelCombo, &QComboBox::textActivated, this, [this](const QString &model) {
        if (!m_updatingPickers)
            useModel(model, ChoiceFrom::Toolbar);
    });
    // Esc abandons what was typed: the model in use again, and the prompt has the keyboard (leaving the box
    // then changes nothing).
    m_modelCombo->setEscapeCancelsEdit(true);
    connect(m_modelCombo, &ModelComboBox::editCancelled, this, [this] {
        populateModels();
        m_chat->input()->setFocus(Qt::OtherFocusReason);
    });
    connect(m_modelCombo->lineEdit(), &QLineEdit::editingFinished, this, [this] {
        // Opening the box's own list takes the focus too: what is chosen there counts, not the half-typed
        // text.
        if (!m_updatingPickers && !m_modelCombo->view()->isVisible())
            useModel(m_modelCombo->currentText(), ChoiceFrom::Toolbar);
    });
    bar->addWidget(labelledField(tr(" Provider: "), m_providerCombo, bar));
    bar->addWidget(labelledField(tr(" Model: "), m_modelCombo, bar));
    bar->addSeparator();
    bar->addAction(m_settingsAction);
    if (QWidget *button = bar->widgetForAction(m_settingsAction))
        button->setAccessibleName(tr("Settings"));
}

void MainWindow::createStatusBar()
{
    QStatusBar *bar = statusBar();
    bar->setObjectName(QStringLiteral("statusBar"));
    m_workspaceLabel = new QLabel(bar);
    m_workspaceLabel->setObjectName(QStringLiteral("workspaceLabel"));
    m_workspaceLabel->setTextFormat(Qt::PlainText);
    m_modelLabel = new QLabel(bar);
    m_modelLabel->setObjectName(QStringLiteral("modelLabel"));
    m_modelLabel->setTextFormat(Qt::PlainText);
    m_meter = new ContextMeter(bar);
    m_compactSuggestion = new QToolButton(bar);
    m_compactSuggestion->setObjectName(QStringLiteral("compactSuggestion"));
    m_compactSuggestion->setText(tr("Try Compact"));
    m_compactSuggestion->setAutoRaise(true);
    m_compactSuggestion->setToolTip(m_compactAction->toolTip());
    m_compactSuggestion->setAccessibleName(tr("Try Compact"));
    connect(m_compactSuggestion, &QToolButton::clicked, m_compactAction, &QAction::trigger);
    // A server that failed to start stays in sight after its 2-second notice, until it works again.
    m_mcpProblems = new QToolButton(bar);
    m_mcpProblems->setObjectName(QStringLiteral("mcpProblems"));
    m_mcpProblems->setAutoRaise(true);
    m_mcpProblems->setVisible(false);
    connect(m_mcpProblems, &QToolButton::clicked, this,
            [this] { m_chat->runCommand(QStringLiteral("/mcp")); });
    m_tokensLabel = new QLabel(bar);
    m_tokensLabel->setObjectName(QStringLiteral("tokensLabel"));
    m_tokensLabel->setToolTip(tr("Input and output tokens of this session"));
    m_elapsedLabel = new QLabel(bar);
    m_elapsedLabel->setObjectName(QStringLiteral("elapsedLabel"));
    bar->addWidget(m_workspaceLabel, 1);
    // The folder gives way to a message and comes back after it. QStatusBar does that itself only for a
    // message given while the label is visible: a startup warning was drawn over the folder's name.
    connect(bar, &QStatusBar::messageChanged, m_workspaceLabel,
            [this](const QString &message) { m_workspaceLabel->setVisible(message.isEmpty()); });
    bar->addPermanentWidget(m_mcpProblems);
    bar->addPermanentWidget(m_modelLabel);
    bar->addPermanentWidget(m_compactSuggestion);
    bar->addPermanentWidget(m_meter);
    bar->addPermanentWidget(m_tokensLabel);
    bar->addPermanentWidget(m_elapsedLabel);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    fitSidebar();
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // A width the sidebar takes while the conversation has room to spare is the person's (a drag of the
    // separator, a restored state); one that leaves the conversation its minimum is fitSidebar()'s.
    // Only a change of width counts: a taller window resizes the sidebar too, keeping a fitted width.
    if (watched == m_sessionDock && event->type() == QEvent::Resize && !m_sessionDock->isFloating() &&
        m_sessionDock->isVisible() && width() - m_sessionDock->width() > MinChatWidth + 8 &&
        static_cast<QResizeEvent *>(event)->oldSize().width() != m_sessionDock->width())
        m_sidebarWidth = m_sessionDock->width();
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::fitSidebar()
{
    // Found when tried: in a window of 640 px (half a laptop screen) the sidebar kept its 290 px and the
    // conversation had 330 px, wrapping every line twice.
    if (!m_sessionDock || !m_sessionDock->isVisible() || m_sessionDock->isFloating() || m_sidebarWidth <= 0)
        return;
    const int smallest = m_sessionDock->minimumSizeHint().width();
    const int fitting = qMax(smallest, qMin(m_sidebarWidth, width() - MinChatWidth));
    if (fitting != m_sessionDock->width())
        resizeDocks({m_sessionDock}, {fitting}, Qt::Horizontal);
}

void MainWindow::installSessionBrowser()
{
    m_sessionDock = new QDockWidget(tr("Sessions"), this);
    m_sessionDock->setObjectName(QStringLiteral("sessionBrowserDock"));
    m_sessionDock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    m_sessionDock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    m_sessionBrowser = new SessionBrowserPanel(m_sessionDock);
    m_sessionBrowser->setStore(m_store);
    m_sessionBrowser->setWorkspace(m_session->workspace());
    m_sessionDock->setWidget(m_sessionBrowser);
    addDockWidget(Qt::LeftDockWidgetArea, m_sessionDock);
    resizeDocks({m_sessionDock}, {kSidebarWidth}, Qt::Horizontal);
    m_sidebarWidth = kSidebarWidth;
    m_sessionDock->installEventFilter(this);
    connect(m_sessionDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible)
            QTimer::singleShot(0, this, &MainWindow::fitSidebar);
    });

    // View > Sessions and the toolbar's sidebar button: the dock's own toggle, so they never disagree.
    m_sessionsAction = m_sessionDock->toggleViewAction();
    m_sessionsAction->setText(tr("S&essions"));
    m_sessionsAction->setObjectName(QStringLiteral("sessionsAction"));
    m_sessionsAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    m_sessionsAction->setToolTip(tr("Show or hide the sessions sidebar (%1)")
                                     .arg(m_sessionsAction->shortcut().toString(QKeySequence::NativeText)));
    m_sessionsAction->setStatusTip(tr("Show or hide the sessions sidebar"));
    m_sessionsAction->setPriority(QAction::LowPriority);
    setIconName(m_sessionsAction, QStringLiteral("sidebar-show"));
    addAction(m_sessionsAction);
    connect(m_sessionsAction, &QAction::triggered, this, [this](bool shown) {
        if (shown)
            m_sessionBrowser->focusSearch();
        else
            m_chat->setFocus();
    });

    if (auto *bar = findChild<QToolBar *>(QStringLiteral("mainToolBar"))) {
        QAction *first = bar->actions().value(0);
        bar->insertAction(first, m_sessionsAction);
        bar->insertSeparator(first);
        if (QWidget *button = bar->widgetForAction(m_sessionsAction)) {
            button->setObjectName(QStringLiteral("sidebarToggleButton"));
            button->setAccessibleName(tr("Sessions sidebar"));
        }
    }
    if (auto *view = menuBar()->findChild<QMenu *>(QStringLiteral("viewMenu"))) {
        view->addAction(m_sessionsAction);
        view->addAction(m_showThinkingAction);
        view->addSeparator();
        view->addActions({m_chat->zoomInAction(), m_chat->zoomOutAction(), m_chat->zoomResetAction()});
        setIconName(m_chat->zoomInAction(), QStringLiteral("zoom-in"));
        setIconName(m_chat->zoomOutAction(), QStringLiteral("zoom-out"));
        setIconName(m_chat->zoomResetAction(), QStringLiteral("zoom-original"));
        view->addSeparator();
        QMenu *schemes = view->addMenu(tr("&Color Scheme"));
        schemes->setObjectName(QStringLiteral("colorSchemeMenu"));
        schemes->addActions(m_schemeGroup->actions());
    }

    connect(m_sessionBrowser, &SessionBrowserPanel::sessionOpenRequested, this, &MainWindow::openSession);
    // A search hit opens the session at the matching event (emitted after sessionOpenRequested).
    // The session opens off the GUI thread: a hit for a session still opening waits until its whole history
    // is in the view.
    auto pendingHit = std::make_shared<std::pair<QString, quint64>>();
    auto scrollToHit = [this](quint64 seq) {
        const int row = m_chat->model()->rowForSeq(seq);
        if (row < 0)
            return;
        m_chat->view()->scrollTo(m_chat->model()->index(row), QAbstractItemView::PositionAtTop);
        // The row's start is not enough when the words are deep in a long message or tool output.
        m_chat->showSearchHit(row, m_sessionBrowser->model()->searchQuery());
    };
    connect(m_sessionBrowser, &SessionBrowserPanel::searchMatchOpenRequested, this,
            [this, pendingHit, scrollToHit](const QString &sessionId, quint64 seq) {
                if (m_session->sessionId() == sessionId && !m_session->isOpening() &&
                    m_chat->isHistoryShown())
                    scrollToHit(seq);
                else
                    *pendingHit = {sessionId, seq};
            });
    connect(m_chat, &ChatPanel::historyShown, this, [this, pendingHit, scrollToHit] {
        const auto [sessionId, seq] = std::exchange(*pendingHit, {});
        if (!sessionId.isEmpty() && sessionId == m_session->sessionId())
            scrollToHit(seq);
    });
    connect(m_session, &AgentSession::sessionChanged, m_sessionBrowser, [this](const QString &sessionId) {
        m_sessionBrowser->setOpenSession(sessionId);
        m_sessionBrowser->refresh();
    });
    // A rename in the sidebar renames the window too.
    connect(m_sessionBrowser, &SessionBrowserPanel::actionFinished, this, [this](const QString &message) {
        updateSessionTitle();
        if (!m_sessionDock->isVisible()) // said in the sidebar otherwise
            statusBar()->showMessage(message, 10000);
    });
    connect(m_sessionBrowser, &SessionBrowserPanel::actionFailed, this, [this](const QString &error) {
        if (!m_sessionDock->isVisible())
            statusBar()->showMessage(error, 10000);
    });
    // Seen when tried: the deleted session stayed in the window, and the next message could not be saved
    // ("Cannot open the transcript ...: No such file or directory"). The window starts a new one instead.
    connect(m_sessionBrowser, &SessionBrowserPanel::sessionDeleted, this, [this](const QString &sessionId) {
        if (sessionId == m_session->sessionId() && !m_session->isBusy())
            newSession();
    });
}

void MainWindow::showSessionBrowser()
{
    m_sessionDock->show();
    m_sessionDock->raise();
    m_sessionBrowser->focusSearch();
}

void MainWindow::openSession(const QString &sessionId)
{
    if (sessionId == m_session->sessionId() && !m_session->isOpening())
        return; // already open: reading it again would only lose the scroll position
    if (m_session->isBusy()) {
        if (m_sessionBrowser)
            m_sessionBrowser->setOpenSession(m_session->sessionId()); // until the person decides
        const QString title = m_sessionBrowser ? m_sessionBrowser->sessionTitle(sessionId) : QString();
        askBeforeLeaving(QStringLiteral("switchSession"), tr("Open Another Session?"),
                         title.isEmpty()
                             ? tr("The agent is still working.\nStop it and open the other session?")
                             : tr("The agent is still working.\nStop it and open “%1”?").arg(title),
                         tr("Stop and Open"), [this, sessionId] { openSession(sessionId); });
        return;
    }
    m_session->openSessionAsync(sessionId); // read off the GUI thread; the chat panel shows the busy state
    updateMetrics();
}

void MainWindow::newSession()
{
    if (m_session->isBusy()) {
        askBeforeLeaving(QStringLiteral("newSession"), tr("Start a New Session?"),
                         tr("The agent is still working.\nStop it and start a new session?"),
                         tr("Stop and Start New"), [this] { newSession(); });
        return;
    }
    m_chat->newSession();
    m_chat->setFocus();
}

void MainWindow::chooseFolder()
{
    auto *dialog = new QFileDialog(this, tr("Open Folder"), m_session->workspace());
    dialog->setObjectName(QStringLiteral("openFolderDialog"));
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAcceptMode(QFileDialog::AcceptOpen);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openFolder);
    dialog->open();
}

void MainWindow::openFolder(const QString &path)
{
    const QFileInfo info(path);
    if (path.isEmpty() || !info.isDir()) {
        statusBar()->showMessage(tr("%1 is not a folder.").arg(QDir::toNativeSeparators(path)), 10000);
        return;
    }
    const QString folder = info.canonicalFilePath();
    if (folder == m_session->workspace()) {
        rememberFolder(folder);
        return;
    }
    if (m_session->isBusy()) {
        askBeforeLeaving(QStringLiteral("switchFolder"), tr("Open Another Folder?"),
                         tr("The agent is still working in %1.\nStop it and open %2?")
                             .arg(displayPath(m_session->workspace()), displayPath(folder)),
                         tr("Stop and Open"), [this, folder] { switchWorkspace(folder); });
        return;
    }
    switchWorkspace(folder);
}

void MainWindow::askBeforeLeaving(const QString &kind, const QString &title, const QString &text,
                                  const QString &stopText, std::function<void()> leave)
{
    auto *box = new QMessageBox(QMessageBox::Question, title, text, QMessageBox::NoButton, this);
    box->setTextFormat(Qt::PlainText); // folder names and session titles
    box->setObjectName(kind + QStringLiteral("Question"));
    QPushButton *stop = box->addButton(stopText, QMessageBox::AcceptRole);
    stop->setObjectName(kind + QStringLiteral("StopButton"));
    QPushButton *keep = box->addButton(tr("Keep Working"), QMessageBox::RejectRole);
    keep->setObjectName(kind + QStringLiteral("KeepButton"));
    box->setDefaultButton(keep);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this,
            [this, box, stop, leave = std::move(leave)](QAbstractButton *button) {
                if (button == stop && box->clickedButton() == stop)
                    stopThen(leave);
            });
    box->open();
}

void MainWindow::stopThen(std::function<void()> leave)
{
    if (!m_session->isBusy()) {
        leave();
        return;
    }
    // Done once the turn has really ended and is saved (updateBusy); a later choice replaces an earlier one.
    m_afterStop = std::move(leave);
    if (m_session->compactionMode() == AgentSession::CompactionMode::Manual)
        m_session->cancelCompaction();
    else
        m_session->interrupt();
}

void MainWindow::switchWorkspace(const QString &folder)
{
    m_chat->newSession();
    m_session->setWorkspace(folder);
    syncWorkspace();
    rememberFolder(folder);
    m_chat->setFocus();
}

void MainWindow::syncWorkspace()
{
    m_shownWorkspace = m_session->workspace();
    m_branch.clear();
    m_chat->setWorkspace(m_shownWorkspace);
    if (m_sessionBrowser)
        m_sessionBrowser->setWorkspace(m_shownWorkspace);
    updateBranch();
    updateStatus();
    rebuildRecentMenu(); // without the folder now open, with the one left
}

void MainWindow::rememberFolder(const QString &folder)
{
    if (folder.isEmpty() || (!m_recentFolders.isEmpty() && m_recentFolders.constFirst() == folder))
        return;
    Settings recent;
    recent.recentFolders = m_recentFolders;
    recent.addRecentFolder(folder);
    m_recentFolders = recent.recentFolders;
    saveSettings([folder](Settings &settings) { settings.addRecentFolder(folder); });
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    // Only the others: the open folder is already open (opening it again would do nothing). Whether each
    // still exists (and is the open one under another name) is looked up off the GUI thread, where a stale
    // network mount cannot stall the window; until then every other folder is offered.
    const QString open = m_session->workspace();
    int shown = 0;
    for (const QString &folder : std::as_const(m_recentFolders)) {
        if (folder == open)
            continue;
        ++shown;
        QAction *action = m_recentMenu->addAction(recentFolderLabel(shown, folder), this,
                                                  [this, folder] { openFolder(folder); });
        action->setObjectName(QStringLiteral("recentFolderAction"));
        action->setData(folder);
        action->setToolTip(QDir::toNativeSeparators(folder));
    }
    m_recentNone = m_recentMenu->addAction(tr("No Recent Folders"));
    m_recentNone->setEnabled(false);
    m_recentNone->setVisible(shown == 0);
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(m_clearRecentAction);
    m_clearRecentAction->setEnabled(!m_recentFolders.isEmpty());
    if (shown == 0)
        return;
    const quint64 check = ++m_recentCheck;
    const QStringList folders = m_recentFolders;
    whenFinished(QtConcurrent::run([folders, open] {
                     const QString openCanonical = QFileInfo(open).canonicalFilePath();
                     QSet<QString> gone; // missing, no folder, or the open one by another path
                     for (const QString &folder : folders) {
                         const QFileInfo info(folder);
                         if (!info.isDir() || info.canonicalFilePath() == openCanonical)
                             gone.insert(folder);
                     }
                     return gone;
                 }),
                 this, [this, check](const QSet<QString> &gone) {
                     if (check != m_recentCheck || gone.isEmpty())
                         return; // the menu was built again meanwhile
                     int left = 0;
                     for (QAction *action : m_recentMenu->actions()) {
                         if (action->objectName() != QLatin1String("recentFolderAction"))
                             continue;
                         if (gone.contains(action->data().toString()))
                             action->setVisible(false);
                         else
                             action->setText(recentFolderLabel(++left, action->data().toString()));
                     }
                     m_recentNone->setVisible(left == 0);
                 });
}

void MainWindow::askForFirstFolder()
{
    if (!m_askForFolder)
        return;
    m_askForFolder = false;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Choose a Project Folder"),
                                tr("Keen Desktop works in one folder: it reads, searches and changes the "
                                   "files there. Which folder should it work in?"),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("firstFolderQuestion"));
    box->setInformativeText(tr("You can open another folder at any time with File > Open Folder (%1).")
                                .arg(m_openFolderAction->shortcut().toString(QKeySequence::NativeText)));
    QPushButton *choose = box->addButton(tr("Choose Folder..."), QMessageBox::AcceptRole);
    choose->setObjectName(QStringLiteral("chooseFolderButton"));
    QPushButton *home = box->addButton(tr("Use My Home Folder"), QMessageBox::RejectRole);
    home->setObjectName(QStringLiteral("useHomeFolderButton"));
    box->setDefaultButton(choose);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, choose](QAbstractButton *button) {
        if (button == choose)
            QTimer::singleShot(0, this, &MainWindow::chooseFolder);
        else
            rememberFolder(m_session->workspace());
    });
    box->open();
}

void MainWindow::loadInitialConfig(const LoadedSettings &loaded)
{
    if (!loaded.problem.isEmpty())
        m_chat->model()->addLine(ChatItem::Kind::Error, loaded.problem);
    const Settings &settings = loaded.settings;
    m_session->setReviewerModel(settings.adversaryProvider, settings.adversaryModel);
    const ConfigResolver resolver(settings);
    // Everything but the key now (no I/O); the key arrives from the keychain off the GUI thread.
    const Result<ResolvedClientConfig> base = resolver.resolveWithoutKey(m_options);
    if (base) {
        applyClientConfig(base->config);
        adoptKeyWhenResolved(resolver, m_options);
        QTimer::singleShot(0, this, &MainWindow::askForFirstFolder);
        return;
    }
    applyClientConfig(ClientConfig{});
    // First run: a short setup, opened once the window shows, then the folder to work in.
    QTimer::singleShot(0, this, [this] {
        auto *wizard = new SetupWizard(this);
        wizard->setAttribute(Qt::WA_DeleteOnClose);
        connect(wizard, &SetupWizard::configured, this, [this, wizard](const ClientConfig &config) {
            rememberContextWindow(config.providerId, QString(), wizard->contextWindowSetting());
            useChosenSetup(config, KeyEntered::Yes);
        });
        connect(wizard, &SetupWizard::chatGptSignInRequested, wizard, [this, wizard] {
            signInWithChatGpt(wizard, [wizard](bool ok, const QString &message) {
                wizard->showChatGptSignIn(ok, message);
            });
        });
        connect(wizard, &QDialog::finished, this, &MainWindow::askForFirstFolder);
        wizard->open();
    });
}

void MainWindow::useChosenSetup(const ClientConfig &config, KeyEntered keyEntered)
{
    applyClientConfig(config);
    persistClientConfig(config, keyEntered);
    if (config.apiKey.isEmpty()) {
        // The setup or settings found a key elsewhere (environment, keychain, settings.json's api_key or
        // api_key_helper): resolve it as at start, or the next request goes out without one.
        LaunchOptions options;
        options.provider = config.providerId;
        options.model = config.model;
        options.baseUrl = config.baseUrl;
        adoptKeyWhenResolved(ConfigResolver(Settings::loadOrDefaults().settings), options);
    }
}

void MainWindow::adoptKeyWhenResolved(const ConfigResolver &resolver, const LaunchOptions &options)
{
    resolver.resolveAsync(options, SecretStore::FileFallback::Allow, this,
                          [this](const Result<ResolvedClientConfig> &resolved) {
                              if (!resolved) {
                                  m_chat->model()->addLine(ChatItem::Kind::Error, resolved.error());
                                  return;
                              }
                              if (!resolved->warning.isEmpty())
                                  statusBar()->showMessage(resolved->warning, 10000);
                              // Only the key arrives late: whatever the person changed meanwhile (model,
                              // thinking effort, a key typed in) stays, and a key stored for one provider
                              // is never given to another they switched to.
                              ClientConfig config = m_session->clientConfig();
                              if (!config.apiKey.isEmpty() ||
                                  config.providerId != resolved->config.providerId)
                                  return;
                              config.apiKey = resolved->config.apiKey;
                              m_session->setClientConfig(config);
                          });
}

void MainWindow::rememberContextWindow(const QString &providerId, const QString &model,
                                       std::optional<qint64> window)
{
    if (model.isEmpty()) {
        const std::optional<qint64> saved =
            m_providerContextWindows.contains(providerId)
                ? std::optional<qint64>(m_providerContextWindows.value(providerId))
                : std::nullopt;
        if (window == saved)
            return;
        if (window)
            m_providerContextWindows.insert(providerId, *window);
        else
            m_providerContextWindows.remove(providerId);
        saveSettings([providerId, window](Settings &settings) {
            ProviderSettings provider = settings.provider(providerId);
            provider.contextWindow = window;
            settings.providers.insert(providerId, provider);
        });
        return;
    }
    QMap<QString, qint64> &models = m_modelContextWindows[providerId];
    const std::optional<qint64> saved =
        models.contains(model) ? std::optional<qint64>(models.value(model)) : std::nullopt;
    if (window == saved) {
        if (models.isEmpty())
            m_modelContextWindows.remove(providerId);
        return;
    }
    if (window)
        models.insert(model, *window);
    else
        models.remove(model);
    if (models.isEmpty())
        m_modelContextWindows.remove(providerId);
    saveSettings([providerId, model, window](Settings &settings) {
        ProviderSettings provider = settings.provider(providerId);
        if (window)
            provider.modelContextWindows.insert(model, *window);
        else
            provider.modelContextWindows.remove(model);
        settings.providers.insert(providerId, provider);
    });
}

void MainWindow::keepInputHistory()
{
    // Up in the input reaches the prompts of earlier runs too (reference 6.8), read and written off the GUI
    // thread; one worker keeps the writes in the order the prompts were sent.
    m_historyFile.setMaxThreadCount(1);
    whenFinished(QtConcurrent::run(&m_historyFile, [] { return InputHistory::load(); }), this,
                 [this](const QStringList &earlier) { m_chat->input()->addEarlierHistory(earlier); });
    connect(m_chat->input(), &InputEditor::historyAdded, this, [this](const QString &prompt) {
        m_historyFile.start([prompt] {
            if (const Result<void> saved = InputHistory::append(prompt); !saved)
                qCWarning(LogCategories::agent()).noquote() << saved.error();
        });
    });
}

void MainWindow::saveSettings(const std::function<void(Settings &)> &change)
{
    // Written on the writer's thread (a save syncs the file to disk); read back at once from anywhere.
    SettingsWriter::modify(change, this, [this](const QString &error) {
        m_chat->model()->addLine(ChatItem::Kind::Error, error);
    });
}

void MainWindow::persistClientConfig(const ClientConfig &config, KeyEntered keyEntered)
{
    if (config.providerId.isEmpty())
        return;
    // The change is kept until it is written (and applied by reads meanwhile): it holds values, never the
    // key.
    QMap<QString, QString> headers;
    for (const auto &header : config.headers)
        headers.insert(QString::fromUtf8(header.first), QString::fromUtf8(header.second));
    saveSettings([providerId = config.providerId, model = config.model, effort = config.thinkingEffort,
                  baseUrl = config.baseUrl, headers](Settings &settings) {
        settings.activeProvider = providerId;
        settings.activeModel = model;
        settings.thinkingEffort = effort;
        ProviderSettings provider = settings.provider(providerId);
        provider.baseUrl = baseUrl;
        provider.headers = headers;
        settings.providers.insert(providerId, provider);
    });
    if (keyEntered == KeyEntered::No)
        return; // the key in use came from elsewhere: copied into the keychain it would win over its source
    if (!config.apiKey.isEmpty()) {
        SecretStore::storeKeyAsync(config.providerId, config.apiKey, SecretStore::FileFallback::Allow, this,
                                   [this](const Result<QString> &stored) {
                                       if (!stored)
                                           m_chat->model()->addLine(ChatItem::Kind::Error, stored.error());
                                       else if (!stored->isEmpty())
                                           statusBar()->showMessage(*stored, 10000);
                                   });
    }
}

void MainWindow::persistModelChoice(const ClientConfig &config)
{
    if (config.providerId.isEmpty())
        return;
    const ProviderDescriptor *provider = ProviderTable::find(config.providerId);
    // Registry providers offer the registry's models; the others only what settings.json lists, which the
    // name typed here joins so it is offered (and allowed, for openai-compatible) from now on.
    const bool listsOwnModels = !provider || provider->models != ModelListSource::Registry;
    saveSettings([providerId = config.providerId, model = config.model, effort = config.thinkingEffort,
                  listsOwnModels](Settings &settings) {
        settings.activeProvider = providerId;
        settings.activeModel = model;
        settings.thinkingEffort = effort;
        if (listsOwnModels && !model.isEmpty()) {
            QStringList &models = settings.providers[providerId].models;
            if (!models.contains(model))
                models.append(model);
        }
    });
    if (listsOwnModels && !config.model.isEmpty() &&
        !m_configuredModels.value(config.providerId).contains(config.model)) {
        m_configuredModels[config.providerId].append(config.model);
        populateModels();
    }
}

void MainWindow::useModel(const QString &model, ChoiceFrom from)
{
    const ClientConfig before = m_session->clientConfig();
    const QString name = model.trimmed();
    if (name.isEmpty()) {
        populateModels(); // the box shows the model in use again
        const QString refusal = tr("A model needs a name; %1 stays in use.").arg(before.model);
        if (from == ChoiceFrom::Command)
            m_chat->model()->addLine(ChatItem::Kind::Error, refusal);
        else
            statusBar()->showMessage(refusal, 10000);
        return;
    }
    if (before.providerId.isEmpty()) {
        populateModels();
        m_chat->model()->addLine(ChatItem::Kind::Error,
                                 tr("No provider is configured yet. Choose one in Settings first."));
        return;
    }
    if (name == before.model) {
        populateModels(); // "  name " typed: the box shows it trimmed
        if (from == ChoiceFrom::Command)
            m_chat->model()->addLine(ChatItem::Kind::Status,
                                     tr("✓ Model: %1").arg(tr("%1/%2").arg(before.providerId, before.model)));
        return;
    }
    ClientConfig config = before;
    config.model = name;
    // As at start (ConfigResolver): a registry model takes only the efforts it lists.
    if (ProviderCatalog::modelIds(config.providerId).contains(name) &&
        !ProviderCatalog::thinkingEfforts(config.providerId, name).contains(config.thinkingEffort))
        config.thinkingEffort.clear();
    applyClientConfig(config);
    persistModelChoice(config);
    announceModel(before, from);
}

void MainWindow::switchProvider(const QString &providerId, const QString &model, ChoiceFrom from)
{
    LaunchOptions options;
    options.provider = providerId;
    options.model = model.trimmed();
    options.contextWindow = m_options.contextWindow;
    const quint64 request = ++m_providerSwitch;
    // The same resolution as at start, so the same readiness errors ("No API key for ...", "base_url must be
    // configured ..."); the key is looked up off the GUI thread.
    ConfigResolver(Settings::loadOrDefaults().settings)
        .resolveAsync(options, SecretStore::FileFallback::Allow, this,
                      [this, request, from](const Result<ResolvedClientConfig> &resolved) {
                          if (request != m_providerSwitch)
                              return; // a later choice replaced this one
                          if (!resolved) {
                              populateModels(); // the toolbar shows the provider still in use
                              m_chat->model()->addLine(ChatItem::Kind::Error, resolved.error());
                              return;
                          }
                          if (!resolved->warning.isEmpty())
                              statusBar()->showMessage(resolved->warning, 10000);
                          const ClientConfig before = m_session->clientConfig();
                          applyClientConfig(resolved->config);
                          persistModelChoice(resolved->config);
                          announceModel(before, from);
                      });
}

void MainWindow::announceModel(const ClientConfig &before, ChoiceFrom from)
{
    const ClientConfig &now = m_session->clientConfig();
    const QString chosen = tr("%1/%2").arg(now.providerId, now.model);
    if (from == ChoiceFrom::Command)
        m_chat->model()->addLine(ChatItem::Kind::Status, tr("✓ Model: %1").arg(chosen));
    if (m_session->isBusy())
        statusBar()->showMessage(tr("%1 is used from the next turn; the running turn finishes with %2/%3.")
                                     .arg(chosen, before.providerId, before.model),
                                 15000);
}

void MainWindow::chooseModel(const QString &choice)
{
    const qsizetype slash = choice.indexOf(QLatin1Char('/'));
    if (slash < 0) {
        useModel(choice, ChoiceFrom::Command);
        return;
    }
    const QString providerId = choice.left(slash).trimmed();
    const QString model = choice.mid(slash + 1).trimmed();
    const ClientConfig &current = m_session->clientConfig();
    QStringList known = ProviderTable::ids();
    QStringList custom; // servers named under "providers" in settings.json
    for (auto it = m_configuredModels.cbegin(); it != m_configuredModels.cend(); ++it) {
        if (!known.contains(it.key()))
            custom << it.key();
    }
    custom.sort();
    known += custom;
    if (!known.contains(providerId)) {
        QString message = tr("Unknown provider \"%1\". Valid providers: %2.")
                              .arg(providerId, known.join(QStringLiteral(", ")));
        if (!current.providerId.isEmpty())
            message += QLatin1Char(' ') + tr("For a model whose name has a slash, name the provider first: "
                                             "/model %1/%2")
                                              .arg(current.providerId, choice);
        m_chat->model()->addLine(ChatItem::Kind::Error, message);
        return;
    }
    if (providerId == current.providerId) {
        useModel(model.isEmpty() ? current.model : model, ChoiceFrom::Command);
        return;
    }
    switchProvider(providerId, model, ChoiceFrom::Command);
}

void MainWindow::applyClientConfig(const ClientConfig &config)
{
    ClientConfig applied = config;
    // As ConfigResolver has it: --context-window, else settings.json's
    // providers.<id>.context_windows.<model>, else providers.<id>.context_window, else its context_window,
    // else the registry.
    if (m_options.contextWindow)
        applied.contextWindow = *m_options.contextWindow;
    else if (m_modelContextWindows.value(applied.providerId).contains(applied.model))
        applied.contextWindow = m_modelContextWindows.value(applied.providerId).value(applied.model);
    else if (m_providerContextWindows.contains(applied.providerId))
        applied.contextWindow = m_providerContextWindows.value(applied.providerId);
    else if (m_contextWindowSetting)
        applied.contextWindow = *m_contextWindowSetting;
    else if (!applied.providerId.isEmpty())
        applied.contextWindow = ProviderCatalog::contextWindow(applied.providerId, applied.model);
    m_session->setClientConfig(applied);
    populateModels();
    updateStatus();
    updateMetrics();
}

void MainWindow::populateModels()
{
    m_updatingPickers = true;
    const ClientConfig &config = m_session->clientConfig();
    const int providerIndex = m_providerCombo->findData(config.providerId);
    if (providerIndex < 0 && !config.providerId.isEmpty())
        m_providerCombo->addItem(config.providerId, config.providerId);
    m_providerCombo->setCurrentIndex(m_providerCombo->findData(config.providerId));
    m_modelCombo->clear();
    QStringList models = ProviderCatalog::modelIds(config.providerId);
    for (const QString &model : m_configuredModels.value(config.providerId)) {
        if (!models.contains(model))
            models << model;
    }
    m_modelCombo->addItems(models);
    // The model in use is the list's current item (Up and Down go on from it), else the box's text.
    const int modelIndex =
        config.model.isEmpty() ? -1 : m_modelCombo->findText(config.model, Qt::MatchExactly);
    m_modelCombo->setCurrentIndex(modelIndex);
    if (modelIndex < 0)
        m_modelCombo->setEditText(config.model);
    m_updatingPickers = false;
}

void MainWindow::updateBranch()
{
    const QString workspace = m_session->workspace();
    whenFinished(QtConcurrent::run([workspace] { return WorkspaceInfo::currentBranch(workspace); }), this,
                 [this, workspace](const QString &branch) {
                     if (workspace != m_session->workspace())
                         return; // an answer for the folder the window just left
                     m_branch = branch;
                     updateStatus();
                 });
}

void MainWindow::updateSessionTitle()
{
    const QString id = m_session->sessionId();
    if (id.isEmpty()) {
        m_sessionTitle.clear();
        updateTitle();
        return;
    }
    // The title is read from disk (a rename beside the transcript, else the first message): off the GUI
    // thread.
    whenFinished(QtConcurrent::run([store = m_store, id] {
                     const std::optional<SessionInfo> info = store->find(id);
                     return info ? info->title : QString();
                 }),
                 this, [this, id](const QString &title) {
                     if (id != m_session->sessionId() || title.isEmpty())
                         return;
                     m_sessionTitle = title;
                     updateTitle();
                 });
}

void MainWindow::updateTitle()
{
    const QString workspace = m_session->workspace();
    QString folder = QFileInfo(workspace).fileName();
    if (folder.isEmpty())
        folder = displayPath(workspace);
    if (QDir(workspace) == QDir::home())
        folder = tr("Home");
    QString title = m_sessionTitle;
    if (title.size() > 60)
        title = title.left(59) + QStringLiteral("…");
    // The platform adds " — Keen Desktop" (the application's display name).
    setWindowTitle(title.isEmpty() ? folder : tr("%1 — %2").arg(title, folder));
}

void MainWindow::updateStatus()
{
    const QString workspace = displayPath(m_session->workspace());
    m_workspaceLabel->setText(m_branch.isEmpty() ? workspace : tr("%1 • %2").arg(workspace, m_branch));
    m_workspaceLabel->setToolTip(m_session->workspace());
    const ClientConfig &config = m_session->clientConfig();
    if (config.providerId.isEmpty()) {
        m_modelLabel->setText(tr("No provider configured"));
    } else {
        QString text = tr("%1/%2").arg(config.providerId, config.model);
        if (!config.thinkingEffort.isEmpty())
            text += tr(" • thinking: %1").arg(config.thinkingEffort);
        m_modelLabel->setText(text);
    }
    m_modeCombo->setCurrentIndex(int(m_session->mode()));
    updateTitle();
}

void MainWindow::updateMetrics()
{
    m_meter->setContextWindow(m_session->clientConfig().contextWindow);
    m_meter->setCompactionPolicy(m_session->compactionPolicy());
    const auto usage = m_session->lastUsage();
    if (usage)
        m_meter->setInputTokens(usage->inputTokens);
    else if (m_session->messages().isEmpty())
        m_meter->setInputTokens(std::nullopt);
    else // after a compaction or when a session opens: the last report measured another history
        m_meter->setInputTokens(m_estimate, true);
    m_compactSuggestion->setVisible(m_meter->suggestsCompaction());
    QString tokens = tr("%1 ↑ / %2 ↓")
                         .arg(TokenFormat::compact(m_session->totalInputTokens()),
                              TokenFormat::compact(m_session->totalOutputTokens()));
    const TokenUsage compaction = m_session->compactionUsage();
    if (compaction.inputTokens > 0 || compaction.outputTokens > 0)
        tokens += tr(" · compaction %1 ↑ / %2 ↓")
                      .arg(TokenFormat::compact(compaction.inputTokens),
                           TokenFormat::compact(compaction.outputTokens));
    m_tokensLabel->setText(tokens);
}

void MainWindow::estimateHistory()
{
    m_estimate = m_session->messages().isEmpty()
                     ? std::nullopt
                     : std::optional<qint64>(m_session->contextBreakdown().totalTokens);
}

void MainWindow::updateUndoCompaction()
{
    if (m_undoCompactionAction)
        m_undoCompactionAction->setEnabled(!m_chat->isBusy() && m_session->undoableCompaction() != 0);
}

void MainWindow::showStopAsCancelCompaction(bool cancelCompaction)
{
    if (cancelCompaction) {
        m_stopAction->setText(tr("&Cancel Compaction"));
        m_stopAction->setShortcut(QKeySequence());
        m_stopAction->setToolTip(tr("Cancel the compaction (Esc)"));
        m_stopAction->setStatusTip(tr("Cancel the compaction"));
    } else {
        m_stopAction->setText(tr("&Stop"));
        m_stopAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+C")));
        m_stopAction->setToolTip(
            tr("%1 (%2)").arg(tr("Stop"), m_stopAction->shortcut().toString(QKeySequence::NativeText)));
        m_stopAction->setStatusTip(tr("Stop"));
    }
}

void MainWindow::updateBusy(bool busy)
{
    if (m_sessionBrowser)
        m_sessionBrowser->setBusySession(busy ? m_session->sessionId() : QString());
    m_stopAction->setEnabled(busy);
    m_compactAction->setEnabled(!busy);
    updateUndoCompaction();
    if (busy) {
        m_elapsed.start();
        m_elapsedLabel->setText(tr("%1 elapsed").arg(TokenFormat::elapsed(0)));
        m_elapsedLabel->show();
        m_elapsedTimer.start();
    } else {
        m_elapsedTimer.stop();
        m_elapsedLabel->hide();
    }
    updateStatus();
    // A turn that ended without a usage report (interrupted early, or a server that sends none) still grew
    // the history: estimate it rather than show what was there before.
    if (!busy && !m_session->lastUsage())
        estimateHistory();
    updateMetrics();
    if (!busy && m_afterStop) {
        // From the event loop: the session finishes its own bookkeeping for the turn first.
        QTimer::singleShot(0, this, [this] {
            if (!m_session->isBusy() && m_afterStop)
                std::exchange(m_afterStop, {})();
        });
    }
}

void MainWindow::cycleMode()
{
    m_chat->setMode(nextAgentMode(m_session->mode()));
}

void MainWindow::setColorScheme(Settings::ColorScheme scheme)
{
    m_colorScheme->setScheme(scheme);
    saveSettings([scheme](Settings &settings) { settings.colorScheme = scheme; });
}

void MainWindow::connectNotifications()
{
    m_sessionNotifications = new SessionNotifications(m_session, this, m_notifier);
    connect(m_notifier, &Notifier::activated, this, &MainWindow::focusFromNotification);
}

void MainWindow::setNotifier(Notifier *notifier)
{
    if (m_notifier)
        disconnect(m_notifier, nullptr, this, nullptr);
    m_notifier = notifier;
    m_sessionNotifications->setNotifier(notifier);
    if (notifier)
        connect(notifier, &Notifier::activated, this, &MainWindow::focusFromNotification);
}

void MainWindow::focusFromNotification(const QString &sessionId)
{
    if (isMinimized())
        showNormal();
    show();
    raise();
    activateWindow();
    if (!sessionId.isEmpty() && sessionId != m_session->sessionId() && !m_session->isBusy())
        openSession(sessionId);
    m_chat->setFocus();
}

void MainWindow::showSettings()
{
    auto *dialog = new SettingsDialog(m_session->clientConfig(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QStringList keysInSettings;
    const Settings settings = Settings::loadOrDefaults().settings;
    for (auto provider = settings.providers.cbegin(); provider != settings.providers.cend(); ++provider) {
        if (!provider->apiKey.isEmpty() || !provider->apiKeyHelper.isEmpty())
            keysInSettings << provider.key();
    }
    dialog->setProvidersWithKeyInSettings(keysInSettings);
    dialog->setReviewCompaction(m_session->reviewManualCompaction());
    dialog->setPinBudgetPercent(m_session->pinBudgetPercent());
    dialog->setContextWindows(
        {m_modelContextWindows, m_providerContextWindows, m_contextWindowSetting, m_options.contextWindow});
    connect(dialog, &SettingsDialog::chatGptSignInRequested, dialog, [this, dialog] {
        signInWithChatGpt(
            dialog, [dialog](bool ok, const QString &message) { dialog->showChatGptSignIn(ok, message); });
    });
    connect(dialog, &SettingsDialog::configAccepted, this, [this, dialog](const ClientConfig &config) {
        // Saved before the setup is used, which reads the provider's window. Under --context-window the
        // field showed that run's window and could not change: nothing of settings.json changes either.
        if (!m_options.contextWindow)
            rememberContextWindow(config.providerId,
                                  dialog->modelHasOwnContextWindow() ? config.model : QString(),
                                  dialog->contextWindowSetting());
        useChosenSetup(config, dialog->keyEntered() ? KeyEntered::Yes : KeyEntered::No);
        const bool review = dialog->reviewCompaction();
        if (review != m_session->reviewManualCompaction()) {
            m_session->setReviewManualCompaction(review);
            saveSettings([review](Settings &settings) { settings.reviewCompaction = review; });
        }
        const int pinBudget = dialog->pinBudgetPercent();
        if (pinBudget != m_session->pinBudgetPercent()) {
            m_session->setPinBudgetPercent(pinBudget);
            saveSettings([pinBudget](Settings &settings) { settings.pinBudgetPercent = pinBudget; });
        }
        m_chat->updatePinsButton(); // the budget follows the percent and the model's window
    });
    dialog->open();
}

void MainWindow::signInWithChatGpt(QObject *owner, std::function<void(bool, const QString &)> report)
{
    // ChatGPT sign-in for Codex: the browser opens, the loopback callback finishes the flow asynchronously.
    // Owned by owner, so a dialog closed meanwhile takes the flow (and report) with it.
    auto *signIn = new ChatGptSignIn(owner);
    connect(signIn, &ChatGptSignIn::finished, this, [this, signIn, report](bool ok, const QString &message) {
        statusBar()->showMessage(message, 10000);
        report(ok, message);
        signIn->deleteLater();
    });
    const Result<QUrl> url = signIn->start();
    if (!url) {
        statusBar()->showMessage(url.error(), 10000);
        report(false, url.error());
        signIn->deleteLater();
        return;
    }
    QDesktopServices::openUrl(*url);
    statusBar()->showMessage(tr("Finish signing in with ChatGPT in your browser..."));
}

void MainWindow::signOutOfChatGpt()
{
    // Reference /logout: only a provider signed in with an account has something to sign out of.
    const ProviderDescriptor *provider = ProviderTable::find(m_session->clientConfig().providerId);
    if (!provider || provider->auth != AuthMode::OAuth) {
        m_chat->notify(tr("/logout signs out of ChatGPT; %1 uses no sign-in.")
                           .arg(provider ? provider->name : m_session->clientConfig().providerId));
        return;
    }
    m_chat->notify(tr("Signing out of ChatGPT…")); // the keychain may take a moment to answer
    ChatGptSignIn::signOutAsync(this, [this](const QString &error) {
        if (!error.isEmpty()) {
            m_chat->model()->addLine(ChatItem::Kind::Error, error);
            return;
        }
        m_chat->model()->addLine(ChatItem::Kind::Status,
                                 tr("Signed out of ChatGPT. Sign in again in Settings to go on."));
    });
}

void MainWindow::cleanUpOldData()
{
    if (m_cleaningUp || !m_store)
        return;
    m_cleaningUp = true;
    m_chat->notify(tr("Cleaning up…"));
    auto store = m_store;
    whenFinished(
        QtConcurrent::run([store, dataDir = AgentSession::dataFolder(), open = m_session->sessionId()] {
            return DataCleanup::plan(dataDir, *store, QDateTime::currentDateTimeUtc(), open);
        }),
        this, [this, store](const DataCleanup::Plan &plan) {
            if (plan.isEmpty()) {
                m_cleaningUp = false;
                m_chat->model()->addLine(
                    ChatItem::Kind::Status,
                    tr("Nothing to clean up: no command output older than %1 days and no session "
                       "unused for %2 days.")
                        .arg(DataCleanup::ArtifactDays)
                        .arg(DataCleanup::SessionDays));
                return;
            }
            auto *box = new QMessageBox(QMessageBox::Question, tr("Clean Up Old Data"),
                                        tr("Delete this old data?"), QMessageBox::NoButton, this);
            box->setObjectName(QStringLiteral("cleanupConfirmation"));
            box->setTextFormat(Qt::PlainText);
            box->setInformativeText(DataCleanup::describe(plan) + QStringLiteral("\n\n") +
                                    tr("This cannot be undone."));
            QPushButton *remove = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
            remove->setObjectName(QStringLiteral("confirmCleanupButton"));
            box->setDefaultButton(box->addButton(QMessageBox::Cancel));
            box->setAttribute(Qt::WA_DeleteOnClose);
            connect(box, &QMessageBox::buttonClicked, this,
                    [this, remove, store, plan](QAbstractButton *clicked) {
                        if (clicked != remove) {
                            m_cleaningUp = false;
                            m_chat->notify(tr("Nothing was removed."));
                            return;
                        }
                        whenFinished(
                            QtConcurrent::run([store, plan] { return DataCleanup::apply(plan, *store); }),
                            this, [this](const DataCleanup::Outcome &outcome) {
                                m_cleaningUp = false;
                                m_chat->model()->addLine(outcome.problems.isEmpty() ? ChatItem::Kind::Status
                                                                                    : ChatItem::Kind::Error,
                                                         DataCleanup::report(outcome));
                                if (m_sessionBrowser)
                                    m_sessionBrowser->refresh();
                            });
                    });
            box->open();
        });
}

CancellationToken MainWindow::shutdownToken() const
{
    return m_session->shutdownToken();
}

void MainWindow::quitAfterStopping()
{
    // A dialog left open would keep the application running after the window closes: quit it as well.
    auto quit = [this] {
        close();
        QCoreApplication::quit();
    };
    stopThen(quit); // the turn is stopping already: its token descends from the shutdown token
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // A turn saves what it did (its text, its tool runs) when it ends: quitting in the middle lost it all.
    // Ask; Stop and Quit closes once the stopped turn is on disk. Closing again while it stops quits at once.
    if (m_session->isBusy() && !m_afterStop) {
        event->ignore();
        askBeforeLeaving(
            QStringLiteral("quit"), tr("Quit Keen Desktop?"),
            tr("The agent is still working.\nStop it and quit? What it has done so far is saved."),
            tr("Stop and Quit"), [this] { close(); });
        return;
    }
    QDir().mkpath(Settings::configDirectory());
    QSettings state(windowStatePath(), QSettings::IniFormat);
    state.setValue(QStringLiteral("window/geometry"), saveGeometry());
    state.setValue(QStringLiteral("window/state"), saveState());
    state.sync();
    // Like every file of the data folders, readable by its owner only (it tells which panels and sizes
    // the person uses, nothing more, but the folder's rule is simpler without exceptions).
    QFile::setPermissions(windowStatePath(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QMainWindow::closeEvent(event);
}

void MainWindow::changeEvent(QEvent *event)
{
    // Bundled icons are drawn in the palette's colours (the chat view rebuilds its own documents).
    if (event->type() == QEvent::PaletteChange)
        refreshIcons();
    if (event->type() == QEvent::ActivationChange && isActiveWindow()) {
        if (m_notifier)
            m_notifier->withdraw();
        // Back from the editor where a skill or a subagent profile was written: offer it now, not only
        // after the next turn (read on a worker).
        m_session->reloadCatalogs();
    }
    QMainWindow::changeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedFolder(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        QMainWindow::dragEnterEvent(event);
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString folder = droppedFolder(event->mimeData());
    if (folder.isEmpty()) {
        QMainWindow::dropEvent(event);
        return;
    }
    event->acceptProposedAction();
    openFolder(folder);
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About Keen Desktop"),
        tr("<h3>Keen Desktop %1</h3>"
           "<p>A desktop agent that works in your project folder with a large language model.</p>"
           "<p>Built with Qt %2.</p>")
            .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

} // namespace keen

#include "moc_mainwindow.cpp"
