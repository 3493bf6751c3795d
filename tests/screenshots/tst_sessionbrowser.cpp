// Screenshots of the session browser under a real X server (xvfb-run): the grouped list and search results.
#include "sessions/sessionbrowserpanel.h"
#include "sessions/sessionlistmodel.h"

#include "sessionfixtures.h"
#include "testenvironment.h"

#include <QDir>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

using namespace keen;
using keen::test::TranscriptWriter;

class TestSessionBrowserScreenshot : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void groupedList();
    void searchResults();
    void cleanupTestCase();

private:
    void save(const QString &name);

    std::unique_ptr<keen::test::TestEnvironment> m_env;
    std::shared_ptr<SessionStore> m_store;
    std::unique_ptr<SessionBrowserPanel> m_panel;
    QString m_workspace;
};

void TestSessionBrowserScreenshot::initTestCase()
{
    m_env = std::make_unique<keen::test::TestEnvironment>();
    m_workspace = m_env->path(QStringLiteral("projects/keen"));
    QDir().mkpath(m_workspace);
    m_store = std::make_shared<SessionStore>(SessionStore::defaultRoot());

    const QDateTime now = QDateTime::currentDateTime();
    const QDate today = now.date();
    struct Seed
    {
        QDateTime when;
        QString question;
        QString answer;
        QString toolOutput;
    };
    const QList<Seed> seeds{
        {QDateTime(today, QTime(9, 40)), QStringLiteral("Why does the SSE parser drop the last event?"),
         QStringLiteral("The buffer is flushed only on a blank line."),
         QStringLiteral("tst_sseparser: FAIL lastEventWithoutBlankLine")},
        {QDateTime(today, QTime(8, 5)), QStringLiteral("Add a retry with backoff to the Anthropic client"),
         QStringLiteral("Done: retries 429 and 529 with jittered backoff."), QString()},
        {QDateTime(today.addDays(-1), QTime(17, 30)), QStringLiteral("Summarise the compaction design"),
         QStringLiteral("Manual and automatic compaction share one prompt."), QString()},
        {QDateTime(today.addDays(-3), QTime(11, 15)), QStringLiteral("Fix the flaky parser test on CI"),
         QStringLiteral("The parser test depended on chunk timing."),
         QStringLiteral("ctest: 1 of 48 tests failed: tst_sseparser (parser timeout)")},
        {QDateTime(today.addDays(-6), QTime(15, 0)), QStringLiteral("Package the app as a .deb"),
         QStringLiteral("Added packaging/debian with dh."), QString()},
        {QDateTime(today.addDays(-20), QTime(10, 0)), QStringLiteral("Initial project skeleton"),
         QStringLiteral("Created the CMake targets."), QString()},
    };
    for (const Seed &seed : seeds) {
        TranscriptWriter writer(m_store->root(), m_workspace, QString(), seed.when);
        writer.user(seed.question);
        if (seed.toolOutput.isEmpty())
            writer.assistant(seed.answer);
        else
            writer.assistantWithTool(seed.answer, QStringLiteral("bash"),
                                     QJsonObject{{QStringLiteral("command"), QStringLiteral("ctest")}},
                                     seed.toolOutput);
        writer.setModified(seed.when);
    }
    // Renamed sessions show their own title.
    const auto listed = m_store->list(m_workspace);
    QVERIFY(listed.size() == seeds.size());
    QVERIFY(m_store->rename(listed.at(2).id, QStringLiteral("Compaction design notes")).ok());

    m_panel = std::make_unique<SessionBrowserPanel>();
    m_panel->resize(380, 620);
    m_panel->setWorkspace(m_workspace);
    QSignalSpy refreshed(m_panel->model(), &SessionListModel::refreshed);
    m_panel->setStore(m_store);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
    // The load may already have finished while the window was exposed: wait on what the spy recorded.
    QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty() && !m_panel->model()->isLoading(), 5000);
}

void TestSessionBrowserScreenshot::save(const QString &name)
{
    // Layout requests are queued: deliver them (no fixed sleep) before grabbing.
    QTRY_VERIFY(!m_panel->model()->isLoading());
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    const QImage image = m_panel->grab().toImage();
    QVERIFY(!image.isNull());
    const QString directory = qEnvironmentVariable("KEEN_SCREENSHOT_DIR", QDir::tempPath());
    QDir().mkpath(directory);
    const QString path = QDir(directory).filePath(name);
    QVERIFY2(image.save(path), qPrintable(path));
    qInfo("screenshot: %s", qPrintable(path));
}

void TestSessionBrowserScreenshot::groupedList()
{
    auto *tree = m_panel->findChild<QTreeView *>(QStringLiteral("sessionTree"));
    QCOMPARE(m_panel->model()->rowCount(), 4);
    tree->setCurrentIndex(m_panel->model()->firstSession());
    tree->setFocus();
    save(QStringLiteral("sessionbrowser-list.png"));
}

void TestSessionBrowserScreenshot::searchResults()
{
    auto *search = m_panel->findChild<QLineEdit *>(QStringLiteral("sessionSearchField"));
    QSignalSpy refreshed(m_panel->model(), &SessionListModel::refreshed);
    search->setText(QStringLiteral("parser"));
    QTRY_VERIFY_WITH_TIMEOUT(m_panel->model()->isSearching() && !refreshed.isEmpty() &&
                                 !m_panel->model()->isLoading() && m_panel->model()->sessionCount() == 2,
                             5000);
    auto *tree = m_panel->findChild<QTreeView *>(QStringLiteral("sessionTree"));
    tree->setCurrentIndex(m_panel->model()->firstSession());
    save(QStringLiteral("sessionbrowser-search.png"));
}

void TestSessionBrowserScreenshot::cleanupTestCase()
{
    m_panel.reset();
    m_store.reset();
    m_env.reset();
}

QTEST_MAIN(TestSessionBrowserScreenshot)
#include "tst_sessionbrowser.moc"
