#pragma once

#include <QObject>
#include <QString>

class QWidget;

namespace keen {

// Where the window tells a person who is elsewhere that something finished or needs them: a desktop
// notification and the taskbar entry. DesktopNotifier speaks D-Bus; tests put a recording one in its place.
class Notifier : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Notifier)

public:
    explicit Notifier(QObject *parent = nullptr);
    ~Notifier() override;

    // Replaces the previous notification, so one window never stacks up several.
    virtual void notify(const QString &summary, const QString &body, const QString &sessionId) = 0;
    // The person is back: the notification is no longer needed.
    virtual void withdraw() = 0;
    // The taskbar entry asks for attention until the window is active (QApplication::alert).
    virtual void requestAttention(QWidget *window);

Q_SIGNALS:
    void activated(const QString &sessionId); // the person clicked the notification
};

} // namespace keen
