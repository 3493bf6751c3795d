#include "auth/codexoauth.h"

#include "auth/blockinghttp.h"
#include "auth/credentialstorage.h"
#include "auth/oauthcallbackserver.h"
#include "auth/pkce.h"
#include "base/secretredaction.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#include <QUrlQuery>

#include <memory>

namespace keen {

namespace {

QByteArray formField(const char *name, const QString &value)
{
    return QByteArray(name) + '=' + QUrl::toPercentEncoding(value);
}

QNetworkRequest tokenRequest(const QString &issuer)
{
    QString base = issuer;
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    QNetworkRequest request(QUrl(base + QStringLiteral("/oauth/token")));
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      QByteArrayLiteral("application/x-www-form-urlencoded"));
    request.setRawHeader("Accept", "application/json");
    request.setTransferTimeout(60000);
    return request;
}

} // namespace

QString CodexOAuth::defaultIssuer()
{
    return QStringLiteral("https://auth.openai.com");
}

QString CodexOAuth::clientId()
{
    return QStringLiteral("app_EMoamEEZ73f0CkXaXp7hrann");
}

QString CodexOAuth::redirectUri(quint16 port)
{
    return QStringLiteral("http://localhost:%1/auth/callback").arg(port);
}

CodexOAuth::CodexOAuth(QString issuer, std::shared_ptr<CredentialStorage> storage, QObject *parent)
    : QObject(parent)
    , m_issuer(std::move(issuer))
    , m_storage(std::move(storage))
{
    qRegisterMetaType<keen::CodexCredentials>();
}

CodexOAuth::~CodexOAuth() = default;

QUrl CodexOAuth::authorizeUrl(const QString &challenge, const QString &state, const QString &redirect) const
{
    QString base = m_issuer;
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    QUrl url(base + QStringLiteral("/oauth/authorize"));
    // The order of the reference table; values percent-encoded so the scope's spaces become %20.
    const QList<QPair<QString, QString>> items{
        {QStringLiteral("response_type"), QStringLiteral("code")},
        {QStringLiteral("client_id"), clientId()},
        {QStringLiteral("redirect_uri"), redirect},
        {QStringLiteral("scope"), QStringLiteral("openid profile email offline_access")},
        {QStringLiteral("code_challenge"), challenge},
        {QStringLiteral("code_challenge_method"), QStringLiteral("S256")},
        {QStringLiteral("id_token_add_organizations"), QStringLiteral("true")},
        {QStringLiteral("codex_cli_simplified_flow"), QStringLiteral("true")},
        {QStringLiteral("state"), state},
        {QStringLiteral("originator"), QStringLiteral("keen-desktop")},
    };
    QByteArray query;
    for (const auto &[key, value] : items) {
        if (!query.isEmpty())
            query += '&';
        query += QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
    }
    url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    return url;
}

Result<QUrl> CodexOAuth::startSignIn(quint16 port)
{
    cancel();
    const QString state = Pkce::generateState();
    auto *server = new OAuthCallbackServer(state, this);
    if (Result<void> listening = server->listen(port); !listening) {
        delete server;
        return Result<QUrl>::failure(listening.error());
    }
    m_server = server;
    m_verifier = Pkce::generateVerifier();
    m_redirect = redirectUri(server->port());
    connect(server, &OAuthCallbackServer::codeReceived, this, &CodexOAuth::exchange);
    connect(server, &OAuthCallbackServer::failed, this,
            [this](const QString &error) { finish(Result<CodexCredentials>::failure(error)); });
    return authorizeUrl(QString::fromLatin1(Pkce::challengeForVerifier(m_verifier)), state, m_redirect);
}

void CodexOAuth::cancel()
{
    if (m_server) {
        m_server->close();
        m_server->deleteLater();
        m_server = nullptr;
    }
    if (m_network) {
        // Aborting drops any exchange in flight; its finished handler sees the manager gone and does nothing.
        m_network->deleteLater();
        m_network = nullptr;
    }
}

bool CodexOAuth::isRunning() const
{
    return !m_server.isNull() || m_network != nullptr;
}

void CodexOAuth::exchange(const QString &code)
{
    if (m_server)
        m_server->close(); // one code per sign-in; the page was already answered
    if (!m_network)
        m_network = new QNetworkAccessManager(this);
    QNetworkReply *reply =
        m_network->post(tokenRequest(m_issuer), exchangeForm(code, m_verifier, m_redirect));
    connect(reply, &QNetworkReply::finished, this, [this, reply, network = m_network] {
        reply->deleteLater();
        if (network != m_network)
            return; // cancelled meanwhile
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            finish(Result<CodexCredentials>::failure(
                tr("sign-in failed: cannot reach %1 (%2)").arg(m_issuer, reply->errorString())));
            return;
        }
        finish(parseTokenResponse(status, reply->readAll()));
    });
}

void CodexOAuth::finish(const Result<CodexCredentials> &result)
{
    cancel();
    m_verifier.clear();
    if (!result) {
        Q_EMIT failed(result.error());
        return;
    }
    if (m_storage) {
        if (Result<void> saved = m_storage->save(result.value()); !saved) {
            Q_EMIT failed(tr("signed in, but the credentials could not be saved: %1").arg(saved.error()));
            return;
        }
    }
    Q_EMIT signedIn(result.value());
}

QByteArray CodexOAuth::exchangeForm(const QString &code, const QByteArray &verifier, const QString &redirect)
{
    return formField("grant_type", QStringLiteral("authorization_code")) + '&' + formField("code", code) +
           '&' + formField("redirect_uri", redirect) + '&' + formField("client_id", clientId()) + '&' +
           formField("code_verifier", QString::fromLatin1(verifier));
}

QByteArray CodexOAuth::refreshForm(const QString &refreshToken)
{
    return formField("grant_type", QStringLiteral("refresh_token")) + '&' +
           formField("refresh_token", refreshToken) + '&' + formField("client_id", clientId()) + '&' +
           formField("scope", QStringLiteral("openid profile email"));
}

Result<CodexCredentials> CodexOAuth::parseTokenResponse(int status, const QByteArray &body,
                                                        const CodexCredentials &previous,
                                                        const QDateTime &now)
{
    const QJsonObject object = QJsonDocument::fromJson(body).object();
    if (status < 200 || status >= 300) {
        // {"error":"invalid_grant","error_description":"..."} or OpenAI's {"error":{"message":...}}
        QString detail = object.value(QLatin1String("error_description")).toString();
        const QJsonValue error = object.value(QLatin1String("error"));
        if (detail.isEmpty())
            detail = error.isObject() ? error.toObject().value(QLatin1String("message")).toString()
                                      : error.toString();
        if (detail.isEmpty())
            detail = tr("no details");
        // The server may quote the refresh token it refused.
        detail = SecretRedaction::redact(SecretRedaction::redact(detail, previous.refreshToken),
                                         previous.accessToken);
        return Result<CodexCredentials>::failure(
            tr("ChatGPT sign-in failed (HTTP %1): %2; sign in again from the provider settings")
                .arg(status)
                .arg(detail));
    }
    CodexCredentials credentials = previous;
    credentials.accessToken = object.value(QLatin1String("access_token")).toString();
    if (credentials.accessToken.isEmpty())
        return Result<CodexCredentials>::failure(
            tr("ChatGPT sign-in failed: the token response had no access token"));
    const QString refresh = object.value(QLatin1String("refresh_token")).toString();
    if (!refresh.isEmpty())
        credentials.refreshToken = refresh;
    const qint64 expiresIn = object.value(QLatin1String("expires_in")).toInteger(3600);
    credentials.expiresAt = now.addSecs(expiresIn > 0 ? expiresIn : 3600);
    QString account = CodexCredentials::accountIdFromJwt(object.value(QLatin1String("id_token")).toString());
    if (account.isEmpty())
        account = CodexCredentials::accountIdFromJwt(credentials.accessToken);
    if (!account.isEmpty())
        credentials.accountId = account;
    return credentials;
}

Result<CodexCredentials> CodexOAuth::refreshBlocking(const QString &issuer, const CodexCredentials &current,
                                                     const CancellationToken &cancel, int timeoutMs)
{
    if (current.refreshToken.isEmpty())
        return Result<CodexCredentials>::failure(
            tr("the ChatGPT sign-in has expired; sign in again from the provider settings"));
    QNetworkRequest request = tokenRequest(issuer);
    request.setTransferTimeout(timeoutMs);
    const BlockingHttp::Reply reply =
        BlockingHttp::send(request, "POST", refreshForm(current.refreshToken), cancel);
    if (reply.cancelled)
        return Result<CodexCredentials>::failure(tr("cancelled"));
    if (reply.status == 0)
        return Result<CodexCredentials>::failure(
            tr("cannot refresh the ChatGPT sign-in: %1").arg(reply.error));
    return parseTokenResponse(reply.status, reply.body, current);
}

} // namespace keen
