#include "providers/gemini/geminiprotocol.h"

#include "providers/gemini/geministreamdecoder.h"
#include "providers/providertable.h"
#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace keen {

namespace {

QString providerName()
{
    return QStringLiteral("Gemini");
}

QJsonObject textPart(const QString &text)
{
    return QJsonObject{{QStringLiteral("text"), text}};
}

QJsonObject functionResponsePart(const QString &id, const QString &name, const QString &result)
{
    QJsonObject response{{QStringLiteral("name"), name},
                         {QStringLiteral("response"), GeminiProtocol::responseObject(result)}};
    if (!id.isEmpty())
        response.insert(QStringLiteral("id"), id);
    return QJsonObject{{QStringLiteral("functionResponse"), response}};
}

AlternatingHistory::Shape geminiShape()
{
    AlternatingHistory::Shape shape;
    shape.userRole = QStringLiteral("user");
    shape.assistantRole = QStringLiteral("model");
    shape.contentKey = QStringLiteral("parts");
    shape.textBlock = textPart;
    shape.callBlock = [](const QString &, const QString &name, const QJsonObject &input) {
        return QJsonObject{
            {QStringLiteral("functionCall"),
             QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("args"), input}}},
            {QStringLiteral("thoughtSignature"), QLatin1String(GeminiProtocol::HistoricalSignature)}};
    };
    // Historical ids are ours, not the API's, so results are matched by order and name as Gemini does.
    shape.resultBlock = [](const QString &, const QString &name, const QString &result, bool) {
        return functionResponsePart(QString(), name, result);
    };
    return shape;
}

} // namespace

GeminiProtocol::GeminiProtocol(ClientConfig config)
    : ProviderProtocol(std::move(config))
    , m_history(geminiShape())
{}

QJsonObject GeminiProtocol::responseObject(const QString &result)
{
    const QJsonDocument document = QJsonDocument::fromJson(result.toUtf8());
    if (document.isObject())
        return document.object();
    if (document.isArray())
        return QJsonObject{{QStringLiteral("result"), document.array()}};
    // A scalar or plain text: QJsonDocument cannot hold a scalar, so keep the text itself.
    const QJsonDocument wrapped =
        QJsonDocument::fromJson(QByteArray("[") + result.toUtf8() + QByteArray("]"));
    if (wrapped.isArray() && wrapped.array().size() == 1)
        return QJsonObject{{QStringLiteral("result"), wrapped.array().first()}};
    return QJsonObject{{QStringLiteral("result"), result}};
}

QUrl GeminiProtocol::endpoint() const
{
    const QString base =
        WireSupport::trimmedBase(m_config.baseUrl, ProviderTable::defaultBaseUrl(QStringLiteral("googleai")));
    QString model = m_config.model;
    // Genkit-style and resource-style names name the same model.
    for (const QLatin1String prefix : {QLatin1String("googleai/"), QLatin1String("models/")}) {
        if (model.startsWith(prefix))
            model = model.mid(prefix.size());
    }
    return QUrl(base + QStringLiteral("/models/") + QString::fromLatin1(QUrl::toPercentEncoding(model)) +
                QStringLiteral(":streamGenerateContent?alt=sse"));
}

NativeHistory GeminiProtocol::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    QJsonArray parts;
    for (const Message &message : messages) {
        if (message.role == Message::Role::System && !message.content.isEmpty())
            parts.append(textPart(message.content));
    }
    QJsonValue system;
    if (!parts.isEmpty())
        system = QJsonObject{{QStringLiteral("parts"), parts}};
    return NativeHistory{system, m_history.build(messages, firstIndex)};
}

void GeminiProtocol::appendUserText(NativeHistory &history, const QString &text) const
{
    m_history.appendUserText(history.messages, text);
}

QJsonArray GeminiProtocol::assistantMessages(const ModelTurn &turn) const
{
    if (!turn.assistantNative.isEmpty())
        return turn.assistantNative;
    QJsonArray parts;
    if (!turn.text.isEmpty())
        parts.append(textPart(turn.text));
    for (const ToolCallRequest &call : turn.toolCalls) {
        QJsonObject functionCall{{QStringLiteral("name"), call.name}, {QStringLiteral("args"), call.input}};
        if (call.native.contains(QStringLiteral("id")))
            functionCall.insert(QStringLiteral("id"), call.native.value(QStringLiteral("id")));
        QJsonObject part{{QStringLiteral("functionCall"), functionCall}};
        if (call.native.contains(QStringLiteral("thoughtSignature")))
            part.insert(QStringLiteral("thoughtSignature"),
                        call.native.value(QStringLiteral("thoughtSignature")));
        parts.append(part);
    }
    if (parts.isEmpty())
        return {};
    return QJsonArray{
        QJsonObject{{QStringLiteral("role"), QStringLiteral("model")}, {QStringLiteral("parts"), parts}}};
}

QJsonArray GeminiProtocol::toolResultMessages(const QList<ToolOutcome> &outcomes) const
{
    QJsonArray parts;
    for (const ToolOutcome &outcome : outcomes)
        parts.append(functionResponsePart(outcome.call.native.value(QStringLiteral("id")).toString(),
                                          outcome.call.name, outcome.content));
    if (parts.isEmpty())
        return {};
    return QJsonArray{
        QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("parts"), parts}}};
}

QJsonValue GeminiProtocol::toolDefinitions(const ToolSpecList &tools) const
{
    QJsonArray declarations;
    // parametersJsonSchema takes full JSON Schema; "parameters" accepts only an OpenAPI subset.
    for (const ToolSpec &tool : tools)
        declarations.append(QJsonObject{{QStringLiteral("name"), tool.name},
                                        {QStringLiteral("description"), tool.description},
                                        {QStringLiteral("parametersJsonSchema"), tool.inputSchema}});
    if (declarations.isEmpty())
        return QJsonArray();
    return QJsonArray{QJsonObject{{QStringLiteral("functionDeclarations"), declarations}}};
}

QString GeminiProtocol::thinkingLevel(const QString &effort)
{
    const QString value = effort.trimmed().toLower();
    if (value == QLatin1String("minimal") || value == QLatin1String("low") ||
        value == QLatin1String("medium") || value == QLatin1String("high"))
        return value;
    if (value == QLatin1String("xhigh") || value == QLatin1String("max"))
        return QStringLiteral("high");
    return {};
}

QJsonObject GeminiProtocol::requestBody(const NativeHistory &history, const ToolSpecList &tools) const
{
    QJsonObject body{{QStringLiteral("contents"), m_history.normalized(history.messages)}};
    if (history.system.isObject())
        body.insert(QStringLiteral("systemInstruction"), history.system);
    const QJsonArray definitions = toolDefinitions(tools).toArray();
    if (!definitions.isEmpty())
        body.insert(QStringLiteral("tools"), definitions);
    const QString effort = m_config.thinkingEffort.trimmed().toLower();
    if (!effort.isEmpty() && effort != QLatin1String("disabled") && effort != QLatin1String("none") &&
        effort != QLatin1String("off")) {
        QJsonObject thinking{{QStringLiteral("includeThoughts"), true}};
        const QString level = thinkingLevel(effort);
        if (!level.isEmpty())
            thinking.insert(QStringLiteral("thinkingLevel"), level);
        body.insert(QStringLiteral("generationConfig"),
                    QJsonObject{{QStringLiteral("thinkingConfig"), thinking}});
    }
    return body;
}

HttpRequestSpec GeminiProtocol::buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                             const RequestContext &context) const
{
    Q_UNUSED(context); // Gemini caches implicitly; there are no markers to place.
    HttpRequestSpec spec;
    spec.url = endpoint();
    spec.headers = {{"content-type", "application/json"}, {"accept", "text/event-stream"}};
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({"x-goog-api-key", m_config.apiKey.toUtf8()});
    for (const auto &[name, value] : m_config.headers)
        WireSupport::setHeader(spec.headers, name, value);
    spec.body = QJsonDocument(requestBody(history, tools)).toJson(QJsonDocument::Compact);
    return spec;
}

QStringList GeminiProtocol::modelIds(const QByteArray &modelsList) const
{
    QStringList ids;
    const QJsonArray models =
        QJsonDocument::fromJson(modelsList).object().value(QStringLiteral("models")).toArray();
    for (const QJsonValue &entry : models) {
        const QJsonObject model = entry.toObject();
        const QJsonValue methods = model.value(QStringLiteral("supportedGenerationMethods"));
        if (methods.isArray() && !methods.toArray().contains(QStringLiteral("generateContent")))
            continue; // embeddings and the like
        QString id = model.value(QStringLiteral("name")).toString();
        if (id.startsWith(QLatin1String("models/")))
            id = id.mid(7);
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    return ids;
}

HttpRequestSpec GeminiProtocol::modelsListRequest() const
{
    HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = QUrl(WireSupport::trimmedBase(m_config.baseUrl,
                                             ProviderTable::defaultBaseUrl(QStringLiteral("googleai"))) +
                    QStringLiteral("/models"));
    // The key travels in x-goog-api-key, never as a Bearer token (Google reads that as an OAuth token).
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({"x-goog-api-key", m_config.apiKey.toUtf8()});
    for (const auto &[name, value] : m_config.headers)
        WireSupport::setHeader(spec.headers, name, value);
    return spec;
}

std::unique_ptr<StreamDecoder> GeminiProtocol::createDecoder(const EventSink &sink) const
{
    return std::make_unique<GeminiStreamDecoder>(sink);
}

ProviderError GeminiProtocol::errorFromObject(const QJsonObject &error, int httpStatus,
                                              const HeaderList &headers)
{
    using Kind = ProviderError::Kind;
    const int code = httpStatus > 0 ? httpStatus : error.value(QStringLiteral("code")).toInt();
    const QString status = error.value(QStringLiteral("status")).toString();
    const QString message = error.value(QStringLiteral("message")).toString();
    const QJsonArray details = error.value(QStringLiteral("details")).toArray();

    std::optional<int> retryDelay;
    bool keyInvalid = false;
    for (const QJsonValue &value : details) {
        const QJsonObject detail = value.toObject();
        if (detail.value(QStringLiteral("@type")).toString().endsWith(QLatin1String("google.rpc.RetryInfo")))
            retryDelay = WireSupport::durationMs(detail.value(QStringLiteral("retryDelay")).toString());
        if (detail.value(QStringLiteral("reason")).toString() == QLatin1String("API_KEY_INVALID"))
            keyInvalid = true;
    }

    Kind kind = Kind::InvalidRequest;
    QString detailText = message.isEmpty() ? status : message;
    // A wrong key comes back as 400 INVALID_ARGUMENT, not 401.
    if (code == 401 || code == 403 || status == QLatin1String("UNAUTHENTICATED") ||
        status == QLatin1String("PERMISSION_DENIED") || keyInvalid ||
        message.contains(QLatin1String("API key not valid"), Qt::CaseInsensitive)) {
        kind = Kind::Authentication;
    } else if (code == 429 || status == QLatin1String("RESOURCE_EXHAUSTED")) {
        kind = Kind::RateLimit;
    } else if (code >= 500 || status == QLatin1String("UNAVAILABLE") || status == QLatin1String("INTERNAL") ||
               status == QLatin1String("DEADLINE_EXCEEDED")) {
        kind = Kind::Overloaded;
    } else if (message.contains(QLatin1String("exceeds the maximum number of tokens"), Qt::CaseInsensitive)) {
        kind = Kind::ContextLength;
    } else if (code == 404 || status == QLatin1String("NOT_FOUND")) {
        detailText =
            QCoreApplication::translate("keen::GeminiProtocol", "model not found: %1").arg(detailText);
    } else if (code == 0 && status.isEmpty()) {
        kind = Kind::Stream; // an error object inside the stream without a code
    }
    ProviderError result = WireSupport::makeError(kind, providerName(), detailText, httpStatus);
    if (kind == Kind::RateLimit || kind == Kind::Overloaded)
        result.retryAfterMs = retryDelay ? retryDelay : WireSupport::retryAfterMs(headers);
    return result;
}

ProviderError GeminiProtocol::classifyHttpError(int status, const QByteArray &body,
                                                const HeaderList &headers) const
{
    const QJsonDocument document = QJsonDocument::fromJson(body);
    // Without alt=sse errors come wrapped in an array; accept both.
    const QJsonObject envelope = document.isArray() ? document.array().at(0).toObject() : document.object();
    QJsonObject error = envelope.value(QStringLiteral("error")).toObject();
    if (error.isEmpty())
        error.insert(QStringLiteral("message"), QString::fromUtf8(body.left(500)).trimmed());
    return errorFromObject(error, status, headers);
}

} // namespace keen
