#include "chat/chatcolors.h"

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
    return palette.color(QPalette::Window).lightness() < 128;
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

} // namespace keen
