#pragma once

#include "base/result.h"
#include "conversation/compactionpolicy.h"
#include "conversation/message.h"
#include "conversation/pin.h"

#include <QString>

namespace keen {

// The prompts and replacement shapes shared by manual and automatic compaction (seed "Shared summary
// format", reference 4.1 and 4.3). One guidance text feeds both builders (S10-S13).
namespace CompactionPrompts {

// The five baseline sections: Goal, Key Instructions, Discoveries, Accomplished, Relevant Files.
QString summarySections();
// What both requests say: the reply replaces the history, no tools, history alone, exact paths/commands/
// identifiers/errors, no references to discarded history, the sections as an extendable baseline.
QString guidance();
// Manual: final user message of /compact [focus].
QString manualPrompt(const QString &focus = QString());
// Automatic: final user message of the private compaction request.
QString automaticPrompt();

// The session's detail level (issue 16) as guidance for the summary; empty for Normal, the seed's.
QString detailGuidance(CompactionPolicy::Detail detail);
// prompt (the seed's, unchanged) followed by the detail guidance: the history before the prompt, the cached
// prefix, is never touched, and with the default detail the prompt comes back as it was.
QString withDetail(const QString &prompt, CompactionPolicy::Detail detail);

// The refusal every tool call gets while a compaction runs (S14).
QString toolCallsDisabledMessage();

// history (system messages included) + one user message holding prompt. Automatic compaction requires a
// user message in the history.
Result<MessageList> buildRequest(const MessageList &history, const QString &prompt, bool automatic);

// Original system message(s) + one user message with <compacted_context> and <last_user_message> (S41, S42).
// The latest user message is kept as the person wrote it: when it is itself an earlier replacement (a
// second compaction in one turn), only the words it kept are kept again, so replacements never nest.
// pinned (pinnedContext()) goes between the summary and the latest user message; empty gives the seed's
// bytes exactly. Fails for an empty summary or a history without a user message.
Result<MessageList> automaticReplacement(const QString &summary, const MessageList &history,
                                         const QString &pinned = QString());
// The one user message of an applied manual compaction (S28): the summary, then pinned when there is any.
QString manualReplacement(const QString &summary, const QString &pinned);

// The pinned items as one block for a replacement (issue 16, "Pins"): each verbatim in a <pin> element that
// names its kind and source. Empty for no pins.
QString pinnedContext(const PinList &pins);

// The person's own words in a user message: the verbatim message an automatic replacement kept, or content
// unchanged when it is not a replacement.
QString originalUserText(const QString &content);

// Whether content is an automatic replacement (automaticReplacement()) or a pinned_context message
// (pinnedContext()), so that a list of the history can name them instead of showing their tags.
bool isAutomaticReplacement(const QString &content);
bool isPinnedContext(const QString &content);
// The number of <pin> elements in a pinnedContext() block.
qsizetype pinCount(const QString &pinnedContext);

} // namespace CompactionPrompts
} // namespace keen
