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
        Truncated,      // the body ended before the reply was complete (no finish marker)
        Stream,         // malformed stream data, or an error event inside it
        Cancelled,
    };

    Kind kind = Kind::Stream;
    QString message; // user-readable, never contains a secret
    int httpStatus = 0;
    std::optional<int> retryAfterMs;

    // Rate limits, 5xx, network failures, stalls and replies cut short are retried; cancels, other 4xx and
    // malformed data (the same request would most likely get the same bytes) never are.
    bool isRetryable() const
    {
        return kind == Kind::RateLimit || kind == Kind::Overloaded || kind == Kind::Network ||
               kind == Kind::Stalled || kind == Kind::Truncated;
    }
};

} // namespace keen
