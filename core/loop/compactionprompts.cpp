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
const QString ReplacementClose = QStringLiteral("\n</compacted_context>\n\n");
const QString LastUserHead =
    QStringLiteral("<last_user_message>\n"
                   "This is the most recent user message. It is the current task, and its requirements "
                   "take precedence.\n\n");
const QString ReplacementMiddle = ReplacementClose + LastUserHead;
const QString PinnedHead =
    QStringLiteral("<pinned_context>\n"
                   "The person pinned these items so that they survive compaction. Each is kept verbatim "
                   "as it was and is still relevant.\n");
const QString PinnedTail = QStringLiteral("</pinned_context>");
const QString ReplacementTail = QStringLiteral("\n</last_user_message>");

} // namespace

QString originalUserText(const QString &content)
{
    if (!content.startsWith(ReplacementHead) || !content.endsWith(ReplacementTail))
        return content;
    qsizetype start = -1;
    if (const qsizetype middle = content.indexOf(ReplacementMiddle, ReplacementHead.size()); middle >= 0)
        start = middle + ReplacementMiddle.size();
    else if (const qsizetype pinned = content.indexOf(PinnedTail + QStringLiteral("\n\n") + LastUserHead,
                                                      ReplacementHead.size());
             pinned >= 0) // a replacement with pins (issue 16)
        start = pinned + PinnedTail.size() + 2 + LastUserHead.size();
    if (start < 0)
        return content;
    return content.mid(start, content.size() - ReplacementTail.size() - start);
}

bool isAutomaticReplacement(const QString &content)
{
    return content.startsWith(ReplacementHead) && content.endsWith(ReplacementTail);
}

bool isPinnedContext(const QString &content)
{
    return content.startsWith(PinnedHead) && content.trimmed().endsWith(PinnedTail);
}

qsizetype pinCount(const QString &pinnedContext)
{
    return pinnedContext.count(QStringLiteral("\n<pin kind=\""));
}

QString pinnedContext(const PinList &pins)
{
    if (pins.isEmpty())
        return {};
    QString block = PinnedHead;
    for (const Pin &pin : pins) {
        QString attributes = QStringLiteral(" kind=\"") + Pin::kindName(pin.kind) + QLatin1Char('"');
        if (!pin.source.isEmpty()) {
            QString source = pin.source;
            source.replace(QLatin1Char('"'), QLatin1Char('\''));
            source.replace(QLatin1Char('\n'), QLatin1Char(' '));
            attributes += QStringLiteral(" source=\"") + source + QLatin1Char('"');
        }
        block += QStringLiteral("\n<pin") + attributes + QStringLiteral(">\n") + pin.text +
                 QStringLiteral("\n</pin>\n");
    }
    return block + PinnedTail;
}

QString manualReplacement(const QString &summary, const QString &pinned)
{
    if (pinned.isEmpty())
        return summary;
    return summary + QStringLiteral("\n\n") + pinned;
}

Result<MessageList> automaticReplacement(const QString &summary, const MessageList &history,
                                         const QString &pinned)
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
    // Pins sit after the summary and before the latest request, which stays last and authoritative (S42).
    const QString middle = pinned.isEmpty()
                               ? ReplacementMiddle
                               : ReplacementClose + pinned + QStringLiteral("\n\n") + LastUserHead;
    const QString content =
        ReplacementHead + trimmed + middle + originalUserText(history.at(lastUser).content) + ReplacementTail;
    replacement.append(Message::user(content));
    return replacement;
}

} // namespace keen::CompactionPrompts
