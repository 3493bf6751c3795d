#pragma once

#include "base/result.h"
#include "providers/clientconfig.h"

#include <memory>

namespace keen {

class LlmClient;
class ProviderProtocol;

// The protocol for config.providerId, chosen by its ProviderTable entry (reference 1.1 "Client routing"). The
// protocol gets the table's client id ("ollama" is spoken to as "openai-compatible") and, for Chat
// Completions, the table's endpoint when none is set. An id outside the table with a base URL is a custom
// OpenAI-compatible server. Fails with a clear message for any other id outside the table or a Chat
// Completions provider without a base URL.
Result<std::unique_ptr<ProviderProtocol>> createProviderProtocol(const ClientConfig &config);

// One ToolLoopClient around createProviderProtocol's protocol; also fails when no model is set.
Result<std::shared_ptr<LlmClient>> createLlmClient(const ClientConfig &config);

} // namespace keen
