// keen-desktop-window: the desktop window. keen-desktop starts it (by exec, with the person's arguments) for
// anything that is not a headless command; the headless commands never load this program's libraries.
#include "base/logfile.h"
#include "config/applicationidentity.h"
#include "config/launchoptions.h"
#include "config/qtarguments.h"
#include "headless/commandline.h"
#include "headless/signalwatcher.h"
#include "mainwindow.h"
#include "translations.h"

#include <QApplication>
#include <QTextStream>

int main(int argc, char **argv)
{
    keen::ApplicationIdentity::apply();
    keen::QtArguments qtArguments(argc, argv); // outlives the application, which keeps argc and argv
    QApplication app(qtArguments.argc(), qtArguments.argv());
    QApplication::setApplicationDisplayName(QStringLiteral("Keen Desktop"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.keen.KeenDesktop"));
    keen::Translations::install(&app, QLocale()); // the system locale
    // Started from a menu, nobody sees stderr: warnings and worse (or what KEEN_LOG_LEVEL says) go to a file.
    keen::LogFile::Level logLevel = keen::LogFile::Level::Warning;
    if (const QString asked = qEnvironmentVariable("KEEN_LOG_LEVEL"); !asked.isEmpty()) {
        if (const auto parsed = keen::LogFile::parseLevel(asked))
            logLevel = *parsed;
        else
            QTextStream(stderr) << "Warning: " << parsed.error() << '\n';
    }
    keen::LogFile::install(keen::LogFile::defaultFolder(), logLevel);
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
    // SIGTERM (a logout, `kill`) and SIGINT end the window as Quit does, after the running turn is stopped
    // and saved: by default they killed it with the turn unsaved. The watcher's grace still ends a hung one.
    const keen::SignalWatcher signalWatcher(window.shutdownToken());
    window.show();
    return app.exec();
}
