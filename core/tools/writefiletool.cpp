#include "tools/writefiletool.h"

#include "base/regularfile.h"
#include "tools/atomicfilewriter.h"
#include "tools/toolinput.h"
#include "tools/unifieddiff.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

namespace keen {

namespace {

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
        return ToolInput::wrongType(tool, QStringLiteral("content"), WriteFileTool::tr("a string"));
    return ToolInput::unknownParameters(tool, input, {QStringLiteral("path"), QStringLiteral("content")});
}

ToolResult WriteFileTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString path = input.value(QLatin1String("path")).toString();
    const QByteArray content = input.value(QLatin1String("content")).toString().toUtf8();
    QString resolved;
    if (auto refused =
            AtomicFileWriter::checkTarget(context, path, FilesystemGuard::Operation::Write, &resolved))
        return *refused;
    const QFileInfo info(resolved);
    if (info.isDir())
        return ToolResult::failure(WriteFileTool::tr("%1 is a directory").arg(path));
    if (auto refused = AtomicFileWriter::refuseSecret(resolved, content))
        return *refused;

    const bool created = !info.exists();
    QByteArray old;
    if (!created) {
        // A FIFO or device at the path would block the read of the old content, or never end.
        const RegularFile::Read existing = RegularFile::readHead(resolved, 64 * 1024 * 1024);
        if (existing.problem == RegularFile::Problem::NotRegular)
            return ToolResult::failure(WriteFileTool::tr("%1 is not a regular file").arg(path));
        old = existing.bytes;
    }
    const QString relative = AtomicFileWriter::shownPath(context, resolved);
    // The same bytes again change nothing: no permission card asking to "write" them, no new mtime.
    if (!created && info.size() == content.size() && old == content) {
        return AtomicFileWriter::written(
            QJsonObject{
                {QStringLiteral("path"), resolved},
                {QStringLiteral("bytes_written"), 0},
                {QStringLiteral("created"), false},
                {QStringLiteral("unchanged"), true},
            },
            {});
    }

    PermissionRequest request;
    request.toolName = name();
    request.path = path;
    // A card with nothing under its title reads as broken: a change without diff lines says what it does.
    if (old.contains('\0'))
        request.diff = WriteFileTool::tr("Binary file %1 will be replaced.").arg(relative);
    else if (created && content.isEmpty())
        request.diff = WriteFileTool::tr("%1 will be created empty.").arg(relative);
    else
        request.diff =
            UnifiedDiff::make(relative, QString::fromUtf8(old), QString::fromUtf8(content), created);
    if (auto refused = AtomicFileWriter::authorize(context, request, FilesystemGuard::Operation::Write))
        return *refused;

    if (!QDir().mkpath(info.absolutePath()))
        return ToolResult::failure(WriteFileTool::tr("cannot create the folder %1").arg(info.absolutePath()));
    if (auto failed = AtomicFileWriter::write(resolved, path, content))
        return *failed;

    return AtomicFileWriter::written(
        QJsonObject{
            {QStringLiteral("path"), resolved},
            {QStringLiteral("bytes_written"), qint64(content.size())},
            {QStringLiteral("created"), created},
        },
        request.diff);
}

} // namespace keen
