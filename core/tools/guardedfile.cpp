#include "tools/guardedfile.h"

#include <QFileInfo>
#include <QRandomGenerator>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace keen {

namespace {

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// True when fd is the object at expected: by its /proc path where there is one, else by device and inode.
bool isAt(int fd, const QString &expected)
{
    const QString actual = GuardedFile::pathOfDescriptor(fd);
    if (!actual.isEmpty())
        return actual == expected;
    struct stat opened = {};
    struct stat named = {};
    return ::fstat(fd, &opened) == 0 && ::lstat(QFile::encodeName(expected).constData(), &named) == 0 &&
           opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

class Descriptor
{
public:
    explicit Descriptor(int fd = -1)
        : m_fd(fd)
    {}
    ~Descriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Descriptor(const Descriptor &) = delete;
    Descriptor &operator=(const Descriptor &) = delete;
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

} // namespace

QString GuardedFile::pathOfDescriptor(int fd)
{
    const QByteArray link = "/proc/self/fd/" + QByteArray::number(fd);
    char buffer[PATH_MAX + 1];
    const ssize_t length = ::readlink(link.constData(), buffer, PATH_MAX);
    if (length <= 0)
        return {};
    return QFile::decodeName(QByteArray(buffer, qsizetype(length)));
}

Result<std::unique_ptr<QFile>> GuardedFile::openForReading(const QString &resolvedPath,
                                                           const QString &shownPath)
{
    using Opened = Result<std::unique_ptr<QFile>>;
    Descriptor fd(::open(QFile::encodeName(resolvedPath).constData(),
                         O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd.get() < 0) {
        const int error = errno;
        if (error == ELOOP)
            return Opened::failure(
                GuardedFile::tr("%1 became a symbolic link after it was checked; nothing was read")
                    .arg(shownPath));
        return Opened::failure(GuardedFile::tr("cannot read %1: %2").arg(shownPath, systemError(error)));
    }
    if (!isAt(fd.get(), resolvedPath))
        return Opened::failure(
            GuardedFile::tr("%1 now leads somewhere else than when it was checked (a folder on its way was "
                            "replaced by a link); nothing was read")
                .arg(shownPath));
    struct stat info = {};
    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode))
        return Opened::failure(GuardedFile::tr("%1 is not a regular file").arg(shownPath));
    // Reads block normally from here on (O_NONBLOCK only kept a FIFO from hanging the open).
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
    auto file = std::make_unique<QFile>();
    if (!file->open(fd.get(), QIODevice::ReadOnly, QFileDevice::AutoCloseHandle))
        return Opened::failure(GuardedFile::tr("cannot read %1: %2").arg(shownPath, file->errorString()));
    fd.release();
    return Opened(std::move(file));
}

Result<void> GuardedFile::writeAtomically(const QString &resolvedPath, const QString &shownPath,
                                          const QByteArray &content)
{
    const QFileInfo target(resolvedPath);
    const QString folder = target.absolutePath();
    const QByteArray name = QFile::encodeName(target.fileName());
    const auto failure = [&](const QString &why) {
        return Result<void>::failure(GuardedFile::tr("cannot write %1: %2").arg(shownPath, why));
    };

    Descriptor dir(
        ::open(QFile::encodeName(folder).constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0) {
        if (errno == ELOOP || errno == ENOTDIR)
            return Result<void>::failure(GuardedFile::tr("the folder of %1 became a symbolic link after it "
                                                         "was checked; nothing was written")
                                             .arg(shownPath));
        return failure(systemError(errno));
    }
    if (!isAt(dir.get(), folder))
        return Result<void>::failure(
            GuardedFile::tr("%1 now leads somewhere else than when it was checked (a folder on its way was "
                            "replaced by a link); nothing was written")
                .arg(shownPath));

    struct stat existing = {};
    const bool exists = ::fstatat(dir.get(), name.constData(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && S_ISLNK(existing.st_mode))
        return Result<void>::failure(
            GuardedFile::tr("%1 became a symbolic link after it was checked; nothing was written")
                .arg(shownPath));
    if (exists && !S_ISREG(existing.st_mode))
        return failure(GuardedFile::tr("it is not a regular file"));

    const QByteArray temporary =
        "." + name + ".keen-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
    Descriptor out(::openat(dir.get(), temporary.constData(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exists ? 0600 : 0666));
    if (out.get() < 0)
        return failure(systemError(errno));
    const auto discard = [&](int error) {
        ::unlinkat(dir.get(), temporary.constData(), 0);
        return failure(systemError(error));
    };
    for (qsizetype written = 0; written < content.size();) {
        const ssize_t n = ::write(out.get(), content.constData() + written, size_t(content.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return discard(n < 0 ? errno : EIO);
        written += n;
    }
    if (exists && ::fchmod(out.get(), existing.st_mode & 07777) != 0)
        return discard(errno);
    if (::fsync(out.get()) != 0)
        return discard(errno);
    if (::close(out.release()) != 0)
        return discard(errno);
    if (::renameat(dir.get(), temporary.constData(), dir.get(), name.constData()) != 0)
        return discard(errno);
    ::fsync(dir.get());
    return {};
}

} // namespace keen
