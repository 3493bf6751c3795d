#include "providerscript.h"

#include "memorycredentialstorage.h"
#include "protocoltestsupport.h"

#include "providers/anthropic/anthropicprotocol.h"
#include "providers/bedrock/bedrockprotocol.h"
#include "providers/gemini/geminiprotocol.h"
#include "providers/openai/openaichatprotocol.h"
#include "providers/openai/openaicodexprotocol.h"
#include "providers/openai/openairesponsesprotocol.h"
#include "stream/eventstreamdecoder.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QTest>

namespace keen::test::ProviderScript {

namespace {

struct Usage
{
    int input = 30;
    int output = 5;
};

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

QByteArray chatUsage(const Usage &usage)
{
    return chatEvent(
        QJsonObject{{QStringLiteral("choices"), QJsonArray()},
                    {QStringLiteral("usage"),
                     QJsonObject{{QStringLiteral("prompt_tokens"), usage.input},
                                 {QStringLiteral("completion_tokens"), usage.output},
                                 {QStringLiteral("total_tokens"), usage.input + usage.output}}}});
}

QByteArray chatToolCall(const QString &id, const QString &name, const QString &arguments, const Usage &usage)
{
    const QJsonObject first{
        {QStringLiteral("index"), 0},
        {QStringLiteral("id"), id},
        {QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"),
         QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("arguments"), QString()}}}};
    const QJsonObject rest{
        {QStringLiteral("index"), 0},
        {QStringLiteral("function"), QJsonObject{{QStringLiteral("arguments"), arguments}}}};
    return chatEvent(chatChoice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{first}}})) +
           chatEvent(chatChoice(QJsonObject{{QStringLiteral("tool_calls"), QJsonArray{rest}}})) +
           chatEvent(chatChoice(QJsonObject(), QStringLiteral("tool_calls"))) + chatUsage(usage) +
           "data: [DONE]\n\n";
}

QByteArray chatText(const QString &text, const Usage &usage)
{
    return chatEvent(chatChoice(QJsonObject{{QStringLiteral("content"), text.left(4)}})) +
           chatEvent(chatChoice(QJsonObject{{QStringLiteral("content"), text.mid(4)}})) +
           chatEvent(chatChoice(QJsonObject(), QStringLiteral("stop"))) + chatUsage(usage) +
           "data: [DONE]\n\n";
}

// ---- OpenAI Responses and Codex ----

QByteArray responsesEvent(QJsonObject object, int &sequence)
{
    object.insert(QStringLiteral("sequence_number"), sequence++);
    return "event: " + object.value(QStringLiteral("type")).toString().toUtf8() +
           "\ndata: " + compact(object) + "\n\n";
}

QByteArray responsesTurn(const QJsonObject &item, const QList<QJsonObject> &deltas, const Usage &usage)
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
    body += responsesEvent(
        QJsonObject{
            {QStringLiteral("type"), QStringLiteral("response.completed")},
            {QStringLiteral("response"),
             QJsonObject{{QStringLiteral("status"), QStringLiteral("completed")},
                         {QStringLiteral("output"), QJsonArray{item}},
                         {QStringLiteral("usage"),
                          QJsonObject{{QStringLiteral("input_tokens"), usage.input},
                                      {QStringLiteral("output_tokens"), usage.output},
                                      {QStringLiteral("total_tokens"), usage.input + usage.output}}}}}},
        sequence);
    return body;
}

QByteArray responsesToolCall(const QString &id, const QString &name, const QString &arguments,
                             const Usage &usage)
{
    const QString itemId = QStringLiteral("fc_") + id;
    const QJsonObject item{{QStringLiteral("type"), QStringLiteral("function_call")},
                           {QStringLiteral("id"), itemId},
                           {QStringLiteral("call_id"), id},
                           {QStringLiteral("name"), name},
                           {QStringLiteral("arguments"), arguments},
                           {QStringLiteral("status"), QStringLiteral("completed")}};
    return responsesTurn(
        item,
        {QJsonObject{{QStringLiteral("type"), QStringLiteral("response.function_call_arguments.delta")},
                     {QStringLiteral("item_id"), itemId},
                     {QStringLiteral("output_index"), 0},
                     {QStringLiteral("delta"), arguments}}},
        usage);
}

QByteArray responsesText(const QString &text, const Usage &usage)
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
    return responsesTurn(item, deltas, usage);
}

// ---- Anthropic ----

QByteArray anthropicEvent(const QJsonObject &object)
{
    return "event: " + object.value(QStringLiteral("type")).toString().toUtf8() +
           "\ndata: " + compact(object) + "\n\n";
}

QByteArray anthropicTurn(const QJsonObject &block, const QList<QJsonObject> &deltas,
                         const QString &stopReason, const Usage &usage)
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
                     {QStringLiteral("usage"), QJsonObject{{QStringLiteral("input_tokens"), usage.input},
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
        {QStringLiteral("usage"), QJsonObject{{QStringLiteral("output_tokens"), usage.output}}}});
    body += anthropicEvent(QJsonObject{{QStringLiteral("type"), QStringLiteral("message_stop")}});
    return body;
}

QByteArray anthropicToolCall(const QString &id, const QString &name, const QString &arguments,
                             const Usage &usage)
{
    return anthropicTurn(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                                     {QStringLiteral("id"), id},
                                     {QStringLiteral("name"), name},
                                     {QStringLiteral("input"), QJsonObject()}},
                         {QJsonObject{{QStringLiteral("type"), QStringLiteral("input_json_delta")},
                                      {QStringLiteral("partial_json"), arguments}}},
                         QStringLiteral("tool_use"), usage);
}

QByteArray anthropicText(const QString &text, const Usage &usage)
{
    QList<QJsonObject> deltas;
    for (const QString &piece : {text.left(4), text.mid(4)})
        deltas.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("text_delta")},
                                  {QStringLiteral("text"), piece}});
    return anthropicTurn(
        QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), QString()}},
        deltas, QStringLiteral("end_turn"), usage);
}

// ---- Gemini ----

QByteArray geminiChunk(const QJsonArray &parts, bool last, const Usage &usage)
{
    QJsonObject candidate{
        {QStringLiteral("content"),
         QJsonObject{{QStringLiteral("role"), QStringLiteral("model")}, {QStringLiteral("parts"), parts}}}};
    if (last)
        candidate.insert(QStringLiteral("finishReason"), QStringLiteral("STOP"));
    const QJsonObject chunk{{QStringLiteral("candidates"), QJsonArray{candidate}},
                            {QStringLiteral("usageMetadata"),
                             QJsonObject{{QStringLiteral("promptTokenCount"), usage.input},
                                         {QStringLiteral("candidatesTokenCount"), usage.output},
                                         {QStringLiteral("totalTokenCount"), usage.input + usage.output}}}};
    return "data: " + compact(chunk) + "\r\n\r\n";
}

QByteArray geminiToolCall(const QString &name, const QString &arguments, const Usage &usage)
{
    return geminiChunk(
        QJsonArray{QJsonObject{
            {QStringLiteral("functionCall"),
             QJsonObject{{QStringLiteral("name"), name},
                         {QStringLiteral("args"), QJsonDocument::fromJson(arguments.toUtf8()).object()}}}}},
        true, usage);
}

QByteArray geminiText(const QString &text, const Usage &usage)
{
    return geminiChunk(QJsonArray{QJsonObject{{QStringLiteral("text"), text.left(4)}}}, false, usage) +
           geminiChunk(QJsonArray{QJsonObject{{QStringLiteral("text"), text.mid(4)}}}, true, usage);
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

QByteArray bedrockTail(const QString &stopReason, const Usage &usage)
{
    return bedrockEvent("contentBlockStop", QJsonObject{{QStringLiteral("contentBlockIndex"), 0}}) +
           bedrockEvent("messageStop", QJsonObject{{QStringLiteral("stopReason"), stopReason}}) +
           bedrockEvent(
               "metadata",
               QJsonObject{{QStringLiteral("usage"),
                            QJsonObject{{QStringLiteral("inputTokens"), usage.input},
                                        {QStringLiteral("outputTokens"), usage.output},
                                        {QStringLiteral("totalTokens"), usage.input + usage.output}}}});
}

QByteArray bedrockToolCall(const QString &id, const QString &name, const QString &arguments,
                           const Usage &usage)
{
    return bedrockEvent("messageStart", QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")}}) +
           bedrockEvent("contentBlockStart",
                        QJsonObject{{QStringLiteral("contentBlockIndex"), 0},
                                    {QStringLiteral("start"),
                                     QJsonObject{{QStringLiteral("toolUse"),
                                                  QJsonObject{{QStringLiteral("toolUseId"), id},
                                                              {QStringLiteral("name"), name}}}}}}) +
           bedrockEvent("contentBlockDelta",
                        QJsonObject{{QStringLiteral("contentBlockIndex"), 0},
                                    {QStringLiteral("delta"),
                                     QJsonObject{{QStringLiteral("toolUse"),
                                                  QJsonObject{{QStringLiteral("input"), arguments}}}}}}) +
           bedrockTail(QStringLiteral("tool_use"), usage);
}

QByteArray bedrockText(const QString &text, const Usage &usage)
{
    QByteArray body =
        bedrockEvent("messageStart", QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")}});
    for (const QString &piece : {text.left(4), text.mid(4)})
        body += bedrockEvent(
            "contentBlockDelta",
            QJsonObject{{QStringLiteral("contentBlockIndex"), 0},
                        {QStringLiteral("delta"), QJsonObject{{QStringLiteral("text"), piece}}}});
    return body + bedrockTail(QStringLiteral("end_turn"), usage);
}

} // namespace

QStringList providers()
{
    return {QStringLiteral("openai-compatible"), QStringLiteral("openai"),
            QStringLiteral("openai-codex"),      QStringLiteral("anthropic"),
            QStringLiteral("googleai"),          QStringLiteral("amazon-bedrock")};
}

void addProviderRows()
{
    QTest::addColumn<QString>("provider");
    for (const QString &provider : providers())
        QTest::newRow(qPrintable(provider)) << provider;
}

bool isResponses(const QString &provider)
{
    return provider == QLatin1String("openai") || provider == QLatin1String("openai-codex");
}

bool isAlternating(const QString &provider)
{
    return provider == QLatin1String("anthropic") || provider == QLatin1String("googleai") ||
           provider == QLatin1String("amazon-bedrock");
}

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

FakeProviderServer::Response toolCall(const QString &provider, const QString &id, const QString &name,
                                      const QString &arguments, int inputTokens, int outputTokens)
{
    const Usage usage{inputTokens, outputTokens};
    if (provider == QLatin1String("openai-compatible"))
        return streamResponse("text/event-stream", chatToolCall(id, name, arguments, usage));
    if (isResponses(provider))
        return streamResponse("text/event-stream", responsesToolCall(id, name, arguments, usage));
    if (provider == QLatin1String("anthropic"))
        return streamResponse("text/event-stream", anthropicToolCall(id, name, arguments, usage));
    if (provider == QLatin1String("googleai"))
        return streamResponse("text/event-stream", geminiToolCall(name, arguments, usage));
    return streamResponse("application/vnd.amazon.eventstream", bedrockToolCall(id, name, arguments, usage));
}

FakeProviderServer::Response text(const QString &provider, const QString &text, int inputTokens,
                                  int outputTokens)
{
    const Usage usage{inputTokens, outputTokens};
    if (provider == QLatin1String("openai-compatible"))
        return streamResponse("text/event-stream", chatText(text, usage));
    if (isResponses(provider))
        return streamResponse("text/event-stream", responsesText(text, usage));
    if (provider == QLatin1String("anthropic"))
        return streamResponse("text/event-stream", anthropicText(text, usage));
    if (provider == QLatin1String("googleai"))
        return streamResponse("text/event-stream", geminiText(text, usage));
    return streamResponse("application/vnd.amazon.eventstream", bedrockText(text, usage));
}

namespace {

FakeProviderServer::Response errorResponse(const QString &provider, const QString &message,
                                           const QString &openAiCode)
{
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
        QJsonObject error{{QStringLiteral("message"), message},
                          {QStringLiteral("type"), QStringLiteral("invalid_request_error")}};
        if (!openAiCode.isEmpty())
            error.insert(QStringLiteral("code"), openAiCode);
        body = QJsonObject{{QStringLiteral("error"), error}};
    }
    return FakeProviderServer::jsonResponse(400, compact(body), headers);
}

} // namespace

FakeProviderServer::Response badRequest(const QString &provider, const QString &message)
{
    return errorResponse(provider, message, QString());
}

QString contextErrorText(const QString &provider)
{
    if (provider == QLatin1String("anthropic"))
        return QStringLiteral("prompt is too long: 209924 tokens > 200000 maximum");
    if (provider == QLatin1String("googleai"))
        return QStringLiteral("The input token count (1200000) exceeds the maximum number of tokens allowed "
                              "(1048576).");
    if (provider == QLatin1String("amazon-bedrock"))
        return QStringLiteral("Input is too long for requested model.");
    return QStringLiteral("This model's maximum context length is 128000 tokens.");
}

FakeProviderServer::Response contextLengthError(const QString &provider)
{
    return errorResponse(provider, contextErrorText(provider), QStringLiteral("context_length_exceeded"));
}

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
        auto storage = std::make_shared<MemoryCredentialStorage>();
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

QString textOf(const QJsonValue &block)
{
    return block.toObject().value(QStringLiteral("text")).toString();
}

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

} // namespace keen::test::ProviderScript
