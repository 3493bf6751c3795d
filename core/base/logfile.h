#pragma once

#include "base/result.h"

#include <QString>

namespace keen {

// The log file (reference 8.3, 8.4): <data dir>/logs/keen-desktop-<yyyyMMdd-HHmmss>-<pid>.log, one per run,
// made on the first line written (a quiet run leaves none), the folder 0700 and the file 0600; /cleanup
// removes logs after 14 days. KEEN_LOG_LEVEL (debug, info, warn, error) picks what is written: debug and info
// turn the keen.* categories on for the file only, and warnings and worse still go to stderr as before. The
// window always keeps one (at warn unless the variable says otherwise), since nobody sees its stderr when it
// is started from a menu; headless runs keep one only when the variable is set. Thread-safe.
class LogFile
{
public:
    enum class Level { Debug, Info, Warning, Error };

    LogFile() = delete;

    // KEEN_LOG_LEVEL's value as a level; an error naming the valid values for anything else.
    static Result<Level> parseLevel(const QString &text);
    static QString defaultFolder(); // <data dir>/logs

    // Installs the message handler (again: moves to the new folder and level).
    static void install(const QString &folder, Level level);
    // The running program's file, empty until a line was written.
    static QString currentPath();
    // Puts back the handler that was there before install (tests).
    static void uninstall();
};

} // namespace keen
