#include "agent/contextestimator.h"

#include "conversation/historyreplay.h"
#include "loop/contextbudget.h"
#include "tools/toolregistry.h"

#include <cmath>

namespace keen {

namespace {
qint64 estimate(const QString &text)
{
    return ContextBudget::estimateTokens(text.toUtf8().size());
}
} // namespace

ContextBreakdown ContextEstimator::breakdown(const QString &systemPrompt, const ToolRegistry &tools,
                                             const MessageList &history, qint64 contextWindow,
                                             const std::optional<TokenUsage> &lastUsage)
{
    ContextBreakdown result;
    result.contextWindow = contextWindow;
    result.systemPromptTokens = estimate(systemPrompt);
    const auto all = tools.all();
    result.toolDefinitionCount = int(all.size());
    for (const auto &tool : all)
        result.toolDefinitionTokens +=
            estimate(tool->name() + tool->description() + serializeJson(tool->inputSchema()));
    for (const Message &message : history) {
        switch (message.role) {
        case Message::Role::System:
            result.systemPromptTokens += estimate(message.content);
            break;
        case Message::Role::User:
            result.userTokens += estimate(message.content);
            break;
        case Message::Role::Assistant:
            result.assistantTokens += estimate(message.content);
            if (message.turnMemory) {
                for (const ToolActivity &activity : message.turnMemory->toolActivity) {
                    QString text = serializeJson(activity.input);
                    const QJsonValue output =
                        !activity.retainedOutput.isUndefined() ? activity.retainedOutput : activity.rawOutput;
                    text += output.isString() ? output.toString() : serializeJson(output);
                    result.toolResultTokens += estimate(text);
                }
            }
            break;
        }
    }
    result.totalTokens = result.systemPromptTokens + result.toolDefinitionTokens + result.userTokens +
                         result.assistantTokens + result.toolResultTokens;
    if (lastUsage && lastUsage->inputTokens > 0 && result.totalTokens > 0) {
        const double scale = double(lastUsage->inputTokens) / double(result.totalTokens);
        auto scaled = [scale](qint64 value) { return qint64(std::llround(value * scale)); };
        result.systemPromptTokens = scaled(result.systemPromptTokens);
        result.toolDefinitionTokens = scaled(result.toolDefinitionTokens);
        result.userTokens = scaled(result.userTokens);
        result.assistantTokens = scaled(result.assistantTokens);
        result.toolResultTokens = scaled(result.toolResultTokens);
        result.totalTokens = lastUsage->inputTokens;
        result.anchoredToProvider = true;
    }
    return result;
}

} // namespace keen
