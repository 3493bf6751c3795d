#include "mainwindow.h"

#include "agent/agentsession.h"
#include "agent/workspaceinfo.h"
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"
#include "config/chatgptsignin.h"
#include "config/configresolver.h"
#include "config/secretstore.h"
#include "config/settings.h"
#include "contextmeter.h"
#include "session/sessionstore.h"
#include "sessions/sessionbrowserpanel.h"
#include "settings/providercatalog.h"
#include "settings/settingsdialog.h"
#include "settings/setupwizard.h"
#include "tokenformat.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFuture>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

namespace keen {

MainWindow::MainWindow(const LaunchOptions &options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(options)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Keen Desktop"));
    setWindowIcon(QIcon(QStringLiteral(":/keen/keen-desktop.svg")));
    resize(1100, 760);

    m_session = new AgentSession(this);
    m_store = std::make_shared<SessionStore>();
    m_session->setSessionStore(m_store);
    const QString workspace = options.workspace.isEmpty() ? QDir::currentPath() : options.workspace;
    m_session->setWorkspace(QDir(workspace).absolutePath());

    m_chat = new ChatPanel(m_session, this);
    setCentralWidget(m_chat);
    m_chat->setWorkspace(m_session->workspace());

    createActions();
    createMenus();
    createToolBar();
    createStatusBar();
    installSessionBrowser();
    loadInitialConfig();

    connect(m_chat, &ChatPanel::busyChanged, this, &MainWindow::updateBusy);
    connect(m_chat, &ChatPanel::metricsChanged, this, &MainWindow::updateMetrics);
    connect(m_chat, &ChatPanel::settingsRequested, this, &MainWindow::showSettings);
    connect(m_chat, &ChatPanel::sessionsRequested, this, &MainWindow::showSessionBrowser);
    connect(m_chat, &ChatPanel::modeChanged, this, [this](AgentMode mode) {
        m_modeCombo->setCurrentIndex(int(mode));
        updateStatus();
    });
    connect(m_chat, &ChatPanel::showThinkingChanged, m_showThinkingAction, &QAction::setChecked);
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
        m_chat->model()->addLine(ChatItem::Kind::Status, tr("✓ Thinking effort: %1").arg(effort));
    });
    connect(m_session, &AgentSession::sessionChanged, this, [this](const QString &) { updateStatus(); });
    // Any compaction (manual or automatic, even mid-turn) and an opened session replace the history: the
    // meter shows a local estimate of it at once, until the provider reports the next request.
    connect(m_session, &AgentSession::historyReplaced, this, [this] {
        m_estimate = m_session->messages().isEmpty()
                         ? std::nullopt
                         : std::optional<qint64>(m_session->contextBreakdown().totalTokens);
        updateMetrics();
    });

    m_elapsedTimer.setInterval(1000);
    connect(&m_elapsedTimer, &QTimer::timeout, this, [this] {
        m_elapsedLabel->setText(tr("%1 elapsed").arg(TokenFormat::elapsed(m_elapsed.elapsed())));
    });

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());

    updateBranch();
    updateStatus();
    updateMetrics();
    updateBusy(false);
    m_chat->setFocus();

    if (!options.sessionId.isEmpty()) {
        QTimer::singleShot(0, this, [this] { openSession(m_options.sessionId); });
    }
}

MainWindow::~MainWindow() = default;

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

void MainWindow::createActions()
{
    m_newSessionAction =
        makeAction(tr("&New Session"), QStringLiteral("newSessionAction"), QKeySequence::New);
    connect(m_newSessionAction, &QAction::triggered, m_chat, &ChatPanel::newSession);

    m_compactAction = makeAction(tr("&Compact"), QStringLiteral("compactAction"),
                                 QKeySequence(QStringLiteral("Ctrl+Shift+K")));
    m_compactAction->setToolTip(tr("Compact: summarize the conversation into a smaller context (%1)")
                                    .arg(m_compactAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_compactAction, &QAction::triggered, m_chat, [this] { m_chat->compact(); });

    // Ctrl+C: the editor and the transcript copy a selection first and interrupt otherwise.
    m_stopAction =
        makeAction(tr("&Stop"), QStringLiteral("stopAction"), QKeySequence(QStringLiteral("Ctrl+C")));
    m_stopAction->setShortcutContext(Qt::WindowShortcut);
    connect(m_stopAction, &QAction::triggered, m_chat, &ChatPanel::interrupt);

    m_cycleModeAction = makeAction(tr("Next &Mode"), QStringLiteral("cycleModeAction"),
                                   QKeySequence(Qt::SHIFT | Qt::Key_Backtab));
    m_cycleModeAction->setShortcuts(
        {QKeySequence(Qt::SHIFT | Qt::Key_Backtab), QKeySequence(Qt::Key_Backtab)});
    m_cycleModeAction->setToolTip(tr("Next mode: build, plan, yolo (Shift+Tab)"));
    connect(m_cycleModeAction, &QAction::triggered, this, &MainWindow::cycleMode);

    m_settingsAction = makeAction(tr("&Settings..."), QStringLiteral("settingsAction"),
                                  QKeySequence(QStringLiteral("Ctrl+,")));
    connect(m_settingsAction, &QAction::triggered, this, &MainWindow::showSettings);

    m_sessionsAction = makeAction(tr("S&essions"), QStringLiteral("sessionsAction"),
                                  QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    connect(m_sessionsAction, &QAction::triggered, this, &MainWindow::showSessionBrowser);

    m_showThinkingAction = makeAction(tr("Show &Thinking"), QStringLiteral("showThinkingAction"),
                                      QKeySequence(QStringLiteral("Ctrl+T")));
    m_showThinkingAction->setCheckable(true);
    m_showThinkingAction->setChecked(m_chat->showThinking());
    connect(m_showThinkingAction, &QAction::toggled, m_chat, &ChatPanel::setShowThinking);

    m_providerAction = makeAction(tr("Choose &Provider"), QStringLiteral("providerAction"),
                                  QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    m_modelAction = makeAction(tr("Choose M&odel"), QStringLiteral("modelAction"),
                               QKeySequence(QStringLiteral("Ctrl+Shift+M")));
}

void MainWindow::createMenus()
{
    QMenu *fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(m_newSessionAction);
    fileMenu->addAction(m_sessionsAction);
    fileMenu->addSeparator();
    fileMenu->addAction(m_settingsAction);
    fileMenu->addSeparator();
    QAction *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setObjectName(QStringLiteral("quitAction"));

    QMenu *sessionMenu = menuBar()->addMenu(tr("&Conversation"));
    sessionMenu->addAction(m_compactAction);
    sessionMenu->addAction(m_stopAction);
    sessionMenu->addAction(m_cycleModeAction);
    QAction *contextAction =
        sessionMenu->addAction(tr("Show C&ontext..."), m_chat, &ChatPanel::showContextDialog);
    contextAction->setObjectName(QStringLiteral("contextAction"));
    contextAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+I")));

    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(m_showThinkingAction);

    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *commands =
        helpMenu->addAction(tr("&Commands"), this, [this] { m_chat->runCommand(QStringLiteral("/help")); });
    commands->setShortcut(QKeySequence::HelpContents);
    commands->setObjectName(QStringLiteral("helpAction"));
    QAction *about = helpMenu->addAction(tr("&About Keen Desktop"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("aboutAction"));
    helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
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
    bar->addWidget(new QLabel(tr(" Mode: "), bar));
    bar->addWidget(m_modeCombo);
    bar->addSeparator();

    m_providerCombo = new QComboBox(bar);
    m_providerCombo->setObjectName(QStringLiteral("providerCombo"));
    m_providerCombo->setAccessibleName(tr("Provider"));
    m_providerCombo->setToolTip(
        tr("Provider (%1)").arg(m_providerAction->shortcut().toString(QKeySequence::NativeText)));
    for (const ProviderCatalog::Provider &provider : ProviderCatalog::providers())
        m_providerCombo->addItem(provider.name, provider.id);
    m_modelCombo = new QComboBox(bar);
    m_modelCombo->setObjectName(QStringLiteral("modelCombo"));
    m_modelCombo->setEditable(true);
    m_modelCombo->setInsertPolicy(QComboBox::NoInsert);
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
    connect(m_providerCombo, &QComboBox::activated, this, [this] {
        if (m_updatingPickers)
            return;
        ClientConfig config = m_session->clientConfig();
        config.providerId = m_providerCombo->currentData().toString();
        const QStringList models = ProviderCatalog::modelIds(config.providerId);
        config.model = models.value(0);
        if (const ProviderCatalog::Provider *provider = ProviderCatalog::provider(config.providerId))
            config.baseUrl = provider->defaultBaseUrl;
        applyClientConfig(config);
    });
    connect(m_modelCombo, &QComboBox::textActivated, this, [this](const QString &model) {
        if (m_updatingPickers || model.trimmed().isEmpty())
            return;
        ClientConfig config = m_session->clientConfig();
        config.model = model.trimmed();
        applyClientConfig(config);
    });
    bar->addWidget(new QLabel(tr(" Provider: "), bar));
    bar->addWidget(m_providerCombo);
    bar->addWidget(new QLabel(tr(" Model: "), bar));
    bar->addWidget(m_modelCombo);
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
    m_tokensLabel = new QLabel(bar);
    m_tokensLabel->setObjectName(QStringLiteral("tokensLabel"));
    m_tokensLabel->setToolTip(tr("Input and output tokens of this session"));
    m_elapsedLabel = new QLabel(bar);
    m_elapsedLabel->setObjectName(QStringLiteral("elapsedLabel"));
    bar->addWidget(m_workspaceLabel, 1);
    bar->addPermanentWidget(m_modelLabel);
    bar->addPermanentWidget(m_compactSuggestion);
    bar->addPermanentWidget(m_meter);
    bar->addPermanentWidget(m_tokensLabel);
    bar->addPermanentWidget(m_elapsedLabel);
}

void MainWindow::installSessionBrowser()
{
    m_sessionDock = new QDockWidget(tr("Sessions"), this);
    m_sessionDock->setObjectName(QStringLiteral("sessionBrowserDock"));
    m_sessionBrowser = new SessionBrowserPanel(m_sessionDock);
    m_sessionBrowser->setStore(m_store);
    m_sessionBrowser->setWorkspace(m_session->workspace());
    m_sessionDock->setWidget(m_sessionBrowser);
    addDockWidget(Qt::LeftDockWidgetArea, m_sessionDock);
    m_sessionDock->hide();
    connect(m_sessionBrowser, &SessionBrowserPanel::sessionOpenRequested, this, &MainWindow::openSession);
    // A search hit opens the session at the matching event (emitted after sessionOpenRequested).
    // The session opens off the GUI thread: a hit for a session still opening waits for its replay.
    auto pendingHit = std::make_shared<std::pair<QString, quint64>>();
    auto scrollToHit = [this](quint64 seq) {
        const int row = m_chat->model()->rowForSeq(seq);
        if (row >= 0)
            m_chat->view()->scrollTo(m_chat->model()->index(row), QAbstractItemView::PositionAtTop);
    };
    connect(m_sessionBrowser, &SessionBrowserPanel::searchMatchOpenRequested, this,
            [this, pendingHit, scrollToHit](const QString &sessionId, quint64 seq) {
                if (m_session->sessionId() == sessionId && !m_session->isOpening())
                    scrollToHit(seq);
                else
                    *pendingHit = {sessionId, seq};
            });
    connect(m_session, &AgentSession::sessionOpened, this, [this, pendingHit, scrollToHit] {
        const auto [sessionId, seq] = std::exchange(*pendingHit, {});
        if (!sessionId.isEmpty() && sessionId == m_session->sessionId())
            scrollToHit(seq);
    });
    connect(m_session, &AgentSession::sessionChanged, m_sessionBrowser,
            [this] { m_sessionBrowser->refresh(); });
}

void MainWindow::showSessionBrowser()
{
    m_sessionDock->show();
    m_sessionDock->raise();
    m_sessionBrowser->focusSearch();
}

void MainWindow::openSession(const QString &sessionId)
{
    if (m_session->isBusy()) {
        m_chat->spinner()->showNotification(tr("Operation not permitted"));
        return;
    }
    m_session->openSessionAsync(sessionId); // read off the GUI thread; the chat panel shows the busy state
    updateMetrics();
}

void MainWindow::loadInitialConfig()
{
    const Result<Settings> loaded = Settings::load();
    if (!loaded)
        m_chat->model()->addLine(ChatItem::Kind::Error, loaded.error());
    const Settings settings = loaded ? *loaded : Settings();
    const ConfigResolver resolver(settings);
    // Everything but the key now (no I/O); the key arrives from the keychain off the GUI thread.
    const Result<ResolvedClientConfig> base = resolver.resolveWithoutKey(m_options);
    if (base) {
        applyClientConfig(base->config);
        resolver.resolveAsync(m_options, SecretStore::FileFallback::Allow, this,
                              [this](const Result<ResolvedClientConfig> &resolved) {
                                  if (!resolved) {
                                      m_chat->model()->addLine(ChatItem::Kind::Error, resolved.error());
                                      return;
                                  }
                                  if (!resolved->warning.isEmpty())
                                      statusBar()->showMessage(resolved->warning, 10000);
                                  ClientConfig config = resolved->config;
                                  // A key typed in this process wins over a stored one.
                                  if (config.apiKey.isEmpty())
                                      config.apiKey = m_session->clientConfig().apiKey;
                                  m_session->setClientConfig(config);
                              });
        return;
    }
    applyClientConfig(ClientConfig{});
    // First run: a short setup, opened once the window shows.
    QTimer::singleShot(0, this, [this] {
        auto *wizard = new SetupWizard(this);
        wizard->setAttribute(Qt::WA_DeleteOnClose);
        connect(wizard, &SetupWizard::configured, this, [this](const ClientConfig &config) {
            applyClientConfig(config);
            persistClientConfig(config);
        });
        wizard->open();
    });
}

void MainWindow::persistClientConfig(const ClientConfig &config)
{
    if (config.providerId.isEmpty())
        return;
    Result<Settings> loaded = Settings::load();
    Settings settings = loaded ? *loaded : Settings();
    settings.activeProvider = config.providerId;
    settings.activeModel = config.model;
    settings.thinkingEffort = config.thinkingEffort;
    ProviderSettings provider = settings.provider(config.providerId);
    provider.baseUrl = config.baseUrl;
    provider.headers.clear();
    for (const auto &header : config.headers)
        provider.headers.insert(QString::fromUtf8(header.first), QString::fromUtf8(header.second));
    settings.providers.insert(config.providerId, provider);
    const Result<void> saved = settings.save();
    if (!saved)
        m_chat->model()->addLine(ChatItem::Kind::Error, saved.error());
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

void MainWindow::applyClientConfig(const ClientConfig &config)
{
    ClientConfig applied = config;
    if (m_options.contextWindow)
        applied.contextWindow = *m_options.contextWindow;
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
    m_modelCombo->addItems(ProviderCatalog::modelIds(config.providerId));
    m_modelCombo->setCurrentText(config.model);
    m_updatingPickers = false;
}

void MainWindow::updateBranch()
{
    const QString workspace = m_session->workspace();
    QtConcurrent::run([workspace] {
        return WorkspaceInfo::currentBranch(workspace);
    }).then(this, [this](const QString &branch) {
        m_branch = branch;
        updateStatus();
    });
}

void MainWindow::updateStatus()
{
    QString workspace = QDir::toNativeSeparators(m_session->workspace());
    const QString home = QDir::toNativeSeparators(QDir::homePath());
    if (workspace.startsWith(home))
        workspace = QStringLiteral("~") + workspace.mid(home.size());
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
    setWindowTitle(m_session->sessionId().isEmpty()
                       ? tr("Keen Desktop")
                       : tr("Keen Desktop — %1").arg(m_session->sessionId().left(8)));
}

void MainWindow::updateMetrics()
{
    m_meter->setContextWindow(m_session->clientConfig().contextWindow);
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

void MainWindow::updateBusy(bool busy)
{
    m_stopAction->setEnabled(busy);
    m_compactAction->setEnabled(!busy);
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
    updateMetrics();
}

void MainWindow::cycleMode()
{
    m_chat->setMode(nextAgentMode(m_session->mode()));
}

void MainWindow::showSettings()
{
    auto *dialog = new SettingsDialog(m_session->clientConfig(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &SettingsDialog::chatGptSignInRequested, dialog, [this, dialog] {
        // ChatGPT sign-in for Codex: the browser opens, the loopback callback finishes the flow
        // asynchronously.
        auto *signIn = new ChatGptSignIn(dialog);
        connect(signIn, &ChatGptSignIn::finished, this, [this, signIn](bool, const QString &message) {
            statusBar()->showMessage(message, 10000);
            signIn->deleteLater();
        });
        const Result<QUrl> url = signIn->start();
        if (!url) {
            statusBar()->showMessage(url.error(), 10000);
            signIn->deleteLater();
            return;
        }
        QDesktopServices::openUrl(*url);
        statusBar()->showMessage(tr("Finish signing in with ChatGPT in your browser..."));
    });
    connect(dialog, &SettingsDialog::configAccepted, this, [this](const ClientConfig &config) {
        applyClientConfig(config);
        persistClientConfig(config);
    });
    dialog->open();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::changeEvent(QEvent *event)
{
    // Light and dark follow the system: cached documents carry colours, so rebuild them.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange ||
        event->type() == QEvent::StyleChange) {
        if (m_chat) {
            m_chat->view()->chatDelegate()->clearCache();
            m_chat->view()->doItemsLayout();
        }
    }
    QMainWindow::changeEvent(event);
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
