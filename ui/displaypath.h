#pragma once

#include <QString>

namespace keen {

// A folder as the window shows it: native separators, and "~/src/project" for one under the home folder
// (the title bar, the session list, the folder-switch question).
QString displayPath(const QString &path);

} // namespace keen
