// Projection of transcript events into the conversation (reference 5.3, 4.8 items 25-26, seed S62-S63).
#include "session/sessionstore.h"
#include "testenvironment.h"

#include <QDir>
#include <QTest>

using namespace keen;

namespace {

TurnMemory readFileMemory()
{
    ToolActivity activity;
    activity.textOffset = 0;
    activity.tool = QStringLiteral("read_file");
    activity.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("a.go")}};
    activity.status = QStringLiteral("success");
    return TurnMemory{{activity}};
}

SessionEvent assistant(const QString &message, std::optional<TurnMemory> memory = std::nullopt)
{
    return SessionEvent::assistantTurn({}, message, memory, false, QString());
}

} // namespace

class TestSessionProjection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void userAndAssistantTurnsInOrder();
    void assistantTurnWithoutTextOrToolActivityIsDropped();
    void assistantTurnWithOnlyToolActivityIsKept();
    void replacesOnCompaction_S62();
    void compactionCloneIsIndependent();
    void checkpointStaysInTranscriptForReplay_S63();
    void pinnedContextJoinsTheConversationWhereItStands();
};

void TestSessionProjection::userAndAssistantTurnsInOrder()
{
    const QList<SessionEvent> events{
        SessionEvent::sessionStarted(QStringLiteral("id"), QDateTime::currentDateTimeUtc(),
                                     QStringLiteral("/w")),
        SessionEvent::userMessage(QStringLiteral("hi")),
        assistant(QStringLiteral("hello"), readFileMemory()),
        SessionEvent::userMessage(QStringLiteral("again")),
    };
    const MessageList messages = buildConversation(events);
    QCOMPARE(messages.size(), 3);
    QCOMPARE(messages.at(0), Message::user(QStringLiteral("hi")));
    QCOMPARE(messages.at(1), Message::assistant(QStringLiteral("hello"), readFileMemory()));
    QCOMPARE(messages.at(2), Message::user(QStringLiteral("again")));
}

void TestSessionProjection::assistantTurnWithoutTextOrToolActivityIsDropped()
{
    const QList<SessionEvent> events{
        SessionEvent::userMessage(QStringLiteral("hi")),
        SessionEvent::assistantTurn({TranscriptItem::reasoning(QStringLiteral("hmm"))}, QString(),
                                    TurnMemory{}, true, QStringLiteral("interrupted")),
    };
    const MessageList messages = buildConversation(events);
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.first().role, Message::Role::User);
}

void TestSessionProjection::assistantTurnWithOnlyToolActivityIsKept()
{
    const MessageList messages = buildConversation({assistant(QString(), readFileMemory())});
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.first().role, Message::Role::Assistant);
    QVERIFY(messages.first().content.isEmpty());
    QVERIFY(messages.first().hasToolActivity());
}

// Reference 4.8 item 25 (TestBuildConversation_ReplacesOnCompaction).
void TestSessionProjection::replacesOnCompaction_S62()
{
    const MessageList replacement{
        Message::user(QStringLiteral("<compacted_context>summary</compacted_context>"))};
    const QList<SessionEvent> events{
        SessionEvent::userMessage(QStringLiteral("one")),
        assistant(QStringLiteral("two")),
        assistant(QStringLiteral("before checkpoint")),
        SessionEvent::compactionApplied(QString(), {}, replacement),
        assistant(QStringLiteral(" after checkpoint")),
    };
    const MessageList messages = buildConversation(events);
    QCOMPARE(messages.size(), 2);
    QCOMPARE(messages.at(0), replacement.first());
    QCOMPARE(messages.at(1), Message::assistant(QStringLiteral(" after checkpoint")));
}

// Reference 4.8 item 26 (TestBuildConversation_CompactionCloneIsIndependent).
void TestSessionProjection::compactionCloneIsIndependent()
{
    const MessageList replacement{Message::user(QStringLiteral("summary")),
                                  Message::assistant(QStringLiteral("ack"), readFileMemory())};
    const QList<SessionEvent> events{SessionEvent::compactionApplied(QString(), {}, replacement)};
    MessageList first = buildConversation(events);
    QCOMPARE(first, replacement);
    first[0].content = QStringLiteral("mutated");
    first[1].turnMemory->toolActivity[0].tool = QStringLiteral("mutated");
    first.append(Message::user(QStringLiteral("extra")));

    QCOMPARE(events.first().messages(), replacement);
    const MessageList second = buildConversation(events);
    QCOMPARE(second, replacement);
}

void TestSessionProjection::checkpointStaysInTranscriptForReplay_S63()
{
    test::TestEnvironment env;
    SessionStore store;
    QDir().mkpath(env.path(QStringLiteral("w")));
    auto session = store.create(env.path(QStringLiteral("w")));
    QVERIFY(session.ok());
    QVERIFY(store.append(*session, SessionEvent::userMessage(QStringLiteral("task"))).ok());
    const MessageList replacement{Message::user(QStringLiteral("compacted context"))};
    QVERIFY(store
                .appendBatch(*session, {assistant(QStringLiteral("before checkpoint")),
                                        SessionEvent::compactionApplied(QString(), {}, replacement)})
                .ok());
    QVERIFY(store.append(*session, assistant(QStringLiteral(" after checkpoint"))).ok());

    const auto loaded = store.load(session->id);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->events.size(), 5);
    QCOMPARE(loaded->events.at(2).assistantMessage(), QStringLiteral("before checkpoint"));
    QCOMPARE(loaded->events.at(3).status(), QString());
    QVERIFY(loaded->events.at(3).transcript().isEmpty());
    const MessageList messages = buildConversation(loaded->events);
    QCOMPARE(messages, (MessageList{Message::user(QStringLiteral("compacted context")),
                                    Message::assistant(QStringLiteral(" after checkpoint"))}));
}

// Issue 16: a pin made after a compaction joins the conversation as the user message pinned_context holds,
// where the event stands, so a resumed session sends what the live one did; pin_added adds nothing.
void TestSessionProjection::pinnedContextJoinsTheConversationWhereItStands()
{
    const Pin pin{QStringLiteral("pin-1"), Pin::Kind::Detail, QStringLiteral("src/a.cpp:8: error: x"), {}};
    const QString context = QStringLiteral("<pinned_context>\n<pin kind=\"detail\">\nsrc/a.cpp:8: error: "
                                           "x\n</pin>\n</pinned_context>");
    const QList<SessionEvent> events{
        SessionEvent::userMessage(QStringLiteral("one")),
        SessionEvent::compactionApplied(QStringLiteral("Context compacted."), {},
                                        {Message::user(QStringLiteral("summary"))}),
        SessionEvent::pinAdded(pin),
        SessionEvent::pinnedContext({pin.id}, context),
        SessionEvent::userMessage(QStringLiteral("two")),
        SessionEvent::pinnedContext({}, QString()), // an empty one adds nothing
    };
    QCOMPARE(buildConversation(events),
             (MessageList{Message::user(QStringLiteral("summary")), Message::user(context),
                          Message::user(QStringLiteral("two"))}));
}

QTEST_GUILESS_MAIN(TestSessionProjection)
#include "tst_sessionprojection.moc"
