#include "base/privatefolder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace keen {

Result<void> PrivateFolder::ensure(const QString &path)
{
    constexpr mode_t mode = 0700;
    const QFileInfo info(path);
    if (info.isDir())
        return {};
    if (info.exists())
        return Result<void>::failure(tr("%1: a file is in the way").arg(path));
    const QString parent = QFileInfo(QDir::cleanPath(path)).path();
    if (parent != path) {
        Result<void> made = ensure(parent);
        if (!made)
            return made;
    }
    const QByteArray encoded = QFile::encodeName(path);
    if (::mkdir(encoded.constData(), mode) != 0 && errno != EEXIST)
        return Result<void>::failure(
            QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(::strerror(errno))));
    // The umask may have narrowed the mode further; never widen past 0700.
    ::chmod(encoded.constData(), mode);
    return {};
}

} // namespace keen
