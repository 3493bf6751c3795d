// keen-desktop: the headless commands (run, sessions, --version, --help) run here; anything else opens the
// window, which is a second program (keen-desktop-window) this one replaces itself with. Keeping the window's
// libraries (Qt Gui, Widgets, Svg, X11/GL and what they load) out of this program makes every headless start
// cheaper: the dynamic loader binds each library's symbols at start, used or not (docs/PERFORMANCE.md).
#include "config/applicationidentity.h"
#include "headless/commandline.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <unistd.h>

namespace {

bool isHeadlessCommand(int argc, char **argv)
{
    if (argc < 2)
        return false;
    const QByteArray first(argv[1]);
    return first == "run" || first == "sessions" || first == "--version" || first == "-v" ||
           first == "--help" || first == "-h" || first == "help";
}

// The window program: beside this one in a build tree, in libexec once installed (the path from the
// installed bin folder is KEEN_WINDOW_DIR_FROM_BINDIR, computed by CMake).
QString windowProgram()
{
    const QString here = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
    const QDir dir = here.isEmpty() ? QDir::current() : QFileInfo(here).dir();
    const QString name = QStringLiteral("keen-desktop-window");
    for (const QString &candidate :
         {dir.filePath(name), dir.filePath(QStringLiteral(KEEN_WINDOW_DIR_FROM_BINDIR "/") + name)}) {
        if (QFileInfo(candidate).isExecutable())
            return QDir::cleanPath(candidate);
    }
    return QDir::cleanPath(dir.filePath(QStringLiteral(KEEN_WINDOW_DIR_FROM_BINDIR "/") + name));
}

// Replaces this process with the window program, same arguments and environment; returns only on failure.
int openWindow(char **argv)
{
    const QByteArray program = QFile::encodeName(windowProgram());
    execv(program.constData(), argv);
    const int error = errno;
    std::fprintf(
        stderr,
        "keen-desktop: cannot start the window (%s: %s). Reinstall keen-desktop, or use the headless "
        "commands: keen-desktop --help\n",
        program.constData(), std::strerror(error));
    return 127;
}

} // namespace

int main(int argc, char **argv)
{
    if (!isHeadlessCommand(argc, argv))
        return openWindow(argv);
    keen::ApplicationIdentity::apply();
    QCoreApplication app(argc, argv); // headless output stays English, like the reference agent's
    return keen::runCommandLine(app.arguments());
}
