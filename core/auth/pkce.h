#pragma once

#include <QByteArray>
#include <QString>

namespace keen {

// The proof key of an OAuth authorization code sign-in (RFC 7636, S256), and its state value: shared by the
// ChatGPT sign-in and the MCP servers' sign-ins.
class Pkce
{
public:
    // 64 random bytes as base64url, no padding.
    static QByteArray generateVerifier();
    // base64url(SHA-256(verifier)), no padding.
    static QByteArray challengeForVerifier(const QByteArray &verifier);
    // 32 random bytes as base64url: ties the browser's redirect to this sign-in.
    static QString generateState();
};

} // namespace keen
