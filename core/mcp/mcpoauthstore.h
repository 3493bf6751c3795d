#pragma once

#include "base/result.h"
#include "mcp/mcpoauthcredentials.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

namespace keen {

// The MCP sign-ins, one per server name: in the OS keychain ("mcp-oauth:<server>"), as the ChatGPT sign-in
// is; where no keychain answers, in <data dir>/mcp/oauth.json, owner-only (0600 in a 0700 folder) and
// replaced atomically. Blocking (the keychain answers over D-Bus): call it from a worker thread, never the
// window's or the MCP thread's (McpConnection hands it to the thread pool).
class McpOAuthStore
{
    Q_DECLARE_TR_FUNCTIONS(McpOAuthStore)

public:
    static constexpr qint64 MaxFileBytes = 1024 * 1024;
    enum class Place { Keychain, File };

    static QString path(const QString &dataDir);
    static QString keychainKey(const QString &server);
    static std::optional<McpOAuthCredentials> load(const QString &dataDir, const QString &server);
    // Where it went: the keychain, or the file when no keychain took it (its reason is logged).
    static Result<Place> save(const QString &dataDir, const QString &server,
                              const McpOAuthCredentials &credentials);
    // Signs out, from both places; nothing stored is no error.
    static Result<void> remove(const QString &dataDir, const QString &server);
};

} // namespace keen
