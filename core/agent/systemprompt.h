#pragma once

#include "conversation/agentmode.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace keen {

// The system prompt (reference 7.1): the base prompt, the working directory, the nearest project
// instructions file, the catalogs of enabled skills and of subagents, the memory files and, last, the agent
// mode (S20). Built fresh for every request; the mode comes last so a mode switch keeps the cached prefix
// before it.
class SystemPromptBuilder
{
    Q_DECLARE_TR_FUNCTIONS(SystemPromptBuilder)

public:
    static constexpr qsizetype InstructionsCap = 8 * 1024;
    static constexpr qsizetype GlobalMemoryCap = 8 * 1024;
    static constexpr qsizetype ProjectMemoryCap = 16 * 1024;

    // dataDir: the app's data folder; the global memory is <dataDir>/memory/global/MEMORY.md. A file that
    // is there but cannot be read (a FIFO, a device, no permission) is left out and named in warnings.
    static QString build(const QString &workspace, const QString &dataDir, AgentMode mode = AgentMode::Build,
                         QStringList *warnings = nullptr);

    static QString basePrompt();
    // A subagent's system prompt (reference 7.3): security instructions, the working directory, the project
    // instructions, the skills, the profile's instructions, the subagent boundary and the parent's mode. No
    // memory and no subagent catalog: a child does not delegate.
    static QString subagent(const QString &name, const QString &instructions, const QString &workspace,
                            const QString &dataDir, AgentMode mode);
    // `# Project Instructions (from <path>)\n\n<content>` for the first non-empty AGENTS.md, CLAUDE.md or
    // GEMINI.md found from workspace upward; empty when there is none.
    static QString projectInstructions(const QString &workspace, QStringList *warnings = nullptr);
    static QString findInstructionsFile(const QString &workspace);
    // `# Memory\n\n...` with the global and the project memory; empty when both are empty.
    static QString memorySection(const QString &workspace, const QString &dataDir,
                                 QStringList *warnings = nullptr);
    static QString globalMemoryPath(const QString &dataDir);
    static QString projectMemoryPath(const QString &workspace);

    // `# Mode` with what the mode means for the model; empty in build and yolo mode, which need no
    // instruction.
    static QString modeSection(AgentMode mode);
    // Earlier versions appended the plan mode to the user's message and saved it so; this removes it again
    // from a saved message.
    static QString stripModeSuffix(const QString &text);

    // The first `cap` bytes of a UTF-8 file (cut on a character boundary) and a note where the rest is.
    // Only a regular file is read; anything else at the path is empty and, unless missing, in warnings.
    static QString readCapped(const QString &path, qsizetype cap, QStringList *warnings = nullptr);
};

inline QString stripModeSuffix(const QString &text)
{
    return SystemPromptBuilder::stripModeSuffix(text);
}

} // namespace keen
