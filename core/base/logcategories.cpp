#include "base/logcategories.h"

namespace keen {

// QtWarningMsg: debug and info are off until a logging rule enables them.
#define KEEN_LOG_CATEGORY(function, name)                                                                    \
    const QLoggingCategory &LogCategories::function()                                                        \
    {                                                                                                        \
        static const QLoggingCategory category(name, QtWarningMsg);                                          \
        return category;                                                                                     \
    }

KEEN_LOG_CATEGORY(agent, "keen.agent")
KEEN_LOG_CATEGORY(models, "keen.config.models")
KEEN_LOG_CATEGORY(sessionStore, "keen.session.store")
KEEN_LOG_CATEGORY(sessionIndex, "keen.session.index")
KEEN_LOG_CATEGORY(toolLoop, "keen.llm.toolloop")
KEEN_LOG_CATEGORY(notifications, "keen.ui.notifications")
KEEN_LOG_CATEGORY(mcp, "keen.mcp")

#undef KEEN_LOG_CATEGORY

QList<const QLoggingCategory *> LogCategories::all()
{
    return {&agent(), &models(), &sessionStore(), &sessionIndex(), &toolLoop(), &notifications(), &mcp()};
}

} // namespace keen
