#pragma once

#include "auth/codexcredentials.h"
#include "base/cancellationtoken.h"
#include "base/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

#include <memory>

class QNetworkAccessManager;

namespace keen {

class CredentialStorage;
class OAuthCallbackServer;

// ChatGPT sign-in for the Codex backend (reference 1.4): OAuth 2 authorization code with PKCE (S256), a
// loopback callback on 127.0.0.1:1455, token exchange and refresh at <issuer>/oauth/token. The interactive
// flow is asynchronous and lives on the GUI thread; refreshBlocking() is for worker threads only.
class CodexOAuth final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CodexOAuth)

public:
    static constexpr quint16 CallbackPort = 1455;
    static QString defaultIssuer();
    static QString clientId();
    static QString redirectUri(quint16 port = CallbackPort);

    // issuer is configurable so tests can use a local server. storage, when given, receives the credentials
    // before signedIn is emitted.
    explicit CodexOAuth(QString issuer = defaultIssuer(), std::shared_ptr<CredentialStorage> storage = {},
                        QObject *parent = nullptr);
    ~CodexOAuth() override;

    // The sign-in page for a PKCE challenge (auth/pkce.h).
    QUrl authorizeUrl(const QString &challenge, const QString &state, const QString &redirect) const;

    // Starts listening for the browser's redirect and returns the URL to open. signedIn or failed follows.
    Result<QUrl> startSignIn(quint16 port = CallbackPort);
    void cancel();
    bool isRunning() const;

    // The form body of a token request, and the credentials in a token response. previous supplies the
    // refresh token and account id when the response leaves them out.
    static QByteArray exchangeForm(const QString &code, const QByteArray &verifier, const QString &redirect);
    static QByteArray refreshForm(const QString &refreshToken);
    static Result<CodexCredentials>
    parseTokenResponse(int status, const QByteArray &body, const CodexCredentials &previous = {},
                       const QDateTime &now = QDateTime::currentDateTimeUtc());
    // Refreshes on the calling (worker) thread with its own network objects; honours cancel and a timeout.
    static Result<CodexCredentials> refreshBlocking(const QString &issuer, const CodexCredentials &current,
                                                    const CancellationToken &cancel, int timeoutMs = 60000);

Q_SIGNALS:
    void signedIn(const keen::CodexCredentials &credentials);
    void failed(const QString &error);

private:
    void exchange(const QString &code);
    void finish(const Result<CodexCredentials> &result);

    QString m_issuer;
    std::shared_ptr<CredentialStorage> m_storage;
    QNetworkAccessManager *m_network = nullptr;
    QPointer<OAuthCallbackServer> m_server;
    QByteArray m_verifier;
    QString m_redirect;
};

} // namespace keen

Q_DECLARE_METATYPE(keen::CodexCredentials)
