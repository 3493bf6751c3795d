#include "chat/queuechips.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextDocument> // Qt::convertFromPlainText: a tooltip of conversation text is never rich text
#include <QToolButton>

namespace keen {

QueueChips::QueueChips(QWidget *parent)
    : QWidget(parent)
    , m_layout(new QHBoxLayout(this))
{
    setObjectName(QStringLiteral("queueChips"));
    setAccessibleName(tr("Queued prompts"));
    m_layout->setContentsMargins(12, 2, 12, 2);
    m_layout->setSpacing(6);
    hide();
}

QueueChips::~QueueChips() = default;

void QueueChips::setItems(const QStringList &items)
{
    while (QLayoutItem *child = m_layout->takeAt(0)) {
        delete child->widget();
        delete child;
    }
    for (int i = 0; i < items.size(); ++i) {
        auto *chip = new QFrame(this);
        chip->setObjectName(QStringLiteral("queueChip"));
        chip->setFrameShape(QFrame::StyledPanel);
        auto *chipLayout = new QHBoxLayout(chip);
        chipLayout->setContentsMargins(6, 1, 2, 1);
        chipLayout->setSpacing(2);
        QString first = items.at(i).trimmed().section(QLatin1Char('\n'), 0, 0);
        if (first.size() > 32)
            first = first.left(32) + QStringLiteral("…");
        auto *label = new QLabel(tr("queue: %1").arg(first), chip);
        label->setTextFormat(Qt::PlainText);
        label->setToolTip(Qt::convertFromPlainText(items.at(i), Qt::WhiteSpaceNormal));
        auto *remove = new QToolButton(chip);
        remove->setObjectName(QStringLiteral("queueChipRemove"));
        remove->setText(QStringLiteral("✕"));
        remove->setAutoRaise(true);
        remove->setAccessibleName(tr("Remove queued prompt %1").arg(i + 1));
        remove->setToolTip(tr("Remove from the queue"));
        connect(remove, &QToolButton::clicked, this, [this, i] { Q_EMIT removeRequested(i); });
        chipLayout->addWidget(label);
        chipLayout->addWidget(remove);
        m_layout->addWidget(chip);
    }
    m_layout->addStretch();
    setVisible(!items.isEmpty());
}

} // namespace keen

#include "moc_queuechips.cpp"
