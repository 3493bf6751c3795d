// Markdown export of a session: turns, tool blocks, markers, and the file round trip.
#include "session/sessionexporter.h"
#include "session/sessionstore.h"

#include "sessionfixtures.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTest>

using namespace keen;
using keen::test::TranscriptWriter;

class TestSessionExporter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void exportRoundTripsThroughAFile();
    void turnsAppearInOrder();
    void toolCallsAreFencedWithInputAndOutput();
    void longOutputIsShortened();
    void fenceOutlastsBackticksInContent();
    void bashAndDiffItems();
    void interruptedAndErrorMarkers();
    void automaticSummaryIsNeverExported();
    void manualCompactionShowsStatusAndSummary();
    void pinnedToolResultReadsAsItsCardShowedIt();
    void toolOutputsReadAsTheirCardsShowedThem();
    void answeredPermissionsAreSaid();
    void theAgentsQuestionsAreSaidWithTheirAnswers();
    void missingSessionIsAnError();

private:
    QString root() const { return SessionStore::defaultRoot(); }
    QString workspace() const { return m_env->path(QStringLiteral("work")); }
    QString exported(const TranscriptWriter &writer);

    std::unique_ptr<keen::test::TestEnvironment> m_env;
};

void TestSessionExporter::init()
{
    m_env = std::make_unique<keen::test::TestEnvironment>();
    QDir().mkpath(workspace());
}

void TestSessionExporter::cleanup()
{
    m_env.reset();
}

QString TestSessionExporter::exported(const TranscriptWriter &writer)
{
    SessionStore store(root());
    const QString target = m_env->path(QStringLiteral("export.md"));
    const auto result = SessionExporter::exportToFile(store, writer.id(), target);
    if (!result.ok()) {
        qWarning("%s", qPrintable(result.error()));
        return {};
    }
    QFile file(target);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

void TestSessionExporter::exportRoundTripsThroughAFile()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("Explain the build"));
    writer.assistant(QStringLiteral("It uses **CMake**."));
    SessionStore store(root());
    QVERIFY(store.rename(writer.id(), QStringLiteral("Build talk")).ok());

    const QString markdown = exported(writer);
    QVERIFY(markdown.startsWith(QStringLiteral("# Build talk\n")));
    QVERIFY(markdown.contains(QStringLiteral("Session: `%1`").arg(writer.id())));
    QVERIFY(markdown.contains(QStringLiteral("Workspace: `%1`").arg(QDir::cleanPath(workspace()))));
    QVERIFY(markdown.contains(QStringLiteral("## User\n\nExplain the build\n")));
    QVERIFY(markdown.contains(QStringLiteral("## Assistant\n\nIt uses **CMake**.\n")));
    QVERIFY(markdown.endsWith(QStringLiteral("It uses **CMake**.\n")));
    // Same as the in-memory rendering.
    const auto loaded = store.load(writer.id());
    QVERIFY(loaded.ok());
    QCOMPARE(markdown, SessionExporter::toMarkdown(*store.find(writer.id()), loaded->events));
    // No temporary file is left beside the export.
    QCOMPARE(QDir(m_env->home()).entryList({QStringLiteral("export.md*")}, QDir::Files | QDir::Hidden),
             QStringList{QStringLiteral("export.md")});
}

void TestSessionExporter::turnsAppearInOrder()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("one"));
    writer.assistant(QStringLiteral("two"));
    writer.user(QStringLiteral("three"));
    writer.assistant(QStringLiteral("four"));
    const QString markdown = exported(writer);
    const qsizetype a = markdown.indexOf(QStringLiteral("one"));
    const qsizetype b = markdown.indexOf(QStringLiteral("two"));
    const qsizetype c = markdown.indexOf(QStringLiteral("three"));
    const qsizetype d = markdown.indexOf(QStringLiteral("four"));
    QVERIFY(a > 0 && a < b && b < c && c < d);
    QCOMPARE(markdown.count(QStringLiteral("## User")), 2);
    QCOMPARE(markdown.count(QStringLiteral("## Assistant")), 2);
    // The first user message is the title when there is no rename.
    QVERIFY(markdown.startsWith(QStringLiteral("# one\n")));
}

void TestSessionExporter::toolCallsAreFencedWithInputAndOutput()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("read it"));
    writer.assistantWithTool(QStringLiteral("Reading main.cpp."), QStringLiteral("read_file"),
                             QJsonObject{{QStringLiteral("path"), QStringLiteral("main.cpp")}},
                             QStringLiteral("int main() {}\n"));
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(QStringLiteral("Reading main.cpp.\n\n**Tool: read_file**\n\n```json\n{\n")));
    QVERIFY(markdown.contains(QStringLiteral("\"path\": \"main.cpp\"")));
    QVERIFY(markdown.contains(QStringLiteral("Output:\n\n```\nint main() {}\n```\n")));
}

// A call the person was asked about says what they answered, as its card does in the window.
void TestSessionExporter::answeredPermissionsAreSaid()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("clean up"));
    const QJsonArray transcript{
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_end")},
                    {QStringLiteral("tool_end"),
                     QJsonObject{{QStringLiteral("name"), QStringLiteral("bash")},
                                 {QStringLiteral("input"),
                                  QJsonObject{{QStringLiteral("command"), QStringLiteral("rm -rf build")}}},
                                 {QStringLiteral("permission"),
                                  QJsonObject{{QStringLiteral("tool"), QStringLiteral("bash")},
                                              {QStringLiteral("command"), QStringLiteral("rm -rf build")},
                                              {QStringLiteral("dangerous"), true},
                                              {QStringLiteral("decision"), QStringLiteral("denied")}}}}}},
        QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("tool_end")},
            {QStringLiteral("tool_end"), QJsonObject{{QStringLiteral("name"), QStringLiteral("glob")}}}}};
    writer.appendPayload(
        QStringLiteral("assistant_turn"),
        QJsonObject{{QStringLiteral("transcript"), transcript}, {QStringLiteral("message"), QString()}});
    const QString markdown = exported(writer);
    QVERIFY2(markdown.contains(QStringLiteral(
                 "*The user denied this call. It was flagged as possibly destructive.*\n\n**Tool: glob**")),
             qPrintable(markdown));
    QCOMPARE(markdown.count(QStringLiteral("The user")), 1); // glob asked nothing

    // A question still open when the turn was stopped is on the call's tool_start, which has no tool_end.
    TranscriptWriter stopped(root(), workspace());
    stopped.user(QStringLiteral("write it"));
    const QJsonArray openQuestion{
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_start")},
                    {QStringLiteral("tool_start"),
                     QJsonObject{{QStringLiteral("name"), QStringLiteral("write_file")},
                                 {QStringLiteral("input"),
                                  QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")}}},
                                 {QStringLiteral("permission"),
                                  QJsonObject{{QStringLiteral("tool"), QStringLiteral("write_file")},
                                              {QStringLiteral("path"), QStringLiteral("a.txt")},
                                              {QStringLiteral("decision"), QStringLiteral("cancelled")}}}}}}};
    stopped.appendPayload(QStringLiteral("assistant_turn"),
                          QJsonObject{{QStringLiteral("transcript"), openQuestion},
                                      {QStringLiteral("message"), QString()},
                                      {QStringLiteral("interrupted"), true}});
    // A command that was running when the turn was stopped: the window shows its card "interrupted".
    stopped.user(QStringLiteral("build it"));
    stopped.appendPayload(
        QStringLiteral("assistant_turn"),
        QJsonObject{{QStringLiteral("transcript"),
                     QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_start")},
                                            {QStringLiteral("tool_start"),
                                             QJsonObject{{QStringLiteral("name"), QStringLiteral("bash")},
                                                         {QStringLiteral("input"),
                                                          QJsonObject{{QStringLiteral("command"),
                                                                       QStringLiteral("make -j8")}}}}}}}},
                    {QStringLiteral("message"), QString()},
                    {QStringLiteral("interrupted"), true}});
    const QString stoppedMarkdown = exported(stopped);
    QVERIFY2(stoppedMarkdown.contains(QStringLiteral("\"make -j8\"")) &&
                 stoppedMarkdown.contains(QStringLiteral("*Stopped while it ran.*")),
             qPrintable(stoppedMarkdown));
    QCOMPARE(stoppedMarkdown.count(QStringLiteral("*Stopped while it ran.*")), 1); // not the one that asked
    QVERIFY2(stoppedMarkdown.contains(QStringLiteral("**Tool: write_file**")) &&
                 stoppedMarkdown.contains(QStringLiteral("\"a.txt\"")) &&
                 stoppedMarkdown.contains(QStringLiteral(
                     "*The user was asked about this call; the turn was stopped before an answer, so it did "
                     "not run.*")),
             qPrintable(stoppedMarkdown));
}

// An ask_user call says what the person answered below it (its output is JSON), or that they cancelled;
// nothing for a call that failed before anyone was asked.
void TestSessionExporter::theAgentsQuestionsAreSaidWithTheirAnswers()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("set up storage"));
    const QJsonObject asked = keen::test::Workloads::databaseQuestion();
    auto askUser = [&asked](const QJsonValue &output) {
        return QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("tool_end")},
            {QStringLiteral("tool_end"), QJsonObject{{QStringLiteral("name"), QStringLiteral("ask_user")},
                                                     {QStringLiteral("input"), asked},
                                                     {QStringLiteral("output"), output}}}};
    };
    writer.appendPayload(
        QStringLiteral("assistant_turn"),
        QJsonObject{{QStringLiteral("transcript"),
                     QJsonArray{askUser(QJsonObject{
                                    {QStringLiteral("answers"), QJsonArray{QStringLiteral("Postgres")}},
                                    {QStringLiteral("cancelled"), false}}),
                                askUser(QJsonObject{{QStringLiteral("answers"), QJsonArray{}},
                                                    {QStringLiteral("cancelled"), true}}),
                                askUser(QJsonObject{{QStringLiteral("error"),
                                                     QStringLiteral("tool \"ask_user\" not found")}})}},
                    {QStringLiteral("message"), QString()}});
    const QString markdown = exported(writer);
    QVERIFY2(markdown.contains(QStringLiteral("*The user answered: Postgres.*")) &&
                 markdown.contains(QStringLiteral("*The user cancelled the question.*")),
             qPrintable(markdown));
    QCOMPARE(markdown.count(QStringLiteral("*The user answered")) +
                 markdown.count(QStringLiteral("*The user cancelled")),
             2); // none for the call that failed
}

void TestSessionExporter::longOutputIsShortened()
{
    QStringList lines;
    for (int i = 1; i <= 100; ++i)
        lines.append(QStringLiteral("line %1").arg(i));
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("cat"));
    writer.assistantWithTool(QString(), QStringLiteral("bash"), QJsonObject{}, lines.join(QLatin1Char('\n')));
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(QStringLiteral("line %1\n").arg(SessionExporter::kMaxOutputLines)));
    QVERIFY(!markdown.contains(QStringLiteral("line %1\n").arg(SessionExporter::kMaxOutputLines + 1)));
    QVERIFY(markdown.contains(QStringLiteral("… %1 more lines").arg(100 - SessionExporter::kMaxOutputLines)));
}

void TestSessionExporter::fenceOutlastsBackticksInContent()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("show"));
    writer.assistantWithTool(QString(), QStringLiteral("read_file"), QJsonObject{},
                             QStringLiteral("```cpp\ncode\n```\n"));
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(QStringLiteral("````\n```cpp\ncode\n```\n````\n")));
}

void TestSessionExporter::bashAndDiffItems()
{
    const QJsonArray transcript{
        QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("bash")},
            {QStringLiteral("bash"), QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")},
                                                 {QStringLiteral("output"), QStringLiteral("total 0")}}}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("reasoning")},
                    {QStringLiteral("content"), QStringLiteral("private musings")}},
        QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("diff")},
            {QStringLiteral("diff"),
             QJsonObject{{QStringLiteral("lines"),
                          QJsonArray{QJsonObject{{QStringLiteral("Kind"), 3},
                                                 {QStringLiteral("Content"), QStringLiteral("@@ -1 +1 @@")}},
                                     QJsonObject{{QStringLiteral("Kind"), 2},
                                                 {QStringLiteral("Content"), QStringLiteral("old")}},
                                     QJsonObject{{QStringLiteral("Kind"), 1},
                                                 {QStringLiteral("Content"), QStringLiteral("new")}}}}}}},
    };
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("go"));
    writer.appendPayload(QStringLiteral("assistant_turn"),
                         QJsonObject{{QStringLiteral("transcript"), transcript}});
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(
        QStringLiteral("**Bash**\n\n```sh\nls -la\n```\n\nOutput:\n\n```\ntotal 0\n```\n")));
    QVERIFY(markdown.contains(QStringLiteral("```diff\n@@ -1 +1 @@\n-old\n+new\n```\n")));
    QVERIFY(!markdown.contains(QStringLiteral("private musings")));
}

void TestSessionExporter::interruptedAndErrorMarkers()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("long task"));
    writer.interrupted(QStringLiteral("Partial work"));
    writer.user(QStringLiteral("again"));
    writer.failed(QStringLiteral("Half"), QStringLiteral("provider returned 529 overloaded"));
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(QStringLiteral("Partial work\n\n*Interrupted.*\n")));
    QVERIFY(markdown.contains(QStringLiteral("Half\n\n> **Error:** provider returned 529 overloaded\n")));

    // What the app said of a reply (the provider's filter stopped it) follows its text, as in the window.
    writer.user(QStringLiteral("and this?"));
    writer.appendPayload(
        QStringLiteral("assistant_turn"),
        QJsonObject{
            {QStringLiteral("transcript"),
             QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                    {QStringLiteral("content"), QStringLiteral("Some of it")}},
                        QJsonObject{{QStringLiteral("kind"), QStringLiteral("notice")},
                                    {QStringLiteral("content"),
                                     QStringLiteral("the provider stopped the reply (content_filter)")}}}},
            {QStringLiteral("message"), QStringLiteral("Some of it")}});
    QVERIFY2(exported(writer).contains(
                 QStringLiteral("Some of it\n\n> \u26A0 the provider stopped the reply (content_filter)\n")),
             qPrintable(exported(writer)));
}

void TestSessionExporter::automaticSummaryIsNeverExported()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("work"));
    writer.assistant(QStringLiteral("checkpointed text"));
    writer.compaction(QString(), QStringLiteral("<compacted_context>PRIVATE SUMMARY</compacted_context>"));
    writer.user(QStringLiteral("next"));
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(QStringLiteral("*Context compacted automatically.*")));
    QVERIFY(!markdown.contains(QStringLiteral("PRIVATE SUMMARY")));
    QVERIFY(markdown.indexOf(QStringLiteral("checkpointed text")) <
            markdown.indexOf(QStringLiteral("Context compacted automatically")));
    QVERIFY(markdown.indexOf(QStringLiteral("Context compacted automatically")) <
            markdown.indexOf(QStringLiteral("next")));
}

void TestSessionExporter::manualCompactionShowsStatusAndSummary()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("work"));
    writer.compaction(QStringLiteral("Context compacted."), QStringLiteral("model-side summary"),
                      QStringLiteral("## Key Instructions\nKeep tests green."));
    const QString markdown = exported(writer);
    QVERIFY(markdown.contains(QStringLiteral("*✓ Context compacted.*")));
    QVERIFY(markdown.contains(QStringLiteral("> ## Key Instructions\n> Keep tests green.\n")));
}

// Issue 16: a pinned tool result is stored as the model got it (read_file: JSON with line:hash| prefixes);
// the export shows it as the window does (Pin::shownText), the file's text, and never the raw JSON.
void TestSessionExporter::pinnedToolResultReadsAsItsCardShowedIt()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("read it"));
    const QString returned = QStringLiteral(
        R"({"content":"1:c6f|int main()\n2:a01|{\n3:9bd|    return 0;\n4:e3b|}","path":"src/main.cpp"})");
    writer.appendPayload(QStringLiteral("pin_added"),
                         QJsonObject{{QStringLiteral("id"), QStringLiteral("pin-1")},
                                     {QStringLiteral("kind"), QStringLiteral("tool_result")},
                                     {QStringLiteral("text"), returned},
                                     {QStringLiteral("source"), QStringLiteral("read_file src/main.cpp")}});
    const QString markdown = exported(writer);
    QVERIFY2(markdown.contains(QStringLiteral("*Pinned:*\n\n> int main()\n> {\n>     return 0;\n> }\n")),
             qPrintable(markdown));
    QVERIFY2(!markdown.contains(QStringLiteral("\"content\"")), qPrintable(markdown));
    QVERIFY(!markdown.contains(QStringLiteral("1:c6f|")));
}

// Found when tried: a read_file's output in the export was the JSON the model got, cut after its first lines:
// "{", "\"bytes_read\": 13890," and "… 7 more lines", nothing of the file. Outputs read as their cards in the
// chat showed them (the file's text without the line:hash| prefixes, a search's matches); two compactions in
// a row are parted by one rule, not two.
void TestSessionExporter::toolOutputsReadAsTheirCardsShowedThem()
{
    TranscriptWriter writer(root(), workspace());
    writer.user(QStringLiteral("read it"));
    writer.assistantWithTool(
        QStringLiteral("Reading."), QStringLiteral("read_file"),
        QJsonObject{{QStringLiteral("path"), QStringLiteral("src/main.cpp")}},
        QJsonObject{{QStringLiteral("bytes_read"), 40},
                    {QStringLiteral("content"),
                     QStringLiteral("1:c6f|int main()\n2:a01|{\n3:9bd|    return 0;\n4:e3b|}")},
                    {QStringLiteral("path"), QStringLiteral("src/main.cpp")},
                    {QStringLiteral("total_lines"), 4}});
    const QJsonObject match{{QStringLiteral("file"), QString(workspace() + QStringLiteral("/src/main.cpp"))},
                            {QStringLiteral("line_number"), 1},
                            {QStringLiteral("line"), QStringLiteral("int main()")}};
    QJsonObject found;
    found.insert(QStringLiteral("base_path"), workspace());
    found.insert(QStringLiteral("matches"), QJsonArray{match});
    writer.assistantWithTool(QString(), QStringLiteral("grep"),
                             QJsonObject{{QStringLiteral("pattern"), QStringLiteral("main")}}, found);
    writer.compaction(QStringLiteral("Context compacted."), QStringLiteral("first"),
                      QStringLiteral("First."));
    writer.compaction(QStringLiteral("Context compacted."), QStringLiteral("second"),
                      QStringLiteral("Second."));
    const QString markdown = exported(writer);
    QVERIFY2(markdown.contains(QStringLiteral("Output:\n\n```\nint main()\n{\n    return 0;\n}\n```\n")),
             qPrintable(markdown));
    QVERIFY2(markdown.contains(QStringLiteral("Output:\n\n```\nsrc/main.cpp:1: int main()\n```\n")),
             qPrintable(markdown));
    QVERIFY(!markdown.contains(QStringLiteral("bytes_read")));
    QVERIFY(!markdown.contains(QStringLiteral("1:c6f|")));
    QVERIFY2(markdown.contains(QStringLiteral("> First.\n\n---\n\n*✓ Context compacted.*\n\n> Second.")),
             qPrintable(markdown));
    QVERIFY(!markdown.contains(QStringLiteral("---\n\n---")));
}

void TestSessionExporter::missingSessionIsAnError()
{
    SessionStore store(root());
    const auto result = SessionExporter::exportToFile(store, QStringLiteral("no-such-session"),
                                                      m_env->path(QStringLiteral("x.md")));
    QVERIFY(!result.ok());
    QVERIFY(!result.error().isEmpty());
    QVERIFY(!QFile::exists(m_env->path(QStringLiteral("x.md"))));
}

QTEST_GUILESS_MAIN(TestSessionExporter)
#include "tst_sessionexporter.moc"
