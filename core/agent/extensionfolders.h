#pragma once

#include <QString>
#include <QStringList>

namespace keen {

// Where skills and subagent profiles live (reference 7.2, 7.3), searched in this order so the first
// definition of a name wins: the project's .agents/<kind>, .keen/<kind> and .claude/<kind>, then the
// person's ~/.agents/<kind>, this app's <dataDir>/<kind>, and ~/.keen/<kind> and ~/.claude/<kind> (written
// for the reference agent and for Claude Code). Empty arguments leave their folders out.
class ExtensionFolders
{
public:
    static QStringList roots(const QString &kind, const QString &workspace, const QString &dataDir,
                             const QString &home);
};

} // namespace keen
