#pragma once

#include <QIcon>
#include <QStringList>

class QPalette;

namespace keen {

// Toolbar and menu icons: the freedesktop icon theme's (QIcon::fromTheme) when the desktop has them, else
// the SVGs bundled under resources/icons, drawn in the palette's text colour so they read in light and dark.
class Icons
{
public:
    static QIcon icon(const QString &name, const QPalette &palette);
    // When the window forces a scheme other than the desktop's, the theme's icons are drawn for the other
    // background: use the bundled ones.
    static void setPreferBundled(bool prefer);
    static bool prefersBundled();
    // Every name the window asks for; each has a bundled SVG.
    static QStringList names();
    static QIcon bundled(const QString &name, const QPalette &palette);
};

} // namespace keen
