#pragma once

#include "conversation/pin.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace keen {

class AgentSession;

// Conversation > Pins (and /pins, the pins button under the chat): what every compaction keeps verbatim
// (issue 16), with the pin budget used, a note to pin and Unpin. Follows the session's pins as they change.
class PinsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PinsDialog)

public:
    explicit PinsDialog(AgentSession *session, QWidget *parent = nullptr);
    ~PinsDialog() override;

    QListWidget *list() const { return m_list; }
    QLabel *budgetLabel() const { return m_budget; }

    // Adds the pin; when it is refused (over the budget, empty), a dialog parented to parent says why.
    static bool addOrExplain(AgentSession *session, const Pin &pin, QWidget *parent);
    // "Pins use about 1.2k of 12.8k tokens."
    static QString budgetText(qint64 used, qint64 budget);

private:
    void refresh();
    void pinNote();
    void unpinSelected();

    AgentSession *m_session;
    QListWidget *m_list;
    QLabel *m_budget;
    QLineEdit *m_note;
    QPushButton *m_pinButton;
    QPushButton *m_unpinButton;
};

} // namespace keen
