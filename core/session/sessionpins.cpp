#include "session/sessionpins.h"

namespace keen::SessionPins {

PinList active(const QList<SessionEvent> &events)
{
    PinList pins;
    for (const SessionEvent &event : events) {
        if (const SessionEvent::PinAdd *added = event.pinAdd()) {
            const bool known = std::any_of(pins.cbegin(), pins.cend(),
                                           [&](const Pin &pin) { return pin.id == added->pin.id; });
            if (!known && !added->pin.id.isEmpty())
                pins.append(added->pin);
        } else if (const SessionEvent::PinRemove *removed = event.pinRemove()) {
            pins.removeIf([&](const Pin &pin) { return pin.id == removed->id; });
        }
    }
    return pins;
}

} // namespace keen::SessionPins
