#include "config/chatgptsignin.h"

#include "auth/codexoauth.h"
#include "auth/filecredentialstorage.h"
#include "auth/keychaincredentialstorage.h"
#include "base/whenfinished.h"

#include <QtConcurrent/QtConcurrentRun>

namespace keen {

namespace {

struct SaveOutcome
{
    bool ok = false;
    QString message;
};

} // namespace

ChatGptSignIn::ChatGptSignIn(QObject *parent)
    : QObject(parent)
    , m_oauth(new CodexOAuth(CodexOAuth::defaultIssuer(), nullptr, this))
{
    // No storage in CodexOAuth: the keychain is written off the GUI thread once the sign-in succeeds.
    connect(m_oauth, &CodexOAuth::signedIn, this, [this](const CodexCredentials &credentials) {
        whenFinished(QtConcurrent::run([credentials] {
                         KeychainCredentialStorage storage(std::make_shared<FileCredentialStorage>());
                         const Result<void> saved = storage.save(credentials);
                         if (!saved)
                             return SaveOutcome{
                                 false, tr("ChatGPT sign-in could not be saved: %1").arg(saved.error())};
                         return SaveOutcome{true, storage.warning()};
                     }),
                     this, [this](const SaveOutcome &outcome) {
                         Q_EMIT finished(outcome.ok, outcome.ok && outcome.message.isEmpty()
                                                         ? tr("✓ Signed in with ChatGPT.")
                                                         : outcome.message);
                     });
    });
    connect(m_oauth, &CodexOAuth::failed, this, [this](const QString &error) {
        Q_EMIT finished(false, tr("ChatGPT sign-in failed: %1").arg(error));
    });
}

ChatGptSignIn::~ChatGptSignIn() = default;

Result<QUrl> ChatGptSignIn::start()
{
    const Result<QUrl> url = m_oauth->startSignIn();
    if (!url)
        return Result<QUrl>::failure(tr("ChatGPT sign-in failed: %1").arg(url.error()));
    return url;
}

void ChatGptSignIn::storedAsync(QObject *context, std::function<void(bool)> done)
{
    whenFinished(QtConcurrent::run([] {
                     const KeychainCredentialStorage storage(std::make_shared<FileCredentialStorage>());
                     const std::optional<CodexCredentials> stored = storage.load();
                     return stored && stored->isValid();
                 }),
                 context, std::move(done));
}

void ChatGptSignIn::signOutAsync(QObject *context, std::function<void(const QString &)> done)
{
    whenFinished(QtConcurrent::run([] {
                     KeychainCredentialStorage storage(std::make_shared<FileCredentialStorage>());
                     const Result<void> removed = storage.remove();
                     return removed ? QString()
                                    : tr("Could not sign out of ChatGPT: %1").arg(removed.error());
                 }),
                 context, std::move(done));
}

} // namespace keen
