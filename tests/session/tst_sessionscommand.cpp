// `keen-desktop sessions`: text table, JSON fields, --search through the index, flags and exit codes.
#include "headless/sessionscommand.h"
#include "session/sessionstore.h"

#include "sessionfixtures.h"
#include "testenvironment.h"

#include <QDir>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace keen;
using keen::test::TranscriptWriter;

namespace {

struct Run
{
    int code = -1;
    QString out;
    QString err;
};

Run run(const QStringList &args)
{
    Run result;
    QTextStream out(&result.out);
    QTextStream err(&result.err);
    result.code = runSessionsCommand(args, out, err);
    out.flush();
    err.flush();
    return result;
}

} // namespace

class TestSessionsCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void emptyWorkspaceSaysSo();
    void textTableListsThisWorkspaceNewestFirst();
    void allListsEveryWorkspace();
    void controlCharactersNeverReachTheTerminal();
    void currentDirectoryIsTheDefaultWorkspace();
    void jsonHasTheContractFields();
    void searchPrintsSnippetsNewestFirst();
    void searchJsonAddsSnippet();
    void jsonCutsTheLastPrompt();
    void searchSaysWhenItShowsOnlyTheNewest();
    void searchWithoutMatchesSaysSo();
    void badFlagsPrintUsage_data();
    void badFlagsPrintUsage();
    void helpPrintsUsage();

private:
    QString root() const { return SessionStore::defaultRoot(); }
    QString workspace(const QString &name) const { return m_env->path(QStringLiteral("work/") + name); }

    std::unique_ptr<keen::test::TestEnvironment> m_env;
    QString m_previousDirectory;
};

void TestSessionsCommand::init()
{
    m_env = std::make_unique<keen::test::TestEnvironment>();
    QDir().mkpath(workspace(QStringLiteral("alpha")));
    QDir().mkpath(workspace(QStringLiteral("beta")));
    QVERIFY(root().startsWith(m_env->home()));
    m_previousDirectory = QDir::currentPath();
}

void TestSessionsCommand::cleanup()
{
    QDir::setCurrent(m_previousDirectory);
    m_env.reset();
}

void TestSessionsCommand::emptyWorkspaceSaysSo()
{
    const Run result = run({QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    QCOMPARE(result.out, QStringLiteral("No saved sessions for this directory.\n"));
    QVERIFY(result.err.isEmpty());

    const Run json =
        run({QStringLiteral("--json"), QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(json.code, 0);
    QCOMPARE(QJsonDocument::fromJson(json.out.toUtf8()).array().size(), 0);
    QVERIFY(QJsonDocument::fromJson(json.out.toUtf8()).isArray());
}

void TestSessionsCommand::textTableListsThisWorkspaceNewestFirst()
{
    const QDateTime now = QDateTime::currentDateTime();
    TranscriptWriter older(root(), workspace(QStringLiteral("alpha")));
    older.user(QStringLiteral("Older question"));
    older.setModified(QDateTime(now.date().addDays(-2), QTime(9, 30)));
    TranscriptWriter newer(root(), workspace(QStringLiteral("alpha")));
    newer.user(QStringLiteral("Newer question"));
    newer.setModified(QDateTime(now.date().addDays(-1), QTime(14, 5)));
    TranscriptWriter other(root(), workspace(QStringLiteral("beta")));
    other.user(QStringLiteral("Other workspace"));

    const Run result = run({QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    const QStringList lines = result.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines.at(0).startsWith(QStringLiteral("ID ")));
    QVERIFY(lines.at(0).contains(QStringLiteral("UPDATED")));
    QVERIFY(lines.at(0).contains(QStringLiteral("TITLE")));
    QVERIFY(lines.at(1).startsWith(newer.id()));
    QVERIFY(lines.at(1).contains(now.date().addDays(-1).toString(QStringLiteral("yyyy-MM-dd")) +
                                 QStringLiteral(" 14:05")));
    QVERIFY(lines.at(1).endsWith(QStringLiteral("Newer question")));
    QVERIFY(lines.at(2).startsWith(older.id()));
    QVERIFY(lines.at(2).endsWith(QStringLiteral("Older question")));
    // Columns line up.
    QCOMPARE(lines.at(1).indexOf(QStringLiteral("Newer")), lines.at(0).indexOf(QStringLiteral("TITLE")));
    QVERIFY(!result.out.contains(QStringLiteral("Other workspace")));
}

// Found trying it headless: a prompt with an escape sequence recoloured the terminal when `sessions` printed
// its title. The table shows control characters as U+FFFD; --json keeps the text as it is (escaped).
void TestSessionsCommand::controlCharactersNeverReachTheTerminal()
{
    TranscriptWriter session(root(), workspace(QStringLiteral("alpha")));
    const QString prompt = QStringLiteral("say \x1b[31mRED\x07 and\ttab");
    session.user(prompt);
    const Run result = run({QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    for (const QChar c : result.out)
        QVERIFY2(c == QLatin1Char('\n') || c.category() != QChar::Other_Control, qPrintable(result.out));
    QVERIFY2(result.out.contains(QStringLiteral("say \uFFFD[31mRED\uFFFD and")), qPrintable(result.out));

    const Run json =
        run({QStringLiteral("--json"), QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    const QString title = QJsonDocument::fromJson(json.out.toUtf8())
                              .array()
                              .at(0)
                              .toObject()
                              .value(QStringLiteral("title"))
                              .toString();
    QVERIFY2(title.contains(QStringLiteral("\x1b[31mRED")), qPrintable(title));
}

void TestSessionsCommand::allListsEveryWorkspace()
{
    TranscriptWriter one(root(), workspace(QStringLiteral("alpha")));
    one.user(QStringLiteral("first"));
    TranscriptWriter two(root(), workspace(QStringLiteral("beta")));
    two.user(QStringLiteral("second"));
    const Run result =
        run({QStringLiteral("--all"), QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    QVERIFY(result.out.contains(one.id()));
    QVERIFY(result.out.contains(two.id()));

    QVERIFY(QDir(one.directory()).removeRecursively());
    QVERIFY(QDir(two.directory()).removeRecursively());
    QCOMPARE(run({QStringLiteral("--all")}).out, QStringLiteral("No saved sessions.\n"));
}

void TestSessionsCommand::currentDirectoryIsTheDefaultWorkspace()
{
    TranscriptWriter here(root(), workspace(QStringLiteral("beta")));
    here.user(QStringLiteral("from beta"));
    QVERIFY(QDir::setCurrent(workspace(QStringLiteral("beta"))));
    const Run result = run({});
    QCOMPARE(result.code, 0);
    QVERIFY2(result.out.contains(here.id()), qPrintable(result.out));
    QVERIFY(QDir::setCurrent(workspace(QStringLiteral("alpha"))));
    QCOMPARE(run({}).out, QStringLiteral("No saved sessions for this directory.\n"));
}

void TestSessionsCommand::jsonHasTheContractFields()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")), QString(),
                            QDateTime(QDate(2024, 3, 1), QTime(10, 0), Qt::UTC));
    writer.user(QStringLiteral("  first\n prompt "));
    writer.assistant(QStringLiteral("answer"));
    writer.user(QStringLiteral("last   prompt"));
    const QDateTime modified(QDate(2024, 3, 2), QTime(11, 30), Qt::UTC);
    writer.setModified(modified);

    const Run result =
        run({QStringLiteral("--json"), QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(result.out.toUtf8(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonArray array = document.array();
    QCOMPARE(array.size(), 1);
    const QJsonObject session = array.first().toObject();
    QStringList keys = session.keys();
    keys.sort();
    QCOMPARE(keys, (QStringList{QStringLiteral("created_at"), QStringLiteral("id"),
                                QStringLiteral("last_seq"), QStringLiteral("last_user_message"),
                                QStringLiteral("path"), QStringLiteral("title"), QStringLiteral("updated_at"),
                                QStringLiteral("workspace")}));
    QCOMPARE(session.value(QStringLiteral("id")).toString(), writer.id());
    QCOMPARE(session.value(QStringLiteral("path")).toString(), writer.path());
    QCOMPARE(session.value(QStringLiteral("workspace")).toString(), workspace(QStringLiteral("alpha")));
    QCOMPARE(session.value(QStringLiteral("title")).toString(), QStringLiteral("first prompt"));
    QCOMPARE(session.value(QStringLiteral("last_user_message")).toString(), QStringLiteral("last prompt"));
    QCOMPARE(session.value(QStringLiteral("last_seq")).toInt(), 4);
    QCOMPARE(QDateTime::fromString(session.value(QStringLiteral("created_at")).toString(), Qt::ISODateWithMs),
             QDateTime(QDate(2024, 3, 1), QTime(10, 0), Qt::UTC));
    QCOMPARE(QDateTime::fromString(session.value(QStringLiteral("updated_at")).toString(), Qt::ISODateWithMs),
             modified);
}

void TestSessionsCommand::searchPrintsSnippetsNewestFirst()
{
    const QDateTime now = QDateTime::currentDateTime();
    TranscriptWriter older(root(), workspace(QStringLiteral("alpha")));
    older.user(QStringLiteral("tune the carburetor"));
    older.setModified(now.addDays(-3));
    TranscriptWriter newer(root(), workspace(QStringLiteral("alpha")));
    newer.user(QStringLiteral("check the logs"));
    newer.assistantWithTool(QStringLiteral("Looking."), QStringLiteral("bash"), QJsonObject{},
                            QStringLiteral("warning: carburetor flooded"));
    newer.setModified(now.addSecs(-10));
    TranscriptWriter elsewhere(root(), workspace(QStringLiteral("beta")));
    elsewhere.user(QStringLiteral("carburetor elsewhere"));

    const Run result = run({QStringLiteral("--search"), QStringLiteral("carbur"),
                            QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    const QStringList lines = result.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines.at(1).startsWith(newer.id()));
    QVERIFY(lines.at(2).trimmed().contains(QStringLiteral("**carburetor** flooded")));
    QVERIFY(lines.at(3).startsWith(older.id()));
    QVERIFY(lines.at(4).contains(QStringLiteral("tune the **carburetor**")));

    const Run all = run({QStringLiteral("--all"), QStringLiteral("--search=carburetor")});
    QCOMPARE(all.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 7);
}

// Tried as a user, 2026-12-04: --json carried each session's whole last prompt (a pasted log: 100 KB per
// session). It is cut at 200 characters with an ellipsis, never inside a surrogate pair.
void TestSessionsCommand::jsonCutsTheLastPrompt()
{
    TranscriptWriter pasted(root(), workspace(QStringLiteral("alpha")));
    // The 199th and 200th characters are the two halves of one emoji.
    const QString emoji = QStringLiteral("\U0001F680");
    const QString prompt =
        QString(198, QLatin1Char('x')) + emoji + QStringLiteral(" log line").repeated(12000);
    pasted.user(prompt);
    TranscriptWriter exact(root(), workspace(QStringLiteral("alpha")));
    const QString twoHundred = QString(200, QLatin1Char('y'));
    exact.user(twoHundred);
    TranscriptWriter cutAfterPair(root(), workspace(QStringLiteral("alpha")));
    const QString pairFits = QString(197, QLatin1Char('z')) + emoji + QStringLiteral(" tail");
    cutAfterPair.user(pairFits);

    const Run result =
        run({QStringLiteral("--json"), QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    QVERIFY2(result.out.size() < 4000, qPrintable(QString::number(result.out.size())));
    QHash<QString, QString> last;
    for (const QJsonValue &value : QJsonDocument::fromJson(result.out.toUtf8()).array()) {
        const QJsonObject session = value.toObject();
        last.insert(session.value(QStringLiteral("id")).toString(),
                    session.value(QStringLiteral("last_user_message")).toString());
    }
    QCOMPARE(last.size(), 3);
    // The emoji would not fit whole before the ellipsis: it is left out, not split.
    QCOMPARE(last.value(pasted.id()), QString(198, QLatin1Char('x')) + QChar(0x2026));
    QCOMPARE(last.value(exact.id()), twoHundred);
    QCOMPARE(last.value(cutAfterPair.id()), QString(197, QLatin1Char('z')) + emoji + QChar(0x2026));
    QCOMPARE(last.value(cutAfterPair.id()).size(), 200);
}

// --search shows at most 200 sessions; when more match, stderr says how many there are.
void TestSessionsCommand::searchSaysWhenItShowsOnlyTheNewest()
{
    for (int i = 0; i < 202; ++i) {
        TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
        writer.user(QStringLiteral("ornithopter %1").arg(i));
    }
    const QStringList search{QStringLiteral("--search"), QStringLiteral("ornithopter"),
                             QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))};
    const Run text = run(search);
    QCOMPARE(text.code, 0);
    QCOMPARE(text.out.count(QStringLiteral("**ornithopter**")), 200);
    QCOMPARE(
        text.err,
        QStringLiteral("Showing the newest 200 of 202 matching sessions; add words to narrow the search.\n"));
    const Run json = run(QStringList{QStringLiteral("--json")} + search);
    QCOMPARE(QJsonDocument::fromJson(json.out.toUtf8()).array().size(), 200);
    QCOMPARE(json.err, text.err);

    // Under the limit nothing is said.
    const Run few = run({QStringLiteral("--search"), QStringLiteral("ornithopter 201"),
                         QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(few.code, 0);
    QVERIFY2(few.err.isEmpty(), qPrintable(few.err));
}

void TestSessionsCommand::searchJsonAddsSnippet()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("remember the word zeppelin"));
    writer.compaction(QString(), QStringLiteral("summary without it"));
    const Run result = run({QStringLiteral("--json"), QStringLiteral("--search"), QStringLiteral("zeppelin"),
                            QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    const QJsonArray array = QJsonDocument::fromJson(result.out.toUtf8()).array();
    QCOMPARE(array.size(), 1);
    const QJsonObject hit = array.first().toObject();
    QCOMPARE(hit.value(QStringLiteral("id")).toString(), writer.id());
    QCOMPARE(hit.value(QStringLiteral("snippet")).toString(),
             QStringLiteral("remember the word **zeppelin**"));
    QCOMPARE(hit.value(QStringLiteral("last_seq")).toInt(), 3);
    QVERIFY(hit.contains(QStringLiteral("last_user_message")));
    QVERIFY(hit.contains(QStringLiteral("created_at")));
}

void TestSessionsCommand::searchWithoutMatchesSaysSo()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("hello"));
    const Run result = run({QStringLiteral("--search"), QStringLiteral("goodbye"),
                            QStringLiteral("--workspace"), workspace(QStringLiteral("alpha"))});
    QCOMPARE(result.code, 0);
    QCOMPARE(result.out, QStringLiteral("No saved sessions match \"goodbye\".\n"));
}

void TestSessionsCommand::badFlagsPrintUsage_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("unknown flag") << QStringList{QStringLiteral("--bogus")};
    QTest::newRow("stray word") << QStringList{QStringLiteral("list")};
    QTest::newRow("search without value") << QStringList{QStringLiteral("--search")};
    QTest::newRow("blank search") << QStringList{QStringLiteral("--search"), QStringLiteral("  ")};
    QTest::newRow("workspace without value")
        << QStringList{QStringLiteral("--json"), QStringLiteral("--workspace")};
}

void TestSessionsCommand::badFlagsPrintUsage()
{
    QFETCH(QStringList, args);
    const Run result = run(args);
    QCOMPARE(result.code, 2);
    QVERIFY(result.out.isEmpty());
    QVERIFY(result.err.startsWith(QStringLiteral("Error: ")));
    QVERIFY(result.err.contains(QStringLiteral("Usage: keen-desktop sessions")));
}

void TestSessionsCommand::helpPrintsUsage()
{
    const Run result = run({QStringLiteral("--help")});
    QCOMPARE(result.code, 0);
    QVERIFY(result.out.startsWith(QStringLiteral("Usage: keen-desktop sessions")));
}

QTEST_GUILESS_MAIN(TestSessionsCommand)
#include "tst_sessionscommand.moc"
