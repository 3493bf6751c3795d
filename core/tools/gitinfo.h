#pragma once

#include <QString>
#include <QStringList>

namespace keen {

// Read-only facts about the git repository around a folder. The branch is read from the repository's files;
// the file list goes through libgit2 (loaded on first use, see LibGit2).
class GitInfo
{
public:
    // The repository folder of the work tree containing path, found as git finds it: the nearest folder from
    // path up that has a .git folder, or a .git file naming one ("gitdir: ..." in linked work trees and
    // submodules). workTree, when given, receives the folder holding that .git. Empty outside a repository.
    static QString findGitDirectory(const QString &path, QString *workTree = nullptr);

    // The checked-out branch of the repository containing path ("main"), the short commit id when HEAD is
    // detached, or an empty string outside a repository.
    static QString currentBranch(const QString &path);

    // Files under workspace that are tracked or untracked-but-not-ignored, relative to workspace with '/'
    // separators, sorted, at most maxFiles. Outside a repository: every regular file that is not in a
    // dot-folder. Used for @ completion.
    static QStringList listFiles(const QString &workspace, int maxFiles = 20000);
};

} // namespace keen
