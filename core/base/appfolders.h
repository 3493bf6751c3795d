#pragma once

#include <QString>

namespace keen {

// Where the app keeps its files (README, "Where data lives"): everything under $KEEN_HOME when it is set
// (tests, a second profile), else the platform's data and config folders.
class AppFolders
{
public:
    AppFolders() = delete;

    static QString data();   // sessions, index, artifacts, skills, agents, mcp, logs
    static QString config(); // settings.json, auth.json, window state, input history
};

} // namespace keen
