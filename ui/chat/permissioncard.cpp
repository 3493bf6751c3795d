#include "chat/permissioncard.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QPushButton>
#include <QVBoxLayout>

namespace keen {

PermissionCard::PermissionCard(const PermissionRequest &request, QWidget *parent)
    : QWidget(parent)
    , m_request(request)
{
    setObjectName(QStringLiteral("permissionCard"));
    setAccessibleName(tr("Permission request"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(20, 0, 20, 12);
    outer->addStretch();
    auto *row = new QHBoxLayout;
    row->setSpacing(8);
    outer->addLayout(row);

    m_allow = addButton(tr("&Allow"), QStringLiteral("allowButton"), PermissionDecision::Allow);
    row->addWidget(m_allow);
    if (!request.isDangerous && !request.outsideWorkspace) {
        row->addWidget(addButton(tr("Allow for this &session"), QStringLiteral("allowSessionButton"),
                                 PermissionDecision::AllowForSession));
    }
    row->addWidget(addButton(tr("&Deny"), QStringLiteral("denyButton"), PermissionDecision::Deny));
    row->addWidget(addButton(tr("Ask &what to do instead"), QStringLiteral("redirectButton"),
                             PermissionDecision::Redirect));
    row->addStretch();
    m_allow->setDefault(true);
}

PermissionCard::~PermissionCard() = default;

QPushButton *PermissionCard::addButton(const QString &text, const QString &objectName,
                                       PermissionDecision decision)
{
    auto *button = new QPushButton(text, this);
    button->setObjectName(objectName);
    button->setAccessibleName(QString(text).remove(QLatin1Char('&')));
    button->setFocusPolicy(Qt::StrongFocus);
    button->setAutoDefault(true);
    connect(button, &QPushButton::clicked, this,
            [this, decision] { Q_EMIT decided(m_request.id, decision); });
    return button;
}

void PermissionCard::focusDefault()
{
    m_allow->setFocus(Qt::OtherFocusReason);
}

void PermissionCard::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        Q_EMIT decided(m_request.id, PermissionDecision::Deny);
        return;
    }
    if (event->key() == Qt::Key_Left || event->key() == Qt::Key_Right) {
        focusNextPrevChild(event->key() == Qt::Key_Right);
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace keen

#include "moc_permissioncard.cpp"
