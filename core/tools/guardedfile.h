#pragma once

#include "base/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QFile>
#include <QString>

#include <memory>

namespace keen {

// Opens and writes the files the filesystem guard approved, so that what is touched is what was checked. The
// guard resolves a path to its canonical form; between that check and the use, a folder on the way (or the
// file itself) may have been swapped for a symlink to somewhere else (time of check to time of use). These
// open the final component with O_NOFOLLOW and then ask the kernel where the descriptor really points: when
// that is not the checked path, nothing is read or written.
class GuardedFile
{
    Q_DECLARE_TR_FUNCTIONS(GuardedFile)

public:
    GuardedFile() = delete;

    // resolvedPath: absolute and canonical, as FilesystemGuard::Check::resolvedPath. The file, open for
    // reading, or a message that names shownPath.
    static Result<std::unique_ptr<QFile>> openForReading(const QString &resolvedPath,
                                                         const QString &shownPath);

    // All of content or nothing: a temporary file beside the target, created through a descriptor of the
    // checked folder, synced, then renamed over the target within that folder. An existing file keeps its
    // permission bits; a new one gets 0666 less the umask, as QSaveFile would.
    static Result<void> writeAtomically(const QString &resolvedPath, const QString &shownPath,
                                        const QByteArray &content);

    // Where a descriptor really points (/proc/self/fd), or empty when the system cannot say.
    static QString pathOfDescriptor(int fd);
};

} // namespace keen
