// Budget arithmetic, the shared compaction prompts and the automatic replacement (seed "Concepts" and
// "Shared summary format"; reference 4.8 items 3, 7-10).
#include "loop/autocompactiongate.h"
#include "loop/compactionprompts.h"
#include "loop/contextbudget.h"

#include <QTest>

using namespace keen;

Q_DECLARE_METATYPE(keen::AutoCompactionGate)

class TestCompactionRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void estimateIsCeilBytesOverThree_S1();
    void inputBudget_S2_data();
    void inputBudget_S2();
    void thresholdBoundary_S3();
    void bothPromptsShareGuidanceAndSections_S10_S11_S12();
    void manualPromptCarriesFocus_S18();
    void automaticPromptIsPrivateCheckpoint_S16();
    void buildRequestAppendsPromptAsFinalUserMessage_S13();
    void buildRequestRequiresUserForAutomatic();
    void replacementKeepsSystemAndLastUserVerbatim_S41_S42();
    void replacementRejectsEmptySummary_S40();
    void replacementDoesNotAliasHistory();
    void repeatedReplacementKeepsThePersonsWordsOnce();
    void originalUserTextLeavesOtherTextAlone_data();
    void originalUserTextLeavesOtherTextAlone();
    void gateChecksEveryPrecondition_data();
    void gateChecksEveryPrecondition();
    void withoutPinsTheReplacementIsTheSeedsBytes_S28_S41();
    void pinsFollowTheSummaryVerbatim_S41_S42();
    void repeatedReplacementWithPinsNeverNests_S42();
};

// proves S1
void TestCompactionRules::estimateIsCeilBytesOverThree_S1()
{
    QCOMPARE(ContextBudget::estimateTokens(0), 0);
    QCOMPARE(ContextBudget::estimateTokens(1), 1);
    QCOMPARE(ContextBudget::estimateTokens(3), 1);
    QCOMPARE(ContextBudget::estimateTokens(4), 2);
    QCOMPARE(ContextBudget::estimateTokens(300000), 100000);
}

void TestCompactionRules::inputBudget_S2_data()
{
    QTest::addColumn<qint64>("window");
    QTest::addColumn<qint64>("budget");
    QTest::newRow("100k: 5% margin") << qint64(100000) << qint64(95000);
    QTest::newRow("1M: 5% margin") << qint64(1000000) << qint64(950000);
    QTest::newRow("50k: 4096 floor") << qint64(50000) << qint64(45904);
    QTest::newRow("tiny window stays positive") << qint64(1000) << qint64(1);
}

// proves S2
void TestCompactionRules::inputBudget_S2()
{
    QFETCH(qint64, window);
    QFETCH(qint64, budget);
    QCOMPARE(ContextBudget::inputBudget(window), budget);
}

// proves S3
void TestCompactionRules::thresholdBoundary_S3()
{
    QVERIFY(ContextBudget::shouldAutoCompact(85500, 95000));
    QVERIFY(!ContextBudget::shouldAutoCompact(85499, 95000));
    QCOMPARE(ContextBudget::autoCompactionThreshold(95000), 85500);
    QVERIFY(ContextBudget::shouldAutoCompact(1, 0));
    QVERIFY(!ContextBudget::shouldAutoCompact(0, 0));
}

// proves S10, S11, S12: one guidance text with the five sections feeds both prompts, and it says every
// thing S12 lists.
void TestCompactionRules::bothPromptsShareGuidanceAndSections_S10_S11_S12()
{
    const QString guidance = CompactionPrompts::guidance();
    for (const QString &prompt : {CompactionPrompts::manualPrompt(), CompactionPrompts::automaticPrompt()}) {
        QVERIFY(prompt.contains(guidance));
        for (const char *section :
             {"## Goal", "## Key Instructions", "## Discoveries", "## Accomplished", "## Relevant Files"})
            QVERIFY2(prompt.contains(QLatin1String(section)), section);
    }
    QVERIFY(guidance.contains(QLatin1String("context compaction request")));
    QVERIFY(guidance.contains(QLatin1String("replaces the conversation history")));
    QVERIFY(guidance.contains(QLatin1String("Do not call any tools")));
    QVERIFY(guidance.contains(QLatin1String("Work only from the conversation history")));
    QVERIFY(guidance.contains(QLatin1String("file paths")));
    QVERIFY(guidance.contains(QLatin1String("commands")));
    QVERIFY(guidance.contains(QLatin1String("identifiers")));
    QVERIFY(guidance.contains(QLatin1String("error messages")));
    QVERIFY(guidance.contains(QLatin1String("never refer to the discarded history")));
    QVERIFY(guidance.contains(QLatin1String("add sections or detail"))); // a baseline, extendable
}

// proves S18
void TestCompactionRules::manualPromptCarriesFocus_S18()
{
    QVERIFY(!CompactionPrompts::manualPrompt().contains(QLatin1String("IMPORTANT")));
    QVERIFY(!CompactionPrompts::manualPrompt(QStringLiteral("   ")).contains(QLatin1String("IMPORTANT")));
    const QString focused =
        CompactionPrompts::manualPrompt(QStringLiteral("Focus on the recent API changes"));
    QVERIFY(focused.endsWith(QLatin1String("Focus on the recent API changes")));
}

// proves S16 (the prompt's side: no repeat of the latest user message, no preamble; the replacement keeps
// that message outside the summary, see replacementKeepsSystemAndLastUserVerbatim)
void TestCompactionRules::automaticPromptIsPrivateCheckpoint_S16()
{
    const QString prompt = CompactionPrompts::automaticPrompt();
    QVERIFY(prompt.contains(QLatin1String("most recent user message is kept word for word")));
    QVERIFY(prompt.contains(QLatin1String("do not repeat it")));
    QVERIFY(prompt.contains(QLatin1String("without any preamble")));
    QVERIFY(prompt.contains(QLatin1String("tool result"))); // S15
}

// proves S13
void TestCompactionRules::buildRequestAppendsPromptAsFinalUserMessage_S13()
{
    const MessageList history{Message::system(QStringLiteral("agent prompt")),
                              Message::user(QStringLiteral("task"))};
    const auto request = CompactionPrompts::buildRequest(history, QStringLiteral("PROMPT"), true);
    QVERIFY(request);
    QCOMPARE(request->size(), 3);
    QCOMPARE(request->mid(0, 2), history);
    QCOMPARE(request->last(), Message::user(QStringLiteral("PROMPT")));
    QCOMPARE(history.size(), 2);
}

void TestCompactionRules::buildRequestRequiresUserForAutomatic()
{
    const MessageList history{Message::system(QStringLiteral("agent prompt"))};
    const auto request = CompactionPrompts::buildRequest(history, QStringLiteral("PROMPT"), true);
    QVERIFY(!request);
    QCOMPARE(request.error(), QStringLiteral("automatic compaction requires a user message"));
    QVERIFY(CompactionPrompts::buildRequest(history, QStringLiteral("PROMPT"), false));
}

// proves S41, S42, S16
void TestCompactionRules::replacementKeepsSystemAndLastUserVerbatim_S41_S42()
{
    const MessageList history{Message::system(QStringLiteral("agent prompt")),
                              Message::user(QStringLiteral("old")),
                              Message::assistant(QStringLiteral("reply")),
                              Message::user(QStringLiteral("implement this exactly\n  with spaces ")),
                              Message::assistant(QStringLiteral("working"))};
    const auto replacement =
        CompactionPrompts::automaticReplacement(QStringLiteral("  the summary  "), history);
    QVERIFY(replacement);
    QCOMPARE(replacement->size(), 2);
    QCOMPARE(replacement->at(0), Message::system(QStringLiteral("agent prompt")));
    const QString content = replacement->at(1).content;
    QCOMPARE(replacement->at(1).role, Message::Role::User);
    QVERIFY(content.startsWith(QLatin1String("<compacted_context>\n")));
    QVERIFY(
        content.contains(QLatin1String("\n\nthe summary\n</compacted_context>\n\n<last_user_message>\n")));
    QVERIFY(
        content.endsWith(QLatin1String("\n\nimplement this exactly\n  with spaces \n</last_user_message>")));
    QVERIFY(content.contains(QLatin1String("current task")));
}

// proves S40
void TestCompactionRules::replacementRejectsEmptySummary_S40()
{
    const MessageList history{Message::user(QStringLiteral("task"))};
    const auto replacement = CompactionPrompts::automaticReplacement(QStringLiteral(" \n\t "), history);
    QVERIFY(!replacement);
    QVERIFY(replacement.error().contains(QLatin1String("empty summary")));
    QVERIFY(!CompactionPrompts::automaticReplacement(QStringLiteral("x"),
                                                     {Message::system(QStringLiteral("s"))}));
}

void TestCompactionRules::replacementDoesNotAliasHistory()
{
    MessageList history{Message::system(QStringLiteral("agent prompt")),
                        Message::user(QStringLiteral("task"))};
    auto replacement = CompactionPrompts::automaticReplacement(QStringLiteral("s"), history);
    QVERIFY(replacement);
    (*replacement)[0].content = QStringLiteral("mutated");
    QCOMPARE(history.at(0).content, QStringLiteral("agent prompt"));
}

// proves S42 across repeated compactions (issue 12 point 5): the second replacement of a turn keeps the
// person's words once, not the first replacement inside the second.
void TestCompactionRules::repeatedReplacementKeepsThePersonsWordsOnce()
{
    const QString words = QStringLiteral("implement this exactly\n  with <last_user_message> inside ");
    MessageList history{Message::system(QStringLiteral("agent prompt")), Message::user(words)};
    QList<qsizetype> sizes;
    for (int round = 1; round <= 5; ++round) {
        const auto replacement =
            CompactionPrompts::automaticReplacement(QStringLiteral("summary %1").arg(round), history);
        QVERIFY(replacement);
        const QString content = replacement->last().content;
        QCOMPARE(content.count(QStringLiteral("<compacted_context>")), 1);
        QCOMPARE(content.count(words), 1);
        QVERIFY(content.endsWith(words + QStringLiteral("\n</last_user_message>")));
        QCOMPARE(CompactionPrompts::originalUserText(content), words);
        sizes.append(content.size());
        // The loop goes on from the replacement and adds tool turns before the next compaction.
        history = *replacement;
        history.append(Message::assistant(QStringLiteral("step %1").arg(round)));
    }
    for (qsizetype size : std::as_const(sizes))
        QCOMPARE(size, sizes.first());
}

void TestCompactionRules::originalUserTextLeavesOtherTextAlone_data()
{
    QTest::addColumn<QString>("content");
    QTest::newRow("plain") << QStringLiteral("fix the build");
    QTest::newRow("tag only") << QStringLiteral("<compacted_context>\nmine</compacted_context>");
    QTest::newRow("empty") << QString();
    const QString replacement =
        CompactionPrompts::automaticReplacement(QStringLiteral("s"), {Message::user(QStringLiteral("x"))})
            ->last()
            .content;
    QTest::newRow("replacement without its end") << replacement.chopped(1);
}

void TestCompactionRules::originalUserTextLeavesOtherTextAlone()
{
    QFETCH(QString, content);
    QCOMPARE(CompactionPrompts::originalUserText(content), content);
}

// proves S28, S41 (issue 16, pins): with no pins both replacements are the seed's bytes exactly: the
// automatic one spelt out here in full, the manual one the summary alone.
void TestCompactionRules::withoutPinsTheReplacementIsTheSeedsBytes_S28_S41()
{
    const MessageList history{Message::system(QStringLiteral("agent prompt")),
                              Message::user(QStringLiteral("do the task"))};
    const QString seed = QStringLiteral(
        "<compacted_context>\n"
        "The earlier conversation was compacted automatically to fit the model's context window. This "
        "summary "
        "keeps the goals, constraints, progress, discoveries, tool results and pending work that still "
        "matter.\n\n"
        "## Goal\nthe summary\n</compacted_context>\n\n"
        "<last_user_message>\n"
        "This is the most recent user message. It is the current task, and its requirements take "
        "precedence.\n\n"
        "do the task\n</last_user_message>");
    const auto withDefault =
        CompactionPrompts::automaticReplacement(QStringLiteral("## Goal\nthe summary"), history);
    const auto withEmpty = CompactionPrompts::automaticReplacement(
        QStringLiteral("## Goal\nthe summary"), history, CompactionPrompts::pinnedContext({}));
    QVERIFY(withDefault && withEmpty);
    QCOMPARE(withDefault->last().content, seed);
    QCOMPARE(withEmpty->last().content, seed);
    QCOMPARE(CompactionPrompts::pinnedContext({}), QString());
    QCOMPARE(CompactionPrompts::manualReplacement(QStringLiteral("## Goal\nx"), QString()),
             QStringLiteral("## Goal\nx"));
}

// proves S41, S42 with pins (issue 16): every pin verbatim, in order, after the summary; the latest user
// message still last and authoritative; the manual replacement is the summary then the same block.
void TestCompactionRules::pinsFollowTheSummaryVerbatim_S41_S42()
{
    const QString code = QStringLiteral("```cpp\nint  main() { return 0; }\n```");
    const PinList pins{
        {QStringLiteral("pin-1"), Pin::Kind::Note, QStringLiteral("Never edit vendor/."), {}},
        {QStringLiteral("pin-2"), Pin::Kind::CodeBlock, code, QStringLiteral("assistant \"reply\"\nline")}};
    const QString block = CompactionPrompts::pinnedContext(pins);
    QVERIFY(block.startsWith(QStringLiteral("<pinned_context>\n")));
    QVERIFY(block.endsWith(QStringLiteral("</pinned_context>")));
    QVERIFY(block.contains(QStringLiteral("<pin kind=\"note\">\nNever edit vendor/.\n</pin>")));
    QVERIFY(block.contains(QStringLiteral("<pin kind=\"code_block\" source=\"assistant 'reply' line\">\n") +
                           code + QStringLiteral("\n</pin>")));
    QVERIFY(block.indexOf(QStringLiteral("vendor")) < block.indexOf(code));

    const MessageList history{Message::system(QStringLiteral("agent prompt")),
                              Message::user(QStringLiteral("do the task"))};
    const auto replacement =
        CompactionPrompts::automaticReplacement(QStringLiteral("the summary"), history, block);
    QVERIFY(replacement);
    QCOMPARE(replacement->size(), 2);
    const QString content = replacement->last().content;
    QVERIFY(content.contains(QStringLiteral("the summary\n</compacted_context>\n\n") + block +
                             QStringLiteral("\n\n<last_user_message>\n")));
    QVERIFY(content.endsWith(QStringLiteral("\n\ndo the task\n</last_user_message>")));
    QCOMPARE(CompactionPrompts::originalUserText(content), QStringLiteral("do the task"));

    QCOMPARE(CompactionPrompts::manualReplacement(QStringLiteral("## Goal\nx"), block),
             QStringLiteral("## Goal\nx\n\n") + block);
}

// proves S42 with pins across repeated compactions in one turn: the pins and the person's words once each.
void TestCompactionRules::repeatedReplacementWithPinsNeverNests_S42()
{
    const QString block = CompactionPrompts::pinnedContext(
        {{QStringLiteral("pin-1"), Pin::Kind::Note, QStringLiteral("PINNED-NOTE"), {}}});
    const QString words = QStringLiteral("the person's words");
    MessageList history{Message::system(QStringLiteral("agent prompt")), Message::user(words)};
    for (int round = 1; round <= 4; ++round) {
        const auto replacement =
            CompactionPrompts::automaticReplacement(QStringLiteral("summary %1").arg(round), history, block);
        QVERIFY(replacement);
        const QString content = replacement->last().content;
        QCOMPARE(content.count(QStringLiteral("PINNED-NOTE")), 1);
        QCOMPARE(content.count(words), 1);
        QCOMPARE(CompactionPrompts::originalUserText(content), words);
        history = *replacement;
        history.append(Message::assistant(QStringLiteral("step %1").arg(round)));
    }
}

void TestCompactionRules::gateChecksEveryPrecondition_data()
{
    QTest::addColumn<AutoCompactionGate>("gate");
    QTest::addColumn<bool>("allows");
    AutoCompactionGate open;
    open.newToolTurn = true;
    open.budget = 95000;
    open.estimatedTokens = 85500;
    QTest::newRow("every precondition holds") << open << true;
    AutoCompactionGate gate = open;
    gate.estimatedTokens = 85499;
    QTest::newRow("below the threshold") << gate << false;
    gate = open;
    gate.oneShot = true;
    QTest::newRow("one-shot") << gate << false;
    gate = open;
    gate.disabled = true;
    QTest::newRow("disabled") << gate << false;
    gate = open;
    gate.newToolTurn = false;
    QTest::newRow("no new tool turn") << gate << false;
    gate = open;
    gate.suppressed = true;
    QTest::newRow("suppressed after a failure") << gate << false;
    gate = open;
    gate.unreconciledPending = true;
    gate.providerWaitsForPending = true;
    QTest::newRow("unreconciled pending, the provider needs it reconciled") << gate << false;
    gate.providerWaitsForPending = false;
    QTest::newRow("unreconciled pending, the provider does not care") << gate << true;
    gate = open;
    gate.providerWaitsForPending = true;
    QTest::newRow("reconciled pending") << gate << true;
}

// proves S36: each precondition alone keeps the request unchanged.
void TestCompactionRules::gateChecksEveryPrecondition()
{
    QFETCH(AutoCompactionGate, gate);
    QFETCH(bool, allows);
    QCOMPARE(gate.allows(), allows);
    QCOMPARE(gate.preconditionsHold(), allows || gate.estimatedTokens < 85500);
}

QTEST_GUILESS_MAIN(TestCompactionRules)
#include "tst_compactionrules.moc"
