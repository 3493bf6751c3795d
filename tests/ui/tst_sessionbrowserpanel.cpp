// The session browser panel, driven as a person would: search, scope, keyboard actions, dialogs.
#include "sessions/sessionbrowserpanel.h"
#include "sessions/sessionlistmodel.h"

#include "session/sessionindex.h"
#include "sessionfixtures.h"
#include "testenvironment.h"

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

using namespace keen;
using keen::test::TranscriptWriter;

// Receives QDesktopServices::openUrl for file: URLs instead of a real file manager.
class UrlCatcher : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> urls;
public Q_SLOTS:
    void open(const QUrl &url) { urls.append(url); }
};

class TestSessionBrowserPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void everyControlHasAnObjectName();
    void listsThisWorkspaceThenAll();
    void emptyWorkspaceSaysSo();
    void searchShowsSnippetAndOpensAtTheMatch();
    void aSearchBeyondTheLimitSaysHowManyMatch();
    void enterOpensTheSelectedSession();
    void renameWithF2IsStoredBesideTheTranscript();
    void deleteAsksFirstAndCancelKeepsTheSession();
    void deleteRemovesTheSession();
    void exportWritesMarkdown();
    void showInFileManagerOpensTheFolder();
    void focusSearchFocusesTheField();

private:
    QString workspace(const QString &name) const { return m_env->path(QStringLiteral("work/") + name); }
    void makePanel();
    QModelIndex select(const QString &sessionId);

    std::unique_ptr<keen::test::TestEnvironment> m_env;
    std::shared_ptr<SessionStore> m_store;
    std::unique_ptr<SessionBrowserPanel> m_panel;
    QTreeView *m_tree = nullptr;
};

void TestSessionBrowserPanel::init()
{
    m_env = std::make_unique<keen::test::TestEnvironment>();
    QDir().mkpath(workspace(QStringLiteral("alpha")));
    QDir().mkpath(workspace(QStringLiteral("beta")));
    m_store = std::make_shared<SessionStore>(SessionStore::defaultRoot());
}

void TestSessionBrowserPanel::cleanup()
{
    m_panel.reset();
    m_store.reset();
    m_env.reset();
}

void TestSessionBrowserPanel::makePanel()
{
    m_panel = std::make_unique<SessionBrowserPanel>();
    m_panel->resize(360, 600);
    m_panel->model()->setDebounceInterval(50);
    m_panel->setWorkspace(workspace(QStringLiteral("alpha")));
    // Listening before the store is set: the first load can finish while the window is being exposed.
    QSignalSpy refreshed(m_panel->model(), &SessionListModel::refreshed);
    m_panel->setStore(m_store);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    m_tree = m_panel->findChild<QTreeView *>(QStringLiteral("sessionTree"));
    QVERIFY(m_tree);
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty() && !m_panel->model()->isLoading(), 5000);
}

QModelIndex TestSessionBrowserPanel::select(const QString &sessionId)
{
    const QModelIndex index = m_panel->model()->indexForSession(sessionId);
    m_tree->setCurrentIndex(index);
    m_tree->setFocus();
    return index;
}

void TestSessionBrowserPanel::everyControlHasAnObjectName()
{
    makePanel();
    for (QWidget *child : m_panel->findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
        QVERIFY2(!child->objectName().isEmpty(), child->metaObject()->className());
    const QStringList names{
        QStringLiteral("sessionSearchField"),    QStringLiteral("sessionScopeWorkspaceButton"),
        QStringLiteral("sessionScopeAllButton"), QStringLiteral("sessionTree"),
        QStringLiteral("sessionStatusLabel"),    QStringLiteral("sessionActionsBar"),
        QStringLiteral("sessionMoreButton")};
    for (const QString &name : names)
        QVERIFY2(m_panel->findChild<QWidget *>(name), qPrintable(name));
    for (const QString &name : {QStringLiteral("openSessionAction"), QStringLiteral("renameSessionAction"),
                                QStringLiteral("deleteSessionAction"), QStringLiteral("exportSessionAction"),
                                QStringLiteral("showSessionFolderAction")})
        QVERIFY2(m_panel->findChild<QAction *>(name), qPrintable(name));
}

void TestSessionBrowserPanel::listsThisWorkspaceThenAll()
{
    TranscriptWriter alpha(m_store->root(), workspace(QStringLiteral("alpha")));
    alpha.user(QStringLiteral("alpha question"));
    TranscriptWriter beta(m_store->root(), workspace(QStringLiteral("beta")));
    beta.user(QStringLiteral("beta question"));
    makePanel();
    QCOMPARE(m_panel->model()->sessionCount(), 1);
    QVERIFY(m_panel->model()->indexForSession(alpha.id()).isValid());
    // Groups are expanded: the session row is visible.
    QVERIFY(m_tree->visualRect(m_panel->model()->indexForSession(alpha.id())).isValid());

    auto *all = m_panel->findChild<QToolButton *>(QStringLiteral("sessionScopeAllButton"));
    QTest::mouseClick(all, Qt::LeftButton);
    QCOMPARE(m_panel->scope(), SessionBrowserPanel::Scope::All);
    QTRY_COMPARE(m_panel->model()->sessionCount(), 2);

    QTest::mouseClick(m_panel->findChild<QToolButton *>(QStringLiteral("sessionScopeWorkspaceButton")),
                      Qt::LeftButton);
    QTRY_COMPARE(m_panel->model()->sessionCount(), 1);
}

void TestSessionBrowserPanel::emptyWorkspaceSaysSo()
{
    makePanel();
    auto *status = m_panel->findChild<QLabel *>(QStringLiteral("sessionStatusLabel"));
    QTRY_COMPARE(status->text(), QStringLiteral("No saved sessions for this folder."));
    QVERIFY(status->isVisible());
    QVERIFY(!m_panel->findChild<QAction *>(QStringLiteral("openSessionAction"))->isEnabled());
}

void TestSessionBrowserPanel::searchShowsSnippetAndOpensAtTheMatch()
{
    TranscriptWriter hit(m_store->root(), workspace(QStringLiteral("alpha")));
    hit.user(QStringLiteral("inspect the logs"));
    const quint64 toolSeq =
        hit.assistantWithTool(QStringLiteral("Reading."), QStringLiteral("read_file"), QJsonObject{},
                              QStringLiteral("ERROR gyroscope drift detected"));
    TranscriptWriter miss(m_store->root(), workspace(QStringLiteral("alpha")));
    miss.user(QStringLiteral("unrelated"));
    makePanel();
    QCOMPARE(m_panel->model()->sessionCount(), 2);

    auto *search = m_panel->findChild<QLineEdit *>(QStringLiteral("sessionSearchField"));
    auto *status = m_panel->findChild<QLabel *>(QStringLiteral("sessionStatusLabel"));
    // Found when tried: while a slow search ran, the label counted the list still shown ("35 matching
    // sessions") although none of it had been searched. While a search runs, the label says so.
    QStringList statusWhileSearching;
    connect(m_panel->model(), &SessionListModel::loadingChanged, this, [&](bool loading) {
        if (loading)
            statusWhileSearching.append(status->text());
    });
    search->setFocus();
    QTest::keyClicks(search, QStringLiteral("gyro"));
    QTRY_VERIFY(m_panel->model()->isSearching());
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->model()->sessionCount(), 1, 5000);
    QVERIFY(!statusWhileSearching.isEmpty());
    for (const QString &text : std::as_const(statusWhileSearching))
        QCOMPARE(text, QStringLiteral("Searching…"));
    const QModelIndex index = m_panel->model()->indexForSession(hit.id());
    QVERIFY(index.data(SessionListModel::PreviewRole).toString().contains(QStringLiteral("gyroscope drift")));
    QTRY_COMPARE(status->text(), QStringLiteral("1 matching session"));

    QSignalSpy opened(m_panel.get(), &SessionBrowserPanel::sessionOpenRequested);
    QSignalSpy openedAt(m_panel.get(), &SessionBrowserPanel::searchMatchOpenRequested);
    // Enter in the search field opens the highlighted hit (the first) at the match, as launchers do.
    QTest::keyClick(search, Qt::Key_Return);
    QCOMPARE(m_panel->currentSessionId(), hit.id());
    QCOMPARE(opened.size(), 1);
    QCOMPARE(opened.first().first().toString(), hit.id());
    QCOMPARE(openedAt.size(), 1);
    QCOMPARE(openedAt.first().at(1).value<quint64>(), toolSeq);

    QTest::keyClicks(search, QStringLiteral("zzz"));
    search->setFocus();
    QTest::keyClick(search, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(search, QStringLiteral("nothingmatches"));
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), QStringLiteral("No sessions match \u201cnothingmatches\u201d."),
                              5000);

    // Escape clears the search and the full list comes back.
    QTest::keyClick(search, Qt::Key_Escape);
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->model()->sessionCount(), 2, 5000);
    QVERIFY(!m_panel->model()->isSearching());
}

// The index lists the newest 200 sessions of a search; the panel said "200 matching sessions" when 230
// matched. It says how many match and that only the newest are listed.
void TestSessionBrowserPanel::aSearchBeyondTheLimitSaysHowManyMatch()
{
    for (int i = 0; i < SessionIndex::kSearchLimit + 30; ++i) {
        TranscriptWriter session(m_store->root(), workspace(QStringLiteral("alpha")));
        session.user(QStringLiteral("flaky test number %1").arg(i));
    }
    makePanel();
    auto *search = m_panel->findChild<QLineEdit *>(QStringLiteral("sessionSearchField"));
    search->setFocus();
    QTest::keyClicks(search, QStringLiteral("flaky"));
    QTRY_VERIFY(m_panel->model()->isSearching());
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->model()->sessionCount(), SessionIndex::kSearchLimit, 20000);
    auto *status = m_panel->findChild<QLabel *>(QStringLiteral("sessionStatusLabel"));
    QTRY_COMPARE(status->text(),
                 QStringLiteral("The newest 200 of 230 matching sessions; add words to narrow the search."));
    QVERIFY(status->isVisible());
}

void TestSessionBrowserPanel::enterOpensTheSelectedSession()
{
    TranscriptWriter writer(m_store->root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("hello"));
    makePanel();
    QSignalSpy opened(m_panel.get(), &SessionBrowserPanel::sessionOpenRequested);
    QSignalSpy openedAt(m_panel.get(), &SessionBrowserPanel::searchMatchOpenRequested);
    select(writer.id());
    QTest::keyClick(m_tree, Qt::Key_Return);
    QCOMPARE(opened.size(), 1);
    QCOMPARE(opened.first().first().toString(), writer.id());
    QCOMPARE(openedAt.size(), 0);
    // Double-click opens too.
    const QRect rect = m_tree->visualRect(m_tree->currentIndex());
    QTest::mouseClick(m_tree->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(m_tree->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(opened.size(), 2);
}

void TestSessionBrowserPanel::renameWithF2IsStoredBesideTheTranscript()
{
    TranscriptWriter writer(m_store->root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("original first message"));
    makePanel();
    select(writer.id());
    QTest::keyClick(m_tree, Qt::Key_F2);
    auto *editor = m_tree->viewport()->findChild<QLineEdit *>();
    QVERIFY(editor);
    QTRY_VERIFY(editor->hasFocus());
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("Renamed by F2"));
    QTest::keyClick(editor, Qt::Key_Return);

    QTRY_COMPARE_WITH_TIMEOUT(m_store->find(writer.id())->title, QStringLiteral("Renamed by F2"), 5000);
    QVERIFY(QFile::exists(writer.directory() + QStringLiteral("/title.txt")));
    // The transcript itself is untouched.
    QCOMPARE(m_store->load(writer.id())->events.size(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->model()->indexForSession(writer.id()).data().toString(),
                              QStringLiteral("Renamed by F2"), 5000);
}

void TestSessionBrowserPanel::deleteAsksFirstAndCancelKeepsTheSession()
{
    TranscriptWriter writer(m_store->root(), workspace(QStringLiteral("alpha")));
    // A prompt that looks like HTML is shown as typed: a rich-text box would load the picture from disk.
    writer.user(QStringLiteral("keep me <img src=\"/nonexistent/picture.png\">"));
    makePanel();
    select(writer.id());
    QTest::keyClick(m_tree, Qt::Key_Delete);
    auto *box = m_panel->findChild<QMessageBox *>(QStringLiteral("deleteSessionConfirmation"));
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    QVERIFY(box->text().contains(QStringLiteral("keep me <img src=\"/nonexistent/picture.png\">")));
    QCOMPARE(box->textFormat(), Qt::PlainText);
    QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("cancelDeleteButton")), Qt::LeftButton);
    // The box closes and the panel settles (no delete running, nothing loading); the session is still there.
    QTRY_VERIFY(!box->isVisible());
    QTRY_VERIFY(!m_panel->model()->isLoading());
    QVERIFY(QFile::exists(writer.path()));
    QCOMPARE(m_panel->model()->sessionCount(), 1);
}

void TestSessionBrowserPanel::deleteRemovesTheSession()
{
    TranscriptWriter writer(m_store->root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("delete me"));
    TranscriptWriter other(m_store->root(), workspace(QStringLiteral("alpha")));
    other.user(QStringLiteral("stay"));
    makePanel();
    select(writer.id());
    QTest::keyClick(m_tree, Qt::Key_Delete);
    auto *box = m_panel->findChild<QMessageBox *>(QStringLiteral("deleteSessionConfirmation"));
    QVERIFY(box);
    QTest::mouseClick(box->findChild<QPushButton *>(QStringLiteral("confirmDeleteButton")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(writer.path()), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->model()->sessionCount(), 1, 5000);
    QVERIFY(!m_store->find(writer.id()));
    QVERIFY(m_panel->model()->indexForSession(other.id()).isValid());
    auto *status = m_panel->findChild<QLabel *>(QStringLiteral("sessionStatusLabel"));
    QVERIFY(status->text().startsWith(QStringLiteral("Deleted")));
    // Found trying the window: the note stayed under the list of another folder.
    m_panel->setWorkspace(workspace(QStringLiteral("beta")));
    QVERIFY2(!status->text().startsWith(QStringLiteral("Deleted")), qPrintable(status->text()));
    m_panel->setWorkspace(workspace(QStringLiteral("alpha")));
    m_panel->setScope(SessionBrowserPanel::Scope::All);
    QVERIFY2(!status->text().startsWith(QStringLiteral("Deleted")), qPrintable(status->text()));
}

void TestSessionBrowserPanel::exportWritesMarkdown()
{
    TranscriptWriter writer(m_store->root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("Export this conversation"));
    writer.assistant(QStringLiteral("Here is the answer."));
    makePanel();
    select(writer.id());
    QSignalSpy finished(m_panel.get(), &SessionBrowserPanel::actionFinished);
    m_panel->findChild<QAction *>(QStringLiteral("exportSessionAction"))->trigger();
    auto *dialog = m_panel->findChild<QFileDialog *>(QStringLiteral("exportSessionDialog"));
    QVERIFY(dialog);
    QCOMPARE(dialog->acceptMode(), QFileDialog::AcceptSave);
    const QString target = m_env->path(QStringLiteral("exported.md"));
    dialog->selectFile(target);
    QMetaObject::invokeMethod(dialog, &QDialog::accept);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
    QFile file(target);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString markdown = QString::fromUtf8(file.readAll());
    QVERIFY(markdown.startsWith(QStringLiteral("# Export this conversation")));
    QVERIFY(markdown.contains(QStringLiteral("Here is the answer.")));
    QVERIFY(m_panel->findChild<QLabel *>(QStringLiteral("sessionStatusLabel"))
                ->text()
                .startsWith(QStringLiteral("Exported to ")));
}

void TestSessionBrowserPanel::showInFileManagerOpensTheFolder()
{
    TranscriptWriter writer(m_store->root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("where am I"));
    makePanel();
    UrlCatcher catcher;
    QDesktopServices::setUrlHandler(QStringLiteral("file"), &catcher, "open");
    select(writer.id());
    m_panel->findChild<QAction *>(QStringLiteral("showSessionFolderAction"))->trigger();
    QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
    QCOMPARE(catcher.urls.size(), 1);
    QCOMPARE(catcher.urls.first(), QUrl::fromLocalFile(writer.directory()));
}

void TestSessionBrowserPanel::focusSearchFocusesTheField()
{
    makePanel();
    auto *search = m_panel->findChild<QLineEdit *>(QStringLiteral("sessionSearchField"));
    m_tree->setFocus();
    search->setText(QStringLiteral("old query"));
    m_panel->focusSearch();
    QTRY_VERIFY(search->hasFocus());
    QCOMPARE(search->selectedText(), QStringLiteral("old query"));
}

QTEST_MAIN(TestSessionBrowserPanel)
#include "tst_sessionbrowserpanel.moc"
