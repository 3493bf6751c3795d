// Automatic compaction through the shared tool loop for all six provider protocols (OpenAI Chat Completions,
// OpenAI Responses, OpenAI Codex, Anthropic, Gemini, Bedrock) against the loopback fake provider (seed
// "Automatic compaction", S34-S48; issue 5 "Tests"). Each provider's stream bodies are scripted here:
// one tool turn under a large system prompt, then the private compaction request, then the resumed parent
// request. Prompt-cache parity is proven against a second run of the same script with a huge context window,
// whose second request is exactly the parent request the compaction request stands in for.

#include "fakeproviderserver.h"
#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "auth/credentialstorage.h"
#include "loop/compactionprompts.h"
#include "loop/toolloopclient.h"
#include "providers/anthropic/anthropicprotocol.h"
#include "providers/bedrock/bedrockprotocol.h"
#include "providers/gemini/geminiprotocol.h"
#include "providers/openai/openaichatprotocol.h"
#include "providers/openai/openaicodexprotocol.h"
#include "providers/openai/openairesponsesprotocol.h"
#include "stream/eventstreamdecoder.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>

using namespace keen;
using namespace keen::test;

// Declared before the helpers: moc's tokenizer loses track in string literals with escaped quotes.
class TestAutoCompactionProviders final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void triggerAndPromptCacheParity_S34_S35_S36_S37_S44_data();
    void triggerAndPromptCacheParity_S34_S35_S36_S37_S44();
    void toolCallsRefusedInOneShotCompaction_S14_S38_data();
    void toolCallsRefusedInOneShotCompaction_S14_S38();
    void nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48_data();
    void nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48();
    void failedCompactionSendsParentUnchanged_S46_data();
    void failedCompactionSendsParentUnchanged_S46();

private:
    static void addProviders();
};

namespace {

const qint64 SmallWindow =
    20000; // budget 15904, threshold 14314 tokens: a 45000-byte system prompt crosses it
const qint64 HugeWindow = 10000000; // never crossed

QString systemText()
{
    return QStringLiteral("You are Keen. ") + QString(45000, QLatin1Char('s'));
}

QString userText()
{
    return QStringLiteral("implement this exactly");
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

FakeProviderServer::Response streamResponse(const QByteArray &contentType, const QByteArray &body)
{
    FakeProviderServer::Response response;
    response.contentType = contentType;
    response.body = body;
    response.split = FakeProviderServer::SplitMode::randomSplits(quint32(body.size()), 48);
    response.delayMs = 0;
    return response;
}

// ---- OpenAI Chat Completions ----

QByteArray chatEvent(const QJsonObject &object)
{
    return "data: " + compact(object) + "\n\n";
}

QJsonObject chatChoice(const QJsonObject &delta, const QJsonValue &finish = QJsonValue::Null)
{
    return QJsonObject{
        {QStringLiteral("choices"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                           {QStringLiteral("delta"), delta},
                                                           {QStringLiteral("finish_reason"), finish}}}}};
}

QByteArray chatUsage()
{
    return chatEvent(
        QJsonObject{{QStringLiteral("choices"), QJsonArray()},
                    {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 30},
                                                          {QStringLiteral("completion_tokens"), 5},
                                                          {QStringLiteral("total_tokens"), 35}}}});
}

QByteArray chatToolCall(const QString &id, const QString &arguments)
{
    const QJsonObject first{
        {QStringLiteral("index"), 0},
        {QStringLiteral("id"), id},
        {QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), QStringLiteral("echo")},
                                                 {QStringLiteral("arguments"), QString()}}}};
    const QJsonObject rest{
        {QStringLiteral("index"), 0},
        {QStringLiteral("function"), QJsonObject{{QStringLiteral("arguments"), arguments}}}};
    return chatEvent(chatChoice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{first}}})) +
           chatEvent(chatChoice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{rest}}})) +
           chatEvent(chatChoice(QJsonObject(), QStringLiteral("tool_calls"))) + chatUsage() +
           "data: [DONE]\n\n";
}

QByteArray chatText(const QString &text)
{
    return chatEvent(chatChoice(QJsonObject{{QStringLiteral("content"), text.left(4)}})) +
           chatEvent(chatChoice(QJsonObject{{QStringLiteral("content"), text.mid(4)}})) +
           chatEvent(chatChoice(QJsonObject(), QStringLiteral("stop"))) + chatUsage() + "data: [DONE]\n\n";
}

// ---- OpenAI Responses and Codex ----

QByteArray responsesEvent(QJsonObject object, int &sequence)
{
    object.insert(QStringLiteral("sequence_number"), sequence++);
    return "event: " + object.value(QStringLiteral("type")).toString().toUtf8() +
           "\ndata: " + compact(object) + "\n\n";
}

QByteArray responsesTurn(const QJsonObject &item, const QList<QJsonObject> &deltas)
{
    int sequence = 0;
    QJsonObject added = item;
    if (added.contains(QStringLiteral("arguments")))
        added.insert(QStringLiteral("arguments"), QString());
    if (added.contains(QStringLiteral("content")))
        added.insert(QStringLiteral("content"), QJsonArray());
    added.insert(QStringLiteral("status"), QStringLiteral("in_progress"));
    QByteArray body =
        responsesEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("response.created")},
                                   {QStringLiteral("response"),
                                    QJsonObject{{QStringLiteral("status"), QStringLiteral("in_progress")},
                                                {QStringLiteral("output"), QJsonArray()}}}},
                       sequence);
    body += responsesEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("response.output_item.added")},
                                       {QStringLiteral("output_index"), 0},
                                       {QStringLiteral("item"), added}},
                           sequence);
    for (const QJsonObject &delta : deltas)
        body += responsesEvent(delta, sequence);
    body += responsesEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("response.output_item.done")},
                                       {QStringLiteral("output_index"), 0},
                                       {QStringLiteral("item"), item}},
                           sequence);
    body += responsesEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("response.completed")},
                                       {QStringLiteral("response"),
                                        QJsonObject{{QStringLiteral("status"), QStringLiteral("completed")},
                                                    {QStringLiteral("output"), QJsonArray{item}},
                                                    {QStringLiteral("usage"),
                                                     QJsonObject{{QStringLiteral("input_tokens"), 30},
                                                                 {QStringLiteral("output_tokens"), 5},
                                                                 {QStringLiteral("total_tokens"), 35}}}}}},
                           sequence);
    return body;
}

QByteArray responsesToolCall(const QString &id, const QString &arguments)
{
    const QString itemId = QStringLiteral("fc_") + id;
    const QJsonObject item{{QStringLiteral("type"), QStringLiteral("function_call")},
                           {QStringLiteral("id"), itemId},
                           {QStringLiteral("call_id"), id},
                           {QStringLiteral("name"), QStringLiteral("echo")},
                           {QStringLiteral("arguments"), arguments},
                           {QStringLiteral("status"), QStringLiteral("completed")}};
    return responsesTurn(
        item, {QJsonObject{{QStringLiteral("type"), QStringLiteral("response.function_call_arguments.delta")},
                           {QStringLiteral("item_id"), itemId},
                           {QStringLiteral("output_index"), 0},
                           {QStringLiteral("delta"), arguments}}});
}

QByteArray responsesText(const QString &text)
{
    const QJsonObject item{{QStringLiteral("type"), QStringLiteral("message")},
                           {QStringLiteral("id"), QStringLiteral("msg_1")},
                           {QStringLiteral("status"), QStringLiteral("completed")},
                           {QStringLiteral("role"), QStringLiteral("assistant")},
                           {QStringLiteral("content"),
                            QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("output_text")},
                                                   {QStringLiteral("text"), text},
                                                   {QStringLiteral("annotations"), QJsonArray()}}}}};
    QList<QJsonObject> deltas;
    for (const QString &piece : {text.left(4), text.mid(4)})
        deltas.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("response.output_text.delta")},
                                  {QStringLiteral("item_id"), QStringLiteral("msg_1")},
                                  {QStringLiteral("output_index"), 0},
                                  {QStringLiteral("content_index"), 0},
                                  {QStringLiteral("delta"), piece}});
    return responsesTurn(item, deltas);
}

// ---- Anthropic ----

QByteArray anthropicEvent(const QJsonObject &object)
{
    return "event: " + object.value(QStringLiteral("type")).toString().toUtf8() +
           "\ndata: " + compact(object) + "\n\n";
}

QByteArray anthropicTurn(const QJsonObject &block, const QList<QJsonObject> &deltas,
                         const QString &stopReason)
{
    QByteArray body = anthropicEvent(QJsonObject{
        {QStringLiteral("type"), QStringLiteral("message_start")},
        {QStringLiteral("message"),
         QJsonObject{{QStringLiteral("id"), QStringLiteral("msg_1")},
                     {QStringLiteral("type"), QStringLiteral("message")},
                     {QStringLiteral("role"), QStringLiteral("assistant")},
                     {QStringLiteral("model"), QStringLiteral("claude-sonnet-4-5")},
                     {QStringLiteral("content"), QJsonArray()},
                     {QStringLiteral("stop_reason"), QJsonValue::Null},
                     {QStringLiteral("usage"), QJsonObject{{QStringLiteral("input_tokens"), 30},
                                                           {QStringLiteral("output_tokens"), 1}}}}}});
    body += anthropicEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("content_block_start")},
                                       {QStringLiteral("index"), 0},
                                       {QStringLiteral("content_block"), block}});
    for (const QJsonObject &delta : deltas)
        body += anthropicEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("content_block_delta")},
                                           {QStringLiteral("index"), 0},
                                           {QStringLiteral("delta"), delta}});
    body += anthropicEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("content_block_stop")},
                                       {QStringLiteral("index"), 0}});
    body += anthropicEvent(QJsonObject{
        {QStringLiteral("type"), QStringLiteral("message_delta")},
        {QStringLiteral("delta"), QJsonObject{{QStringLiteral("stop_reason"), stopReason},
                                              {QStringLiteral("stop_sequence"), QJsonValue::Null}}},
        {QStringLiteral("usage"), QJsonObject{{QStringLiteral("output_tokens"), 5}}}});
    body += anthropicEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("message_stop")}});
    return body;
}

QByteArray anthropicToolCall(const QString &id, const QString &arguments)
{
    return anthropicTurn(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                     {QStringLiteral("id"), id},
                                     {QStringLiteral("name"), QStringLiteral("echo")},
                                     {QStringLiteral("input"), QJsonObject()}},
                         {QJsonObject{{QStringLiteral("type"), QStringLiteral("input_json_delta")},
                                      {QStringLiteral("partial_json"), arguments}}},
                         QStringLiteral("tool_use"));
}

QByteArray anthropicText(const QString &text)
{
    QList<QJsonObject> deltas;
    for (const QString &piece : {text.left(4), text.mid(4)})
        deltas.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("text_delta")},
                                  {QStringLiteral("text"), piece}});
    return anthropicTurn(
        QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), QString()}},
        deltas, QStringLiteral("end_turn"));
}

// ---- Gemini ----

QByteArray geminiChunk(const QJsonArray &parts, bool last)
{
    QJsonObject candidate{
        {QStringLiteral("content"),
         QJsonObject{{QStringLiteral("role"), QStringLiteral("model")}, {QStringLiteral("parts"), parts}}}};
    if (last)
        candidate.insert(QStringLiteral("finishReason"), QStringLiteral("STOP"));
    const QJsonObject chunk{
        {QStringLiteral("candidates"), QJsonArray{candidate}},
        {QStringLiteral("usageMetadata"), QJsonObject{{QStringLiteral("promptTokenCount"), 30},
                                                      {QStringLiteral("candidatesTokenCount"), 5},
                                                      {QStringLiteral("totalTokenCount"), 35}}}};
    return "data: " + compact(chunk) + "\r\n\r\n";
}

QByteArray geminiToolCall(const QString &arguments)
{
    return geminiChunk(
        QJsonArray{QJsonObject{
            {QStringLiteral("functionCall"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("echo")},
                         {QStringLiteral("args"), QJsonDocument::fromJson(arguments.toUtf8()).object()}}}}},
        true);
}

QByteArray geminiText(const QString &text)
{
    return geminiChunk(QJsonArray{QJsonObject{{QStringLiteral("text"), text.left(4)}}}, false) +
           geminiChunk(QJsonArray{QJsonObject{{QStringLiteral("text"), text.mid(4)}}}, true);
}

// ---- Bedrock ----

QByteArray bedrockEvent(const char *type, const QJsonObject &payload)
{
    EventStreamDecoder::Message message;
    message.headers = {
        {QStringLiteral(":event-type"), EventStreamDecoder::Header::Type::String, QLatin1String(type)},
        {QStringLiteral(":content-type"), EventStreamDecoder::Header::Type::String,
         QStringLiteral("application/json")},
        {QStringLiteral(":message-type"), EventStreamDecoder::Header::Type::String, QStringLiteral("event")},
    };
    message.payload = compact(payload);
    return EventStreamDecoder::encode(message);
}

QByteArray bedrockTail(const QString &stopReason)
{
    return bedrockEvent("contentBlockStop", QJsonObject{{QStringLiteral("contentBlockIndex"), 0}}) +
           bedrockEvent("messageStop", QJsonObject{{QStringLiteral("stopReason"), stopReason}}) +
           bedrockEvent("metadata", QJsonObject{{QStringLiteral("usage"),
                                                 QJsonObject{{QStringLiteral("inputTokens"), 30},
                                                             {QStringLiteral("outputTokens"), 5},
                                                             {QStringLiteral("totalTokens"), 35}}}});
}

QByteArray bedrockToolCall(const QString &id, const QString &arguments)
{
    return bedrockEvent("messageStart", QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")}}) +
           bedrockEvent(
               "contentBlockStart",
               QJsonObject{{QStringLiteral("contentBlockIndex"), 0},
                           {QStringLiteral("start"),
                            QJsonObject{{QStringLiteral("toolUse"),
                                         QJsonObject{{QStringLiteral("toolUseId"), id},
                                                     {QStringLiteral("name"), QStringLiteral("echo")}}}}}}) +
           bedrockEvent("contentBlockDelta",
                        QJsonObject{{QStringLiteral("contentBlockIndex"), 0},
                                    {QStringLiteral("delta"),
                                     QJsonObject{{QStringLiteral("toolUse"),
                                                  QJsonObject{{QStringLiteral("input"), arguments}}}}}}) +
           bedrockTail(QStringLiteral("tool_use"));
}

QByteArray bedrockText(const QString &text)
{
    QByteArray body =
        bedrockEvent("messageStart", QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")}});
    for (const QString &piece : {text.left(4), text.mid(4)})
        body += bedrockEvent(
            "contentBlockDelta",
            QJsonObject{{QStringLiteral("contentBlockIndex"), 0},
                        {QStringLiteral("delta"), QJsonObject{{QStringLiteral("text"), piece}}}});
    return body + bedrockTail(QStringLiteral("end_turn"));
}

// ---- per provider ----

bool isResponses(const QString &provider)
{
    return provider == QLatin1String("openai") || provider == QLatin1String("openai-codex");
}

bool isAlternating(const QString &provider)
{
    return provider == QLatin1String("anthropic") || provider == QLatin1String("googleai") ||
           provider == QLatin1String("amazon-bedrock");
}

// The request key that holds the native history.
QString historyKey(const QString &provider)
{
    if (isResponses(provider))
        return QStringLiteral("input");
    if (provider == QLatin1String("googleai"))
        return QStringLiteral("contents");
    return QStringLiteral("messages");
}

QString contentKey(const QString &provider)
{
    return provider == QLatin1String("googleai") ? QStringLiteral("parts") : QStringLiteral("content");
}

FakeProviderServer::Response toolCallResponse(const QString &provider, const QString &id,
                                              const QString &arguments)
{
    if (provider == QLatin1String("openai-compatible"))
        return streamResponse("text/event-stream", chatToolCall(id, arguments));
    if (isResponses(provider))
        return streamResponse("text/event-stream", responsesToolCall(id, arguments));
    if (provider == QLatin1String("anthropic"))
        return streamResponse("text/event-stream", anthropicToolCall(id, arguments));
    if (provider == QLatin1String("googleai"))
        return streamResponse("text/event-stream", geminiToolCall(arguments));
    return streamResponse("application/vnd.amazon.eventstream", bedrockToolCall(id, arguments));
}

FakeProviderServer::Response textResponse(const QString &provider, const QString &text)
{
    if (provider == QLatin1String("openai-compatible"))
        return streamResponse("text/event-stream", chatText(text));
    if (isResponses(provider))
        return streamResponse("text/event-stream", responsesText(text));
    if (provider == QLatin1String("anthropic"))
        return streamResponse("text/event-stream", anthropicText(text));
    if (provider == QLatin1String("googleai"))
        return streamResponse("text/event-stream", geminiText(text));
    return streamResponse("application/vnd.amazon.eventstream", bedrockText(text));
}

FakeProviderServer::Response badRequest(const QString &provider)
{
    const QString message = QStringLiteral("compaction refused");
    QJsonObject body;
    FakeProviderServer::HeaderList headers;
    if (provider == QLatin1String("anthropic")) {
        body = QJsonObject{{QStringLiteral("type"), QStringLiteral("error")},
                           {QStringLiteral("error"),
                            QJsonObject{{QStringLiteral("type"), QStringLiteral("invalid_request_error")},
                                        {QStringLiteral("message"), message}}}};
    } else if (provider == QLatin1String("googleai")) {
        body = QJsonObject{{QStringLiteral("error"),
                            QJsonObject{{QStringLiteral("code"), 400},
                                        {QStringLiteral("message"), message},
                                        {QStringLiteral("status"), QStringLiteral("INVALID_ARGUMENT")}}}};
    } else if (provider == QLatin1String("amazon-bedrock")) {
        body = QJsonObject{{QStringLiteral("message"), message}};
        headers.append(qMakePair(QByteArray("x-amzn-errortype"), QByteArray("ValidationException")));
    } else {
        body = QJsonObject{{QStringLiteral("error"),
                            QJsonObject{{QStringLiteral("message"), message},
                                        {QStringLiteral("type"), QStringLiteral("invalid_request_error")}}}};
    }
    return FakeProviderServer::jsonResponse(400, compact(body), headers);
}

class MemoryStorage final : public CredentialStorage
{
public:
    std::optional<CodexCredentials> load() const override { return m_credentials; }
    Result<void> save(const CodexCredentials &credentials) override
    {
        m_credentials = credentials;
        return {};
    }
    Result<void> remove() override
    {
        m_credentials.reset();
        return {};
    }
    std::optional<CodexCredentials> m_credentials;
};

std::unique_ptr<ProviderProtocol> makeProtocol(const QString &provider, const QUrl &base, qint64 window)
{
    ClientConfig config;
    config.providerId = provider;
    config.apiKey = QStringLiteral("test-key");
    config.retryBaseDelayMs = 10;
    config.contextWindow = window;
    if (provider == QLatin1String("openai-compatible")) {
        config.model = QStringLiteral("gpt-4o");
        config.baseUrl = base.toString() + QStringLiteral("/v1");
        return std::make_unique<OpenAiChatProtocol>(config);
    }
    if (provider == QLatin1String("openai")) {
        config.model = QStringLiteral("gpt-5");
        config.thinkingEffort = QStringLiteral("low");
        config.baseUrl = base.toString() + QStringLiteral("/v1");
        return std::make_unique<OpenAiResponsesProtocol>(config);
    }
    if (provider == QLatin1String("openai-codex")) {
        config.model = QStringLiteral("gpt-5-codex");
        config.apiKey.clear();
        config.baseUrl = base.toString() + QStringLiteral("/backend-api/codex");
        auto storage = std::make_shared<MemoryStorage>();
        CodexCredentials credentials;
        credentials.accessToken = QStringLiteral("codex-access");
        credentials.refreshToken = QStringLiteral("codex-refresh");
        credentials.expiresAt = QDateTime::currentDateTimeUtc().addSecs(3600);
        credentials.accountId = QStringLiteral("acct-7");
        storage->m_credentials = credentials;
        return std::make_unique<OpenAiCodexProtocol>(config, storage);
    }
    config.baseUrl = base.toString();
    if (provider == QLatin1String("anthropic")) {
        config.model = QStringLiteral("claude-sonnet-4-5");
        return std::make_unique<AnthropicProtocol>(config);
    }
    if (provider == QLatin1String("googleai")) {
        config.model = QStringLiteral("gemini-2.5-flash");
        return std::make_unique<GeminiProtocol>(config);
    }
    config.model = QStringLiteral("us.amazon.nova-micro-v1:0");
    config.awsRegion = QStringLiteral("us-east-1");
    return std::make_unique<BedrockProtocol>(config, QProcessEnvironment());
}

struct Run
{
    bool finished = false;
    QList<StreamEvent> events;
    QList<QJsonObject> bodies; // every request body, in order
    QList<QByteArray> rawBodies;
    int toolRuns = 0;

    QString text() const
    {
        QString text;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::Chunk)
                text += event.content;
        }
        return text;
    }
    QList<StreamEvent> ofType(StreamEvent::Type type) const
    {
        QList<StreamEvent> result;
        for (const StreamEvent &event : events) {
            if (event.type == type)
                result.append(event);
        }
        return result;
    }
    QStringList compactionEvents() const
    {
        QStringList names;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::AutoCompactionStarted ||
                event.type == StreamEvent::Type::AutoCompactionApplied ||
                event.type == StreamEvent::Type::AutoCompactionFailed ||
                event.type == StreamEvent::Type::AutoCompactionCancelled)
                names.append(event.typeName());
        }
        return names;
    }
};

// One streamChat of [system, user] with the echo tool, answered from the scripted responses.
Run runScript(const QString &provider, qint64 window, const QList<FakeProviderServer::Response> &responses)
{
    FakeProviderServer server;
    for (const FakeProviderServer::Response &response : responses)
        server.enqueue(response);
    auto echo = std::make_shared<FakeTool>(
        QStringLiteral("echo"), QStringLiteral("Echoes text back."),
        QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                    {QStringLiteral("properties"),
                     QJsonObject{{QStringLiteral("text"),
                                  QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}}},
        QJsonObject{{QStringLiteral("echo"), QStringLiteral("x")}});
    ToolRegistry tools;
    tools.add(echo);
    ToolLoopClient client(makeProtocol(provider, server.baseUrl(), window));

    std::mutex mutex;
    Run run;
    QList<StreamEvent> events;
    std::atomic_bool finished = false;
    StreamOptions options;
    options.sessionId = QStringLiteral("1234-5678");
    std::thread worker([&] {
        client.streamChat({Message::system(systemText()), Message::user(userText())}, &tools, options,
                          CancellationToken(), [&](const StreamEvent &event) {
                              std::lock_guard lock(mutex);
                              events.append(event);
                          });
        finished = true;
    });
    run.finished = FakeProviderServer::spinUntil([&] { return finished.load(); }, 20000);
    if (!run.finished)
        server.closeAllConnections();
    worker.join();
    run.events = events;
    for (const FakeProviderServer::Request &request : server.requests()) {
        run.bodies.append(request.json.object());
        run.rawBodies.append(request.body);
    }
    run.toolRuns = int(echo->inputs().size());
    return run;
}

QString textOf(const QJsonValue &block)
{
    return block.toObject().value(QStringLiteral("text")).toString();
}

// The text of the request's final user message: its content string, or its last text block.
QString finalUserText(const QString &provider, const QJsonObject &body)
{
    const QJsonArray history = body.value(historyKey(provider)).toArray();
    if (history.isEmpty())
        return {};
    const QJsonObject last = history.last().toObject();
    if (last.value(QStringLiteral("role")).toString() != QLatin1String("user"))
        return {};
    const QJsonValue content = last.value(contentKey(provider));
    if (content.isString())
        return content.toString();
    const QJsonArray blocks = content.toArray();
    for (qsizetype i = blocks.size() - 1; i >= 0; --i) {
        if (blocks.at(i).toObject().contains(QStringLiteral("text")))
            return textOf(blocks.at(i));
    }
    return {};
}

bool isCompactionRequest(const QString &provider, const QJsonObject &body)
{
    return finalUserText(provider, body) == CompactionPrompts::automaticPrompt();
}

// Content blocks as a cache-neutral list: Anthropic cache_control markers and Bedrock cachePoint blocks
// move with the last message, so they are left out when comparing the last message's blocks.
QJsonArray withoutCacheMarkers(const QJsonArray &blocks)
{
    QJsonArray result;
    for (const QJsonValue &block : blocks) {
        if (block.toObject().contains(QStringLiteral("cachePoint")))
            continue;
        result.append(withoutKey(block, QStringLiteral("cache_control")));
    }
    return result;
}

} // namespace

void TestAutoCompactionProviders::addProviders()
{
    QTest::addColumn<QString>("provider");
    for (const char *provider :
         {"openai-compatible", "openai", "openai-codex", "anthropic", "googleai", "amazon-bedrock"})
        QTest::newRow(provider) << QString::fromLatin1(provider);
}

void TestAutoCompactionProviders::triggerAndPromptCacheParity_S34_S35_S36_S37_S44_data()
{
    addProviders();
}

void TestAutoCompactionProviders::triggerAndPromptCacheParity_S34_S35_S36_S37_S44()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString args = QStringLiteral("{\"text\":\"x\"}");
    const Run compacted = runScript(provider, SmallWindow,
                                    {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                     textResponse(provider, QStringLiteral("PRIVATE SUMMARY")),
                                     textResponse(provider, QStringLiteral("after"))});
    const Run plain = runScript(provider, HugeWindow,
                                {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                 textResponse(provider, QStringLiteral("after"))});
    QVERIFY(compacted.finished);
    QVERIFY(plain.finished);
    QVERIFY2(plain.events.last().type == StreamEvent::Type::Done, qPrintable(plain.events.last().error));
    QVERIFY2(compacted.events.last().type == StreamEvent::Type::Done,
             qPrintable(compacted.events.last().error));

    // S36: the first request of a turn never compacts; after the tool turn the small window triggers it
    // (S35), the huge one does not.
    QCOMPARE(compacted.bodies.size(), 3);
    QCOMPARE(plain.bodies.size(), 2);
    QCOMPARE(compacted.bodies.at(0), plain.bodies.at(0));
    QVERIFY(!isCompactionRequest(provider, compacted.bodies.at(0)));
    QVERIFY(isCompactionRequest(provider, compacted.bodies.at(1)));
    QVERIFY(!isCompactionRequest(provider, plain.bodies.at(1)));
    QVERIFY(!isCompactionRequest(provider, compacted.bodies.at(2)));
    QVERIFY(plain.compactionEvents().isEmpty());
    QCOMPARE(compacted.toolRuns, 1);
    QCOMPARE(plain.toolRuns, 1);

    // S37, S44: the compaction request is the parent request it replaces plus the final prompt. Everything
    // but the history is identical (system field, tool definitions, model, settings, cache keys).
    const QString key = historyKey(provider);
    const QJsonObject compaction = compacted.bodies.at(1);
    const QJsonObject parent = plain.bodies.at(1);
    QJsonObject compactionRest = compaction;
    QJsonObject parentRest = parent;
    compactionRest.remove(key);
    parentRest.remove(key);
    QCOMPARE(compactionRest, parentRest);
    for (const char *field : {"tools", "toolConfig", "system", "systemInstruction", "instructions"}) {
        const QString name = QLatin1String(field);
        QCOMPARE(compaction.contains(name), parent.contains(name));
    }
    QVERIFY(compaction.contains(QStringLiteral("tools")) ||
            compaction.contains(QStringLiteral("toolConfig")));

    const QJsonArray compactionHistory = compaction.value(key).toArray();
    const QJsonArray parentHistory = parent.value(key).toArray();
    if (!isAlternating(provider)) {
        // The prompt is one more message after the parent's history, byte for byte the same before it.
        QCOMPARE(compactionHistory.size(), parentHistory.size() + 1);
        for (qsizetype i = 0; i < parentHistory.size(); ++i)
            QCOMPARE(compactionHistory.at(i), parentHistory.at(i));
        QCOMPARE(compactionHistory.last().toObject(),
                 (QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                              {QStringLiteral("content"), CompactionPrompts::automaticPrompt()}}));
    } else {
        // Turns must alternate: the prompt joins the trailing user message (the tool results) as a final
        // text block. Every earlier message is identical; the last one starts with the same blocks.
        QCOMPARE(compactionHistory.size(), parentHistory.size());
        for (qsizetype i = 0; i + 1 < parentHistory.size(); ++i)
            QCOMPARE(compactionHistory.at(i), parentHistory.at(i));
        const QJsonObject last = compactionHistory.last().toObject();
        const QJsonObject parentLast = parentHistory.last().toObject();
        QCOMPARE(last.value(QStringLiteral("role")), parentLast.value(QStringLiteral("role")));
        const QJsonArray blocks = withoutCacheMarkers(last.value(contentKey(provider)).toArray());
        const QJsonArray parentBlocks = withoutCacheMarkers(parentLast.value(contentKey(provider)).toArray());
        QCOMPARE(blocks.size(), parentBlocks.size() + 1);
        for (qsizetype i = 0; i < parentBlocks.size(); ++i)
            QCOMPARE(blocks.at(i), parentBlocks.at(i));
        QCOMPARE(textOf(blocks.last()), CompactionPrompts::automaticPrompt());
    }
}

void TestAutoCompactionProviders::toolCallsRefusedInOneShotCompaction_S14_S38_data()
{
    addProviders();
}

void TestAutoCompactionProviders::toolCallsRefusedInOneShotCompaction_S14_S38()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const Run run =
        runScript(provider, SmallWindow,
                  {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
                   toolCallResponse(provider, QStringLiteral("call_2"), QStringLiteral("{\"text\":\"y\"}")),
                   textResponse(provider, QStringLiteral("PRIVATE SUMMARY")),
                   textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    QCOMPARE(run.bodies.size(), 4);
    QVERIFY(isCompactionRequest(provider, run.bodies.at(1)));

    // The tool the compaction model asked for never ran; its refusal went back to the model (S14, S38).
    QCOMPARE(run.toolRuns, 1);
    const QString key = historyKey(provider);
    QCOMPARE(run.bodies.at(2).value(key).toArray().size(), run.bodies.at(1).value(key).toArray().size() + 2);
    QVERIFY(run.rawBodies.at(2).contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
    QVERIFY(!run.rawBodies.at(1).contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
    // The follow-up is still the compaction conversation, not the parent's.
    QVERIFY(run.rawBodies.at(2).contains("Compact this conversation."));

    // Nothing of the nested request reached the parent: one tool start (the parent's), no summary (S39).
    QCOMPARE(run.ofType(StreamEvent::Type::ToolStart).size(), 1);
    QCOMPARE(run.text(), QStringLiteral("after"));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    const StreamEvent applied = run.ofType(StreamEvent::Type::AutoCompactionApplied).first();
    QVERIFY(applied.autoCompaction->replacement.last().content.contains(QStringLiteral("PRIVATE SUMMARY")));
    QVERIFY(!isCompactionRequest(provider, run.bodies.at(3)));
    QVERIFY(!run.rawBodies.at(3).contains(CompactionPrompts::toolCallsDisabledMessage().toUtf8()));
}

void TestAutoCompactionProviders::nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48_data()
{
    addProviders();
}

void TestAutoCompactionProviders::nativeRebuildAfterApply_S39_S41_S43_S44_S47_S48()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const Run run =
        runScript(provider, SmallWindow,
                  {toolCallResponse(provider, QStringLiteral("call_1"), QStringLiteral("{\"text\":\"x\"}")),
                   textResponse(provider, QStringLiteral("PRIVATE SUMMARY")),
                   textResponse(provider, QStringLiteral("after"))});
    QVERIFY(run.finished);
    QVERIFY2(run.events.last().type == StreamEvent::Type::Done, qPrintable(run.events.last().error));
    QCOMPARE(run.bodies.size(), 3);

    // S39, S48: the summary stays private; the lifecycle is started, then applied.
    QCOMPARE(run.text(), QStringLiteral("after"));
    for (const StreamEvent &event : run.events)
        QVERIFY(!event.content.contains(QStringLiteral("PRIVATE SUMMARY")));
    QCOMPARE(run.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionApplied)}));
    const StreamEvent applied = run.ofType(StreamEvent::Type::AutoCompactionApplied).first();
    const MessageList replacement = applied.autoCompaction->replacement;
    QCOMPARE(replacement.size(), 2);
    QCOMPARE(replacement.at(0), Message::system(systemText())); // S41
    const QString compactedText = replacement.at(1).content;
    QVERIFY(compactedText.contains(QStringLiteral("<compacted_context>")));
    QVERIFY(compactedText.contains(QStringLiteral("PRIVATE SUMMARY")));
    QVERIFY(compactedText.contains(QStringLiteral("<last_user_message>")));
    QVERIFY(compactedText.endsWith(userText() + QStringLiteral("\n</last_user_message>"))); // S42

    // S43, S47: the resumed parent request carries the replacement in the provider's native shape.
    const QString key = historyKey(provider);
    const QJsonObject first = run.bodies.at(0);
    const QJsonObject resumed = run.bodies.at(2);
    const QJsonArray history = resumed.value(key).toArray();
    const QJsonObject lastMessage = history.last().toObject();
    QCOMPARE(lastMessage.value(QStringLiteral("role")).toString(), QStringLiteral("user"));
    QCOMPARE(finalUserText(provider, resumed), compactedText);
    if (provider == QLatin1String("openai-compatible") || provider == QLatin1String("openai")) {
        // The system message is rebuilt as the first message (Chat) or input item (Responses).
        QCOMPARE(history.size(), 2);
        QCOMPARE(history.at(0), first.value(key).toArray().at(0));
        QCOMPARE(history.at(0)[QStringLiteral("role")].toString(), QStringLiteral("system"));
        QCOMPARE(history.at(0)[QStringLiteral("content")].toString(), systemText());
        QCOMPARE(lastMessage.value(QStringLiteral("content")).toString(), compactedText);
    } else if (provider == QLatin1String("openai-codex")) {
        QCOMPARE(resumed.value(QStringLiteral("instructions")).toString(), systemText());
        QCOMPARE(history.size(), 1);
        QCOMPARE(lastMessage.value(QStringLiteral("content")).toString(), compactedText);
    } else {
        QCOMPARE(history.size(), 1);
        const QJsonArray blocks = withoutCacheMarkers(lastMessage.value(contentKey(provider)).toArray());
        QCOMPARE(blocks.size(), 1);
        QCOMPARE(textOf(blocks.at(0)), compactedText);
        const QString systemField = provider == QLatin1String("googleai")
                                        ? QStringLiteral("systemInstruction")
                                        : QStringLiteral("system");
        QVERIFY(resumed.contains(systemField));
        QCOMPARE(resumed.value(systemField), first.value(systemField)); // system blocks kept byte-identical
    }
    // Everything but the history (system field, tool definitions, model, settings) equals the turn's first
    // request: the tool definitions are attached again (S44).
    QJsonObject resumedRest = resumed;
    QJsonObject firstRest = first;
    resumedRest.remove(key);
    firstRest.remove(key);
    QCOMPARE(resumedRest, firstRest);
    QVERIFY(resumed.contains(QStringLiteral("tools")) || resumed.contains(QStringLiteral("toolConfig")));
    QCOMPARE(run.rawBodies.at(2).count("PRIVATE SUMMARY"), 1);
}

void TestAutoCompactionProviders::failedCompactionSendsParentUnchanged_S46_data()
{
    addProviders();
}

void TestAutoCompactionProviders::failedCompactionSendsParentUnchanged_S46()
{
    QFETCH(QString, provider);
    TestEnvironment environment;
    const QString args = QStringLiteral("{\"text\":\"x\"}");
    const Run failed = runScript(provider, SmallWindow,
                                 {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                  badRequest(provider), textResponse(provider, QStringLiteral("after"))});
    const Run plain = runScript(provider, HugeWindow,
                                {toolCallResponse(provider, QStringLiteral("call_1"), args),
                                 textResponse(provider, QStringLiteral("after"))});
    QVERIFY(failed.finished);
    QVERIFY(plain.finished);
    QVERIFY2(failed.events.last().type == StreamEvent::Type::Done, qPrintable(failed.events.last().error));
    QCOMPARE(failed.bodies.size(), 3);
    QCOMPARE(plain.bodies.size(), 2);
    QVERIFY(isCompactionRequest(provider, failed.bodies.at(1)));
    // The original parent request goes on exactly as it would have without compaction.
    QCOMPARE(failed.bodies.at(2), plain.bodies.at(1));
    QCOMPARE(failed.rawBodies.at(2), plain.rawBodies.at(1));
    QCOMPARE(failed.compactionEvents(),
             (QStringList{StreamEvent::typeName(StreamEvent::Type::AutoCompactionStarted),
                          StreamEvent::typeName(StreamEvent::Type::AutoCompactionFailed)}));
    const StreamEvent failure = failed.ofType(StreamEvent::Type::AutoCompactionFailed).first();
    QVERIFY2(failure.autoCompaction->error.contains(QStringLiteral("compaction refused")),
             qPrintable(failure.autoCompaction->error));
    QVERIFY(failed.ofType(StreamEvent::Type::Retry).isEmpty());
    QCOMPARE(failed.text(), QStringLiteral("after"));
}

QTEST_GUILESS_MAIN(TestAutoCompactionProviders)
#include "tst_autocompactionproviders.moc"
