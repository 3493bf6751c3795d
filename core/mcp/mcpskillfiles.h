#pragma once

#include "base/result.h"
#include "mcp/mcpconnection.h"
#include "mcp/mcpserverconfig.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

namespace keen {

// The skill an MCP server becomes (reference 7.2): <dataDir>/skills/mcp:<server>/SKILL.md lists its tools and
// how to call them with call_mcp_tool, and <tool>.schema.json beside it holds each tool's input schema, so
// the model reads the schema of the tool it is about to use and not all of them on every turn.
class McpSkillFiles
{
    Q_DECLARE_TR_FUNCTIONS(McpSkillFiles)

public:
    McpSkillFiles() = delete;

    static QString skillName(const QString &server); // mcp:<server>
    static QString folder(const QString &dataDir, const QString &server);
    static QString schemaFileName(const QString &tool);

    // Writes the skill's files when they differ from what is there; schema files of tools gone are removed.
    static Result<void> write(const QString &dataDir, const QString &server,
                              const QList<McpConnection::Tool> &tools);
    // Removes the skills of servers no longer configured (folders named mcp:<name> not in keep).
    static void removeOthers(const QString &dataDir, const QStringList &keep);
    // The same for a configuration: only the servers that can start (no problem, not disabled) keep theirs.
    static void keepOnly(const QString &dataDir, const QList<McpServerConfig> &servers);
};

} // namespace keen
