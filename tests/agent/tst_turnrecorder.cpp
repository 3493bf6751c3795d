// TurnRecorder (reference 5.2, 5.5; issue 11): a chunk costs what it carries, the recorded turn is complete.
#include "agent/turnrecorder.h"

#include <QTest>

using namespace keen;

namespace {

StreamEvent toolEvent(StreamEvent::Type type, const QString &name, const QString &error = QString(),
                      const QString &diff = QString())
{
    ToolCallInfo call;
    call.name = name;
    call.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("a.go")}};
    if (type == StreamEvent::Type::ToolEnd) {
        call.output = QStringLiteral("contents");
        call.error = error;
        call.durationNs = 1000;
        call.diff = diff;
    }
    return StreamEvent::tool(type, call);
}

} // namespace

class TestTurnRecorder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void longReplyInSmallChunksMakesOneItem();
    void chunksOfAlternatingKindsMakeOneItemPerRun();
    void toolEventsCloseTheOpenItemAndSealIt();
    void retryDropsOnlyWhatFollowsTheLastTool();
    void textOffsetIsUtf8BytesBeforeTheTool();
    void checkpointStartsAfresh();
    void aRefusedCallIsKeptAsACallThatFailedAtOnce();
};

void TestTurnRecorder::longReplyInSmallChunksMakesOneItem()
{
    // 200,000 characters in 7-character chunks: every chunk is appended to one open string; no transcript
    // item (and so no JSON) is made until the item closes.
    TurnRecorder recorder;
    QString expected;
    const QString alphabet = QStringLiteral("abcdefghijklmnopqrstuvwxyz \n#*`");
    qint64 chunks = 0;
    while (expected.size() < 200000) {
        QString chunk;
        for (int i = 0; i < 7; ++i)
            chunk += alphabet.at(int((expected.size() + i) * 7919 % alphabet.size()));
        expected += chunk;
        recorder.record(StreamEvent::chunk(chunk));
        ++chunks;
        QCOMPARE(recorder.counters().itemsClosed, 0);
    }
    QCOMPARE(recorder.counters().chunks, chunks);
    const RecordedTurn turn = recorder.current();
    QCOMPARE(turn.transcript.size(), 1);
    QCOMPARE(turn.transcript.first().kind, TranscriptItem::Kind::Text);
    QCOMPARE(turn.transcript.first().content, expected);
    QCOMPARE(turn.message, expected);
    QCOMPARE(recorder.textAfterLastToolActivity(), expected);
}

void TestTurnRecorder::chunksOfAlternatingKindsMakeOneItemPerRun()
{
    TurnRecorder recorder;
    for (int i = 0; i < 1000; ++i)
        recorder.record(StreamEvent::reasoning(QStringLiteral("think ")));
    for (int i = 0; i < 1000; ++i)
        recorder.record(StreamEvent::chunk(QStringLiteral("say ")));
    recorder.record(StreamEvent::reasoning(QStringLiteral("again")));
    QCOMPARE(recorder.counters().itemsClosed, 2); // reasoning, then text; the last reasoning is still open
    const RecordedTurn turn = recorder.current();
    QCOMPARE(turn.transcript.size(), 3);
    QCOMPARE(turn.transcript.at(0), TranscriptItem::reasoning(QStringLiteral("think ").repeated(1000)));
    QCOMPARE(turn.transcript.at(1), TranscriptItem::text(QStringLiteral("say ").repeated(1000)));
    QCOMPARE(turn.transcript.at(2), TranscriptItem::reasoning(QStringLiteral("again")));
    QCOMPARE(turn.message, QStringLiteral("say ").repeated(1000)); // reasoning is not the message
}

void TestTurnRecorder::toolEventsCloseTheOpenItemAndSealIt()
{
    TurnRecorder recorder;
    recorder.record(StreamEvent::chunk(QStringLiteral("Editing.")));
    recorder.record(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("edit_file")));
    recorder.record(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("edit_file"), QString(),
                              QStringLiteral("--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new\n")));
    recorder.record(StreamEvent::chunk(QStringLiteral("Done.")));
    const RecordedTurn turn = recorder.current();
    QCOMPARE(turn.transcript.size(), 5);
    QCOMPARE(turn.transcript.at(0), TranscriptItem::text(QStringLiteral("Editing.")));
    QCOMPARE(turn.transcript.at(1).kind, TranscriptItem::Kind::ToolStart);
    QCOMPARE(turn.transcript.at(1).name, QStringLiteral("edit_file"));
    QCOMPARE(turn.transcript.at(2).kind, TranscriptItem::Kind::ToolEnd);
    QCOMPARE(turn.transcript.at(2).output.toString(), QStringLiteral("contents"));
    QCOMPARE(turn.transcript.at(2).durationNs, std::optional<qint64>(1000));
    QCOMPARE(turn.transcript.at(3).kind, TranscriptItem::Kind::Diff);
    QCOMPARE(turn.transcript.at(3).diff,
             (QList<DiffLine>{DiffLine{DiffLine::Kind::Hunk, 0, 0, QStringLiteral("@@ -1 +1 @@")},
                              DiffLine{DiffLine::Kind::Removed, 1, 0, QStringLiteral("old")},
                              DiffLine{DiffLine::Kind::Added, 0, 1, QStringLiteral("new")}}));
    QCOMPARE(turn.transcript.at(4), TranscriptItem::text(QStringLiteral("Done.")));
    QCOMPARE(turn.message, QStringLiteral("Editing.Done."));
    QCOMPARE(recorder.textAfterLastToolActivity(), QStringLiteral("Done."));
    QCOMPARE(turn.turnMemory.toolActivity.size(), 1);
    QCOMPARE(turn.turnMemory.toolActivity.first().tool, QStringLiteral("edit_file"));
}

void TestTurnRecorder::retryDropsOnlyWhatFollowsTheLastTool()
{
    TurnRecorder recorder;
    recorder.record(StreamEvent::chunk(QStringLiteral("Reading.")));
    recorder.record(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file")));
    recorder.record(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file")));
    recorder.record(StreamEvent::reasoning(QStringLiteral("half a thought")));
    recorder.record(StreamEvent::chunk(QStringLiteral("half an answ")));
    recorder.rewindForRetry();
    recorder.record(StreamEvent::chunk(QStringLiteral("The answer.")));
    const RecordedTurn turn = recorder.current();
    QCOMPARE(turn.message, QStringLiteral("Reading.The answer."));
    QCOMPARE(turn.transcript.size(), 4);
    QCOMPARE(turn.transcript.last(), TranscriptItem::text(QStringLiteral("The answer.")));
}

void TestTurnRecorder::textOffsetIsUtf8BytesBeforeTheTool()
{
    TurnRecorder recorder;
    recorder.record(StreamEvent::chunk(QStringLiteral("Grüße ")));
    recorder.record(StreamEvent::chunk(QStringLiteral("→ ")));
    recorder.record(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file")));
    recorder.record(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file")));
    recorder.record(StreamEvent::chunk(QStringLiteral("ok")));
    recorder.record(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file")));
    recorder.record(
        toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file"), QStringLiteral("gone")));
    const RecordedTurn turn = recorder.current();
    QCOMPARE(turn.turnMemory.toolActivity.size(), 2);
    const int first = int(QStringLiteral("Grüße → ").toUtf8().size());
    QCOMPARE(turn.turnMemory.toolActivity.at(0).textOffset, first);
    QCOMPARE(turn.turnMemory.toolActivity.at(1).textOffset, first + 2);
    QCOMPARE(turn.turnMemory.toolActivity.at(1).status, QStringLiteral("error"));
}

void TestTurnRecorder::checkpointStartsAfresh()
{
    TurnRecorder recorder;
    recorder.record(StreamEvent::chunk(QStringLiteral("Work so far.")));
    recorder.record(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file")));
    recorder.record(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file")));
    const RecordedTurn checkpoint = recorder.checkpoint();
    QCOMPARE(checkpoint.message, QStringLiteral("Work so far."));
    QVERIFY(!checkpoint.turnMemory.isEmpty());
    QVERIFY(recorder.current().isEmpty());
    QVERIFY(!recorder.hasToolActivity());
    recorder.record(StreamEvent::chunk(QStringLiteral("Next.")));
    recorder.record(toolEvent(StreamEvent::Type::ToolStart, QStringLiteral("read_file")));
    recorder.record(toolEvent(StreamEvent::Type::ToolEnd, QStringLiteral("read_file")));
    QCOMPARE(recorder.current().turnMemory.toolActivity.first().textOffset, 5);
}

QTEST_GUILESS_MAIN(TestTurnRecorder)
// Issue 15: every tool call has a card that ends in a final state, also when the session is opened again. A
// call the loop refuses before it runs sends only ToolRejected; the transcript keeps it as a call that failed
// at once, without a tool activity (the model's history is unchanged).
void TestTurnRecorder::aRefusedCallIsKeptAsACallThatFailedAtOnce()
{
    TurnRecorder recorder;
    recorder.record(StreamEvent::chunk(QStringLiteral("Reading.")));
    ToolCallInfo refused;
    refused.callId = QStringLiteral("c1");
    refused.name = QStringLiteral("read_file");
    refused.input = QJsonObject{{QStringLiteral("bogus"), 1}};
    refused.error = QStringLiteral("invalid input: unknown parameter \"bogus\"");
    recorder.record(StreamEvent::tool(StreamEvent::Type::ToolRejected, refused));
    recorder.record(StreamEvent::chunk(QStringLiteral("Again.")));
    const RecordedTurn turn = recorder.current();
    QCOMPARE(turn.transcript.size(), 4);
    QCOMPARE(turn.transcript.at(0), TranscriptItem::text(QStringLiteral("Reading.")));
    QCOMPARE(turn.transcript.at(1).kind, TranscriptItem::Kind::ToolStart);
    QCOMPARE(turn.transcript.at(1).name, QStringLiteral("read_file"));
    QCOMPARE(turn.transcript.at(2).kind, TranscriptItem::Kind::ToolEnd);
    QCOMPARE(turn.transcript.at(2).error, refused.error);
    QCOMPARE(turn.transcript.at(2).input.toObject(), refused.input);
    QCOMPARE(turn.transcript.at(3), TranscriptItem::text(QStringLiteral("Again.")));
    QCOMPARE(turn.message, QStringLiteral("Reading.Again."));
    QVERIFY(turn.turnMemory.toolActivity.isEmpty());
}

#include "tst_turnrecorder.moc"
