#include "agent/systemprompt.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace keen;

class TestSystemPrompt : public QObject
{
    Q_OBJECT

private:
    static void write(const QString &path, const QByteArray &bytes) { QVERIFY(test::writeFile(path, bytes)); }

private Q_SLOTS:
    void layoutAndByteStability()
    {
        test::TestEnvironment env;
        QTemporaryDir root;
        const QString ws = root.filePath(QStringLiteral("repo/sub"));
        QDir().mkpath(ws);
        const QString data = env.path(QStringLiteral("data"));
        const QString prompt = SystemPromptBuilder::build(ws, data);
        QVERIFY(prompt.startsWith(SystemPromptBuilder::basePrompt() +
                                  QStringLiteral("\n\nWorking directory: ") + ws));
        QVERIFY(prompt.contains(QStringLiteral("N:HASH")));
        QVERIFY(!prompt.contains(QStringLiteral("Active mode")));
        // Same inputs, same bytes: nothing depends on time or mode.
        QCOMPARE(SystemPromptBuilder::build(ws, data), prompt);
    }

    // proves S20: the mode is part of the system prompt, last, so the prefix before it stays cacheable.
    void planModeIsPartOfTheSystemPrompt()
    {
        test::TestEnvironment env;
        QTemporaryDir root;
        const QString data = env.path(QStringLiteral("data"));
        const QString build = SystemPromptBuilder::build(root.path(), data, AgentMode::Build);
        const QString plan = SystemPromptBuilder::build(root.path(), data, AgentMode::Plan);
        QCOMPARE(SystemPromptBuilder::build(root.path(), data, AgentMode::Yolo), build);
        QCOMPARE(SystemPromptBuilder::modeSection(AgentMode::Build), QString());
        QCOMPARE(plan, build + QStringLiteral("\n\n") + SystemPromptBuilder::modeSection(AgentMode::Plan));
        QVERIFY(plan.endsWith(QStringLiteral("write_file and edit_file are refused in this mode; the user "
                                             "switches back to build mode to make changes.")));
        QVERIFY(plan.contains(QStringLiteral("# Mode\n\nActive mode: plan.")));
    }

    void legacyModeSuffixIsStripped()
    {
        // What older versions appended to a user message in plan mode and saved with it.
        const QString legacy = QStringLiteral("\n\nActive mode: plan. Read-only, plan instead of modifying "
                                              "files; write_file and edit_file are unavailable.\n");
        QCOMPARE(SystemPromptBuilder::stripModeSuffix(QStringLiteral("do it") + legacy),
                 QStringLiteral("do it"));
        QCOMPARE(stripModeSuffix(QStringLiteral("do it")), QStringLiteral("do it"));
    }

    void projectInstructionsFoundUpward()
    {
        test::TestEnvironment env;
        QTemporaryDir root;
        const QString ws = root.filePath(QStringLiteral("repo/sub"));
        QDir().mkpath(ws);
        write(root.filePath(QStringLiteral("repo/CLAUDE.md")), "claude rules");
        write(root.filePath(QStringLiteral("repo/GEMINI.md")), "gemini rules");
        write(root.filePath(QStringLiteral("repo/AGENTS.md")), "  \n"); // blank: skipped
        write(root.filePath(QStringLiteral("AGENTS.md")), "outer rules");
        QString prompt = SystemPromptBuilder::build(ws, env.path(QStringLiteral("data")));
        const QString path = root.filePath(QStringLiteral("repo/CLAUDE.md"));
        QVERIFY(prompt.contains(
            QStringLiteral("\n\n# Project Instructions (from %1)\n\nclaude rules").arg(path)));
        QVERIFY(!prompt.contains(QStringLiteral("outer rules")));

        // The nearest folder wins.
        write(ws + QStringLiteral("/AGENTS.md"), "inner rules");
        prompt = SystemPromptBuilder::build(ws, env.path(QStringLiteral("data")));
        QVERIFY(prompt.contains(QStringLiteral("inner rules")));
        QVERIFY(!prompt.contains(QStringLiteral("claude rules")));
    }

    void instructionsCap()
    {
        QTemporaryDir root;
        QByteArray big(9000, 'a');
        big[8190] = '\xc3'; // "é" straddling the 8 KiB cut
        big[8191] = '\xa9';
        big[8192] = '\xc3';
        big[8193] = '\xa9';
        write(root.filePath(QStringLiteral("AGENTS.md")), big);
        const QString section = SystemPromptBuilder::projectInstructions(root.path());
        const QString path = root.filePath(QStringLiteral("AGENTS.md"));
        QVERIFY(section.endsWith(QStringLiteral("\n[truncated — full file at %1]").arg(path)));
        const QString header = QStringLiteral("# Project Instructions (from %1)\n\n").arg(path);
        const QString content = section.mid(header.size()).section(QStringLiteral("\n[truncated"), 0, 0);
        QVERIFY(content.toUtf8().size() <= 8192);
        QVERIFY(content.endsWith(QStringLiteral("é")));
        QVERIFY(!content.contains(QChar::ReplacementCharacter));
    }

    void memoryFiles()
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        const QString data = env.path(QStringLiteral("data"));
        QCOMPARE(SystemPromptBuilder::memorySection(ws.path(), data), QString());
        write(SystemPromptBuilder::globalMemoryPath(data), "prefers tabs\n");
        write(SystemPromptBuilder::projectMemoryPath(ws.path()), QByteArray(20000, 'p'));
        const QString memory = SystemPromptBuilder::memorySection(ws.path(), data);
        QVERIFY(memory.startsWith(QStringLiteral("# Memory\n\n")));
        QVERIFY(memory.contains(QStringLiteral("prefers tabs")));
        QCOMPARE(memory.count(QLatin1Char('p')) >= 16384, true);
        QVERIFY(memory.contains(QStringLiteral("[truncated — full file at ") +
                                SystemPromptBuilder::projectMemoryPath(ws.path())));
        QVERIFY(SystemPromptBuilder::build(ws.path(), data).endsWith(memory));
    }
};

QTEST_GUILESS_MAIN(TestSystemPrompt)
#include "tst_systemprompt.moc"
