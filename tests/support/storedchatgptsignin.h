#pragma once

#include "auth/filecredentialstorage.h"

namespace keen::test {

// A ChatGPT sign-in valid for a day, stored where the app finds it without a keychain (auth.json in
// KEEN_HOME), for as long as this object lives: for tests of what a stored sign-in changes.
class StoredChatGptSignIn
{
public:
    StoredChatGptSignIn();
    ~StoredChatGptSignIn();
    StoredChatGptSignIn(const StoredChatGptSignIn &) = delete;
    StoredChatGptSignIn &operator=(const StoredChatGptSignIn &) = delete;

    bool wasStored() const { return m_stored; }
    // Whether it is still there (a sign-out removes it).
    bool isStillStored() const { return m_storage.load().has_value(); }

private:
    FileCredentialStorage m_storage;
    bool m_stored = false;
};

} // namespace keen::test
