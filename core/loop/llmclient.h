#pragma once

#include "base/cancellationtoken.h"
#include "conversation/eventsink.h"
#include "conversation/message.h"
#include "conversation/streamoptions.h"

#include <functional>

namespace keen {

class ToolRegistry;

// A provider client (reference 1.1). streamChat runs the whole tool loop synchronously on the calling
// thread, which must be a worker thread (StreamRunner provides one): it sends through that thread's
// HttpStreamer (created there on first use), runs tools in model order, and reports through sink. It ends
// with exactly one terminal event (done, error or incomplete), unless the token was cancelled, in which case
// it stops sending events.
class LlmClient
{
public:
    virtual ~LlmClient() = default;
    virtual void streamChat(const MessageList &messages, const ToolRegistry *tools,
                            const StreamOptions &options, const CancellationToken &cancel,
                            const EventSink &sink) = 0;
    // Clears pending state (the partial native turn saved after an incomplete turn).
    virtual void reset() = 0;
};

} // namespace keen
