#pragma once

#include <QCoreApplication>
#include <QString>

namespace keen {

// What /memory shows (reference 6.1 and 7.4): the global and the project memory file the system prompt
// reads, whether each exists, and on request one file's text. Reads the disk: call it off the GUI thread.
class MemoryReport
{
    Q_DECLARE_TR_FUNCTIONS(MemoryReport)

public:
    enum class Scope { Global, Project };
    // More than the prompt reads (SystemPromptBuilder caps them at 8 and 16 KiB): the person may look at
    // a file that grew past what the model gets.
    static constexpr qint64 ShowLimit = 1024 * 1024;

    // A Markdown table: each file's path and "not created", its size, or why it cannot be read.
    static QString list(const QString &globalPath, const QString &projectPath);
    // A Markdown heading naming the file, then its text verbatim in a code block (or why it is not shown).
    static QString show(Scope scope, const QString &path);
};

} // namespace keen
