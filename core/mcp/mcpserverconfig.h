#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace keen {

// One MCP server of <data dir>/mcp/configs.json (reference 8.3):
//   {"servers": {"<name>": {"command": "...", "args": [...], "env": {...}}            a local program (stdio)
//                "<name>": {"url": "https://...", "headers": {...},
//                           "auth": {"type": "bearer"|"header"|"oauth", "header": "...", "scheme": "...",
//                                    "key": "...", "scopes": [...], "client_id": "...",
//                                    "client_secret": "...", "callback_port": 0}}}}    a remote server (HTTP)
// OAuth (MCP authorization): /mcp connect signs in with the browser (McpSignIn); the tokens live in
// mcp/oauth.json (McpOAuthStore). client_id is for a server without dynamic client registration, and
// callback_port for the redirect address such a client was registered with.
// "${VAR}" in command, args, env, url, headers and the auth key is replaced by that environment variable, so
// a key can stay out of the file. "timeout_seconds" bounds one tool call (default 120), "disabled": true
// keeps an entry without starting it.
struct McpServerConfig
{
    Q_DECLARE_TR_FUNCTIONS(McpServerConfig)

public:
    static constexpr int DefaultCallTimeoutSeconds = 120;
    static constexpr qint64 MaxFileBytes = 1024 * 1024;

    enum class Transport { Stdio, Http };

    QString name; // a server name is part of a skill name (mcp:<name>): letters, digits, '.', '_', '-'
    Transport transport = Transport::Stdio;
    QString command;
    QStringList args;
    QMap<QString, QString> env;
    QUrl url;
    QList<QPair<QByteArray, QByteArray>> headers; // the auth header included
    QString authType;                             // "", "bearer", "header" or "oauth"
    QString authHeader;                           // the header the key goes in ("header" and "bearer")
    QStringList oauthScopes;                      // asked for at sign-in; empty: what the server names
    QString oauthClientId;                        // empty: registered at sign-in
    QString oauthClientSecret;
    quint16 oauthCallbackPort = 0; // 0: any free port
    int callTimeoutSeconds = DefaultCallTimeoutSeconds;
    bool disabled = false;
    // Not empty: this entry cannot be used, and why (shown by /mcp; the other servers still start).
    QString problem;

    bool operator==(const McpServerConfig &other) const = default;

    // "stdio: npx -y server" or "http: https://host/mcp", for the status table.
    QString endpoint() const;
    // What /mcp shows in its Auth column; never the key.
    QString authSummary() const;
    bool usesOAuth() const { return transport == Transport::Http && authType == QLatin1String("oauth"); }

    static QString path(const QString &dataDir); // <dataDir>/mcp/configs.json
    // The servers of the file in name order. A missing file is no servers; a file that cannot be read or is
    // not a JSON object with a "servers" object is an error naming the file; a bad entry is kept with its
    // problem.
    static Result<QList<McpServerConfig>> readFile(const QString &path);
    static Result<QList<McpServerConfig>> parse(const QString &path, const QByteArray &bytes);
    static bool isValidName(const QString &name);
};

} // namespace keen
