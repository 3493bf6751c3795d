#include "tools/permissionpolicy.h"

#include "tools/projectallowlist.h"

#include <QCoreApplication>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace keen {

PermissionPolicy::PermissionPolicy(const QString &workspace, PermissionRequester *person, bool autoApprove)
    : m_workspace(workspace)
    , m_person(person)
    , m_autoApprove(autoApprove)
{}

QString PermissionPolicy::allowListPath(const QString &workspace)
{
    return ProjectAllowList::path(workspace);
}

QStringList PermissionPolicy::projectAllowList() const
{
    QString workspace;
    {
        std::lock_guard lock(m_mutex);
        workspace = m_workspace;
    }
    if (workspace.isEmpty())
        return {};
    const QString path = allowListPath(workspace);
    const ProjectAllowList::Loaded loaded = ProjectAllowList::load(workspace);
    const QString &problem = loaded.problem;
    const QStringList &names = loaded.names;
    std::function<void(const QString &)> report;
    QString message;
    {
        std::lock_guard lock(m_mutex);
        if (problem != m_reportedProblem) {
            m_reportedProblem = problem;
            if (!problem.isEmpty() && m_report) {
                report = m_report;
                message = QCoreApplication::translate(
                              "PermissionPolicy", "The permissions file %1 is ignored: %2. Every tool asks "
                                                  "until it is fixed.")
                              .arg(path, problem);
            }
        }
    }
    if (report)
        report(message);
    return names;
}

void PermissionPolicy::setProblemReporter(std::function<void(const QString &)> report)
{
    std::lock_guard lock(m_mutex);
    m_report = std::move(report);
}

PermissionDecision PermissionPolicy::request(const PermissionRequest &request,
                                             const CancellationToken &cancel)
{
    if (cancel.isCancelled())
        return PermissionDecision::Deny;

    PermissionRequester *person = nullptr;
    {
        std::lock_guard lock(m_mutex);
        if (m_autoApprove)
            return request.isDangerous || request.outsideWorkspace ? PermissionDecision::Deny
                                                                   : PermissionDecision::Allow;
    }
    // The file is read outside the lock; it does not touch the members. It speaks for the project, so it
    // never covers a path outside it.
    if (!request.outsideWorkspace && projectAllowList().contains(request.toolName))
        return PermissionDecision::Allow;
    {
        std::lock_guard lock(m_mutex);
        if (!request.isDangerous && !request.outsideWorkspace &&
            m_sessionAllowed.contains(sessionKey(request)))
            return PermissionDecision::Allow;
        person = m_person;
    }
    if (!person)
        return PermissionDecision::Deny;

    const PermissionDecision decision = person->request(request, cancel);
    if (cancel.isCancelled())
        return PermissionDecision::Deny;
    if (decision == PermissionDecision::AllowForSession) {
        // Never offered for dangerous commands or paths outside the workspace; if an answer says so anyway
        // it counts only this once.
        if (!request.isDangerous && !request.outsideWorkspace)
            allowForSession(sessionKey(request));
        return PermissionDecision::Allow;
    }
    return decision;
}

void PermissionPolicy::setWorkspace(const QString &workspace)
{
    std::lock_guard lock(m_mutex);
    m_workspace = workspace;
}

void PermissionPolicy::setPerson(PermissionRequester *person)
{
    std::lock_guard lock(m_mutex);
    m_person = person;
}

void PermissionPolicy::setAutoApprove(bool autoApprove)
{
    std::lock_guard lock(m_mutex);
    m_autoApprove = autoApprove;
}

bool PermissionPolicy::autoApprove() const
{
    std::lock_guard lock(m_mutex);
    return m_autoApprove;
}

QStringList PermissionPolicy::sessionAllowedTools() const
{
    std::lock_guard lock(m_mutex);
    QStringList names(m_sessionAllowed.cbegin(), m_sessionAllowed.cend());
    names.sort();
    return names;
}

void PermissionPolicy::allowForSession(const QString &key)
{
    std::lock_guard lock(m_mutex);
    m_sessionAllowed.insert(key);
}

QString PermissionPolicy::sessionKey(const PermissionRequest &request)
{
    if (request.toolName == QLatin1String("call_mcp_tool"))
        return request.toolName + QLatin1Char(' ') + request.path;
    return request.toolName;
}

void PermissionPolicy::clearSessionAllowances()
{
    std::lock_guard lock(m_mutex);
    m_sessionAllowed.clear();
}

} // namespace keen
