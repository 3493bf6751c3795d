#pragma once

// Scripted responses of all six provider protocols for the loopback fake provider (OpenAI Chat Completions,
// OpenAI Responses, OpenAI Codex, Anthropic, Gemini, Bedrock), and the protocols pointed at it, so one test
// can run the same story against every wire format (data-driven over providers()).

#include "fakeproviderserver.h"

#include "providers/providerprotocol.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <memory>

namespace keen::test::ProviderScript {

// The provider ids of the six protocols: openai-compatible (Chat), openai (Responses), openai-codex,
// anthropic, googleai, amazon-bedrock.
QStringList providers();
// A QTest "provider" column with one row per provider, for _data() functions.
void addProviderRows();

bool isResponses(const QString &provider);   // Responses and Codex
bool isAlternating(const QString &provider); // Anthropic, Gemini, Bedrock
// The request key that holds the native history, and the key of a message's content.
QString historyKey(const QString &provider);
QString contentKey(const QString &provider);

// A streamed response with one call of tool name (arguments: JSON text), usage as given.
FakeProviderServer::Response toolCall(const QString &provider, const QString &id, const QString &name,
                                      const QString &arguments, int inputTokens = 30, int outputTokens = 5);
// A streamed text response, in two deltas.
FakeProviderServer::Response text(const QString &provider, const QString &text, int inputTokens = 30,
                                  int outputTokens = 5);
// A 400 the provider's classifier reads as an invalid request with that message (never retried).
FakeProviderServer::Response badRequest(const QString &provider, const QString &message);
// A 400 the provider's classifier reads as a context-window error; its message contains contextErrorText().
FakeProviderServer::Response contextLengthError(const QString &provider);
QString contextErrorText(const QString &provider);

// The provider's protocol aimed at base, with that context window, fast retries, and for Codex a valid
// sign-in in memory.
std::unique_ptr<ProviderProtocol> makeProtocol(const QString &provider, const QUrl &base, qint64 window);

// The text of a block ({"text": ...}).
QString textOf(const QJsonValue &block);
// The text of the request's final user message: its content string, or its last text block.
QString finalUserText(const QString &provider, const QJsonObject &body);
// Content blocks without Anthropic cache_control markers and Bedrock cachePoint blocks, which move with the
// last message.
QJsonArray withoutCacheMarkers(const QJsonArray &blocks);

} // namespace keen::test::ProviderScript
