#pragma once

#include "base/result.h"

#include <QObject>
#include <QString>
#include <QUrl>

#include <functional>

namespace keen {

class CodexOAuth;

// The ChatGPT sign-in as the window sees it: start() returns the URL to open in the browser; once the
// loopback callback finishes, the credentials are saved to the keychain (file fallback) on a worker thread
// and finished reports what to tell the person. Keeps the UI out of auth/ (DESIGN.md, Layout).
class ChatGptSignIn final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatGptSignIn)

public:
    explicit ChatGptSignIn(QObject *parent = nullptr);
    ~ChatGptSignIn() override;

    Result<QUrl> start();
    // Whether a sign-in is stored (keychain, else auth.json). Read on a worker thread; done is called on
    // context's thread, never once context is gone.
    static void storedAsync(QObject *context, std::function<void(bool signedIn)> done);
    // Signs out (reference /logout): the stored sign-in goes from the keychain and auth.json, on a worker
    // thread; done gets an empty error on success. The next request to ChatGPT then asks to sign in again.
    static void signOutAsync(QObject *context, std::function<void(const QString &error)> done);

Q_SIGNALS:
    // ok: signed in and saved (message may still carry the plain-file warning). Never carries a token.
    void finished(bool ok, const QString &message);

private:
    CodexOAuth *m_oauth;
};

} // namespace keen
