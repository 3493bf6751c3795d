// Screenshots of the main window under a real X server (xvfb-run): the sessions sidebar with sessions, the
// empty window, a streamed reply with a table and tool cards, a permission card, a manual compaction summary,
// the notice after an automatic compaction, the window after Open Folder, the dark palette, the settings
// dialog, the first-run setup and numbered steps around code blocks. PNGs go to $KEEN_SCREENSHOT_DIR.
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/compactionreviewdialog.h"
#include "chat/inputeditor.h"
#include "chat/spinnerline.h"
#include "contextdialog.h"
#include "droppeddetailsdialog.h"
#include "mainwindow.h"
#include "pinsdialog.h"
#include "sessions/sessionbrowserpanel.h"
#include "settings/settingsdialog.h"
#include "settings/setupwizard.h"

#include "agent/agentsession.h"
#include "scriptedllmclient.h"
#include "testenvironment.h"

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QScreen>
#include <QSet>
#include <QSettings>
#include <QTest>
#include <QTreeView>

using namespace keen;
using test::ScriptedLlmClient;

namespace {
ToolCallInfo call(const QString &id, const QString &name, const QJsonObject &input)
{
    ToolCallInfo info;
    info.callId = id;
    info.name = name;
    info.input = input;
    return info;
}
} // namespace

class TestScreenshots : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void emptyWindow();
    void streamedReplyWithTableAndToolCards();
    void permissionCard();
    void manualCompactionSummary();
    void noticeAfterAutomaticCompaction();
    void sidebarWithSessions();
    void openFolderResult();
    void darkPalette();
    void settingsDialog();
    void firstRunSetup();
    void contextDialogWithPolicy();
    void compactionReview();
    void pinsAndWhatWasDropped();
    void orderedStepsAroundCode();

private:
    void save(const QString &name, QWidget *widget = nullptr);
    void send(const QString &text);
    void streamReply();
    void reply(const QString &prompt, const QString &answer);

    test::TestEnvironment m_env;
    QString m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::shared_ptr<ScriptedLlmClient> m_client;
};

void TestScreenshots::initTestCase()
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       m_env.path(QStringLiteral("qsettings")));
    // The key comes from the environment, so no keychain is needed.
    qputenv("ANTHROPIC_API_KEY", "test-key");
    // The folders live in the test's home, so the pictures read "~/project" as a person's window does, not
    // a temporary path.
    qputenv("HOME", m_env.home().toLocal8Bit());
    m_dir = qEnvironmentVariable("KEEN_SCREENSHOT_DIR", QDir::currentPath() + QStringLiteral("/screenshots"));
    QVERIFY(QDir().mkpath(m_dir));
    QDir().mkpath(m_env.path(QStringLiteral("project")));
}

void TestScreenshots::init()
{
    LaunchOptions options;
    options.provider = QStringLiteral("anthropic");
    options.model = QStringLiteral("claude-fable-5-1");
    options.workspace = m_env.path(QStringLiteral("project"));
    options.contextWindow = 200000;
    m_window = std::make_unique<MainWindow>(options);
    m_client = std::make_shared<ScriptedLlmClient>();
    m_window->session()->setClientFactory(ScriptedLlmClient::factory(m_client));
    ClientConfig config = m_window->session()->clientConfig();
    config.apiKey = QStringLiteral("test-key");
    config.thinkingEffort = QStringLiteral("high");
    m_window->applyClientConfig(config);
    m_window->resize(1180, 820);
    m_window->show();
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
}

void TestScreenshots::cleanup()
{
    if (m_window->session()->isBusy()) {
        m_window->session()->interrupt();
        QTRY_VERIFY(!m_window->session()->isBusy());
    }
    m_window.reset();
}

void TestScreenshots::save(const QString &name, QWidget *widget)
{
    // Coalesced text and layout requests are queued: deliver them (no fixed sleep) before grabbing.
    QTRY_VERIFY(!m_window->chatPanel()->model()->hasPendingChunks());
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    const QPixmap shot = (widget ? widget : m_window.get())->grab();
    QVERIFY(!shot.isNull());
    const QString path = m_dir + QLatin1Char('/') + name + QStringLiteral(".png");
    QVERIFY2(shot.save(path), qPrintable(path));
    qInfo("saved %s", qPrintable(path));
}

void TestScreenshots::send(const QString &text)
{
    InputEditor *input = m_window->chatPanel()->input();
    input->setFocus();
    QTest::keyClicks(input, text);
    QTest::keyClick(input, Qt::Key_Return);
}

void TestScreenshots::emptyWindow()
{
    save(QStringLiteral("01-empty-window"));
}

void TestScreenshots::streamedReplyWithTableAndToolCards()
{
    streamReply();
    save(QStringLiteral("02-streamed-reply"));
}

void TestScreenshots::streamReply()
{
    ToolCallInfo read = call(QStringLiteral("c1"), QStringLiteral("read_file"),
                             {{QStringLiteral("path"), QStringLiteral("src/parser.cpp")}});
    ToolCallInfo readEnd = read;
    readEnd.output = QJsonObject{{QStringLiteral("total_lines"), 312}};
    readEnd.durationNs = 4000000;
    ToolCallInfo grep = call(QStringLiteral("c2"), QStringLiteral("grep"),
                             {{QStringLiteral("pattern"), QStringLiteral("parseNumber")}});
    ToolCallInfo grepEnd = grep;
    grepEnd.output = QJsonObject{{QStringLiteral("count"), 7}};
    grepEnd.durationNs = 12000000;
    ToolCallInfo edit = call(QStringLiteral("c3"), QStringLiteral("edit_file"),
                             {{QStringLiteral("path"), QStringLiteral("src/parser.cpp")}});
    ToolCallInfo editEnd = edit;
    editEnd.durationNs = 2000000;
    editEnd.diff =
        QStringLiteral("--- a/src/parser.cpp\n+++ b/src/parser.cpp\n@@ -41,4 +41,4 @@\n"
                       " double Parser::parseNumber(QStringView text)\n {\n"
                       "-    return text.toDouble();\n+    return QLocale::c().toDouble(text);\n }\n");
    ToolCallInfo bash =
        call(QStringLiteral("c4"), QStringLiteral("bash"),
             {{QStringLiteral("command"), QStringLiteral("ctest --output-on-failure -R parser")}});
    ToolCallInfo bashEnd = bash;
    bashEnd.output =
        QJsonObject{{QStringLiteral("stdout"),
                     QStringLiteral("Test project /work/build\n    Start 3: parser\n1/1 Test #3: parser "
                                    "...........   Passed    0.21 sec\n\n100% tests passed")},
                    {QStringLiteral("exit_code"), 0}};
    bashEnd.durationNs = 1800000000;
    m_client->addTurn({
        ScriptedLlmClient::event(
            StreamEvent::reasoning(QStringLiteral("The parser uses toDouble, which depends on "
                                                  "the locale. Check the callers first."))),
        ScriptedLlmClient::chunk(QStringLiteral("I'll look at the parser first.")),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, read)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, readEnd)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, grep)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, grepEnd)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, edit)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, editEnd)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, bash)),
        ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolEnd, bashEnd)),
        ScriptedLlmClient::chunk(QStringLiteral("Fixed: numbers now parse the same in every locale.\n\n")),
        ScriptedLlmClient::chunk(QStringLiteral("| Input | Before | After |\n|---|---|---|\n")),
        ScriptedLlmClient::chunk(QStringLiteral("| `1.5` | 1.5 | 1.5 |\n| `1,5` (de_DE) | 1.5 | 0 |\n")),
        ScriptedLlmClient::chunk(
            QStringLiteral("\nThe change:\n\n```cpp\nreturn QLocale::c().toDouble(text);\n```\n")),
        ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{118400, 2300, 0, 0, 0, 0, 0})),
        ScriptedLlmClient::event(StreamEvent::done()),
    });
    send(QStringLiteral("Numbers parse wrong under a German locale. Fix the parser and run its tests."));
    QTRY_VERIFY(!m_window->session()->isBusy());
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("The change:")));
}

void TestScreenshots::reply(const QString &prompt, const QString &answer)
{
    m_client->addTurn({ScriptedLlmClient::chunk(answer), ScriptedLlmClient::event(StreamEvent::done())});
    send(prompt);
    QTRY_VERIFY(!m_window->session()->isBusy());
}

void TestScreenshots::permissionCard()
{
    // As in a real turn: the edit's tool card comes first, its permission card right below it.
    ToolCallInfo call;
    call.callId = QStringLiteral("call_edit");
    call.name = QStringLiteral("edit_file");
    call.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("src/net/config.h")}};
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("I'll update the default timeout.")),
                       ScriptedLlmClient::event(StreamEvent::tool(StreamEvent::Type::ToolStart, call)),
                       ScriptedLlmClient::gate(QStringLiteral("never")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("Raise the network timeout to 30 seconds."));
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("default timeout")));
    Q_EMIT m_window->session()->permissionRequested(PermissionRequest{
        1,
        QStringLiteral("edit_file"),
        QStringLiteral("src/net/config.h"),
        m_env.path(QStringLiteral("project/src/net/config.h")),
        {},
        {},
        QStringLiteral("@@ -12,5 +12,5 @@\n struct NetworkConfig\n {\n-    int timeoutMs = 10000;\n"
                       "+    int timeoutMs = 30000;\n     int retries = 3;\n };\n"),
        false});
    QTRY_VERIFY(m_window->chatPanel()->model()->hasPendingPermission());
    save(QStringLiteral("03-permission-card"));
}

void TestScreenshots::manualCompactionSummary()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("The importer now skips empty rows.")),
         ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{150800, 900, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("Make the CSV importer skip empty rows."));
    QTRY_VERIFY(!m_window->session()->isBusy());
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral(
                           "## Goal\nMake the CSV importer skip empty rows.\n\n## Key Instructions\n"
                           "- Keep the public API unchanged.\n\n## Discoveries\n- `CsvImporter::readRow` "
                           "returned an empty record for blank lines.\n\n## Accomplished\n- Blank "
                           "lines are skipped; tests pass.\n\n## Relevant Files\n- "
                           "`src/import/csvimporter.cpp`\n")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("/compact keep the importer details"));
    QTRY_VERIFY(m_window->chatPanel()->model()->plainText().contains(QStringLiteral("✓ Context compacted.")));
    QTRY_VERIFY(!m_window->session()->isBusy());
    save(QStringLiteral("04-manual-compaction"));
}

void TestScreenshots::noticeAfterAutomaticCompaction()
{
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("Reading every module to map the dependencies.")),
         ScriptedLlmClient::event(StreamEvent::usageReport(TokenUsage{166000, 1200, 0, 0, 0, 0, 0})),
         ScriptedLlmClient::autoCompaction(
             {Message::system(QStringLiteral("system")),
              Message::user(QStringLiteral("<compacted_context>private</compacted_context>"))}),
         ScriptedLlmClient::gate(QStringLiteral("after")),
         ScriptedLlmClient::chunk(QStringLiteral(" Continuing with the remaining modules.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("Map the module dependencies of the whole project."));
    QTRY_COMPARE(m_window->chatPanel()->spinner()->notification(),
                 QStringLiteral("Context compacted automatically."));
    // S53: the notification fades; the row after the checkpoint stays (and has Undo Compaction).
    QVERIFY(m_window->chatPanel()->model()->plainText().contains(
        QStringLiteral("✓ Context compacted automatically.")));
    save(QStringLiteral("05-automatic-compaction-notice"));
    m_client->open(QStringLiteral("after"));
    QTRY_VERIFY(!m_window->session()->isBusy());
}

// The README's first picture: the sidebar listing this folder's sessions beside an opened one.
void TestScreenshots::sidebarWithSessions()
{
    const QList<QPair<QString, QString>> sessions{
        {QStringLiteral("Why does the nightly build fail on arm64?"),
         QStringLiteral("The linker runs out of memory: `-flto` on arm64 needs 6 GB.")},
        {QStringLiteral("Add a --dry-run flag to the sync command"),
         QStringLiteral("Done: `sync --dry-run` prints the plan and changes nothing.")},
        {QStringLiteral("Rename the config keys to snake_case"),
         QStringLiteral("All 14 keys are renamed; old names are still read once and migrated.")},
    };
    for (const auto &[prompt, answer] : sessions) {
        reply(prompt, answer);
        m_window->findChild<QAction *>(QStringLiteral("newSessionAction"))->trigger();
    }
    streamReply();
    auto *tree =
        m_window->findChild<SessionBrowserPanel *>()->findChild<QTreeView *>(QStringLiteral("sessionTree"));
    QVERIFY(tree);
    auto sessionsShown = [tree] {
        int shown = 0;
        for (int row = 0; row < tree->model()->rowCount(); ++row)
            shown += qMax(1, tree->model()->rowCount(tree->model()->index(row, 0)));
        return shown;
    };
    QTRY_VERIFY(sessionsShown() >= 4);
    save(QStringLiteral("00-sidebar-with-sessions"));
}

void TestScreenshots::openFolderResult()
{
    reply(QStringLiteral("Summarize the README"), QStringLiteral("It describes a CSV importer."));
    const QString webshop = m_env.path(QStringLiteral("webshop"));
    QVERIFY(QDir().mkpath(webshop + QStringLiteral("/src")));
    m_window->openFolder(webshop);
    QTRY_COMPARE(m_window->session()->workspace(), QFileInfo(webshop).canonicalFilePath());
    QTRY_VERIFY(m_window->findChild<QLabel *>(QStringLiteral("workspaceLabel"))
                    ->text()
                    .contains(QStringLiteral("webshop")));
    // The sidebar's "This folder" reads the new folder's list off the GUI thread: the picture waits for it
    // (it once showed the old folder's sessions under the new folder's name).
    auto *status = m_window->findChild<SessionBrowserPanel *>()->findChild<QLabel *>(
        QStringLiteral("sessionStatusLabel"));
    QVERIFY(status);
    QTRY_COMPARE(status->text(), QStringLiteral("No saved sessions for this folder."));
    save(QStringLiteral("06-open-folder"));
}

void TestScreenshots::darkPalette()
{
    m_window->findChild<QAction *>(QStringLiteral("colorSchemeDarkAction"))->trigger();
    reply(QStringLiteral("Which parser handles dates?"),
          QStringLiteral("`DateParser` in `src/parse/dateparser.cpp`; `CsvImporter` calls it per cell."));
    streamReply();
    save(QStringLiteral("07-dark-palette"));
    m_window->findChild<QAction *>(QStringLiteral("colorSchemeSystemAction"))->trigger();
}

void TestScreenshots::settingsDialog()
{
    m_window->showSettings();
    SettingsDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<SettingsDialog *>()) && dialog->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    save(QStringLiteral("09-settings-dialog"), dialog);
    dialog->reject();
}

// Issue 15: the first-run setup ("Welcome to Keen") over the window. An xwd capture of the X screen shows it
// as a black rectangle while it lies inside the main window (xwd's per-window reading; XGetImage of the root
// and `import` show it drawn); the grab is what the dialog paints.
void TestScreenshots::firstRunSetup()
{
    auto *wizard = new SetupWizard(m_window.get());
    wizard->setAttribute(Qt::WA_DeleteOnClose);
    wizard->open();
    QVERIFY(QTest::qWaitForWindowExposed(wizard));
    const QImage image = wizard->grab().toImage();
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    }
    QVERIFY2(colours.size() > 8, "the setup dialog painted a flat rectangle");
    save(QStringLiteral("08-first-run-setup"), wizard);
    wizard->reject();
}

// Issue 16: the Context dialog's compaction policy and the meter's mark at 70%.
void TestScreenshots::contextDialogWithPolicy()
{
    reply(QStringLiteral("Where is the parser?"), QStringLiteral("In `src/parse.cpp`."));
    CompactionPolicy policy;
    policy.thresholdPercent = 70;
    policy.detail = CompactionPolicy::Detail::Brief;
    m_window->session()->setCompactionPolicy(policy);
    m_window->chatPanel()->showContextDialog();
    ContextDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<ContextDialog *>()) && dialog->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    save(QStringLiteral("10-context-policy"), dialog);
    dialog->reject();
    save(QStringLiteral("10-context-policy-window"));
}

// Issue 16: review before it applies, the summary editable beside what it replaces.
void TestScreenshots::compactionReview()
{
    reply(QStringLiteral("Make the CSV importer skip empty rows."),
          QStringLiteral("Done: `CsvImporter::readRow` skips blank lines; tests pass."));
    reply(QStringLiteral("Keep the public API as it is."), QStringLiteral("It is unchanged."));
    m_window->session()->setReviewManualCompaction(true);
    m_client->addTurn({ScriptedLlmClient::chunk(QStringLiteral(
                           "## Goal\nMake the CSV importer skip empty rows.\n\n## Key Instructions\n"
                           "- Keep the public API unchanged.\n\n## Accomplished\n- Blank lines are skipped; "
                           "tests pass.\n\n## Relevant Files\n- `src/import/csvimporter.cpp`\n")),
                       ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("/compact"));
    CompactionReviewDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<CompactionReviewDialog *>()) && dialog->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    save(QStringLiteral("11-compaction-review"), dialog);
    dialog->reject();
    QTRY_VERIFY(!m_window->session()->isBusy());
}

// Issue 16: a pinned code block (its row marked), a typed note, the pins button with the budget, then a
// manual compaction whose summary leaves details out: the row under it, the Pins dialog and the dropped list.
void TestScreenshots::pinsAndWhatWasDropped()
{
    reply(QStringLiteral("Why does the parser test fail?"),
          QStringLiteral(
              "`tst_parser` fails in `src/parser/lexer.cpp:88` with *error: unexpected token at offset "
              "4711*. The recovery lives in `ParserState::reset`:\n\n```cpp\nvoid ParserState::reset()\n"
              "{\n    m_offset = m_lastGood;\n    m_depth = 0;\n}\n```\n\nIt forgets the lookahead."));
    ChatPanel *chat = m_window->chatPanel();
    const int row = chat->model()->rowCount() - 1;
    Pin code;
    code.kind = Pin::Kind::CodeBlock;
    code.text =
        QStringLiteral("void ParserState::reset()\n{\n    m_offset = m_lastGood;\n    m_depth = 0;\n}");
    code.source = QStringLiteral("code block of an assistant message");
    QVERIFY(chat->pin(code, chat->model()->item(row).id));
    send(QStringLiteral("/pin Keep the public parser API unchanged."));
    QTRY_COMPARE(m_window->session()->pins().size(), 2);
    m_client->addTurn(
        {ScriptedLlmClient::chunk(QStringLiteral("## Goal\nFix the parser test.\n\n## Accomplished\n"
                                                 "- Found the failing recovery.")),
         ScriptedLlmClient::event(StreamEvent::done())});
    send(QStringLiteral("/compact"));
    QTRY_VERIFY(chat->model()->plainText().contains(QStringLiteral("not in the summary")));
    QTRY_VERIFY(!m_window->session()->isBusy());
    save(QStringLiteral("12-pins-and-dropped"));
    chat->showPinsDialog();
    PinsDialog *pins = nullptr;
    QTRY_VERIFY((pins = m_window->findChild<PinsDialog *>()) && pins->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(pins));
    save(QStringLiteral("12-pins-dialog"), pins);
    pins->reject();
    for (int i = 0; i < chat->model()->rowCount(); ++i) {
        if (!chat->model()->item(i).dropped.isEmpty())
            chat->showDroppedDetails(chat->model()->item(i).id);
    }
    DroppedDetailsDialog *dropped = nullptr;
    QTRY_VERIFY((dropped = m_window->findChild<DroppedDetailsDialog *>()) && dropped->isVisible());
    QVERIFY(QTest::qWaitForWindowExposed(dropped));
    save(QStringLiteral("12-dropped-details"), dropped);
    dropped->reject();
}

// Numbered steps with code blocks between them, streamed a few characters at a time: each list after a code
// block shows the number its Markdown gives ("2.", "3.", "4."), not "1." (Qt 6.4 drops a list's start).
void TestScreenshots::orderedStepsAroundCode()
{
    const QString answer = QStringLiteral(
        "To set it up:\n\n1. Install the package:\n\n```sh\nsudo apt install keen-desktop\n```\n\n"
        "2. Point it at your project and start it. A long step wraps under its own text, clear of the "
        "number, as a step from one does; this one says so at some length to show it:\n\n```sh\nkeen-desktop "
        "--workspace ~/src/parser\n```\n\n3. Run the tests:\n   1. "
        "unit tests first\n   2. then the screenshots\n\n> 4. Quoted steps keep their numbers too\n> 5. "
        "like this one\n\n10. And a list that starts at ten\n11. reads on from there\n");
    ScriptedLlmClient::Turn steps;
    for (qsizetype at = 0; at < answer.size(); at += 5)
        steps.append(ScriptedLlmClient::chunk(answer.mid(at, 5)));
    steps.append(ScriptedLlmClient::event(StreamEvent::done()));
    m_client->addTurn(steps);
    send(QStringLiteral("How do I set it up?"));
    QTRY_VERIFY(!m_window->session()->isBusy());
    save(QStringLiteral("13-ordered-steps"));
}

QTEST_MAIN(TestScreenshots)
#include "tst_screenshots.moc"
