#pragma once

#include "auth/credentialstorage.h"

namespace keen::test {

// Codex sign-in kept in memory for tests; counts the saves so a test can see a refresh being stored.
class MemoryCredentialStorage final : public CredentialStorage
{
public:
    std::optional<CodexCredentials> load() const override { return m_credentials; }
    Result<void> save(const CodexCredentials &credentials) override
    {
        m_credentials = credentials;
        ++m_saves;
        return {};
    }
    Result<void> remove() override
    {
        m_credentials.reset();
        return {};
    }

    std::optional<CodexCredentials> m_credentials;
    int m_saves = 0;
};

} // namespace keen::test
