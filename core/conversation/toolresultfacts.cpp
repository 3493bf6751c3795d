#include "conversation/toolresultfacts.h"

#include "conversation/tooloutputtext.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace keen {

ToolResultFacts ToolResultFacts::read(const QString &toolName, const QJsonValue &outputValue)
{
    ToolResultFacts facts;
    const bool command = toolName == QLatin1String("bash");
    const bool fetched = toolName == QLatin1String("web_fetch") || toolName == QLatin1String("call_mcp_tool");
    const QJsonObject output = ToolOutputText::asObject(outputValue);
    if (output.isEmpty()) {
        if (command && outputValue.isString())
            facts.commandOutput = outputValue.toString(); // plain text, as some transcripts keep it
        return facts;
    }
    facts.structured = true;
    // Untrusted numbers: a value that is not a number is absent, and a huge one is clamped before the cast.
    auto number = [&output](const char *key) -> std::optional<qint64> {
        const QJsonValue value = output.value(QLatin1String(key));
        if (!value.isDouble() || !std::isfinite(value.toDouble()))
            return std::nullopt;
        return qint64(std::clamp(value.toDouble(), -9.0e18, 9.0e18));
    };
    auto clampedInt = [](std::optional<qint64> value) -> std::optional<int> {
        if (!value)
            return std::nullopt;
        return int(
            std::clamp<qint64>(*value, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
    };
    facts.totalLines = clampedInt(number("total_lines"));
    facts.offset = clampedInt(number("offset")).value_or(1);
    facts.limit = number("limit");
    facts.count = clampedInt(number("count"));
    facts.unchanged = output.value(QLatin1String("unchanged")).toBool();
    facts.bytesWritten = number("bytes_written");
    facts.exitCode = clampedInt(number("exit_code"));
    if (command) {
        facts.commandOutput = ToolOutputText::commandOutput(output);
        facts.stdoutLines = number("stdout_lines").value_or(0);
        facts.stderrLines = number("stderr_lines").value_or(0);
        facts.stderrLinesCounted = output.contains(QLatin1String("stderr_lines"));
        facts.stderrText = output.value(QLatin1String("stderr")).toString();
    }
    facts.statusCode = clampedInt(number("status_code")).value_or(0);
    if (fetched)
        facts.content = output.value(QLatin1String("content")).toString();
    facts.cached = output.value(QLatin1String("cached")).toBool();
    facts.completedTasks = clampedInt(number("completed")).value_or(0);
    facts.failedTasks = clampedInt(number("failed")).value_or(0);
    for (const QJsonValue &value : output.value(QLatin1String("results")).toArray()) {
        const QJsonObject result = value.toObject();
        DelegatedTask task;
        task.agent = result.value(QLatin1String("agent")).toString();
        task.completed = result.value(QLatin1String("status")).toString() == QLatin1String("completed");
        task.durationMs = result.value(QLatin1String("duration_ms")).toInteger();
        task.toolCalls = result.value(QLatin1String("tool_calls")).toInt();
        task.error = result.value(QLatin1String("error")).toString();
        facts.delegatedTasks.append(task);
    }
    return facts;
}

} // namespace keen
