#include "agent/historymessage.h"

#include "loop/compactionprompts.h"

namespace keen {

HistoryMessage HistoryMessage::of(const Message &message)
{
    if (message.role == Message::Role::User) {
        if (CompactionPrompts::isAutomaticReplacement(message.content))
            return {Kind::CompactedContext, CompactionPrompts::originalUserText(message.content), 0};
        if (CompactionPrompts::isPinnedContext(message.content))
            return {Kind::PinnedContext, message.content, CompactionPrompts::pinCount(message.content)};
    }
    return {Kind::Ordinary, message.content, 0};
}

} // namespace keen
