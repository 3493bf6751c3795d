#include "translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QTranslator>

namespace keen {

QString Translations::directory()
{
    // Installed, the window program is in libexec/keen-desktop, two folders below the prefix; in a build tree
    // it and the tests are one folder below the build folder.
    const QString here = QCoreApplication::applicationDirPath();
    const QString installed =
        QDir::cleanPath(here + QStringLiteral("/../../share/keen-desktop/translations"));
    const QString built = QDir::cleanPath(here + QStringLiteral("/../share/keen-desktop/translations"));
    return QFileInfo::exists(built) || !QFileInfo::exists(installed) ? built : installed;
}

QStringList Translations::install(QCoreApplication *app, const QLocale &locale)
{
    auto *translator = new QTranslator(app);
    if (!translator->load(locale, QStringLiteral("keen-desktop"), QStringLiteral("_"), directory())) {
        delete translator;
        return {}; // English, or a language without our translation: keep Qt's texts English too
    }
    app->installTranslator(translator);
    QStringList installed{translator->filePath()};
    auto *qt = new QTranslator(app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        app->installTranslator(qt);
        installed << qt->filePath();
    } else {
        delete qt;
    }
    return installed;
}

} // namespace keen
