#pragma once

#include <QString>
#include <QStringList>

namespace keen {

// The command-line interface: --version, --help, `run ...` and `sessions ...`. Returns the exit code.
int runCommandLine(const QStringList &arguments);
QString usageText();

} // namespace keen
