// Keen Desktop entry point: parse argv, then run the window (QApplication + MainWindow) or a headless
// command (QCoreApplication + the core's runners).
#include "config/launchoptions.h"
#include "config/qtarguments.h"
#include "conversation/metatypes.h"
#include "headless/commandline.h"
#include "mainwindow.h"
#include "translations.h"

#include <QApplication>
#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

namespace {

bool isHeadlessCommand(int argc, char **argv)
{
    if (argc < 2)
        return false;
    const QByteArray first(argv[1]);
    return first == "run" || first == "sessions" || first == "--version" || first == "-v" ||
           first == "--help" || first == "-h" || first == "help";
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication::setOrganizationName(QStringLiteral("keen"));
    QCoreApplication::setApplicationName(QStringLiteral("keen-desktop"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KEEN_VERSION));
    keen::registerCoreMetaTypes();

    if (isHeadlessCommand(argc, argv)) {
        QCoreApplication app(argc, argv); // headless output stays English, like the reference agent's
        return keen::runCommandLine(app.arguments());
    }

    keen::QtArguments qtArguments(argc, argv); // outlives the application, which keeps argc and argv
    QApplication app(qtArguments.argc(), qtArguments.argv());
    QApplication::setApplicationDisplayName(QStringLiteral("Keen Desktop"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.keen.KeenDesktop"));
    keen::Translations::install(&app, QLocale()); // the system locale
    auto options = keen::LaunchOptions::parse(app.arguments());
    if (!options) {
        QTextStream(stderr) << "Error: " << options.error() << "\n\n" << keen::usageText();
        return 1;
    }
    // `keen-desktop DIR` (and the file manager's "Open With", %F in the desktop file) opens that folder.
    if (const auto folder = options->takeFolderArgument(); !folder) {
        QTextStream(stderr) << "Error: " << folder.error() << "\n\n" << keen::usageText();
        return 1;
    }
    keen::MainWindow window(*options);
    window.show();
    return app.exec();
}
