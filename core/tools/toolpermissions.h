#pragma once

#include "conversation/permissionrequest.h"
#include "tools/filesystemguard.h"
#include "tools/tool.h"

#include <QCoreApplication>
#include <optional>

namespace keen {

// What every tool does before it acts: the plan-mode refusal, the filesystem guard, then the permission
// request. Static helpers, so each tool stays a short list of checks.
class ToolPermissions
{
    Q_DECLARE_TR_FUNCTIONS(ToolPermissions)

public:
    // Asks through context.permissions (usually a PermissionPolicy). Yolo mode allows without asking;
    // a cancelled token or no requester denies. Fills request.id when it is 0.
    static PermissionDecision ask(ToolContext &context, PermissionRequest request);

    // The ToolResult for a decision other than Allow: an error for the model, and stopTurn for Redirect.
    static ToolResult refusal(PermissionDecision decision, const PermissionRequest &request,
                              const ToolContext &context);

    // Guard check, then a request when the guard says Pending. std::nullopt: go ahead. Otherwise the
    // ToolResult to return as it is. request.toolName and request.path must be set; resolvedPath is filled.
    static std::optional<ToolResult> authorize(ToolContext &context, PermissionRequest request,
                                               FilesystemGuard::Operation operation);

    // authorize() of a read for the read-only tools (read_file, glob, grep): std::nullopt and *resolvedPath
    // filled to go ahead, otherwise the ToolResult to return as it is.
    static std::optional<ToolResult> authorizeRead(ToolContext &context, const QString &toolName,
                                                   const QString &path, QString *resolvedPath);

    // A path outside the workspace where nobody is asked (yolo mode, a headless run): the refusal, before
    // anything is read. std::nullopt otherwise.
    static std::optional<ToolResult> refuseEscape(const ToolContext &context, const QString &path,
                                                  const FilesystemGuard::Check &check);

    // context.guard, or one made for context.workspace when the caller set none.
    static FilesystemGuard::Check checkPath(const ToolContext &context, const QString &path,
                                            FilesystemGuard::Operation operation);

    // The exact text the model gets for write_file and edit_file in plan mode (reference 2.1).
    static QString planModeRefusal();
    // std::nullopt unless the tool is a write tool and the mode is plan.
    static std::optional<ToolResult> refuseInPlanMode(const ToolContext &context);
};

} // namespace keen
