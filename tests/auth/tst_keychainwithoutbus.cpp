// Without a D-Bus session bus (ssh, CI, a container) no keychain can answer. The lookup says so at once, in
// its own words, without loading libsecret and GIO first: every headless `run` in such a place paid about 6
// ms for an answer known in advance (issue 11). Where a bus may exist, QtKeychain is still asked.
#include "auth/keychain.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace keen;

namespace {

bool libraryLoaded(const QByteArray &name)
{
    QFile maps(QStringLiteral("/proc/self/maps"));
    return maps.open(QIODevice::ReadOnly) && maps.readAll().contains(name);
}

} // namespace

class TestKeychainWithoutBus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void noBusAnswersAtOnceWithoutLoadingTheKeychainLibraries();
    void aBusSocketInTheRuntimeFolderIsTried();

private:
    QTemporaryDir m_home;
    QTemporaryDir m_runtime;
};

void TestKeychainWithoutBus::initTestCase()
{
    QVERIFY(m_home.isValid() && m_runtime.isValid());
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    qunsetenv("DISPLAY");
    qunsetenv("KEEN_DISABLE_KEYCHAIN");
    qputenv("HOME", m_home.path().toLocal8Bit());
    qputenv("XDG_RUNTIME_DIR", m_runtime.path().toLocal8Bit());
    QVERIFY(!libraryLoaded("libsecret"));
}

void TestKeychainWithoutBus::noBusAnswersAtOnceWithoutLoadingTheKeychainLibraries()
{
    for (const QFuture<KeychainReply> &request :
         {Keychain::read(QStringLiteral("openai")),
          Keychain::write(QStringLiteral("openai"), QStringLiteral("k")),
          Keychain::remove(QStringLiteral("openai"))}) {
        QVERIFY(request.isFinished()); // no thread, no wait
        const KeychainReply reply = Keychain::wait(request);
        // The status QtKeychain gives a failed bus connection, so callers decide as they did.
        QCOMPARE(reply.status, KeychainReply::Status::Failed);
        QVERIFY2(reply.error.contains(QStringLiteral("D-Bus session bus")), qPrintable(reply.error));
        QVERIFY(reply.secret.isEmpty());
    }
    QVERIFY(!libraryLoaded("libsecret"));
    QVERIFY(!libraryLoaded("libgio-2.0"));
}

void TestKeychainWithoutBus::aBusSocketInTheRuntimeFolderIsTried()
{
    // A "bus" socket path where GIO would look: QtKeychain is asked (and, nothing listening there, fails in
    // its own words after loading libsecret).
    QFile bus(m_runtime.filePath(QStringLiteral("bus")));
    QVERIFY(bus.open(QIODevice::WriteOnly));
    bus.close();
    const KeychainReply reply = Keychain::wait(Keychain::read(QStringLiteral("openai")), 20000);
    QVERIFY(!reply.ok());
    QVERIFY2(!reply.error.contains(QStringLiteral("no D-Bus session bus")), qPrintable(reply.error));
    QVERIFY(libraryLoaded("libsecret"));
}

QTEST_GUILESS_MAIN(TestKeychainWithoutBus)
#include "tst_keychainwithoutbus.moc"
