#include "notifier.h"

#include <QApplication>

namespace keen {

Notifier::Notifier(QObject *parent)
    : QObject(parent)
{}

Notifier::~Notifier() = default;

void Notifier::requestAttention(QWidget *window)
{
    QApplication::alert(window);
}

} // namespace keen

#include "moc_notifier.cpp"
