#include "apppalette.h"

namespace keen {

namespace {

struct Roles
{
    QColor window, windowText, base, alternateBase, text, placeholder, button, buttonText, brightText;
    QColor light, midlight, mid, dark, shadow, highlight, highlightedText, link, linkVisited;
    QColor toolTipBase, toolTipText, disabledText, disabledButton;
};

QPalette build(const Roles &roles)
{
    QPalette palette;
    for (const QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        const bool disabled = group == QPalette::Disabled;
        palette.setColor(group, QPalette::Window, roles.window);
        palette.setColor(group, QPalette::WindowText, disabled ? roles.disabledText : roles.windowText);
        palette.setColor(group, QPalette::Base, disabled ? roles.window : roles.base);
        palette.setColor(group, QPalette::AlternateBase, roles.alternateBase);
        palette.setColor(group, QPalette::Text, disabled ? roles.disabledText : roles.text);
        palette.setColor(group, QPalette::PlaceholderText, roles.placeholder);
        palette.setColor(group, QPalette::Button, disabled ? roles.disabledButton : roles.button);
        palette.setColor(group, QPalette::ButtonText, disabled ? roles.disabledText : roles.buttonText);
        palette.setColor(group, QPalette::BrightText, roles.brightText);
        palette.setColor(group, QPalette::Light, roles.light);
        palette.setColor(group, QPalette::Midlight, roles.midlight);
        palette.setColor(group, QPalette::Mid, roles.mid);
        palette.setColor(group, QPalette::Dark, roles.dark);
        palette.setColor(group, QPalette::Shadow, roles.shadow);
        palette.setColor(group, QPalette::Highlight, disabled ? roles.mid : roles.highlight);
        palette.setColor(group, QPalette::HighlightedText, roles.highlightedText);
        palette.setColor(group, QPalette::Link, roles.link);
        palette.setColor(group, QPalette::LinkVisited, roles.linkVisited);
        palette.setColor(group, QPalette::ToolTipBase, roles.toolTipBase);
        palette.setColor(group, QPalette::ToolTipText, roles.toolTipText);
    }
    return palette;
}

} // namespace

QPalette AppPalette::light()
{
    Roles roles;
    roles.window = QColor(0xef, 0xf0, 0xf1);
    roles.windowText = QColor(0x23, 0x26, 0x29);
    roles.base = QColor(0xff, 0xff, 0xff);
    roles.alternateBase = QColor(0xf5, 0xf6, 0xf7);
    roles.text = roles.windowText;
    roles.placeholder = QColor(0x70, 0x77, 0x7f);
    roles.button = QColor(0xfc, 0xfc, 0xfc);
    roles.buttonText = roles.windowText;
    roles.brightText = QColor(0xff, 0xff, 0xff);
    roles.light = QColor(0xff, 0xff, 0xff);
    roles.midlight = QColor(0xe3, 0xe5, 0xe7);
    roles.mid = QColor(0xc4, 0xc8, 0xcc);
    roles.dark = QColor(0x88, 0x8e, 0x93);
    roles.shadow = QColor(0x47, 0x4d, 0x54);
    roles.highlight = QColor(0x3d, 0xae, 0xe9);
    roles.highlightedText = QColor(0xff, 0xff, 0xff);
    roles.link = QColor(0x29, 0x80, 0xb9);
    roles.linkVisited = QColor(0x9b, 0x59, 0xb6);
    roles.toolTipBase = QColor(0xf7, 0xf7, 0xf7);
    roles.toolTipText = roles.windowText;
    roles.disabledText = QColor(0xa0, 0xa4, 0xa8);
    roles.disabledButton = QColor(0xe3, 0xe5, 0xe7);
    return build(roles);
}

QPalette AppPalette::dark()
{
    Roles roles;
    roles.window = QColor(0x20, 0x23, 0x26);
    roles.windowText = QColor(0xfc, 0xfc, 0xfc);
    roles.base = QColor(0x14, 0x16, 0x18);
    roles.alternateBase = QColor(0x1d, 0x1f, 0x22);
    roles.text = roles.windowText;
    roles.placeholder = QColor(0x9a, 0xa0, 0xa6);
    roles.button = QColor(0x29, 0x2c, 0x30);
    roles.buttonText = roles.windowText;
    roles.brightText = QColor(0xff, 0xff, 0xff);
    roles.light = QColor(0x40, 0x45, 0x4a);
    roles.midlight = QColor(0x34, 0x38, 0x3d);
    roles.mid = QColor(0x46, 0x4b, 0x51);
    roles.dark = QColor(0x12, 0x13, 0x15);
    roles.shadow = QColor(0x0b, 0x0c, 0x0d);
    roles.highlight = QColor(0x3d, 0xae, 0xe9);
    roles.highlightedText = QColor(0xfc, 0xfc, 0xfc);
    roles.link = QColor(0x1d, 0x99, 0xf3);
    roles.linkVisited = QColor(0x9b, 0x59, 0xb6);
    roles.toolTipBase = QColor(0x29, 0x2c, 0x30);
    roles.toolTipText = roles.windowText;
    roles.disabledText = QColor(0x6e, 0x73, 0x78);
    roles.disabledButton = QColor(0x24, 0x27, 0x2a);
    return build(roles);
}

bool AppPalette::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

} // namespace keen
