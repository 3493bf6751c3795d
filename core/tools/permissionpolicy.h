#pragma once

#include "tools/permissionrequester.h"

#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>
#include <mutex>

namespace keen {

// The order in which a permission request is settled (reference 2.3), as a PermissionRequester the tools
// reach through ToolContext::permissions:
//   1. autoApprove (a headless run): allowed, except dangerous commands and paths outside the workspace,
//      which are refused;
//   2. the project allow-list <workspace>/.keen/permissions.json {"allow":["bash",...]}: allowed, dangerous
//      commands included, paths outside the workspace not;
//   3. tools the person allowed for this session: allowed, dangerous commands and paths outside the
//      workspace excluded;
//   4. otherwise the person is asked through the inner requester (none: denied).
// Modes are not handled here: ToolPermissions::ask skips the policy in yolo mode, and the write tools refuse
// themselves in plan mode. Thread-safe: the worker asks while the GUI may reset the session.
class PermissionPolicy final : public PermissionRequester
{
public:
    PermissionPolicy(const QString &workspace, PermissionRequester *person, bool autoApprove = false);

    PermissionDecision request(const PermissionRequest &request, const CancellationToken &cancel) override;

    void setWorkspace(const QString &workspace);
    void setPerson(PermissionRequester *person);
    void setAutoApprove(bool autoApprove);
    bool autoApprove() const;

    // "Allow for this session" answers, by tool name; for call_mcp_tool by the MCP tool it calls
    // ("call_mcp_tool github/create_issue"): one server's tool allowed is not every tool of every server. A
    // new conversation starts without them.
    QStringList sessionAllowedTools() const;
    void allowForSession(const QString &key);
    static QString sessionKey(const PermissionRequest &request);
    void clearSessionAllowances();

    // Tool names of <workspace>/.keen/permissions.json; read on every request so edits apply at once. A file
    // that cannot be used (not a regular file, unreadable, over 1 MiB, not JSON, no "allow" list of names)
    // allows nothing, and the reporter hears why, naming the file, once per distinct problem.
    QStringList projectAllowList() const;
    static QString allowListPath(const QString &workspace);
    // Called on the asking thread. /allow-permission and /reset-permission write the file
    // (ProjectAllowList), never over one that cannot be used.
    void setProblemReporter(std::function<void(const QString &message)> report);

private:
    mutable std::mutex m_mutex;
    std::function<void(const QString &)> m_report;
    mutable QString m_reportedProblem; // the last problem reported, so it is said once
    QString m_workspace;
    PermissionRequester *m_person = nullptr;
    bool m_autoApprove = false;
    QSet<QString> m_sessionAllowed;
};

} // namespace keen
