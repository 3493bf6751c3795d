#include "desktopnotifier.h"

#include "base/logcategories.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QGuiApplication>
#include <QVariantMap>

namespace keen {

namespace {
const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");
const QString kInterface = QStringLiteral("org.freedesktop.Notifications");
const QString kDefaultAction = QStringLiteral("default");
constexpr int kMaxBody = 200;

QDBusMessage call(const QString &method)
{
    return QDBusMessage::createMethodCall(kService, kPath, kInterface, method);
}
} // namespace

DesktopNotifier::DesktopNotifier(QObject *parent)
    : Notifier(parent)
{
    setObjectName(QStringLiteral("desktopNotifier"));
}

DesktopNotifier::~DesktopNotifier() = default;

void DesktopNotifier::start()
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (m_started || !bus.isConnected())
        return;
    m_started = true;
    bus.connect(kService, kPath, kInterface, QStringLiteral("ActionInvoked"), this,
                SLOT(onActionInvoked(uint, QString)));
    bus.connect(kService, kPath, kInterface, QStringLiteral("NotificationClosed"), this,
                SLOT(onNotificationClosed(uint, uint)));
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(call(QStringLiteral("GetCapabilities"))), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *pending) {
        const QDBusPendingReply<QStringList> reply = *pending;
        if (!reply.isError())
            m_bodyMarkup = reply.value().contains(QStringLiteral("body-markup"));
        pending->deleteLater();
    });
}

void DesktopNotifier::notify(const QString &summary, const QString &body, const QString &sessionId)
{
    start();
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return;
    QString text = body.simplified();
    if (text.size() > kMaxBody)
        text = text.left(kMaxBody - 1) + QStringLiteral("…");
    if (m_bodyMarkup)
        text = text.toHtmlEscaped();
    const QString appId = QGuiApplication::desktopFileName();
    QVariantMap hints;
    if (!appId.isEmpty())
        hints.insert(QStringLiteral("desktop-entry"), appId);
    hints.insert(QStringLiteral("category"), QStringLiteral("im.received"));
    QDBusMessage message = call(QStringLiteral("Notify"));
    message << QGuiApplication::applicationDisplayName() << m_current
            << (appId.isEmpty() ? QStringLiteral("dialog-information") : appId) << summary << text
            << QStringList{kDefaultAction, tr("Show")} << hints << int(-1);
    auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(message), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, sessionId](QDBusPendingCallWatcher *pending) {
                const QDBusPendingReply<uint> reply = *pending;
                pending->deleteLater();
                if (reply.isError()) {
                    qCInfo(LogCategories::notifications) << "no notification:" << reply.error().message();
                    return;
                }
                m_current = reply.value();
                m_sessions.insert(m_current, sessionId);
                Q_EMIT sent(m_current);
            });
}

void DesktopNotifier::withdraw()
{
    if (m_current == 0)
        return;
    QDBusMessage message = call(QStringLiteral("CloseNotification"));
    message << m_current;
    QDBusConnection::sessionBus().asyncCall(message);
    m_sessions.remove(m_current);
    m_current = 0;
}

void DesktopNotifier::onActionInvoked(uint id, const QString &action)
{
    const auto it = m_sessions.constFind(id);
    if (it == m_sessions.constEnd())
        return; // another application's notification
    if (action == kDefaultAction)
        Q_EMIT activated(it.value());
}

void DesktopNotifier::onNotificationClosed(uint id, uint)
{
    m_sessions.remove(id);
    if (m_current == id)
        m_current = 0;
}

} // namespace keen

#include "moc_desktopnotifier.cpp"
