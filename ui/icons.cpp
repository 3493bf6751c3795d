#include "icons.h"

#include <QFile>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QSvgRenderer>

namespace keen {

namespace {
bool g_preferBundled = false;
// The colours the bundled SVGs are drawn with, replaced by the palette's.
constexpr QLatin1String kInk("#232629");
constexpr QLatin1String kPaper("#ffffff");
} // namespace

QStringList Icons::names()
{
    return {QStringLiteral("document-new"),
            QStringLiteral("folder-open"),
            QStringLiteral("document-open-recent"),
            QStringLiteral("document-export"),
            QStringLiteral("edit-clear-history"),
            QStringLiteral("process-stop"),
            QStringLiteral("keen-compact"),
            QStringLiteral("sidebar-show"),
            QStringLiteral("preferences-system"),
            QStringLiteral("application-exit"),
            QStringLiteral("help-about"),
            QStringLiteral("help-contents"),
            QStringLiteral("keen-context"),
            QStringLiteral("edit-undo"),
            QStringLiteral("edit-find"),
            QStringLiteral("go-down"),
            QStringLiteral("go-up"),
            QStringLiteral("zoom-in"),
            QStringLiteral("zoom-out"),
            QStringLiteral("zoom-original")};
}

void Icons::setPreferBundled(bool prefer)
{
    g_preferBundled = prefer;
}

bool Icons::prefersBundled()
{
    return g_preferBundled;
}

QIcon Icons::bundled(const QString &name, const QPalette &palette)
{
    QFile file(QStringLiteral(":/keen/icons/%1.svg").arg(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray svg = file.readAll();
    svg.replace(QByteArray(kInk.data(), kInk.size()), palette.color(QPalette::ButtonText).name().toLatin1());
    svg.replace(QByteArray(kPaper.data(), kPaper.size()), palette.color(QPalette::Button).name().toLatin1());
    QSvgRenderer renderer(svg);
    QIcon icon;
    for (const int size : {16, 22, 24, 32, 48, 64}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        renderer.render(&painter);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

QIcon Icons::icon(const QString &name, const QPalette &palette)
{
    if (!g_preferBundled && QIcon::hasThemeIcon(name))
        return QIcon::fromTheme(name);
    return bundled(name, palette);
}

} // namespace keen
