#pragma once

#include "conversation/permissionrequest.h"

#include <QJsonObject>
#include <QString>

namespace keen {

// A permission question the person answered before a tool ran, kept in that call's tool_end
// (docs/SESSION_FORMAT.md, "permission"), so a session opened again shows the settled card it showed live:
// what was asked, the warning that came with it, and the answer. The request's id is not kept (it numbers
// the questions of one run only); a change that was allowed is drawn by the tool's own card, so its diff
// is kept only when the person refused it.
struct AnsweredPermission
{
    QString tool;
    QString path;
    QString resolvedPath;
    QString command;
    QString summary;
    QString diff;
    bool dangerous = false;
    bool outsideWorkspace = false;
    PermissionDecision decision = PermissionDecision::Deny;
    // The turn was stopped while the question waited: no one answered it and the tool did not run. Kept on
    // the call's tool_start, as such a call has no tool_end.
    bool unanswered = false;

    bool operator==(const AnsweredPermission &) const = default;

    static AnsweredPermission of(const PermissionRequest &request, PermissionDecision decision);
    static AnsweredPermission unansweredOf(const PermissionRequest &request);
    PermissionRequest request() const;
    bool allowed() const;

    // {"tool", "path"?, "resolved_path"?, "command"?, "summary"?, "diff"?, "dangerous"?,
    // "outside_workspace"?, "decision": "allowed" | "allowed_for_session" | "denied" | "redirected" |
    // "cancelled"}
    QJsonObject toJson() const;
    // An unknown decision reads as denied: a card never says allowed for what it cannot read.
    static AnsweredPermission fromJson(const QJsonObject &object);
};

} // namespace keen
