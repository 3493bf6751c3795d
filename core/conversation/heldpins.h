#pragma once

#include "conversation/message.h"
#include "conversation/pin.h"

namespace keen {

// The pins whose text the next request would not carry (issue 16): in no message, and in no tool output the
// history replays, whether as it is, with a JSON string's escapes (a multi-line output inside a tool's JSON
// result), or as a command's card shows it (stdout, then stderr). Those must go in with the next message.
// One pass over the history for all pins: it runs on the GUI thread at every message sent while pins exist.
PinList pinsMissingFromHistory(const MessageList &history, const PinList &pins);

} // namespace keen
