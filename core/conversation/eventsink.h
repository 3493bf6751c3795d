#pragma once

#include "conversation/streamevent.h"

#include <functional>

namespace keen {

// Where a provider client and its stream decoder report stream events (on the worker thread).
using EventSink = std::function<void(const StreamEvent &)>;

} // namespace keen
