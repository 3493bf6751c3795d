#pragma once

#include <QLocale>
#include <QString>
#include <QStringList>

class QCoreApplication;

namespace keen {

// Loads the window's translations (keen-desktop_<lang>.qm) and Qt's own (qtbase_<lang>.qm, for standard
// dialog buttons) for a locale. The .qm files sit in share/keen-desktop/translations beside the binary's bin
// folder: installed (/usr/bin -> /usr/share) and in the build folder (build/app -> build/share) alike.
class Translations
{
public:
    static QString directory();
    // Returns the files it installed on the application, in order; none for English.
    static QStringList install(QCoreApplication *app, const QLocale &locale);
};

} // namespace keen
