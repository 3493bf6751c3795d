#pragma once

#include <QByteArrayList>

#include <vector>

namespace keen {

// The argc/argv given to QApplication. QGuiApplication takes "-session ID" and "--session ID" out of argv for
// X11 session management, so the window never saw `keen-desktop --session ID`; here that flag is spelled
// --resume (its alias in LaunchOptions). Qt's own flags (-platform, -style...) pass unchanged. QApplication
// keeps references to argc and argv, so this object must outlive it.
class QtArguments
{
public:
    QtArguments(int argc, const char *const *argv);
    QtArguments(const QtArguments &) = delete;
    QtArguments &operator=(const QtArguments &) = delete;

    int &argc() { return m_argc; }
    char **argv() { return m_pointers.data(); }
    const QByteArrayList &arguments() const { return m_arguments; }

private:
    QByteArrayList m_arguments;
    std::vector<char *> m_pointers; // into m_arguments, null-terminated as C's argv
    int m_argc = 0;
};

} // namespace keen
