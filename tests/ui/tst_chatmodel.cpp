// The chat transcript model: coalesced streaming, merged tool cards, retry rewind, checkpoints, replay.
#include "base/jsonlist.h"
#include "chat/chatmodel.h"

#include "testenvironment.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

using namespace keen;

namespace {
const QString kSecretSummary = QStringLiteral("PRIVATE-SUMMARY-7f3a: the goal is to refactor the parser");

ToolCallInfo tool(const QString &callId, const QString &name, const QJsonObject &input)
{
    ToolCallInfo info;
    info.callId = callId;
    info.name = name;
    info.input = input;
    return info;
}

QList<ChatItem::Kind> kinds(const ChatModel &model)
{
    QList<ChatItem::Kind> list;
    for (int row = 0; row < model.rowCount(); ++row)
        list << model.item(row).kind;
    return list;
}

// Every role of every row, as text: nothing the model exposes may hold the private summary.
QString everything(const ChatModel &model)
{
    QString all;
    const auto roles = model.roleNames().keys();
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int role : roles)
            all += model.data(model.index(row), role).toString() + QLatin1Char('\n');
    }
    return all;
}
} // namespace

class TestChatModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void replayedSessionOpensAtSearchHit();
    void modelTesterAcrossOperations();
    void chunksAreCoalesced();
    void flushAppliesAtMostTenThousandCharacters();
    void toolStartAndEndMergeByCallId();
    void aPartialReadSaysWhichLines();
    void anAllowedChangeShowsItsDiffOnce();
    void toolCardShowsDiffWithLineNumbers();
    void expectedFailuresAreHidden();
    void retryDropsUnsealedSegmentsOfTheAttempt();
    void sealedCheckpointIsShownOnce();
    void autoCompactionEventsNeverRender();
    void replayRendersTranscripts();
    void replayOfAutomaticCompactionShowsItsRowNotTheSummary();
    void aNoticeIsARowAfterTheReply();
    void permissionSettles();

private:
    test::TestEnvironment m_env;
};

void TestChatModel::modelTesterAcrossOperations()
{
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.addUserMessage(QStringLiteral("hello"));
    model.appendReasoning(QStringLiteral("thinking"));
    model.appendText(QStringLiteral("Hi "));
    model.appendText(QStringLiteral("there"));
    model.flush();
    model.toolStarted(tool(QStringLiteral("c1"), QStringLiteral("read_file"),
                           {{QStringLiteral("path"), QStringLiteral("a.cpp")}}));
    model.toolFinished(tool(QStringLiteral("c1"), QStringLiteral("read_file"), {}));
    model.appendText(QStringLiteral("more"));
    model.retry(2, QStringLiteral("overloaded"));
    model.addPermission(
        PermissionRequest{7, QStringLiteral("edit_file"), QStringLiteral("a.cpp"), {}, {}, {}, {}, false});
    model.settlePermission(7, QStringLiteral("Allowed"));
    model.toggleCollapsed(1);
    model.addInterrupted();
    model.seal();
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestChatModel::chunksAreCoalesced()
{
    ChatModel model;
    model.addUserMessage(QStringLiteral("write a lot"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    const int chunks = 2000;
    QString expected;
    for (int i = 0; i < chunks; ++i) {
        const QString chunk = QStringLiteral("word%1 ").arg(i);
        expected += chunk;
        model.appendText(chunk);
        if (i % 400 == 0)
            QTRY_VERIFY(!model.hasPendingChunks()); // let a flush happen mid-stream
    }
    QTRY_VERIFY(!model.hasPendingChunks());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.item(1).text, expected);
    QCOMPARE(inserted.count(), 1);
    QVERIFY2(changed.count() < chunks / 50, qPrintable(QString::number(changed.count())));
    // Only the growing row is announced.
    for (const QList<QVariant> &arguments : std::as_const(changed)) {
        QCOMPARE(arguments.at(0).toModelIndex().row(), 1);
        QCOMPARE(arguments.at(1).toModelIndex().row(), 1);
    }
}

void TestChatModel::flushAppliesAtMostTenThousandCharacters()
{
    ChatModel model;
    QList<qsizetype> sizes;
    connect(&model, &QAbstractItemModel::rowsInserted, this, [&] { sizes << model.item(0).text.size(); });
    connect(&model, &QAbstractItemModel::dataChanged, this, [&] { sizes << model.item(0).text.size(); });
    model.appendText(QString(25000, QLatin1Char('x')));
    QTRY_VERIFY(!model.hasPendingChunks());
    QCOMPARE(sizes, (QList<qsizetype>{10000, 20000, 25000}));
}

void TestChatModel::toolStartAndEndMergeByCallId()
{
    ChatModel model;
    model.appendText(QStringLiteral("Let me look."));
    model.toolStarted(tool(QStringLiteral("a"), QStringLiteral("read_file"),
                           {{QStringLiteral("path"), QStringLiteral("src/main.cpp")}}));
    model.toolStarted(tool(QStringLiteral("b"), QStringLiteral("grep"),
                           {{QStringLiteral("pattern"), QStringLiteral("TODO")}}));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.item(1).toolState, ChatItem::ToolState::Running);
    QCOMPARE(model.item(1).plainText(), QStringLiteral("● Read src/main.cpp..."));

    ToolCallInfo endB = tool(QStringLiteral("b"), QStringLiteral("grep"),
                             {{QStringLiteral("pattern"), QStringLiteral("TODO")}});
    endB.output = QJsonObject{{QStringLiteral("count"), 3}};
    endB.durationNs = 1500000;
    model.toolFinished(endB);
    ToolCallInfo endA = tool(QStringLiteral("a"), QStringLiteral("read_file"),
                             {{QStringLiteral("path"), QStringLiteral("src/main.cpp")}});
    endA.output = QJsonObject{{QStringLiteral("total_lines"), 120}};
    endA.durationNs = 2500000000;
    model.toolFinished(endA);
    ToolCallInfo failed = tool(QStringLiteral("c"), QStringLiteral("bash"),
                               {{QStringLiteral("command"), QStringLiteral("make")}});
    model.toolStarted(failed);
    failed.error = QStringLiteral("exit status 2");
    failed.output =
        QJsonObject{{QStringLiteral("stdout"), QStringLiteral("error: x")}, {QStringLiteral("exit_code"), 2}};
    model.toolFinished(failed);

    QCOMPARE(model.rowCount(), 4); // merged: one card per call
    QCOMPARE(model.item(1).toolState, ChatItem::ToolState::Done);
    QCOMPARE(model.item(1).label, QStringLiteral("Read"));
    QCOMPARE(model.item(1).metadata, QStringLiteral("120 lines"));
    QCOMPARE(model.item(1).durationNs, qint64(2500000000));
    QCOMPARE(model.item(2).label, QStringLiteral("Search"));
    QCOMPARE(model.item(2).metadata, QStringLiteral("3 matches"));
    QCOMPARE(model.item(3).label, QStringLiteral("Run"));
    QCOMPARE(model.item(3).toolState, ChatItem::ToolState::Failed);
    QCOMPARE(model.item(3).output, QStringLiteral("error: x"));
    QVERIFY(model.item(3).plainText().startsWith(QStringLiteral("✗ Run make exit 2")));
}

// Issue 15: reads of a long file window by window all showed "6000 lines"; a card of a partial read says
// which lines it shows, with the numbers grouped as the locale writes them.
void TestChatModel::aPartialReadSaysWhichLines()
{
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    ChatModel model;
    auto read = [&](const QString &id, const QJsonObject &output) {
        ToolCallInfo info =
            tool(id, QStringLiteral("read_file"), {{QStringLiteral("path"), QStringLiteral("big.txt")}});
        model.toolStarted(info);
        info.output = output;
        model.toolFinished(info);
        return model.item(model.rowCount() - 1).metadata;
    };
    QCOMPARE(read(QStringLiteral("a"), {{QStringLiteral("offset"), 1},
                                        {QStringLiteral("limit"), 50},
                                        {QStringLiteral("total_lines"), 100000},
                                        {QStringLiteral("truncated"), true}}),
             QStringLiteral("lines 1–50 of 100,000"));
    QCOMPARE(read(QStringLiteral("b"), {{QStringLiteral("offset"), 99950},
                                        {QStringLiteral("limit"), 1000},
                                        {QStringLiteral("total_lines"), 100000},
                                        {QStringLiteral("truncated"), false}}),
             QStringLiteral("lines 99,950–100,000 of 100,000"));
    QCOMPARE(read(QStringLiteral("c"), {{QStringLiteral("offset"), 1},
                                        {QStringLiteral("limit"), 1000},
                                        {QStringLiteral("total_lines"), 120},
                                        {QStringLiteral("truncated"), false}}),
             QStringLiteral("120 lines"));
    QLocale::setDefault(before);
}

// Issue 15: an allowed edit showed its diff twice, on the permission card and on the tool's card (400 lines
// each for a rewritten file); the settled card keeps its outcome only. A denied change keeps the diff it
// refused.
void TestChatModel::anAllowedChangeShowsItsDiffOnce()
{
    const QString diff = QStringLiteral("@@ -1,1 +1,1 @@\n-old line\n+new line\n");
    ChatModel model;
    PermissionRequest edit{1, QStringLiteral("edit_file"), QStringLiteral("a.txt"), {}, {}, {}, diff, false};
    model.addPermission(edit);
    QCOMPARE(model.item(0).diff.size(), 3); // the hunk header, the removed and the added line
    model.settlePermission(1, QStringLiteral("Allowed"), true);
    QVERIFY(model.item(0).plainText().contains(QStringLiteral("Allowed")));
    QVERIFY(model.item(0).diff.isEmpty());

    PermissionRequest refused = edit;
    refused.id = 2;
    model.addPermission(refused);
    model.settlePermission(2, QStringLiteral("Denied"));
    QCOMPARE(model.item(1).diff.size(), 3);
}

void TestChatModel::toolCardShowsDiffWithLineNumbers()
{
    ChatModel model;
    ToolCallInfo edit = tool(QStringLiteral("e"), QStringLiteral("edit_file"),
                             {{QStringLiteral("path"), QStringLiteral("a.txt")}});
    model.toolStarted(edit);
    edit.diff = QStringLiteral("--- a/a.txt\n+++ b/a.txt\n@@ -10,3 +10,3 @@\n keep\n-old\n+new\n tail\n");
    model.toolFinished(edit);
    const QList<DiffLine> lines = model.item(0).diff;
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines.at(0).kind, DiffLine::Kind::Hunk);
    QCOMPARE(lines.at(1), (DiffLine{DiffLine::Kind::Context, 10, 10, QStringLiteral("keep")}));
    QCOMPARE(lines.at(2), (DiffLine{DiffLine::Kind::Removed, 11, 0, QStringLiteral("old")}));
    QCOMPARE(lines.at(3), (DiffLine{DiffLine::Kind::Added, 0, 11, QStringLiteral("new")}));
    QCOMPARE(lines.at(4), (DiffLine{DiffLine::Kind::Context, 12, 12, QStringLiteral("tail")}));
    QCOMPARE(model.item(0).label, QStringLiteral("Edit"));
}

void TestChatModel::expectedFailuresAreHidden()
{
    ChatModel model;
    ToolCallInfo read = tool(QStringLiteral("r"), QStringLiteral("read_file"),
                             {{QStringLiteral("path"), QStringLiteral("nope")}});
    model.toolStarted(read);
    read.error = QStringLiteral("open nope: no such file or directory");
    model.toolFinished(read);
    QCOMPARE(model.rowCount(), 0);
}

void TestChatModel::retryDropsUnsealedSegmentsOfTheAttempt()
{
    ChatModel model;
    model.addUserMessage(QStringLiteral("go"));
    model.appendText(QStringLiteral("Checking the file."));
    model.toolStarted(tool(QStringLiteral("a"), QStringLiteral("read_file"),
                           {{QStringLiteral("path"), QStringLiteral("x")}}));
    model.toolFinished(tool(QStringLiteral("a"), QStringLiteral("read_file"),
                            {{QStringLiteral("path"), QStringLiteral("x")}}));
    model.appendReasoning(QStringLiteral("hmm"));
    model.appendText(QStringLiteral("The file says"));
    model.flush();
    model.appendText(QStringLiteral(" queued but never flushed"));
    QCOMPARE(kinds(model),
             (QList<ChatItem::Kind>{ChatItem::Kind::User, ChatItem::Kind::AssistantText, ChatItem::Kind::Tool,
                                    ChatItem::Kind::Reasoning, ChatItem::Kind::AssistantText}));
    model.retry(2, QString());
    QCOMPARE(kinds(model), (QList<ChatItem::Kind>{ChatItem::Kind::User, ChatItem::Kind::AssistantText,
                                                  ChatItem::Kind::Tool, ChatItem::Kind::Retry}));
    QCOMPARE(model.item(3).text, QStringLiteral("Retrying (attempt 2)..."));
    // The failed attempt's queued chunks are dropped at once, so no later flush can show them.
    QVERIFY(!model.hasPendingChunks());
    QVERIFY(!model.plainText().contains(QStringLiteral("never flushed")));
    model.appendText(QStringLiteral("The file says hello."));
    model.flush();
    QCOMPARE(model.item(model.rowCount() - 1).text, QStringLiteral("The file says hello."));
    QCOMPARE(model.item(3).text, QStringLiteral("Retried once."));

    // A retry that waits says how long, and why (issue 14: a 429's Retry-After is shown).
    model.retry(3, QStringLiteral("HTTP 429: rate limited"), 2000);
    QCOMPARE(model.item(model.rowCount() - 1).text,
             QStringLiteral("Retrying in 2 s (attempt 3)... HTTP 429: rate limited"));

    // Back-to-back retries update that one row instead of stacking a row per attempt.
    const int rows = model.rowCount();
    model.retry(4, QStringLiteral("HTTP 500: overloaded"), 3000);
    model.retry(5, QStringLiteral("HTTP 500: overloaded"), 4000);
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(model.item(rows - 1).text,
             QStringLiteral("Retrying in 4 s (attempt 5)... HTTP 500: overloaded"));

    // Once the answer comes, the row no longer says it is waiting (found with Anthropic's HTTP 529: "Retrying
    // in 2 s (attempt 3)..." stayed above the reply): it says what happened.
    model.appendText(QStringLiteral("Here it is."));
    model.flush();
    QCOMPARE(model.item(rows - 1).text, QStringLiteral("Retried 4 times: HTTP 500: overloaded"));
    QCOMPARE(model.item(model.rowCount() - 1).text, QStringLiteral("Here it is."));
    // A turn that ends while the row is the latest (every retry failed) settles it too.
    model.retry(2, QStringLiteral("HTTP 503"), 1000);
    QCOMPARE(model.item(model.rowCount() - 1).text,
             QStringLiteral("Retrying in 1 s (attempt 2)... HTTP 503"));
    model.seal();
    QCOMPARE(model.item(model.rowCount() - 1).text, QStringLiteral("Retried once: HTTP 503"));
}

// proves S53 (the output before an automatic compaction is sealed where it is and shown once)
void TestChatModel::sealedCheckpointIsShownOnce()
{
    ChatModel model;
    model.addUserMessage(QStringLiteral("task"));
    model.appendText(QStringLiteral("Before compaction."));
    model.seal();
    model.appendText(QStringLiteral("After compaction."));
    model.flush();
    QCOMPARE(model.plainText().count(QStringLiteral("Before compaction.")), 1);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.item(1).text, QStringLiteral("Before compaction."));
    QCOMPARE(model.item(2).text, QStringLiteral("After compaction."));
    // A retry after the checkpoint never removes the sealed part.
    model.retry(2, QString());
    QCOMPARE(model.item(1).text, QStringLiteral("Before compaction."));
}

// proves S17, S48, S54 (lifecycle events are control events; the private summary is never rendered)
void TestChatModel::autoCompactionEventsNeverRender()
{
    ChatModel model;
    model.addUserMessage(QStringLiteral("task"));
    AutoCompactionInfo info;
    info.replacement = {Message::system(QStringLiteral("sys")),
                        Message::user(QStringLiteral("<compacted_context>") + kSecretSummary +
                                      QStringLiteral("</compacted_context>"))};
    model.handleStreamEvent(StreamEvent::compaction(StreamEvent::Type::AutoCompactionStarted, {}));
    model.handleStreamEvent(StreamEvent::compaction(StreamEvent::Type::AutoCompactionApplied, info));
    AutoCompactionInfo failed;
    failed.error = kSecretSummary;
    model.handleStreamEvent(StreamEvent::compaction(StreamEvent::Type::AutoCompactionFailed, failed));
    model.flush();
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(!everything(model).contains(QStringLiteral("PRIVATE-SUMMARY")));
}

void TestChatModel::replayRendersTranscripts()
{
    const QJsonArray turn{
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("reasoning")},
                    {QStringLiteral("content"), QStringLiteral("plan")}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                    {QStringLiteral("content"), QStringLiteral("Editing.")}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("tool_start")},
                    {QStringLiteral("tool_start"),
                     QJsonObject{{QStringLiteral("name"), QStringLiteral("edit_file")},
                                 {QStringLiteral("input"),
                                  QJsonObject{{QStringLiteral("path"), QStringLiteral("a.go")}}}}}},
        QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("tool_end")},
            {QStringLiteral("tool_end"), QJsonObject{{QStringLiteral("name"), QStringLiteral("edit_file")},
                                                     {QStringLiteral("duration_ns"), 5000000}}}},
        QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("diff")},
            {QStringLiteral("diff"),
             QJsonObject{{QStringLiteral("lines"),
                          QJsonArray{QJsonObject{{QStringLiteral("Kind"), 2},
                                                 {QStringLiteral("OldLineNum"), 3},
                                                 {QStringLiteral("NewLineNum"), 0},
                                                 {QStringLiteral("Content"), QStringLiteral("old")}},
                                     QJsonObject{{QStringLiteral("Kind"), 1},
                                                 {QStringLiteral("OldLineNum"), 0},
                                                 {QStringLiteral("NewLineNum"), 3},
                                                 {QStringLiteral("Content"), QStringLiteral("new")}}}}}}},
        QJsonObject{
            {QStringLiteral("kind"), QStringLiteral("bash")},
            {QStringLiteral("bash"), QJsonObject{{QStringLiteral("command"), QStringLiteral("go test")},
                                                 {QStringLiteral("output"), QStringLiteral("ok")}}}},
        QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                    {QStringLiteral("content"), QStringLiteral("Done.")}},
    };
    const QJsonArray summary{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                         {QStringLiteral("content"), QStringLiteral("## Goal\nShip it.")}}};
    const QList<SessionEvent> events{
        SessionEvent::sessionStarted(QStringLiteral("id"), QDateTime::currentDateTimeUtc(),
                                     QStringLiteral("/w")),
        SessionEvent::userMessage(QStringLiteral("fix a.go")),
        SessionEvent::assistantTurn(fromJsonArray<TranscriptItem>(turn), QStringLiteral("Editing.Done."),
                                    std::nullopt, false, QString()),
        SessionEvent::userMessage(QStringLiteral("and b")),
        SessionEvent::assistantTurn({}, QStringLiteral("Start"), std::nullopt, true, QString()),
        SessionEvent::userMessage(QStringLiteral("and c")),
        SessionEvent::assistantTurn({}, QString(), std::nullopt, false, QStringLiteral("rate limited")),
        SessionEvent::compactionApplied(QStringLiteral("Context compacted."),
                                        fromJsonArray<TranscriptItem>(summary),
                                        {Message::user(QStringLiteral("## Goal\nShip it."))}),
        SessionEvent::compactionApplied(QStringLiteral("Context compacted."), {},
                                        {Message::user(QStringLiteral("s"))}),
    };
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.replay(events);
    QCOMPARE(kinds(model),
             (QList<ChatItem::Kind>{
                 ChatItem::Kind::User, ChatItem::Kind::Reasoning, ChatItem::Kind::AssistantText,
                 ChatItem::Kind::Tool, ChatItem::Kind::Tool, ChatItem::Kind::AssistantText,
                 ChatItem::Kind::User, ChatItem::Kind::AssistantText, ChatItem::Kind::Interrupted,
                 ChatItem::Kind::User, ChatItem::Kind::Error, ChatItem::Kind::Status,
                 ChatItem::Kind::AssistantText, ChatItem::Kind::Status, ChatItem::Kind::Status}));
    QCOMPARE(model.item(3).label, QStringLiteral("Edit"));
    QCOMPARE(model.item(3).toolState, ChatItem::ToolState::Done);
    QCOMPARE(model.item(3).diff.size(), 2);
    QCOMPARE(model.item(4).command, QStringLiteral("go test"));
    QCOMPARE(model.item(4).output, QStringLiteral("ok"));
    QCOMPARE(model.item(8).text, QStringLiteral("Interrupted...what should the agent do instead?"));
    QCOMPARE(model.item(10).text, QStringLiteral("rate limited"));
    // A manual summary under the heading it streamed with, then its row (found trying the window: without
    // them a reopened session's summary read as the reply before it).
    QCOMPARE(model.item(11).text, ChatModel::compactionHeadingText());
    QCOMPARE(model.item(12).text, QStringLiteral("## Goal\nShip it."));
    QCOMPARE(model.item(13).text, QStringLiteral("✓ Context compacted."));
    QCOMPARE(model.item(14).text, QStringLiteral("✓ Context compacted."));
    for (int row = 0; row < model.rowCount(); ++row)
        QVERIFY(model.item(row).sealed);
}

// A reply that stopped at the output limit: the text as it came, then a row that says so (the tool loop's
// Notice event).
void TestChatModel::aNoticeIsARowAfterTheReply()
{
    ChatModel model;
    model.addUserMessage(QStringLiteral("explain"));
    model.handleStreamEvent(StreamEvent::chunk(QStringLiteral("This answer was cut off mid sen")));
    model.handleStreamEvent(
        StreamEvent::notice(QStringLiteral("the reply stopped at the model's output limit")));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.item(1).kind, ChatItem::Kind::AssistantText);
    QCOMPARE(model.item(1).text, QStringLiteral("This answer was cut off mid sen"));
    QCOMPARE(model.item(2).kind, ChatItem::Kind::Status);
    QCOMPARE(model.item(2).text, QStringLiteral("⚠ the reply stopped at the model's output limit"));

    // The same when the session is opened again (found trying a filtered reply: the notice was said live
    // only, so a reopened session showed a short or empty reply without its reason).
    ChatModel replayed;
    replayed.replay(
        {SessionEvent::userMessage(QStringLiteral("explain")),
         SessionEvent::assistantTurn(
             {TranscriptItem::text(QStringLiteral("This answer was cut off mid sen")),
              TranscriptItem::notice(QStringLiteral("the reply stopped at the model's output limit"))},
             QStringLiteral("This answer was cut off mid sen"), std::nullopt, false, QString())});
    QCOMPARE(kinds(replayed), kinds(model));
    for (int row = 0; row < model.rowCount(); ++row)
        QCOMPARE(replayed.item(row).text, model.item(row).text);
}

// proves S63, S64, S53 (the checkpoint replays; automatic compaction's empty status is no assistant content
// and never the summary; its row `✓ Context compacted automatically.` after the checkpoint, as live, carries
// the compaction's Undo action)
void TestChatModel::replayOfAutomaticCompactionShowsItsRowNotTheSummary()
{
    const QJsonArray checkpoint{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                            {QStringLiteral("content"), QStringLiteral("Work so far.")}}};
    QList<SessionEvent> events{
        SessionEvent::userMessage(QStringLiteral("long task")),
        SessionEvent::assistantTurn(fromJsonArray<TranscriptItem>(checkpoint), QStringLiteral("Work so far."),
                                    std::nullopt, false, QString()),
        SessionEvent::compactionApplied(
            QString(), {},
            {Message::user(QStringLiteral("<compacted_context>") + kSecretSummary +
                           QStringLiteral("</compacted_context>"))}),
        SessionEvent::assistantTurn({}, QStringLiteral("Finished."), std::nullopt, false, QString()),
    };
    for (qsizetype e = 0; e < events.size(); ++e)
        events[e].seq = quint64(e + 1);
    ChatModel model;
    model.replay(events);
    QCOMPARE(kinds(model), (QList<ChatItem::Kind>{ChatItem::Kind::User, ChatItem::Kind::AssistantText,
                                                  ChatItem::Kind::Status, ChatItem::Kind::AssistantText}));
    QCOMPARE(model.plainText().count(QStringLiteral("Work so far.")), 1);
    QCOMPARE(model.item(2).text, QStringLiteral("✓ Context compacted automatically."));
    QCOMPARE(model.item(2).compactionSeq, quint64(3));
    QCOMPARE(model.item(1).compactionSeq, quint64(0));
    QVERIFY(!everything(model).contains(QStringLiteral("PRIVATE-SUMMARY")));
}

void TestChatModel::permissionSettles()
{
    ChatModel model;
    model.addPermission(PermissionRequest{3,
                                          QStringLiteral("bash"),
                                          {},
                                          {},
                                          QStringLiteral("rm -rf build"),
                                          QStringLiteral("clean"),
                                          {},
                                          true});
    QVERIFY(model.hasPendingPermission());
    QCOMPARE(model.pendingPermissionId(), quint64(3));
    model.settlePermission(3, QStringLiteral("Denied"));
    QVERIFY(!model.hasPendingPermission());
    QCOMPARE(model.data(model.index(0), ChatModel::OutcomeRole).toString(), QStringLiteral("Denied"));
}

void TestChatModel::replayedSessionOpensAtSearchHit()
{
    // The session browser opens a search hit at its event: rowForSeq maps a seq to the row it produced.
    QList<SessionEvent> events{
        SessionEvent::sessionStarted(QStringLiteral("id"), QDateTime::currentDateTimeUtc(),
                                     QStringLiteral("/w")),
        SessionEvent::userMessage(QStringLiteral("first question")),
        SessionEvent::assistantTurn({}, QStringLiteral("first answer"), std::nullopt, false, QString()),
        SessionEvent::userMessage(QStringLiteral("the needle")),
        SessionEvent::assistantTurn({}, QStringLiteral("second answer"), std::nullopt, false, QString()),
    };
    for (int i = 0; i < events.size(); ++i)
        events[i].seq = quint64(i + 1);
    ChatModel model;
    model.replay(events);
    const int row = model.rowForSeq(4);
    QVERIFY(row >= 0);
    QCOMPARE(model.index(row).data(ChatModel::TextRole).toString(), QStringLiteral("the needle"));
    QCOMPARE(model.index(model.rowForSeq(1)).data(ChatModel::TextRole).toString(),
             QStringLiteral("first question"));
    QCOMPARE(model.rowForSeq(99), model.rowCount() - 1); // past the end: the last row
}

QTEST_MAIN(TestChatModel)
#include "tst_chatmodel.moc"
