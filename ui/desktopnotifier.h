#pragma once

#include "notifier.h"

#include <QHash>

namespace keen {

// Desktop notifications over D-Bus (org.freedesktop.Notifications, the freedesktop notification spec) for
// the moments the person is elsewhere: a reply or a compaction finished, a permission or a question waits.
// Every call is asynchronous. Clicking a notification reports the session it was about.
class DesktopNotifier final : public Notifier
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DesktopNotifier)

public:
    explicit DesktopNotifier(QObject *parent = nullptr);
    ~DesktopNotifier() override;

    // Listens for clicks and asks which features the notification server has.
    void start();
    void notify(const QString &summary, const QString &body, const QString &sessionId) override;
    void withdraw() override;
    bool bodyMarkup() const { return m_bodyMarkup; }

Q_SIGNALS:
    void sent(uint id); // the server accepted a notification (tests, diagnostics)

private Q_SLOTS:
    // QtDBus connects signals by signature only.
    void onActionInvoked(uint id, const QString &action);
    void onNotificationClosed(uint id, uint reason);

private:
    QHash<uint, QString> m_sessions; // notification id -> session id
    uint m_current = 0;
    bool m_bodyMarkup = false;
    bool m_started = false;
};

} // namespace keen
