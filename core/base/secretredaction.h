#pragma once

#include <QString>

namespace keen {

// Takes a known secret out of text that came from elsewhere: a provider's error body may quote the key it
// refused ("Incorrect API key provided: sk-..."), and that text is shown, printed and saved.
class SecretRedaction
{
public:
    SecretRedaction() = delete;

    // text with every occurrence of secret (also percent-encoded) replaced by "[redacted]". Secrets shorter
    // than MinimumLength are left alone: a local server's placeholder key ("x", "none") is no secret, and
    // replacing it would garble ordinary words.
    static QString redact(const QString &text, const QString &secret);

    static constexpr qsizetype MinimumLength = 6;
};

} // namespace keen
