// The main window: toolbar actions with shortcuts in their tooltips, mode cycling, status bar, context meter.
#include "apppalette.h"
#include "chat/chatcolors.h"
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/chatview.h"
#include "chat/elidinglabel.h"
#include "chat/findbar.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"
#include "colorschemecontroller.h"
#include "contextmeter.h"
#include "icons.h"
#include "mainwindow.h"
#include "settings/providercatalog.h"
#include "settings/settingsdialog.h"
#include "settings/setupwizard.h"
#include "tokenformat.h"

#include "agent/agentsession.h"
#include "config/inputhistory.h"
#include "config/secretstore.h"
#include "config/settings.h"
#include "config/settingswriter.h"
#include "fakeproviderserver.h"
#include "providers/providertable.h"
#include "scriptedllmclient.h"
#include "sessionfixtures.h"
#include "sessions/sessionbrowserpanel.h"
#include "sessions/sessionlistmodel.h"
#include "storedchatgptsignin.h"
#include "testenvironment.h"

#include <QThreadPool>

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QDBusVariant>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>
#include <QWheelEvent>
#include <QWizard>

using namespace keen;
using test::FakeProviderServer;
using test::ScriptedLlmClient;

namespace {
// Types text into the toolbar's Model box as a person does: the box focused, its text replaced.
void typeIntoModelBox(QComboBox *box, const QString &text)
{
    box->lineEdit()->setFocus(Qt::MouseFocusReason);
    box->lineEdit()->selectAll();
    QTest::keyClick(box->lineEdit(), Qt::Key_Backspace);
    QTest::keyClicks(box->lineEdit(), text);
}

void send(MainWindow &window, const QString &prompt)
{
    QTest::keyClicks(window.chatPanel()->input(), prompt);
    QTest::keyClick(window.chatPanel()->input(), Qt::Key_Return);
}

// settings.json with Ollama chosen (qwen3-coder) and its provider-wide window of 8,192 tokens, and the
// windows of single models given.
bool saveOllamaSettings(const QMap<QString, qint64> &modelWindows = {})
{
    Settings settings;
    settings.activeProvider = QStringLiteral("ollama");
    settings.activeModel = QStringLiteral("qwen3-coder");
    ProviderSettings ollama;
    ollama.contextWindow = 8192;
    ollama.modelContextWindows = modelWindows;
    settings.providers.insert(QStringLiteral("ollama"), ollama);
    return settings.save().ok();
}

// Opens Settings as the menu does; nullptr when it did not show.
SettingsDialog *openSettings(MainWindow &window)
{
    window.showSettings();
    SettingsDialog *dialog = nullptr;
    const bool shown = QTest::qWaitFor(
        [&] { return (dialog = window.findChild<SettingsDialog *>()) && dialog->isVisible(); });
    return shown ? dialog : nullptr;
}
} // namespace

// Stands in for the file manager: QDesktopServices hands it the folders the window opens.
class FolderCatcher : public QObject
{
    Q_OBJECT

public:
    QList<QUrl> opened;

public Q_SLOTS:
    void open(const QUrl &url) { opened.append(url); }
};

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void actionsHaveShortcutsInTooltips();
    void tabGoesFromThePromptToTheConversation();
    void ctrlFOpensFindFromTheConversationMenu();
    void zoomEnlargesTheConversationAndIsKept();
    void shiftTabCyclesTheMode();
    void statusBarShowsWorkspaceModelAndTokens();
    void contextMeterColoursAndThreshold();
    void tokenFormats();
    void aLongNotificationDoesNotWidenTheWindow();
    void stopInterruptsTheTurn();
    void fileExportSavesTheConversationInTheWindow();
    void compactButtonStartsACompaction();
    void stopButtonCancelsAManualCompaction();
    void conversationMenuUndoesTheLatestCompaction();
    void contextMeterUpdatesRightAfterManualCompaction();
    void contextMeterUpdatesRightAfterAutomaticCompaction();
    void contextMeterEstimatesAfterAnInterruptedFirstTurn();
    void showThinkingAndToolHistoryLiveInSettingsJson();
    void colorSchemeCanBeForcedAndCodeFollowsIt();
    void colorSchemeFollowsTheDesktop();
    void toolbarAndMenuActionsHaveIcons();
    void changesMadeBeforeTheKeyArrivesAreKept();
    void presetProviderKeepsItsNameInTheWindowAndSettings();
    void damagedSettingsAreNamedInTheWindowAndKept();
    void modelTypedInTheToolbarIsUsedAtOnceAndSaved();
    void emptyModelNameInTheToolbarIsRefused();
    void modelTypedInTheToolbarIsUsedExactlyEvenWhenAListedOneStartsWithIt();
    void escInTheToolbarModelBoxAbandonsWhatWasTyped();
    void modelChosenDuringATurnIsUsedFromTheNextTurn();
    void slashModelSetsTheModelOfTheCurrentProvider();
    void slashModelWithAProviderSwitchesToItWithItsOwnKey();
    void slashModelRefusesUnknownAndUnreadyProviders();
    void toolbarProviderBoxNeverCarriesTheKeyOver();
    void toolbarProviderBoxListsTheProviderTable();
    void firstRunSetupUsesTheKeyFromTheEnvironment();
    void settingsSwitchToAProviderWithItsKeyElsewhereUsesThatKey();
    void contextWindowFromSettingsJsonIsTheWindowsToo();
    void settingsSetALocalServersContextWindow();
    void okInSettingsKeepsOnlyAKeyTypedThere();
    void aNarrowWindowKeepsEachToolbarLabelWithItsBox();
    void upRecallsThePromptsOfEarlierRuns();
    void logoutSignsOutOfChatGptOnly();
    void cleanupDeletesOldDataAfterAsking();
    void aSkillsSessionIsTitledByItsCommand();
    void skillsAndSubagentsWrittenElsewhereAreOfferedWhenTheWindowIsActivated();
    void firstRunWithALocalServerAsksItsContextWindow();
    void helpOpensTheLogFolder();
    void aFailedMcpServerStaysInTheStatusBar();
    void aStartupMessageDoesNotCoverTheFolder();
    void aModelWithItsOwnContextWindowKeepsIt();
    void okUnderAContextWindowFlagKeepsTheSavedWindow();

private:
    test::TestEnvironment m_env;
    std::unique_ptr<MainWindow> m_window;
    std::shared_ptr<ScriptedLlmClient> m_client;
};

void TestMainWindow::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       m_env.path(QStringLiteral("qsettings")));
    // The key comes from the environment, so no keychain is needed.
    qputenv("ANTHROPIC_API_KEY", "test-key");
    QDir().mkpath(m_env.path(QStringLiteral("project")));
}

void TestMainWindow::init()
{
    LaunchOptions options;
    options.provider = QStringLiteral("anthropic");
    options.model = QStringLiteral("claude-fable-5-1");
    options.workspace = m_env.path(QStringLiteral("project"));
    options.contextWindow = 100000;
    m_window = std::make_unique<MainWindow>(options);
    m_client = std::make_shared<ScriptedLlmClient>();
    m_window->session()->setClientFactory(ScriptedLlmClient::factory(m_client));
    ClientConfig config = m_window->session()->clientConfig();
    config.apiKey = QStringLiteral("k");
    m_window->applyClientConfig(config);
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestMainWindow::cleanup()
{
    if (m_window->session()->isBusy()) {
        m_window->session()->interrupt();
        QTRY_VERIFY(!m_window->session()->isBusy());
    }
    m_window.reset();
}

void TestMainWindow::actionsHaveShortcutsInTooltips()
{
    const QList<QPair<QString, QString>> expected{
        {QStringLiteral("newSessionAction"), QStringLiteral("Ctrl+N")},
        {QStringLiteral("compactAction"), QStringLiteral("Ctrl+Shift+K")},
        {QStringLiteral("stopAction"), QStringLiteral("Ctrl+C")},
        {QStringLiteral("sessionsAction"), QStringLiteral("Ctrl+Shift+S")},
    };
    for (const auto &[name, shortcut] : expected) {
        auto *action = m_window->findChild<QAction *>(name);
        QVERIFY2(action, qPrintable(name));
        QCOMPARE(action->shortcut(), QKeySequence(shortcut));
        QVERIFY2(action->toolTip().contains(QKeySequence(shortcut).toString(QKeySequence::NativeText)),
                 qPrintable(action->toolTip()));
    }
    for (const QString &name :
         {QStringLiteral("modeCombo"), QStringLiteral("providerCombo"), QStringLiteral("modelCombo")}) {
        auto *combo = m_window->findChild<QComboBox *>(name);
        QVERIFY(combo);
        QVERIFY(!combo->accessibleName().isEmpty());
    }
}

// Find in Conversation is in the Conversation menu, and Ctrl+F from the input opens its bar in the window.
void TestMainWindow::ctrlFOpensFindFromTheConversationMenu()
{
    auto *find = m_window->findChild<QAction *>(QStringLiteral("findAction"));
    QVERIFY(find);
    QCOMPARE(find->shortcut(), QKeySequence(QKeySequence::Find));
    bool inMenu = false;
    for (QAction *menu : m_window->menuBar()->actions()) {
        if (menu->menu() && menu->text() == QStringLiteral("&Conversation"))
            inMenu = menu->menu()->actions().contains(find);
    }
    QVERIFY(inMenu);
    m_window->chatPanel()->input()->setFocus();
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(m_window->chatPanel()->findBar()->isVisible());
    QVERIFY(m_window->chatPanel()->findBar()->lineEdit()->hasFocus());
}

// A person who reads all day sets the text size: Ctrl++ (or Ctrl+=), Ctrl+- and Ctrl+0, View > Zoom, or
// Ctrl+wheel over the conversation. The rows are laid out again in the new size, the input follows, and the
// size is kept in settings.json for the next start.
void TestMainWindow::zoomEnlargesTheConversationAndIsKept()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    const auto readSettingsJson = [] {
        QFile file(Settings::defaultPath());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("A reply that wraps over a few lines when the text "
                                                 "grows, which is what zoom is for. ")
                                      .repeated(4)),
         ScriptedLlmClient::event(StreamEvent::done())});
    ChatPanel *chat = m_window->chatPanel();
    QTest::keyClicks(chat->input(), QStringLiteral("hi"));
    QTest::keyClick(chat->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    ChatView *view = chat->view();
    const QModelIndex reply = chat->model()->index(chat->model()->rowCount() - 1);
    QTRY_VERIFY(view->visualRect(reply).height() > 0);
    const int before = view->visualRect(reply).height();
    const qreal basePoints = view->font().pointSizeF();

    chat->input()->setFocus();
    QTest::keyClick(chat->input(), Qt::Key_Equal, Qt::ControlModifier);
    QTest::keyClick(chat->input(), Qt::Key_Plus, Qt::ControlModifier);
    QTest::keyClick(chat->input(), Qt::Key_Plus, Qt::ControlModifier);
    QCOMPARE(chat->zoomPercent(), 130);
    QCOMPARE(view->font().pointSizeF(), basePoints * 1.3);
    QCOMPARE(chat->input()->font().pointSizeF(), basePoints * 1.3);
    QTRY_VERIFY2(view->visualRect(reply).height() > before * 1.2,
                 qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(view->visualRect(reply).height())));
    QTRY_VERIFY(chat->spinner()->notification().contains(QStringLiteral("130%")));
    QTRY_VERIFY(readSettingsJson().contains("\"zoom_percent\": 130"));

    // Ctrl+wheel, one notch down; then Actual Size.
    QWheelEvent wheel(QPointF(20, 20), view->viewport()->mapToGlobal(QPointF(20, 20)), QPoint(),
                      QPoint(0, -120), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view->viewport(), &wheel);
    QCOMPARE(chat->zoomPercent(), 120);
    QTest::keyClick(chat->input(), Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(chat->zoomPercent(), 100);
    QCOMPARE(view->font().pointSizeF(), basePoints);
    QTRY_COMPARE(view->visualRect(reply).height(), before);
    QTRY_VERIFY(!readSettingsJson().contains("zoom_percent")); // the default is not written

    // Bounded: 50% to 200%, and the menu says when the end is reached.
    for (int i = 0; i < 20; ++i)
        QTest::keyClick(chat->input(), Qt::Key_Minus, Qt::ControlModifier);
    QCOMPARE(chat->zoomPercent(), 50);
    QVERIFY(!chat->zoomOutAction()->isEnabled());
    QVERIFY(chat->zoomInAction()->isEnabled());
}

void TestMainWindow::shiftTabCyclesTheMode()
{
    auto *mode = m_window->findChild<QComboBox *>(QStringLiteral("modeCombo"));
    QCOMPARE(m_window->session()->mode(), AgentMode::Build);
    m_window->chatPanel()->input()->setFocus();
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Backtab, Qt::ShiftModifier);
    QCOMPARE(m_window->session()->mode(), AgentMode::Plan);
    QCOMPARE(mode->currentText(), QStringLiteral("plan"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Backtab, Qt::ShiftModifier);
    QCOMPARE(m_window->session()->mode(), AgentMode::Yolo);
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Backtab, Qt::ShiftModifier);
    QCOMPARE(m_window->session()->mode(), AgentMode::Build);
    // The menu names the keys pressed (found trying the window: it read "Shift+Backtab").
    auto *action = m_window->findChild<QAction *>(QStringLiteral("cycleModeAction"));
    QVERIFY2(action->text().endsWith(QStringLiteral("\tShift+Tab")), qPrintable(action->text()));
}

void TestMainWindow::statusBarShowsWorkspaceModelAndTokens()
{
    auto *workspace = m_window->findChild<QLabel *>(QStringLiteral("workspaceLabel"));
    auto *model = m_window->findChild<QLabel *>(QStringLiteral("modelLabel"));
    auto *tokens = m_window->findChild<QLabel *>(QStringLiteral("tokensLabel"));
    QVERIFY(workspace && model && tokens);
    QVERIFY(workspace->text().contains(QStringLiteral("project")));
    QVERIFY(model->text().contains(QStringLiteral("anthropic/claude-fable-5-1")));
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{75000, 3400, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("hi"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    QTRY_COMPARE(tokens->text(), QStringLiteral("75k ↑ / 3.4k ↓"));
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    QCOMPARE(meter->text(), QStringLiteral("75.0%"));
    // 75% >= 70%: the suggestion to compact shows.
    QVERIFY(m_window->findChild<QToolButton *>(QStringLiteral("compactSuggestion"))->isVisible());
}

void TestMainWindow::contextMeterColoursAndThreshold()
{
    ContextMeter meter;
    meter.setContextWindow(200000);
    QCOMPARE(meter.text(), QStringLiteral("0.0%"));
    meter.setInputTokens(25000);
    QCOMPARE(meter.text(), QStringLiteral("12.5%"));
    QCOMPARE(meter.level(), ContextMeter::Level::Normal);
    QVERIFY(!meter.suggestsCompaction());
    meter.setInputTokens(140000);
    QVERIFY(meter.suggestsCompaction());
    meter.setInputTokens(160000);
    QCOMPARE(meter.level(), ContextMeter::Level::Warning);
    meter.setInputTokens(190000);
    QCOMPARE(meter.level(), ContextMeter::Level::Critical);
    // S2, S3: budget = 200000 - max(4096, 10000) = 190000; threshold = 171000.
    QCOMPARE(TokenFormat::inputBudget(200000), qint64(190000));
    QCOMPARE(TokenFormat::autoCompactionThreshold(200000), qint64(171000));
    QCOMPARE(TokenFormat::inputBudget(32000), qint64(32000 - 4096));
    QCOMPARE(meter.thresholdFraction(), 0.855);
    // Found trying the window: a history at 291% of the window showed "~100.0%". It says how far over it is.
    meter.setInputTokens(582000, true);
    QCOMPARE(meter.text(), QStringLiteral("~291.0%"));
    QCOMPARE(meter.level(), ContextMeter::Level::Critical);
    QVERIFY2(meter.toolTip().contains(QStringLiteral("Over the context window")),
             qPrintable(meter.toolTip()));
    // Found when tried: after pasting a long log, "~3277.02%" showed as "~3277.0" in a width made for
    // "100.00%". The meter asks for the width of what it shows.
    const int usual = meter.sizeHint().width();
    meter.setInputTokens(6554040, true);
    QCOMPARE(meter.text(), QStringLiteral("~3277.02%"));
    QVERIFY(meter.sizeHint().width() >=
            ContextMeter::TextLeft + meter.fontMetrics().horizontalAdvance(meter.text()));
    QVERIFY(meter.sizeHint().width() > usual);
    meter.setInputTokens(2000);
    QCOMPARE(meter.sizeHint().width(), usual); // back to the usual width
    meter.setContextWindow(0);
    QCOMPARE(meter.text(), QStringLiteral("N/A"));
}

void TestMainWindow::tokenFormats()
{
    QCOMPARE(TokenFormat::compact(999), QStringLiteral("999"));
    QCOMPARE(TokenFormat::compact(1200), QStringLiteral("1.2k"));
    QCOMPARE(TokenFormat::compact(3400000), QStringLiteral("3.4M"));
    QCOMPARE(TokenFormat::percent(12.5), QStringLiteral("12.5%"));
    QCOMPARE(TokenFormat::elapsed(12000), QStringLiteral("12s"));
    QCOMPARE(TokenFormat::elapsed(184000), QStringLiteral("3m 04s"));
}

// proves the Stop rule (reference 6.3: Stop interrupts the parent turn)
void TestMainWindow::stopInterruptsTheTurn()
{
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Working")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("go"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    auto *stop = m_window->findChild<QAction *>(QStringLiteral("stopAction"));
    QTRY_VERIFY(stop->isEnabled());
    stop->trigger();
    QTRY_VERIFY(!m_window->session()->isBusy());
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(
        QStringLiteral("Interrupted...what should the agent do instead?")));
}

// File > Export Conversation (Ctrl+E) saves the conversation in the window, also with the sidebar (whose More
// menu exports the session selected there) hidden: found when tried, export was only in the sidebar.
void TestMainWindow::fileExportSavesTheConversationInTheWindow()
{
    auto *exportAction = m_window->findChild<QAction *>(QStringLiteral("exportConversationAction"));
    QVERIFY(exportAction);
    QVERIFY(!exportAction->isEnabled()); // nothing saved yet
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Here is the answer.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("Explain the parser"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    QTRY_VERIFY(exportAction->isEnabled());
    auto *sidebar = m_window->findChild<QAction *>(QStringLiteral("sessionsAction"));
    if (sidebar->isChecked())
        sidebar->trigger();
    QVERIFY(!sidebar->isChecked());

    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_E, Qt::ControlModifier);
    QFileDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<QFileDialog *>(QStringLiteral("exportSessionDialog"))));
    QCOMPARE(dialog->acceptMode(), QFileDialog::AcceptSave);
    const QString target = m_env.path(QStringLiteral("exported-from-file-menu.md"));
    dialog->selectFile(target);
    QMetaObject::invokeMethod(dialog, &QDialog::accept);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_window->statusBar()->currentMessage().startsWith(QStringLiteral("Exported to ")), 5000);
    QFile file(target);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString markdown = QString::fromUtf8(file.readAll());
    QVERIFY2(markdown.startsWith(QStringLiteral("# Explain the parser")), qPrintable(markdown));
    QVERIFY(markdown.contains(QStringLiteral("Here is the answer.")));
}

void TestMainWindow::compactButtonStartsACompaction()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Hello.")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("hi"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nGreet.")),
                       ScriptedLlmClient::gate(QStringLiteral("g")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    auto *compact = m_window->findChild<QAction *>(QStringLiteral("compactAction"));
    QVERIFY(compact->isEnabled());
    compact->trigger();
    QTRY_COMPARE(m_window->session()->compactionMode(), AgentSession::CompactionMode::Manual);
    // Ctrl+C is ignored during a manual compaction (reference 4.2).
    auto *stop = m_window->findChild<QAction *>(QStringLiteral("stopAction"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(m_window->session()->compactionMode(), AgentSession::CompactionMode::Manual);
    QVERIFY(stop->isEnabled());
    // Had Ctrl+C cancelled the compaction, it would end "Compaction cancelled." instead of applying.
    m_client->open(QStringLiteral("g"));
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("✓ Context compacted.")));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QCOMPARE(stop->text(), QStringLiteral("&Stop"));
    QCOMPARE(stop->shortcut(), QKeySequence(QStringLiteral("Ctrl+C")));
}

// Found trying the window: during a manual compaction the Stop button looked enabled and did nothing. It
// reads Cancel Compaction then (its Ctrl+C shortcut off, as the key is ignored) and cancels as Esc does.
void TestMainWindow::stopButtonCancelsAManualCompaction()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Hello.")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("hi"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    const MessageList before = m_window->session()->messages();
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nGre")),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_window->findChild<QAction *>(QStringLiteral("compactAction"))->trigger();
    QTRY_COMPARE(m_window->session()->compactionMode(), AgentSession::CompactionMode::Manual);
    // The partial summary is shown before Stop (without it, the row says only that nothing changed).
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("## Goal\nGre")));
    auto *stop = m_window->findChild<QAction *>(QStringLiteral("stopAction"));
    QCOMPARE(stop->text(), QStringLiteral("&Cancel Compaction"));
    QVERIFY(stop->shortcut().isEmpty());
    QVERIFY(stop->isEnabled());
    stop->trigger();
    QTRY_VERIFY(!m_window->session()->isBusy());
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral(
        "Compaction cancelled. The conversation is unchanged; summary text above was not applied.")));
    QCOMPARE(m_window->session()->messages(), before);
    QCOMPARE(stop->text(), QStringLiteral("&Stop"));
    QCOMPARE(stop->shortcut(), QKeySequence(QStringLiteral("Ctrl+C")));
}

// Issue 16 point 2: Conversation > Undo Compaction is enabled once a compaction is in effect and undoes it;
// afterwards there is nothing left to undo.
void TestMainWindow::conversationMenuUndoesTheLatestCompaction()
{
    auto *undo = m_window->findChild<QAction *>(QStringLiteral("undoCompactionAction"));
    QVERIFY(undo);
    QVERIFY(!undo->isEnabled());
    bool inConversationMenu = false;
    for (QAction *menuAction : m_window->menuBar()->actions()) {
        if (menuAction->menu() &&
            menuAction->text().remove(QLatin1Char('&')) == QStringLiteral("Conversation"))
            inConversationMenu = menuAction->menu()->actions().contains(undo);
    }
    QVERIFY(inConversationMenu);
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Hello.")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("hi"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    QVERIFY(!undo->isEnabled());
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("## Goal\nGreet.")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_window->findChild<QAction *>(QStringLiteral("compactAction"))->trigger();
    QTRY_VERIFY(!m_window->session()->isBusy());
    QTRY_VERIFY(undo->isEnabled());
    undo->trigger();
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(ChatModel::compactionUndoneText()));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QCOMPARE(m_window->session()->messages().first(), Message::user(QStringLiteral("hi")));
    QTRY_VERIFY(!undo->isEnabled());
}

// Issue 15: after a manual compaction the meter no longer shows the old, long history.
void TestMainWindow::contextMeterUpdatesRightAfterManualCompaction()
{
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{75000, 3400, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::chunk(QStringLiteral("Done with the importer.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("fix the importer"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    auto *suggestion = m_window->findChild<QToolButton *>(QStringLiteral("compactSuggestion"));
    QCOMPARE(meter->text(), QStringLiteral("75.0%"));
    QVERIFY(suggestion->isVisible());

    // The summary request itself reports a large input; that is not the history afterwards either.
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{76000, 300, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::chunk(QStringLiteral("## Goal\nFix the importer.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    m_window->findChild<QAction *>(QStringLiteral("compactAction"))->trigger();
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("✓ Context compacted.")));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QVERIFY2(meter->text().startsWith(QLatin1Char('~')), qPrintable(meter->text()));
    QVERIFY(meter->isEstimated());
    QVERIFY2(meter->percent() > 0 && meter->percent() < 10, qPrintable(meter->text()));
    QVERIFY(!suggestion->isVisible());
    QVERIFY(meter->toolTip().contains(QStringLiteral("Estimated")));
}

// Issue 15: a long first reply interrupted before the provider reported usage left the meter at 0.0% (the
// same session reopened showed ~13%); with no report the meter estimates the history it now holds.
void TestMainWindow::contextMeterEstimatesAfterAnInterruptedFirstTurn()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Paragraph of a long answer.\n\n").repeated(3000)),
         ScriptedLlmClient::gate(QStringLiteral("never"))});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("write a long answer"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("Paragraph of a long")));
    m_window->session()->interrupt();
    QTRY_VERIFY(!m_window->session()->isBusy());
    QVERIFY(!m_window->session()->lastUsage());
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    QTRY_VERIFY2(meter->percent() > 10, qPrintable(meter->text())); // ~29,000 tokens of a 100,000 window
    QVERIFY(meter->isEstimated());
}

// Issue 15: an automatic compaction inside a turn updates the meter at once, not at the turn's end.
void TestMainWindow::contextMeterUpdatesRightAfterAutomaticCompaction()
{
    const MessageList replacement{Message::system(QStringLiteral("system")),
                                  Message::user(QStringLiteral("Summary: the importer is being fixed."))};
    m_client->addTurn(
        {ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{82000, 900, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::chunk(QStringLiteral("Reading the importer.")),
         ScriptedLlmClient::gate(QStringLiteral("before")), ScriptedLlmClient::autoCompaction(replacement),
         ScriptedLlmClient::gate(QStringLiteral("after")),
         ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{6000, 200, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::chunk(QStringLiteral("Fixed.")), ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("fix the importer"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    auto *meter = m_window->findChild<ContextMeter *>(QStringLiteral("contextMeter"));
    auto *suggestion = m_window->findChild<QToolButton *>(QStringLiteral("compactSuggestion"));
    QTRY_COMPARE(meter->text(), QStringLiteral("82.0%"));
    QVERIFY(suggestion->isVisible());
    m_client->open(QStringLiteral("before"));
    // Still inside the turn: the compacted history is estimated right away.
    QTRY_VERIFY2(meter->isEstimated(), qPrintable(meter->text()));
    QVERIFY(m_window->session()->isBusy());
    QVERIFY2(meter->percent() > 0 && meter->percent() < 5, qPrintable(meter->text()));
    QVERIFY(meter->text().startsWith(QLatin1Char('~')));
    QVERIFY(!suggestion->isVisible());
    m_client->open(QStringLiteral("after"));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QCOMPARE(meter->text(), QStringLiteral("6.0%")); // the provider's report replaces the estimate
    QVERIFY(!meter->isEstimated());
}

// The reviewer of /adversary model too (adversary_provider, adversary_model).
void TestMainWindow::showThinkingAndToolHistoryLiveInSettingsJson()
{
    QSettings().clear();
    auto *showThinking = m_window->findChild<QAction *>(QStringLiteral("showThinkingAction"));
    QVERIFY(showThinking->isChecked());
    showThinking->trigger();
    QVERIFY(!m_window->chatPanel()->showThinking());
    auto settings = Settings::load();
    QVERIFY2(settings.ok(), qPrintable(settings.error()));
    QVERIFY(!settings->showThinking);

    m_window->chatPanel()->runCommand(QStringLiteral("/tool-history full"));
    QVERIFY(m_window->session()->toolHistoryFull());
    settings = Settings::load();
    QCOMPARE(settings->toolHistory, Settings::ToolHistory::Full);
    m_window->chatPanel()->runCommand(QStringLiteral("/adversary model openai/gpt-5.5"));
    settings = Settings::load();
    QCOMPARE(settings->adversaryProvider, QStringLiteral("openai"));
    QCOMPARE(settings->adversaryModel, QStringLiteral("gpt-5.5"));
    // Nothing of it in QSettings.
    QVERIFY(QSettings().allKeys().filter(QStringLiteral("hinking")).isEmpty());

    // A new window starts from settings.json.
    m_window.reset();
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    m_window = std::make_unique<MainWindow>(options);
    QVERIFY(!m_window->chatPanel()->showThinking());
    QVERIFY(!m_window->findChild<QAction *>(QStringLiteral("showThinkingAction"))->isChecked());
    QVERIFY(m_window->session()->toolHistoryFull());
    QCOMPARE(m_window->session()->reviewerModel(), QStringLiteral("openai/gpt-5.5"));
    m_window->chatPanel()->runCommand(QStringLiteral("/show-thinking on"));
    m_window->chatPanel()->runCommand(QStringLiteral("/tool-history none"));
    settings = Settings::load();
    QVERIFY(settings->showThinking);
    QCOMPARE(settings->toolHistory, Settings::ToolHistory::None);
}

void TestMainWindow::colorSchemeCanBeForcedAndCodeFollowsIt()
{
    // A reply with a code block, so the transcript has something palette-dependent to show.
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Use:\n\n```cpp\nreturn 1;\n```\n")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    QTest::keyClicks(m_window->chatPanel()->input(), QStringLiteral("how?"));
    QTest::keyClick(m_window->chatPanel()->input(), Qt::Key_Return);
    QTRY_VERIFY(!m_window->session()->isBusy());
    // What a person sees: the transcript's pixels in the code block's background colour.
    auto pixelsOf = [this](const QColor &color) {
        const QImage shot = m_window->chatPanel()->view()->viewport()->grab().toImage();
        int count = 0;
        for (int y = 0; y < shot.height(); ++y) {
            for (int x = 0; x < shot.width(); ++x) {
                if (shot.pixel(x, y) == color.rgb())
                    ++count;
            }
        }
        return count;
    };
    QVERIFY(!AppPalette::isDark(QApplication::palette()));
    const QColor lightCode = ChatColors::codeBlockBackground(QApplication::palette());
    const QColor darkCode = ChatColors::codeBlockBackground(AppPalette::dark());
    QVERIFY(lightCode != darkCode);
    // A code block fills hundreds of pixels; a few antialiased text pixels may match the other colour.
    QTRY_VERIFY2(pixelsOf(lightCode) > 200, qPrintable(QString::number(pixelsOf(lightCode))));
    QVERIFY(pixelsOf(darkCode) < 50);

    auto *menu = m_window->menuBar()->findChild<QMenu *>(QStringLiteral("colorSchemeMenu"));
    QVERIFY(menu);
    auto *dark = m_window->findChild<QAction *>(QStringLiteral("colorSchemeDarkAction"));
    QVERIFY(menu->actions().contains(dark));
    dark->trigger();
    QVERIFY(AppPalette::isDark(QApplication::palette()));
    QTRY_VERIFY(AppPalette::isDark(m_window->chatPanel()->view()->palette()));
    QTRY_VERIFY(pixelsOf(darkCode) > 200);
    QVERIFY(pixelsOf(lightCode) < 50);
    QCOMPARE(Settings::load()->colorScheme, Settings::ColorScheme::Dark);
    // Bundled icons are redrawn in the dark palette's light ink.
    const QImage icon =
        m_window->findChild<QAction *>(QStringLiteral("newSessionAction"))->icon().pixmap(24, 24).toImage();
    int lightInk = 0;
    for (int y = 0; y < icon.height(); ++y)
        for (int x = 0; x < icon.width(); ++x)
            if (qAlpha(icon.pixel(x, y)) > 200 && QColor(icon.pixel(x, y)).lightness() > 180)
                ++lightInk;
    QVERIFY2(lightInk > 10, qPrintable(QString::number(lightInk)));

    m_window->findChild<QAction *>(QStringLiteral("colorSchemeLightAction"))->trigger();
    QVERIFY(!AppPalette::isDark(QApplication::palette()));
    QTRY_VERIFY(pixelsOf(lightCode) > 200);
    QVERIFY(pixelsOf(darkCode) < 50);
    m_window->findChild<QAction *>(QStringLiteral("colorSchemeSystemAction"))->trigger();
    QCOMPARE(Settings::load()->colorScheme, Settings::ColorScheme::System);
    QVERIFY(!AppPalette::isDark(QApplication::palette())); // the offscreen platform is light
}

// "Follow the System": the freedesktop appearance portal's color-scheme (1 dark, 2 light) and its changes.
void TestMainWindow::colorSchemeFollowsTheDesktop()
{
    ColorSchemeController *controller = m_window->colorScheme();
    QCOMPARE(controller->scheme(), Settings::ColorScheme::System);
    QVERIFY(!AppPalette::isDark(QApplication::palette()));
    auto portalSays = [controller](uint scheme) {
        QVERIFY(QMetaObject::invokeMethod(controller, "onPortalSettingChanged",
                                          Q_ARG(QString, QStringLiteral("org.freedesktop.appearance")),
                                          Q_ARG(QString, QStringLiteral("color-scheme")),
                                          Q_ARG(QDBusVariant, QDBusVariant(scheme))));
    };
    portalSays(1);
    QVERIFY(AppPalette::isDark(QApplication::palette()));
    QTRY_VERIFY(AppPalette::isDark(m_window->chatPanel()->view()->palette()));
    portalSays(2);
    QVERIFY(!AppPalette::isDark(QApplication::palette()));
    // A forced scheme wins over the desktop's.
    m_window->findChild<QAction *>(QStringLiteral("colorSchemeLightAction"))->trigger();
    portalSays(1);
    QVERIFY(!AppPalette::isDark(QApplication::palette()));
    m_window->findChild<QAction *>(QStringLiteral("colorSchemeSystemAction"))->trigger();
    QVERIFY(AppPalette::isDark(QApplication::palette())); // the desktop still says dark
    portalSays(0);                                        // no preference: the platform's own palette
    QVERIFY(!AppPalette::isDark(QApplication::palette()));
}

void TestMainWindow::toolbarAndMenuActionsHaveIcons()
{
    auto *bar = m_window->findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    QVERIFY(bar);
    QCOMPARE(bar->toolButtonStyle(), Qt::ToolButtonTextBesideIcon);
    for (const QString &name :
         {QStringLiteral("sessionsAction"), QStringLiteral("newSessionAction"),
          QStringLiteral("compactAction"), QStringLiteral("stopAction"), QStringLiteral("settingsAction"),
          QStringLiteral("openFolderAction"), QStringLiteral("quitAction"), QStringLiteral("aboutAction"),
          QStringLiteral("helpAction"), QStringLiteral("exportConversationAction")}) {
        auto *action = m_window->findChild<QAction *>(name);
        QVERIFY2(action, qPrintable(name));
        QVERIFY2(!action->icon().isNull(), qPrintable(name));
        QVERIFY2(!action->icon().pixmap(22, 22).isNull(), qPrintable(name));
    }
    // The menus' other actions with a freedesktop name (found missing by a read against issue 15).
    ChatPanel *chat = m_window->chatPanel();
    for (QAction *action : {m_window->findChild<QAction *>(QStringLiteral("undoCompactionAction")),
                            chat->findAction(), chat->findNextAction(), chat->findPreviousAction(),
                            chat->zoomInAction(), chat->zoomOutAction(), chat->zoomResetAction()}) {
        QVERIFY(action);
        QVERIFY2(!action->icon().isNull(), qPrintable(action->text()));
        QVERIFY2(!action->icon().pixmap(16, 16).isNull(), qPrintable(action->text()));
    }
    // Every name has its bundled fallback, for desktops whose icon theme lacks it.
    for (const QString &name : Icons::names())
        QVERIFY2(!Icons::bundled(name, m_window->palette()).isNull(), qPrintable(name));
}

// The key is looked up off the GUI thread (here a slow api_key_helper). A model and a thinking effort chosen
// before it arrives stay chosen; they used to be replaced by the settings file's values when the key came in.
void TestMainWindow::changesMadeBeforeTheKeyArrivesAreKept()
{
    Settings settings;
    settings.providers[QStringLiteral("anthropic")].apiKeyHelper = QStringLiteral("sleep 1; echo helper-key");
    QVERIFY(settings.save());
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    LaunchOptions options;
    options.provider = QStringLiteral("anthropic");
    options.model = QStringLiteral("claude-fable-5-1");
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    ClientConfig chosen = window.session()->clientConfig();
    QVERIFY(chosen.apiKey.isEmpty());
    chosen.model = QStringLiteral("claude-fable-5");
    chosen.thinkingEffort = QStringLiteral("high");
    window.applyClientConfig(chosen);
    window.show();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->clientConfig().apiKey, QStringLiteral("helper-key"), 10000);
    QCOMPARE(window.session()->clientConfig().model, QStringLiteral("claude-fable-5"));
    QCOMPARE(window.session()->clientConfig().thinkingEffort, QStringLiteral("high"));
    auto *modelLabel = window.findChild<QLabel *>(QStringLiteral("modelLabel"));
    QVERIFY(modelLabel);
    QVERIFY2(modelLabel->text().contains(QStringLiteral("thinking: high")), qPrintable(modelLabel->text()));
}

// A person who chose Ollama sees "Ollama" in the window, and the settings dialog saves "ollama" back (it
// used to show and save "openai-compatible", losing the preset's name and endpoint).
void TestMainWindow::presetProviderKeepsItsNameInTheWindowAndSettings()
{
    Settings settings;
    settings.activeProvider = QStringLiteral("ollama");
    settings.activeModel = QStringLiteral("qwen3-coder");
    QVERIFY(settings.save());
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    QCOMPARE(window.session()->clientConfig().providerId, QStringLiteral("ollama"));
    QCOMPARE(window.findChild<QComboBox *>(QStringLiteral("providerCombo"))->currentText(),
             QStringLiteral("Ollama"));
    QVERIFY(window.findChild<QLabel *>(QStringLiteral("modelLabel"))
                ->text()
                .startsWith(QStringLiteral("ollama/qwen3-coder")));

    window.showSettings();
    SettingsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = window.findChild<SettingsDialog *>()) && dialog->isVisible());
    QCOMPARE(dialog->findChild<QComboBox *>(QStringLiteral("settingsProvider"))->currentText(),
             QStringLiteral("Ollama"));
    QTest::keyClick(dialog, Qt::Key_Return);
    // The save runs off the GUI thread; the file had no "providers" entry before.
    QTRY_VERIFY(Settings::load()->providers.contains(QStringLiteral("ollama")));
    const Result<Settings> saved = Settings::load();
    QCOMPARE(saved->activeProvider, QStringLiteral("ollama"));
    QCOMPARE(saved->activeModel, QStringLiteral("qwen3-coder"));
    QCOMPARE(saved->provider(QStringLiteral("ollama")).baseUrl, QStringLiteral("http://localhost:11434/v1"));
    QVERIFY(!saved->providers.contains(QStringLiteral("openai-compatible")));
}

// issue 14: a hand-edited settings.json with one bad key: the window says which file and key, uses the valid
// keys and the defaults for the rest, and a later change of a setting never writes over the file.
void TestMainWindow::damagedSettingsAreNamedInTheWindowAndKept()
{
    const QByteArray edited =
        R"({"active_provider": "ollama", "active_model": "qwen3-coder", "show_thinking": "yes"})";
    SettingsWriter::waitForWrites(); // the test window's own changes are written before the hand edit
    {
        QDir().mkpath(QFileInfo(Settings::defaultPath()).path());
        QFile file(Settings::defaultPath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(edited);
    }
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    const QString shown = window.chatPanel()->model()->plainText();
    QVERIFY2(shown.contains(Settings::defaultPath()) && shown.contains(QStringLiteral("\"show_thinking\"")),
             qPrintable(shown));
    QCOMPARE(window.session()->clientConfig().providerId, QStringLiteral("ollama"));
    QCOMPARE(window.session()->clientConfig().model, QStringLiteral("qwen3-coder"));

    window.chatPanel()->runCommand(QStringLiteral("/show-thinking off"));
    SettingsWriter::waitForWrites(); // the attempt to write is over
    QFile file(Settings::defaultPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), edited);
}

// Issue 15: after an automatic compaction that had to fit a huge tool call, the notification ("Context
// compacted automatically (summarised in 3 parts; 1 long output cut by 6,009,769 characters).") made the
// window wider and squeezed the sidebar; the spinner line now elides its texts, showing the whole of them as
// a tooltip.
void TestMainWindow::aLongNotificationDoesNotWidenTheWindow()
{
    m_window->resize(900, 600);
    QTRY_COMPARE(m_window->width(), 900);
    auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("sessionBrowserDock"));
    QVERIFY(dock);
    const int sidebar = dock->width();
    const QString longText = QStringLiteral("Context compacted automatically (summarised in 3 parts; ") +
                             QStringLiteral("1 long output cut by 6,009,769 characters). ").repeated(6);
    SpinnerLine *spinner = m_window->chatPanel()->spinner();
    spinner->showNotification(longText);
    spinner->setCompacting(true);
    for (int i = 0; i < 3; ++i) { // the layout requests the new sizes in posted events
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
    }
    QCOMPARE(m_window->width(), 900);
    QCOMPARE(dock->width(), sidebar);
    QCOMPARE(spinner->notification(), longText); // the whole text, though the line shows it elided
    auto *label = spinner->findChild<ElidingLabel *>(QStringLiteral("notificationLabel"));
    QVERIFY(label);
    QVERIFY(label->isElided());
    QHelpEvent hover(QEvent::ToolTip, label->rect().center(), label->mapToGlobal(label->rect().center()));
    QCoreApplication::sendEvent(label, &hover);
    QTRY_COMPARE(QToolTip::text(), longText);
}

// Tried as a user: a fresh setup of an OpenAI-compatible server without a model, then `fake-model` typed into
// the toolbar's Model box and Enter: the prompt still failed with "no model is set for provider
// openai-compatible", the status bar said "openai-compatible/" and settings.json kept no model. With a model
// set, `other-model` typed there and Tab still sent the old one. A typed and confirmed name is now the model
// of the status bar, the next request and settings.json (where the server's models are listed too).
void TestMainWindow::modelTypedInTheToolbarIsUsedAtOnceAndSaved()
{
    FakeProviderServer server;
    const QString baseUrl = server.baseUrl().toString() + QStringLiteral("/v1");
    Settings settings; // what the first-run setup saved
    settings.activeProvider = QStringLiteral("openai-compatible");
    settings.providers[QStringLiteral("openai-compatible")].baseUrl = baseUrl;
    QVERIFY(settings.save());
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    options.provider = QStringLiteral("anthropic"); // no wizard in a test: the setup's result applied below
    options.model = QStringLiteral("claude-fable-5-1");
    MainWindow window(options);
    ClientConfig setUp;
    setUp.providerId = QStringLiteral("openai-compatible");
    setUp.baseUrl = baseUrl;
    window.applyClientConfig(setUp);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto *box = window.findChild<QComboBox *>(QStringLiteral("modelCombo"));
    auto *status = window.findChild<QLabel *>(QStringLiteral("modelLabel"));
    QVERIFY(box && status);
    QCOMPARE(status->text(), QStringLiteral("openai-compatible/"));

    typeIntoModelBox(box, QStringLiteral("fake-model"));
    QTest::keyClick(box->lineEdit(), Qt::Key_Return);
    QCOMPARE(status->text(), QStringLiteral("openai-compatible/fake-model"));
    Result<Settings> saved = Settings::load();
    QVERIFY(saved);
    QCOMPARE(saved->activeProvider, QStringLiteral("openai-compatible"));
    QCOMPARE(saved->activeModel, QStringLiteral("fake-model"));
    QCOMPARE(saved->provider(QStringLiteral("openai-compatible")).models,
             QStringList{QStringLiteral("fake-model")});
    QCOMPARE(saved->provider(QStringLiteral("openai-compatible")).baseUrl, baseUrl);

    server.enqueueFixture(QStringLiteral("openai-chat/text-include-usage.sse"));
    send(window, QStringLiteral("hello"));
    QVERIFY(server.waitForRequests(1));
    QCOMPARE(server.lastRequest().json[QStringLiteral("model")].toString(), QStringLiteral("fake-model"));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !window.session()->isBusy(); }));
    QVERIFY2(!window.chatPanel()->model()->plainText().contains(QStringLiteral("no model is set")),
             qPrintable(window.chatPanel()->model()->plainText()));

    // Another name, confirmed by leaving the box (Tab): the next request uses it.
    typeIntoModelBox(box, QStringLiteral("other-model"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QVERIFY(!box->hasFocus());
    QCOMPARE(status->text(), QStringLiteral("openai-compatible/other-model"));
    saved = Settings::load();
    QCOMPARE(saved->activeModel, QStringLiteral("other-model"));
    QCOMPARE(saved->provider(QStringLiteral("openai-compatible")).models,
             (QStringList{QStringLiteral("fake-model"), QStringLiteral("other-model")}));
    // Both are offered in the box's list from now on.
    QCOMPARE(box->count(), 2);
    QCOMPARE(box->itemText(0), QStringLiteral("fake-model"));
    server.enqueueFixture(QStringLiteral("openai-chat/text-include-usage.sse"));
    send(window, QStringLiteral("again"));
    QVERIFY(server.waitForRequests(2));
    QCOMPARE(server.lastRequest().json[QStringLiteral("model")].toString(), QStringLiteral("other-model"));
    QVERIFY(FakeProviderServer::spinUntil([&] { return !window.session()->isBusy(); }));

    // Chosen from the list: the first one again.
    box->setFocus();
    QTest::keyClick(box, Qt::Key_Up);
    QCOMPARE(box->currentText(), QStringLiteral("fake-model"));
    QCOMPARE(status->text(), QStringLiteral("openai-compatible/fake-model"));
    QCOMPARE(Settings::load()->activeModel, QStringLiteral("fake-model"));
}

// An empty or blank name is not a model: the box shows the model in use again and nothing changes.
void TestMainWindow::emptyModelNameInTheToolbarIsRefused()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    auto *box = m_window->findChild<QComboBox *>(QStringLiteral("modelCombo"));
    auto *status = m_window->findChild<QLabel *>(QStringLiteral("modelLabel"));
    for (const QString &blank : {QString(), QStringLiteral("   ")}) {
        typeIntoModelBox(box, blank);
        QTest::keyClick(box->lineEdit(), Qt::Key_Return);
        QCOMPARE(box->currentText(), QStringLiteral("claude-fable-5-1"));
        QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-fable-5-1"));
        QVERIFY(status->text().startsWith(QStringLiteral("anthropic/claude-fable-5-1")));
        QVERIFY2(m_window->statusBar()->currentMessage().contains(QStringLiteral("needs a name")),
                 qPrintable(m_window->statusBar()->currentMessage()));
    }
    // settings.json has only what the window keeps from its start (the folder), no model.
    QVERIFY(Settings::load()->activeModel.isEmpty());
}

// Tried as a user: "claude-fable-5" typed in the toolbar's Model box and Enter used "claude-fable-5-1", the
// first listed model starting with it (the box completed inline), so that model could not be chosen by
// typing. The typed name is used exactly; a listed model can still be picked from the completions.
void TestMainWindow::modelTypedInTheToolbarIsUsedExactlyEvenWhenAListedOneStartsWithIt()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    auto *box = m_window->findChild<QComboBox *>(QStringLiteral("modelCombo"));
    QCOMPARE(box->itemText(0), QStringLiteral("claude-fable-5-1"));
    QAbstractItemView *popup = box->completer()->popup();
    typeIntoModelBox(box, QStringLiteral("claude-fable-5"));
    QCOMPARE(box->currentText(), QStringLiteral("claude-fable-5"));
    // The listed names starting with it are offered below the box, which has the keyboard then.
    QVERIFY(popup->isVisible());
    QTest::keyClick(popup, Qt::Key_Return);
    QVERIFY(!popup->isVisible());
    QCOMPARE(box->currentText(), QStringLiteral("claude-fable-5"));
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-fable-5"));
    QCOMPARE(Settings::load()->activeModel, QStringLiteral("claude-fable-5"));

    // Picked from the completions of what was typed: Down and Enter take the first match.
    typeIntoModelBox(box, QStringLiteral("claude-son"));
    QVERIFY(popup->isVisible());
    QTest::keyClick(popup, Qt::Key_Down);
    QTest::keyClick(popup, Qt::Key_Return);
    QCOMPARE(box->currentText(), QStringLiteral("claude-sonnet-5"));
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-sonnet-5"));
    QCOMPARE(Settings::load()->activeModel, QStringLiteral("claude-sonnet-5"));
}

// Tried as a user: "other" typed in the toolbar's Model box, Esc (twice: once for the completions) left
// "other" in the box, and clicking into the prompt then made it the model in use and wrote it to
// settings.json. Esc abandons the typing: the box shows the model in use, the prompt has the keyboard, and
// nothing changes.
void TestMainWindow::escInTheToolbarModelBoxAbandonsWhatWasTyped()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    auto *box = m_window->findChild<QComboBox *>(QStringLiteral("modelCombo"));
    QAbstractItemView *popup = box->completer()->popup();
    // A name no listed model starts with: no completions, Esc goes to the box at once.
    typeIntoModelBox(box, QStringLiteral("other"));
    QVERIFY(!popup->isVisible());
    QTest::keyClick(box->lineEdit(), Qt::Key_Escape);
    QCOMPARE(box->currentText(), QStringLiteral("claude-fable-5-1"));
    QTRY_VERIFY(m_window->chatPanel()->input()->hasFocus());
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-fable-5-1"));
    QVERIFY(Settings::load()->activeModel.isEmpty());

    // With completions shown, the first Esc closes them and the second abandons the typing.
    typeIntoModelBox(box, QStringLiteral("claude-son"));
    QVERIFY(popup->isVisible());
    QTest::keyClick(popup, Qt::Key_Escape);
    QVERIFY(!popup->isVisible());
    QCOMPARE(box->currentText(), QStringLiteral("claude-son"));
    QTest::keyClick(box->lineEdit(), Qt::Key_Escape);
    QCOMPARE(box->currentText(), QStringLiteral("claude-fable-5-1"));
    QTRY_VERIFY(m_window->chatPanel()->input()->hasFocus());
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-fable-5-1"));
    QVERIFY(Settings::load()->activeModel.isEmpty());
}

// While a turn runs, a model chosen in the toolbar is taken at once (status bar, settings.json) and the
// status bar says that the running turn finishes with the model it started with; the next turn uses the new
// one.
void TestMainWindow::modelChosenDuringATurnIsUsedFromTheNextTurn()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    QStringList builtFor; // the model of each client the session builds for a request
    m_window->session()->setClientFactory([this, &builtFor](const ClientConfig &config) {
        builtFor << config.model;
        return ScriptedLlmClient::factory(m_client)(config);
    });
    m_client->addTurn({ScriptedLlmClient::gate(QStringLiteral("reply")),
                       ScriptedLlmClient::chunk(QStringLiteral("one")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("two")), ScriptedLlmClient::event(StreamEvent::done())});
    send(*m_window, QStringLiteral("first"));
    QTRY_VERIFY(m_window->session()->isBusy());

    auto *box = m_window->findChild<QComboBox *>(QStringLiteral("modelCombo"));
    typeIntoModelBox(box, QStringLiteral("claude-opus-5"));
    QTest::keyClick(box->lineEdit(), Qt::Key_Return);
    QVERIFY(m_window->findChild<QLabel *>(QStringLiteral("modelLabel"))
                ->text()
                .startsWith(QStringLiteral("anthropic/claude-opus-5")));
    QCOMPARE(m_window->statusBar()->currentMessage(),
             QStringLiteral("anthropic/claude-opus-5 is used from the next turn; the running turn finishes "
                            "with anthropic/claude-fable-5-1."));
    QCOMPARE(Settings::load()->activeModel, QStringLiteral("claude-opus-5"));
    QCOMPARE(builtFor, QStringList{QStringLiteral("claude-fable-5-1")});

    m_client->open(QStringLiteral("reply"));
    QTRY_VERIFY(!m_window->session()->isBusy());
    send(*m_window, QStringLiteral("second"));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QCOMPARE(builtFor, (QStringList{QStringLiteral("claude-fable-5-1"), QStringLiteral("claude-opus-5")}));
}

// Tried as a user: `/model fake-model` ignored its argument and only opened Settings with an empty Model
// field. `/model NAME` now sets the current provider's model; `/model` alone still opens the settings.
void TestMainWindow::slashModelSetsTheModelOfTheCurrentProvider()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    ChatPanel *chat = m_window->chatPanel();
    chat->runCommand(QStringLiteral("/model fake-model"));
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("fake-model"));
    QCOMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("anthropic"));
    QVERIFY(m_window->findChild<QLabel *>(QStringLiteral("modelLabel"))
                ->text()
                .startsWith(QStringLiteral("anthropic/fake-model")));
    QCOMPARE(m_window->findChild<QComboBox *>(QStringLiteral("modelCombo"))->currentText(),
             QStringLiteral("fake-model"));
    QVERIFY(chat->model()->plainText().contains(QStringLiteral("✓ Model: anthropic/fake-model")));
    QCOMPARE(Settings::load()->activeModel, QStringLiteral("fake-model"));
    QVERIFY(!m_window->findChild<SettingsDialog *>());

    // The same provider named: only the model changes. Then /thinking, saved as the reference saves it.
    chat->runCommand(QStringLiteral("/model anthropic/claude-fable-5-1"));
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-fable-5-1"));
    chat->runCommand(QStringLiteral("/thinking high"));
    QCOMPARE(Settings::load()->thinkingEffort, QStringLiteral("high"));

    // /help says how.
    chat->runCommand(QStringLiteral("/help"));
    QVERIFY(chat->model()->plainText().contains(QStringLiteral("/model [name\\|provider/name]")));

    chat->runCommand(QStringLiteral("/model"));
    SettingsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<SettingsDialog *>()) && dialog->isVisible());
    dialog->reject();
}

// `/model PROVIDER/NAME` switches to that provider as settings.json and the environment set it up: its own
// key (never the previous provider's), the status bar and settings.json follow.
void TestMainWindow::slashModelWithAProviderSwitchesToItWithItsOwnKey()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    qputenv("OPENAI_API_KEY", "openai-env-key");
    const auto unset = qScopeGuard([] { qunsetenv("OPENAI_API_KEY"); });
    ChatPanel *chat = m_window->chatPanel();
    chat->runCommand(QStringLiteral("/model openai/gpt-5.5"));
    QTRY_COMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("openai"));
    const ClientConfig config = m_window->session()->clientConfig();
    QCOMPARE(config.model, QStringLiteral("gpt-5.5"));
    QCOMPARE(config.apiKey, QStringLiteral("openai-env-key"));
    QVERIFY(m_window->findChild<QLabel *>(QStringLiteral("modelLabel"))
                ->text()
                .startsWith(QStringLiteral("openai/gpt-5.5")));
    QCOMPARE(m_window->findChild<QComboBox *>(QStringLiteral("providerCombo"))->currentText(),
             QStringLiteral("OpenAI"));
    QVERIFY(chat->model()->plainText().contains(QStringLiteral("✓ Model: openai/gpt-5.5")));
    const Result<Settings> saved = Settings::load();
    QCOMPARE(saved->activeProvider, QStringLiteral("openai"));
    QCOMPARE(saved->activeModel, QStringLiteral("gpt-5.5"));
}

// An unknown provider id is named with the valid ids; a provider that is not set up (here: no key anywhere)
// gets the error the app gives at start for it, and nothing changes.
void TestMainWindow::slashModelRefusesUnknownAndUnreadyProviders()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    qunsetenv("DEEPSEEK_API_KEY");
    const auto restore = qScopeGuard([] { qunsetenv("KEEN_DISABLE_KEYCHAIN"); });
    ChatPanel *chat = m_window->chatPanel();
    chat->runCommand(QStringLiteral("/model nosuch/model-x"));
    const QString shown = chat->model()->plainText();
    QVERIFY2(
        shown.contains(QStringLiteral("Unknown provider \"nosuch\". Valid providers: anthropic, openai, ")),
        qPrintable(shown));
    QVERIFY(shown.contains(QStringLiteral("openai-compatible")));
    QVERIFY(shown.contains(QStringLiteral("/model anthropic/nosuch/model-x")));

    chat->runCommand(QStringLiteral("/model deepseek/deepseek-v4-pro"));
    QTRY_VERIFY(chat->model()->plainText().contains(QStringLiteral("No API key for deepseek.")));
    QVERIFY(chat->model()->plainText().contains(QStringLiteral("DEEPSEEK_API_KEY")));
    chat->runCommand(QStringLiteral("/model openai-compatible/local"));
    QTRY_VERIFY(chat->model()->plainText().contains(
        QStringLiteral("base_url must be configured for provider: openai-compatible")));
    QCOMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("anthropic"));
    QCOMPARE(m_window->session()->clientConfig().model, QStringLiteral("claude-fable-5-1"));
    QVERIFY(Settings::load()->activeProvider.isEmpty());
}

// The toolbar's provider box gave the new provider the previous one's key (the Anthropic key went to
// OpenAI as a Bearer token); it now sets the provider up with its own, or says why it cannot.
void TestMainWindow::toolbarProviderBoxNeverCarriesTheKeyOver()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    qputenv("OPENAI_API_KEY", "openai-env-key");
    const auto unset = qScopeGuard([] { qunsetenv("OPENAI_API_KEY"); });
    auto *providers = m_window->findChild<QComboBox *>(QStringLiteral("providerCombo"));
    QCOMPARE(providers->currentData().toString(), QStringLiteral("anthropic"));
    providers->setFocus();
    QTest::keyClick(providers, Qt::Key_Down); // the next in the table: OpenAI
    QTRY_COMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("openai"));
    QCOMPARE(m_window->session()->clientConfig().apiKey, QStringLiteral("openai-env-key"));
    QVERIFY(!m_window->session()->clientConfig().model.isEmpty());
    QCOMPARE(Settings::load()->activeProvider, QStringLiteral("openai"));
}

// Issue 13: every provider list of the UI comes from the provider table. The toolbar's provider box offers
// the table's providers, in its order, with its names (the settings dialog and the first-run setup:
// tst_settingsdialog).
void TestMainWindow::toolbarProviderBoxListsTheProviderTable()
{
    QStringList tableIds;
    QStringList tableNames;
    for (const ProviderDescriptor &descriptor : ProviderTable::all()) {
        tableIds << descriptor.id;
        tableNames << descriptor.name;
    }
    QVERIFY(tableIds.size() > 1);
    auto *providers = m_window->findChild<QComboBox *>(QStringLiteral("providerCombo"));
    QVERIFY(providers);
    QStringList ids;
    QStringList names;
    for (int i = 0; i < providers->count(); ++i) {
        ids << providers->itemData(i).toString();
        names << providers->itemText(i);
    }
    QCOMPARE(ids, tableIds);
    QCOMPARE(names, tableNames);
    QCOMPARE(providers->currentData().toString(), QStringLiteral("anthropic")); // the window's provider
    QCOMPARE(providers->currentText(), ProviderTable::find(QStringLiteral("anthropic"))->name);
}

namespace {

// The first-run setup of a window without settings.json, once its look for local servers is over (a server
// found would choose itself as the provider); nullptr when it does not show.
SetupWizard *firstRunSetup(const MainWindow &window)
{
    SetupWizard *wizard = nullptr;
    if (!QTest::qWaitFor([&] { return (wizard = window.findChild<SetupWizard *>()) && wizard->isVisible(); }))
        return nullptr;
    auto *status = wizard->findChild<QLabel *>(QStringLiteral("probeStatus"));
    if (!QTest::qWaitFor([status] { return !status->text().startsWith(QStringLiteral("Looking")); }))
        return nullptr;
    return wizard;
}

} // namespace

// A key in the environment lets the first-run setup finish without typing it; the window then uses that key
// (it used to send requests with none).
void TestMainWindow::firstRunSetupUsesTheKeyFromTheEnvironment()
{
    test::removeSettingsFile();
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    SetupWizard *wizard = firstRunSetup(window);
    QVERIFY(wizard);
    auto *provider = wizard->findChild<QComboBox *>(QStringLiteral("setupProvider"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("anthropic")));
    wizard->next();
    QVERIFY(wizard->button(QWizard::FinishButton)->isEnabled()); // ANTHROPIC_API_KEY is set
    QTest::mouseClick(wizard->button(QWizard::FinishButton), Qt::LeftButton);
    QTRY_COMPARE(window.session()->clientConfig().apiKey, QStringLiteral("test-key"));
    QCOMPARE(window.session()->clientConfig().providerId, QStringLiteral("anthropic"));
    QCOMPARE(Settings::load()->activeProvider, QStringLiteral("anthropic"));
}

// Settings > Provider switched to one whose key is not typed: OK is enabled when the key is in its variable
// or in settings.json (api_key_helper), and the window then uses that key (it used to send requests with
// none).
void TestMainWindow::settingsSwitchToAProviderWithItsKeyElsewhereUsesThatKey()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    qunsetenv("DEEPSEEK_API_KEY");
    qputenv("OPENAI_API_KEY", "openai-env-key");
    const auto restore = qScopeGuard([] {
        qunsetenv("KEEN_DISABLE_KEYCHAIN");
        qunsetenv("OPENAI_API_KEY");
    });
    Settings settings;
    ProviderSettings deepseek;
    deepseek.apiKeyHelper = QStringLiteral("echo helper-key");
    settings.providers.insert(QStringLiteral("deepseek"), deepseek);
    QVERIFY(settings.save());

    auto chooseInSettings = [this](const QString &providerId) {
        m_window->showSettings();
        SettingsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<SettingsDialog *>()) && dialog->isVisible());
        auto *provider = dialog->findChild<QComboBox *>(QStringLiteral("settingsProvider"));
        provider->setCurrentIndex(provider->findData(providerId));
        QVERIFY(dialog->findChild<QLineEdit *>(QStringLiteral("settingsApiKey"))->text().isEmpty());
        QTRY_VERIFY2(dialog->missing().isEmpty(), qPrintable(dialog->missing().join(QLatin1Char('\n'))));
        QTest::keyClick(dialog, Qt::Key_Return);
        QTRY_VERIFY(!m_window->findChild<SettingsDialog *>());
    };
    chooseInSettings(QStringLiteral("openai"));
    QTRY_COMPARE(m_window->session()->clientConfig().apiKey, QStringLiteral("openai-env-key"));
    QCOMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("openai"));

    chooseInSettings(QStringLiteral("deepseek"));
    QTRY_COMPARE(m_window->session()->clientConfig().apiKey, QStringLiteral("helper-key"));
    QCOMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("deepseek"));
}

// settings.json's context_window is the window's as it is `run`'s (it used to be replaced by the registry's
// 200,000 for a local server, so automatic compaction fired far too late), and a model change keeps it.
void TestMainWindow::contextWindowFromSettingsJsonIsTheWindowsToo()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    Settings settings;
    settings.activeProvider = QStringLiteral("ollama");
    settings.activeModel = QStringLiteral("qwen3-coder");
    settings.contextWindow = 60000;
    QVERIFY(settings.save());
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    QCOMPARE(window.session()->clientConfig().providerId, QStringLiteral("ollama"));
    QCOMPARE(window.session()->clientConfig().contextWindow, 60000);
    window.chatPanel()->runCommand(QStringLiteral("/model llama3"));
    QTRY_COMPARE(window.session()->clientConfig().model, QStringLiteral("llama3"));
    QCOMPARE(window.session()->clientConfig().contextWindow, 60000);
}

// Found when tried: against a local server the window was the registry's 200,000 tokens, and nothing in the
// window could change it (only settings.json's context_window, for every provider at once), so automatic
// compaction came long after a server started with 8,192 had cut the conversation. Settings has "Context
// window" for the chosen provider: kept as providers.<id>.context_window, used at once and after a model
// change; another provider keeps its own; set back to the default, the entry goes.
void TestMainWindow::settingsSetALocalServersContextWindow()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    Settings settings;
    settings.activeProvider = QStringLiteral("ollama");
    settings.activeModel = QStringLiteral("qwen3-coder");
    QVERIFY(settings.save());
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    const qint64 registry =
        ProviderCatalog::contextWindow(QStringLiteral("ollama"), QStringLiteral("qwen3-coder"));
    QCOMPARE(window.session()->clientConfig().contextWindow, registry);

    auto openSettings = [&window] {
        window.showSettings();
        SettingsDialog *dialog = nullptr;
        [&] { QTRY_VERIFY((dialog = window.findChild<SettingsDialog *>()) && dialog->isVisible()); }();
        return dialog;
    };
    auto typeWindow = [](QSpinBox *spin, qint64 tokens) {
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, QString::number(tokens));
    };
    SettingsDialog *dialog = openSettings();
    QVERIFY(dialog);
    auto *spin = dialog->findChild<QSpinBox *>(QStringLiteral("settingsContextWindow"));
    QVERIFY(spin);
    QVERIFY(spin->isEnabled());
    QCOMPARE(spin->value(), registry);
    typeWindow(spin, 8192);
    QCOMPARE(spin->value(), 8192);
    QTest::keyClick(dialog, Qt::Key_Return);
    QTRY_VERIFY(!window.findChild<SettingsDialog *>());
    QCOMPARE(window.session()->clientConfig().contextWindow, 8192);
    QCOMPARE(Settings::loadOrDefaults().settings.provider(QStringLiteral("ollama")).contextWindow,
             std::optional<qint64>(8192));
    window.chatPanel()->runCommand(QStringLiteral("/model llama3"));
    QTRY_COMPARE(window.session()->clientConfig().model, QStringLiteral("llama3"));
    QCOMPARE(window.session()->clientConfig().contextWindow, 8192);

    // Another provider in the dialog shows its own window; back on this one, 8,192 again.
    dialog = openSettings();
    spin = dialog->findChild<QSpinBox *>(QStringLiteral("settingsContextWindow"));
    QCOMPARE(spin->value(), 8192);
    auto *provider = dialog->findChild<QComboBox *>(QStringLiteral("settingsProvider"));
    provider->setCurrentIndex(provider->findData(QStringLiteral("anthropic")));
    QCOMPARE(spin->value(),
             ProviderCatalog::contextWindow(QStringLiteral("anthropic"), dialog->config().model));
    provider->setCurrentIndex(provider->findData(QStringLiteral("ollama")));
    QCOMPARE(spin->value(), 8192);

    // Set back to what it would be anyway: the entry goes, the registry's window is used again.
    typeWindow(spin, ProviderCatalog::contextWindow(QStringLiteral("ollama"), dialog->config().model));
    QTest::keyClick(dialog, Qt::Key_Return);
    QTRY_VERIFY(!window.findChild<SettingsDialog *>());
    QCOMPARE(
        window.session()->clientConfig().contextWindow,
        ProviderCatalog::contextWindow(QStringLiteral("ollama"), window.session()->clientConfig().model));
    QVERIFY(!Settings::loadOrDefaults().settings.provider(QStringLiteral("ollama")).contextWindow);
}

// Under --context-window the Settings field shows that run's window and cannot change it; OK there used to
// clear the provider's window saved in settings.json.
void TestMainWindow::okUnderAContextWindowFlagKeepsTheSavedWindow()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    QVERIFY(saveOllamaSettings());
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    options.contextWindow = 50000;
    MainWindow window(options);
    window.show();
    QCOMPARE(window.session()->clientConfig().contextWindow, 50000);
    SettingsDialog *dialog = openSettings(window);
    QVERIFY(dialog);
    auto *spin = dialog->findChild<QSpinBox *>(QStringLiteral("settingsContextWindow"));
    QCOMPARE(spin->value(), 50000);
    QVERIFY(!spin->isEnabled());
    QTest::keyClick(dialog, Qt::Key_Return);
    QTRY_VERIFY(!window.findChild<SettingsDialog *>());
    QCOMPARE(Settings::loadOrDefaults().settings.provider(QStringLiteral("ollama")).contextWindow,
             std::optional<qint64>(8192));
}

// A server that runs one model with a bigger context than the others: settings.json's
// providers.<id>.context_windows gives that model its own window; Settings shows and changes it there, and
// the provider's window stays for the rest.
void TestMainWindow::aModelWithItsOwnContextWindowKeepsIt()
{
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    QVERIFY(saveOllamaSettings({{QStringLiteral("big-model"), 65536}}));
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    QCOMPARE(window.session()->clientConfig().contextWindow, 8192);
    window.chatPanel()->runCommand(QStringLiteral("/model big-model"));
    QTRY_COMPARE(window.session()->clientConfig().model, QStringLiteral("big-model"));
    QCOMPARE(window.session()->clientConfig().contextWindow, 65536);

    SettingsDialog *dialog = openSettings(window);
    QVERIFY(dialog);
    auto *spin = dialog->findChild<QSpinBox *>(QStringLiteral("settingsContextWindow"));
    QCOMPARE(spin->value(), 65536);
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("32768"));
    QTest::keyClick(dialog, Qt::Key_Return);
    QTRY_VERIFY(!window.findChild<SettingsDialog *>());
    QCOMPARE(window.session()->clientConfig().contextWindow, 32768);
    const ProviderSettings saved = Settings::loadOrDefaults().settings.provider(QStringLiteral("ollama"));
    QCOMPARE(saved.modelContextWindows.value(QStringLiteral("big-model")), 32768);
    QCOMPARE(saved.contextWindow, std::optional<qint64>(8192));

    window.chatPanel()->runCommand(QStringLiteral("/model qwen3-coder"));
    QTRY_COMPARE(window.session()->clientConfig().model, QStringLiteral("qwen3-coder"));
    QCOMPARE(window.session()->clientConfig().contextWindow, 8192);
}

// Found when tried: Settings opens with the key the session uses in its field, wherever it came from, and
// OK stored it in the keychain (here, without a keychain, in secrets.json): a key kept in settings.json's
// api_key was copied to a second file, which then won over settings.json once the key there was changed
// (the keychain comes first). OK keeps only a key typed into the dialog.
void TestMainWindow::okInSettingsKeepsOnlyAKeyTypedThere()
{
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    const auto restore = qScopeGuard([] {
        qunsetenv("KEEN_DISABLE_KEYCHAIN");
        test::removeSettingsFile();
        QFile::remove(SecretStore::secretsFilePath());
    });
    QFile::remove(SecretStore::secretsFilePath());
    Settings settings;
    settings.activeProvider = QStringLiteral("openai-compatible");
    settings.activeModel = QStringLiteral("local");
    ProviderSettings server;
    server.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
    server.models = {QStringLiteral("local")};
    server.apiKey = QStringLiteral("sk-in-settings-json-1111");
    settings.providers.insert(QStringLiteral("openai-compatible"), server);
    QVERIFY(settings.save());
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    QTRY_COMPARE(window.session()->clientConfig().apiKey, QStringLiteral("sk-in-settings-json-1111"));

    auto okInSettings = [&window](const QString &typed) {
        window.showSettings();
        SettingsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<SettingsDialog *>()) && dialog->isVisible());
        auto *field = dialog->findChild<QLineEdit *>(QStringLiteral("settingsApiKey"));
        QCOMPARE(field->text(), QStringLiteral("sk-in-settings-json-1111"));
        if (!typed.isEmpty()) {
            field->selectAll();
            QTest::keyClicks(field, typed);
        }
        QTest::keyClick(dialog, Qt::Key_Return);
        QTRY_VERIFY(!window.findChild<SettingsDialog *>());
    };
    auto secrets = [] {
        QFile file(SecretStore::secretsFilePath());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    okInSettings(QString());
    // A store of the key would have been started on the thread pool as OK was handled: it would be done now.
    QThreadPool::globalInstance()->waitForDone();
    QVERIFY(!secrets().contains("sk-in-settings-json"));
    QCOMPARE(window.session()->clientConfig().apiKey, QStringLiteral("sk-in-settings-json-1111"));

    okInSettings(QStringLiteral("sk-typed-here-2222"));
    QTRY_VERIFY(secrets().contains("sk-typed-here-2222"));
    QCOMPARE(window.session()->clientConfig().apiKey, QStringLiteral("sk-typed-here-2222"));
    QVERIFY(!secrets().contains("sk-in-settings-json"));
}

// Found when tried: in a window 800 pixels wide the toolbar ended in "Model:" and its overflow arrow, the
// model box itself in the overflow menu. Each label goes with its box: both shown or both in the overflow.
void TestMainWindow::aNarrowWindowKeepsEachToolbarLabelWithItsBox()
{
    auto *bar = m_window->findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    QVERIFY(bar);
    for (const int width : {1300, 800, 640}) {
        m_window->resize(width, 600);
        QTRY_COMPARE(m_window->width(), width);
        for (const char *name : {"modeCombo", "providerCombo", "modelCombo"}) {
            auto *box = bar->findChild<QComboBox *>(QLatin1String(name));
            QVERIFY2(box, name);
            QLabel *label = nullptr;
            for (QLabel *candidate : bar->findChildren<QLabel *>()) {
                if (candidate->buddy() == box)
                    label = candidate;
            }
            QVERIFY2(label, name);
            QTRY_COMPARE(label->isVisible(), box->isVisible());
            if (box->isVisible()) // side by side, the label first
                QVERIFY(label->mapTo(bar, QPoint(label->width(), 0)).x() <=
                        box->mapTo(bar, QPoint(0, 0)).x());
        }
    }
    // At 640 pixels the model box is in the overflow menu, with its label.
    QVERIFY(!bar->findChild<QComboBox *>(QStringLiteral("modelCombo"))->isVisible());
}

// Found when tried: after a restart, Up in the empty input brought back nothing, where the reference agent
// recalls the prompts of earlier runs (its input-history). The window keeps them beside settings.json, off
// the GUI thread; a new window's Up goes back through them, newest first, a prompt of several lines whole.
void TestMainWindow::upRecallsThePromptsOfEarlierRuns()
{
    QFile::remove(InputHistory::defaultPath());
    const auto removeHistory = qScopeGuard([] { QFile::remove(InputHistory::defaultPath()); });
    const QStringList prompts{QStringLiteral("explain the build"),
                              QStringLiteral("now fix it:\n- keep the tests green")};
    for (const QString &prompt : prompts) {
        m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("Done.")),
                           ScriptedLlmClient::event(StreamEvent::done())});
        InputEditor *input = m_window->chatPanel()->input();
        input->setPlainText(prompt);
        QTest::keyClick(input, Qt::Key_Return);
        QTRY_VERIFY(!m_window->session()->isBusy());
    }
    QTRY_COMPARE(InputHistory::load(), prompts);

    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow later(options);
    later.show();
    QVERIFY(QTest::qWaitForWindowExposed(&later));
    InputEditor *input = later.chatPanel()->input();
    QTRY_COMPARE(input->history(), prompts);
    input->setFocus();
    QTest::keyClick(input, Qt::Key_Up);
    QCOMPARE(input->toPlainText(), prompts.at(1));
    input->moveCursor(QTextCursor::Start);
    QTest::keyClick(input, Qt::Key_Up);
    QCOMPARE(input->toPlainText(), prompts.at(0));
}

// The first run with a local server asks for its context window (the registry knows none: 200,000 would let
// a server started with 8,192 cut the conversation long before automatic compaction); a hosted provider's
// comes from the registry and the field is not shown. What is entered is the window's, and Settings'.
void TestMainWindow::firstRunWithALocalServerAsksItsContextWindow()
{
    test::removeSettingsFile();
    const auto removeSettings = qScopeGuard([] { test::removeSettingsFile(); });
    LaunchOptions options;
    options.workspace = m_env.path(QStringLiteral("project"));
    MainWindow window(options);
    window.show();
    SetupWizard *wizard = firstRunSetup(window);
    QVERIFY(wizard);
    auto *provider = wizard->findChild<QComboBox *>(QStringLiteral("setupProvider"));
    auto *spin = wizard->findChild<QSpinBox *>(QStringLiteral("setupContextWindow"));
    QVERIFY(spin);
    provider->setCurrentIndex(provider->findData(QStringLiteral("anthropic")));
    wizard->next();
    QVERIFY(!spin->isVisible());
    QVERIFY(!wizard->contextWindowSetting());
    wizard->back();
    provider->setCurrentIndex(provider->findData(QStringLiteral("ollama")));
    wizard->next();
    QTRY_VERIFY(spin->isVisible());
    auto *model = wizard->findChild<QComboBox *>(QStringLiteral("setupModel"));
    model->setCurrentText(QStringLiteral("qwen3-coder"));
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("8192"));
    QTRY_VERIFY(wizard->button(QWizard::FinishButton)->isEnabled());
    QTest::mouseClick(wizard->button(QWizard::FinishButton), Qt::LeftButton);
    QTRY_COMPARE(window.session()->clientConfig().providerId, QStringLiteral("ollama"));
    QCOMPARE(window.session()->clientConfig().contextWindow, 8192);
    QCOMPARE(Settings::load()->provider(QStringLiteral("ollama")).contextWindow, std::optional<qint64>(8192));
}

// Found when tried: Tab in the prompt went to the toolbar's Mode box, where the next Down switched to
// yolo. Tab goes to the conversation (reference 6.3), where Down and Up scroll; nothing is typed, the mode
// stays, and the next Tab goes on to the rest of the window.
void TestMainWindow::tabGoesFromThePromptToTheConversation()
{
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    auto *input = m_window->chatPanel()->input();
    input->setFocus();
    QTRY_VERIFY(input->hasFocus());
    QTest::keyClick(input, Qt::Key_Tab);
    QWidget *view = m_window->chatPanel()->view();
    QTRY_VERIFY2(view->hasFocus(), QApplication::focusWidget()
                                       ? QApplication::focusWidget()->metaObject()->className()
                                       : "nothing has focus");
    QVERIFY(input->toPlainText().isEmpty());
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(m_window->session()->mode(), AgentMode::Build);
    QTest::keyClick(view, Qt::Key_Tab);
    QTRY_VERIFY(!view->hasFocus() && !input->hasFocus());
}

// /logout (reference 6.1): signs out of ChatGPT when the provider signs in with an account; any other
// provider has nothing to sign out of, and the command says so.
void TestMainWindow::logoutSignsOutOfChatGptOnly()
{
    ChatPanel *chat = m_window->chatPanel();
    chat->runCommand(QStringLiteral("/logout"));
    QCOMPARE(chat->spinner()->notification(),
             QStringLiteral("/logout signs out of ChatGPT; Anthropic uses no sign-in."));

    // No keychain here (as on the test machines): the sign-in lives in auth.json.
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    const auto restore = qScopeGuard([] { qunsetenv("KEEN_DISABLE_KEYCHAIN"); });
    const test::StoredChatGptSignIn signIn;
    QVERIFY(signIn.wasStored());
    ClientConfig config = m_window->session()->clientConfig();
    config.providerId = QStringLiteral("openai-codex");
    config.model = QStringLiteral("gpt-5-codex");
    config.apiKey.clear();
    m_window->applyClientConfig(config);
    QCOMPARE(m_window->session()->clientConfig().providerId, QStringLiteral("openai-codex"));
    chat->runCommand(QStringLiteral("/logout"));
    QCOMPARE(chat->spinner()->notification(), QStringLiteral("Signing out of ChatGPT…"));
    QTRY_VERIFY(chat->model()->plainText().contains(
        QStringLiteral("Signed out of ChatGPT. Sign in again in Settings to go on.")));
    QVERIFY(!signIn.isStillStored());
}

// /cleanup and File > Clean Up Old Data (reference 6.1): what is old is listed in a confirmation first;
// Cancel removes nothing, Delete removes it and the sidebar follows; newer data and the open conversation
// stay.
void TestMainWindow::cleanupDeletesOldDataAfterAsking()
{
    const QString root = m_window->session()->sessionStore().root();
    const QString workspace = m_env.path(QStringLiteral("project"));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    test::TranscriptWriter old(root, workspace);
    old.user(QStringLiteral("ancient task"));
    old.setModified(now.addDays(-30));
    test::TranscriptWriter fresh(root, workspace);
    fresh.user(QStringLiteral("fresh task"));
    const QString output = AgentSession::dataFolder() + QStringLiteral("/bash/keen-bash-cleanup-test.stdout");
    QVERIFY(QDir().mkpath(QFileInfo(output).absolutePath()));
    QFile file(output);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(2048, 'x'));
    QVERIFY(file.flush());
    QVERIFY(file.setFileTime(now.addDays(-10), QFileDevice::FileModificationTime));
    file.close();
    auto *sidebar = m_window->findChild<SessionBrowserPanel *>();
    QVERIFY(sidebar);
    sidebar->refresh();
    QTRY_VERIFY(sidebar->model()->indexForSession(old.id()).isValid());

    ChatPanel *chat = m_window->chatPanel();
    chat->runCommand(QStringLiteral("/cleanup"));
    QCOMPARE(chat->spinner()->notification(), QStringLiteral("Cleaning up…"));
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = m_window->findChild<QMessageBox *>(QStringLiteral("cleanupConfirmation"))) &&
                box->isVisible());
    const QString listed = box->informativeText();
    QVERIFY2(listed.contains(QStringLiteral("1 file of command output, tool artifacts and logs")),
             qPrintable(listed));
    QVERIFY(listed.contains(QStringLiteral("1 session not used for 14 days")));
    QVERIFY(listed.contains(QStringLiteral("• ancient task (")));
    QVERIFY(!listed.contains(QStringLiteral("fresh task")));
    QTest::mouseClick(box->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_COMPARE(chat->spinner()->notification(), QStringLiteral("Nothing was removed."));
    QVERIFY(QFile::exists(old.path()) && QFile::exists(output));

    auto *action = m_window->findChild<QAction *>(QStringLiteral("cleanupAction"));
    QVERIFY(action);
    action->trigger();
    QTRY_VERIFY((box = m_window->findChild<QMessageBox *>(QStringLiteral("cleanupConfirmation"))) &&
                box->isVisible());
    QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("confirmCleanupButton")), Qt::LeftButton);
    QTRY_VERIFY2(chat->model()->plainText().contains(QStringLiteral("Removed 1 file and 1 session (")),
                 qPrintable(chat->model()->plainText()));
    QVERIFY(!QFile::exists(old.path()) && !QFile::exists(output));
    QVERIFY(QFile::exists(fresh.path()));
    QTRY_VERIFY(!sidebar->model()->indexForSession(old.id()).isValid());
    QVERIFY(sidebar->model()->indexForSession(fresh.id()).isValid());

    chat->runCommand(QStringLiteral("/cleanup"));
    QTRY_VERIFY(chat->model()->plainText().contains(QStringLiteral(
        "Nothing to clean up: no command output older than 7 days and no session unused for 14 "
        "days.")));
}

// A conversation started with a skill is named by the command in the title bar, as in the sidebar, not by the
// "[Activate skill: …]" marker the model gets.
void TestMainWindow::aSkillsSessionIsTitledByItsCommand()
{
    const QString path = m_env.path(QStringLiteral("project/.agents/skills/greet/SKILL.md"));
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QFile skill(path);
    QVERIFY(skill.open(QIODevice::WriteOnly));
    skill.write("---\nname: greet\ndescription: Greet the team\n---\nSay hello to $ARGUMENTS.\n");
    skill.close();
    const auto removeSkill = qScopeGuard([path] { QFile::remove(path); });
    m_window->session()->reloadCatalogs();
    QTRY_VERIFY(m_window->session()->skills().find(QStringLiteral("greet")));
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Hello!")), ScriptedLlmClient::event(StreamEvent::done())});
    m_window->chatPanel()->runCommand(QStringLiteral("/greet the team"));
    QTRY_VERIFY2(m_window->windowTitle().startsWith(QStringLiteral("/greet · Say hello to the team.")),
                 qPrintable(m_window->windowTitle()));
    QTRY_VERIFY(!m_window->session()->isBusy());
}

// A person writes a skill or a subagent profile in their editor and comes back to the window: both are
// offered at once (the completion list, /subagents, delegate_task), without waiting for a turn.
void TestMainWindow::skillsAndSubagentsWrittenElsewhereAreOfferedWhenTheWindowIsActivated()
{
    m_window->show();
    QWidget editor;
    editor.show();
    editor.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&editor));
    QThreadPool::globalInstance()->waitForDone(); // the reads of the folder when it opened
    QCoreApplication::processEvents();
    const QString skill = m_env.path(QStringLiteral("project/.agents/skills/later/SKILL.md"));
    const QString agent = m_env.path(QStringLiteral("project/.agents/agents/scout.md"));
    const auto remove = qScopeGuard([skill, agent] {
        QFile::remove(skill);
        QFile::remove(agent);
    });
    QVERIFY(test::writeFile(skill, "---\nname: later\ndescription: Written in an editor\n---\nDo it.\n"));
    QVERIFY(test::writeFile(agent, "---\nname: scout\ndescription: Looks around\n---\nLook.\n"));
    QTest::qWait(100);
    QVERIFY(!m_window->session()->skills().find(QStringLiteral("later")));
    QVERIFY(m_window->session()->subagents().isEmpty());

    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTRY_VERIFY(m_window->session()->skills().find(QStringLiteral("later")));
    QVERIFY(m_window->session()->subagents().find(QStringLiteral("scout")));
}

QTEST_MAIN(TestMainWindow)
// The logs a bug report wants (README, "Where data lives"): Help > Open Log Folder opens the folder the
// window writes its warnings to, made (private) when nothing was logged yet.
void TestMainWindow::helpOpensTheLogFolder()
{
    FolderCatcher files;
    QDesktopServices::setUrlHandler(QStringLiteral("file"), &files, "open");
    const auto restore = qScopeGuard([] { QDesktopServices::unsetUrlHandler(QStringLiteral("file")); });
    QAction *action = m_window->findChild<QAction *>(QStringLiteral("openLogFolderAction"));
    QVERIFY(action);
    QCOMPARE(action->text(), QStringLiteral("Open &Log Folder"));
    action->trigger();
    QCOMPARE(files.opened.size(), 1);
    QCOMPARE(files.opened.first(), QUrl::fromLocalFile(m_env.path(QStringLiteral("logs"))));
    QVERIFY(QFileInfo(m_env.path(QStringLiteral("logs"))).isDir());
    QCOMPARE(QFile::permissions(m_env.path(QStringLiteral("logs"))) & 0x0077, QFileDevice::Permissions());
}

// A server that failed to start is said for two seconds; the status bar keeps saying it (with why, in the
// tooltip) until it works, and a click lists the servers.
void TestMainWindow::aFailedMcpServerStaysInTheStatusBar()
{
    auto *button = m_window->findChild<QToolButton *>(QStringLiteral("mcpProblems"));
    QVERIFY(button);
    QVERIFY(!button->isVisible());
    QVERIFY(test::writeFakeMcpServers(m_env.home()));
    m_window->chatPanel()->runCommand(QStringLiteral("/mcp"));
    QTRY_VERIFY_WITH_TIMEOUT(button->isVisible(), 20000);
    QCOMPARE(button->text(), QStringLiteral("⚠ MCP: 1 server failed"));
    QVERIFY2(button->toolTip().startsWith(QStringLiteral("broken: ")), qPrintable(button->toolTip()));

    ChatModel *model = m_window->chatPanel()->model();
    const int rows = model->rowCount();
    button->click();
    QTRY_VERIFY(model->rowCount() > rows &&
                model->item(model->rowCount() - 1).text.contains(QStringLiteral("| broken | failed |")));

    // Taken out of the file: nothing failed, nothing shown.
    QVERIFY(test::writeFile(m_env.path(QStringLiteral("mcp/configs.json")), "{\"servers\": {}}"));
    m_window->chatPanel()->runCommand(QStringLiteral("/mcp"));
    QTRY_VERIFY(!button->isVisible());
}

// A warning given while the window was still hidden (the unencrypted key, at startup) was drawn over the
// folder's name in the status bar.
void TestMainWindow::aStartupMessageDoesNotCoverTheFolder()
{
    m_window->hide();
    m_window->statusBar()->showMessage(QStringLiteral("The API key is stored unencrypted."), 10000);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    auto *folder = m_window->findChild<QLabel *>(QStringLiteral("workspaceLabel"));
    QVERIFY(folder);
    QCOMPARE(m_window->statusBar()->currentMessage(), QStringLiteral("The API key is stored unencrypted."));
    QVERIFY(!folder->isVisible());
    m_window->statusBar()->clearMessage();
    QTRY_VERIFY(folder->isVisible());
}

#include "tst_mainwindow.moc"
