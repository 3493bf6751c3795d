#include "providers/openai/openairesponsesprotocol.h"

#include "conversation/historyreplay.h"
#include "providers/openai/openaierrorclassifier.h"
#include "providers/openai/responsesstreamdecoder.h"
#include "providers/providertable.h"

#include <QJsonDocument>

namespace keen {

namespace {

QJsonObject roleItem(const QString &role, const QString &content)
{
    return QJsonObject{{QStringLiteral("role"), role}, {QStringLiteral("content"), content}};
}

bool reasoningEnabled(const QString &effort)
{
    return !effort.isEmpty() && effort != QLatin1String("none") && effort != QLatin1String("disabled");
}

} // namespace

OpenAiResponsesProtocol::OpenAiResponsesProtocol(ClientConfig config)
    : ProviderProtocol(std::move(config))
{}

QString OpenAiResponsesProtocol::defaultBaseUrl()
{
    return ProviderTable::defaultBaseUrl(QStringLiteral("openai"));
}

QString OpenAiResponsesProtocol::promptCacheKey(const QString &sessionId)
{
    QString key = sessionId;
    key.remove(QLatin1Char('-'));
    return key;
}

QString OpenAiResponsesProtocol::joinUrl(QString base, const QString &path)
{
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    return base + path;
}

void OpenAiResponsesProtocol::addExtraHeaders(HeaderList &headers, const HeaderList &extra)
{
    for (const auto &header : extra) {
        headers.removeIf([&header](const auto &existing) {
            return existing.first.compare(header.first, Qt::CaseInsensitive) == 0;
        });
        headers.append(header);
    }
}

QJsonArray OpenAiResponsesProtocol::inputItems(const MessageList &messages, bool includeSystem,
                                               qsizetype firstIndex)
{
    QJsonArray items;
    for (int i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        switch (message.role) {
        case Message::Role::System:
            if (includeSystem)
                items.append(roleItem(QStringLiteral("system"), message.content));
            break;
        case Message::Role::User:
            items.append(roleItem(QStringLiteral("user"), message.content));
            break;
        case Message::Role::Assistant:
            // The index stays that of the full list so call ids match whatever the system handling is.
            for (const ReplayStep &step : replaySteps(message, int(firstIndex) + i)) {
                if (step.kind == ReplayStep::Kind::Text) {
                    items.append(roleItem(QStringLiteral("assistant"), step.text));
                    continue;
                }
                items.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call")},
                                         {QStringLiteral("call_id"), step.callId},
                                         {QStringLiteral("name"), step.tool},
                                         {QStringLiteral("arguments"), serializeJson(step.input)}});
                items.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call_output")},
                                         {QStringLiteral("call_id"), step.callId},
                                         {QStringLiteral("output"), step.result}});
            }
            break;
        }
    }
    return items;
}

NativeHistory OpenAiResponsesProtocol::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    NativeHistory history;
    history.messages = inputItems(messages, true, firstIndex);
    return history;
}

void OpenAiResponsesProtocol::appendUserText(NativeHistory &history, const QString &text) const
{
    history.messages.append(roleItem(QStringLiteral("user"), text));
}

QJsonArray OpenAiResponsesProtocol::assistantMessages(const ModelTurn &turn) const
{
    if (!turn.assistantNative.isEmpty())
        return turn.assistantNative;
    if (turn.text.isEmpty())
        return {};
    return QJsonArray{roleItem(QStringLiteral("assistant"), turn.text)};
}

QJsonArray OpenAiResponsesProtocol::toolResultMessages(const QList<ToolOutcome> &outcomes) const
{
    QJsonArray items;
    for (const ToolOutcome &outcome : outcomes)
        items.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("function_call_output")},
                                 {QStringLiteral("call_id"), outcome.call.id},
                                 {QStringLiteral("output"), outcome.content}});
    return items;
}

QJsonValue OpenAiResponsesProtocol::toolDefinitions(const ToolSpecList &tools) const
{
    if (tools.isEmpty())
        return {};
    QJsonArray definitions;
    for (const ToolSpec &tool : tools)
        definitions.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("function")},
                                       {QStringLiteral("name"), tool.name},
                                       {QStringLiteral("description"), tool.description},
                                       {QStringLiteral("parameters"), tool.inputSchema},
                                       {QStringLiteral("strict"), false}});
    return definitions;
}

QJsonObject OpenAiResponsesProtocol::requestBody(const NativeHistory &history, const ToolSpecList &tools,
                                                 const RequestContext &context) const
{
    QJsonObject body{
        {QStringLiteral("model"), m_config.model},
        {QStringLiteral("stream"), true},
        {QStringLiteral("store"), false},
        {QStringLiteral("input"), history.messages},
    };
    const QJsonValue definitions = toolDefinitions(tools);
    if (definitions.isArray())
        body.insert(QStringLiteral("tools"), definitions);
    const QString cacheKey = promptCacheKey(context.options.sessionId);
    if (!cacheKey.isEmpty())
        body.insert(QStringLiteral("prompt_cache_key"), cacheKey);
    const QString effort = m_config.thinkingEffort;
    if (!effort.isEmpty())
        body.insert(QStringLiteral("reasoning"), QJsonObject{{QStringLiteral("effort"), effort}});
    // With store:false the reasoning items only survive to the next request in their encrypted form.
    if (reasoningEnabled(effort))
        body.insert(QStringLiteral("include"), QJsonArray{QStringLiteral("reasoning.encrypted_content")});
    return body;
}

HttpRequestSpec OpenAiResponsesProtocol::buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                                      const RequestContext &context) const
{
    HttpRequestSpec spec;
    spec.url = QUrl(joinUrl(m_config.baseUrl.isEmpty() ? defaultBaseUrl() : m_config.baseUrl,
                            QStringLiteral("/responses")));
    spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    spec.headers.append({QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream")});
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({QByteArrayLiteral("Authorization"), "Bearer " + m_config.apiKey.toUtf8()});
    addExtraHeaders(spec.headers, m_config.headers);
    spec.body = QJsonDocument(requestBody(history, tools, context)).toJson(QJsonDocument::Compact);
    return spec;
}

HttpRequestSpec OpenAiResponsesProtocol::modelsListRequest() const
{
    HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = QUrl(
        joinUrl(m_config.baseUrl.isEmpty() ? defaultBaseUrl() : m_config.baseUrl, QStringLiteral("/models")));
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({QByteArrayLiteral("Authorization"), "Bearer " + m_config.apiKey.toUtf8()});
    addExtraHeaders(spec.headers, m_config.headers);
    return spec;
}

std::unique_ptr<StreamDecoder> OpenAiResponsesProtocol::createDecoder(const EventSink &sink) const
{
    return std::make_unique<ResponsesStreamDecoder>(sink);
}

ProviderError OpenAiResponsesProtocol::classifyHttpError(int status, const QByteArray &body,
                                                         const HeaderList &headers) const
{
    return OpenAiErrorClassifier::classifyHttp(status, body, headers);
}

} // namespace keen
