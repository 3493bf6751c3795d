#pragma once

#include "fakepermissionrequester.h"
#include "testenvironment.h"
#include "tools/filesystemguard.h"
#include "tools/tool.h"

#include <QTemporaryDir>

#include <memory>

namespace keen::test {

// A tool's surroundings for a test: an isolated environment, an empty temporary workspace, a person who
// allows every request, the filesystem guard for that workspace, and an interactive ToolContext using them.
struct ToolTestWorkspace
{
    TestEnvironment env;
    QTemporaryDir ws;
    FakePermissionRequester person;
    std::unique_ptr<FilesystemGuard> guard;
    ToolContext context;

    ToolTestWorkspace()
    {
        guard = std::make_unique<FilesystemGuard>(ws.path(), env.path(QStringLiteral("data")),
                                                  env.path(QStringLiteral("home")));
        context.workspace = ws.path();
        context.dataDir = env.path(QStringLiteral("data"));
        context.permissions = &person;
        context.guard = guard.get();
        context.interactive = true;
    }
};

} // namespace keen::test
