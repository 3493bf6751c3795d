#pragma once

#include "auth/credentialstorage.h"

#include <QString>

#include <memory>
#include <mutex>

namespace keen {

// The ChatGPT sign-in kept in the OS keychain (issue 3). When no secret service answers, it falls back to the
// plain file store (auth.json, mode 0600) and says so through warning(). Blocking: call it from a worker
// thread (the Codex protocol refreshes there; the window saves through QtConcurrent).
class KeychainCredentialStorage final : public CredentialStorage
{
public:
    explicit KeychainCredentialStorage(std::shared_ptr<CredentialStorage> fallback,
                                       QString providerKey = QStringLiteral("openai-codex"));

    std::optional<CodexCredentials> load() const override;
    Result<void> save(const CodexCredentials &credentials) override;
    Result<void> remove() override;

    // Set after a save that had to use the plain file.
    QString warning() const;
    QString keychainKey() const;

private:
    std::shared_ptr<CredentialStorage> m_fallback;
    QString m_providerKey;
    mutable std::mutex m_mutex;
    QString m_warning;
};

} // namespace keen
