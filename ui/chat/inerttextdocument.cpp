#include "chat/inerttextdocument.h"

#include <QColor>
#include <QImage>
#include <QPainter>

namespace keen {

namespace {
// A small framed square where a picture would be: a null resource is not enough, Qt's image handler then
// loads the file by its name itself.
QImage placeholder()
{
    QImage image(16, 16, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setPen(QColor(128, 128, 128));
    painter.drawRect(QRect(1, 1, 13, 13));
    painter.drawLine(3, 11, 7, 6);
    painter.drawLine(7, 6, 12, 11);
    return image;
}
} // namespace

InertTextDocument::InertTextDocument(QObject *parent)
    : QTextDocument(parent)
{}

InertTextDocument::~InertTextDocument() = default;

QVariant InertTextDocument::loadResource(int type, const QUrl &name)
{
    Q_UNUSED(name);
    static const QImage picture = placeholder();
    return type == QTextDocument::ImageResource ? QVariant(picture) : QVariant();
}

} // namespace keen

#include "moc_inerttextdocument.cpp"
