#pragma once

#include "conversation/permissionrequest.h"

#include <QWidget>

class QPushButton;

namespace keen {

// The buttons of a pending permission card, laid over the bottom strip of its row in the chat view.
// Keyboard operable: every button takes focus and has a mnemonic; Esc denies.
class PermissionCard final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionCard)

public:
    explicit PermissionCard(const PermissionRequest &request, QWidget *parent = nullptr);
    ~PermissionCard() override;

    quint64 requestId() const { return m_request.id; }
    void focusDefault();

Q_SIGNALS:
    void decided(quint64 requestId, keen::PermissionDecision decision);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    QPushButton *addButton(const QString &text, const QString &objectName, PermissionDecision decision);

    PermissionRequest m_request;
    QPushButton *m_allow = nullptr;
};

} // namespace keen
