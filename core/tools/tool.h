#pragma once

#include "base/cancellationtoken.h"
#include "conversation/agentmode.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace keen {

class PermissionRequester;
class FilesystemGuard;

// Everything a tool may use while it runs on the worker thread.
struct ToolContext
{
    QString workspace; // absolute
    QString dataDir;   // where artifacts such as full bash output go
    // Environment variables commands never see: the providers' API key variables, so a command cannot print
    // the key into a tool result, the transcript and the next request.
    QStringList hiddenEnvironment;
    CancellationToken cancel;
    PermissionRequester *permissions = nullptr; // null: no person to ask (tools that need one fail)
    const FilesystemGuard *guard = nullptr;
    bool interactive = false; // a person can answer ask_user
    // build asks, plan refuses write tools at execution, yolo skips every prompt (the guard still holds).
    AgentMode mode = AgentMode::Build;
    // ask_user: shows the questions and blocks until answered; returns {answers:[...], cancelled:bool}.
    std::function<QJsonObject(const QJsonObject &input, const CancellationToken &)> askUser;
    // A running command reports what it has printed so far (its last lines, and how many came before them)
    // through this, at most a few times a second; null: nobody watches.
    std::function<void(const QString &recentOutput, qint64 earlierLines)> outputProgress;
    // How long the call has run: the tool loop starts it before execute(), ToolPermissions::ask starts it
    // again when the answer comes, so the duration a tool card shows leaves out the wait for a person.
    QElapsedTimer running;
    QString callId; // the call being run, for its permission request
};

// What a tool run produced. output is the raw result (shown in the UI and the transcript); on failure
// error is set and the model gets {"error": error}.
struct ToolResult
{
    QJsonValue output;
    QString error;
    QString diff;                // unified diff of a file change, if any
    std::optional<int> exitCode; // bash
    bool stopTurn = false;       // the person chose "Ask what to do instead"

    bool ok() const { return error.isEmpty(); }
    static ToolResult success(const QJsonValue &output) { return ToolResult{output, {}, {}, {}, false}; }
    static ToolResult failure(const QString &error) { return ToolResult{{}, error, {}, {}, false}; }
};

// A tool the model can call (reference 2.2).
class Tool
{
public:
    virtual ~Tool() = default;
    virtual QString name() const = 0;
    virtual QString description() const = 0;
    virtual QJsonObject inputSchema() const = 0;
    // Runs before tool_start; a non-empty message goes back to the model as the tool error.
    virtual QString validateInput(const QJsonObject &input) const;
    virtual ToolResult execute(const QJsonObject &input, ToolContext &context) = 0;
    // write_file and edit_file: refused in plan mode.
    virtual bool isWriteTool() const { return false; }
};

} // namespace keen
