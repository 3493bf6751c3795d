#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace keen {

// The prompts a person sent, across runs, for Up in the window's input (reference 6.8: input-history beside
// settings.json). One prompt a line, oldest first, with "\" written "\\", a line break "\n" and a carriage
// return "\r"; Up reaches the newest MaxEntries. A prompt longer than MaxEntryChars (a pasted log) is not
// kept: Up would only bring back a wall of text. The file stays under MaxFileBytes, so a read or a write
// costs little however long the app is used. Blocking file work: call it off the GUI thread.
class InputHistory
{
    Q_DECLARE_TR_FUNCTIONS(InputHistory)

public:
    static constexpr int MaxEntries = 1000;
    static constexpr int MaxEntryChars = 16 * 1024;
    static constexpr qint64 MaxFileBytes = 4 * 1024 * 1024;

    static QString defaultPath(); // <settings folder>/input-history

    // The newest MaxEntries, oldest first; nothing for a missing, unreadable or non-regular file.
    static QStringList load(const QString &path = defaultPath());
    // Appends one prompt (mode 0600); a file grown past MaxFileBytes is rewritten with the newest MaxEntries
    // of its last MaxFileBytes / 2. A prompt that is empty or too long is skipped.
    static Result<void> append(const QString &prompt, const QString &path = defaultPath());

    static QString escaped(const QString &prompt);
    static QString unescaped(const QString &line);
};

} // namespace keen
