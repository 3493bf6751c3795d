#pragma once

#include <QPalette>

namespace keen {

// The light and dark palettes the window uses when it cannot take them from the desktop: a dark desktop
// whose Qt platform theme only knows light colours, or a scheme forced in View > Color Scheme. Colours
// follow KDE's Breeze and Breeze Dark, so the window sits well beside KDE and GNOME apps.
class AppPalette
{
public:
    static QPalette light();
    static QPalette dark();
    static bool isDark(const QPalette &palette);
};

} // namespace keen
