#pragma once

#include <QJsonObject>
#include <QString>

namespace keen {

// How a tool call reads in one line (reference 6.5), where no translation applies: a headless run's
// progress on stderr and a subagent's activity on its delegate card. The window's cards use the same words,
// translated (ToolDisplay in ui/chat).
class ToolCallText
{
public:
    ToolCallText() = delete;

    // read_file -> Read, grep -> Search, call_mcp_tool -> MCP...; anything else title-cased (my_tool -> My
    // Tool).
    static QString label(const QString &toolName);
    // What the call acts on: the path, the pattern (and where), the command's first line, the URL, the
    // server/tool, the agents, the first question.
    static QString detail(const QString &toolName, const QJsonObject &input);
    // A bash call's whole command; empty for other input.
    static QString command(const QJsonObject &input);
    // "Read src/a.cpp": the label and, when there is one, the detail.
    static QString line(const QString &toolName, const QJsonObject &input);
};

} // namespace keen
