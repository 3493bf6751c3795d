#pragma once

#include "scriptedllmclient.h"
#include "testenvironment.h"

#include "agent/agentsession.h"

#include <memory>

namespace keen::test {

// An AgentSession for panel tests: Anthropic, a 200,000-token window, every request answered by client, the
// env's "work" folder as workspace and its "sessions" folder as the store.
std::unique_ptr<AgentSession> makeScriptedSession(TestEnvironment &env,
                                                  const std::shared_ptr<ScriptedLlmClient> &client);

} // namespace keen::test
