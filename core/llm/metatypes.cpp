#include "metatypes.h"

#include "cancellationtoken.h"
#include "message.h"
#include "streamevent.h"
#include "streamoptions.h"
#include "tokenusage.h"

namespace keen {

void registerCoreMetaTypes()
{
    qRegisterMetaType<keen::CancellationToken>();
    qRegisterMetaType<keen::Message>();
    qRegisterMetaType<keen::MessageList>();
    qRegisterMetaType<keen::StreamEvent>();
    qRegisterMetaType<keen::StreamOptions>();
    qRegisterMetaType<keen::TokenUsage>();
}

} // namespace keen
