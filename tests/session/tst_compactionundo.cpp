// Undo of a compaction in the transcript and the projection (issue 16 point 2): compaction_reverted names the
// compaction_applied it reverts, and the projection goes on as if that compaction had never applied.
#include "session/compactionundo.h"
#include "session/sessionstore.h"

#include <QJsonDocument>
#include <QTest>

using namespace keen;

namespace {

SessionEvent numbered(SessionEvent event, quint64 seq)
{
    event.seq = seq;
    return event;
}

SessionEvent assistant(const QString &message)
{
    return SessionEvent::assistantTurn({}, message, std::nullopt, false, QString());
}

// A manual compaction at seq 4 between two exchanges.
QList<SessionEvent> manualSession()
{
    return {
        numbered(SessionEvent::sessionStarted(QStringLiteral("id"), QDateTime::currentDateTimeUtc(),
                                              QStringLiteral("/w")),
                 1),
        numbered(SessionEvent::userMessage(QStringLiteral("first question")), 2),
        numbered(assistant(QStringLiteral("first answer")), 3),
        numbered(SessionEvent::compactionApplied(QStringLiteral("Context compacted."), {},
                                                 {Message::user(QStringLiteral("## Goal\nsummary"))}),
                 4),
        numbered(SessionEvent::userMessage(QStringLiteral("second question")), 5),
        numbered(assistant(QStringLiteral("second answer")), 6),
    };
}

} // namespace

class TestCompactionUndo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void undoRestoresHistoryBeforeAndTurnsAfter();
    void undoOfAnAutomaticCompactionKeepsItsCheckpoint();
    void onlyTheLatestCompactionInEffectCanBeUndone();
    void revertNamingNoEarlierCompactionChangesNothing();
    void eventRoundTripsInTheReferenceShape();
};

void TestCompactionUndo::undoRestoresHistoryBeforeAndTurnsAfter()
{
    QList<SessionEvent> events = manualSession();
    // proves S62 still: before the undo, the summary replaced the first exchange.
    QCOMPARE(buildConversation(events), (MessageList{Message::user(QStringLiteral("## Goal\nsummary")),
                                                     Message::user(QStringLiteral("second question")),
                                                     Message::assistant(QStringLiteral("second answer"))}));
    QCOMPARE(CompactionUndo::latestInEffect(events), quint64(4));
    events.append(numbered(SessionEvent::compactionReverted(4, QStringLiteral("Compaction undone.")), 7));
    // The history from before the compaction plus the turns after it, the summary gone.
    QCOMPARE(buildConversation(events), (MessageList{Message::user(QStringLiteral("first question")),
                                                     Message::assistant(QStringLiteral("first answer")),
                                                     Message::user(QStringLiteral("second question")),
                                                     Message::assistant(QStringLiteral("second answer"))}));
    QCOMPARE(CompactionUndo::revertedSeqs(events), QSet<quint64>{4});
    QCOMPARE(CompactionUndo::latestInEffect(events), quint64(0));
    QVERIFY(!CompactionUndo::target(events));
    QCOMPARE(CompactionUndo::target(events).error(),
             QStringLiteral("This conversation has no compaction to undo."));
    QCOMPARE(CompactionUndo::target(events, 4).error(), QStringLiteral("That compaction is already undone."));
}

// proves S63 with undo: the checkpoint an automatic compaction sealed is an ordinary turn again.
void TestCompactionUndo::undoOfAnAutomaticCompactionKeepsItsCheckpoint()
{
    const QString replacement = QStringLiteral("<compacted_context>\nsummary\n</compacted_context>");
    const QList<SessionEvent> events{
        numbered(SessionEvent::userMessage(QStringLiteral("long task")), 1),
        numbered(assistant(QStringLiteral("work so far")), 2),
        numbered(SessionEvent::compactionApplied(QString(), {}, {Message::user(replacement)}), 3),
        numbered(assistant(QStringLiteral("the rest")), 4),
        numbered(SessionEvent::compactionReverted(3, QStringLiteral("Compaction undone.")), 5),
    };
    QCOMPARE(buildConversation(events), (MessageList{Message::user(QStringLiteral("long task")),
                                                     Message::assistant(QStringLiteral("work so far")),
                                                     Message::assistant(QStringLiteral("the rest"))}));
}

void TestCompactionUndo::onlyTheLatestCompactionInEffectCanBeUndone()
{
    QList<SessionEvent> events = manualSession();
    events.append(
        numbered(SessionEvent::compactionApplied(QStringLiteral("Context compacted."), {},
                                                 {Message::user(QStringLiteral("## Goal\nsecond"))}),
                 7));
    QCOMPARE(CompactionUndo::target(events).value(), quint64(7));
    QCOMPARE(CompactionUndo::target(events, 7).value(), quint64(7));
    QCOMPARE(CompactionUndo::target(events, 4).error(),
             QStringLiteral("A later compaction replaced this one; undo the later compaction first."));
    QCOMPARE(CompactionUndo::target(events, 5).error(),
             QStringLiteral("There is no compaction 5 in this conversation."));
    // Undo the later one, then the earlier one: back to the whole conversation.
    events.append(numbered(SessionEvent::compactionReverted(7, QString()), 8));
    QCOMPARE(CompactionUndo::target(events).value(), quint64(4));
    QCOMPARE(buildConversation(events).first(), Message::user(QStringLiteral("## Goal\nsummary")));
    events.append(numbered(SessionEvent::compactionReverted(4, QString()), 9));
    QCOMPARE(buildConversation(events).size(), 4);
    QCOMPARE(buildConversation(events).first(), Message::user(QStringLiteral("first question")));
}

// A revert that names no earlier compaction_applied (another writer's, a damaged line) is ignored.
void TestCompactionUndo::revertNamingNoEarlierCompactionChangesNothing()
{
    QList<SessionEvent> events = manualSession();
    events.prepend(
        numbered(SessionEvent::compactionReverted(4, QString()), 1)); // before it: not a revert of it
    events.append(numbered(SessionEvent::compactionReverted(3, QString()), 7)); // an assistant turn
    events.append(numbered(SessionEvent::compactionReverted(99, QString()), 8));
    QCOMPARE(buildConversation(events), buildConversation(manualSession()));
    QVERIFY(CompactionUndo::revertedSeqs(events).isEmpty());
}

void TestCompactionUndo::eventRoundTripsInTheReferenceShape()
{
    const QByteArray line =
        R"({"seq":7,"kind":"compaction_reverted","compaction_reverted":{"reverts_seq":4,"status":"Compaction undone."}})";
    const QJsonObject object = QJsonDocument::fromJson(line).object();
    const auto event = SessionEvent::fromJson(object);
    QVERIFY(event);
    QCOMPARE(event->kind, SessionEvent::Kind::CompactionReverted);
    QCOMPARE(event->kindName(), QStringLiteral("compaction_reverted"));
    QCOMPARE(event->revert()->revertsSeq, quint64(4));
    QCOMPARE(event->revert()->status, QStringLiteral("Compaction undone."));
    QCOMPARE(event->toJson(), object);
    QCOMPARE(numbered(SessionEvent::compactionReverted(4, QStringLiteral("Compaction undone.")), 7).toJson(),
             object);
    // Fields a newer writer adds are kept.
    const QJsonObject extra =
        QJsonDocument::fromJson(
            R"({"seq":7,"kind":"compaction_reverted","compaction_reverted":{"reverts_seq":4,"status":"","by":"x"}})")
            .object();
    QCOMPARE(SessionEvent::fromJson(extra)->toJson(), extra);
}

QTEST_GUILESS_MAIN(TestCompactionUndo)
#include "tst_compactionundo.moc"
