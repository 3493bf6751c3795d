#pragma once

#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

namespace keen {

// What a tool's result says, read once from the JSON the tool returned (reference 2.2 shapes), for the
// window's cards: how many lines a read covered, a search's count, a command's exit code and output, a
// fetch's status and text, each delegated task's outcome. The UI reads these fields, never the tool's JSON.
struct ToolResultFacts
{
    // delegate_task: one task's outcome.
    struct DelegatedTask
    {
        QString agent;
        bool completed = false;
        qint64 durationMs = 0;
        int toolCalls = 0;
        QString error;
        bool operator==(const DelegatedTask &) const = default;
    };

    bool structured = false; // the result was an object (or JSON text holding one): the fields below apply
    // read_file: the file's line count and the window read (offset 1-based; no limit: to the end).
    std::optional<int> totalLines;
    int offset = 1;
    std::optional<qint64> limit;
    // grep, glob: matches or files.
    std::optional<int> count;
    // write_file.
    bool unchanged = false;
    std::optional<qint64> bytesWritten;
    // bash: the exit code when there is one (any tool), stdout then stderr (ToolOutputText::commandOutput) or
    // a plain text result, the line counts the tool gives for a long output it cut, and stderr kept whole.
    std::optional<int> exitCode;
    QString commandOutput;
    qint64 stdoutLines = 0;
    qint64 stderrLines = 0;
    bool stderrLinesCounted = false;
    QString stderrText;
    // web_fetch, call_mcp_tool: the HTTP status (0: none), the text, whether an earlier result answered.
    int statusCode = 0;
    QString content;
    bool cached = false;
    // delegate_task.
    int completedTasks = 0;
    int failedTasks = 0;
    QList<DelegatedTask> delegatedTasks;

    bool operator==(const ToolResultFacts &) const = default;

    // An object, or a string of JSON text holding one (a result kept as text); anything else gives no facts
    // but, for a plain string of bash, the command output. Only toolName's texts are copied (a read's file
    // text is never: its card shows the counts).
    static ToolResultFacts read(const QString &toolName, const QJsonValue &output);
};

} // namespace keen
