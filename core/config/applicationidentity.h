#pragma once

namespace keen {

// What both programs (the headless keen-desktop and the window it starts) set before anything else: the
// names settings and data folders are found under, the version, and the value types that cross threads.
struct ApplicationIdentity
{
    static void apply();
};

} // namespace keen
