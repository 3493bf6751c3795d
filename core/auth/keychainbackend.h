#pragma once

#include "auth/keychain.h"

#include <QString>

namespace keen {

// The contract between Keychain and the keychain module (auth/qtkeychain/, built as its own shared object
// and opened on the first keychain request). QtKeychain and the D-Bus libraries it pulls in cost every start
// of keen-desktop about 4 ms when linked; most headless runs never ask the keychain anything (or only learn
// that there is no session bus). Built by the same build with the same compiler and Qt, so plain C++ types
// cross the boundary.
class KeychainBackend
{
public:
    enum class Operation { Read, Write, Remove };

    // Called exactly once, on the thread that started the request, from its event loop.
    using Done = void (*)(void *context, const KeychainReply &reply);
    // Starts a request on the calling thread, which must run an event loop.
    using Start = void (*)(Operation operation, const QString &service, const QString &key,
                           const QString &secret, Done done, void *context);

    static constexpr char StartSymbol[] = "keen_keychain_start";
    static constexpr char ModuleFileName[] = "libkeen-keychain.so";
};

} // namespace keen
