#pragma once

#include <QString>

#include <optional>

namespace keen {

// A classified provider failure, told plainly to the person (issue 3).
struct ProviderError
{
    enum class Kind {
        Authentication, // 401, 403
        RateLimit,      // 429
        Overloaded,     // 5xx, 529, overloaded_error
        ContextLength,  // the provider says the request is too long: never triggers compaction
        InvalidRequest, // other 4xx
        Network,        // connection failed or dropped
        Stalled,        // no bytes for the inactivity timeout
        Stream,         // malformed or truncated stream, or an error event inside it
        Cancelled,
    };

    Kind kind = Kind::Stream;
    QString message; // user-readable, never contains a secret
    int httpStatus = 0;
    std::optional<int> retryAfterMs;

    // Rate limits, 5xx and network failures are retried; cancels and other 4xx never are.
    bool isRetryable() const
    {
        return kind == Kind::RateLimit || kind == Kind::Overloaded || kind == Kind::Network ||
               kind == Kind::Stalled;
    }
};

} // namespace keen
