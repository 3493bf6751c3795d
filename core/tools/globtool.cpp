#include "tools/globtool.h"

#include "tools/filewalker.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>

namespace keen {

QString GlobTool::name() const
{
    return QStringLiteral("glob");
}

QString GlobTool::description() const
{
    return QStringLiteral(
        "Find files by path pattern, for example \"**/*.cpp\" or \"src/*.{h,cpp}\". `*` matches within one "
        "folder, `**` across folders. The pattern is matched against paths relative to `path` (default: the "
        "working directory). Files ignored by .gitignore are left out; at most 1000 files are returned.");
}

QJsonObject GlobTool::inputSchema() const
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("pattern"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("Glob pattern")}}},
             {QStringLiteral("path"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"),
                           QStringLiteral("Folder to search (default: working directory)")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("pattern")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString GlobTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("pattern")},
                                                  QStringLiteral("{\"pattern\":\"<glob pattern>\"}"));
        !error.isEmpty())
        return error;
    const QJsonValue path = input.value(QLatin1String("path"));
    if (!path.isUndefined() && !path.isNull() && !path.isString())
        return ToolInput::wrongType(tool, QStringLiteral("path"), GlobTool::tr("a string"));
    return ToolInput::unknownParameters(tool, input, {QStringLiteral("pattern"), QStringLiteral("path")});
}

ToolResult GlobTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString pattern = input.value(QLatin1String("pattern")).toString();
    QString base = input.value(QLatin1String("path")).toString();
    if (base.isEmpty())
        base = QStringLiteral(".");

    QString root;
    if (auto refused = ToolPermissions::authorizeRead(context, name(), base, &root))
        return *refused;
    if (!QFileInfo(root).isDir())
        return ToolResult::failure(GlobTool::tr("%1 is not a directory").arg(base));

    QString relativePattern = pattern;
    if (relativePattern.startsWith(QLatin1String("./")))
        relativePattern = relativePattern.mid(2);
    else if (relativePattern.startsWith(root + QLatin1Char('/')))
        relativePattern = relativePattern.mid(root.size() + 1);
    const QRegularExpression regex = FileWalker::globToRegex(relativePattern);
    if (!regex.isValid())
        return ToolResult::failure(GlobTool::tr("invalid glob pattern: %1").arg(pattern));

    QJsonArray files;
    bool truncated = false;
    FileWalker::walk(root, context, [&](const QString &absolute, const QString &relative) {
        if (!regex.match(relative).hasMatch())
            return true;
        if (files.size() >= MaxFiles) {
            truncated = true;
            return false;
        }
        files.append(absolute);
        return true;
    });
    if (context.cancel.isCancelled())
        return ToolResult::failure(GlobTool::tr("cancelled"));

    QJsonObject output{
        {QStringLiteral("pattern"), pattern},
        {QStringLiteral("base_path"), root},
        {QStringLiteral("files"), files},
        {QStringLiteral("count"), files.size()},
    };
    if (truncated)
        output.insert(QStringLiteral("truncated"), true);
    return ToolResult::success(output);
}

} // namespace keen
