#include "displaypath.h"

#include <QDir>

namespace keen {

QString displayPath(const QString &path)
{
    QString shown = QDir::toNativeSeparators(path);
    const QString home = QDir::toNativeSeparators(QDir::homePath());
    if (shown == home || shown.startsWith(home + QDir::separator()))
        shown = QStringLiteral("~") + shown.mid(home.size());
    return shown;
}

} // namespace keen
