#pragma once

#include "base/result.h"
#include "providers/clientconfig.h"

#include <memory>

namespace keen {

class LlmClient;

// Routes a provider id to its client (reference 1.1 "Client routing"): one ToolLoopClient around the
// provider's protocol. Fails with a clear message for an unknown provider or a missing base URL.
Result<std::shared_ptr<LlmClient>> createLlmClient(const ClientConfig &config);

// The providers createLlmClient knows, in the order the UI offers them.
QStringList supportedProviders();

} // namespace keen
