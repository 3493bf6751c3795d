// The session browser's model: day groups, search results, minimal updates, live refresh from the disk.
#include "displaypath.h"
#include "sessions/sessionlistmodel.h"

#include "sessionfixtures.h"
#include "testenvironment.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QTest>

using namespace keen;
using keen::test::TranscriptWriter;

class TestSessionListModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void groupBoundaries_data();
    void groupBoundaries();
    void groupsFromTranscriptMtimes();
    void onlyNonEmptyGroupsInOrder();
    void sessionRowsCarryTheirData();
    void updatesKeepUnchangedRowsAndMoveChangedOnes();
    void searchResultsShowSnippets();
    void workspaceFilterAndSearchReload();
    void liveUpdateWhenASessionAppends();
    void liveUpdateWhenASessionIsCreatedOrRemoved();
    void editingATitleAsksForARename();

private:
    QString root() const { return m_env->path(QStringLiteral("sessions")); }
    QString workspace(const QString &name) const { return m_env->path(QStringLiteral("work/") + name); }
    static SessionInfo info(const QString &id, const QDateTime &updated, const QString &title = QString());
    static QStringList groupTitles(const SessionListModel &model);
    static QStringList idsIn(const SessionListModel &model, int groupRow);
    static bool waitForRefresh(SessionListModel &model, int timeout = 5000);

    std::unique_ptr<keen::test::TestEnvironment> m_env;
};

void TestSessionListModel::init()
{
    m_env = std::make_unique<keen::test::TestEnvironment>();
    QDir().mkpath(workspace(QStringLiteral("alpha")));
    QDir().mkpath(workspace(QStringLiteral("beta")));
}

void TestSessionListModel::cleanup()
{
    m_env.reset();
}

SessionInfo TestSessionListModel::info(const QString &id, const QDateTime &updated, const QString &title)
{
    SessionInfo session;
    session.id = id;
    session.title = title.isEmpty() ? QStringLiteral("Title of ") + id : title;
    session.updatedAt = updated;
    session.createdAt = updated;
    session.path = QStringLiteral("/sessions/ns/") + id + QStringLiteral("/transcript_events.jsonl");
    session.directory = QStringLiteral("/sessions/ns/") + id;
    session.workspace = QStringLiteral("/work");
    session.lastUserMessage = QStringLiteral("last message of ") + id;
    return session;
}

QStringList TestSessionListModel::groupTitles(const SessionListModel &model)
{
    QStringList titles;
    for (int row = 0; row < model.rowCount(); ++row)
        titles.append(model.index(row, 0).data().toString());
    return titles;
}

QStringList TestSessionListModel::idsIn(const SessionListModel &model, int groupRow)
{
    QStringList ids;
    const QModelIndex group = model.index(groupRow, 0);
    for (int row = 0; row < model.rowCount(group); ++row)
        ids.append(model.index(row, 0, group).data(SessionListModel::SessionIdRole).toString());
    return ids;
}

bool TestSessionListModel::waitForRefresh(SessionListModel &model, int timeout)
{
    QSignalSpy spy(&model, &SessionListModel::refreshed);
    return spy.wait(timeout);
}

void TestSessionListModel::groupBoundaries_data()
{
    QTest::addColumn<int>("daysAgo");
    QTest::addColumn<SessionListModel::Group>("group");
    QTest::newRow("future") << -1 << SessionListModel::Group::Today;
    QTest::newRow("today") << 0 << SessionListModel::Group::Today;
    QTest::newRow("yesterday") << 1 << SessionListModel::Group::Yesterday;
    QTest::newRow("two days") << 2 << SessionListModel::Group::LastSevenDays;
    QTest::newRow("seven days") << 7 << SessionListModel::Group::LastSevenDays;
    QTest::newRow("eight days") << 8 << SessionListModel::Group::Older;
    QTest::newRow("a year") << 365 << SessionListModel::Group::Older;
}

void TestSessionListModel::groupBoundaries()
{
    QFETCH(int, daysAgo);
    QFETCH(SessionListModel::Group, group);
    const QDate today(2024, 3, 1); // across a month and a leap day
    QCOMPARE(SessionListModel::groupFor(today.addDays(-daysAgo), today), group);
}

void TestSessionListModel::groupsFromTranscriptMtimes()
{
    // Real transcripts with controlled modification times, loaded through the index on a worker thread.
    const QDate today = QDate::currentDate();
    const auto at = [&](int daysAgo, int hour) { return QDateTime(today.addDays(-daysAgo), QTime(hour, 0)); };
    struct Made
    {
        int daysAgo;
        int hour;
        QString id;
    };
    QList<Made> made{{0, 9, {}}, {0, 8, {}}, {1, 23, {}}, {3, 12, {}}, {7, 1, {}}, {8, 12, {}}, {40, 12, {}}};
    for (Made &m : made) {
        TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
        writer.user(QStringLiteral("question %1 days ago").arg(m.daysAgo));
        writer.setModified(at(m.daysAgo, m.hour));
        m.id = writer.id();
    }

    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLiveUpdates(false);
    model.setReferenceDate(today);
    model.setSessionsRoot(root());
    QVERIFY(waitForRefresh(model));
    QVERIFY2(model.lastError().isEmpty(), qPrintable(model.lastError()));

    QCOMPARE(groupTitles(model), (QStringList{QStringLiteral("Today"), QStringLiteral("Yesterday"),
                                              QStringLiteral("Last 7 days"), QStringLiteral("Older")}));
    QCOMPARE(idsIn(model, 0), (QStringList{made[0].id, made[1].id}));
    QCOMPARE(idsIn(model, 1), (QStringList{made[2].id}));
    QCOMPARE(idsIn(model, 2), (QStringList{made[3].id, made[4].id}));
    QCOMPARE(idsIn(model, 3), (QStringList{made[5].id, made[6].id}));
    QCOMPARE(model.sessionCount(), 7);
}

void TestSessionListModel::onlyNonEmptyGroupsInOrder()
{
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QDate today(2024, 6, 15);
    model.setReferenceDate(today);
    model.setSessions({info(QStringLiteral("old"), QDateTime(today.addDays(-30), QTime(10, 0))),
                       info(QStringLiteral("now"), QDateTime(today, QTime(10, 0)))});
    QCOMPARE(groupTitles(model), (QStringList{QStringLiteral("Today"), QStringLiteral("Older")}));
    QCOMPARE(model.index(0, 0).data(SessionListModel::IsGroupRole).toBool(), true);
    QVERIFY(!(model.flags(model.index(0, 0)) & Qt::ItemIsSelectable));
    model.setSessions({info(QStringLiteral("now"), QDateTime(today, QTime(10, 0)))});
    QCOMPARE(groupTitles(model), (QStringList{QStringLiteral("Today")}));
    model.setSessions({});
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.firstSession().isValid());
}

void TestSessionListModel::sessionRowsCarryTheirData()
{
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QDate today(2024, 6, 15);
    model.setReferenceDate(today);
    SessionInfo untitled = info(QStringLiteral("b"), QDateTime(today.addDays(-3), QTime(9, 5)));
    untitled.title.clear();
    model.setSessions(
        {info(QStringLiteral("a"), QDateTime(today, QTime(14, 5)), QStringLiteral("Fix the build")),
         untitled});
    const QModelIndex a = model.indexForSession(QStringLiteral("a"));
    QVERIFY(a.isValid());
    QCOMPARE(a.data().toString(), QStringLiteral("Fix the build"));
    QCOMPARE(a.data(SessionListModel::PreviewRole).toString(), QStringLiteral("last message of a"));
    QCOMPARE(a.data(SessionListModel::PathRole).toString(),
             QStringLiteral("/sessions/ns/a/transcript_events.jsonl"));
    QCOMPARE(a.data(SessionListModel::DirectoryRole).toString(), QStringLiteral("/sessions/ns/a"));
    // Hours and minutes in the locale's short form, never seconds.
    const QString time = a.data(SessionListModel::TimeTextRole).toString();
    QVERIFY2(time.contains(QStringLiteral("05")) && !time.contains(QStringLiteral("05:00")),
             qPrintable(time));
    QCOMPARE(a.data(SessionListModel::MatchSeqRole).value<quint64>(), quint64(0));
    QCOMPARE(model.sessionAt(a)->id, QStringLiteral("a"));
    QCOMPARE(model.firstSession(), a);
    const QModelIndex b = model.indexForSession(QStringLiteral("b"));
    QCOMPARE(b.data().toString(), QStringLiteral("Untitled session"));
    QVERIFY(b.data(SessionListModel::TimeTextRole)
                .toString()
                .startsWith(QLocale().dayName(today.addDays(-3).dayOfWeek(), QLocale::ShortFormat)));
    QVERIFY(!model.sessionAt(model.index(0, 0)));
}

void TestSessionListModel::updatesKeepUnchangedRowsAndMoveChangedOnes()
{
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QDate today(2024, 6, 15);
    model.setReferenceDate(today);
    const auto at = [&](int hour) { return QDateTime(today, QTime(hour, 0)); };
    model.setSessions({info(QStringLiteral("a"), at(12)), info(QStringLiteral("b"), at(11)),
                       info(QStringLiteral("c"), at(10))});
    const QPersistentModelIndex c = model.indexForSession(QStringLiteral("c"));
    const QPersistentModelIndex a = model.indexForSession(QStringLiteral("a"));

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy moves(&model, &QAbstractItemModel::rowsMoved);
    QSignalSpy removes(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    // c was appended to: it moves to the top; b is gone; d is new.
    model.setSessions({info(QStringLiteral("c"), at(13)), info(QStringLiteral("a"), at(12)),
                       info(QStringLiteral("d"), at(9))});
    QCOMPARE(idsIn(model, 0), (QStringList{QStringLiteral("c"), QStringLiteral("a"), QStringLiteral("d")}));
    QCOMPARE(resets.size(), 0);
    QCOMPARE(moves.size(), 1);
    QCOMPARE(removes.size(), 1);
    QCOMPARE(inserts.size(), 1);
    // Persistent indexes (selection, current item) follow their session.
    QVERIFY(c.isValid());
    QCOMPARE(c.data(SessionListModel::SessionIdRole).toString(), QStringLiteral("c"));
    QCOMPARE(c.row(), 0);
    QCOMPARE(a.data(SessionListModel::SessionIdRole).toString(), QStringLiteral("a"));

    // A session that crosses into another group keeps the model consistent too.
    model.setSessions({info(QStringLiteral("c"), at(13)), info(QStringLiteral("a"), at(12).addDays(-1))});
    QCOMPARE(groupTitles(model), (QStringList{QStringLiteral("Today"), QStringLiteral("Yesterday")}));
    QCOMPARE(idsIn(model, 1), QStringList{QStringLiteral("a")});
}

void TestSessionListModel::searchResultsShowSnippets()
{
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QDate today(2024, 6, 15);
    model.setReferenceDate(today);
    SessionSearchHit hit;
    hit.session = info(QStringLiteral("a"), QDateTime(today, QTime(8, 0)));
    hit.snippet = QStringLiteral("the quantum widget");
    hit.highlights = {{4, 7}};
    hit.seq = 12;
    model.setSearchResults({hit});
    const QModelIndex a = model.indexForSession(QStringLiteral("a"));
    QCOMPARE(a.data(SessionListModel::PreviewRole).toString(), QStringLiteral("the quantum widget"));
    QCOMPARE(a.data(SessionListModel::HighlightsRole).value<QList<QPoint>>(), QList<QPoint>{QPoint(4, 7)});
    QCOMPARE(a.data(SessionListModel::MatchSeqRole).value<quint64>(), quint64(12));
}

void TestSessionListModel::workspaceFilterAndSearchReload()
{
    TranscriptWriter alpha(root(), workspace(QStringLiteral("alpha")));
    alpha.user(QStringLiteral("llamas in alpha"));
    TranscriptWriter beta(root(), workspace(QStringLiteral("beta")));
    beta.user(QStringLiteral("llamas in beta"));
    beta.assistantWithTool(QStringLiteral("ok"), QStringLiteral("grep"), QJsonObject{},
                           QStringLiteral("found alpacas"));

    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLiveUpdates(false);
    model.setWorkspaceFilter(workspace(QStringLiteral("alpha")));
    model.setSessionsRoot(root());
    QVERIFY(waitForRefresh(model));
    QCOMPARE(model.sessionCount(), 1);
    QVERIFY(model.indexForSession(alpha.id()).isValid());

    model.setWorkspaceFilter(QString());
    QVERIFY(waitForRefresh(model));
    QCOMPARE(model.sessionCount(), 2);

    model.setSearchQuery(QStringLiteral("alpaca"));
    QVERIFY(model.isSearching());
    QVERIFY(waitForRefresh(model));
    QCOMPARE(model.sessionCount(), 1);
    const QModelIndex hit = model.indexForSession(beta.id());
    QVERIFY(hit.isValid());
    QVERIFY(hit.data(SessionListModel::PreviewRole).toString().contains(QStringLiteral("found alpacas")));
    QCOMPARE(hit.data(SessionListModel::MatchSeqRole).value<quint64>(), quint64(3));

    model.setSearchQuery(QString());
    QVERIFY(waitForRefresh(model));
    QCOMPARE(model.sessionCount(), 2);
    // One prompt, which is the title: the row's second line names its folder instead of repeating it.
    QCOMPARE(model.indexForSession(beta.id()).data(Qt::DisplayRole).toString(),
             QStringLiteral("llamas in beta"));
    QCOMPARE(model.indexForSession(beta.id()).data(SessionListModel::PreviewRole).toString(),
             displayPath(workspace(QStringLiteral("beta")))); // "~/..." under the home folder
}

void TestSessionListModel::liveUpdateWhenASessionAppends()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("first"));
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDebounceInterval(50);
    model.setSessionsRoot(root());
    QVERIFY(waitForRefresh(model));
    QCOMPARE(model.indexForSession(writer.id()).data(SessionListModel::PreviewRole).toString(),
             displayPath(workspace(QStringLiteral("alpha")))); // not "first" twice

    writer.user(QStringLiteral("second, appended"));
    QTRY_COMPARE_WITH_TIMEOUT(
        model.indexForSession(writer.id()).data(SessionListModel::PreviewRole).toString(),
        QStringLiteral("second, appended"), 5000);
}

void TestSessionListModel::liveUpdateWhenASessionIsCreatedOrRemoved()
{
    TranscriptWriter first(root(), workspace(QStringLiteral("alpha")));
    first.user(QStringLiteral("first"));
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDebounceInterval(50);
    model.setSessionsRoot(root());
    QVERIFY(waitForRefresh(model));
    QCOMPARE(model.sessionCount(), 1);

    // A new workspace namespace appears under the root.
    TranscriptWriter second(root(), workspace(QStringLiteral("beta")));
    second.user(QStringLiteral("new one"));
    QTRY_COMPARE_WITH_TIMEOUT(model.sessionCount(), 2, 5000);

    QVERIFY(QDir(first.directory()).removeRecursively());
    QTRY_COMPARE_WITH_TIMEOUT(model.sessionCount(), 1, 5000);
    QVERIFY(model.indexForSession(second.id()).isValid());
}

void TestSessionListModel::editingATitleAsksForARename()
{
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSessions({info(QStringLiteral("a"), QDateTime::currentDateTime())});
    QSignalSpy edited(&model, &SessionListModel::titleEdited);
    const QModelIndex a = model.indexForSession(QStringLiteral("a"));
    QVERIFY(model.flags(a) & Qt::ItemIsEditable);
    QVERIFY(model.setData(a, QStringLiteral("  New   name ")));
    QCOMPARE(edited.size(), 1);
    QCOMPARE(edited.first().at(0).toString(), QStringLiteral("a"));
    QCOMPARE(edited.first().at(1).toString(), QStringLiteral("New name"));
    QCOMPARE(a.data().toString(), QStringLiteral("New name"));
    QVERIFY(!model.setData(a, QStringLiteral("   ")));
    QVERIFY(!model.setData(model.index(0, 0), QStringLiteral("group")));
    QCOMPARE(edited.size(), 1);
}

QTEST_MAIN(TestSessionListModel)
#include "tst_sessionlistmodel.moc"
