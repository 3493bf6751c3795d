#pragma once

// One response body through a provider protocol's stream decoder, as the tool loop drives it: pieces until
// failed(), then finish(); a finished turn is mapped back to the native messages that replay it (the next
// request), and its tool calls to tool results.

#include "fuzzsupport.h"
#include "providers/providerprotocol.h"

namespace keen::fuzz {

inline ClientConfig fuzzConfig(const QString &providerId)
{
    ClientConfig config;
    config.providerId = providerId;
    config.model = QStringLiteral("fuzz-model");
    config.baseUrl = QStringLiteral("http://127.0.0.1:9");
    config.apiKey = QStringLiteral("fuzz-key");
    config.awsRegion = QStringLiteral("us-east-1");
    return config;
}

inline void decodeWith(const ProviderProtocol &protocol, const uint8_t *data, size_t size)
{
    qsizetype streamed = 0;
    auto decoder =
        protocol.createDecoder([&streamed](const StreamEvent &event) { streamed += event.content.size(); });
    feedInPieces(data, size, [&](const QByteArray &piece) {
        decoder->feed(piece);
        return !decoder->failed();
    });
    const Result<ModelTurn> turn = decoder->finish();
    if (!turn) {
        if (decoder->error().message.isEmpty())
            __builtin_trap(); // every failure says what went wrong
        return;
    }
    (void)protocol.assistantMessages(*turn);
    QList<ToolOutcome> outcomes;
    for (const ToolCallRequest &call : turn->toolCalls)
        outcomes.append(ToolOutcome{call, QStringLiteral("{\"ok\":true}"), false});
    if (!outcomes.isEmpty())
        (void)protocol.toolResultMessages(outcomes);
    if (turn->usage && (turn->usage->inputTokens < 0 || turn->usage->outputTokens < 0))
        __builtin_trap(); // counts are clamped
}

} // namespace keen::fuzz
