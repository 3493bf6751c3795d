#include "chat/chatcolors.h"

#include "apppalette.h"

namespace keen {

namespace {

QColor mix(const QColor &a, const QColor &b, qreal amountOfB)
{
    const qreal keep = 1.0 - amountOfB;
    return QColor::fromRgbF(float(a.redF() * keep + b.redF() * amountOfB),
                            float(a.greenF() * keep + b.greenF() * amountOfB),
                            float(a.blueF() * keep + b.blueF() * amountOfB));
}

} // namespace

bool ChatColors::isDark(const QPalette &palette)
{
    return AppPalette::isDark(palette);
}

QColor ChatColors::codeBlockBackground(const QPalette &palette)
{
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), isDark(palette) ? 0.10 : 0.05);
}

QColor ChatColors::inlineCodeBackground(const QPalette &palette)
{
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), isDark(palette) ? 0.16 : 0.09);
}

QColor ChatColors::inlineCodeText(const QPalette &palette)
{
    return mix(palette.color(QPalette::Text), palette.color(QPalette::Link), 0.35);
}

QColor ChatColors::tableBorder(const QPalette &palette)
{
    return palette.color(QPalette::Mid);
}

QColor ChatColors::quoteBar(const QPalette &palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    return QColor::fromRgbF((base.redF() + text.redF()) / 2, (base.greenF() + text.greenF()) / 2,
                            (base.blueF() + text.blueF()) / 2);
}

// Fixed hues, one for light and one for dark backgrounds: green, amber and red must read as such.
QColor ChatColors::diffAdded(const QPalette &palette)
{
    return isDark(palette) ? QColor(0x1f, 0x3d, 0x26) : QColor(0xe3, 0xf6, 0xe6);
}

QColor ChatColors::diffRemoved(const QPalette &palette)
{
    return isDark(palette) ? QColor(0x4a, 0x23, 0x26) : QColor(0xfb, 0xe4, 0xe4);
}

QColor ChatColors::diffHunk(const QPalette &palette)
{
    return isDark(palette) ? QColor(0x26, 0x31, 0x3d) : QColor(0xee, 0xf2, 0xf7);
}

QColor ChatColors::success(const QPalette &palette)
{
    return isDark(palette) ? QColor(0x5c, 0xc4, 0x6c) : QColor(0x2e, 0x8b, 0x3e);
}

QColor ChatColors::aside(const QPalette &palette)
{
    return isDark(palette) ? QColor(0x4f, 0xc1, 0xc1) : QColor(0x17, 0x8a, 0x8a); // teal
}

QColor ChatColors::warning(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xe8, 0xa3, 0x3d) : QColor(0xc0, 0x74, 0x10);
}

QColor ChatColors::error(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xef, 0x5b, 0x5b) : QColor(0xc8, 0x32, 0x32);
}

QColor ChatColors::muted(const QPalette &palette)
{
    return palette.color(QPalette::PlaceholderText);
}

} // namespace keen
