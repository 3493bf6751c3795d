#include "tools/gitinfo.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

#include <git2.h>

#include <mutex>
#include <set>

namespace keen {

namespace {

struct RepoHandle
{
    git_repository *repo = nullptr;
    ~RepoHandle()
    {
        if (repo)
            git_repository_free(repo);
    }
};

bool openRepository(const QString &path, RepoHandle &handle)
{
    GitInfo::ensureInitialized();
    const QByteArray native = QFile::encodeName(path);
    return git_repository_open_ext(&handle.repo, native.constData(), 0, nullptr) == 0;
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

void GitInfo::ensureInitialized()
{
    static std::once_flag once;
    std::call_once(once, [] { git_libgit2_init(); });
}

QString GitInfo::currentBranch(const QString &path)
{
    RepoHandle handle;
    if (!openRepository(path, handle))
        return {};

    git_reference *head = nullptr;
    const int error = git_repository_head(&head, handle.repo);
    if (error == GIT_EUNBORNBRANCH) {
        // A fresh repository: HEAD names a branch that has no commit yet.
        git_reference *symbolic = nullptr;
        QString name;
        if (git_reference_lookup(&symbolic, handle.repo, "HEAD") == 0) {
            if (const char *target = git_reference_symbolic_target(symbolic)) {
                name = QString::fromUtf8(target);
                name.remove(QLatin1String("refs/heads/"));
            }
            git_reference_free(symbolic);
        }
        return name;
    }
    if (error != 0)
        return {};

    QString name;
    if (git_repository_head_detached(handle.repo) == 1) {
        char shortId[8] = {};
        git_oid_tostr(shortId, sizeof shortId, git_reference_target(head));
        name = QString::fromLatin1(shortId);
    } else {
        name = QString::fromUtf8(git_reference_shorthand(head));
    }
    git_reference_free(head);
    return name;
}

QStringList GitInfo::listFiles(const QString &workspace, int maxFiles)
{
    RepoHandle handle;
    if (!openRepository(workspace, handle) || git_repository_is_bare(handle.repo))
        return walkPlainFolder(workspace, maxFiles);

    const QString workdir = QDir(QString::fromUtf8(git_repository_workdir(handle.repo))).canonicalPath();
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
    if (git_repository_index(&index, handle.repo) == 0) {
        const size_t count = git_index_entrycount(index);
        for (size_t i = 0; i < count; ++i) {
            if (const git_index_entry *entry = git_index_get_byindex(index, i))
                addRepoPath(entry->path);
        }
        git_index_free(index);
    }

    git_status_options options = GIT_STATUS_OPTIONS_INIT;
    options.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
    options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
    git_status_list *status = nullptr;
    if (git_status_list_new(&status, handle.repo, &options) == 0) {
        const size_t count = git_status_list_entrycount(status);
        for (size_t i = 0; i < count; ++i) {
            const git_status_entry *entry = git_status_byindex(status, i);
            if (entry && (entry->status & GIT_STATUS_WT_NEW) && entry->index_to_workdir)
                addRepoPath(entry->index_to_workdir->new_file.path);
        }
        git_status_list_free(status);
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
