// DesktopNotifier speaks the freedesktop notification protocol: on a private session bus (dbus-run-session,
// see tests/CMakeLists.txt) a stand-in notification server answers Notify and later reports a click, as GNOME
// Shell or Plasma would. Proves the call's shape (application, replaced id, desktop entry, the "default"
// action) and that a click reports the session while another application's click does not.
#include "desktopnotifier.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace keen;

namespace {
const QString kService = QStringLiteral("org.freedesktop.Notifications");
const QString kPath = QStringLiteral("/org/freedesktop/Notifications");

// The notification server, on its own bus connection.
class FakeNotificationServer final : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")

public:
    struct Call
    {
        QString appName;
        uint replacesId = 0;
        QString summary;
        QString body;
        QStringList actions;
        QVariantMap hints;
    };
    QList<Call> calls;
    QList<uint> closed;
    uint nextId = 41;

public Q_SLOTS:
    QStringList GetCapabilities() { return {QStringLiteral("actions"), QStringLiteral("body")}; }
    uint Notify(const QString &appName, uint replacesId, const QString &, const QString &summary,
                const QString &body, const QStringList &actions, const QVariantMap &hints, int)
    {
        calls.append({appName, replacesId, summary, body, actions, hints});
        return replacesId != 0 ? replacesId : ++nextId;
    }
    void CloseNotification(uint id) { closed.append(id); }
};
} // namespace

class TestDesktopNotifier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void notifyReplacesAndAClickReportsTheSession();

private:
    void sendSignal(const QString &name, const QList<QVariant> &arguments);

    FakeNotificationServer m_server;
    std::optional<QDBusConnection> m_serverBus;
};

void TestDesktopNotifier::initTestCase()
{
    QVERIFY2(QDBusConnection::sessionBus().isConnected(), "run under dbus-run-session");
    m_serverBus = QDBusConnection::connectToBus(QDBusConnection::SessionBus, QStringLiteral("fake-server"));
    QVERIFY(m_serverBus->isConnected());
    QVERIFY(m_serverBus->registerObject(kPath, &m_server, QDBusConnection::ExportAllSlots));
    QVERIFY(m_serverBus->registerService(kService));
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Keen Desktop"));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.keen.KeenDesktop"));
}

void TestDesktopNotifier::sendSignal(const QString &name, const QList<QVariant> &arguments)
{
    QDBusMessage signal = QDBusMessage::createSignal(kPath, kService, name);
    signal.setArguments(arguments);
    QVERIFY(m_serverBus->send(signal));
}

void TestDesktopNotifier::notifyReplacesAndAClickReportsTheSession()
{
    DesktopNotifier notifier;
    QSignalSpy sent(&notifier, &DesktopNotifier::sent);
    QSignalSpy activated(&notifier, &Notifier::activated);
    notifier.notify(QStringLiteral("Reply finished"), QStringLiteral("The tests pass <now>."),
                    QStringLiteral("session-1"));
    QTRY_COMPARE(sent.size(), 1);
    QCOMPARE(m_server.calls.size(), 1);
    const FakeNotificationServer::Call first = m_server.calls.first();
    QCOMPARE(first.appName, QStringLiteral("Keen Desktop"));
    QCOMPARE(first.replacesId, 0u);
    QCOMPARE(first.summary, QStringLiteral("Reply finished"));
    QCOMPARE(first.body, QStringLiteral("The tests pass <now>.")); // no body-markup: sent as it is
    QCOMPARE(first.actions.value(0), QStringLiteral("default"));
    QCOMPARE(first.hints.value(QStringLiteral("desktop-entry")).toString(),
             QStringLiteral("io.github.keen.KeenDesktop"));
    const uint id = sent.first().first().toUInt();

    // The next one replaces it: one window never stacks up notifications.
    notifier.notify(QStringLiteral("Permission needed"), QStringLiteral("Run make?"),
                    QStringLiteral("session-2"));
    QTRY_COMPARE(sent.size(), 2);
    QCOMPARE(m_server.calls.at(1).replacesId, id);

    // Another application's click is not ours; ours reports the session it was about.
    sendSignal(QStringLiteral("ActionInvoked"), {QVariant::fromValue(id + 100), QStringLiteral("default")});
    sendSignal(QStringLiteral("ActionInvoked"), {QVariant::fromValue(id), QStringLiteral("default")});
    QTRY_COMPARE(activated.size(), 1);
    QCOMPARE(activated.first().first().toString(), QStringLiteral("session-2"));

    notifier.withdraw();
    QTRY_COMPARE(m_server.closed, QList<uint>{id});
}

QTEST_MAIN(TestDesktopNotifier)
#include "tst_desktopnotifier.moc"
