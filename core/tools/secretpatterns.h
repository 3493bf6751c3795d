#pragma once

#include <QString>

namespace keen {

// Recognises credentials in text, so memory files (which go into every system prompt) never store one.
class SecretPatterns
{
public:
    // The kind of secret found ("private key", "AWS access key"...), or empty.
    static QString find(const QString &text);
    // MEMORY.md files: the project's .keen/MEMORY.md and the global one under the data folder.
    static bool isMemoryFile(const QString &path);
};

} // namespace keen
