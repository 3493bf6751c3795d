#include "agent/contextestimator.h"

#include "conversation/historyreplay.h"
#include "loop/contextbudget.h"
#include "tools/toolregistry.h"

#include <cmath>

namespace keen {

namespace {
qint64 tokensOf(QStringView text)
{
    return ContextBudget::estimateTokens(ContextBudget::utf8Bytes(text));
}

// Two strings with the same text: the same shared data, seen through the same window. A string without
// shared data (empty, QStringLiteral or fromRawData) must not change while it exists, Qt's own rule for them,
// so the same characters at the same place are the same text too.
bool sameText(const QString &a, const QString &b)
{
    if (a.size() != b.size() || a.constData() != b.constData())
        return a.isEmpty() && b.isEmpty();
    return a.isSharedWith(b) || (!a.data_ptr().isMutable() && !b.data_ptr().isMutable());
}
} // namespace

ContextBreakdown ContextEstimator::breakdown(const QString &systemPrompt, const ToolRegistry &tools,
                                             const MessageList &history, qint64 contextWindow,
                                             const std::optional<TokenUsage> &lastUsage)
{
    return ContextEstimator().estimate(systemPrompt, tools, history, contextWindow, lastUsage);
}

bool ContextEstimator::unchanged(const Message &current, const Message &measured)
{
    if (current.role != measured.role || !sameText(current.content, measured.content) ||
        current.turnMemory.has_value() != measured.turnMemory.has_value())
        return false;
    // A list of tool activities cannot change in place while the copy shares it: it detaches first.
    return !current.turnMemory ||
           current.turnMemory->toolActivity.isSharedWith(measured.turnMemory->toolActivity);
}

ContextEstimator::Entry ContextEstimator::measure(const Message &message)
{
    Entry entry;
    entry.message = message;
    switch (message.role) {
    case Message::Role::System:
        entry.systemTokens = tokensOf(message.content);
        break;
    case Message::Role::User:
        entry.userTokens = tokensOf(message.content);
        break;
    case Message::Role::Assistant:
        entry.assistantTokens = tokensOf(message.content);
        if (message.turnMemory) {
            for (const ToolActivity &activity : message.turnMemory->toolActivity) {
                // Input and output are measured apart and summed: no concatenated copy.
                qint64 bytes = ContextBudget::utf8Bytes(serializeJson(activity.input));
                const QJsonValue output =
                    !activity.retainedOutput.isUndefined() ? activity.retainedOutput : activity.rawOutput;
                bytes +=
                    ContextBudget::utf8Bytes(output.isString() ? output.toString() : serializeJson(output));
                entry.toolResultTokens += ContextBudget::estimateTokens(bytes);
            }
        }
        break;
    }
    return entry;
}

ContextBreakdown ContextEstimator::estimate(const QString &systemPrompt, const ToolRegistry &tools,
                                            const MessageList &history, qint64 contextWindow,
                                            const std::optional<TokenUsage> &lastUsage)
{
    ContextBreakdown result;
    result.contextWindow = contextWindow;
    result.systemPromptTokens = tokensOf(systemPrompt);
    const auto all = tools.all();
    result.toolDefinitionCount = int(all.size());
    for (const auto &tool : all)
        result.toolDefinitionTokens += ContextBudget::estimateTokens(
            ContextBudget::utf8Bytes(tool->name()) + ContextBudget::utf8Bytes(tool->description()) +
            ContextBudget::utf8Bytes(serializeJson(tool->inputSchema())));

    // The entries follow the history position by position; a message that differs from its entry (an
    // edit, or another history after a compaction or an undo) is measured again.
    m_entries.resize(history.size());
    for (qsizetype i = 0; i < history.size(); ++i) {
        const Message &message = history.at(i);
        Entry &entry = m_entries[i];
        if (!unchanged(message, entry.message)) {
            entry = measure(message);
            ++m_measured;
        }
        result.systemPromptTokens += entry.systemTokens;
        result.userTokens += entry.userTokens;
        result.assistantTokens += entry.assistantTokens;
        result.toolResultTokens += entry.toolResultTokens;
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
