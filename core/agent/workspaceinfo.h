#pragma once

#include <QString>
#include <QStringList>

namespace keen {

// What the window may learn about the workspace folder: its git branch and its files for @ completion. The UI
// asks here instead of reaching into tools/ (DESIGN.md, Layout). Both calls read the disk: worker threads
// only.
class WorkspaceInfo
{
public:
    // The checked-out branch ("main"), the short commit id when HEAD is detached, empty outside a repository.
    static QString currentBranch(const QString &workspace);
    // Tracked and untracked-but-not-ignored files relative to workspace, sorted, at most maxFiles.
    static QStringList listFiles(const QString &workspace, int maxFiles);
};

} // namespace keen
