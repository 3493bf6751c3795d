#include "tools/filesystemguard.h"

#include "tools/gitinfo.h"
#include "tools/libgit2.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <mutex>

namespace keen {

namespace {

bool isUnder(const QString &path, const QString &root)
{
    if (root.isEmpty())
        return false;
    if (root == QLatin1String("/"))
        return path.startsWith(QLatin1Char('/'));
    return path == root || path.startsWith(root + QLatin1Char('/'));
}

// Canonical form of an absolute, cleaned path: the deepest existing ancestor goes through canonicalFilePath
// (which follows every symlink on the way) and the missing tail is appended as written.
QString canonicalize(const QString &cleanAbsolute)
{
    QString existing = cleanAbsolute;
    QStringList tail;
    while (!QFileInfo::exists(existing)) {
        // A dangling symlink does not "exist" but must not be treated as a plain new file name: resolve its
        // target so a link to a missing file outside the workspace stays outside.
        const QFileInfo info(existing);
        if (info.isSymLink()) {
            const QString target = QDir::cleanPath(info.absoluteDir().absoluteFilePath(info.symLinkTarget()));
            if (target != existing)
                return canonicalize(target) +
                       (tail.isEmpty() ? QString() : QLatin1Char('/') + tail.join(QLatin1Char('/')));
        }
        const int slash = existing.lastIndexOf(QLatin1Char('/'));
        if (slash < 0)
            return {};
        tail.prepend(existing.mid(slash + 1));
        existing = slash == 0 ? QStringLiteral("/") : existing.left(slash);
        if (existing == QLatin1String("/") && !QFileInfo::exists(existing))
            return {};
    }
    QString base = QFileInfo(existing).canonicalFilePath();
    if (base.isEmpty())
        return {};
    for (const QString &part : std::as_const(tail)) {
        if (!base.endsWith(QLatin1Char('/')))
            base += QLatin1Char('/');
        base += part;
    }
    return base;
}

QString canonicalOrClean(const QString &path)
{
    if (path.isEmpty())
        return {};
    const QString resolved = canonicalize(QDir::cleanPath(QDir(path).absolutePath()));
    return resolved.isEmpty() ? QDir::cleanPath(path) : resolved;
}

} // namespace

// The workspace's repository, opened on the first question about ignore rules: a folder outside any
// repository never loads libgit2 at all.
struct FilesystemGuard::Git
{
    std::mutex mutex;
    bool opened = false;
    const LibGit2 *api = nullptr;
    git_repository *repo = nullptr;
    QString workdir;   // canonical, without trailing slash
    QString loadError; // set when the workspace is in a repository but libgit2 could not be loaded

    ~Git()
    {
        if (repo)
            api->repository_free(repo);
    }

    void open(const QString &workspace)
    {
        opened = true;
        QString workTree;
        if (workspace.isEmpty() || GitInfo::findGitDirectory(workspace, &workTree).isEmpty())
            return;
        api = LibGit2::get();
        if (!api) {
            // The rules exist but cannot be read: every path of that work tree counts as ignored, so a
            // broken installation cannot expose what .gitignore keeps out (the reason names the problem).
            loadError = LibGit2::loadError();
            workdir = canonicalOrClean(workTree);
            return;
        }
        const QByteArray native = QFile::encodeName(workspace);
        if (api->repository_open_ext(&repo, native.constData(), 0, nullptr) != 0) {
            repo = nullptr;
            return;
        }
        if (const char *path = api->repository_workdir(repo))
            workdir = canonicalOrClean(QString::fromUtf8(path));
    }
};

FilesystemGuard::FilesystemGuard(const QString &workspace, const QString &dataDir, const QString &homeDir)
    : m_workspace(canonicalOrClean(workspace))
    , m_dataDir(canonicalOrClean(dataDir))
    , m_home(canonicalOrClean(homeDir.isEmpty() ? QDir::homePath() : homeDir))
    , m_git(std::make_unique<Git>())
{
    // Reference 2.3's never-blocked folders; its ~/.keen is this app's data folder.
    const QStringList dataExceptions = {QStringLiteral("bash"), QStringLiteral("memory"),
                                        QStringLiteral("skills"), QStringLiteral("mcp-artifacts"),
                                        QStringLiteral("web-fetch-artifacts")};
    if (!m_dataDir.isEmpty()) {
        for (const QString &name : dataExceptions)
            m_exceptions.append(m_dataDir + QLatin1Char('/') + name);
    }
    m_exceptions.append(m_home + QStringLiteral("/.agents/skills"));
    m_exceptions.append(m_home + QStringLiteral("/.keen/skills"));
    m_exceptions.append(m_home + QStringLiteral("/.claude/skills"));
}

FilesystemGuard::~FilesystemGuard() = default;

QString FilesystemGuard::resolvePath(const QString &path) const
{
    QString trimmed = path.trimmed();
    if (trimmed.isEmpty() || trimmed.contains(QChar(0)))
        return {};
    if (trimmed == QLatin1String("~") || trimmed.startsWith(QLatin1String("~/")))
        trimmed = m_home + trimmed.mid(1);
    const QString absolute =
        QDir::isAbsolutePath(trimmed) ? trimmed : m_workspace + QLatin1Char('/') + trimmed;
    return canonicalize(QDir::cleanPath(absolute));
}

bool FilesystemGuard::isGitIgnored(const QString &resolvedPath) const
{
    std::lock_guard lock(m_git->mutex);
    if (!m_git->opened)
        m_git->open(m_workspace);
    if (m_git->workdir.isEmpty() || !isUnder(resolvedPath, m_git->workdir))
        return false;
    const QString relative = resolvedPath.mid(m_git->workdir.size() + 1);
    if (relative.isEmpty())
        return false;
    if (!m_git->loadError.isEmpty())
        return true;
    if (!m_git->repo)
        return false;
    int ignored = 0;
    const QByteArray native = relative.toUtf8();
    if (m_git->api->ignore_path_is_ignored(&ignored, m_git->repo, native.constData()) != 0)
        return false;
    return ignored == 1;
}

QString FilesystemGuard::gitLoadError() const
{
    std::lock_guard lock(m_git->mutex);
    return m_git->loadError;
}

bool FilesystemGuard::isSystemPath(const QString &resolved) const
{
    static const QStringList prefixes = {
        QStringLiteral("/etc"), QStringLiteral("/usr"),   QStringLiteral("/bin"),  QStringLiteral("/sbin"),
        QStringLiteral("/lib"), QStringLiteral("/lib64"), QStringLiteral("/proc"), QStringLiteral("/sys"),
        QStringLiteral("/dev"), QStringLiteral("/root"),
    };
    for (const QString &prefix : prefixes) {
        if (isUnder(resolved, prefix))
            return true;
    }
    return false;
}

bool FilesystemGuard::isHomeDotPath(const QString &resolved) const
{
    if (m_home.isEmpty() || m_home == QLatin1String("/") || !isUnder(resolved, m_home) || resolved == m_home)
        return false;
    const QString rest = resolved.mid(m_home.size() + 1);
    if (!rest.startsWith(QLatin1Char('.')))
        return false;
    // A workspace that itself lives in a home dot-folder (~/.dotfiles) may still be worked on; the folders
    // around it stay blocked.
    const QString topLevel = m_home + QLatin1Char('/') + rest.section(QLatin1Char('/'), 0, 0);
    if (isUnder(m_workspace, topLevel) && isUnder(resolved, m_workspace))
        return false;
    return true;
}

bool FilesystemGuard::isException(const QString &resolved) const
{
    for (const QString &root : m_exceptions) {
        if (isUnder(resolved, root))
            return true;
    }
    return false;
}

FilesystemGuard::Check FilesystemGuard::checkPath(const QString &path, Operation operation) const
{
    Check check;
    check.resolvedPath = resolvePath(path);
    if (check.resolvedPath.isEmpty()) {
        check.reason = FilesystemGuard::tr("the path cannot be resolved");
        return check;
    }
    const QString &resolved = check.resolvedPath;
    check.insideWorkspace = isUnder(resolved, m_workspace);
    const bool exception = isException(resolved);
    check.escapesWorkspace = !check.insideWorkspace && !exception;

    if (!exception) {
        if (isSystemPath(resolved)) {
            check.reason = FilesystemGuard::tr("system folders are off limits");
            return check;
        }
        if (isHomeDotPath(resolved)) {
            check.reason = FilesystemGuard::tr("hidden files and folders in the home folder are off limits");
            return check;
        }
        if (isGitIgnored(resolved)) {
            const QString loadError = gitLoadError();
            check.reason =
                loadError.isEmpty()
                    ? FilesystemGuard::tr("the path is ignored by .gitignore")
                    : FilesystemGuard::tr("the .gitignore rules cannot be checked: %1").arg(loadError);
            return check;
        }
    }

    switch (operation) {
    case Operation::Read:
        if (exception || check.insideWorkspace) {
            check.decision = Decision::Granted;
        } else {
            check.decision = Decision::Pending;
            check.reason = FilesystemGuard::tr("reading outside the workspace needs permission");
        }
        return check;
    case Operation::Write:
    case Operation::Edit:
        check.decision = Decision::Pending;
        check.reason = FilesystemGuard::tr("changing files needs permission");
        return check;
    }
    check.reason = FilesystemGuard::tr("unknown operation");
    return check;
}

} // namespace keen
