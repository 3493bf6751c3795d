#include "agent/workspaceinfo.h"

#include "tools/gitinfo.h"

namespace keen {

QString WorkspaceInfo::currentBranch(const QString &workspace)
{
    return GitInfo::currentBranch(workspace);
}

QStringList WorkspaceInfo::listFiles(const QString &workspace, int maxFiles)
{
    return GitInfo::listFiles(workspace, maxFiles);
}

} // namespace keen
