// The ChatGPT sign-in in the OS keychain, with the 0600 file only when no keychain answers (issue 3).
// ctest runs this against a private gnome-keyring (KEEN_TEST_REQUIRE_KEYCHAIN=1).
#include "auth/codexcredentials.h"
#include "auth/filecredentialstorage.h"
#include "auth/keychaincredentialstorage.h"
#include "testenvironment.h"

#include <QFile>
#include <QTest>

using namespace keen;

namespace {

CodexCredentials sampleCredentials()
{
    CodexCredentials credentials;
    credentials.accessToken = QStringLiteral("access-canary-123");
    credentials.refreshToken = QStringLiteral("refresh-canary-456");
    credentials.expiresAt = QDateTime::currentDateTimeUtc().addSecs(3600);
    credentials.accountId = QStringLiteral("acct_1");
    return credentials;
}

} // namespace

class TestKeychainCredentialStorage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void signInLivesInTheKeychainNotInAFile();
    void fallsBackToPrivateFileWithWarning();
};

void TestKeychainCredentialStorage::signInLivesInTheKeychainNotInAFile()
{
    test::TestEnvironment env;
    qunsetenv("KEEN_DISABLE_KEYCHAIN");
    const QString filePath = env.path(QStringLiteral("auth.json"));
    KeychainCredentialStorage storage(std::make_shared<FileCredentialStorage>(filePath),
                                      QStringLiteral("keen-test-%1").arg(QCoreApplication::applicationPid()));
    const Result<void> saved = storage.save(sampleCredentials());
    QVERIFY2(saved.ok(), qPrintable(saved.error()));
    if (!storage.warning().isEmpty()) {
        // No secret service: only acceptable when the test runs by hand without one.
        QVERIFY2(!qEnvironmentVariableIsSet("KEEN_TEST_REQUIRE_KEYCHAIN"), qPrintable(storage.warning()));
        return;
    }
    QVERIFY(!QFile::exists(filePath)); // nothing on disk
    const auto loaded = storage.load();
    QVERIFY(loaded);
    QCOMPARE(loaded->accessToken, QStringLiteral("access-canary-123"));
    QCOMPARE(loaded->refreshToken, QStringLiteral("refresh-canary-456"));
    QCOMPARE(loaded->accountId, QStringLiteral("acct_1"));
    QVERIFY(storage.remove().ok());
    QVERIFY(!storage.load());
}

void TestKeychainCredentialStorage::fallsBackToPrivateFileWithWarning()
{
    test::TestEnvironment env;
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
    const QString filePath = env.path(QStringLiteral("auth.json"));
    KeychainCredentialStorage storage(std::make_shared<FileCredentialStorage>(filePath));
    QVERIFY(storage.save(sampleCredentials()).ok());
    QVERIFY(!storage.warning().isEmpty());
    QVERIFY(!storage.warning().contains(QStringLiteral("canary")));
    QVERIFY(QFile::exists(filePath));
    QCOMPARE(QFile::permissions(filePath) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
             QFileDevice::Permissions());
    QCOMPARE(storage.load()->accessToken, QStringLiteral("access-canary-123"));
    QVERIFY(storage.remove().ok());
    QVERIFY(!storage.load());
    qunsetenv("KEEN_DISABLE_KEYCHAIN");
}

QTEST_GUILESS_MAIN(TestKeychainCredentialStorage)
#include "tst_keychaincredentialstorage.moc"
