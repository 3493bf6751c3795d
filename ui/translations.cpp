#include "translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QTranslator>

namespace keen {

QString Translations::directory()
{
    return QDir::cleanPath(QCoreApplication::applicationDirPath() +
                           QStringLiteral("/../share/keen-desktop/translations"));
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
