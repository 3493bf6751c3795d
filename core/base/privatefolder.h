#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QString>

namespace keen {

// The app's folders hold conversations, keys and usage: readable by their owner only.
class PrivateFolder
{
    Q_DECLARE_TR_FUNCTIONS(PrivateFolder)

public:
    // Creates path and every missing level above it with mode 0700 (made so, never widened afterwards, so no
    // level is briefly readable by others). An existing folder is left as it is. The error reads
    // "<folder>: <reason>", naming the level that could not be made.
    static Result<void> ensure(const QString &path);
};

} // namespace keen
