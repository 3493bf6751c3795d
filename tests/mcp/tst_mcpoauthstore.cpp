// Where MCP sign-ins are kept: in the OS keychain, as the ChatGPT sign-in is, and in the owner-only
// mcp/oauth.json only when no keychain answers. ctest runs this against a private gnome-keyring
// (KEEN_TEST_REQUIRE_KEYCHAIN=1).
#include "mcp/mcpoauthstore.h"
#include "testenvironment.h"

#include <QFile>
#include <QTest>

using namespace keen;

namespace {

McpOAuthCredentials sample()
{
    McpOAuthCredentials credentials;
    credentials.resource = QStringLiteral("https://mcp.example.com/mcp");
    credentials.tokenEndpoint = QStringLiteral("https://id.example.com/token");
    credentials.clientId = QStringLiteral("client-7");
    credentials.accessToken = QStringLiteral("access-canary-123");
    credentials.refreshToken = QStringLiteral("refresh-canary-456");
    // One expiry for the whole run (found by 20 repeats: a second that ticked between the saved sample and
    // the one compared with made them differ).
    static const qint64 expiresAt = QDateTime::currentSecsSinceEpoch() + 3600;
    credentials.expiresAt = QDateTime::fromSecsSinceEpoch(expiresAt, Qt::UTC);
    return credentials;
}

} // namespace

class TestMcpOAuthStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aSignInLivesInTheKeychainNotInAFile()
    {
        test::TestEnvironment env;
        qunsetenv("KEEN_DISABLE_KEYCHAIN");
        const QString dataDir = env.path(QStringLiteral("data"));
        const QString server = QStringLiteral("keen-test-%1").arg(QCoreApplication::applicationPid());
        // An older sign-in in the file: the keychain's copy replaces it.
        qputenv("KEEN_DISABLE_KEYCHAIN", "1");
        QVERIFY(McpOAuthStore::save(dataDir, server, sample()));
        qunsetenv("KEEN_DISABLE_KEYCHAIN");

        const Result<McpOAuthStore::Place> saved = McpOAuthStore::save(dataDir, server, sample());
        QVERIFY2(saved.ok(), qPrintable(saved.error()));
        if (*saved != McpOAuthStore::Place::Keychain) {
            // No secret service: only acceptable when the test runs by hand without one.
            QVERIFY(!qEnvironmentVariableIsSet("KEEN_TEST_REQUIRE_KEYCHAIN"));
            return;
        }
        QFile file(McpOAuthStore::path(dataDir));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("access-canary-123")); // no plain copy
        const auto loaded = McpOAuthStore::load(dataDir, server);
        QVERIFY(loaded);
        QCOMPARE(*loaded, sample());
        QVERIFY(McpOAuthStore::remove(dataDir, server));
        QVERIFY(!McpOAuthStore::load(dataDir, server));
    }

    void withoutAKeychainTheFileIsOwnerOnly()
    {
        test::TestEnvironment env;
        qputenv("KEEN_DISABLE_KEYCHAIN", "1");
        const QString dataDir = env.path(QStringLiteral("data"));
        const Result<McpOAuthStore::Place> saved =
            McpOAuthStore::save(dataDir, QStringLiteral("cloud"), sample());
        QVERIFY(saved);
        QCOMPARE(*saved, McpOAuthStore::Place::File);
        QCOMPARE(QFile::permissions(McpOAuthStore::path(dataDir)),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                     QFileDevice::WriteUser);
        QCOMPARE(*McpOAuthStore::load(dataDir, QStringLiteral("cloud")), sample());
        // Another server's entry stays when one signs out.
        QVERIFY(McpOAuthStore::save(dataDir, QStringLiteral("other"), sample()));
        QVERIFY(McpOAuthStore::remove(dataDir, QStringLiteral("cloud")));
        QVERIFY(!McpOAuthStore::load(dataDir, QStringLiteral("cloud")));
        QVERIFY(McpOAuthStore::load(dataDir, QStringLiteral("other")));
        // A damaged file is no sign-in, not a crash; the next sign-in replaces it.
        QVERIFY(test::writeFile(McpOAuthStore::path(dataDir), "{not json"));
        QVERIFY(!McpOAuthStore::load(dataDir, QStringLiteral("other")));
        QVERIFY(McpOAuthStore::save(dataDir, QStringLiteral("cloud"), sample()));
        QVERIFY(McpOAuthStore::load(dataDir, QStringLiteral("cloud")));
        qunsetenv("KEEN_DISABLE_KEYCHAIN");
    }
};

QTEST_GUILESS_MAIN(TestMcpOAuthStore)
#include "tst_mcpoauthstore.moc"
