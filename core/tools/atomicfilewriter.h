#pragma once

#include "conversation/permissionrequest.h"
#include "tools/filesystemguard.h"
#include "tools/tool.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace keen {

// The steps write_file and edit_file share on the way from new content to the disk: plan-mode refusal and
// guard check, the secret check for memory files, a permission request that shows the diff, and the atomic
// write. Each check returns std::nullopt to go ahead, otherwise the ToolResult to return as it is.
class AtomicFileWriter
{
    Q_DECLARE_TR_FUNCTIONS(AtomicFileWriter)

public:
    // Plan-mode refusal, then the guard check for operation; fills *resolvedPath.
    static std::optional<ToolResult> checkTarget(const ToolContext &context, const QString &path,
                                                 FilesystemGuard::Operation operation, QString *resolvedPath);
    // Memory files go into every system prompt, so they never receive a secret.
    static std::optional<ToolResult> refuseSecret(const QString &resolvedPath, const QByteArray &content);
    // resolvedPath relative to the workspace, or as it is when it lies outside: the name a diff shows.
    static QString shownPath(const ToolContext &context, const QString &resolvedPath);
    // Asks for request (its diff included); a refusal carries the diff too.
    static std::optional<ToolResult> authorize(ToolContext &context, const PermissionRequest &request,
                                               FilesystemGuard::Operation operation);
    // All of content or nothing (QSaveFile). path is the one the model gave, for the message.
    static std::optional<ToolResult> write(const QString &resolvedPath, const QString &path,
                                           const QByteArray &content);
    // The success result with the diff that was shown attached.
    static ToolResult written(const QJsonObject &output, const QString &diff);
};

} // namespace keen
