#include "mcp/callmcptooltool.h"

#include "mcp/mcphub.h"
#include "mcp/mcpskillfiles.h"
#include "tools/textartifact.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace keen {

namespace {

const QString Required = QStringLiteral("{\"server\":\"<server>\",\"tool\":\"<tool>\",\"arguments\":{...}}");

// The JSON type names of a value, as a schema's "type" writes them.
bool hasType(const QJsonValue &value, const QString &type)
{
    if (type == QLatin1String("string"))
        return value.isString();
    if (type == QLatin1String("number"))
        return value.isDouble();
    if (type == QLatin1String("integer"))
        return value.isDouble() && value.toDouble() == double(value.toInteger());
    if (type == QLatin1String("boolean"))
        return value.isBool();
    if (type == QLatin1String("object"))
        return value.isObject();
    if (type == QLatin1String("array"))
        return value.isArray();
    if (type == QLatin1String("null"))
        return value.isNull();
    return true; // a type this check does not know: the server decides
}

QString typeNames(const QJsonValue &type)
{
    if (type.isArray()) {
        QStringList names;
        for (const QJsonValue &name : type.toArray())
            names.append(name.toString());
        return names.join(QStringLiteral(" or "));
    }
    return type.toString();
}

// The key of a call in the session's cache: the same tool with the same arguments, whatever their order.
QString cacheKey(const QString &server, const QString &tool, const QJsonObject &arguments)
{
    return server + QLatin1Char('\n') + tool + QLatin1Char('\n') +
           QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Compact));
}

} // namespace

CallMcpToolTool::CallMcpToolTool(std::shared_ptr<McpHub> hub)
    : m_hub(std::move(hub))
{}

QString CallMcpToolTool::name() const
{
    return QStringLiteral("call_mcp_tool");
}

QString CallMcpToolTool::description() const
{
    return QStringLiteral(
        "Call a tool of one of the user's MCP servers. Each server is a skill named mcp:<server>: read its "
        "SKILL.md for the tools it offers, and a tool's schema file before calling it the first time. "
        "Give the arguments as an object that fits the tool's input schema. Each call needs the user's "
        "permission. Results over 128 KB are cut and the whole text saved to a file you can read with "
        "read_file. Set checkCache to true to reuse this session's result of the same call.");
}

QJsonObject CallMcpToolTool::inputSchema() const
{
    auto property = [](const char *type, const char *description) {
        return QJsonObject{{QStringLiteral("type"), QLatin1String(type)},
                           {QStringLiteral("description"), QLatin1String(description)}};
    };
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("server"), property("string", "The MCP server's name (the skill mcp:<server>)")},
             {QStringLiteral("tool"), property("string", "The tool's name, as the server lists it")},
             {QStringLiteral("arguments"),
              property("object", "The tool's arguments, fitting its input schema")},
             {QStringLiteral("checkCache"),
              property("boolean", "Return this session's earlier result of the same call, if any")},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("server"), QStringLiteral("tool")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString CallMcpToolTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(
            tool, input, {QStringLiteral("server"), QStringLiteral("tool")}, Required);
        !error.isEmpty())
        return error;
    if (QString error =
            ToolInput::unknownParameters(tool, input,
                                         {QStringLiteral("server"), QStringLiteral("tool"),
                                          QStringLiteral("arguments"), QStringLiteral("checkCache")});
        !error.isEmpty())
        return error;
    const QJsonValue arguments = input.value(QLatin1String("arguments"));
    if (!arguments.isUndefined() && !arguments.isNull() && !arguments.isObject())
        return ToolInput::wrongType(tool, QStringLiteral("arguments"), CallMcpToolTool::tr("an object"));
    const QJsonValue checkCache = input.value(QLatin1String("checkCache"));
    if (!checkCache.isUndefined() && !checkCache.isNull() && !checkCache.isBool())
        return ToolInput::wrongType(tool, QStringLiteral("checkCache"), CallMcpToolTool::tr("a boolean"));
    return {};
}

QString CallMcpToolTool::schemaProblem(const QJsonObject &schema, const QJsonObject &arguments)
{
    const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    QStringList missing;
    for (const QJsonValue &required : schema.value(QLatin1String("required")).toArray()) {
        if (!arguments.contains(required.toString()))
            missing.append(required.toString());
    }
    if (!missing.isEmpty())
        return tr("missing required argument(s): %1").arg(missing.join(QStringLiteral(", ")));
    for (auto it = arguments.constBegin(); it != arguments.constEnd(); ++it) {
        if (!properties.contains(it.key())) {
            if (schema.value(QLatin1String("additionalProperties")) == QJsonValue(false))
                return tr("unknown argument \"%1\"; the tool takes %2")
                    .arg(it.key(), properties.keys().join(QStringLiteral(", ")));
            continue;
        }
        const QJsonObject property = properties.value(it.key()).toObject();
        const QJsonValue type = property.value(QLatin1String("type"));
        if (type.isString() || type.isArray()) {
            const QJsonArray types = type.isArray() ? type.toArray() : QJsonArray{type};
            const bool fits = std::any_of(types.begin(), types.end(), [&](const QJsonValue &name) {
                return hasType(it.value(), name.toString());
            });
            if (!fits)
                return tr("the argument \"%1\" must be %2").arg(it.key(), typeNames(type));
        }
        const QJsonArray allowed = property.value(QLatin1String("enum")).toArray();
        if (!allowed.isEmpty() && !allowed.contains(it.value())) {
            QStringList values;
            for (const QJsonValue &value : allowed)
                values.append(
                    QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
                        .mid(1)
                        .chopped(1));
            return tr("the argument \"%1\" must be one of %2")
                .arg(it.key(), values.join(QStringLiteral(", ")));
        }
    }
    return {};
}

QString CallMcpToolTool::resultText(const QJsonObject &result)
{
    QStringList parts;
    for (const QJsonValue &value : result.value(QLatin1String("content")).toArray()) {
        const QJsonObject part = value.toObject();
        const QString type = part.value(QLatin1String("type")).toString();
        if (type == QLatin1String("text")) {
            parts.append(part.value(QLatin1String("text")).toString());
        } else if (type == QLatin1String("resource")) {
            const QJsonObject resource = part.value(QLatin1String("resource")).toObject();
            const QString uri = resource.value(QLatin1String("uri")).toString();
            if (resource.contains(QLatin1String("text")))
                parts.append(QStringLiteral("[resource %1]\n").arg(uri) +
                             resource.value(QLatin1String("text")).toString());
            else
                parts.append(tr("[binary resource %1, %2]")
                                 .arg(uri, resource.value(QLatin1String("mimeType")).toString()));
        } else if (type == QLatin1String("resource_link")) {
            parts.append(tr("[link %1: %2]")
                             .arg(part.value(QLatin1String("name")).toString(),
                                  part.value(QLatin1String("uri")).toString()));
        } else if (type == QLatin1String("image") || type == QLatin1String("audio")) {
            // base64 data would only fill the context; the model learns that there was one.
            parts.append(tr("[%1, %2, %3 bytes of base64, not shown]")
                             .arg(type, part.value(QLatin1String("mimeType")).toString())
                             .arg(part.value(QLatin1String("data")).toString().size()));
        }
    }
    if (parts.isEmpty() && result.contains(QLatin1String("structuredContent")))
        return QString::fromUtf8(QJsonDocument(result.value(QLatin1String("structuredContent")).toObject())
                                     .toJson(QJsonDocument::Indented));
    return parts.join(QStringLiteral("\n\n"));
}

ToolResult CallMcpToolTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString server = input.value(QLatin1String("server")).toString().trimmed();
    const QString toolName = input.value(QLatin1String("tool")).toString().trimmed();
    const QJsonObject arguments = input.value(QLatin1String("arguments")).toObject();
    const QString key = cacheKey(server, toolName, arguments);

    if (input.value(QLatin1String("checkCache")).toBool()) {
        const QMutexLocker lock(&m_cacheMutex);
        if (const QJsonObject *cached = m_cache.object(key)) {
            QJsonObject output = *cached;
            output.insert(QStringLiteral("cached"), true);
            return ToolResult::success(output);
        }
    }

    const Result<McpHub::ServerStatus> status = m_hub->readyServer(server, context.cancel);
    if (!status)
        return ToolResult::failure(status.error());
    const auto found = std::find_if(status->tools.cbegin(), status->tools.cend(),
                                    [&](const McpConnection::Tool &tool) { return tool.name == toolName; });
    if (found == status->tools.cend()) {
        QStringList names;
        for (const McpConnection::Tool &tool : status->tools)
            names.append(tool.name);
        return ToolResult::failure(
            tr("The MCP server %1 has no tool named %2. Its tools: %3 (see the skill %4).")
                .arg(server, toolName, names.isEmpty() ? tr("none") : names.join(QStringLiteral(", ")),
                     McpSkillFiles::skillName(server)));
    }
    if (const QString problem = schemaProblem(found->inputSchema, arguments); !problem.isEmpty())
        return ToolResult::failure(ToolInput::invalid(
            name(),
            tr("%1/%2: %3. Its input schema: %4")
                .arg(server, toolName, problem,
                     QString::fromUtf8(QJsonDocument(found->inputSchema).toJson(QJsonDocument::Compact)))));
    if (context.mode == AgentMode::Plan && !found->readOnly)
        return ToolResult::failure(
            tr("%1/%2 may change things, and plan mode allows only MCP tools their server marks read-only; "
               "ask the user to switch to build mode to call it.")
                .arg(server, toolName));

    PermissionRequest request;
    request.toolName = name();
    request.path = server + QLatin1Char('/') + toolName;
    if (!arguments.isEmpty())
        request.summary =
            QString::fromUtf8(QJsonDocument(arguments).toJson(QJsonDocument::Indented)).trimmed();
    const PermissionDecision decision = ToolPermissions::ask(context, request);
    if (decision != PermissionDecision::Allow)
        return ToolPermissions::refusal(decision, request, context);

    const Result<QJsonObject> called = m_hub->callTool(server, toolName, arguments, context.cancel);
    if (!called)
        return ToolResult::failure(called.error());
    const QString text = resultText(*called);
    if (called->value(QLatin1String("isError")).toBool())
        return ToolResult::failure(
            text.isEmpty() ? tr("%1/%2 reported an error without a message.").arg(server, toolName) : text);

    QJsonObject output{{QStringLiteral("server"), server}, {QStringLiteral("tool"), toolName}};
    const QByteArray utf8 = text.toUtf8();
    if (utf8.size() <= MaxInlineBytes) {
        output.insert(QStringLiteral("content"), text);
        if (utf8.size() <= MaxCachedBytes) {
            const QMutexLocker lock(&m_cacheMutex);
            m_cache.insert(key, new QJsonObject(output));
        }
        return ToolResult::success(output);
    }
    QString shown = TextArtifact::head(utf8, MaxInlineBytes);
    const QString path = TextArtifact::path(context.dataDir, QStringLiteral("mcp-artifacts"),
                                            QStringLiteral("keen-mcp"), key, text);
    if (const Result<void> saved = TextArtifact::save(path, utf8); saved) {
        output.insert(QStringLiteral("artifact_path"), path);
        shown += tr("\n\n[Truncated: this is the first %1 KB of %2 KB. The whole result is in %3; read the "
                    "rest with read_file and its offset and limit.]")
                     .arg(shown.toUtf8().size() / 1024)
                     .arg(utf8.size() / 1024)
                     .arg(path);
    } else {
        shown += tr("\n\n[Truncated: this is the first %1 KB of %2 KB; the whole result could not be saved "
                    "(%3).]")
                     .arg(shown.toUtf8().size() / 1024)
                     .arg(utf8.size() / 1024)
                     .arg(saved.error());
    }
    output.insert(QStringLiteral("content"), shown);
    output.insert(QStringLiteral("truncated"), true);
    return ToolResult::success(output);
}

} // namespace keen
