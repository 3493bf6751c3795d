#pragma once

#include "tools/toolregistry.h"

namespace keen {

// The tools the model gets: bash, edit_file, glob, grep, read_file, web_fetch, write_file, and ask_user where
// a person can answer. The registry's context is left for the caller to set.
ToolRegistry createDefaultTools(bool interactive);

} // namespace keen
