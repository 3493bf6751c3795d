#pragma once

#include <QObject>
#include <QPointer>

class QWidget;

namespace keen {

class AgentSession;
class Notifier;

// Tells the person, while the window is not the active one, that a reply or a manual compaction finished,
// or that a permission or a question waits: a desktop notification and the taskbar entry asking for
// attention. Nothing while the window is active, nothing for a turn the person stopped.
class SessionNotifications final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionNotifications)

public:
    SessionNotifications(AgentSession *session, QWidget *window, Notifier *notifier);
    ~SessionNotifications() override;

    void setNotifier(Notifier *notifier) { m_notifier = notifier; }

private:
    void notifyIfAway(const QString &summary, const QString &body);

    AgentSession *m_session;
    QPointer<QWidget> m_window;
    QPointer<Notifier> m_notifier;
    bool m_manualCompaction = false;
    QString m_shellCommand; // the `!command` running
};

} // namespace keen
