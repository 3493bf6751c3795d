// The /context breakdown (reference 3.4): chars/3 per category, scaled to the provider's last input tokens.
#include "agent/contextestimator.h"
#include "loop/contextbudget.h"
#include "tools/toolregistry.h"

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

} // namespace

class TestContextEstimator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void estimatesEachCategory_S1();
    void scalesToProviderReportedInput();
    void noteSaysWhereNumbersComeFrom();
    void measuresUtf8WithoutConverting_S1();
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

QTEST_GUILESS_MAIN(TestContextEstimator)
#include "tst_contextestimator.moc"
