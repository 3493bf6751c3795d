#pragma once

#include "base/result.h"
#include "mcp/mcpoauthcredentials.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

namespace keen {

// The MCP sign-ins, one entry per server name, in <data dir>/mcp/oauth.json: owner-only (0600 in a 0700
// folder), replaced atomically. Safe from any thread: the MCP thread renews tokens while the window signs in
// to another server.
class McpOAuthStore
{
    Q_DECLARE_TR_FUNCTIONS(McpOAuthStore)

public:
    static constexpr qint64 MaxFileBytes = 1024 * 1024;

    static QString path(const QString &dataDir);
    static std::optional<McpOAuthCredentials> load(const QString &dataDir, const QString &server);
    static Result<void> save(const QString &dataDir, const QString &server,
                             const McpOAuthCredentials &credentials);
    // Signs out; nothing stored is no error.
    static Result<void> remove(const QString &dataDir, const QString &server);
};

} // namespace keen
