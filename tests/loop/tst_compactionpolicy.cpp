// The per-session compaction policy (issue 16, "Policy per session") as values: the threshold arithmetic
// against the seed's, the detail guidance after the seed's prompts, the compaction_policy event, and the
// `run` flags that set it. What it does in a real session is in tst_headlesscompaction and tst_contextpolicy.
#include "conversation/compactionpolicy.h"
#include "headless/headlessrunner.h"
#include "loop/autocompactiongate.h"
#include "loop/compactionprompts.h"
#include "loop/contextbudget.h"
#include "session/sessionevent.h"

#include <QJsonDocument>
#include <QTest>

using namespace keen;

class TestCompactionPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsAreTheSeeds_S3();
    void thresholdMovesTheGate_S36();
    void detailGuidanceComesAfterTheSeedPrompt_S11_S13();
    void thresholdText();
    void eventRoundTrip();
    void latestPolicyHolds();
    void runFlags();
};

// proves S3: the default policy is the seed's 90% of the input budget, to the token, for every budget.
void TestCompactionPolicy::defaultsAreTheSeeds_S3()
{
    const CompactionPolicy policy;
    QVERIFY(policy.isDefault());
    QVERIFY(policy.automatic);
    QCOMPARE(policy.thresholdPercent, 90);
    QCOMPARE(policy.detail, CompactionPolicy::Detail::Normal);
    for (qint64 budget : {qint64(1), qint64(9), qint64(10), qint64(95000), qint64(95001), qint64(29904),
                          qint64(190000), qint64(1999999)})
        QCOMPARE(policy.thresholdTokens(budget), budget - budget / 10);
    QCOMPARE(ContextBudget::autoCompactionThreshold(95000), qint64(85500));
    QCOMPARE(ContextBudget::autoCompactionThreshold(95000, 60), qint64(57000));
    QCOMPARE(ContextBudget::autoCompactionThreshold(95000, 50), qint64(47500));
    QCOMPARE(ContextBudget::autoCompactionThreshold(95000, 95), qint64(90250));
}

// proves S36 with a policy: the gate fires at the session's threshold, and not at all when it is off
// (AgentSession/ToolLoopClient map "off" to disabled).
void TestCompactionPolicy::thresholdMovesTheGate_S36()
{
    AutoCompactionGate gate;
    gate.newToolTurn = true;
    gate.budget = 95000;
    gate.estimatedTokens = 57000;
    QVERIFY(!gate.allows()); // 90%: 85,500
    gate.thresholdPercent = 60;
    QVERIFY(gate.allows());
    gate.estimatedTokens = 56999;
    QVERIFY(!gate.allows());
}

// proves S11, S13: one guidance text still feeds both prompts; the detail level only adds text after the
// seed's prompt, and none at the default level.
void TestCompactionPolicy::detailGuidanceComesAfterTheSeedPrompt_S11_S13()
{
    for (const QString &prompt : {CompactionPrompts::manualPrompt(), CompactionPrompts::automaticPrompt(),
                                  CompactionPrompts::manualPrompt(QStringLiteral("keep the parser"))}) {
        QCOMPARE(CompactionPrompts::withDetail(prompt, CompactionPolicy::Detail::Normal), prompt);
        for (const auto detail : {CompactionPolicy::Detail::Brief, CompactionPolicy::Detail::Detailed}) {
            const QString guided = CompactionPrompts::withDetail(prompt, detail);
            QVERIFY(guided.startsWith(prompt + QStringLiteral("\n\n")));
            QCOMPARE(guided.mid(prompt.size() + 2), CompactionPrompts::detailGuidance(detail));
        }
    }
    QVERIFY(
        CompactionPrompts::detailGuidance(CompactionPolicy::Detail::Brief).contains(QStringLiteral("brief")));
    QVERIFY(CompactionPrompts::detailGuidance(CompactionPolicy::Detail::Detailed)
                .contains(QStringLiteral("detailed")));
}

// proves S3 as the default of the `run` threshold text; 50 to 95 or off, anything else refused with the
// reason.
void TestCompactionPolicy::thresholdText()
{
    auto set = CompactionPolicy::withThreshold({}, QStringLiteral("70"));
    QVERIFY(set);
    QCOMPARE(set->thresholdPercent, 70);
    QVERIFY(set->automatic);
    QCOMPARE(CompactionPolicy::withThreshold({}, QStringLiteral("55%"))->thresholdPercent, 55);
    auto off = CompactionPolicy::withThreshold(*set, QStringLiteral("off"));
    QVERIFY(off);
    QVERIFY(!off->automatic);
    QCOMPARE(off->thresholdPercent, 70); // kept for when it is turned on again
    for (const char *bad : {"49", "96", "", "seventy", "-5", "on"}) {
        const auto refused = CompactionPolicy::withThreshold({}, QString::fromLatin1(bad));
        QVERIFY2(!refused, bad);
        QVERIFY2(refused.error().contains(QStringLiteral("from 50 to 95")), qPrintable(refused.error()));
    }
    QCOMPARE(off->describe(), QStringLiteral("automatic compaction off, normal summaries"));
    set->detail = CompactionPolicy::Detail::Brief;
    QCOMPARE(set->describe(),
             QStringLiteral("automatic compaction at 70% of the input budget, brief summaries"));
}

// docs/SESSION_FORMAT.md: compaction_policy is written as documented, read back the same, and what Keen does
// not model (a field of a newer writer, a value out of range) goes back to disk unchanged.
void TestCompactionPolicy::eventRoundTrip()
{
    CompactionPolicy policy;
    policy.automatic = false;
    policy.thresholdPercent = 70;
    policy.detail = CompactionPolicy::Detail::Detailed;
    SessionEvent event = SessionEvent::compactionPolicy(policy);
    event.seq = 4;
    const QByteArray line = QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(
        line,
        QByteArray(R"({"compaction_policy":{"automatic":false,"detail":"detailed","threshold_percent":70},)"
                   R"("kind":"compaction_policy","seq":4})"));
    const auto read = SessionEvent::fromJson(QJsonDocument::fromJson(line).object());
    QVERIFY(read);
    QCOMPARE(*read, event);

    const QByteArray foreign(R"({"compaction_policy":{"detail":"terse","threshold_percent":120,"pins":3},)"
                             R"("kind":"compaction_policy","seq":5})");
    const auto odd = SessionEvent::fromJson(QJsonDocument::fromJson(foreign).object());
    QVERIFY(odd);
    QCOMPARE(odd->policy()->policy, CompactionPolicy()); // unknown values read as the defaults
    QCOMPARE(odd->toJson(), QJsonDocument::fromJson(foreign).object());
}

// proves S3 when no event sets a policy; otherwise the latest compaction_policy holds.
void TestCompactionPolicy::latestPolicyHolds()
{
    QList<SessionEvent> events{SessionEvent::userMessage(QStringLiteral("hi"))};
    QCOMPARE(SessionEvent::latestPolicy(events), CompactionPolicy());
    CompactionPolicy first;
    first.thresholdPercent = 60;
    CompactionPolicy second;
    second.detail = CompactionPolicy::Detail::Brief;
    events << SessionEvent::compactionPolicy(first) << SessionEvent::userMessage(QStringLiteral("go"))
           << SessionEvent::compactionPolicy(second) << SessionEvent::userMessage(QStringLiteral("on"));
    QCOMPARE(SessionEvent::latestPolicy(events), second);
}

// `run --compact-threshold N|off --compact-detail LEVEL`: bad values are refused with the reason, and the
// flags alone with --session record the policy without a prompt.
void TestCompactionPolicy::runFlags()
{
    auto parsed =
        HeadlessRunner::parseArguments({QStringLiteral("--compact-threshold"), QStringLiteral("70"),
                                        QStringLiteral("--compact-detail=brief"), QStringLiteral("go")},
                                       QString());
    QVERIFY(parsed);
    QCOMPARE(parsed->compactThreshold, QStringLiteral("70"));
    QCOMPARE(parsed->compactDetail, CompactionPolicy::Detail::Brief);
    QVERIFY(!parsed->policyOnly);
    QCOMPARE(parsed->prompt, QStringLiteral("go"));

    auto only = HeadlessRunner::parseArguments(
        {QStringLiteral("--session"), QStringLiteral("abc"), QStringLiteral("--compact-threshold=off")},
        QString());
    QVERIFY(only);
    QVERIFY(only->policyOnly);

    auto low = HeadlessRunner::parseArguments(
        {QStringLiteral("--compact-threshold"), QStringLiteral("40"), QStringLiteral("go")}, QString());
    QVERIFY(!low);
    QVERIFY2(low.error().contains(QStringLiteral("from 50 to 95")), qPrintable(low.error()));
    auto detail = HeadlessRunner::parseArguments(
        {QStringLiteral("--compact-detail"), QStringLiteral("terse"), QStringLiteral("go")}, QString());
    QVERIFY(!detail);
    QVERIFY2(detail.error().contains(QStringLiteral("brief, normal or detailed")),
             qPrintable(detail.error()));
    // Without --session the flags need a prompt, as any run.
    QVERIFY(!HeadlessRunner::parseArguments({QStringLiteral("--compact-threshold=60")}, QString()));
}

QTEST_GUILESS_MAIN(TestCompactionPolicy)
#include "tst_compactionpolicy.moc"
