#include "base/regularfile.h"

#include <QFile>
#include <QLocale>

#include <algorithm>
#include <limits>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace keen {

namespace {

QString reason(int error)
{
    return QString::fromLocal8Bit(::strerror(error));
}

QString typeName(mode_t mode)
{
    if (S_ISDIR(mode))
        return RegularFile::tr("a folder is in its place");
    if (S_ISFIFO(mode))
        return RegularFile::tr("it is a named pipe (FIFO), not a regular file");
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return RegularFile::tr("it is a device, not a regular file");
    if (S_ISSOCK(mode))
        return RegularFile::tr("it is a socket, not a regular file");
    return RegularFile::tr("it is not a regular file");
}

RegularFile::Read failure(const QString &path, RegularFile::Problem problem, const QString &why)
{
    RegularFile::Read read;
    read.problem = problem;
    read.reason = why;
    read.error = RegularFile::tr("Cannot read %1: %2").arg(path, why);
    return read;
}

// Checks an open descriptor; fills read on failure.
bool usable(int fd, const QString &path, qint64 maxBytes, RegularFile::Read &read, qint64 *size)
{
    struct stat status
    {};
    if (::fstat(fd, &status) != 0) {
        read = failure(path, RegularFile::Problem::Unreadable, reason(errno));
        return false;
    }
    if (!S_ISREG(status.st_mode)) {
        read = failure(path, RegularFile::Problem::NotRegular, typeName(status.st_mode));
        return false;
    }
    if (status.st_size > maxBytes) {
        read = failure(path, RegularFile::Problem::TooLarge,
                       RegularFile::tr("it is %1, more than the %2 this app reads")
                           .arg(QLocale::c().formattedDataSize(status.st_size, 0),
                                QLocale::c().formattedDataSize(maxBytes, 0)));
        return false;
    }
    *size = status.st_size;
    read.modifiedMs = qint64(status.st_mtim.tv_sec) * 1000 + status.st_mtim.tv_nsec / 1000000;
    return true;
}

int openForReading(const QString &path, RegularFile::Read &read)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int error = errno;
        read =
            failure(path, error == ENOENT ? RegularFile::Problem::Missing : RegularFile::Problem::Unreadable,
                    error == EISDIR ? RegularFile::tr("a folder is in its place") : reason(error));
    }
    return fd;
}

// Reads at most cap bytes of fd into bytes, allocated for sizeHint first and read into straight (one copy,
// not two: listing 1,000 sessions reads every transcript). 0, or the errno of the read that failed.
int readUpTo(int fd, qint64 sizeHint, qint64 cap, QByteArray &bytes)
{
    bytes = QByteArray(qMin(sizeHint, cap), Qt::Uninitialized);
    qsizetype filled = 0;
    while (filled < cap) {
        if (filled == bytes.size())
            bytes.resize(qMin(qMax<qint64>(bytes.size() * 2, 4096), cap));
        const ssize_t got = ::read(fd, bytes.data() + filled, size_t(bytes.size() - filled));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return errno;
        if (got == 0)
            break;
        filled += got;
    }
    bytes.truncate(filled);
    return 0;
}

} // namespace

RegularFile::Read RegularFile::read(const QString &path, qint64 maxBytes)
{
    return readTail(path, maxBytes, maxBytes);
}

RegularFile::Read RegularFile::readTail(const QString &path, qint64 maxBytes, qint64 tailBytes)
{
    Read read;
    const int fd = openForReading(path, read);
    if (fd < 0)
        return read;
    qint64 size = 0;
    if (!usable(fd, path, maxBytes, read, &size)) {
        ::close(fd);
        return read;
    }
    if (size > tailBytes) {
        read.offset = size - tailBytes;
        if (::lseek(fd, read.offset, SEEK_SET) < 0) {
            const int error = errno;
            ::close(fd);
            return failure(path, Problem::Unreadable, reason(error));
        }
        size = tailBytes;
    }
    // At most one byte past the limit is read; a limit of "no limit" (INT64_MAX) has no byte past it.
    const qint64 limit = std::min(maxBytes - read.offset, std::numeric_limits<qint64>::max() - 1);
    // The size is a hint: the file may grow meanwhile (an append), never past maxBytes here. One byte more
    // than the size is asked for, so that growth shows as a read that does not come back empty.
    QByteArray bytes;
    const int error = readUpTo(fd, size + 1, limit + 1, bytes);
    ::close(fd);
    if (error != 0)
        return failure(path, Problem::Unreadable, reason(error));
    if (bytes.size() > limit)
        return failure(
            path, Problem::TooLarge,
            tr("it grew past the %1 this app reads").arg(QLocale::c().formattedDataSize(maxBytes, 0)));
    read.bytes = std::move(bytes);
    return read;
}

RegularFile::Read RegularFile::readHead(const QString &path, qint64 headBytes)
{
    Read read;
    const int fd = openForReading(path, read);
    if (fd < 0)
        return read;
    qint64 size = 0;
    if (!usable(fd, path, std::numeric_limits<qint64>::max(), read, &size)) {
        ::close(fd);
        return read;
    }
    QByteArray bytes;
    const int error = readUpTo(fd, size + 1, std::max<qint64>(0, headBytes), bytes);
    ::close(fd);
    if (error != 0)
        return failure(path, Problem::Unreadable, reason(error));
    read.bytes = std::move(bytes);
    return read;
}

QString RegularFile::problem(const QString &path, qint64 maxBytes)
{
    Read read;
    const int fd = openForReading(path, read);
    if (fd < 0)
        return read.error;
    qint64 size = 0;
    const bool ok = usable(fd, path, maxBytes, read, &size);
    ::close(fd);
    return ok ? QString() : read.error;
}

Result<void> RegularFile::append(const QString &path, const QByteArray &bytes)
{
    const auto cannotWrite = [&path](const QString &why) {
        return Result<void>::failure(tr("Cannot write %1: %2").arg(path, why));
    };
    const QByteArray native = QFile::encodeName(path);
    // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader (and without one it fails
    // with ENXIO, whose text says nothing useful, so the type is named from the descriptor or the path).
    const int fd =
        ::open(native.constData(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0) {
        const int error = errno;
        struct stat status
        {};
        if (::stat(native.constData(), &status) == 0 && !S_ISREG(status.st_mode))
            return cannotWrite(typeName(status.st_mode));
        return cannotWrite(error == EISDIR ? tr("a folder is in its place") : reason(error));
    }
    struct stat status
    {};
    const bool statted = ::fstat(fd, &status) == 0;
    if (!statted || !S_ISREG(status.st_mode)) {
        const QString why = statted ? typeName(status.st_mode) : reason(errno);
        ::close(fd);
        return cannotWrite(why);
    }
    ::fchmod(fd, 0600);
    // One write of the whole: appends from two processes do not interleave within it.
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t put = ::write(fd, bytes.constData() + written, size_t(bytes.size() - written));
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0) {
            const int error = errno;
            ::close(fd);
            return cannotWrite(reason(error));
        }
        written += put;
    }
    if (::close(fd) != 0)
        return cannotWrite(reason(errno));
    return {};
}

} // namespace keen
