#include "tools/atomicfilewriter.h"

#include "tools/guardedfile.h"
#include "tools/secretpatterns.h"
#include "tools/toolpermissions.h"

#include <QCoreApplication>
#include <QDir>

namespace keen {

std::optional<ToolResult> AtomicFileWriter::checkTarget(const ToolContext &context, const QString &path,
                                                        FilesystemGuard::Operation operation,
                                                        QString *resolvedPath)
{
    if (auto refused = ToolPermissions::refuseInPlanMode(context))
        return refused;
    const FilesystemGuard::Check check = ToolPermissions::checkPath(context, path, operation);
    if (check.denied())
        return ToolResult::failure(AtomicFileWriter::tr("Access denied to %1: %2.").arg(path, check.reason));
    // Before the old content is read for the diff.
    if (auto refused = ToolPermissions::refuseEscape(context, path, check))
        return refused;
    *resolvedPath = check.resolvedPath;
    return std::nullopt;
}

std::optional<ToolResult> AtomicFileWriter::refuseSecret(const QString &resolvedPath,
                                                         const QByteArray &content)
{
    if (!SecretPatterns::isMemoryFile(resolvedPath))
        return std::nullopt;
    if (const QString kind = SecretPatterns::find(QString::fromUtf8(content)); !kind.isEmpty())
        return ToolResult::failure(
            AtomicFileWriter::tr("refusing to store a secret (%1) in a memory file").arg(kind));
    return std::nullopt;
}

QString AtomicFileWriter::shownPath(const ToolContext &context, const QString &resolvedPath)
{
    const QString relative = QDir(context.workspace).relativeFilePath(resolvedPath);
    return relative.startsWith(QLatin1String("..")) ? resolvedPath : relative;
}

std::optional<ToolResult> AtomicFileWriter::authorize(ToolContext &context, const PermissionRequest &request,
                                                      FilesystemGuard::Operation operation)
{
    auto refused = ToolPermissions::authorize(context, request, operation);
    if (refused)
        refused->diff = request.diff;
    return refused;
}

std::optional<ToolResult> AtomicFileWriter::write(const QString &resolvedPath, const QString &path,
                                                  const QByteArray &content)
{
    // Through a descriptor of the checked folder: a link swapped in since the check is refused.
    const Result<void> written = GuardedFile::writeAtomically(resolvedPath, path, content);
    if (!written)
        return ToolResult::failure(written.error());
    return std::nullopt;
}

ToolResult AtomicFileWriter::written(const QJsonObject &output, const QString &diff)
{
    ToolResult result = ToolResult::success(output);
    result.diff = diff;
    return result;
}

} // namespace keen
