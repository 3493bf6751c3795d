// The conversation value types of reference 1.1: JSON shapes, transient raw output, cancellation tokens.
#include "base/cancellationtoken.h"
#include "conversation/heldpins.h"
#include "conversation/historyreplay.h"
#include "conversation/message.h"
#include "conversation/metatypes.h"
#include "conversation/streamevent.h"
#include "conversation/toolresultfacts.h"
#include "conversation/userquestion.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace keen;
using namespace Qt::StringLiterals;

class TestConversationTypes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void messageJsonUsesReferenceFieldNames();
    void rawToolOutputIsNeverPersisted_S9();
    void messageRoundTrips();
    void streamEventTypeNamesMatchReference();
    void cancellingParentCancelsChildrenNotReverse();
    void cancellationCallbacksRunOnce();
    void eventsCrossThreadsAsQueuedValues();
    void replayStepsSplitAtOffsets();
    void replayStepsSkipBadOffsets();
    void replayResultPrefersRetainedThenRaw();
    void pinsMissingFromHistoryLooksInEveryReplayedForm();
    void toolResultFactsReadEachToolsResult();
    void toolResultFactsTakeNoOddNumberAsIs();
    void userAnswerIsWhatAskUserReturns();
};

void TestConversationTypes::messageJsonUsesReferenceFieldNames()
{
    Message message = Message::assistant(QStringLiteral("hello"));
    message.turnMemory =
        TurnMemory{{ToolActivity{5,
                                 QStringLiteral("bash"),
                                 QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}},
                                 QStringLiteral("error"),
                                 2,
                                 {},
                                 false,
                                 {}}}};
    const QByteArray json = QJsonDocument(message.toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(
        json,
        QByteArray(
            R"({"Content":"hello","Role":"assistant","TurnMemory":{"tool_activity":[{"exit_code":2,"input":{"command":"ls"},"status":"error","text_offset":5,"tool":"bash"}]}})"));
    QCOMPARE(QJsonDocument(Message::user(QStringLiteral("hi")).toJson()).toJson(QJsonDocument::Compact),
             QByteArray(R"({"Content":"hi","Role":"user","TurnMemory":null})"));
}

// proves S9
void TestConversationTypes::rawToolOutputIsNeverPersisted_S9()
{
    ToolActivity activity;
    activity.tool = QStringLiteral("read_file");
    activity.status = QStringLiteral("success");
    activity.hasRawOutput = true;
    activity.rawOutput = QJsonObject{{QStringLiteral("content"), QStringLiteral("SECRET RAW OUTPUT")}};
    const QByteArray json = QJsonDocument(activity.toJson()).toJson();
    QVERIFY(!json.contains("SECRET RAW OUTPUT"));
    QVERIFY(!json.contains("raw"));
}

void TestConversationTypes::messageRoundTrips()
{
    Message message = Message::assistant(QStringLiteral("text"));
    message.turnMemory =
        TurnMemory{{ToolActivity{2,
                                 QStringLiteral("grep"),
                                 QJsonObject{{QStringLiteral("pattern"), QStringLiteral("x")}},
                                 QStringLiteral("success"),
                                 std::nullopt,
                                 QJsonObject{{QStringLiteral("count"), 1}},
                                 false,
                                 {}}}};
    const auto back = Message::fromJson(message.toJson());
    QVERIFY(back);
    QCOMPARE(*back, message);
    QVERIFY(!Message::fromJson(QJsonObject{{QStringLiteral("Role"), QStringLiteral("robot")}}));
}

void TestConversationTypes::streamEventTypeNamesMatchReference()
{
    const QStringList expected{QStringLiteral("chunk"),
                               QStringLiteral("reasoning_chunk"),
                               QStringLiteral("done"),
                               QStringLiteral("error"),
                               QStringLiteral("tool_start"),
                               QStringLiteral("tool_end"),
                               QStringLiteral("usage"),
                               QStringLiteral("retry"),
                               QStringLiteral("incomplete"),
                               QStringLiteral("auto_compaction_started"),
                               QStringLiteral("auto_compaction_applied"),
                               QStringLiteral("auto_compaction_cancelled"),
                               QStringLiteral("auto_compaction_failed")};
    QStringList actual;
    for (int i = 0; i <= int(StreamEvent::Type::AutoCompactionFailed); ++i)
        actual.append(StreamEvent::typeName(StreamEvent::Type(i)));
    QCOMPARE(actual, expected);
}

void TestConversationTypes::cancellingParentCancelsChildrenNotReverse()
{
    CancellationToken parent;
    CancellationToken child = parent.child();
    CancellationToken grandChild = child.child();
    CancellationToken sibling = parent.child();
    sibling.cancel();
    QVERIFY(sibling.isCancelled());
    QVERIFY(!parent.isCancelled());
    QVERIFY(!child.isCancelled());
    parent.cancel();
    QVERIFY(child.isCancelled());
    QVERIFY(grandChild.isCancelled());
    QVERIFY(parent.child().isCancelled()); // a child of a cancelled token starts cancelled
}

void TestConversationTypes::cancellationCallbacksRunOnce()
{
    CancellationToken token;
    int calls = 0;
    const int removed = token.onCancelled([&calls] { calls += 100; });
    token.onCancelled([&calls] { ++calls; });
    token.removeCallback(removed);
    token.cancel();
    token.cancel();
    QCOMPARE(calls, 1);
    token.onCancelled([&calls] { ++calls; }); // already cancelled: runs at once
    QCOMPARE(calls, 2);
}

class EventEmitter : public QObject
{
    Q_OBJECT
Q_SIGNALS:
    void event(const keen::StreamEvent &event);
};

void TestConversationTypes::eventsCrossThreadsAsQueuedValues()
{
    registerCoreMetaTypes();
    EventEmitter emitter;
    QList<StreamEvent> received;
    QObject receiver;
    connect(
        &emitter, &EventEmitter::event, &receiver, [&received](const StreamEvent &e) { received.append(e); },
        Qt::QueuedConnection);
    QThread *thread = QThread::create([&emitter] {
        Q_EMIT emitter.event(StreamEvent::chunk(QStringLiteral("a")));
        Q_EMIT emitter.event(StreamEvent::done());
    });
    thread->start();
    thread->wait();
    delete thread;
    QTRY_COMPARE(received.size(), 2);
    QCOMPARE(received.at(0).content, QStringLiteral("a"));
    QCOMPARE(received.at(1).type, StreamEvent::Type::Done);
}

void TestConversationTypes::replayStepsSplitAtOffsets()
{
    Message message = Message::assistant(QStringLiteral("Let me look.Done."));
    message.turnMemory =
        TurnMemory{{ToolActivity{12,
                                 QStringLiteral("read_file"),
                                 QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")}},
                                 QStringLiteral("success"),
                                 std::nullopt,
                                 {},
                                 false,
                                 {}}}};
    const QList<ReplayStep> steps = replaySteps(message, 3);
    QCOMPARE(steps.size(), 3);
    QCOMPARE(steps.at(0).text, QStringLiteral("Let me look."));
    QCOMPARE(steps.at(1).callId, QStringLiteral("historical_3_0"));
    QCOMPARE(steps.at(1).tool, QStringLiteral("read_file"));
    QCOMPARE(steps.at(1).result, QStringLiteral(R"({"status":"success"})"));
    QCOMPARE(steps.at(2).text, QStringLiteral("Done."));
}

void TestConversationTypes::replayStepsSkipBadOffsets()
{
    Message message = Message::assistant(QStringLiteral("é!")); // é is two bytes
    message.turnMemory = TurnMemory{{
        ToolActivity{1,
                     QStringLiteral("bash"),
                     {},
                     QStringLiteral("success"),
                     std::nullopt,
                     {},
                     false,
                     {}}, // mid-character
        ToolActivity{-1, QStringLiteral("bash"), {}, QStringLiteral("success"), std::nullopt, {}, false, {}},
        ToolActivity{2, QString(), {}, QStringLiteral("success"), std::nullopt, {}, false, {}},
        ToolActivity{9, QStringLiteral("bash"), {}, QStringLiteral("success"), std::nullopt, {}, false, {}},
        ToolActivity{2, QStringLiteral("glob"), {}, QStringLiteral("error"), 1, {}, false, {}},
    }};
    const QList<ReplayStep> steps = replaySteps(message, 0);
    QCOMPARE(steps.size(), 3);
    QCOMPARE(steps.at(1).tool, QStringLiteral("glob"));
    QCOMPARE(steps.at(1).callId, QStringLiteral("historical_0_4"));
    QVERIFY(steps.at(1).isError);
    QCOMPARE(steps.at(1).result, QStringLiteral(R"({"exit_code":1,"status":"error"})"));
}

void TestConversationTypes::replayResultPrefersRetainedThenRaw()
{
    ToolActivity activity{0,
                          QStringLiteral("grep"),
                          {},
                          QStringLiteral("success"),
                          std::nullopt,
                          {},
                          true,
                          QJsonObject{{QStringLiteral("raw"), 1}}};
    QCOMPARE(replayResult(activity), QStringLiteral(R"({"raw":1})"));
    activity.retainedOutput = QJsonObject{{QStringLiteral("kept"), 2}};
    QCOMPARE(replayResult(activity), QStringLiteral(R"({"kept":2})"));
}

// Issue 16: a pin goes in with the next message only when the request would not carry its text already: in
// a message, in a replayed tool output as it is or escaped inside the JSON, or as a command's card shows it
// (stdout, then stderr on a line of its own). The missing pins come back in the order they were asked about.
void TestConversationTypes::pinsMissingFromHistoryLooksInEveryReplayedForm()
{
    auto pin = [](const QString &text) {
        Pin made;
        made.id = text.left(12);
        made.text = text;
        return made;
    };
    auto withOutput = [](const QString &tool, const QJsonValue &output) {
        ToolActivity activity;
        activity.tool = tool;
        activity.status = QStringLiteral("success");
        activity.retainedOutput = output;
        TurnMemory memory;
        memory.toolActivity.append(activity);
        return Message::assistant(QStringLiteral("Done."), memory);
    };
    const QJsonObject make{{QStringLiteral("stdout"), QStringLiteral("PASS tst_lexer\nFAIL tst_parser")},
                           {QStringLiteral("stderr"), QStringLiteral("expected 3, got 4\n")},
                           {QStringLiteral("exit_code"), 1}};
    const QJsonObject read{{QStringLiteral("content"), QStringLiteral("1:3fa|int parse(const char *text);")}};
    const MessageList history{
        Message::user(QStringLiteral("Always use tabs.")),
        withOutput(QStringLiteral("bash"), make),
        withOutput(QStringLiteral("read_file"), read),
        // A retained output kept as a string that holds a command's JSON: parsed to find its card's text.
        withOutput(
            QStringLiteral("bash"),
            QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("stdout"), QStringLiteral("ok")},
                                                        {QStringLiteral("stderr"), QStringLiteral("late")}})
                                  .toJson(QJsonDocument::Compact))),
        // Replayed as its status only: its output is not in the request.
        [] {
            ToolActivity activity;
            activity.tool = QStringLiteral("grep");
            activity.status = QStringLiteral("success");
            TurnMemory memory;
            memory.toolActivity.append(activity);
            return Message::assistant(QString(), memory);
        }(),
    };
    const Pin note = pin(QStringLiteral("use tabs"));
    const Pin escaped = pin(QStringLiteral("PASS tst_lexer\nFAIL tst_parser"));
    const Pin card = pin(QStringLiteral("FAIL tst_parser\nexpected 3, got 4"));
    const Pin readResult = pin(QString::fromUtf8(QJsonDocument(read).toJson(QJsonDocument::Compact)));
    const Pin stringCard = pin(QStringLiteral("ok\nlate"));
    const Pin absent = pin(QStringLiteral("NOTE: never push to main"));
    const Pin unreplayed = pin(QStringLiteral("src/lexer.cpp:12: match"));
    const Pin joinedWithoutBreak = pin(QStringLiteral("FAIL tst_parserexpected 3"));

    QCOMPARE(pinsMissingFromHistory(history, {}), PinList());
    QCOMPARE(pinsMissingFromHistory(history, {note, escaped, card, readResult, stringCard}), PinList());
    QCOMPARE(pinsMissingFromHistory(history, {absent, note, unreplayed, card, joinedWithoutBreak}),
             PinList({absent, unreplayed, joinedWithoutBreak}));
    QCOMPARE(pinsMissingFromHistory({}, {note}), PinList({note}));
}

// The window's tool cards read these fields (ToolDisplay), never the tool's JSON: each tool's result shape,
// as the tools return it and as a transcript may keep it (JSON text, or plain text).
void TestConversationTypes::toolResultFactsReadEachToolsResult()
{
    const auto object = [](const char *json) { return QJsonDocument::fromJson(QByteArray(json)).object(); };
    ToolResultFacts read =
        ToolResultFacts::read(u"read_file"_s, object(R"({"total_lines":100000,"offset":201,"limit":100})"));
    QVERIFY(read.structured);
    QCOMPARE(read.totalLines, 100000);
    QCOMPARE(read.offset, 201);
    QCOMPARE(read.limit, qint64(100));
    // A read's file text stays in the result: its card shows the counts, nothing of the text is copied.
    QVERIFY(ToolResultFacts::read(u"read_file"_s, object(R"({"total_lines":1,"content":"1:ab|x"})"))
                .content.isEmpty());
    QVERIFY(ToolResultFacts::read(u"read_file"_s, QJsonValue(QStringLiteral("x"))).commandOutput.isEmpty());
    QCOMPARE(ToolResultFacts::read(u"read_file"_s, object(R"({"total_lines":3})")).offset, 1);
    QCOMPARE(ToolResultFacts::read(u"read_file"_s, object(R"({"total_lines":3})")).limit, std::nullopt);
    QCOMPARE(ToolResultFacts::read(u"grep"_s, object(R"({"count":7})")).count, 7);
    QCOMPARE(ToolResultFacts::read(u"write_file"_s, object(R"({"unchanged":true})")).unchanged, true);
    QCOMPARE(ToolResultFacts::read(u"write_file"_s, object(R"({"bytes_written":12})")).bytesWritten,
             qint64(12));

    const ToolResultFacts command = ToolResultFacts::read(
        u"bash"_s, object(R"({"exit_code":2,"stdout":"built\n","stderr":"warning\n","stdout_lines":5000})"));
    QCOMPARE(command.exitCode, 2);
    QCOMPARE(command.commandOutput, QStringLiteral("built\nwarning"));
    QCOMPARE(command.stdoutLines, 5000);
    QCOMPARE(command.stderrLinesCounted, false);
    QCOMPARE(command.stderrText, QStringLiteral("warning\n"));
    QCOMPARE(ToolResultFacts::read(u"bash"_s, object(R"({"exit_code":0})")).exitCode, 0);
    QCOMPARE(ToolResultFacts::read(u"bash"_s, object(R"({"stdout":""})")).exitCode, std::nullopt);

    const ToolResultFacts fetched = ToolResultFacts::read(
        u"web_fetch"_s, object(R"({"status_code":200,"content":"page","cached":true})"));
    QCOMPARE(fetched.statusCode, 200);
    QCOMPARE(fetched.content, QStringLiteral("page"));
    QCOMPARE(fetched.cached, true);

    const ToolResultFacts delegated = ToolResultFacts::read(
        u"delegate_task"_s,
        object(
            R"({"completed":1,"failed":1,"results":[{"agent":"reviewer","status":"completed","duration_ms":12000,)"
            R"("tool_calls":5},{"agent":"tester","status":"failed","error":"timed out after 60 s"}]})"));
    QCOMPARE(delegated.completedTasks, 1);
    QCOMPARE(delegated.failedTasks, 1);
    QCOMPARE(delegated.delegatedTasks.size(), 2);
    QCOMPARE(delegated.delegatedTasks.at(0),
             (ToolResultFacts::DelegatedTask{QStringLiteral("reviewer"), true, 12000, 5, QString()}));
    QCOMPARE(delegated.delegatedTasks.at(1).completed, false);
    QCOMPARE(delegated.delegatedTasks.at(1).error, QStringLiteral("timed out after 60 s"));

    // Kept as JSON text, read as the object; plain text is a command's output and nothing else.
    QCOMPARE(ToolResultFacts::read(u"glob"_s, QJsonValue(QStringLiteral(R"({"count":4})"))).count, 4);
    const ToolResultFacts plain = ToolResultFacts::read(u"bash"_s, QJsonValue(QStringLiteral("just text")));
    QVERIFY(!plain.structured);
    QCOMPARE(plain.commandOutput, QStringLiteral("just text"));
    QCOMPARE(ToolResultFacts::read(u"bash"_s, QJsonValue(QJsonValue::Null)), ToolResultFacts());
}

// Tool results can come from MCP servers and damaged transcripts: a field of the wrong type is absent,
// and a number past what the field holds is clamped, never cast as it is (issue 14).
void TestConversationTypes::toolResultFactsTakeNoOddNumberAsIs()
{
    const ToolResultFacts odd = ToolResultFacts::read(
        u"bash"_s,
        QJsonDocument::fromJson(
            R"({"total_lines":"12","count":1e300,"exit_code":-1e300,"limit":1e30,"status_code":null,)"
            R"("stdout_lines":-5,"completed":3.7})")
            .object());
    QVERIFY(odd.structured);
    QCOMPARE(odd.totalLines, std::nullopt);
    QCOMPARE(odd.count, std::numeric_limits<int>::max());
    QCOMPARE(odd.exitCode, std::numeric_limits<int>::min());
    QCOMPARE(odd.limit, qint64(9.0e18));
    QCOMPARE(odd.statusCode, 0);
    QCOMPARE(odd.stdoutLines, -5);
    QCOMPARE(odd.completedTasks, 3);
}

// What the question card's Submit and Cancel hand the session is what the ask_user tool returns.
void TestConversationTypes::userAnswerIsWhatAskUserReturns()
{
    QCOMPARE(QJsonDocument((UserAnswer{{QStringLiteral("Postgres"), QStringLiteral("yes")}, false}).toJson())
                 .toJson(QJsonDocument::Compact),
             QByteArray(R"({"answers":["Postgres","yes"],"cancelled":false})"));
    QCOMPARE(QJsonDocument(UserAnswer::cancel().toJson()).toJson(QJsonDocument::Compact),
             QByteArray(R"({"answers":[],"cancelled":true})"));
}

QTEST_GUILESS_MAIN(TestConversationTypes)
#include "tst_conversationtypes.moc"
