#pragma once

#include "config/modelregistry.h"

namespace keen::test {

// The model registry data read from the source tree (resources/models.json), so tests do not depend on how
// the resource is linked. Loaded once; a missing or broken file stops the test.
const ModelRegistry &sourceModelRegistry();

} // namespace keen::test
