#include "conversation/metatypes.h"

#include "base/cancellationtoken.h"
#include "conversation/compactionpolicy.h"
#include "conversation/message.h"
#include "conversation/streamevent.h"
#include "conversation/streamoptions.h"
#include "conversation/tokenusage.h"
#include "conversation/userquestion.h"

namespace keen {

void registerCoreMetaTypes()
{
    qRegisterMetaType<keen::CancellationToken>();
    qRegisterMetaType<keen::CompactionPolicy>();
    qRegisterMetaType<keen::Message>();
    qRegisterMetaType<keen::MessageList>();
    qRegisterMetaType<keen::StreamEvent>();
    qRegisterMetaType<keen::StreamOptions>();
    qRegisterMetaType<keen::TokenUsage>();
    qRegisterMetaType<keen::UserQuestionList>();
}

} // namespace keen
