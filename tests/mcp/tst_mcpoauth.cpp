// Signing in to a remote MCP server with OAuth (reference 6.1 /mcp connect, 8.3 auth "oauth"; MCP
// authorization): the server's 401 challenge leads to its resource metadata and its authorization server,
// the app registers itself, the browser's redirect brings the code to a loopback address, the code is
// exchanged with PKCE and the resource indicator, the tokens are kept owner-only, a token about to expire
// (or refused) is renewed, and a server nobody signed in to says how to sign in.
#include "auth/pkce.h"
#include "fakeoauthmcpserver.h"
#include "fakeproviderserver.h"
#include "mcp/mcphub.h"
#include "mcp/mcpoauthclient.h"
#include "mcp/mcpoauthstore.h"
#include "mcp/mcpsignin.h"
#include "testenvironment.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>
#include <QUrlQuery>
#include <QtConcurrent/QtConcurrentRun>

#include <sys/stat.h>

using namespace keen;
using test::FakeOAuthMcpServer;
using test::FakeProviderServer;

namespace {

int mode(const QString &path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 0777);
}

std::optional<McpHub::ServerStatus> settled(McpHub &hub)
{
    FakeProviderServer::spinUntil([&] {
        const auto status = hub.server(QStringLiteral("cloud"));
        return status && status->state != McpConnection::State::Connecting;
    });
    return hub.server(QStringLiteral("cloud"));
}

} // namespace

class TestMcpOAuth : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Where no keychain answers (as in CI), the sign-ins are kept in the owner-only file, and the person is
    // told so. The keychain round trip is tst_mcpoauthstore.
    void initTestCase() { qputenv("KEEN_DISABLE_KEYCHAIN", "1"); }

    void readsChallengesAndMetadataAddresses()
    {
        const McpOAuthClient::Challenge challenge = McpOAuthClient::parseChallenge(
            "Bearer realm=\"mcp\", error=\"invalid_token\", "
            "resource_metadata=\"https://a.example/.well-known/"
            "oauth-protected-resource/mcp\", scope=\"files:read files:write\"");
        QCOMPARE(challenge.resourceMetadata,
                 QUrl(QStringLiteral("https://a.example/.well-known/oauth-protected-resource/mcp")));
        QCOMPARE(challenge.scope, QStringLiteral("files:read files:write"));
        QVERIFY(!McpOAuthClient::parseChallenge("Bearer resource_metadata=\"/relative\"")
                     .resourceMetadata.isValid());
        QVERIFY(!McpOAuthClient::parseChallenge("").resourceMetadata.isValid());

        QCOMPARE(
            McpOAuthClient::resourceMetadataUrls(QUrl(QStringLiteral("https://a.example:8443/v1/mcp/"))),
            QList<QUrl>(
                {QUrl(QStringLiteral("https://a.example:8443/.well-known/oauth-protected-resource/v1/mcp")),
                 QUrl(QStringLiteral("https://a.example:8443/.well-known/oauth-protected-resource"))}));
        QCOMPARE(
            McpOAuthClient::authorizationServerMetadataUrls(QUrl(QStringLiteral("https://id.example/t1"))),
            QList<QUrl>({QUrl(QStringLiteral("https://id.example/.well-known/oauth-authorization-server/t1")),
                         QUrl(QStringLiteral("https://id.example/.well-known/openid-configuration/t1")),
                         QUrl(QStringLiteral("https://id.example/t1/.well-known/openid-configuration"))}));
        QCOMPARE(McpOAuthClient::authorizationServerMetadataUrls(QUrl(QStringLiteral("https://id.example")))
                     .first(),
                 QUrl(QStringLiteral("https://id.example/.well-known/oauth-authorization-server")));
        QCOMPARE(McpOAuthClient::canonicalResource(QUrl(QStringLiteral("HTTPS://MCP.Example.com/Mcp#x"))),
                 QStringLiteral("https://mcp.example.com/Mcp"));

        QVERIFY(McpOAuthClient::isSecureEndpoint(QUrl(QStringLiteral("https://id.example/token"))));
        QVERIFY(McpOAuthClient::isSecureEndpoint(QUrl(QStringLiteral("http://127.0.0.1:9/token"))));
        QVERIFY(McpOAuthClient::isSecureEndpoint(QUrl(QStringLiteral("http://localhost/token"))));
        QVERIFY(!McpOAuthClient::isSecureEndpoint(QUrl(QStringLiteral("http://id.example/token"))));
        QVERIFY(!McpOAuthClient::isSecureEndpoint(QUrl(QStringLiteral("ftp://127.0.0.1/token"))));

        // A refused refresh names the reason, never the token it quotes.
        McpOAuthCredentials base;
        base.refreshToken = QStringLiteral("refresh-secret-123456");
        const Result<McpOAuthCredentials> refused = McpOAuthClient::parseTokenResponse(
            400, "{\"error\":\"invalid_grant\",\"error_description\":\"refresh-secret-123456 expired\"}",
            base);
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QStringLiteral("HTTP 400")) &&
                     refused.error().contains(QStringLiteral("invalid_grant")) &&
                     !refused.error().contains(QStringLiteral("refresh-secret-123456")),
                 qPrintable(refused.error()));
        QVERIFY(!McpOAuthClient::parseTokenResponse(200, "{\"access_token\":\"a\",\"token_type\":\"mac\"}",
                                                    base));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const Result<McpOAuthCredentials> kept = McpOAuthClient::parseTokenResponse(
            200, "{\"access_token\":\"a2\",\"expires_in\":120}", base, now);
        QVERIFY(kept);
        QCOMPARE(kept->refreshToken, base.refreshToken); // a response without one keeps the old
        QCOMPARE(kept->expiresAt, now.addSecs(120));
        QVERIFY(kept->expiresWithin(McpConnection::RenewSeconds, now.addSecs(61)));
        QVERIFY(!kept->expiresWithin(McpConnection::RenewSeconds, now));
    }

    void signsInWithTheBrowserAndConnects()
    {
        test::TestEnvironment env;
        const QString dataDir = env.path(QStringLiteral("data"));
        FakeOAuthMcpServer cloud;

        // Nobody signed in yet: the server is listed as failed, with how to sign in.
        {
            McpHub hub(env.path(QStringLiteral("ws")), dataDir, {});
            hub.configure({cloud.config()});
            const auto status = settled(hub);
            QCOMPARE(status->state, McpConnection::State::Failed);
            QVERIFY2(status->detail.contains(QStringLiteral("not signed in: /mcp connect cloud")),
                     qPrintable(status->detail));
        }

        McpSignIn signIn(cloud.config(), dataDir);
        QSignalSpy browser(&signIn, &McpSignIn::browserNeeded);
        QSignalSpy finished(&signIn, &McpSignIn::finished);
        signIn.start();
        QVERIFY(FakeProviderServer::spinUntil([&] { return !browser.isEmpty() || !finished.isEmpty(); }));
        QVERIFY2(finished.isEmpty(), qPrintable(finished.value(0).value(1).toString()));
        const QUrl page = browser.first().first().toUrl();
        const QUrlQuery query(page);
        QCOMPARE(page.toString(QUrl::RemoveQuery), cloud.endpoint(QStringLiteral("/authorize")));
        QCOMPARE(query.queryItemValue(QStringLiteral("response_type")), QStringLiteral("code"));
        QCOMPARE(query.queryItemValue(QStringLiteral("client_id")), QStringLiteral("client-7"));
        QCOMPARE(query.queryItemValue(QStringLiteral("code_challenge_method")), QStringLiteral("S256"));
        QCOMPARE(query.queryItemValue(QStringLiteral("resource"), QUrl::FullyDecoded), cloud.mcpUrl());
        QCOMPARE(query.queryItemValue(QStringLiteral("scope"), QUrl::FullyDecoded),
                 QStringLiteral("files:read"));
        const QUrl redirect(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded));
        QCOMPARE(redirect.host(), QStringLiteral("127.0.0.1"));
        QCOMPARE(redirect.path(), QStringLiteral("/auth/callback"));
        cloud.challenge = query.queryItemValue(QStringLiteral("code_challenge"));

        // The app registered itself for that redirect, as a public client.
        const auto registrations = cloud.auth.requests();
        const auto registered = std::find_if(registrations.cbegin(), registrations.cend(),
                                             [](const auto &r) { return r.path == "/tenant/register"; });
        QVERIFY(registered != registrations.cend());
        QCOMPARE(registered->json[QStringLiteral("redirect_uris")].toArray().first().toString(),
                 redirect.toString());
        QCOMPARE(registered->json[QStringLiteral("token_endpoint_auth_method")].toString(),
                 QStringLiteral("none"));

        QCOMPARE(FakeOAuthMcpServer::followRedirect(page, QStringLiteral("code-1")), 200);
        QVERIFY(FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }));
        QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().value(1).toString()));
        QCOMPARE(
            finished.first().value(1).toString(),
            QStringLiteral("Signed in to MCP server cloud (kept in a file only you can read: no keychain is "
                           "available)."));
        QVERIFY(!cloud.lastVerifier.isEmpty());

        // Kept for this user only; the server connects with the token.
        const QString store = McpOAuthStore::path(dataDir);
        QCOMPARE(mode(store), 0600);
        const auto saved = McpOAuthStore::load(dataDir, QStringLiteral("cloud"));
        QVERIFY(saved);
        QCOMPARE(saved->accessToken, QStringLiteral("access-1"));
        QCOMPARE(saved->clientId, QStringLiteral("client-7"));
        QCOMPARE(saved->resource, cloud.mcpUrl());
        McpHub hub(env.path(QStringLiteral("ws")), dataDir, {});
        hub.configure({cloud.config()});
        const auto status = settled(hub);
        QCOMPARE(status->state, McpConnection::State::Ready);
        QCOMPARE(status->tools.size(), 1);
        QCOMPARE(cloud.mcp.lastRequest().header("Authorization"), QByteArray("Bearer access-1"));
    }

    void renewsATokenBeforeItExpiresAndWhenItIsRefused()
    {
        test::TestEnvironment env;
        const QString dataDir = env.path(QStringLiteral("data"));
        FakeOAuthMcpServer cloud;
        McpOAuthCredentials credentials = cloud.signIn(QStringLiteral("access-old"), 30); // inside the minute
        QVERIFY(McpOAuthStore::save(dataDir, QStringLiteral("cloud"), credentials));
        {
            McpHub hub(env.path(QStringLiteral("ws")), dataDir, {});
            hub.configure({cloud.config()});
            QCOMPARE(settled(hub)->state, McpConnection::State::Ready);
            QCOMPARE(cloud.mcp.requests().first().header("Authorization"), QByteArray("Bearer access-1"));
            // Kept for the next start (saved off the connection's thread, so a moment later).
            QTRY_COMPARE(McpOAuthStore::load(dataDir, QStringLiteral("cloud"))->accessToken,
                         QStringLiteral("access-1"));
        }

        // A long session outlives its token: the call that comes after the renewal time renews it first.
        cloud.expiresIn = McpConnection::RenewSeconds + 2;
        QVERIFY(McpOAuthStore::save(dataDir, QStringLiteral("cloud"), credentials));
        {
            McpHub hub(env.path(QStringLiteral("ws")), dataDir, {});
            hub.configure({cloud.config()});
            QCOMPARE(settled(hub)->state, McpConnection::State::Ready);
            const QByteArray connectedWith = cloud.mcp.lastRequest().header("Authorization");
            QTest::qWait(2500);
            QFuture<Result<QJsonObject>> called = QtConcurrent::run([&] {
                return hub.callTool(QStringLiteral("cloud"), QStringLiteral("files_list"), {},
                                    CancellationToken());
            });
            QVERIFY(FakeProviderServer::spinUntil([&] { return called.isFinished(); }));
            QVERIFY2(called.result(), qPrintable(called.result().error()));
            const QByteArray calledWith = cloud.mcp.lastRequest().header("Authorization");
            QCOMPARE(cloud.mcp.lastRequest().json[QStringLiteral("method")].toString(),
                     QStringLiteral("tools/call"));
            QVERIFY2(calledWith != connectedWith, calledWith.constData());
            QTRY_COMPARE(McpOAuthStore::load(dataDir, QStringLiteral("cloud"))->accessToken,
                         QString::fromLatin1(calledWith.mid(7)));
        }
        cloud.expiresIn = 3600;
        cloud.issued = 1;
        cloud.validTokens = {QStringLiteral("access-1")};
        QVERIFY(McpOAuthStore::save(dataDir, QStringLiteral("cloud"), [&] {
            McpOAuthCredentials current = credentials;
            current.accessToken = QStringLiteral("access-1");
            current.expiresAt = QDateTime::currentDateTimeUtc().addSecs(3600);
            return current;
        }()));

        // Revoked before its time: refused at initialize, renewed once, connected.
        cloud.validTokens.clear();
        cloud.mcp.clearRequests();
        {
            McpHub hub(env.path(QStringLiteral("ws")), dataDir, {});
            hub.configure({cloud.config()});
            QCOMPARE(settled(hub)->state, McpConnection::State::Ready);
            QCOMPARE(cloud.mcp.requests().first().header("Authorization"), QByteArray("Bearer access-1"));
            QCOMPARE(cloud.mcp.lastRequest().header("Authorization"), QByteArray("Bearer access-2"));
        }

        // The refresh token is refused too: failed, with the way back, and no token in the text.
        cloud.validTokens.clear();
        credentials.accessToken = QStringLiteral("access-gone");
        credentials.refreshToken = QStringLiteral("refresh-revoked");
        QVERIFY(McpOAuthStore::save(dataDir, QStringLiteral("cloud"), credentials));
        McpHub hub(env.path(QStringLiteral("ws")), dataDir, {});
        hub.configure({cloud.config()});
        const auto status = settled(hub);
        QCOMPARE(status->state, McpConnection::State::Failed);
        QVERIFY2(status->detail.contains(QStringLiteral("could not be renewed")) &&
                     status->detail.contains(QStringLiteral("/mcp connect cloud signs in again")) &&
                     !status->detail.contains(QStringLiteral("refresh-revoked")),
                 qPrintable(status->detail));

        // Tokens for another address are not sent there.
        McpServerConfig moved = cloud.config();
        moved.url = QUrl(cloud.mcp.baseUrl().toString() + QStringLiteral("/other"));
        McpHub elsewhere(env.path(QStringLiteral("ws")), dataDir, {});
        elsewhere.configure({moved});
        QVERIFY(settled(elsewhere)->detail.contains(QStringLiteral("not signed in")));
    }

    void aSignInThatCannotFinishSaysWhy()
    {
        test::TestEnvironment env;
        const QString dataDir = env.path(QStringLiteral("data"));
        FakeOAuthMcpServer cloud;

        // A redirect with another state (stale, or forged) ends the sign-in; nothing is stored.
        {
            McpSignIn signIn(cloud.config(), dataDir);
            QSignalSpy browser(&signIn, &McpSignIn::browserNeeded);
            QSignalSpy finished(&signIn, &McpSignIn::finished);
            signIn.start();
            QVERIFY(FakeProviderServer::spinUntil([&] { return !browser.isEmpty(); }));
            QCOMPARE(FakeOAuthMcpServer::followRedirect(browser.first().first().toUrl(),
                                                        QStringLiteral("code-1"), QStringLiteral("forged")),
                     400);
            QVERIFY(FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }));
            QVERIFY(!finished.first().first().toBool());
            QVERIFY2(finished.first().value(1).toString().contains(QStringLiteral("state did not match")),
                     qPrintable(finished.first().value(1).toString()));
            QVERIFY(!McpOAuthStore::load(dataDir, QStringLiteral("cloud")));
        }

        // No registration and no client_id configured: what to do instead.
        cloud.registration = false;
        {
            McpSignIn signIn(cloud.config(), dataDir);
            QSignalSpy finished(&signIn, &McpSignIn::finished);
            signIn.start();
            QVERIFY(FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }));
            QVERIFY2(finished.first().value(1).toString().contains(QStringLiteral("\"client_id\"")),
                     qPrintable(finished.first().value(1).toString()));
        }
        // With a client_id it goes straight to the browser.
        {
            McpServerConfig config = cloud.config();
            config.oauthClientId = QStringLiteral("client-7");
            McpSignIn signIn(config, dataDir);
            QSignalSpy browser(&signIn, &McpSignIn::browserNeeded);
            signIn.start();
            QVERIFY(FakeProviderServer::spinUntil([&] { return !browser.isEmpty(); }));
            QCOMPARE(QUrlQuery(browser.first().first().toUrl()).queryItemValue(QStringLiteral("client_id")),
                     QStringLiteral("client-7"));
        }

        // A server that cannot be reached.
        McpServerConfig gone = cloud.config();
        gone.url = QUrl(QStringLiteral("http://127.0.0.1:1/mcp"));
        McpSignIn signIn(gone, dataDir);
        QSignalSpy finished(&signIn, &McpSignIn::finished);
        signIn.start();
        QVERIFY(FakeProviderServer::spinUntil([&] { return !finished.isEmpty(); }));
        QVERIFY2(finished.first().value(1).toString().startsWith(
                     QStringLiteral("Sign-in to MCP server cloud failed: cannot reach")),
                 qPrintable(finished.first().value(1).toString()));
    }
};

QTEST_GUILESS_MAIN(TestMcpOAuth)
#include "tst_mcpoauth.moc"
