#include "writefiletool.h"

#include "secretpatterns.h"
#include "toolinput.h"
#include "toolpermissions.h"
#include "unifieddiff.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QSaveFile>

namespace keen {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("WriteFileTool", text);
}

const QString Required = QStringLiteral("{\"path\":\"<file path>\",\"content\":\"<full file content>\"}");

} // namespace

QString WriteFileTool::name() const
{
    return QStringLiteral("write_file");
}

QString WriteFileTool::description() const
{
    return QStringLiteral(
        "Create a file, or replace a file's whole content. Missing parent folders are created. The write is "
        "atomic. Use edit_file to change part of an existing file.");
}

QJsonObject WriteFileTool::inputSchema() const
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("path"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("File to write")}}},
             {QStringLiteral("content"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("The complete new content")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("path"), QStringLiteral("content")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString WriteFileTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("path")}, Required);
        !error.isEmpty())
        return error;
    const QJsonValue content = input.value(QLatin1String("content"));
    if (content.isUndefined() || content.isNull())
        return ToolInput::missingRequired(tool, QStringLiteral("content"), Required);
    if (!content.isString())
        return ToolInput::wrongType(tool, QStringLiteral("content"), tr("a string"));
    return ToolInput::unknownParameters(tool, input, {QStringLiteral("path"), QStringLiteral("content")});
}

ToolResult WriteFileTool::execute(const QJsonObject &input, ToolContext &context)
{
    if (auto refused = ToolPermissions::refuseInPlanMode(context))
        return *refused;
    const QString path = input.value(QLatin1String("path")).toString();
    const QByteArray content = input.value(QLatin1String("content")).toString().toUtf8();
    const FilesystemGuard::Check check =
        ToolPermissions::checkPath(context, path, FilesystemGuard::Operation::Write);
    if (check.denied())
        return ToolResult::failure(tr("Access denied to %1: %2.").arg(path, check.reason));
    const QString resolved = check.resolvedPath;
    const QFileInfo info(resolved);
    if (info.isDir())
        return ToolResult::failure(tr("%1 is a directory").arg(path));
    if (SecretPatterns::isMemoryFile(resolved)) {
        if (const QString kind = SecretPatterns::find(QString::fromUtf8(content)); !kind.isEmpty())
            return ToolResult::failure(tr("refusing to store a secret (%1) in a memory file").arg(kind));
    }

    const bool created = !info.exists();
    QByteArray old;
    if (!created) {
        QFile existing(resolved);
        if (existing.open(QIODevice::ReadOnly))
            old = existing.read(64 * 1024 * 1024);
    }
    QString relative = QDir(context.workspace).relativeFilePath(resolved);
    if (relative.startsWith(QLatin1String("..")))
        relative = resolved;

    PermissionRequest request;
    request.toolName = name();
    request.path = path;
    request.diff = old.contains('\0') ? tr("Binary file %1 will be replaced.").arg(relative)
                                      : UnifiedDiff::make(relative, QString::fromUtf8(old),
                                                          QString::fromUtf8(content), created);
    if (auto refused = ToolPermissions::authorize(context, request, FilesystemGuard::Operation::Write)) {
        refused->diff = request.diff;
        return *refused;
    }

    if (!QDir().mkpath(info.absolutePath()))
        return ToolResult::failure(tr("cannot create the folder %1").arg(info.absolutePath()));
    QSaveFile file(resolved);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size() || !file.commit())
        return ToolResult::failure(tr("cannot write %1: %2").arg(path, file.errorString()));

    ToolResult result = ToolResult::success(QJsonObject{
        {QStringLiteral("path"), resolved},
        {QStringLiteral("bytes_written"), qint64(content.size())},
        {QStringLiteral("created"), created},
    });
    result.diff = request.diff;
    return result;
}

} // namespace keen
