// The session search index: built from transcripts, incremental, rebuilt when stale or corrupt, only a cache.
#include "session/sessionindex.h"
#include "session/sessionstore.h"

#include "sessionfixtures.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QtConcurrent>

using namespace keen;
using keen::test::TranscriptWriter;

class TestSessionIndex : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void databaseLivesBesideTheSessionsRoot();
    void indexBuiltFromTranscripts();
    void searchFindsToolInputAndOutput();
    void toolSnippetsReadAsValuesNotJson();
    void markdownSnippetsReadWithoutMarks();
    void searchFindsPreCompactionText();
    void searchRequiresEveryTermAsPrefix();
    void aPastedLogOf100000LinesIsSearchedThrough();
    void searchResultsAreNewestFirst();
    void searchFiltersByWorkspace();
    void userInputIsNeverFtsSyntax_data();
    void userInputIsNeverFtsSyntax();
    void updateReadsOnlyNewLines();
    void unchangedTranscriptReadsNothing();
    void tornLastLineWaitsForItsNewline();
    void atomicBatchReplaceIsAppend();
    void rewrittenTranscriptIsRebuilt();
    void shrunkTranscriptIsRebuilt();
    void corruptDatabaseIsRebuilt();
    void oldSchemaIsRebuilt();
    void deletingTheDatabaseLosesNothing();
    void removedSessionLeavesTheIndex();
    void listingMatchesTheStoreAndFollowsRenames();
    void worksOnWorkerThreads();

private:
    QString root() const { return m_env->path(QStringLiteral("sessions")); }
    QString workspace(const QString &name) const { return m_env->path(QStringLiteral("work/") + name); }

    std::unique_ptr<keen::test::TestEnvironment> m_env;
};

void TestSessionIndex::init()
{
    m_env = std::make_unique<keen::test::TestEnvironment>();
    QDir().mkpath(workspace(QStringLiteral("alpha")));
    QDir().mkpath(workspace(QStringLiteral("beta")));
}

void TestSessionIndex::cleanup()
{
    m_env.reset();
}

void TestSessionIndex::databaseLivesBesideTheSessionsRoot()
{
    QCOMPARE(SessionIndex::defaultDatabasePath(QStringLiteral("/home/u/.keen/sessions")),
             QStringLiteral("/home/u/.keen/index/sessions.sqlite"));
    SessionIndex index(root());
    QCOMPARE(index.databasePath(), m_env->path(QStringLiteral("index/sessions.sqlite")));
    QVERIFY(index.update().ok());
    QVERIFY(QFile::exists(index.databasePath()));
}

void TestSessionIndex::indexBuiltFromTranscripts()
{
    TranscriptWriter first(root(), workspace(QStringLiteral("alpha")));
    first.user(QStringLiteral("Please refactor the flux capacitor"));
    const quint64 answerSeq = first.assistant(QStringLiteral("The capacitor now uses a quantum widget."));
    TranscriptWriter second(root(), workspace(QStringLiteral("beta")));
    second.user(QStringLiteral("Something unrelated"));

    SessionIndex index(root());
    const auto stats = index.update();
    QVERIFY2(stats.ok(), qPrintable(stats.error()));
    QVERIFY(stats->fullRebuild);
    QCOMPARE(stats->sessionsScanned, 2);
    QCOMPARE(stats->linesRead, qint64(first.lastSeq() + second.lastSeq()));

    const auto hits = index.search(QStringLiteral("quantum"));
    QVERIFY2(hits.ok(), qPrintable(hits.error()));
    QCOMPARE(hits->size(), 1);
    const SessionSearchHit &hit = hits->first();
    QCOMPARE(hit.session.id, first.id());
    QCOMPARE(hit.session.path, first.path());
    QCOMPARE(hit.session.directory, first.directory());
    QCOMPARE(hit.session.workspace, workspace(QStringLiteral("alpha")));
    QCOMPARE(hit.session.title, QStringLiteral("Please refactor the flux capacitor"));
    QCOMPARE(hit.session.lastUserMessage, QStringLiteral("Please refactor the flux capacitor"));
    QCOMPARE(hit.session.lastSeq, first.lastSeq());
    QCOMPARE(hit.seq, answerSeq);
    QCOMPARE(hit.source, QStringLiteral("assistant"));
    QVERIFY(hit.snippet.contains(QStringLiteral("quantum widget")));
    QCOMPARE(hit.highlights.size(), 1);
    QCOMPARE(hit.snippet.mid(hit.highlights.first().first, hit.highlights.first().second),
             QStringLiteral("quantum"));
    QVERIFY(hit.markedSnippet(QStringLiteral("**"), QStringLiteral("**"))
                .contains(QStringLiteral("**quantum**")));

    const auto userHits = index.search(QStringLiteral("flux"));
    QCOMPARE(userHits->size(), 1);
    QCOMPARE(userHits->first().source, QStringLiteral("user"));
    QCOMPARE(userHits->first().seq, quint64(2));
}

void TestSessionIndex::searchFindsToolInputAndOutput()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("what is in the config?"));
    const quint64 toolSeq =
        writer.assistantWithTool(QStringLiteral("Reading it."), QStringLiteral("read_file"),
                                 QJsonObject{{QStringLiteral("path"), QStringLiteral("settings.yaml")}},
                                 QStringLiteral("listen_port: 8443\nmagnetron_mode: on"));
    SessionIndex index(root());
    const auto output = index.search(QStringLiteral("magnetron"));
    QVERIFY2(output.ok(), qPrintable(output.error()));
    QCOMPARE(output->size(), 1);
    QCOMPARE(output->first().seq, toolSeq);
    QCOMPARE(output->first().source, QStringLiteral("tool_output"));
    QVERIFY(output->first().snippet.contains(QStringLiteral("magnetron_mode")));

    const auto input = index.search(QStringLiteral("settings.yaml"));
    QCOMPARE(input->size(), 1);
    QCOMPARE(input->first().source, QStringLiteral("tool_input"));
}

// Tried as a user, 2026-12-04: a match inside a tool call showed its raw JSON as the snippet
// (`read_file {"limit":200,"offset":1,"path":"src/main.cpp"}`). The values read as text and stay findable.
void TestSessionIndex::toolSnippetsReadAsValuesNotJson()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("what does the entry point do?"));
    const quint64 readSeq = writer.assistantWithTool(
        QStringLiteral("Reading it."), QStringLiteral("read_file"),
        QJsonObject{{QStringLiteral("path"), QStringLiteral("src/main.cpp")},
                    {QStringLiteral("offset"), 1},
                    {QStringLiteral("limit"), 200}},
        QJsonObject{{QStringLiteral("content"), QStringLiteral("int main() { return frobnicate(argc); }")},
                    {QStringLiteral("has_more"), false}});
    const quint64 editSeq = writer.assistantWithTool(
        QStringLiteral("Renaming."), QStringLiteral("edit_file"),
        QJsonObject{{QStringLiteral("path"), QStringLiteral("src/app.cpp")},
                    {QStringLiteral("old_string"), QStringLiteral("int quuxCount = 0;")},
                    {QStringLiteral("new_string"), QStringLiteral("int quuxTotal = 0;")}},
        QStringLiteral(R"({"status":"error","message":"old_string matched 2 places in src/app.cpp"})"));
    SessionIndex index(root());

    auto noJson = [](const SessionSearchHit &hit) {
        for (const QString &syntax :
             {QStringLiteral("{\""), QStringLiteral("\":"), QStringLiteral("\",\""), QStringLiteral("\"}"),
              QStringLiteral("has_more"), QStringLiteral("false")})
            QVERIFY2(!hit.snippet.contains(syntax), qPrintable(hit.snippet));
    };
    const auto input = index.search(QStringLiteral("main.cpp"));
    QVERIFY2(input.ok(), qPrintable(input.error()));
    QCOMPARE(input->size(), 1);
    QCOMPARE(input->first().seq, readSeq);
    QCOMPARE(input->first().source, QStringLiteral("tool_input"));
    QVERIFY2(input->first().snippet.startsWith(QStringLiteral("read_file src/main.cpp")),
             qPrintable(input->first().snippet));
    noJson(input->first());

    // Found when tried: a read's output is its file's text with a "NUMBER:HASH|" prefix on each line, and a
    // search for "abc" (or "add", "bad", "fed") found the hash of a line in every file read, with snippets
    // like "215:abc|line 214". The text is indexed without the prefixes.
    const quint64 hashedSeq = writer.assistantWithTool(
        QStringLiteral("Reading the notes."), QStringLiteral("read_file"),
        QJsonObject{{QStringLiteral("path"), QStringLiteral("notes.txt")}},
        QJsonObject{{QStringLiteral("content"), QStringLiteral("1:add|first note\n2:bad|second zebra note")},
                    {QStringLiteral("total_lines"), 2}});
    QVERIFY(index.update().ok());
    const auto hashes = index.search(QStringLiteral("add"));
    QVERIFY2(hashes.ok(), qPrintable(hashes.error()));
    QVERIFY(hashes->isEmpty());
    const auto zebra = index.search(QStringLiteral("zebra"));
    QCOMPARE(zebra->size(), 1);
    QCOMPARE(zebra->first().seq, hashedSeq);
    QCOMPARE(zebra->first().snippet, QStringLiteral("first note second zebra note"));

    const auto output = index.search(QStringLiteral("frobnicate"));
    QCOMPARE(output->size(), 1);
    QCOMPARE(output->first().source, QStringLiteral("tool_output"));
    QCOMPARE(output->first().snippet, QStringLiteral("int main() { return frobnicate(argc); }"));
    QVERIFY(output->first()
                .markedSnippet(QStringLiteral("**"), QStringLiteral("**"))
                .contains(QStringLiteral("**frobnicate**")));

    // A string value inside the arguments, with its context; a result that is JSON text reads the same way.
    const auto argument = index.search(QStringLiteral("quuxTotal"));
    QCOMPARE(argument->size(), 1);
    QCOMPARE(argument->first().seq, editSeq);
    QVERIFY2(argument->first().snippet.contains(QStringLiteral("int quuxTotal = 0;")),
             qPrintable(argument->first().snippet));
    noJson(argument->first());
    const auto message = index.search(QStringLiteral("matched 2 places"));
    QCOMPARE(message->size(), 1);
    QCOMPARE(message->first().source, QStringLiteral("tool_output"));
    QVERIFY2(message->first().snippet.contains(QStringLiteral("old_string matched 2 places in src/app.cpp")),
             qPrintable(message->first().snippet));
    noJson(message->first());
}

// Tried as a user, 2026-12-05: a manual summary's snippet read "Context compacted. ## Goal Keep working on".
// A reply's or a summary's snippet reads without a heading's hashes and bold marks, its match still
// highlighted; a command's output keeps its characters as they were.
void TestSessionIndex::markdownSnippetsReadWithoutMarks()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("summarise"));
    writer.assistant(QStringLiteral("## Goal\nKeep **working** on the parser.\n\n### Next\n- Ship #42 soon"));
    writer.assistantWithTool(QStringLiteral("Running it."), QStringLiteral("bash"),
                             QJsonObject{{QStringLiteral("command"), QStringLiteral("make")}},
                             QStringLiteral("## zebrafish **built**"));
    SessionIndex index(root());
    const auto hits = index.search(QStringLiteral("working"));
    QVERIFY2(hits.ok(), qPrintable(hits.error()));
    QCOMPARE(hits->size(), 1);
    const SessionSearchHit &hit = hits->first();
    QCOMPARE(hit.snippet, QStringLiteral("Goal Keep working on the parser. Next - Ship #42 soon"));
    QCOMPARE(hit.highlights.size(), 1);
    QCOMPARE(hit.snippet.mid(hit.highlights.first().first, hit.highlights.first().second),
             QStringLiteral("working"));
    const auto heading = index.search(QStringLiteral("goal"));
    QCOMPARE(heading->size(), 1);
    QCOMPARE(heading->first().snippet.mid(heading->first().highlights.first().first,
                                          heading->first().highlights.first().second),
             QStringLiteral("Goal"));
    QVERIFY2(heading->first().snippet.startsWith(QStringLiteral("Goal Keep")),
             qPrintable(heading->first().snippet));
    const auto output = index.search(QStringLiteral("zebrafish"));
    QCOMPARE(output->size(), 1);
    QCOMPARE(output->first().snippet, QStringLiteral("## zebrafish **built**"));
}

// proves S17, S54: the private automatic summary is never indexed, so search never shows a snippet of it.
void TestSessionIndex::searchFindsPreCompactionText()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    const quint64 before = writer.user(QStringLiteral("the secret word is xylophone"));
    writer.assistant(QStringLiteral("Noted the instrument."));
    // An automatic compaction checkpoints the turn so far (its text and tool output), then replaces the
    // conversation with a private summary that no longer holds the word.
    const quint64 checkpoint =
        writer.assistantWithTool(QStringLiteral("Reading the tuning table."), QStringLiteral("read_file"),
                                 QJsonObject{{QStringLiteral("path"), QStringLiteral("tuning.txt")}},
                                 QStringLiteral("glockenspiel 440"));
    writer.compaction(QString(), QStringLiteral("<compacted_context>\nprivate marimba summary\n"
                                                "</compacted_context>\n\n<last_user_message>\ncontinue"
                                                "\n</last_user_message>"));
    writer.user(QStringLiteral("continue"));

    SessionIndex index(root());
    const auto hits = index.search(QStringLiteral("xylophone"));
    QVERIFY2(hits.ok(), qPrintable(hits.error()));
    QCOMPARE(hits->size(), 1);
    QCOMPARE(hits->first().seq, before);

    // The checkpointed turn and its tool output are findable where they were written.
    const auto text = index.search(QStringLiteral("tuning table"));
    QCOMPARE(text->size(), 1);
    QCOMPARE(text->first().seq, checkpoint);
    QCOMPARE(text->first().source, QStringLiteral("assistant"));
    const auto output = index.search(QStringLiteral("glockenspiel"));
    QCOMPARE(output->size(), 1);
    QCOMPARE(output->first().seq, checkpoint);
    QCOMPARE(output->first().source, QStringLiteral("tool_output"));

    // The private summary is not: neither its words nor its wrapper.
    QCOMPARE(index.search(QStringLiteral("marimba"))->size(), 0);
    QCOMPARE(index.search(QStringLiteral("compacted_context"))->size(), 0);
    const auto continued = index.search(QStringLiteral("continue"));
    QVERIFY(continued.ok());
    for (const SessionSearchHit &hit : *continued)
        QVERIFY2(!hit.snippet.contains(QLatin1String("marimba")), qPrintable(hit.snippet));

    // A manual compaction's status and visible summary were shown to the person and are indexed.
    const quint64 manual = writer.compaction(QStringLiteral("Context compacted."),
                                             QStringLiteral("## Key Instructions\nbe brief"),
                                             QStringLiteral("Visible summary about penguins"));
    const auto penguins = index.search(QStringLiteral("penguins"));
    QCOMPARE(penguins->size(), 1);
    QCOMPARE(penguins->first().seq, manual);
    QCOMPARE(penguins->first().source, QStringLiteral("compaction"));
    QCOMPARE(index.search(QStringLiteral("be brief"))->size(), 1);
    QCOMPARE(index.search(QStringLiteral("Context compacted"))->size(), 1);
    QCOMPARE(index.search(QStringLiteral("marimba"))->size(), 0);
}

void TestSessionIndex::searchRequiresEveryTermAsPrefix()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("deploy the kubernetes cluster"));
    SessionIndex index(root());
    QCOMPARE(index.search(QStringLiteral("kube"))->size(), 1);
    QCOMPARE(index.search(QStringLiteral("kube deploy"))->size(), 1);
    QCOMPARE(index.search(QStringLiteral("kube nomad"))->size(), 0);
    QCOMPARE(index.search(QStringLiteral("KUBERNETES"))->size(), 1);
    QCOMPARE(index.search(QStringLiteral("   "))->size(), 0);
}

// Found when tried: a session holding a pasted 100,000-line log whose every line said "pasted" made a search
// for that word take 100 s (the snippet of a text with 100,000 matches). Long texts are indexed in passages:
// a word on the log's last lines is found with the lines around it, a word on every line is found once per
// session, and the words of a query still meet in a passage.
void TestSessionIndex::aPastedLogOf100000LinesIsSearchedThrough()
{
    QString log;
    for (int line = 0; line < 100000; ++line)
        log += QStringLiteral("line %1: some pasted log output src/file%1.cpp:123 error E%1\n").arg(line);
    log += QStringLiteral("line 100000: the zeppelin crashed in src/final.cpp\n");
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(log);
    writer.assistant(QStringLiteral("The log ends in a crash."));
    SessionIndex index(root());

    int matching = 0;
    const auto everyLine = index.search(QStringLiteral("pasted"), QString(), 200, &matching);
    QVERIFY2(everyLine.ok(), qPrintable(everyLine.error()));
    QCOMPARE(everyLine->size(), 1);
    QCOMPARE(matching, 1);
    const SessionSearchHit &first = everyLine->first();
    QVERIFY2(first.snippet.contains(QStringLiteral("some pasted log")), qPrintable(first.snippet));
    QVERIFY(first.snippet.size() < 400);

    const auto last = index.search(QStringLiteral("zeppelin"));
    QCOMPARE(last->size(), 1);
    QVERIFY2(last->first().snippet.contains(QStringLiteral("zeppelin crashed in src/final.cpp")),
             qPrintable(last->first().snippet));
    QCOMPARE(last->first().seq, everyLine->first().seq); // the user message, not the reply
    const auto twoWords = index.search(QStringLiteral("zeppelin final"));
    QCOMPARE(twoWords->size(), 1);
    QCOMPARE(index.search(QStringLiteral("zeppelin E5"))->size(), 0); // line 5 is far from the zeppelin
    QCOMPARE(index.search(QStringLiteral("file77777"))->size(), 1);
}

void TestSessionIndex::searchResultsAreNewestFirst()
{
    const QDateTime now = QDateTime::currentDateTime();
    TranscriptWriter older(root(), workspace(QStringLiteral("alpha")));
    older.user(QStringLiteral("banana bread"));
    older.setModified(now.addDays(-3));
    TranscriptWriter newest(root(), workspace(QStringLiteral("alpha")));
    newest.user(QStringLiteral("banana split"));
    newest.setModified(now.addSecs(-60));
    TranscriptWriter middle(root(), workspace(QStringLiteral("beta")));
    middle.user(QStringLiteral("banana pancakes"));
    middle.setModified(now.addDays(-1));

    SessionIndex index(root());
    const auto hits = index.search(QStringLiteral("banana"));
    QVERIFY2(hits.ok(), qPrintable(hits.error()));
    QCOMPARE(hits->size(), 3);
    QCOMPARE(hits->at(0).session.id, newest.id());
    QCOMPARE(hits->at(1).session.id, middle.id());
    QCOMPARE(hits->at(2).session.id, older.id());
    QCOMPARE(index.search(QStringLiteral("banana"), QString(), 2)->size(), 2);
}

void TestSessionIndex::searchFiltersByWorkspace()
{
    TranscriptWriter alpha(root(), workspace(QStringLiteral("alpha")));
    alpha.user(QStringLiteral("walrus in alpha"));
    TranscriptWriter beta(root(), workspace(QStringLiteral("beta")));
    beta.user(QStringLiteral("walrus in beta"));
    SessionIndex index(root());
    const auto all = index.search(QStringLiteral("walrus"));
    QCOMPARE(all->size(), 2);
    const auto onlyAlpha = index.search(QStringLiteral("walrus"), workspace(QStringLiteral("alpha")));
    QCOMPARE(onlyAlpha->size(), 1);
    QCOMPARE(onlyAlpha->first().session.id, alpha.id());
    // The same folder spelled with a trailing "/." is the same workspace.
    const auto spelled = index.search(QStringLiteral("walrus"), workspace(QStringLiteral("beta/.")));
    QCOMPARE(spelled->size(), 1);
    QCOMPARE(spelled->first().session.id, beta.id());
}

void TestSessionIndex::userInputIsNeverFtsSyntax_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<int>("expected");
    QTest::newRow("quote") << QStringLiteral("say \"hello") << 1;
    QTest::newRow("operators") << QStringLiteral("hello AND OR NOT") << 0;
    // Syntax is searched as the words it contains, in order: "near hello", "body hello" are not in the text.
    QTest::newRow("near") << QStringLiteral("NEAR(hello world)") << 0;
    QTest::newRow("near words") << QStringLiteral("NEAR(say hello)") << 0;
    QTest::newRow("column filter") << QStringLiteral("body:hello") << 0;
    QTest::newRow("column filter words") << QStringLiteral("café:body") << 1;
    QTest::newRow("star and caret") << QStringLiteral("^hello* -world") << 1;
    QTest::newRow("parentheses only") << QStringLiteral("( )") << 0;
    QTest::newRow("unicode") << QStringLiteral("naïve café") << 1;
}

void TestSessionIndex::userInputIsNeverFtsSyntax()
{
    QFETCH(QString, query);
    QFETCH(int, expected);
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("say \"hello world\" to the naïve café body"));
    SessionIndex index(root());
    const auto hits = index.search(query);
    QVERIFY2(hits.ok(), qPrintable(hits.error()));
    QCOMPARE(hits->size(), expected);
    QCOMPARE(SessionIndex::ftsQuery(QStringLiteral("a \"b")), QStringLiteral("\"a\"* \"\"\"b\"*"));
}

void TestSessionIndex::updateReadsOnlyNewLines()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("first question"));
    writer.assistant(QStringLiteral("first answer"));
    SessionIndex index(root());
    QCOMPARE(index.update()->linesRead, qint64(3));

    const quint64 newSeq = writer.user(QStringLiteral("second question about ocelots"));
    // Keep the mtime moving even on coarse file systems.
    writer.setModified(QDateTime::currentDateTime().addSecs(5));
    const auto stats = index.update();
    QVERIFY2(stats.ok(), qPrintable(stats.error()));
    QVERIFY(!stats->fullRebuild);
    QCOMPARE(stats->linesRead, qint64(1));
    QCOMPARE(stats->sessionsAppended, 1);
    QCOMPARE(stats->sessionsRebuilt, 0);

    const auto hits = index.search(QStringLiteral("ocelots"));
    QCOMPARE(hits->size(), 1);
    QCOMPARE(hits->first().seq, newSeq);
    QCOMPARE(hits->first().session.lastSeq, newSeq);
    QCOMPARE(hits->first().session.lastUserMessage, QStringLiteral("second question about ocelots"));
    // Earlier text is still there exactly once.
    QCOMPARE(index.search(QStringLiteral("first"))->size(), 1);
}

void TestSessionIndex::unchangedTranscriptReadsNothing()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("hello"));
    SessionIndex index(root());
    QVERIFY(index.update().ok());
    const auto stats = index.update();
    QCOMPARE(stats->linesRead, qint64(0));
    QCOMPARE(stats->sessionsScanned, 1);
    QCOMPARE(stats->sessionsAppended + stats->sessionsRebuilt, 0);
}

void TestSessionIndex::tornLastLineWaitsForItsNewline()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("hello"));
    writer.appendRawBytes(QByteArray(R"({"seq":3,"kind":"user_message","user_message":{"content":"gira)"));
    SessionIndex index(root());
    QCOMPARE(index.update()->linesRead, qint64(2));
    QCOMPARE(index.search(QStringLiteral("giraffe"))->size(), 0);

    writer.appendRawBytes(QByteArray("ffe neck\"}}\n"));
    writer.setModified(QDateTime::currentDateTime().addSecs(5));
    const auto stats = index.update();
    QCOMPARE(stats->linesRead, qint64(1));
    QCOMPARE(stats->sessionsAppended, 1);
    const auto hits = index.search(QStringLiteral("giraffe"));
    QCOMPARE(hits->size(), 1);
    QCOMPARE(hits->first().seq, quint64(3));
}

void TestSessionIndex::atomicBatchReplaceIsAppend()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("hello"));
    SessionIndex index(root());
    QVERIFY(index.update().ok());

    // The store's atomic batch writes a new file (old bytes + new lines) and renames it over the transcript.
    QFile original(writer.path());
    QVERIFY(original.open(QIODevice::ReadOnly));
    QByteArray bytes = original.readAll();
    original.close();
    bytes += R"({"seq":3,"kind":"assistant_turn","assistant_turn":{"message":"checkpoint with lemurs"}})"
             "\n";
    bytes += R"({"seq":4,"kind":"compaction_applied","compaction_applied":{"status":"","messages":[]}})"
             "\n";
    const QString temp = writer.directory() + QStringLiteral("/.transcript-tmp");
    QFile tempFile(temp);
    QVERIFY(tempFile.open(QIODevice::WriteOnly));
    tempFile.write(bytes);
    tempFile.close();
    QVERIFY(QFile::remove(writer.path()));
    QVERIFY(QFile::rename(temp, writer.path()));
    writer.setModified(QDateTime::currentDateTime().addSecs(5));

    const auto stats = index.update();
    QCOMPARE(stats->sessionsAppended, 1);
    QCOMPARE(stats->linesRead, qint64(2));
    QCOMPARE(index.search(QStringLiteral("lemurs"))->size(), 1);
}

void TestSessionIndex::rewrittenTranscriptIsRebuilt()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")), QStringLiteral("fixed-id"));
    writer.user(QStringLiteral("aardvark"));
    SessionIndex index(root());
    QCOMPARE(index.search(QStringLiteral("aardvark"))->size(), 1);

    // Same length, different bytes, then more lines: the old text must not survive.
    QFile file(writer.path());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QByteArray bytes = file.readAll();
    file.close();
    bytes.replace("aardvark", "bluebird");
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
    file.write(R"({"seq":3,"kind":"user_message","user_message":{"content":"and a crow"}})"
               "\n");
    file.close();
    writer.setModified(QDateTime::currentDateTime().addSecs(5));

    const auto stats = index.update();
    QCOMPARE(stats->sessionsRebuilt, 1);
    QCOMPARE(stats->sessionsAppended, 0);
    QCOMPARE(index.search(QStringLiteral("aardvark"))->size(), 0);
    QCOMPARE(index.search(QStringLiteral("bluebird"))->size(), 1);
    QCOMPARE(index.search(QStringLiteral("crow"))->size(), 1);
}

void TestSessionIndex::shrunkTranscriptIsRebuilt()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("keep this"));
    writer.user(QStringLiteral("drop the hedgehog"));
    SessionIndex index(root());
    QCOMPARE(index.search(QStringLiteral("hedgehog"))->size(), 1);

    QFile file(writer.path());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().split('\n');
    file.close();
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(lines.at(0) + '\n' + lines.at(1) + '\n');
    file.close();

    const auto stats = index.update();
    QCOMPARE(stats->sessionsRebuilt, 1);
    QCOMPARE(index.search(QStringLiteral("hedgehog"))->size(), 0);
    const auto kept = index.search(QStringLiteral("keep"));
    QCOMPARE(kept->size(), 1);
    QCOMPARE(kept->first().session.lastSeq, quint64(2));
}

void TestSessionIndex::corruptDatabaseIsRebuilt()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("the platypus question"));
    SessionIndex index(root());
    QVERIFY(index.update().ok());

    QFile db(index.databasePath());
    QVERIFY(db.open(QIODevice::WriteOnly | QIODevice::Truncate));
    db.write(QByteArray(8192, 'x') + "this is not a database");
    db.close();
    QFile::remove(index.databasePath() + QStringLiteral("-wal"));
    QFile::remove(index.databasePath() + QStringLiteral("-shm"));

    const auto stats = index.update();
    QVERIFY2(stats.ok(), qPrintable(stats.error()));
    QVERIFY(stats->fullRebuild);
    QCOMPARE(stats->linesRead, qint64(2));
    QCOMPARE(index.search(QStringLiteral("platypus"))->size(), 1);
}

void TestSessionIndex::oldSchemaIsRebuilt()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("narwhal"));
    SessionIndex index(root());
    QVERIFY(index.update().ok());
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("schema-test"));
        db.setDatabaseName(index.databasePath());
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(QStringLiteral("UPDATE meta SET value = '0' WHERE key = 'schema_version'")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("schema-test"));
    const auto stats = index.update();
    QVERIFY(stats->fullRebuild);
    QCOMPARE(index.search(QStringLiteral("narwhal"))->size(), 1);
    QVERIFY(!index.update()->fullRebuild);
}

void TestSessionIndex::deletingTheDatabaseLosesNothing()
{
    TranscriptWriter one(root(), workspace(QStringLiteral("alpha")));
    one.user(QStringLiteral("axolotl"));
    one.assistantWithTool(QStringLiteral("ok"), QStringLiteral("bash"), QJsonObject{},
                          QStringLiteral("axolotl tank"));
    TranscriptWriter two(root(), workspace(QStringLiteral("beta")));
    two.user(QStringLiteral("axolotl again"));
    SessionIndex index(root());
    const auto before = index.search(QStringLiteral("axolotl"));
    QCOMPARE(before->size(), 2);
    const auto listedBefore = index.sessions();

    QVERIFY(QFile::remove(index.databasePath()));
    QFile::remove(index.databasePath() + QStringLiteral("-wal"));
    QFile::remove(index.databasePath() + QStringLiteral("-shm"));

    const auto after = index.search(QStringLiteral("axolotl"));
    QVERIFY2(after.ok(), qPrintable(after.error()));
    QCOMPARE(after->size(), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(after->at(i).session.id, before->at(i).session.id);
        QCOMPARE(after->at(i).seq, before->at(i).seq);
        QCOMPARE(after->at(i).snippet, before->at(i).snippet);
    }
    QCOMPARE(index.sessions()->size(), listedBefore->size());
}

void TestSessionIndex::removedSessionLeavesTheIndex()
{
    TranscriptWriter gone(root(), workspace(QStringLiteral("alpha")));
    gone.user(QStringLiteral("mongoose"));
    SessionIndex index(root());
    QCOMPARE(index.search(QStringLiteral("mongoose"))->size(), 1);
    QVERIFY(QDir(gone.directory()).removeRecursively());
    const auto stats = index.update();
    QCOMPARE(stats->sessionsRemoved, 1);
    QCOMPARE(index.search(QStringLiteral("mongoose"))->size(), 0);
    QCOMPARE(index.sessions()->size(), 0);
}

void TestSessionIndex::listingMatchesTheStoreAndFollowsRenames()
{
    const QDateTime now = QDateTime::currentDateTime();
    TranscriptWriter older(root(), workspace(QStringLiteral("alpha")));
    older.user(QStringLiteral("  an   older\n question "));
    older.user(QStringLiteral("and its follow-up"));
    older.setModified(now.addDays(-2));
    TranscriptWriter newer(root(), workspace(QStringLiteral("alpha")));
    newer.user(QString(120, QLatin1Char('w')));
    newer.setModified(now.addSecs(-30));
    TranscriptWriter elsewhere(root(), workspace(QStringLiteral("beta")));
    elsewhere.user(QStringLiteral("elsewhere"));

    SessionIndex index(root());
    SessionStore store(root());
    const auto listed = index.sessions(workspace(QStringLiteral("alpha")));
    QVERIFY2(listed.ok(), qPrintable(listed.error()));
    const QList<SessionInfo> expected = store.list(workspace(QStringLiteral("alpha")));
    QCOMPARE(listed->size(), 2);
    QCOMPARE(expected.size(), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(listed->at(i).id, expected.at(i).id);
        QCOMPARE(listed->at(i).path, expected.at(i).path);
        QCOMPARE(listed->at(i).title, expected.at(i).title);
        QCOMPARE(listed->at(i).lastUserMessage, expected.at(i).lastUserMessage);
        QCOMPARE(listed->at(i).lastSeq, expected.at(i).lastSeq);
        QCOMPARE(listed->at(i).updatedAt, expected.at(i).updatedAt);
        QCOMPARE(listed->at(i).createdAt.toMSecsSinceEpoch(), expected.at(i).createdAt.toMSecsSinceEpoch());
    }
    QCOMPARE(listed->at(1).title, QStringLiteral("an older question"));
    QCOMPARE(index.sessions()->size(), 3);

    QVERIFY(store.rename(older.id(), QStringLiteral("Renamed session")).ok());
    const auto renamed = index.sessions(workspace(QStringLiteral("alpha")));
    QCOMPARE(renamed->at(1).title, QStringLiteral("Renamed session"));
    QCOMPARE(index.search(QStringLiteral("older"))->first().session.title, QStringLiteral("Renamed session"));
}

void TestSessionIndex::worksOnWorkerThreads()
{
    TranscriptWriter writer(root(), workspace(QStringLiteral("alpha")));
    writer.user(QStringLiteral("concurrent capybara"));
    const QString sessionsRoot = root();
    QList<QFuture<int>> futures;
    for (int i = 0; i < 4; ++i) {
        futures.append(QtConcurrent::run([sessionsRoot] {
            SessionIndex index(sessionsRoot);
            const auto hits = index.search(QStringLiteral("capybara"));
            return hits.ok() ? int(hits->size()) : -1;
        }));
    }
    for (QFuture<int> &future : futures)
        QCOMPARE(future.result(), 1);
}

QTEST_GUILESS_MAIN(TestSessionIndex)
#include "tst_sessionindex.moc"
