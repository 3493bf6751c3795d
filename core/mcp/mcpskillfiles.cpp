#include "mcp/mcpskillfiles.h"

#include "base/privatefolder.h"
#include "base/regularfile.h"
#include "tools/textartifact.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace keen {

namespace {

constexpr int DescriptionToolNames = 12;
constexpr qsizetype ToolDescriptionChars = 400;

QByteArray existing(const QString &path)
{
    // Never waits on a FIFO in the skill's place; whatever is there is replaced by the server's skill.
    return RegularFile::read(path, 4 * 1024 * 1024).bytes;
}

Result<void> writeIfChanged(const QString &path, const QByteArray &bytes)
{
    if (existing(path) == bytes)
        return {};
    if (const Result<void> saved = TextArtifact::save(path, bytes); !saved)
        return Result<void>::failure(McpSkillFiles::tr("could not write %1: %2").arg(path, saved.error()));
    return {};
}

// One line, for the list and the front matter.
QString oneLine(const QString &text, qsizetype maxChars)
{
    QString line = text.simplified();
    if (line.size() > maxChars)
        line = line.left(maxChars - 1) + QStringLiteral("…");
    return line;
}

QString skillText(const QString &server, const QString &folder, const QList<McpConnection::Tool> &tools)
{
    QStringList names;
    for (const McpConnection::Tool &tool : tools)
        names.append(tool.name);
    QString list = names.mid(0, DescriptionToolNames).join(QStringLiteral(", "));
    if (names.size() > DescriptionToolNames)
        list += QStringLiteral(", …");
    // The front matter is one line per field: no line breaks, no quotes to escape.
    const QString description =
        names.isEmpty()
            ? QStringLiteral("Tools of the MCP server %1 (it offers none at the moment).").arg(server)
            : QStringLiteral("Tools of the MCP server %1, called with call_mcp_tool: %2.").arg(server, list);
    QString text = QStringLiteral("---\nname: %1\ndescription: %2\n---\n\n")
                       .arg(McpSkillFiles::skillName(server), description);
    text += QStringLiteral("# MCP server %1\n\n").arg(server);
    text += QStringLiteral(
                "Call a tool of this server with call_mcp_tool: "
                "{\"server\": \"%1\", \"tool\": \"<name>\", \"arguments\": {...}}. Before the first call "
                "of a tool, read its input schema (the file named after it) and give every required "
                "argument.\n\n")
                .arg(server);
    for (const McpConnection::Tool &tool : tools) {
        text += QStringLiteral("- `%1`").arg(tool.name);
        if (const QString about = oneLine(tool.description, ToolDescriptionChars); !about.isEmpty())
            text += QStringLiteral(": ") + about;
        const QStringList required =
            QVariant(tool.inputSchema.value(QLatin1String("required")).toArray().toVariantList())
                .toStringList();
        if (!required.isEmpty())
            text += QStringLiteral(" Required: %1.").arg(required.join(QStringLiteral(", ")));
        if (tool.readOnly)
            text += QStringLiteral(" (read-only)");
        text += QStringLiteral("\n  Schema: %1\n")
                    .arg(QDir(folder).filePath(McpSkillFiles::schemaFileName(tool.name)));
    }
    return text;
}

} // namespace

QString McpSkillFiles::skillName(const QString &server)
{
    return QStringLiteral("mcp:") + server;
}

QString McpSkillFiles::folder(const QString &dataDir, const QString &server)
{
    return QDir(dataDir).filePath(QStringLiteral("skills/") + skillName(server));
}

QString McpSkillFiles::schemaFileName(const QString &tool)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]"));
    QString name = tool;
    name.replace(unsafe, QStringLiteral("_"));
    if (name.startsWith(QLatin1Char('.')))
        name.prepend(QLatin1Char('_'));
    return name.left(120) + QStringLiteral(".schema.json");
}

Result<void> McpSkillFiles::write(const QString &dataDir, const QString &server,
                                  const QList<McpConnection::Tool> &tools)
{
    const QString dir = folder(dataDir, server);
    if (const Result<void> made = PrivateFolder::ensure(dir); !made)
        return made;
    QStringList schemaFiles;
    for (const McpConnection::Tool &tool : tools) {
        const QString fileName = schemaFileName(tool.name);
        schemaFiles.append(fileName);
        const QJsonObject schema{{QStringLiteral("tool"), tool.name},
                                 {QStringLiteral("description"), tool.description},
                                 {QStringLiteral("inputSchema"), tool.inputSchema}};
        if (const Result<void> written = writeIfChanged(
                QDir(dir).filePath(fileName), QJsonDocument(schema).toJson(QJsonDocument::Indented));
            !written)
            return written;
    }
    for (const QString &old : QDir(dir).entryList({QStringLiteral("*.schema.json")}, QDir::Files)) {
        if (!schemaFiles.contains(old))
            QFile::remove(QDir(dir).filePath(old));
    }
    return writeIfChanged(QDir(dir).filePath(QStringLiteral("SKILL.md")),
                          skillText(server, dir, tools).toUtf8());
}

void McpSkillFiles::keepOnly(const QString &dataDir, const QList<McpServerConfig> &servers)
{
    QStringList kept;
    for (const McpServerConfig &server : servers) {
        if (!server.disabled && server.problem.isEmpty())
            kept.append(server.name);
    }
    removeOthers(dataDir, kept);
}

void McpSkillFiles::removeOthers(const QString &dataDir, const QStringList &keep)
{
    QDir skills(QDir(dataDir).filePath(QStringLiteral("skills")));
    for (const QString &name :
         skills.entryList({QStringLiteral("mcp:*")}, QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (keep.contains(name.mid(4)))
            continue;
        QDir dir(skills.filePath(name));
        // Only what this class writes: a folder of someone else's is left alone.
        for (const QString &file :
             dir.entryList({QStringLiteral("*.schema.json"), QStringLiteral("SKILL.md")}, QDir::Files))
            dir.remove(file);
        skills.rmdir(name);
    }
}

} // namespace keen
