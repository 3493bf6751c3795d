#pragma once

// A MainWindow for widget tests (header only: the support library does not link the widgets): Anthropic
// with a scripted client and a key from the environment, in the test environment's project folder.
#include "mainwindow.h"
#include "scriptedllmclient.h"
#include "testenvironment.h"

#include "agent/agentsession.h"

#include <QDir>
#include <QSettings>

#include <memory>

namespace keen::test {

// Once per test case: window state and the key stay inside env.
inline void prepareWindowEnvironment(TestEnvironment &env)
{
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, env.path(QStringLiteral("qsettings")));
    qputenv("ANTHROPIC_API_KEY", "test-key");
    QDir().mkpath(env.path(QStringLiteral("project")));
}

// A shown window whose session streams from client; window is the context window in tokens.
inline std::unique_ptr<MainWindow>
makeTestWindow(TestEnvironment &env, const std::shared_ptr<ScriptedLlmClient> &client, qint64 window = 100000)
{
    LaunchOptions options;
    options.provider = QStringLiteral("anthropic");
    options.model = QStringLiteral("claude-fable-5-1");
    options.workspace = env.path(QStringLiteral("project"));
    options.contextWindow = window;
    auto main = std::make_unique<MainWindow>(options);
    main->session()->setClientFactory(ScriptedLlmClient::factory(client));
    ClientConfig config = main->session()->clientConfig();
    config.apiKey = QStringLiteral("k");
    main->applyClientConfig(config);
    main->show();
    return main;
}

} // namespace keen::test
