#include "providers/anthropic/anthropicprotocol.h"

#include "providers/anthropic/anthropicstreamdecoder.h"
#include "providers/providertable.h"
#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace keen {

namespace {

QJsonObject textBlock(const QString &text)
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}};
}

AlternatingHistory::Shape anthropicShape()
{
    AlternatingHistory::Shape shape;
    shape.userRole = QStringLiteral("user");
    shape.assistantRole = QStringLiteral("assistant");
    shape.contentKey = QStringLiteral("content");
    shape.textBlock = textBlock;
    shape.callBlock = [](const QString &id, const QString &name, const QJsonObject &input) {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_use")},
                           {QStringLiteral("id"), id},
                           {QStringLiteral("name"), name},
                           {QStringLiteral("input"), input}};
    };
    shape.resultBlock = [](const QString &id, const QString &, const QString &result, bool isError) {
        QJsonObject block{{QStringLiteral("type"), QStringLiteral("tool_result")},
                          {QStringLiteral("tool_use_id"), id},
                          {QStringLiteral("content"), result}};
        if (isError)
            block.insert(QStringLiteral("is_error"), true);
        return block;
    };
    return shape;
}

bool isContextLengthMessage(const QString &message)
{
    return message.contains(QLatin1String("prompt is too long"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("exceed context limit"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("context window"), Qt::CaseInsensitive);
}

// Sets the marker on the last block that may carry one (thinking blocks may not), returning whether it did.
bool markLastBlock(QJsonArray &blocks)
{
    for (qsizetype i = blocks.size() - 1; i >= 0; --i) {
        QJsonObject block = blocks.at(i).toObject();
        const QString type = block.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("thinking") || type == QLatin1String("redacted_thinking"))
            continue;
        block.insert(QStringLiteral("cache_control"),
                     QJsonObject{{QStringLiteral("type"), QStringLiteral("ephemeral")}});
        blocks[i] = block;
        return true;
    }
    return false;
}

void clearMarkers(QJsonArray &blocks)
{
    for (qsizetype i = 0; i < blocks.size(); ++i) {
        QJsonObject block = blocks.at(i).toObject();
        if (block.contains(QStringLiteral("cache_control"))) {
            block.remove(QStringLiteral("cache_control"));
            blocks[i] = block;
        }
    }
}

} // namespace

AnthropicProtocol::AnthropicProtocol(ClientConfig config)
    : ProviderProtocol(std::move(config))
    , m_history(anthropicShape())
{}

QString AnthropicProtocol::providerName() const
{
    return m_config.providerId == QLatin1String("minimax") ? QStringLiteral("MiniMax")
                                                           : QStringLiteral("Anthropic");
}

QUrl AnthropicProtocol::endpoint() const
{
    return url(QStringLiteral("/messages"));
}

QUrl AnthropicProtocol::url(const QString &path) const
{
    QString fallback = ProviderTable::defaultBaseUrl(m_config.providerId);
    if (fallback.isEmpty())
        fallback = ProviderTable::defaultBaseUrl(QStringLiteral("anthropic"));
    const QString base = WireSupport::trimmedBase(m_config.baseUrl, fallback);
    // A base given with its version segment (".../v1") is accepted as well as the SDK-style bare host.
    if (base.endsWith(QLatin1String("/v1")))
        return QUrl(base + path);
    return QUrl(base + QStringLiteral("/v1") + path);
}

HttpRequestSpec AnthropicProtocol::modelsListRequest() const
{
    HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = url(QStringLiteral("/models"));
    spec.headers = {{"anthropic-version", "2023-06-01"}};
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({"x-api-key", m_config.apiKey.toUtf8()});
    for (const auto &[name, value] : m_config.headers)
        WireSupport::setHeader(spec.headers, name, value);
    return spec;
}

NativeHistory AnthropicProtocol::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    return m_history.toNative(messages, firstIndex);
}

NativeHistory AnthropicProtocol::rebuildAfterCompaction(const NativeHistory &current,
                                                        const MessageList &replacement) const
{
    return m_history.rebuildAfterCompaction(current, replacement);
}

void AnthropicProtocol::appendUserText(NativeHistory &history, const QString &text) const
{
    m_history.appendUserText(history.messages, text);
}

QJsonArray AnthropicProtocol::assistantMessages(const ModelTurn &turn) const
{
    return m_history.assistantMessages(turn);
}

QJsonArray AnthropicProtocol::toolResultMessages(const QList<ToolOutcome> &outcomes) const
{
    return m_history.toolResultMessages(outcomes);
}

QJsonValue AnthropicProtocol::toolDefinitions(const ToolSpecList &tools) const
{
    QJsonArray definitions;
    for (const ToolSpec &tool : tools)
        definitions.append(QJsonObject{{QStringLiteral("name"), tool.name},
                                       {QStringLiteral("description"), tool.description},
                                       {QStringLiteral("input_schema"), tool.inputSchema}});
    return definitions;
}

void AnthropicProtocol::applyThinking(QJsonObject &body) const
{
    const QString effort = m_config.thinkingEffort.trimmed().toLower();
    if (effort.isEmpty())
        return;
    // MiniMax accepts thinking parameters only on its M3 model (reference 1.5).
    if (m_config.providerId == QLatin1String("minimax") &&
        m_config.model.toLower() != QLatin1String("minimax-m3"))
        return;
    static const QStringList efforts{QStringLiteral("low"), QStringLiteral("medium"), QStringLiteral("high"),
                                     QStringLiteral("xhigh"), QStringLiteral("max")};
    if (efforts.contains(effort)) {
        body.insert(QStringLiteral("thinking"),
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("adaptive")}});
        body.insert(QStringLiteral("output_config"), QJsonObject{{QStringLiteral("effort"), effort}});
    } else if (effort == QLatin1String("adaptive") || effort == QLatin1String("enabled") ||
               effort == QLatin1String("disabled")) {
        body.insert(QStringLiteral("thinking"), QJsonObject{{QStringLiteral("type"), effort}});
    }
}

void AnthropicProtocol::applyCacheControl(QJsonObject &body, int stableIndex)
{
    QJsonArray system = body.value(QStringLiteral("system")).toArray();
    QJsonArray tools = body.value(QStringLiteral("tools")).toArray();
    QJsonArray messages = body.value(QStringLiteral("messages")).toArray();

    // Markers left on stored history from an earlier request would count against the limit of four.
    clearMarkers(system);
    clearMarkers(tools);
    for (qsizetype i = 0; i < messages.size(); ++i) {
        QJsonObject message = messages.at(i).toObject();
        QJsonArray content = message.value(QStringLiteral("content")).toArray();
        clearMarkers(content);
        message.insert(QStringLiteral("content"), content);
        messages[i] = message;
    }

    markLastBlock(system);
    if (!tools.isEmpty()) {
        QJsonObject last = tools.last().toObject();
        last.insert(QStringLiteral("cache_control"),
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("ephemeral")}});
        tools[tools.size() - 1] = last;
    }
    auto markMessage = [&messages](qsizetype index) {
        QJsonObject message = messages.at(index).toObject();
        QJsonArray content = message.value(QStringLiteral("content")).toArray();
        if (markLastBlock(content)) {
            message.insert(QStringLiteral("content"), content);
            messages[index] = message;
        }
    };
    if (stableIndex >= 0 && stableIndex < messages.size())
        markMessage(stableIndex);
    if (!messages.isEmpty() && stableIndex != messages.size() - 1)
        markMessage(messages.size() - 1);

    if (body.contains(QStringLiteral("system")))
        body.insert(QStringLiteral("system"), system);
    if (body.contains(QStringLiteral("tools")))
        body.insert(QStringLiteral("tools"), tools);
    body.insert(QStringLiteral("messages"), messages);
}

QJsonObject AnthropicProtocol::requestBody(const NativeHistory &history, const ToolSpecList &tools,
                                           const RequestContext &context) const
{
    QJsonObject body{
        {QStringLiteral("model"), m_config.model},
        {QStringLiteral("max_tokens"), MaxTokens},
        {QStringLiteral("stream"), true},
    };
    QJsonArray system;
    if (history.system.isArray())
        system = history.system.toArray();
    else if (history.system.isString() && !history.system.toString().isEmpty())
        system.append(textBlock(history.system.toString()));
    if (!system.isEmpty())
        body.insert(QStringLiteral("system"), system);
    int stableIndex = context.stableIndex;
    body.insert(QStringLiteral("messages"), m_history.normalized(history.messages, &stableIndex));
    const QJsonArray definitions = toolDefinitions(tools).toArray();
    if (!definitions.isEmpty())
        body.insert(QStringLiteral("tools"), definitions);
    applyThinking(body);
    applyCacheControl(body, stableIndex);
    return body;
}

HttpRequestSpec AnthropicProtocol::buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                                const RequestContext &context) const
{
    HttpRequestSpec spec;
    spec.url = endpoint();
    spec.headers = {
        {"content-type", "application/json"},
        {"accept", "text/event-stream"},
        {"anthropic-version", "2023-06-01"},
    };
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({"x-api-key", m_config.apiKey.toUtf8()});
    for (const auto &[name, value] : m_config.headers)
        WireSupport::setHeader(spec.headers, name, value);
    spec.body = QJsonDocument(requestBody(history, tools, context)).toJson(QJsonDocument::Compact);
    return spec;
}

std::unique_ptr<StreamDecoder> AnthropicProtocol::createDecoder(const EventSink &sink) const
{
    return std::make_unique<AnthropicStreamDecoder>(sink, providerName());
}

ProviderError AnthropicProtocol::errorFromObject(const QJsonObject &error, int httpStatus,
                                                 const QString &provider)
{
    const QString type = error.value(QStringLiteral("type")).toString();
    const QString message = error.value(QStringLiteral("message")).toString();
    const QString detail = message.isEmpty() ? type : message;
    using Kind = ProviderError::Kind;
    Kind kind = Kind::Stream;
    if (httpStatus == 401 || httpStatus == 403 || type == QLatin1String("authentication_error") ||
        type == QLatin1String("permission_error"))
        kind = Kind::Authentication;
    else if (httpStatus == 429 || type == QLatin1String("rate_limit_error"))
        kind = Kind::RateLimit;
    else if (httpStatus >= 500 || type == QLatin1String("overloaded_error") ||
             type == QLatin1String("api_error"))
        kind = Kind::Overloaded;
    else if (isContextLengthMessage(message))
        kind = Kind::ContextLength;
    else if ((httpStatus >= 400 && httpStatus < 500) || type == QLatin1String("invalid_request_error") ||
             type == QLatin1String("not_found_error") || type == QLatin1String("request_too_large"))
        kind = Kind::InvalidRequest;
    return WireSupport::makeError(kind, provider, detail, httpStatus);
}

ProviderError AnthropicProtocol::classifyHttpError(int status, const QByteArray &body,
                                                   const HeaderList &headers) const
{
    bool ok = false;
    const QJsonObject object = WireSupport::parseObject(body, &ok);
    QJsonObject error = object.value(QStringLiteral("error")).toObject();
    if (!ok || error.isEmpty())
        error.insert(QStringLiteral("message"), QString::fromUtf8(body.left(500)).trimmed());
    ProviderError result = errorFromObject(error, status, providerName());
    if (result.kind == ProviderError::Kind::Stream)
        result.kind = ProviderError::Kind::InvalidRequest;
    if (result.kind == ProviderError::Kind::RateLimit || result.kind == ProviderError::Kind::Overloaded)
        result.retryAfterMs = WireSupport::retryAfterMs(headers);
    return result;
}

} // namespace keen
