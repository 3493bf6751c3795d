#include "tools/toolpermissions.h"

#include "tools/permissionrequester.h"

#include <QCoreApplication>

#include <atomic>

namespace keen {

namespace {

quint64 nextRequestId()
{
    static std::atomic<quint64> counter{0};
    return ++counter;
}

} // namespace

PermissionDecision ToolPermissions::ask(ToolContext &context, PermissionRequest request)
{
    if (context.cancel.isCancelled())
        return PermissionDecision::Deny;
    if (context.mode == AgentMode::Yolo)
        return PermissionDecision::Allow;
    if (!context.permissions)
        return PermissionDecision::Deny;
    if (request.id == 0)
        request.id = nextRequestId();
    request.callId = context.callId;
    const PermissionDecision decision = context.permissions->request(request, context.cancel);
    // The tool runs from here: the time the permission card waited is not part of its duration.
    context.running.start();
    if (context.cancel.isCancelled())
        return PermissionDecision::Deny;
    // A bare requester (not a PermissionPolicy) may answer "for this session": it still means yes.
    return decision == PermissionDecision::AllowForSession ? PermissionDecision::Allow : decision;
}

ToolResult ToolPermissions::refusal(PermissionDecision decision, const PermissionRequest &request,
                                    const ToolContext &context)
{
    const QString subject = request.command.isEmpty() ? request.toolName : request.command;
    if (decision == PermissionDecision::Redirect) {
        ToolResult result = ToolResult::failure(
            ToolPermissions::tr(
                "Interrupted: the user declined %1 and will say what the agent should do instead.")
                .arg(request.toolName));
        result.stopTurn = true;
        return result;
    }
    if (context.cancel.isCancelled())
        return ToolResult::failure(ToolPermissions::tr("Cancelled before permission was given."));
    if (!context.interactive && request.isDangerous)
        return ToolResult::failure(
            ToolPermissions::tr("Permission denied: dangerous commands are refused in non-interactive "
                                "runs unless yolo mode is on "
                                "(%1).")
                .arg(subject));
    if (!context.permissions)
        return ToolResult::failure(
            ToolPermissions::tr("Permission denied: nobody is available to approve %1.")
                .arg(request.toolName));
    return ToolResult::failure(
        ToolPermissions::tr("Permission denied: the user declined %1.").arg(request.toolName));
}

FilesystemGuard::Check ToolPermissions::checkPath(const ToolContext &context, const QString &path,
                                                  FilesystemGuard::Operation operation)
{
    if (context.guard)
        return context.guard->checkPath(path, operation);
    const FilesystemGuard fallback(context.workspace, context.dataDir);
    return fallback.checkPath(path, operation);
}

std::optional<ToolResult> ToolPermissions::authorize(ToolContext &context, PermissionRequest request,
                                                     FilesystemGuard::Operation operation)
{
    const FilesystemGuard::Check check = checkPath(context, request.path, operation);
    request.resolvedPath = check.resolvedPath;
    if (check.denied())
        return ToolResult::failure(
            ToolPermissions::tr("Access denied to %1: %2.").arg(request.path, check.reason));
    request.outsideWorkspace = check.escapesWorkspace;
    if (auto refused = refuseEscape(context, request.path, check))
        return refused;
    if (check.granted() && !request.isDangerous)
        return std::nullopt;
    const PermissionDecision decision = ask(context, request);
    if (decision == PermissionDecision::Allow)
        return std::nullopt;
    return refusal(decision, request, context);
}

std::optional<ToolResult> ToolPermissions::refuseEscape(const ToolContext &context, const QString &path,
                                                        const FilesystemGuard::Check &check)
{
    // Leaving the workspace needs a person's yes for this one request: yolo mode and headless runs skip the
    // person, so they never leave it.
    if (!check.escapesWorkspace || (context.mode != AgentMode::Yolo && context.interactive))
        return std::nullopt;
    return ToolResult::failure(
        ToolPermissions::tr("Access denied to %1: it resolves to %2, outside the workspace, and only a "
                            "person answering a prompt can allow that (not yolo mode, not a headless run).")
            .arg(path, check.resolvedPath));
}

std::optional<ToolResult> ToolPermissions::authorizeRead(ToolContext &context, const QString &toolName,
                                                         const QString &path, QString *resolvedPath)
{
    PermissionRequest request;
    request.toolName = toolName;
    request.path = path;
    if (auto refused = authorize(context, request, FilesystemGuard::Operation::Read))
        return refused;
    *resolvedPath = checkPath(context, path, FilesystemGuard::Operation::Read).resolvedPath;
    return std::nullopt;
}

QString ToolPermissions::planModeRefusal()
{
    // Fixed wording from reference 2.1: models and tests match it.
    return QStringLiteral(
        "Write tools (write_file, edit_file) are disabled in plan mode; ask the user to switch "
        "with `/mode build` or `Shift+Tab`.");
}

std::optional<ToolResult> ToolPermissions::refuseInPlanMode(const ToolContext &context)
{
    if (context.mode == AgentMode::Plan)
        return ToolResult::failure(planModeRefusal());
    return std::nullopt;
}

} // namespace keen
