#include "base/appfolders.h"

#include <QStandardPaths>

namespace keen {

QString AppFolders::data()
{
    const QString home = qEnvironmentVariable("KEEN_HOME");
    return home.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) : home;
}

QString AppFolders::config()
{
    const QString home = qEnvironmentVariable("KEEN_HOME");
    return home.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) : home;
}

} // namespace keen
