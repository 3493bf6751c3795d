#pragma once

#include "conversation/pin.h"
#include "session/sessionevent.h"

#include <QList>

namespace keen {

// The pins in effect after a transcript's events (issue 16, "Pins"): every pin_added whose id no later
// pin_removed names, in the order they were added. A second pin_added with a known id changes nothing.
namespace SessionPins {

PinList active(const QList<SessionEvent> &events);

} // namespace SessionPins
} // namespace keen
