#include "tools/gitinfo.h"

#include "base/regularfile.h"
#include "tools/libgit2.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <set>

namespace keen {

namespace {

// HEAD and a .git file are a line each; anything longer is not git's.
constexpr qint64 MaxSmallGitFile = 4096;

// Only a regular file is read: a FIFO planted as .git or HEAD would otherwise block the system prompt.
QByteArray readSmallFile(const QString &path)
{
    const RegularFile::Read read = RegularFile::read(path, MaxSmallGitFile);
    return read.ok() ? read.bytes.trimmed() : QByteArray();
}

struct RepoHandle
{
    const LibGit2 *git = nullptr;
    git_repository *repo = nullptr;
    ~RepoHandle()
    {
        if (repo)
            git->repository_free(repo);
    }
};

bool openRepository(const QString &path, RepoHandle &handle)
{
    handle.git = LibGit2::get();
    if (!handle.git)
        return false;
    const QByteArray native = QFile::encodeName(path);
    return handle.git->repository_open_ext(&handle.repo, native.constData(), 0, nullptr) == 0;
}

QStringList walkPlainFolder(const QString &workspace, int maxFiles)
{
    QStringList files;
    const QDir root(workspace);
    QDirIterator it(workspace, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext() && files.size() < maxFiles) {
        const QString relative = root.relativeFilePath(it.next());
        // Dot-folders (.git, .cache, ...) are noise for completion.
        if (relative.startsWith(QLatin1Char('.')) || relative.contains(QLatin1String("/.")))
            continue;
        files.append(relative);
    }
    files.sort();
    return files;
}

} // namespace

QString GitInfo::findGitDirectory(const QString &path, QString *workTree)
{
    QDir folder(QFileInfo(path).absoluteFilePath());
    while (true) {
        const QFileInfo dotGit(folder.filePath(QStringLiteral(".git")));
        QString gitDir;
        if (dotGit.isDir()) {
            gitDir = dotGit.absoluteFilePath();
        } else if (dotGit.isFile()) {
            const QByteArray line = readSmallFile(dotGit.absoluteFilePath());
            if (line.startsWith("gitdir:"))
                gitDir = QDir::cleanPath(folder.absoluteFilePath(QFile::decodeName(line.mid(7).trimmed())));
        }
        if (!gitDir.isEmpty() && QFileInfo(gitDir + QStringLiteral("/HEAD")).isFile()) {
            if (workTree)
                *workTree = folder.absolutePath();
            return gitDir;
        }
        if (!folder.cdUp())
            return {};
    }
}

QString GitInfo::currentBranch(const QString &path)
{
    const QString gitDir = findGitDirectory(path);
    if (gitDir.isEmpty())
        return {};
    const QByteArray head = readSmallFile(gitDir + QStringLiteral("/HEAD"));
    if (head.startsWith("ref:")) {
        // A branch, possibly unborn (a fresh repository names a branch that has no commit yet). Shortened as
        // git shortens it: refs/heads/main is "main".
        QString name = QString::fromUtf8(head.mid(4).trimmed());
        for (const QLatin1String prefix :
             {QLatin1String("refs/heads/"), QLatin1String("refs/tags/"), QLatin1String("refs/remotes/")}) {
            if (name.startsWith(prefix))
                return name.mid(prefix.size());
        }
        return name;
    }
    // Detached: HEAD holds the commit id (40 hex digits, 64 with SHA-256); the short form is its first 7.
    const bool commitId = head.size() >= 40 && std::all_of(head.cbegin(), head.cend(), [](char c) {
                              return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                          });
    return commitId ? QString::fromLatin1(head.left(7)) : QString();
}

QStringList GitInfo::listFiles(const QString &workspace, int maxFiles)
{
    RepoHandle handle;
    if (findGitDirectory(workspace).isEmpty() || !openRepository(workspace, handle) ||
        handle.git->repository_is_bare(handle.repo))
        return walkPlainFolder(workspace, maxFiles);
    const LibGit2 &git = *handle.git;

    const QString workdir = QDir(QString::fromUtf8(git.repository_workdir(handle.repo))).canonicalPath();
    const QString base = QFileInfo(workspace).canonicalFilePath();
    // Repository paths are relative to the work tree; completion wants them relative to the workspace.
    const QString prefix =
        base == workdir ? QString() : QDir(workdir).relativeFilePath(base) + QLatin1Char('/');

    std::set<QString> unique;
    auto addRepoPath = [&](const char *repoPath) {
        const QString path = QString::fromUtf8(repoPath);
        if (prefix.isEmpty())
            unique.insert(path);
        else if (path.startsWith(prefix))
            unique.insert(path.mid(prefix.size()));
    };

    git_index *index = nullptr;
    if (git.repository_index(&index, handle.repo) == 0) {
        const size_t count = git.index_entrycount(index);
        for (size_t i = 0; i < count; ++i) {
            if (const git_index_entry *entry = git.index_get_byindex(index, i))
                addRepoPath(entry->path);
        }
        git.index_free(index);
    }

    git_status_options options = GIT_STATUS_OPTIONS_INIT;
    options.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
    options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
    git_status_list *status = nullptr;
    if (git.status_list_new(&status, handle.repo, &options) == 0) {
        const size_t count = git.status_list_entrycount(status);
        for (size_t i = 0; i < count; ++i) {
            const git_status_entry *entry = git.status_byindex(status, i);
            if (entry && (entry->status & GIT_STATUS_WT_NEW) && entry->index_to_workdir)
                addRepoPath(entry->index_to_workdir->new_file.path);
        }
        git.status_list_free(status);
    }

    QStringList files;
    for (const QString &file : unique) {
        if (files.size() >= maxFiles)
            break;
        files.append(file);
    }
    return files;
}

} // namespace keen
