#pragma once

#include <QMetaType>
#include <QString>

namespace keen {

// What a tool asks the person before it acts (reference 2.3).
struct PermissionRequest
{
    quint64 id = 0; // unique per request, so an answer finds its question
    QString toolName;
    QString path;         // as the model wrote it
    QString resolvedPath; // absolute
    QString command;      // bash only
    QString summary;      // bash: the model's 5-10 word summary; call_mcp_tool: the arguments as JSON
    QString diff;         // edit_file / write_file: unified diff of the change
    bool isDangerous = false;
    // The path resolves outside the workspace: like a dangerous command, never allowed for the session or by
    // the project allow-list, and refused where nobody is asked (yolo mode, headless runs).
    bool outsideWorkspace = false;
    QString callId; // the tool call that asks (empty outside the tool loop), so the answer is kept with it
};

enum class PermissionDecision {
    Allow,
    AllowForSession, // never offered for dangerous commands
    Deny,
    Redirect, // "Ask what to do instead": deny and stop the turn
};

} // namespace keen

Q_DECLARE_METATYPE(keen::PermissionRequest)
Q_DECLARE_METATYPE(keen::PermissionDecision)
