#include "scriptedsession.h"

#include "session/sessionstore.h"

#include <QDir>

namespace keen::test {

std::unique_ptr<AgentSession> makeScriptedSession(TestEnvironment &env,
                                                  const std::shared_ptr<ScriptedLlmClient> &client)
{
    auto session = std::make_unique<AgentSession>();
    session->setClientFactory(ScriptedLlmClient::factory(client));
    ClientConfig config;
    config.providerId = QStringLiteral("anthropic");
    config.model = QStringLiteral("test-model");
    config.apiKey = QStringLiteral("test-key");
    config.contextWindow = 200000;
    session->setClientConfig(config);
    QDir().mkpath(env.path(QStringLiteral("work")));
    session->setWorkspace(env.path(QStringLiteral("work")));
    session->setSessionStore(std::make_shared<SessionStore>(env.path(QStringLiteral("sessions"))));
    return session;
}

} // namespace keen::test
