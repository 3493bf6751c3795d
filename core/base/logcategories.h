#pragma once

#include <QList>
#include <QLoggingCategory>

namespace keen {

// Every keen.* logging category, in one place. Each one prints warnings and worse only, unless
// QT_LOGGING_RULES turns its debug or info lines on ("keen.*.debug=true"): those lines name files, sessions
// and provider messages, which nobody asked to see on stderr or in a journal.
class LogCategories
{
public:
    LogCategories() = delete;

    static const QLoggingCategory &agent();
    static const QLoggingCategory &models();
    static const QLoggingCategory &sessionStore();
    static const QLoggingCategory &sessionIndex();
    static const QLoggingCategory &toolLoop();
    static const QLoggingCategory &notifications();
    static const QLoggingCategory &mcp();

    // All of the above.
    static QList<const QLoggingCategory *> all();
};

} // namespace keen
