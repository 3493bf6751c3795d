#pragma once

#include "auth/codexcredentials.h"
#include "base/result.h"

#include <optional>

namespace keen {

// Where the ChatGPT sign-in lives. The file store is the default; a keychain-backed one can replace it
// without the Codex protocol or the sign-in flow knowing. Implementations must be safe to call from a worker
// thread (the protocol refreshes tokens there).
class CredentialStorage
{
public:
    virtual ~CredentialStorage() = default;
    virtual std::optional<CodexCredentials> load() const = 0;
    virtual Result<void> save(const CodexCredentials &credentials) = 0;
    // Sign out.
    virtual Result<void> remove() = 0;
};

} // namespace keen
