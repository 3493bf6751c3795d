#pragma once

#include "providers/providerprotocol.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QString>

#include <optional>

namespace keen {

// Small pieces the provider protocols share: header look-up, Retry-After, tolerant JSON parsing and the
// plain-language text of a classified error.
class WireSupport
{
public:
    WireSupport() = delete;

    // The first header of that name, compared case-insensitively; empty when absent.
    static QByteArray header(const HeaderList &headers, const QByteArray &name);
    // Replaces a header of that name (case-insensitively) or appends it.
    static void setHeader(HeaderList &headers, const QByteArray &name, const QByteArray &value);
    // Retry-After as delta-seconds or an HTTP date, in milliseconds.
    static std::optional<int> retryAfterMs(const HeaderList &headers);
    // Google's protobuf Duration text ("47s", "1.5s"), in milliseconds.
    static std::optional<int> durationMs(const QString &text);
    // The JSON object in bytes, or an empty object (trailing padding and whitespace are fine). Invalid UTF-8
    // fails it.
    static QJsonObject parseObject(const QByteArray &bytes, bool *ok = nullptr);
    // For SSE event data, which is text: invalid UTF-8 inside a string reads as U+FFFD instead of failing, as
    // when the bytes were decoded to text first (a server's stray byte must not end a turn).
    static QJsonDocument parseTextDocument(const QByteArray &bytes, QJsonParseError *error);
    static QJsonObject parseTextObject(const QByteArray &bytes, bool *ok = nullptr);
    // Tool input text as an object: empty or malformed text (or a non-object) gives {} (reference 1.1).
    static QJsonObject toolInput(const QString &arguments);
    // The URL without a trailing slash.
    static QString trimmedBase(const QString &base, const QString &fallback);
    // "<Provider>: <what went wrong>" with the kind said in plain words, e.g. for an HTTP status.
    static ProviderError makeError(ProviderError::Kind kind, const QString &provider, const QString &detail,
                                   int httpStatus = 0);
};

} // namespace keen
