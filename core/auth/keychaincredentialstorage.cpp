#include "auth/keychaincredentialstorage.h"

#include "auth/codexcredentials.h"
#include "auth/keychain.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace keen {

KeychainCredentialStorage::KeychainCredentialStorage(std::shared_ptr<CredentialStorage> fallback,
                                                     QString providerKey)
    : m_fallback(std::move(fallback))
    , m_providerKey(std::move(providerKey))
{}

QString KeychainCredentialStorage::keychainKey() const
{
    return QStringLiteral("oauth:") + m_providerKey;
}

QString KeychainCredentialStorage::warning() const
{
    std::lock_guard lock(m_mutex);
    return m_warning;
}

std::optional<CodexCredentials> KeychainCredentialStorage::load() const
{
    if (!Keychain::isGuiThread()) {
        const KeychainReply reply = Keychain::wait(Keychain::read(keychainKey()));
        if (reply.ok())
            return CodexCredentials::fromJson(QJsonDocument::fromJson(reply.secret.toUtf8()).object());
    }
    // Not in the keychain (or no keychain): an older sign-in may still sit in the fallback file.
    return m_fallback ? m_fallback->load() : std::nullopt;
}

Result<void> KeychainCredentialStorage::save(const CodexCredentials &credentials)
{
    if (Keychain::isGuiThread())
        return Result<void>::failure(QCoreApplication::translate(
            "KeychainCredentialStorage", "the sign-in cannot be saved from the window's thread"));
    const QString json =
        QString::fromUtf8(QJsonDocument(credentials.toJson()).toJson(QJsonDocument::Compact));
    const KeychainReply reply = Keychain::wait(Keychain::write(keychainKey(), json));
    if (reply.ok()) {
        if (m_fallback)
            m_fallback->remove(); // no plain copy once the keychain holds it
        std::lock_guard lock(m_mutex);
        m_warning.clear();
        return {};
    }
    // Whatever kept the keychain from answering (no secret service, no D-Bus, a locked or refused
    // collection), the sign-in is not lost: it goes to the private file and the person is told.
    if (!m_fallback)
        return Result<void>::failure(
            QCoreApplication::translate("KeychainCredentialStorage", "the keychain refused the sign-in: %1")
                .arg(reply.error));
    if (Result<void> saved = m_fallback->save(credentials); !saved)
        return saved;
    std::lock_guard lock(m_mutex);
    m_warning = QCoreApplication::translate("KeychainCredentialStorage",
                                            "No keychain is available (%1); the ChatGPT sign-in is kept in a "
                                            "file only you can read.")
                    .arg(reply.error);
    return {};
}

Result<void> KeychainCredentialStorage::remove()
{
    QString error;
    if (!Keychain::isGuiThread()) {
        const KeychainReply reply = Keychain::wait(Keychain::remove(keychainKey()));
        if (!reply.ok() && reply.status != KeychainReply::Status::NotFound &&
            reply.status != KeychainReply::Status::Unavailable)
            error = reply.error;
    }
    if (m_fallback) {
        if (Result<void> removed = m_fallback->remove(); !removed && error.isEmpty())
            error = removed.error();
    }
    if (!error.isEmpty())
        return Result<void>::failure(error);
    return {};
}

} // namespace keen
