// The typed transcript schema (issue 13): events and transcript items read into C++ values and write back the
// same JSON, including event kinds, item kinds and fields this app does not know (reference 5.2: sessions
// stay interchangeable with the reference agent and with newer writers).
#include "session/sessionevent.h"
#include "session/sessionpins.h"
#include "session/sessionstore.h"
#include "testenvironment.h"

#include <QFile>
#include <QJsonDocument>
#include <QLocale>
#include <QTest>

using namespace keen;

namespace {

QJsonObject parse(const QByteArray &line)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad test line: %s", qPrintable(error.errorString()));
    return document.object();
}

} // namespace

class TestSessionEvent : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTripIsExact_data();
    void roundTripIsExact();
    void knownFieldsAreTyped();
    void compactionStrategyIsTyped();
    void sessionUsageIsTyped();
    void unknownEventKindIsKeptAndIgnoredByProjection();
    void storeWritesLoadedEventsBackUnchanged();
    void writtenEventsUseTheReferenceShape();
    void notAnEventIsRejected();
    void pinsInEffectFollowTheEvents();
};

void TestSessionEvent::roundTripIsExact_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("reference session_started, nanoseconds") << QByteArray(
        R"({"seq":1,"kind":"session_started","session_started":{"session_id":"0b1c","created_at":)"
        R"("2025-03-04T05:06:07.123456789+02:00","cwd":"/abs/dir"}})");
    QTest::newRow("user_message with extra fields everywhere")
        << QByteArray(R"({"seq":2,"kind":"user_message","user_message":{"content":"hi","images":["a.png"]},)"
                      R"("ts":"2026-01-01T00:00:00Z"})");
    QTest::newRow("assistant_turn, every item kind and unknown item fields") << QByteArray(
        R"({"seq":3,"kind":"assistant_turn","assistant_turn":{"transcript":[)"
        R"({"kind":"reasoning","content":"hmm","signature":"abc"},)"
        R"({"kind":"text","content":"Editing."},)"
        R"({"kind":"notice","content":"the reply stopped at the model's output limit"},)"
        R"({"kind":"tool_start","tool_start":{"name":"edit_file","input":{"path":"a.go"},"call_id":"c1"}},)"
        R"({"kind":"tool_end","tool_end":{"name":"edit_file","input":{"path":"a.go"},"output":{"ok":true},)"
        R"("duration_ns":1500,"exit":0}},)"
        R"({"kind":"bash","bash":{"command":"ls","summary":"list","output":"a.go","error":"",)"
        R"("duration_ns":7}},)"
        R"({"kind":"diff","diff":{"lines":[{"Kind":3,"OldLineNum":0,"NewLineNum":0,"Content":"@@ -1 +1 @@"},)"
        R"({"Kind":2,"OldLineNum":1,"NewLineNum":0,"Content":"old"},)"
        R"({"Kind":1,"OldLineNum":0,"NewLineNum":1,"Content":"new"}],"path":"a.go"}},)"
        R"({"kind":"image","image":{"url":"x.png"}}],)"
        R"("message":"Editing.","turn_memory":{"tool_activity":[{"text_offset":0,"tool":"edit_file",)"
        R"("input":{"path":"a.go"},"status":"success"}]},"model":"m1"}})");
    QTest::newRow("assistant_turn written by a sloppy writer")
        << QByteArray(R"({"seq":4,"kind":"assistant_turn","assistant_turn":{"transcript":[],"message":"",)"
                      R"("interrupted":false,"error":"","turn_memory":{"tool_activity":[],"x":1}}})");
    QTest::newRow("diff lines with missing and extra fields")
        << QByteArray(R"({"seq":5,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"diff",)"
                      R"("diff":{"lines":[{"Kind":3,"Content":"@@"},{"Kind":1,"OldLineNum":0,"NewLineNum":1,)"
                      R"("Content":"x","Moved":true}]}}]}})");
    QTest::newRow("tool items without payload or with odd payload") << QByteArray(
        R"({"seq":6,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"tool_end"},)"
        R"({"kind":"tool_start","tool_start":"read"},{"kind":"text"},{"no_kind":1}]}})");
    QTest::newRow("manual compaction_applied") << QByteArray(
        R"({"seq":7,"kind":"compaction_applied","compaction_applied":{"status":"Context compacted.",)"
        R"("transcript":[{"kind":"text","content":"## Goal"}],"messages":[{"Role":"user",)"
        R"("Content":"## Goal"}],"trigger":"manual"}})");
    QTest::newRow("automatic compaction_applied, empty status") << QByteArray(
        R"({"seq":8,"kind":"compaction_applied","compaction_applied":{"status":"","messages":[]}})");
    QTest::newRow("automatic compaction_applied with a strategy (issue 16)") << QByteArray(
        R"({"seq":8,"kind":"compaction_applied","compaction_applied":{"status":"","messages":[],)"
        R"("strategy":{"slices":3,"cut_outputs":1,"cut_characters":52000,"dropped_outputs":1,)"
        R"x("dropped_characters":900,"dropped":["read_file a.txt (900 characters)"]}}})x");
    QTest::newRow("reviewed manual compaction with an edited summary (issue 16)") << QByteArray(
        R"({"seq":8,"kind":"compaction_applied","compaction_applied":{"status":"Context compacted.",)"
        R"("transcript":[{"kind":"text","content":"## Goal, edited"}],"messages":[{"Role":"user",)"
        R"("Content":"## Goal, edited"}],"summary_edited":true}})");
    QTest::newRow("strategy in a shape this app would not write") << QByteArray(
        R"({"seq":8,"kind":"compaction_applied","compaction_applied":{"status":"","messages":[],)"
        R"("strategy":{"slices":1,"note":"x"}}})");
    QTest::newRow("pin_added (issue 16)") << QByteArray(
        R"({"seq":9,"kind":"pin_added","pin_added":{"id":"pin-1","kind":"tool_result","text":"a\nb",)"
        R"("source":"read_file a.txt"}})");
    QTest::newRow("pin_added of a kind this app does not know, extra fields")
        << QByteArray(R"({"seq":9,"kind":"pin_added","pin_added":{"id":"pin-2","kind":"image","text":"x",)"
                      R"("color":"red"}})");
    QTest::newRow("pin_removed (issue 16)")
        << QByteArray(R"({"seq":9,"kind":"pin_removed","pin_removed":{"id":"pin-1"}})");
    QTest::newRow("pin_removed with the headline its row names") << QByteArray(
        R"({"seq":9,"kind":"pin_removed","pin_removed":{"headline":"Never edit vendor/.","id":"pin-1"}})");
    QTest::newRow("pinned_context (issue 16)") << QByteArray(
        R"({"seq":9,"kind":"pinned_context","pinned_context":{"pin_ids":["pin-1"],)"
        R"("content":"<pinned_context>\n<pin kind=\"detail\">\nx\n</pin>\n</pinned_context>"}})");
    QTest::newRow("pinned_context without ids, extra fields")
        << QByteArray(R"({"seq":9,"kind":"pinned_context","pinned_context":{"content":"y","by":"z"}})");
    QTest::newRow("unknown event kind")
        << QByteArray(R"({"seq":9,"kind":"fork_created","fork_created":{"parent":"p","at_seq":3},"v":2})");
    QTest::newRow("session_usage, typed")
        << QByteArray(R"({"seq":11,"kind":"assistant_turn","assistant_turn":{"message":"m"},)"
                      R"("session_usage":{"input_tokens":48210,"output_tokens":3120,)"
                      R"("compaction":{"input_tokens":30110,"output_tokens":1480}}})");
    QTest::newRow("session_usage with fields and forms this app does not write")
        << QByteArray(R"({"seq":12,"kind":"assistant_turn","assistant_turn":{"message":"m"},)"
                      R"("session_usage":{"input_tokens":"many","output_tokens":3,"cost_usd":0.12}})");
    QTest::newRow("session_usage that is not an object") << QByteArray(
        R"({"seq":13,"kind":"compaction_applied","compaction_applied":{"status":"","messages":[]},)"
        R"("session_usage":7})");
    QTest::newRow("tool_end with the permission the person answered") << QByteArray(
        R"({"seq":14,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"tool_end","tool_end":)"
        R"({"name":"bash","input":{"command":"rm -rf build"},"output":"","permission":{"tool":"bash",)"
        R"("command":"rm -rf build","summary":"clean","dangerous":true,"decision":"allowed"}}}]}})");
    QTest::newRow("permission with a decision and a field this app does not know") << QByteArray(
        R"({"seq":15,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"tool_end","tool_end":)"
        R"({"name":"write_file","permission":{"tool":"write_file","path":"a.txt","decision":"maybe",)"
        R"("by":"me"}}}]}})");
    QTest::newRow("tool_start with the question open when the turn was stopped") << QByteArray(
        R"({"seq":16,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"tool_start",)"
        R"("tool_start":{"name":"bash","input":{"command":"rm -rf build"},"permission":{"tool":"bash",)"
        R"("command":"rm -rf build","dangerous":true,"decision":"cancelled"}}}],"interrupted":true}})");
    QTest::newRow("seq written as a float")
        << QByteArray(R"({"seq":10.0,"kind":"user_message","user_message":{"content":"x"}})");
}

void TestSessionEvent::roundTripIsExact()
{
    QFETCH(QByteArray, line);
    const QJsonObject original = parse(line);
    const auto event = SessionEvent::fromJson(original);
    QVERIFY(event);
    QCOMPARE(event->toJson(), original);
    // A copy made through the typed value is the same value.
    const auto again = SessionEvent::fromJson(event->toJson());
    QVERIFY(again);
    QCOMPARE(*again, *event);
}

void TestSessionEvent::knownFieldsAreTyped()
{
    const auto event = SessionEvent::fromJson(parse(
        R"({"seq":3,"kind":"assistant_turn","assistant_turn":{"transcript":[)"
        R"({"kind":"tool_end","tool_end":{"name":"edit_file","input":{"path":"a.go"},"error":"denied","duration_ns":9}},)"
        R"({"kind":"bash","bash":{"command":"ls","output":"a.go"}},)"
        R"({"kind":"diff","diff":{"lines":[{"Kind":2,"OldLineNum":4,"NewLineNum":0,"Content":"old"}]}},)"
        R"({"kind":"image"}],"message":"m","interrupted":true,"error":"stopped"}})"));
    QVERIFY(event);
    QCOMPARE(event->kind, SessionEvent::Kind::AssistantTurn);
    const SessionEvent::Assistant *turn = event->assistant();
    QVERIFY(turn);
    QCOMPARE(turn->message, QStringLiteral("m"));
    QVERIFY(turn->interrupted);
    QCOMPARE(turn->error, QStringLiteral("stopped"));
    QCOMPARE(turn->transcript.size(), 4);
    const TranscriptItem &end = turn->transcript.at(0);
    QCOMPARE(end.kind, TranscriptItem::Kind::ToolEnd);
    QCOMPARE(end.name, QStringLiteral("edit_file"));
    QCOMPARE(end.input.toObject().value(QStringLiteral("path")).toString(), QStringLiteral("a.go"));
    QCOMPARE(end.error, QStringLiteral("denied"));
    QCOMPARE(end.durationNs, std::optional<qint64>(9));
    QVERIFY(end.output.isUndefined());
    const TranscriptItem &bash = turn->transcript.at(1);
    QCOMPARE(bash.kind, TranscriptItem::Kind::Bash);
    QCOMPARE(bash.command, QStringLiteral("ls"));
    QCOMPARE(bash.bashOutput(), QStringLiteral("a.go"));
    const TranscriptItem &diff = turn->transcript.at(2);
    QCOMPARE(diff.kind, TranscriptItem::Kind::Diff);
    QCOMPARE(diff.diff, (QList<DiffLine>{DiffLine{DiffLine::Kind::Removed, 4, 0, QStringLiteral("old")}}));
    QCOMPARE(turn->transcript.at(3).kind, TranscriptItem::Kind::Unknown);
    QVERIFY(!end.permission);

    // The permission a person answered for a call (Keen's addition, docs/SESSION_FORMAT.md).
    const auto answered = SessionEvent::fromJson(parse(
        R"({"seq":4,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"tool_end","tool_end":)"
        R"({"name":"web_fetch","permission":{"tool":"web_fetch","path":"http://docs.test/","summary":"local",)"
        R"("decision":"allowed_for_session"}}},{"kind":"tool_end","tool_end":{"name":"write_file",)"
        R"("permission":{"tool":"write_file","path":"a.txt","diff":"+x","decision":"sure"}}}]}})"));
    QVERIFY(answered);
    const auto fetch = answered->assistant()->transcript.at(0).permission;
    QVERIFY(fetch);
    QCOMPARE(fetch->tool, QStringLiteral("web_fetch"));
    QCOMPARE(fetch->path, QStringLiteral("http://docs.test/"));
    QCOMPARE(fetch->summary, QStringLiteral("local"));
    QCOMPARE(fetch->decision, PermissionDecision::AllowForSession);
    QVERIFY(fetch->allowed());
    const auto write = answered->assistant()->transcript.at(1).permission;
    QVERIFY(write);
    QCOMPARE(write->decision, PermissionDecision::Deny); // a decision it cannot read never says allowed
    QCOMPARE(write->request().diff, QStringLiteral("+x"));
    QVERIFY(!write->unanswered);

    // A question no one answered (the turn was stopped while it waited), on the call's tool_start.
    const auto stopped = SessionEvent::fromJson(parse(
        R"({"seq":5,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"tool_start","tool_start":)"
        R"({"name":"bash","permission":{"tool":"bash","command":"rm -rf build","decision":"cancelled"}}}]}})"));
    QVERIFY(stopped);
    const auto open = stopped->assistant()->transcript.at(0).permission;
    QVERIFY(open);
    QVERIFY(open->unanswered);
    QVERIFY(!open->allowed());
    QCOMPARE(open->command, QStringLiteral("rm -rf build"));
}

// The session's token totals beside a turn (docs/SESSION_FORMAT.md, session_usage) are a typed field of the
// event, not a field the app reads by hand out of the unknown ones (issue 13). Counts are clamped as a
// provider's are.
void TestSessionEvent::sessionUsageIsTyped()
{
    const auto event = SessionEvent::fromJson(parse(
        R"({"seq":3,"kind":"assistant_turn","assistant_turn":{"message":"m"},"session_usage":)"
        R"({"input_tokens":48210,"output_tokens":-4,"subagents":{"input_tokens":1e300,"output_tokens":9}}})"));
    QVERIFY(event);
    QVERIFY(event->sessionUsage);
    QCOMPARE(event->sessionUsage->turns.inputTokens, 48210);
    QCOMPARE(event->sessionUsage->turns.outputTokens, 0);
    QCOMPARE(event->sessionUsage->compaction, TokenUsage());
    QCOMPARE(event->sessionUsage->subagents.inputTokens, TokenUsage::MaxCount);
    QCOMPARE(event->sessionUsage->subagents.outputTokens, 9);
    // The odd form is written back as it came (a transcript survives load and save unchanged).
    QCOMPARE(event->toJson()
                 .value(QStringLiteral("session_usage"))
                 .toObject()
                 .value(QStringLiteral("output_tokens")),
             QJsonValue(-4));

    SessionEvent written = SessionEvent::userMessage(QStringLiteral("x"));
    QVERIFY(!written.toJson().contains(QStringLiteral("session_usage")));
    written.sessionUsage = SessionUsage{{.inputTokens = 5, .outputTokens = 6}, {}, {}};
    QCOMPARE(written.toJson().value(QStringLiteral("session_usage")).toObject(),
             (QJsonObject{{QStringLiteral("input_tokens"), 5}, {QStringLiteral("output_tokens"), 6}}));
}

// Issue 16: how an over-budget automatic compaction fit is part of its compaction_applied event.
void TestSessionEvent::compactionStrategyIsTyped()
{
    CompactionStrategy strategy;
    strategy.rebuilt = true;
    strategy.slices = 3;
    strategy.cutOutputs = 1;
    strategy.cutCharacters = 52000;
    strategy.droppedOutputs = 2;
    strategy.droppedCharacters = 9000;
    strategy.dropped = QStringList{QStringLiteral("read_file a.txt (5,000 characters)"),
                                   QStringLiteral("bash make (4,000 characters)")};
    SessionEvent written = SessionEvent::compactionApplied(QString(), {}, {}, strategy);
    written.seq = 8;
    const QJsonObject json = written.toJson();
    QCOMPARE(json.value(QStringLiteral("compaction_applied")).toObject().value(QStringLiteral("strategy")),
             QJsonValue(strategy.toJson()));
    const auto read = SessionEvent::fromJson(json);
    QVERIFY(read);
    QCOMPARE(read->compaction()->strategy, strategy);
    // What the checkpoint row says: how many requests, what was cut and what was left out, by name.
    QCOMPARE(strategy.describe(),
             QStringLiteral("summarised in 3 parts; 1 long output cut by %1 characters; 2 oldest tool "
                            "outputs left out (%2 characters): read_file a.txt (5,000 characters), bash make "
                            "(4,000 characters)")
                 .arg(QLocale().toString(52000), QLocale().toString(9000)));
    // Counts read as English: one is singular, more are plural, never "output(s)".
    CompactionStrategy plural = strategy;
    plural.cutOutputs = 4;
    plural.droppedOutputs = 1;
    plural.dropped = strategy.dropped.mid(0, 1);
    QCOMPARE(
        plural.describe(),
        QStringLiteral("summarised in 3 parts; 4 long outputs cut by %1 characters; 1 oldest tool output "
                       "left out (%2 characters): read_file a.txt (5,000 characters)")
            .arg(QLocale().toString(52000), QLocale().toString(9000)));
    // The seed's single request writes no strategy at all.
    const QJsonObject seed = SessionEvent::compactionApplied(QString(), {}, {}).toJson();
    QVERIFY(
        !seed.value(QStringLiteral("compaction_applied")).toObject().contains(QStringLiteral("strategy")));
    QVERIFY(CompactionStrategy().describe().isEmpty());
    // Audit 2026-12-06: a request rebuilt as one part without the tool definitions is recorded and named.
    CompactionStrategy onePart;
    onePart.rebuilt = true;
    QVERIFY(!onePart.isSingleRequest());
    QCOMPARE(onePart.describe(), QStringLiteral("rebuilt as one request without the tool definitions"));
    SessionEvent oneEvent = SessionEvent::compactionApplied(QString(), {}, {}, onePart);
    oneEvent.seq = 9;
    const QJsonObject rebuilt = oneEvent.toJson();
    QCOMPARE(rebuilt.value(QStringLiteral("compaction_applied")).toObject().value(QStringLiteral("strategy")),
             QJsonValue(QJsonObject{{QStringLiteral("slices"), 1},
                                    {QStringLiteral("cut_outputs"), 0},
                                    {QStringLiteral("cut_characters"), 0},
                                    {QStringLiteral("dropped_outputs"), 0},
                                    {QStringLiteral("dropped_characters"), 0}}));
    const auto readBack = SessionEvent::fromJson(rebuilt);
    QVERIFY(readBack);
    QCOMPARE(readBack->compaction()->strategy, onePart);
}

void TestSessionEvent::unknownEventKindIsKeptAndIgnoredByProjection()
{
    const QList<SessionEvent> events{
        *SessionEvent::fromJson(parse(R"({"seq":1,"kind":"user_message","user_message":{"content":"one"}})")),
        *SessionEvent::fromJson(parse(R"({"seq":2,"kind":"fork_created","fork_created":{"parent":"p"}})")),
        *SessionEvent::fromJson(
            parse(R"({"seq":3,"kind":"assistant_turn","assistant_turn":{"message":"two","future":1}})")),
    };
    QCOMPARE(events.at(1).kind, SessionEvent::Kind::Unknown);
    QCOMPARE(events.at(1).kindName(), QStringLiteral("fork_created"));
    const MessageList messages = buildConversation(events);
    QCOMPARE(messages.size(), 2);
    QCOMPARE(messages.at(0).content, QStringLiteral("one"));
    QCOMPARE(messages.at(1).content, QStringLiteral("two"));
}

void TestSessionEvent::storeWritesLoadedEventsBackUnchanged()
{
    // A transcript written by another agent, loaded and appended to another session, is byte-for-byte the
    // same JSON (apart from the seq the store assigns).
    test::TestEnvironment env;
    SessionStore store;
    const QString workspace = env.path(QStringLiteral("workspace"));
    auto source = store.create(workspace);
    QVERIFY(source.ok());
    const QList<QByteArray> foreign{
        R"({"seq":2,"kind":"user_message","user_message":{"content":"hi","attachments":[1,2]},"origin":"cli"})",
        R"({"seq":3,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"text","content":"ok",)"
        R"("citations":[]},{"kind":"web_search","web_search":{"q":"qt"}}],"message":"ok"}})",
        R"({"seq":4,"kind":"checkpoint_marked","checkpoint_marked":{"label":"before refactor"}})",
    };
    {
        QFile file(source->transcriptPath);
        QVERIFY(file.open(QIODevice::Append));
        for (const QByteArray &line : foreign)
            file.write(line + '\n');
    }
    const auto loaded = store.load(source->transcriptPath);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->skippedLines, 0);
    QCOMPARE(loaded->events.size(), 4);

    auto copy = store.create(workspace);
    QVERIFY(copy.ok());
    const QList<SessionEvent> replayed = loaded->events.mid(1);
    QVERIFY(store.appendBatch(*copy, replayed).ok());
    const auto reloaded = store.load(copy->transcriptPath);
    QVERIFY2(reloaded.ok(), qPrintable(reloaded.error()));
    QCOMPARE(reloaded->events.size(), 4);
    for (int i = 0; i < foreign.size(); ++i) {
        QJsonObject expected = parse(foreign.at(i));
        QJsonObject actual = reloaded->events.at(i + 1).toJson();
        actual.remove(QStringLiteral("seq"));
        expected.remove(QStringLiteral("seq"));
        QCOMPARE(actual, expected);
    }
}

void TestSessionEvent::writtenEventsUseTheReferenceShape()
{
    TurnMemory memory;
    ToolActivity activity;
    activity.tool = QStringLiteral("read_file");
    activity.status = QStringLiteral("success");
    memory.toolActivity.append(activity);
    SessionEvent event = SessionEvent::assistantTurn(
        {TranscriptItem::text(QStringLiteral("Done.")),
         TranscriptItem::toolEnd(QStringLiteral("read_file"),
                                 QJsonObject{{QStringLiteral("path"), QStringLiteral("a")}},
                                 QJsonValue(QStringLiteral("body")), QString(), 42),
         TranscriptItem::diffOf(
             DiffLine::parseUnified(QStringLiteral("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n")))},
        QStringLiteral("Done."), memory, false, QString());
    event.seq = 5;
    const QJsonObject expected = parse(
        R"({"seq":5,"kind":"assistant_turn","assistant_turn":{"transcript":[{"kind":"text","content":"Done."},)"
        R"({"kind":"tool_end","tool_end":{"name":"read_file","input":{"path":"a"},"output":"body","duration_ns":42}},)"
        R"({"kind":"diff","diff":{"lines":[{"Kind":3,"OldLineNum":0,"NewLineNum":0,"Content":"@@ -1 +1 @@"},)"
        R"({"Kind":2,"OldLineNum":1,"NewLineNum":0,"Content":"x"},{"Kind":1,"OldLineNum":0,"NewLineNum":1,"Content":"y"}]}}],)"
        R"("message":"Done.","turn_memory":{"tool_activity":[{"text_offset":0,"tool":"read_file","status":"success"}]}}})");
    QCOMPARE(event.toJson(), expected);
}

void TestSessionEvent::notAnEventIsRejected()
{
    QVERIFY(!SessionEvent::fromJson(parse(R"({"kind":"user_message","user_message":{"content":"x"}})")));
    QVERIFY(!SessionEvent::fromJson(parse(R"({"seq":0,"kind":"user_message","user_message":{}})")));
    QVERIFY(!SessionEvent::fromJson(parse(R"({"seq":"3","kind":"user_message","user_message":{}})")));
    QVERIFY(!SessionEvent::fromJson(parse(R"({"seq":3,"kind":"user_message","user_message":"x"})")));
    QVERIFY(!SessionEvent::fromJson(parse(R"({"seq":3,"kind":"assistant_turn"})")));
}

QTEST_GUILESS_MAIN(TestSessionEvent)
#include "tst_sessionevent.moc"

// Issue 16, pins: the pins in effect are the added ones no later pin_removed names, in pin order; a repeated
// id changes nothing; they survive a store round trip (resume).
void TestSessionEvent::pinsInEffectFollowTheEvents()
{
    const Pin a{QStringLiteral("pin-a"), Pin::Kind::Note, QStringLiteral("keep the API"), {}};
    const Pin b{QStringLiteral("pin-b"), Pin::Kind::CodeBlock, QStringLiteral("```\nx\n```"),
                QStringLiteral("assistant message")};
    const Pin c{QStringLiteral("pin-c"), Pin::Kind::Detail, QStringLiteral("src/a.cpp:12"), {}};
    QList<SessionEvent> events{SessionEvent::pinAdded(a), SessionEvent::pinAdded(b),
                               SessionEvent::pinAdded(a), SessionEvent::pinRemoved(QStringLiteral("pin-a")),
                               SessionEvent::pinAdded(c), SessionEvent::pinRemoved(QStringLiteral("nope"))};
    QCOMPARE(SessionPins::active(events), (PinList{b, c}));
    QCOMPARE(SessionPins::active({}), PinList());

    test::TestEnvironment env;
    SessionStore store(env.path(QStringLiteral("sessions")));
    auto session = store.create(QDir::tempPath());
    QVERIFY(session);
    for (const SessionEvent &event : std::as_const(events))
        QVERIFY(store.append(*session, event));
    auto loaded = store.load(session->id);
    QVERIFY(loaded);
    QCOMPARE(SessionPins::active(loaded->events), (PinList{b, c}));
    QCOMPARE(buildConversation(loaded->events), MessageList()); // pins add nothing to the conversation
}
