// What can be pinned from a conversation (issue 16, "Pins"): the chat's context menu and `run --session ID
// --pinnable` / `--pin-item N` offer the same pins, made by one rule.
#include "session/pincandidates.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace keen;

class TestPinCandidates : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void codeBlocksAreExtracted();
    void aConversationOffersItsMessagesCodeBlocksAndToolResultsInChatOrder();
    void aToolResultIsWhatItsCardShowsElseWhatTheModelGot();
};

void TestPinCandidates::codeBlocksAreExtracted()
{
    const QString markdown = QStringLiteral("Text\n```cpp\nint x = 1;\nint y;\n```\nmore\n~~~\nls -l\n~~~\n");
    QCOMPARE(PinCandidates::codeBlocks(markdown),
             (QStringList{QStringLiteral("int x = 1;\nint y;"), QStringLiteral("ls -l")}));
    // A reply cut off inside a fence: the block runs to the end.
    QCOMPARE(PinCandidates::codeBlocks(QStringLiteral("see\n```\nhalf")),
             QStringList{QStringLiteral("half")});
}

void TestPinCandidates::aConversationOffersItsMessagesCodeBlocksAndToolResultsInChatOrder()
{
    const QJsonObject readInput{{QStringLiteral("path"), QStringLiteral("src/a.cpp")}};
    const QJsonObject readResult{{QStringLiteral("content"), QStringLiteral("1:ab|int main() {}")}};
    const QList<SessionEvent> events{
        SessionEvent::sessionStarted(QStringLiteral("s"), QDateTime::currentDateTimeUtc(),
                                     QStringLiteral("/w")),
        SessionEvent::userMessage(QStringLiteral("why does main fail?")),
        SessionEvent::assistantTurn(
            {TranscriptItem::reasoning(QStringLiteral("thinking")),
             TranscriptItem::text(QStringLiteral("Let me ")),
             TranscriptItem::text(QStringLiteral("read it.")),
             TranscriptItem::toolStart(QStringLiteral("read_file"), readInput),
             TranscriptItem::toolEnd(QStringLiteral("read_file"), readInput, readResult, QString(), 1000),
             TranscriptItem::text(QStringLiteral("Fix:\n```cpp\nint main() { return 0; }\n```\n"))},
            QString(), std::nullopt, false, QString()),
        SessionEvent::pinAdded(PinCandidates::message(QStringLiteral("why does main fail?"), true)),
        SessionEvent::userMessage(QStringLiteral("thanks")),
        // An older transcript without items: its message is the reply.
        SessionEvent::assistantTurn({}, QStringLiteral("You are welcome."), std::nullopt, false, QString()),
        // An automatic compaction's summary is private (S17): never offered.
        SessionEvent::compactionApplied(QString(), {TranscriptItem::text(QStringLiteral("private summary"))},
                                        {}),
        SessionEvent::compactionApplied(QStringLiteral("Context compacted."),
                                        {TranscriptItem::text(QStringLiteral("## Goal\nFix main."))}, {}),
    };
    const PinList pins = PinCandidates::fromEvents(events);
    QStringList shown;
    for (const Pin &pin : pins)
        shown << Pin::kindName(pin.kind) + QLatin1Char('|') + pin.source + QLatin1Char('|') + pin.text;
    QCOMPARE(shown,
             (QStringList{
                 QStringLiteral("message|user message|why does main fail?"),
                 QStringLiteral("message|assistant message|Let me read it."),
                 QStringLiteral("tool_result|read_file src/a.cpp|{\"content\":\"1:ab|int main() {}\"}"),
                 QStringLiteral("message|assistant message|Fix:\n```cpp\nint main() { return 0; }\n```\n"),
                 QStringLiteral("code_block|code block of an assistant message|int main() { return 0; }"),
                 QStringLiteral("message|user message|thanks"),
                 QStringLiteral("message|assistant message|You are welcome."),
                 QStringLiteral("message|assistant message|## Goal\nFix main."),
             }));
}

void TestPinCandidates::aToolResultIsWhatItsCardShowsElseWhatTheModelGot()
{
    // A command: what it printed.
    const QJsonObject bashResult{{QStringLiteral("output"), QStringLiteral("ok\n")},
                                 {QStringLiteral("exit_code"), 0}};
    Pin pin = PinCandidates::toolResult(QStringLiteral("bash"), QStringLiteral("make"),
                                        QStringLiteral("ok\n"), bashResult, QStringLiteral("Run make"));
    QCOMPARE(pin.kind, Pin::Kind::ToolResult);
    QCOMPARE(pin.source, QStringLiteral("bash make"));
    QCOMPARE(pin.text, QStringLiteral("ok\n"));
    // A tool that returned text, JSON, or nothing but an error.
    pin = PinCandidates::toolResult(QStringLiteral("web_fetch"), QString(), QString(),
                                    QJsonValue(QStringLiteral("page")), QString());
    QCOMPARE(pin.text, QStringLiteral("page"));
    QCOMPARE(pin.source, QStringLiteral("web_fetch"));
    pin = PinCandidates::toolResult(QStringLiteral("glob"), QStringLiteral("*.h"), QString(),
                                    QJsonArray{QStringLiteral("a.h")}, QString());
    QCOMPARE(pin.text, QStringLiteral("[\"a.h\"]"));
    pin = PinCandidates::toolResult(QStringLiteral("read_file"), QStringLiteral("gone.txt"), QString(),
                                    QJsonValue(), QStringLiteral("no such file"));
    QCOMPARE(pin.text, QStringLiteral("no such file"));

    // A bash transcript segment (the reference's schema) is a command's result too.
    TranscriptItem segment;
    segment.kind = TranscriptItem::Kind::Bash;
    segment.command = QStringLiteral("ls");
    segment.output = QStringLiteral("a\nb\n");
    const PinList pins = PinCandidates::fromEvents(
        {SessionEvent::assistantTurn({segment}, QString(), std::nullopt, false, QString())});
    QCOMPARE(pins.size(), 1);
    QCOMPARE(pins.constFirst().source, QStringLiteral("bash ls"));
    QCOMPARE(pins.constFirst().text, QStringLiteral("a\nb\n"));
}

QTEST_GUILESS_MAIN(TestPinCandidates)
#include "tst_pincandidates.moc"
