#include "agent/contextestimator.h"

#include "conversation/historyreplay.h"
#include "loop/contextbudget.h"
#include "tools/toolregistry.h"

#include <cmath>

namespace keen {

namespace {
qint64 estimate(QStringView text)
{
    return ContextBudget::estimateTokens(ContextBudget::utf8Bytes(text));
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
        result.toolDefinitionTokens += ContextBudget::estimateTokens(
            ContextBudget::utf8Bytes(tool->name()) + ContextBudget::utf8Bytes(tool->description()) +
            ContextBudget::utf8Bytes(serializeJson(tool->inputSchema())));
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
                    // Input and output are measured apart and summed: no concatenated copy.
                    qint64 bytes = ContextBudget::utf8Bytes(serializeJson(activity.input));
                    const QJsonValue output =
                        !activity.retainedOutput.isUndefined() ? activity.retainedOutput : activity.rawOutput;
                    bytes += ContextBudget::utf8Bytes(output.isString() ? output.toString()
                                                                        : serializeJson(output));
                    result.toolResultTokens += ContextBudget::estimateTokens(bytes);
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
