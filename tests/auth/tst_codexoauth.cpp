// The ChatGPT sign-in pieces for openai-codex (reference 1.4): PKCE, the authorize URL, account ids from JWT
// claims, the loopback callback server, the token exchange and refresh against a local token server, and the
// auth.json credential file.

#include "auth/codexoauth.h"
#include "auth/filecredentialstorage.h"
#include "auth/oauthcallbackserver.h"
#include "auth/pkce.h"
#include "openaitestsupport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QUrlQuery>

#include <chrono>
#include <thread>

using namespace keen;
using namespace keen::test::openai;

namespace {

// Sends a GET like the browser does after the redirect; returns the HTTP status.
int browserGet(const QUrl &url)
{
    QNetworkAccessManager network;
    QNetworkReply *reply = network.get(QNetworkRequest(url));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(10000))
        return -1;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status;
}

QUrlQuery formOf(const QByteArray &body)
{
    return QUrlQuery(QString::fromLatin1(body));
}

CodexCredentials sampleCredentials()
{
    CodexCredentials credentials;
    credentials.accessToken = QStringLiteral("access-1");
    credentials.refreshToken = QStringLiteral("refresh-1");
    credentials.expiresAt = QDateTime(QDate(2030, 1, 2), QTime(3, 4, 5), Qt::UTC);
    credentials.accountId = QStringLiteral("acct-1");
    return credentials;
}

} // namespace

class TestCodexOAuth final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pkceChallengeMatchesRfc7636();
    void generatedVerifierAndState();
    void authorizeUrlMatchesReference();
    void accountIdFromJwtClaims();
    void credentialsJsonRoundTrip();
    void fileStorageIsPrivateAndKeepsOtherEntries();
    void fileStorageRefusesToOverwriteCorruptFile();
    void callbackServerHappyPath();
    void callbackServerRejectsBadState();
    void callbackServerReportsProviderError();
    void callbackServerIgnoresOtherPaths();
    void callbackPortBusy();
    void signInExchangesCodeAndStores();
    void signInReportsTokenError();
    void refreshKeepsRefreshTokenAndAccount();
    void refreshFailureIsPlain();
    void refreshWithoutRefreshToken();
    void refreshCancelledFromAnotherThread();
};

void TestCodexOAuth::pkceChallengeMatchesRfc7636()
{
    // RFC 7636 appendix B.
    QCOMPARE(Pkce::challengeForVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
             QByteArrayLiteral("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"));
}

void TestCodexOAuth::generatedVerifierAndState()
{
    const QByteArray verifier = Pkce::generateVerifier();
    QCOMPARE(verifier.size(), 86); // 64 bytes, base64url without padding: within RFC 7636's 43..128
    for (const char c : verifier)
        QVERIFY2(QByteArray("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_").contains(c),
                 &c);
    QVERIFY(Pkce::generateVerifier() != verifier);
    const QByteArray challenge = Pkce::challengeForVerifier(verifier);
    QCOMPARE(challenge, QCryptographicHash::hash(verifier, QCryptographicHash::Sha256)
                            .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    QCOMPARE(challenge.size(), 43);
    QVERIFY(!challenge.contains('='));
    QVERIFY(!challenge.contains('+') && !challenge.contains('/'));
    QVERIFY(Pkce::generateState() != Pkce::generateState());
    QVERIFY(Pkce::generateState().size() >= 32);
}

void TestCodexOAuth::authorizeUrlMatchesReference()
{
    const CodexOAuth oauth;
    const QUrl url =
        oauth.authorizeUrl(QStringLiteral("CHALLENGE"), QStringLiteral("STATE"), CodexOAuth::redirectUri());
    QCOMPARE(url.toString(QUrl::FullyEncoded),
             QStringLiteral("https://auth.openai.com/oauth/authorize?response_type=code"
                            "&client_id=app_EMoamEEZ73f0CkXaXp7hrann"
                            "&redirect_uri=http%3A%2F%2Flocalhost%3A1455%2Fauth%2Fcallback"
                            "&scope=openid%20profile%20email%20offline_access"
                            "&code_challenge=CHALLENGE&code_challenge_method=S256"
                            "&id_token_add_organizations=true&codex_cli_simplified_flow=true"
                            "&state=STATE&originator=keen-desktop"));
    const QUrlQuery query(url);
    QCOMPARE(query.queryItemValue(QStringLiteral("scope"), QUrl::FullyDecoded),
             QStringLiteral("openid profile email offline_access"));
    QCOMPARE(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded),
             QStringLiteral("http://localhost:1455/auth/callback"));
}

void TestCodexOAuth::accountIdFromJwtClaims()
{
    QCOMPARE(CodexCredentials::accountIdFromJwt(
                 fakeJwt({{QStringLiteral("chatgpt_account_id"), QStringLiteral("top")}})),
             QStringLiteral("top"));
    QCOMPARE(CodexCredentials::accountIdFromJwt(
                 fakeJwt({{QStringLiteral("https://api.openai.com/auth"),
                           QJsonObject{{QStringLiteral("chatgpt_account_id"), QStringLiteral("nested")}}}})),
             QStringLiteral("nested"));
    QCOMPARE(CodexCredentials::accountIdFromJwt(
                 fakeJwt({{QStringLiteral("organizations"),
                           QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("org-1")}},
                                      QJsonObject{{QStringLiteral("id"), QStringLiteral("org-2")}}}}})),
             QStringLiteral("org-1"));
    // The first form wins.
    QCOMPARE(CodexCredentials::accountIdFromJwt(
                 fakeJwt({{QStringLiteral("chatgpt_account_id"), QStringLiteral("top")},
                          {QStringLiteral("organizations"),
                           QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("org-1")}}}}})),
             QStringLiteral("top"));
    QCOMPARE(CodexCredentials::accountIdFromJwt(fakeJwt({{QStringLiteral("sub"), QStringLiteral("x")}})),
             QString());
    QCOMPARE(CodexCredentials::accountIdFromJwt(QStringLiteral("not-a-jwt")), QString());
    QCOMPARE(CodexCredentials::accountIdFromJwt(QStringLiteral("a.%%%.c")), QString());
}

void TestCodexOAuth::credentialsJsonRoundTrip()
{
    const CodexCredentials credentials = sampleCredentials();
    const QJsonObject json = credentials.toJson();
    QCOMPARE(json[QStringLiteral("type")].toString(), QStringLiteral("oauth"));
    QCOMPARE(json[QStringLiteral("expires_at")].toString(), QStringLiteral("2030-01-02T03:04:05.000Z"));
    QCOMPARE(CodexCredentials::fromJson(json), credentials);
    QVERIFY(!CodexCredentials::fromJson({}).has_value());

    const QDateTime now(QDate(2030, 1, 2), QTime(3, 3, 30), Qt::UTC);
    QVERIFY(credentials.expiresWithin(60000, now));               // 35 s left
    QVERIFY(!credentials.expiresWithin(60000, now.addSecs(-60))); // 95 s left
}

void TestCodexOAuth::fileStorageIsPrivateAndKeepsOtherEntries()
{
    keen::test::TestEnvironment environment;
    const QString path = environment.path(QStringLiteral("auth.json"));
    QCOMPARE(FileCredentialStorage::defaultPath(), path);
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"anthropic":{"type":"api","key":"k"}})");
    }
    FileCredentialStorage storage;
    QVERIFY(!storage.load().has_value());
    QVERIFY(storage.save(sampleCredentials()).ok());
    QCOMPARE(QFileInfo(path).permissions() & 0x7777, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                         QFileDevice::ReadUser | QFileDevice::WriteUser);
    const QJsonObject all = QJsonDocument::fromJson([&] {
                                QFile file(path);
                                file.open(QIODevice::ReadOnly);
                                return file.readAll();
                            }())
                                .object();
    QCOMPARE(all.keys(), (QStringList{QStringLiteral("anthropic"), QStringLiteral("openai-codex")}));
    QCOMPARE(all[QStringLiteral("openai-codex")][QStringLiteral("access_token")].toString(),
             QStringLiteral("access-1"));
    QCOMPARE(FileCredentialStorage(path).load(), sampleCredentials());

    QVERIFY(storage.remove().ok());
    QVERIFY(!storage.load().has_value());
    QVERIFY(QFile::exists(path)); // the other entry stays
}

void TestCodexOAuth::fileStorageRefusesToOverwriteCorruptFile()
{
    keen::test::TestEnvironment environment;
    const QString path = environment.path(QStringLiteral("nested/auth.json"));
    FileCredentialStorage storage(path);
    QVERIFY(storage.save(sampleCredentials()).ok()); // creates the folder
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{not json");
    }
    QVERIFY(!storage.load().has_value());
    QVERIFY(!storage.save(sampleCredentials()).ok());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("{not json"));
}

void TestCodexOAuth::callbackServerHappyPath()
{
    OAuthCallbackServer server(QStringLiteral("st-1"));
    QVERIFY(server.listen(0).ok());
    QSignalSpy codes(&server, &OAuthCallbackServer::codeReceived);
    QSignalSpy failures(&server, &OAuthCallbackServer::failed);
    QCOMPARE(
        browserGet(QUrl(
            QStringLiteral("http://127.0.0.1:%1/auth/callback?code=c0de%2B1&state=st-1").arg(server.port()))),
        200);
    QCOMPARE(codes.size(), 1);
    QCOMPARE(codes.first().first().toString(), QStringLiteral("c0de+1"));
    QCOMPARE(failures.size(), 0);
    // A second redirect (a reload) does not hand over another code.
    QCOMPARE(
        browserGet(QUrl(
            QStringLiteral("http://127.0.0.1:%1/auth/callback?code=again&state=st-1").arg(server.port()))),
        409);
    QCOMPARE(codes.size(), 1);
}

void TestCodexOAuth::callbackServerRejectsBadState()
{
    OAuthCallbackServer server(QStringLiteral("expected"));
    QVERIFY(server.listen(0).ok());
    QSignalSpy codes(&server, &OAuthCallbackServer::codeReceived);
    QSignalSpy failures(&server, &OAuthCallbackServer::failed);
    QCOMPARE(browserGet(QUrl(
                 QStringLiteral("http://127.0.0.1:%1/auth/callback?code=c&state=forged").arg(server.port()))),
             400);
    QCOMPARE(codes.size(), 0);
    QCOMPARE(failures.size(), 1);
    QVERIFY(failures.first().first().toString().contains(QStringLiteral("state did not match")));
}

void TestCodexOAuth::callbackServerReportsProviderError()
{
    OAuthCallbackServer server(QStringLiteral("s"));
    QVERIFY(server.listen(0).ok());
    QSignalSpy failures(&server, &OAuthCallbackServer::failed);
    QCOMPARE(browserGet(QUrl(
                 QStringLiteral("http://127.0.0.1:%1/auth/"
                                "callback?error=access_denied&error_description=User%20cancelled&state=s")
                     .arg(server.port()))),
             400);
    QCOMPARE(failures.size(), 1);
    QCOMPARE(failures.first().first().toString(), QStringLiteral("sign-in failed: User cancelled"));
}

void TestCodexOAuth::callbackServerIgnoresOtherPaths()
{
    OAuthCallbackServer server(QStringLiteral("s"));
    QVERIFY(server.listen(0).ok());
    QSignalSpy codes(&server, &OAuthCallbackServer::codeReceived);
    QSignalSpy failures(&server, &OAuthCallbackServer::failed);
    QCOMPARE(browserGet(QUrl(QStringLiteral("http://127.0.0.1:%1/favicon.ico").arg(server.port()))), 404);
    QCOMPARE(codes.size() + failures.size(), 0);
}

void TestCodexOAuth::callbackPortBusy()
{
    QTcpServer occupant;
    QVERIFY(occupant.listen(QHostAddress::LocalHost, 0));
    OAuthCallbackServer server(QStringLiteral("s"));
    const Result<void> result = server.listen(occupant.serverPort());
    QVERIFY(!result.ok());
    QVERIFY2(result.error().startsWith(
                 QStringLiteral("OAuth callback port %1 is unavailable; ").arg(occupant.serverPort())),
             qPrintable(result.error()));

    // The sign-in itself reports the same.
    CodexOAuth oauth;
    const Result<QUrl> started = oauth.startSignIn(occupant.serverPort());
    QVERIFY(!started.ok());
    QVERIFY(started.error().startsWith(QStringLiteral("OAuth callback port ")));
    QVERIFY(!oauth.isRunning());
}

void TestCodexOAuth::signInExchangesCodeAndStores()
{
    keen::test::TestEnvironment environment;
    TokenServer tokens;
    const QString idToken =
        fakeJwt({{QStringLiteral("https://api.openai.com/auth"),
                  QJsonObject{{QStringLiteral("chatgpt_account_id"), QStringLiteral("acct-9")}}}});
    tokens.enqueue(200, QJsonDocument(QJsonObject{{QStringLiteral("access_token"), QStringLiteral("at-9")},
                                                  {QStringLiteral("refresh_token"), QStringLiteral("rt-9")},
                                                  {QStringLiteral("id_token"), idToken},
                                                  {QStringLiteral("expires_in"), 1200}})
                            .toJson());
    auto storage = std::make_shared<FileCredentialStorage>();
    CodexOAuth oauth(tokens.url(), storage);
    QSignalSpy signedIn(&oauth, &CodexOAuth::signedIn);
    QSignalSpy failed(&oauth, &CodexOAuth::failed);

    const Result<QUrl> started = oauth.startSignIn(0);
    QVERIFY2(started.ok(), qPrintable(started.error()));
    QVERIFY(oauth.isRunning());
    const QUrl authorize = started.value();
    QVERIFY(authorize.toString().startsWith(tokens.url() + QStringLiteral("/oauth/authorize?")));
    const QUrlQuery query(authorize);
    const QString state = query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded);
    const QString challenge = query.queryItemValue(QStringLiteral("code_challenge"), QUrl::FullyDecoded);
    const QUrl redirect(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded));
    QCOMPARE(redirect.host(), QStringLiteral("localhost"));
    QCOMPARE(redirect.path(), QStringLiteral("/auth/callback"));

    // The browser comes back (to 127.0.0.1: the server listens there, localhost resolves to it).
    QUrl callback(QStringLiteral("http://127.0.0.1:%1/auth/callback").arg(redirect.port()));
    callback.setQuery(QStringLiteral("code=the-code&state=") +
                      QString::fromLatin1(QUrl::toPercentEncoding(state)));
    QCOMPARE(browserGet(callback), 200);
    QTRY_VERIFY_WITH_TIMEOUT(!signedIn.isEmpty(), 10000);
    QCOMPARE(failed.size(), 0);

    const CodexCredentials credentials = signedIn.first().first().value<CodexCredentials>();
    QCOMPARE(credentials.accessToken, QStringLiteral("at-9"));
    QCOMPARE(credentials.refreshToken, QStringLiteral("rt-9"));
    QCOMPARE(credentials.accountId, QStringLiteral("acct-9"));
    QVERIFY(qAbs(QDateTime::currentDateTimeUtc().secsTo(credentials.expiresAt) - 1200) < 30);
    QCOMPARE(storage->load(), credentials);

    QCOMPARE(tokens.requests().size(), 1);
    const TokenServer::Request request = tokens.requests().first();
    QCOMPARE(request.requestLine, QByteArray("POST /oauth/token HTTP/1.1"));
    QVERIFY(request.headers.toLower().contains("content-type: application/x-www-form-urlencoded"));
    const QUrlQuery form = formOf(request.body);
    QCOMPARE(form.queryItemValue(QStringLiteral("grant_type")), QStringLiteral("authorization_code"));
    QCOMPARE(form.queryItemValue(QStringLiteral("code")), QStringLiteral("the-code"));
    QCOMPARE(form.queryItemValue(QStringLiteral("client_id")), CodexOAuth::clientId());
    QCOMPARE(form.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded), redirect.toString());
    // The verifier sent is the one behind the challenge in the authorize URL.
    const QByteArray verifier =
        form.queryItemValue(QStringLiteral("code_verifier"), QUrl::FullyDecoded).toLatin1();
    QCOMPARE(QString::fromLatin1(Pkce::challengeForVerifier(verifier)), challenge);
    QTRY_VERIFY(!oauth.isRunning());
}

void TestCodexOAuth::signInReportsTokenError()
{
    TokenServer tokens;
    tokens.enqueue(400, R"({"error":"invalid_grant","error_description":"The code has expired"})");
    CodexOAuth oauth(tokens.url());
    QSignalSpy failed(&oauth, &CodexOAuth::failed);
    const Result<QUrl> started = oauth.startSignIn(0);
    QVERIFY(started.ok());
    const QUrlQuery query(started.value());
    const QUrl redirect(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded));
    QCOMPARE(browserGet(QUrl(QStringLiteral("http://127.0.0.1:%1/auth/callback?code=c&state=%2")
                                 .arg(redirect.port())
                                 .arg(query.queryItemValue(QStringLiteral("state"))))),
             200);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 10000);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("The code has expired")),
             qPrintable(failed.first().first().toString()));
}

void TestCodexOAuth::refreshKeepsRefreshTokenAndAccount()
{
    TokenServer tokens;
    tokens.enqueue(200, R"({"access_token":"access-2","token_type":"Bearer"})");
    const Result<CodexCredentials> refreshed =
        CodexOAuth::refreshBlocking(tokens.url(), sampleCredentials(), CancellationToken());
    QVERIFY2(refreshed.ok(), qPrintable(refreshed.error()));
    QCOMPARE(refreshed->accessToken, QStringLiteral("access-2"));
    QCOMPARE(refreshed->refreshToken, QStringLiteral("refresh-1")); // not rotated: the old one stays
    QCOMPARE(refreshed->accountId, QStringLiteral("acct-1"));
    // expires_in defaults to an hour.
    QVERIFY(qAbs(QDateTime::currentDateTimeUtc().secsTo(refreshed->expiresAt) - 3600) < 30);

    QCOMPARE(tokens.requests().size(), 1);
    const QUrlQuery form = formOf(tokens.requests().first().body);
    QCOMPARE(form.queryItemValue(QStringLiteral("grant_type")), QStringLiteral("refresh_token"));
    QCOMPARE(form.queryItemValue(QStringLiteral("refresh_token")), QStringLiteral("refresh-1"));
    QCOMPARE(form.queryItemValue(QStringLiteral("client_id")), CodexOAuth::clientId());
}

void TestCodexOAuth::refreshFailureIsPlain()
{
    TokenServer tokens;
    tokens.enqueue(
        401,
        R"({"error":{"message":"Your refresh token has already been used","code":"refresh_token_reused"}})");
    const Result<CodexCredentials> refreshed =
        CodexOAuth::refreshBlocking(tokens.url(), sampleCredentials(), CancellationToken());
    QVERIFY(!refreshed.ok());
    QVERIFY(refreshed.error().contains(QStringLiteral("HTTP 401")));
    QVERIFY(refreshed.error().contains(QStringLiteral("already been used")));
    QVERIFY(refreshed.error().contains(QStringLiteral("sign in again")));
    QVERIFY(!refreshed.error().contains(QStringLiteral("refresh-1")));
}

void TestCodexOAuth::refreshWithoutRefreshToken()
{
    CodexCredentials credentials = sampleCredentials();
    credentials.refreshToken.clear();
    const Result<CodexCredentials> refreshed =
        CodexOAuth::refreshBlocking(QStringLiteral("http://127.0.0.1:9"), credentials, CancellationToken());
    QVERIFY(!refreshed.ok());
    QVERIFY(refreshed.error().contains(QStringLiteral("sign in again")));
}

void TestCodexOAuth::refreshCancelledFromAnotherThread()
{
    // A token endpoint that accepts and never answers. The token is cancelled from another thread at a random
    // moment: the refresh ends promptly with "cancelled", and the cancel callback never touches a reply that
    // is already gone (issue 14; the tsan preset runs this). Run 20 times with different moments.
    QTcpServer silent;
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    QList<QTcpSocket *> held;
    connect(&silent, &QTcpServer::newConnection, this, [&] {
        while (QTcpSocket *socket = silent.nextPendingConnection())
            held.append(socket);
    });
    const QString issuer = QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort());
    for (int trial = 0; trial < 20; ++trial) {
        CancellationToken cancel;
        const auto delay = std::chrono::milliseconds(trial * 7 % 60);
        std::thread canceller([cancel, delay]() mutable {
            std::this_thread::sleep_for(delay);
            cancel.cancel();
        });
        QElapsedTimer elapsed;
        elapsed.start();
        const Result<CodexCredentials> refreshed =
            CodexOAuth::refreshBlocking(issuer, sampleCredentials(), cancel);
        canceller.join();
        QVERIFY(!refreshed.ok());
        QCOMPARE(refreshed.error(), QStringLiteral("cancelled"));
        QVERIFY2(elapsed.elapsed() < 5000, qPrintable(QString::number(elapsed.elapsed())));
    }
    qDeleteAll(held);
}

QTEST_GUILESS_MAIN(TestCodexOAuth)
#include "tst_codexoauth.moc"
