#pragma once

#include "fakeproviderserver.h"
#include "mcp/mcpoauthcredentials.h"
#include "mcp/mcpserverconfig.h"

#include <QSet>
#include <QString>

namespace keen::test {

// A remote MCP server (/mcp, on one port) that wants a bearer token from an authorization server under
// /tenant (on another port), as hosted servers are set up. Every token it issued is accepted until revoked.
class FakeOAuthMcpServer
{
public:
    FakeProviderServer mcp;
    FakeProviderServer auth;
    QSet<QString> validTokens;
    QString challenge;    // the PKCE challenge of the last authorize page
    QString lastVerifier; // the verifier the last code exchange sent
    int issued = 0;
    int expiresIn = 3600;
    bool registration = true;

    QString mcpUrl() const { return mcp.baseUrl().toString() + QStringLiteral("/mcp"); }
    QString issuer() const { return auth.baseUrl().toString() + QStringLiteral("/tenant"); }
    QString endpoint(const QString &path) const { return issuer() + path; }

    FakeOAuthMcpServer();

    // A remote entry of mcp/configs.json for it, named "cloud", with auth "oauth".
    McpServerConfig config() const;
    // What signing in to it leaves (client-7, refresh-1), with accessToken, which it now accepts, expiring
    // after expiresInSeconds.
    McpOAuthCredentials signIn(const QString &accessToken, qint64 expiresInSeconds);

    // The person in the browser: the authorization server sends them back to the app with a code (and the
    // page's state, or the one given). The loopback page's HTTP status.
    static int followRedirect(const QUrl &page, const QString &code, const QString &state = {});
};

} // namespace keen::test
