#pragma once

#include "conversation/agentmode.h"

#include <QString>

namespace keen {

// The system prompt (reference 7.1): the base prompt, the working directory, the nearest project
// instructions file and the memory files. It does not depend on the mode, so the prompt prefix stays
// byte-stable and provider caches keep hitting; the mode travels in the user message (modeUserSuffix).
class SystemPromptBuilder
{
public:
    static constexpr qsizetype InstructionsCap = 8 * 1024;
    static constexpr qsizetype GlobalMemoryCap = 8 * 1024;
    static constexpr qsizetype ProjectMemoryCap = 16 * 1024;

    // dataDir: the app's data folder; the global memory is <dataDir>/memory/global/MEMORY.md.
    static QString build(const QString &workspace, const QString &dataDir);

    static QString basePrompt();
    // `# Project Instructions (from <path>)\n\n<content>` for the first non-empty AGENTS.md, CLAUDE.md or
    // GEMINI.md found from workspace upward; empty when there is none.
    static QString projectInstructions(const QString &workspace);
    static QString findInstructionsFile(const QString &workspace);
    // `# Memory\n\n...` with the global and the project memory; empty when both are empty.
    static QString memorySection(const QString &workspace, const QString &dataDir);
    static QString globalMemoryPath(const QString &dataDir);
    static QString projectMemoryPath(const QString &workspace);

    // Appended to the user's message in plan mode; empty in the other modes.
    static QString modeUserSuffix(AgentMode mode);
    // The user's message without a mode suffix, for display.
    static QString stripModeSuffix(const QString &text);

    // The first `cap` bytes of a UTF-8 file (cut on a character boundary) and a note where the rest is.
    static QString readCapped(const QString &path, qsizetype cap);
};

// Free-function spellings of the mode helpers.
inline QString modeUserSuffix(AgentMode mode)
{
    return SystemPromptBuilder::modeUserSuffix(mode);
}
inline QString stripModeSuffix(const QString &text)
{
    return SystemPromptBuilder::stripModeSuffix(text);
}

} // namespace keen
