#include "loop/compactionprompts.h"

#include <QCoreApplication>

namespace keen::CompactionPrompts {

QString summarySections()
{
    return QStringLiteral("## Goal\n"
                          "What the user is trying to achieve.\n"
                          "\n"
                          "## Key Instructions\n"
                          "Constraints and preferences the user stated that still apply.\n"
                          "\n"
                          "## Discoveries\n"
                          "Facts learned about the codebase, the environment and the requirements.\n"
                          "\n"
                          "## Accomplished\n"
                          "Work finished, work remaining, what is in progress and the next step.\n"
                          "\n"
                          "## Relevant Files\n"
                          "Files, commands, errors and tool results that matter for continuing.");
}

QString guidance()
{
    return QStringLiteral(
               "This is a context compaction request: your reply replaces the conversation history and "
               "becomes "
               "the only record of it that is kept.\n"
               "\n"
               "Do not call any tools for this request. Work only from the conversation history you already "
               "have.\n"
               "\n"
               "Be concise but complete, so the work can go on without the earlier history. Keep file paths, "
               "commands, identifiers and error messages exactly as they appeared, and never refer to the "
               "discarded history (no \"as mentioned above\" or \"the earlier file\").\n"
               "\n"
               "Cover at least these sections, and add sections or detail whenever the work needs them:\n"
               "\n") +
           summarySections();
}

QString manualPrompt(const QString &focus)
{
    QString prompt = QStringLiteral("Compact this conversation now. ") + guidance() +
                     QStringLiteral("\n\nReply with the structured summary only, without any preamble.");
    if (!focus.trimmed().isEmpty())
        prompt +=
            QStringLiteral("\n\nIMPORTANT: also follow this instruction from the user while summarizing: ") +
            focus.trimmed();
    return prompt;
}

QString automaticPrompt()
{
    return QStringLiteral("Compact this conversation. ") + guidance() +
           QStringLiteral("\n\nThis is an internal checkpoint of a running agent task. The most recent user "
                          "message is kept word for word outside this summary, so do not repeat it. Keep the "
                          "progress of the current task and every tool result that still matters. Reply with "
                          "the structured summary only, without any preamble.");
}

QString detailGuidance(CompactionPolicy::Detail detail)
{
    switch (detail) {
    case CompactionPolicy::Detail::Brief:
        return QStringLiteral(
            "Detail level: brief. Keep the summary short: the goal, the instructions that still apply, the "
            "current state and the next step, with the exact paths, commands and errors needed to go on. "
            "Leave out background, history of attempts and anything that was finished and no longer "
            "matters.");
    case CompactionPolicy::Detail::Normal:
        break;
    case CompactionPolicy::Detail::Detailed:
        return QStringLiteral(
            "Detail level: detailed. Keep more than usual: every decision with its reason, every file "
            "touched and what changed in it, the attempts that failed and why, exact error messages, "
            "numbers, identifiers and the relevant parts of tool results.");
    }
    return {};
}

QString withDetail(const QString &prompt, CompactionPolicy::Detail detail)
{
    const QString guidance = detailGuidance(detail);
    return guidance.isEmpty() ? prompt : prompt + QStringLiteral("\n\n") + guidance;
}

QString toolCallsDisabledMessage()
{
    return QStringLiteral("Tool calls are disabled during compaction; use the history.");
}

Result<MessageList> buildRequest(const MessageList &history, const QString &prompt, bool automatic)
{
    if (automatic && lastUserMessageIndex(history) < 0)
        return Result<MessageList>::failure(QStringLiteral("automatic compaction requires a user message"));
    MessageList request = history; // implicitly shared copy: the caller's list is never touched
    request.append(Message::user(prompt));
    return request;
}

namespace {

const QString ReplacementHead =
    QStringLiteral("<compacted_context>\n"
                   "The earlier conversation was compacted automatically to fit the model's context window. "
                   "This summary keeps the goals, constraints, progress, discoveries, tool results and "
                   "pending work that still matter.\n\n");
const QString ReplacementMiddle =
    QStringLiteral("\n</compacted_context>\n\n"
                   "<last_user_message>\n"
                   "This is the most recent user message. It is the current task, and its requirements "
                   "take precedence.\n\n");
const QString ReplacementTail = QStringLiteral("\n</last_user_message>");

} // namespace

QString originalUserText(const QString &content)
{
    if (!content.startsWith(ReplacementHead) || !content.endsWith(ReplacementTail))
        return content;
    const qsizetype middle = content.indexOf(ReplacementMiddle, ReplacementHead.size());
    if (middle < 0)
        return content;
    const qsizetype start = middle + ReplacementMiddle.size();
    return content.mid(start, content.size() - ReplacementTail.size() - start);
}

Result<MessageList> automaticReplacement(const QString &summary, const MessageList &history)
{
    const qsizetype lastUser = lastUserMessageIndex(history);
    if (lastUser < 0)
        return Result<MessageList>::failure(QStringLiteral("automatic compaction requires a user message"));
    const QString trimmed = summary.trimmed();
    if (trimmed.isEmpty())
        return Result<MessageList>::failure(QStringLiteral("automatic compaction produced an empty summary"));

    MessageList replacement;
    for (const Message &message : history) {
        if (message.role == Message::Role::System)
            replacement.append(message);
    }
    const QString content = ReplacementHead + trimmed + ReplacementMiddle +
                            originalUserText(history.at(lastUser).content) + ReplacementTail;
    replacement.append(Message::user(content));
    return replacement;
}

} // namespace keen::CompactionPrompts
