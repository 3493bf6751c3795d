// The /context breakdown (reference 3.4): chars/3 per category, scaled to the provider's last input tokens.
#include "agent/contextestimator.h"
#include "loop/contextbudget.h"
#include "tools/toolregistry.h"

#include <QJsonArray>
#include <QTest>

using namespace keen;

namespace {

class NamedTool final : public Tool
{
public:
    QString name() const override { return QStringLiteral("abc"); }
    QString description() const override { return QStringLiteral("def"); }
    QJsonObject inputSchema() const override { return QJsonObject(); } // serialises as {} (2 bytes)
    ToolResult execute(const QJsonObject &, ToolContext &) override
    {
        return ToolResult::success(QJsonValue());
    }
};

// A tool turn as the tool loop leaves it: text, one read with its input and its retained output.
Message toolTurn(int i)
{
    ToolActivity activity;
    activity.tool = QStringLiteral("read_file");
    activity.status = QStringLiteral("success");
    activity.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("src/file%1.cpp").arg(i)}};
    activity.retainedOutput = QStringLiteral("int x = %1; // ü\n").arg(i).repeated(60);
    return Message::assistant(QStringLiteral("answer %1 ").arg(i).repeated(40), TurnMemory{{activity}});
}

// About 1 MB of history: the size /context is measured at (issue 11).
MessageList bigHistory()
{
    MessageList history{Message::system(QStringLiteral("an earlier system note"))};
    for (int i = 0; i < 700; ++i)
        history << Message::user(QStringLiteral("question %1 ").arg(i).repeated(20)) << toolTurn(i);
    return history;
}

void compareBreakdowns(const ContextBreakdown &actual, const ContextBreakdown &expected)
{
    QCOMPARE(actual.systemPromptTokens, expected.systemPromptTokens);
    QCOMPARE(actual.toolDefinitionCount, expected.toolDefinitionCount);
    QCOMPARE(actual.toolDefinitionTokens, expected.toolDefinitionTokens);
    QCOMPARE(actual.userTokens, expected.userTokens);
    QCOMPARE(actual.assistantTokens, expected.assistantTokens);
    QCOMPARE(actual.toolResultTokens, expected.toolResultTokens);
    QCOMPARE(actual.totalTokens, expected.totalTokens);
    QCOMPARE(actual.contextWindow, expected.contextWindow);
    QCOMPARE(actual.anchoredToProvider, expected.anchoredToProvider);
}

const QString kPrompt = QStringLiteral("You are a coding agent. ").repeated(40);

} // namespace

class TestContextEstimator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void estimatesEachCategory_S1();
    void scalesToProviderReportedInput();
    void noteSaysWhereNumbersComeFrom();
    void measuresUtf8WithoutConverting_S1();
    void secondBreakdownMeasuresOnlyTheNewMessage();
    void editedMessagesAreMeasuredAgain();
    void compactionAndUndoGiveTheFromScratchNumbers();
};

void TestContextEstimator::estimatesEachCategory_S1()
{
    ToolRegistry tools;
    tools.add(std::make_shared<NamedTool>());
    Message assistant = Message::assistant(QString(30, QLatin1Char('a')));
    ToolActivity activity;
    activity.tool = QStringLiteral("abc");
    activity.status = QStringLiteral("success");
    activity.input = QJsonObject{{QStringLiteral("p"), 1}}; // {"p":1} = 7 bytes
    activity.retainedOutput = QStringLiteral("12345678");   // 8 bytes
    assistant.turnMemory = TurnMemory{{activity}};
    const MessageList history{Message::user(QString(9, QLatin1Char('u'))), assistant};
    const ContextBreakdown breakdown =
        ContextEstimator::breakdown(QString(300, QLatin1Char('s')), tools, history, 1000, std::nullopt);
    QCOMPARE(breakdown.systemPromptTokens, 100);
    QCOMPARE(breakdown.toolDefinitionCount, 1);
    QCOMPARE(breakdown.toolDefinitionTokens, 3); // "abc" + "def" + "{}" = 8 bytes
    QCOMPARE(breakdown.userTokens, 3);
    QCOMPARE(breakdown.assistantTokens, 10);
    QCOMPARE(breakdown.toolResultTokens, 5); // 15 bytes
    QCOMPARE(breakdown.totalTokens, 121);
    QCOMPARE(breakdown.freeTokens(), 879);
    QVERIFY(!breakdown.anchoredToProvider);
}

void TestContextEstimator::scalesToProviderReportedInput()
{
    ToolRegistry tools;
    TokenUsage usage;
    usage.inputTokens = 400;
    const ContextBreakdown breakdown = ContextEstimator::breakdown(
        QString(300, QLatin1Char('s')), tools, {Message::user(QString(300, QLatin1Char('u')))}, 1000, usage);
    QVERIFY(breakdown.anchoredToProvider);
    QCOMPARE(breakdown.totalTokens, 400);
    QCOMPARE(breakdown.systemPromptTokens, 200);
    QCOMPARE(breakdown.userTokens, 200);
}

void TestContextEstimator::noteSaysWhereNumbersComeFrom()
{
    ContextBreakdown breakdown;
    breakdown.contextWindow = 1000;
    breakdown.totalTokens = 100;
    QVERIFY(breakdown.note().contains(QStringLiteral("chars/3 heuristic")));
    breakdown.anchoredToProvider = true;
    QVERIFY(breakdown.note().contains(QStringLiteral("provider-reported")));
    QVERIFY(!breakdown.note().contains(QStringLiteral("nearly full")));
    breakdown.totalTokens = 700;
    QVERIFY(breakdown.note().contains(QStringLiteral("nearly full")));
}

// proves S1 (bytes are UTF-8 bytes)
void TestContextEstimator::measuresUtf8WithoutConverting_S1()
{
    const QStringList samples{QString(), QStringLiteral("plain ascii"),
                              QStringLiteral("Grüße, ½ € and 日本語"),
                              QStringLiteral("emoji \U0001F600 and \U0001F680 pairs"),
                              QStringLiteral("int x = 1;\n").repeated(1000) + QStringLiteral("ö")};
    for (const QString &sample : samples)
        QCOMPARE(ContextBudget::utf8Bytes(sample), qint64(sample.toUtf8().size()));
    // The breakdown counts UTF-8 bytes: 3 characters of 3 bytes each are 9 bytes, 3 tokens.
    ToolRegistry tools;
    const ContextBreakdown breakdown = ContextEstimator::breakdown(
        QString(), tools, {Message::user(QStringLiteral("日本語"))}, 1000, std::nullopt);
    QCOMPARE(breakdown.userTokens, 3);
}

// Issue 11: /context on a long history costs what changed since the last breakdown. A tool turn appended to
// a 1 MB history is the only message measured again, and the numbers are the from-scratch ones.
void TestContextEstimator::secondBreakdownMeasuresOnlyTheNewMessage()
{
    ToolRegistry tools;
    tools.add(std::make_shared<NamedTool>());
    MessageList history = bigHistory();
    qint64 bytes = 0;
    for (const Message &message : std::as_const(history))
        bytes +=
            message.content.size() +
            message.turnMemory.value_or(TurnMemory()).toolActivity.value(0).retainedOutput.toString().size();
    QVERIFY2(bytes > 1000000, qPrintable(QString::number(bytes)));

    ContextEstimator estimator;
    compareBreakdowns(estimator.estimate(kPrompt, tools, history, 200000, std::nullopt),
                      ContextEstimator::breakdown(kPrompt, tools, history, 200000, std::nullopt));
    QCOMPARE(estimator.measuredMessages(), history.size());

    // Nothing changed: nothing is measured.
    estimator.estimate(kPrompt, tools, history, 200000, std::nullopt);
    QCOMPARE(estimator.measuredMessages(), history.size());

    // One tool turn later: only its two messages.
    history << Message::user(QStringLiteral("one more")) << toolTurn(9999);
    const qint64 before = estimator.measuredMessages();
    TokenUsage usage;
    usage.inputTokens = 300000;
    compareBreakdowns(estimator.estimate(kPrompt, tools, history, 200000, usage),
                      ContextEstimator::breakdown(kPrompt, tools, history, 200000, usage));
    QCOMPARE(estimator.measuredMessages() - before, 2);

    // A copy of the history (as a request or a signal argument makes) changes nothing either.
    const MessageList copy = history;
    estimator.estimate(kPrompt, tools, copy, 200000, std::nullopt);
    QCOMPARE(estimator.measuredMessages() - before, 2);
}

// An edit of a message's text or of its tool activity, in place, is seen: that message is measured again.
void TestContextEstimator::editedMessagesAreMeasuredAgain()
{
    ToolRegistry tools;
    MessageList history = bigHistory();
    ContextEstimator estimator;
    estimator.estimate(kPrompt, tools, history, 200000, std::nullopt);
    const qint64 before = estimator.measuredMessages();

    history[11].content.append(QStringLiteral(" and a longer question"));             // a user message
    history[12].turnMemory->toolActivity[0].retainedOutput = QStringLiteral("[cut]"); // a tool result
    history[14].content.chop(100);                                                    // assistant text
    history[16].turnMemory.reset();
    history.removeLast();
    compareBreakdowns(estimator.estimate(kPrompt, tools, history, 200000, std::nullopt),
                      ContextEstimator::breakdown(kPrompt, tools, history, 200000, std::nullopt));
    QCOMPARE(estimator.measuredMessages() - before, 4);

    // The same text in a new string (the history read again from disk) is measured again, and agrees.
    QVERIFY(history.at(20).hasToolActivity());
    history[20] = Message::fromJson(history.at(20).toJson()).value();
    compareBreakdowns(estimator.estimate(kPrompt, tools, history, 200000, std::nullopt),
                      ContextEstimator::breakdown(kPrompt, tools, history, 200000, std::nullopt));
    QCOMPARE(estimator.measuredMessages() - before, 5);
}

// A compaction replaces the history by its summary and the kept tail; an undo brings back the history from
// before it (read again from the transcript) plus the turns after it. Each time the estimator gives what a
// from-scratch estimate gives, and measures no more than the history it is given.
void TestContextEstimator::compactionAndUndoGiveTheFromScratchNumbers()
{
    ToolRegistry tools;
    const MessageList original = bigHistory();
    ContextEstimator estimator;
    estimator.estimate(kPrompt, tools, original, 200000, std::nullopt);

    MessageList compacted{Message::user(QStringLiteral("## Goal\nShip it."))};
    compacted << original.mid(original.size() - 4); // the kept tail: the same messages, at new positions
    qint64 before = estimator.measuredMessages();
    compareBreakdowns(estimator.estimate(kPrompt, tools, compacted, 200000, std::nullopt),
                      ContextEstimator::breakdown(kPrompt, tools, compacted, 200000, std::nullopt));
    QVERIFY(estimator.measuredMessages() - before <= compacted.size());

    compacted << Message::user(QStringLiteral("after the compaction")) << toolTurn(5000);
    estimator.estimate(kPrompt, tools, compacted, 200000, std::nullopt);

    MessageList undone = messagesFromJson(messagesToJson(original));
    undone << compacted.mid(compacted.size() - 2);
    before = estimator.measuredMessages();
    TokenUsage usage;
    usage.inputTokens = 123456;
    compareBreakdowns(estimator.estimate(kPrompt, tools, undone, 200000, usage),
                      ContextEstimator::breakdown(kPrompt, tools, undone, 200000, usage));
    QVERIFY(estimator.measuredMessages() - before <= undone.size());

    // And a compaction's history again, shorter than the entries the estimator has.
    compareBreakdowns(estimator.estimate(kPrompt, tools, compacted, 200000, std::nullopt),
                      ContextEstimator::breakdown(kPrompt, tools, compacted, 200000, std::nullopt));
}

QTEST_GUILESS_MAIN(TestContextEstimator)
#include "tst_contextestimator.moc"
