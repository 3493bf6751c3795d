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
#include <QMessageBox>
#include <QTextStream>

#include <unistd.h>

namespace {

// Says why the window cannot open. Started from a menu or a file manager (a launcher passes a startup id,
// StartupNotify in the desktop file), nobody sees stderr and the window would just not appear: a dialog says
// it too.
int failToStart(const QString &error)
{
    QTextStream(stderr) << "Error: " << error << "\n\n" << keen::usageText();
    qWarning("Keen Desktop did not start: %s", qUtf8Printable(error));
    const bool fromLauncher =
        qEnvironmentVariableIsSet("DESKTOP_STARTUP_ID") || qEnvironmentVariableIsSet("XDG_ACTIVATION_TOKEN");
    if (fromLauncher && !isatty(STDERR_FILENO))
        QMessageBox::critical(nullptr, QApplication::translate("main", "Keen Desktop"),
                              QApplication::translate("main", "Keen Desktop could not start: %1").arg(error));
    return 1;
}

} // namespace

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
    if (!options)
        return failToStart(options.error());
    // `keen-desktop DIR` (and the file manager's "Open With", %F in the desktop file) opens that folder.
    if (const auto folder = options->takeFolderArgument(); !folder)
        return failToStart(folder.error());
    keen::MainWindow window(*options);
    // SIGTERM (a logout, `kill`) and SIGINT end the window as Quit does, after the running turn is stopped
    // and saved: by default they killed it with the turn unsaved. The watcher's grace still ends a hung one.
    const keen::SignalWatcher signalWatcher(window.shutdownToken());
    window.show();
    return app.exec();
}
