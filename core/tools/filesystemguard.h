#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <memory>

namespace keen {

// Decides whether a tool may touch a path (reference 2.3). Immutable after construction apart from its
// libgit2 handle (opened on first use), which is guarded, so one guard can serve the worker thread and the
// UI.
class FilesystemGuard
{
    Q_DECLARE_TR_FUNCTIONS(FilesystemGuard)

public:
    enum class Operation { Read, Write, Edit };
    enum class Decision { Denied, Granted, Pending };

    struct Check
    {
        Decision decision = Decision::Denied;
        QString reason;       // why it was denied, or why a person must be asked
        QString resolvedPath; // absolute, cleaned, symlinks resolved; empty when unresolvable
        bool insideWorkspace = false;
        // Outside the workspace and outside the app's own folders (the exceptions): `..`, an absolute path
        // elsewhere, or a link that leads out. Only a person may allow it, one request at a time.
        bool escapesWorkspace = false;

        bool denied() const { return decision == Decision::Denied; }
        bool granted() const { return decision == Decision::Granted; }
        bool pending() const { return decision == Decision::Pending; }
    };

    // workspace: the folder the agent works in. dataDir: the app's data folder (stands in for the reference's
    // ~/.keen, so its bash, memory, skills and artifact folders stay reachable). homeDir: for tests.
    FilesystemGuard(const QString &workspace, const QString &dataDir, const QString &homeDir = QString());
    ~FilesystemGuard();
    FilesystemGuard(const FilesystemGuard &) = delete;
    FilesystemGuard &operator=(const FilesystemGuard &) = delete;

    Check checkPath(const QString &path, Operation operation) const;

    // Joins a relative path to the workspace, cleans `..` and resolves symlinks through the nearest existing
    // ancestor. Empty when the path cannot be resolved.
    QString resolvePath(const QString &path) const;

    // True when git's ignore rules of the workspace repository match the absolute, resolved path; also for
    // every path of the repository's work tree when libgit2 cannot be loaded (gitLoadError() says why).
    bool isGitIgnored(const QString &resolvedPath) const;
    QString gitLoadError() const;

    QString workspace() const { return m_workspace; }
    QString dataDir() const { return m_dataDir; }

private:
    bool isSystemPath(const QString &resolved) const;
    bool isHomeDotPath(const QString &resolved) const;
    bool isException(const QString &resolved) const;

    QString m_workspace; // canonical
    QString m_dataDir;   // canonical where it exists
    QString m_home;      // canonical
    QStringList m_exceptions;
    struct Git;
    std::unique_ptr<Git> m_git;
};

} // namespace keen
