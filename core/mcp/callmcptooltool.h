#pragma once

#include "tools/tool.h"

#include <QCache>
#include <QCoreApplication>
#include <QMutex>

#include <memory>

namespace keen {

class McpHub;

// call_mcp_tool (reference 2.2): calls a tool of a configured MCP server. The arguments are checked against
// the tool's input schema first (required arguments, the types of the given ones), so the model learns its
// mistake without a round trip. The person is asked, with the server, the tool and the arguments; plan mode
// allows only tools the server marks read-only. Text content comes back inline up to 128 KB, the rest in a
// file under <data dir>/mcp-artifacts; small results are kept for the session, so checkCache can answer
// without asking or calling again.
class CallMcpToolTool final : public Tool
{
    Q_DECLARE_TR_FUNCTIONS(CallMcpToolTool)

public:
    static constexpr qsizetype MaxInlineBytes = 128 * 1024;
    static constexpr qsizetype MaxCachedBytes = 16 * 1024;
    static constexpr int CacheEntries = 256;

    explicit CallMcpToolTool(std::shared_ptr<McpHub> hub);

    QString name() const override;
    QString description() const override;
    QJsonObject inputSchema() const override;
    QString validateInput(const QJsonObject &input) const override;
    ToolResult execute(const QJsonObject &input, ToolContext &context) override;

    // Why arguments do not fit schema (a JSON Schema object), or empty: missing required properties, a given
    // property of the wrong type, a value outside its enum, unknown properties where the schema forbids them.
    static QString schemaProblem(const QJsonObject &schema, const QJsonObject &arguments);
    // The text of an MCP CallToolResult: its text parts, resources' text, a line for each picture or link,
    // and structuredContent as JSON when there is nothing else.
    static QString resultText(const QJsonObject &result);

private:
    std::shared_ptr<McpHub> m_hub;
    mutable QMutex m_cacheMutex;
    QCache<QString, QJsonObject> m_cache{CacheEntries};
};

} // namespace keen
