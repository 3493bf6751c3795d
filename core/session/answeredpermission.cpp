#include "session/answeredpermission.h"

#include "session/jsonfields.h"

namespace keen {

namespace {

constexpr QLatin1StringView kTool("tool");
constexpr QLatin1StringView kPath("path");
constexpr QLatin1StringView kResolvedPath("resolved_path");
constexpr QLatin1StringView kCommand("command");
constexpr QLatin1StringView kSummary("summary");
constexpr QLatin1StringView kDiff("diff");
constexpr QLatin1StringView kDangerous("dangerous");
constexpr QLatin1StringView kOutsideWorkspace("outside_workspace");
constexpr QLatin1StringView kDecision("decision");

constexpr QLatin1StringView kAllowed("allowed");
constexpr QLatin1StringView kAllowedForSession("allowed_for_session");
constexpr QLatin1StringView kDenied("denied");
constexpr QLatin1StringView kRedirected("redirected");
constexpr QLatin1StringView kCancelled("cancelled");

} // namespace

AnsweredPermission AnsweredPermission::of(const PermissionRequest &request, PermissionDecision decision)
{
    AnsweredPermission answered;
    answered.tool = request.toolName;
    answered.path = request.path;
    answered.resolvedPath = request.resolvedPath;
    answered.command = request.command;
    answered.summary = request.summary;
    answered.dangerous = request.isDangerous;
    answered.outsideWorkspace = request.outsideWorkspace;
    answered.decision = decision;
    if (!answered.allowed())
        answered.diff = request.diff;
    return answered;
}

AnsweredPermission AnsweredPermission::unansweredOf(const PermissionRequest &request)
{
    AnsweredPermission asked = of(request, PermissionDecision::Deny);
    asked.unanswered = true;
    return asked;
}

PermissionRequest AnsweredPermission::request() const
{
    PermissionRequest request;
    request.toolName = tool;
    request.path = path;
    request.resolvedPath = resolvedPath;
    request.command = command;
    request.summary = summary;
    request.diff = diff;
    request.isDangerous = dangerous;
    request.outsideWorkspace = outsideWorkspace;
    return request;
}

bool AnsweredPermission::allowed() const
{
    return !unanswered &&
           (decision == PermissionDecision::Allow || decision == PermissionDecision::AllowForSession);
}

QJsonObject AnsweredPermission::toJson() const
{
    QJsonObject object{{kTool, tool}};
    JsonFields::insertIfNotEmpty(object, kPath, path);
    JsonFields::insertIfNotEmpty(object, kResolvedPath, resolvedPath);
    JsonFields::insertIfNotEmpty(object, kCommand, command);
    JsonFields::insertIfNotEmpty(object, kSummary, summary);
    JsonFields::insertIfNotEmpty(object, kDiff, diff);
    if (dangerous)
        object.insert(kDangerous, true);
    if (outsideWorkspace)
        object.insert(kOutsideWorkspace, true);
    if (unanswered) {
        object.insert(kDecision, kCancelled);
        return object;
    }
    switch (decision) {
    case PermissionDecision::Allow:
        object.insert(kDecision, kAllowed);
        break;
    case PermissionDecision::AllowForSession:
        object.insert(kDecision, kAllowedForSession);
        break;
    case PermissionDecision::Deny:
        object.insert(kDecision, kDenied);
        break;
    case PermissionDecision::Redirect:
        object.insert(kDecision, kRedirected);
        break;
    }
    return object;
}

AnsweredPermission AnsweredPermission::fromJson(const QJsonObject &object)
{
    AnsweredPermission answered;
    answered.tool = object.value(kTool).toString();
    answered.path = object.value(kPath).toString();
    answered.resolvedPath = object.value(kResolvedPath).toString();
    answered.command = object.value(kCommand).toString();
    answered.summary = object.value(kSummary).toString();
    answered.diff = object.value(kDiff).toString();
    answered.dangerous = object.value(kDangerous).toBool();
    answered.outsideWorkspace = object.value(kOutsideWorkspace).toBool();
    const QString decision = object.value(kDecision).toString();
    if (decision == kAllowed)
        answered.decision = PermissionDecision::Allow;
    else if (decision == kAllowedForSession)
        answered.decision = PermissionDecision::AllowForSession;
    else if (decision == kRedirected)
        answered.decision = PermissionDecision::Redirect;
    else
        answered.decision = PermissionDecision::Deny;
    answered.unanswered = decision == kCancelled;
    return answered;
}

} // namespace keen
