#pragma once

#include "base/cancellationtoken.h"
#include "base/result.h"
#include "conversation/eventsink.h"
#include "conversation/message.h"
#include "conversation/streamoptions.h"
#include "conversation/tokenusage.h"
#include "conversation/toolspec.h"
#include "providers/clientconfig.h"
#include "providers/providererror.h"
#include "stream/httprequest.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPair>
#include <QStringList>
#include <QUrl>

#include <memory>
#include <optional>

namespace keen {

// A provider's native conversation: system kept apart where the API has a separate field
// (Anthropic system blocks, Bedrock system, Gemini systemInstruction, Codex instructions), otherwise null and
// the system message is one of the messages (OpenAI Chat, Responses).
struct NativeHistory
{
    QJsonValue system;
    QJsonArray messages; // native messages or input items, in order

    bool operator==(const NativeHistory &) const = default;
};

// A tool call the model asked for.
struct ToolCallRequest
{
    QString id; // the provider's call id; synthesised where the API has none (Gemini)
    QString name;
    QString arguments;  // raw JSON text as streamed
    QJsonObject input;  // parsed; {} when the text was empty or malformed
    QJsonObject native; // provider extras to replay (Gemini thoughtSignature, Responses item id)
};

// Everything one streamed response produced.
struct ModelTurn
{
    QString text;
    QString reasoning;
    QList<ToolCallRequest> toolCalls; // in model order
    std::optional<TokenUsage> usage;
    // The native message(s) or items that replay this response in the history: thinking blocks with their
    // signatures, redacted thinking, reasoning items, tool_use blocks... Built by the decoder.
    QJsonArray assistantNative;
    QString stopReason;
};

// The result of one tool call, as the model will see it.
struct ToolOutcome
{
    ToolCallRequest call;
    QString content; // JSON text: the LLM-facing output, or {"error":"..."}
    bool isError = false;
};

// Decodes one response body. feed() gets the bytes in whatever pieces the network delivers and emits
// chunk and reasoning_chunk events live through the sink given at creation.
class StreamDecoder
{
public:
    virtual ~StreamDecoder() = default;
    virtual void feed(const QByteArray &bytes) = 0;
    // True once the stream reported an error; the caller stops reading.
    virtual bool failed() const = 0;
    // The body ended. An error when the stream failed, was malformed, or ended before its terminal marker.
    virtual Result<ModelTurn> finish() = 0;
    // The classified error behind a failed finish() (or failed()).
    virtual ProviderError error() const = 0;
};

struct RequestContext
{
    StreamOptions options;
    // Index of the last native message before this turn's loop additions (-1: none). Anthropic and Bedrock
    // put a cache marker there and on the last message.
    int stableIndex = -1;
};

// What makes one provider different. ToolLoopClient runs the loop, retries, compaction and pending state;
// a protocol only maps between the neutral history and the wire, and decodes the stream.
class ProviderProtocol
{
public:
    explicit ProviderProtocol(ClientConfig config)
        : m_config(std::move(config))
    {}
    virtual ~ProviderProtocol() = default;

    const ClientConfig &config() const { return m_config; }
    // A fresh key from the api_key_helper, used from the next request on.
    void setApiKey(const QString &key) { m_config.apiKey = key; }

    // Native history for a neutral conversation: system handling, historical tool activity replayed as native
    // call/result pairs (see historyreplay.h), consecutive user messages merged where the API needs turns
    // to alternate. firstIndex is the index of messages' first message in the conversation it is a part of:
    // replayed call ids are numbered by it, so the parts of one conversation never share an id.
    virtual NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const = 0;
    // After an automatic compaction. Default: toNative(replacement). Anthropic and Bedrock keep
    // current.system and rebuild the messages from the replacement without its system messages.
    virtual NativeHistory rebuildAfterCompaction(const NativeHistory &current,
                                                 const MessageList &replacement) const
    {
        Q_UNUSED(current);
        return toNative(replacement);
    }
    // Appends a user text message (into a trailing user message where turns must alternate).
    virtual void appendUserText(NativeHistory &history, const QString &text) const = 0;
    // Native message(s) for a finished response (usually turn.assistantNative, wrapped as the API wants).
    virtual QJsonArray assistantMessages(const ModelTurn &turn) const = 0;
    // Native message(s) carrying the results of one tool turn, in call order.
    virtual QJsonArray toolResultMessages(const QList<ToolOutcome> &outcomes) const = 0;
    // Tool definitions as this API wants them, in the order given (the tool loop sorts them by name).
    virtual QJsonValue toolDefinitions(const ToolSpecList &tools) const = 0;
    virtual HttpRequestSpec buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                         const RequestContext &context) const = 0;
    // The cheapest request that proves the endpoint and the credentials: the API's models list, with the
    // same authentication as buildRequest (the settings dialog's connection test sends it).
    virtual HttpRequestSpec modelsListRequest() const = 0;
    // The model ids in the body of a successful modelsListRequest(), in the order listed, without duplicates
    // (the settings dialog fills its Model list with them). Default: {"data": [{"id": ...}]}, the shape of
    // OpenAI, Anthropic and every OpenAI-compatible server. Empty when the body lists none this app can call.
    virtual QStringList modelIds(const QByteArray &modelsList) const;
    virtual std::unique_ptr<StreamDecoder> createDecoder(const EventSink &sink) const = 0;
    // A successful reply that was one whole JSON document instead of the stream asked for (a server that
    // ignores "stream": true), rewritten as the stream that carries the same response, for a decoder of
    // createDecoder(). Default: std::nullopt, this API's documents are not read (the person is told what
    // came).
    virtual std::optional<QByteArray> documentAsStream(const QByteArray &document) const
    {
        Q_UNUSED(document);
        return std::nullopt;
    }
    virtual ProviderError classifyHttpError(int status, const QByteArray &body,
                                            const HeaderList &headers) const = 0;
    // Whether automatic compaction waits while replayed pending state is unreconciled, that is until a
    // request carrying it has completed (S36). It must where a pending turn can hold signed or encrypted
    // reasoning the API verifies on replay: until the API has accepted that state once, a compaction request
    // built on it may be refused for the same reason. Each protocol states why it does or does not need this.
    virtual bool compactionWaitsForReconciledPending() const = 0;
    // Runs on the worker thread before each attempt (token refresh for Codex). Default: nothing to do.
    virtual Result<void> prepare(const CancellationToken &cancel)
    {
        Q_UNUSED(cancel);
        return {};
    }

protected:
    ClientConfig m_config;
};

} // namespace keen
