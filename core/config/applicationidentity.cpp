#include "config/applicationidentity.h"

#include "conversation/metatypes.h"

#include <QCoreApplication>

namespace keen {

void ApplicationIdentity::apply()
{
    QCoreApplication::setOrganizationName(QStringLiteral("keen"));
    QCoreApplication::setApplicationName(QStringLiteral("keen-desktop"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KEEN_VERSION));
    registerCoreMetaTypes();
}

} // namespace keen
