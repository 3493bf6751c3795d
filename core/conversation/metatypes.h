#pragma once

namespace keen {

// Registers every value type that crosses a queued connection. Safe to call more than once.
void registerCoreMetaTypes();

} // namespace keen
