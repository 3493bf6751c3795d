#pragma once

#include <QString>
#include <QStringList>

namespace keen {

// Read-only facts about the git repository around a folder, through libgit2.
class GitInfo
{
public:
    // libgit2 needs one global init before any call; safe to call from any thread, any number of times.
    static void ensureInitialized();

    // The checked-out branch of the repository containing path ("main"), the short commit id when HEAD is
    // detached, or an empty string outside a repository.
    static QString currentBranch(const QString &path);

    // Files under workspace that are tracked or untracked-but-not-ignored, relative to workspace with '/'
    // separators, sorted, at most maxFiles. Outside a repository: every regular file that is not in a
    // dot-folder. Used for @ completion.
    static QStringList listFiles(const QString &workspace, int maxFiles = 20000);
};

} // namespace keen
