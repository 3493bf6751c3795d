#include "providers/bedrock/bedrockprotocol.h"

#include "auth/sigv4signer.h"
#include "providers/bedrock/bedrockstreamdecoder.h"
#include "providers/providertable.h"
#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>

namespace keen {

namespace {

QString providerName()
{
    return QStringLiteral("Amazon Bedrock");
}

QJsonObject textBlock(const QString &text)
{
    return QJsonObject{{QStringLiteral("text"), text}};
}

QJsonObject cachePoint()
{
    return QJsonObject{
        {QStringLiteral("cachePoint"), QJsonObject{{QStringLiteral("type"), QStringLiteral("default")}}}};
}

QJsonObject toolResultBlock(const QString &id, const QString &result, bool isError)
{
    return QJsonObject{{QStringLiteral("toolResult"),
                        QJsonObject{{QStringLiteral("toolUseId"), id},
                                    {QStringLiteral("content"), QJsonArray{textBlock(result)}},
                                    {QStringLiteral("status"),
                                     isError ? QStringLiteral("error") : QStringLiteral("success")}}}};
}

AlternatingHistory::Shape bedrockShape()
{
    AlternatingHistory::Shape shape;
    shape.userRole = QStringLiteral("user");
    shape.assistantRole = QStringLiteral("assistant");
    shape.contentKey = QStringLiteral("content");
    shape.textBlock = textBlock;
    shape.callBlock = [](const QString &id, const QString &name, const QJsonObject &input) {
        return QJsonObject{{QStringLiteral("toolUse"), QJsonObject{{QStringLiteral("toolUseId"), id},
                                                                   {QStringLiteral("name"), name},
                                                                   {QStringLiteral("input"), input}}}};
    };
    shape.resultBlock = [](const QString &id, const QString &, const QString &result, bool isError) {
        return toolResultBlock(id, result, isError);
    };
    return shape;
}

QJsonArray withoutCachePoints(const QJsonArray &blocks)
{
    QJsonArray result;
    for (const QJsonValue &block : blocks) {
        if (!block.toObject().contains(QStringLiteral("cachePoint")))
            result.append(block);
    }
    return result;
}

bool isContextLengthMessage(const QString &message)
{
    return message.contains(QLatin1String("Input is too long"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("exceed context limit"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("too many total text bytes"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("prompt is too long"), Qt::CaseInsensitive);
}

} // namespace

BedrockProtocol::BedrockProtocol(ClientConfig config, QProcessEnvironment environment, QString homePath)
    : ProviderProtocol(std::move(config))
    , m_history(bedrockShape())
    , m_environment(std::move(environment))
    , m_homePath(std::move(homePath))
{}

AwsCredentials::Result BedrockProtocol::resolveCredentials() const
{
    QProcessEnvironment environment = m_environment;
    // A profile chosen in the settings beats AWS_PROFILE, as --profile does for the CLI.
    if (!m_config.awsProfile.isEmpty())
        environment.insert(QStringLiteral("AWS_PROFILE"), m_config.awsProfile);
    return AwsCredentials::resolve(environment, m_homePath);
}

QString BedrockProtocol::region() const
{
    if (!m_config.awsRegion.trimmed().isEmpty())
        return m_config.awsRegion.trimmed();
    const AwsCredentials::Result resolved = m_credentials ? *m_credentials : resolveCredentials();
    return resolved.credentials.region.isEmpty() ? QString(AwsCredentials::DefaultRegion)
                                                 : resolved.credentials.region;
}

QUrl BedrockProtocol::endpoint() const
{
    const QString base = WireSupport::trimmedBase(
        m_config.baseUrl, QStringLiteral("https://bedrock-runtime.%1.amazonaws.com").arg(region()));
    // The model id is one path segment: "us.amazon.nova-micro-v1:0" goes as "us.amazon.nova-micro-v1%3A0", an
    // inference profile ARN with its slashes encoded too.
    return QUrl::fromEncoded(base.toUtf8() + "/model/" + QUrl::toPercentEncoding(m_config.model) +
                             "/converse-stream");
}

NativeHistory BedrockProtocol::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    return m_history.toNative(messages, firstIndex);
}

NativeHistory BedrockProtocol::rebuildAfterCompaction(const NativeHistory &current,
                                                      const MessageList &replacement) const
{
    return m_history.rebuildAfterCompaction(current, replacement);
}

void BedrockProtocol::appendUserText(NativeHistory &history, const QString &text) const
{
    m_history.appendUserText(history.messages, text);
}

QJsonArray BedrockProtocol::assistantMessages(const ModelTurn &turn) const
{
    return m_history.assistantMessages(turn);
}

QJsonArray BedrockProtocol::toolResultMessages(const QList<ToolOutcome> &outcomes) const
{
    return m_history.toolResultMessages(outcomes);
}

QJsonValue BedrockProtocol::toolDefinitions(const ToolSpecList &tools) const
{
    QJsonArray definitions;
    for (const ToolSpec &tool : tools)
        definitions.append(
            QJsonObject{{QStringLiteral("toolSpec"),
                         QJsonObject{{QStringLiteral("name"), tool.name},
                                     {QStringLiteral("description"), tool.description},
                                     {QStringLiteral("inputSchema"),
                                      QJsonObject{{QStringLiteral("json"), tool.inputSchema}}}}}});
    return definitions;
}

QJsonObject BedrockProtocol::requestBody(const NativeHistory &history, const ToolSpecList &tools,
                                         const RequestContext &context) const
{
    // Cache points (reference 1.7): after the system blocks, after the tools, on the stable message and on
    // the last message. Points left in stored history by an earlier request are dropped first.
    int stableIndex = context.stableIndex;
    QJsonArray messages;
    const QJsonArray merged = m_history.normalized(history.messages, &stableIndex);
    for (const QJsonValue &value : merged) {
        QJsonObject message = value.toObject();
        message.insert(QStringLiteral("content"),
                       withoutCachePoints(message.value(QStringLiteral("content")).toArray()));
        messages.append(message);
    }
    auto markMessage = [&messages](qsizetype index) {
        QJsonObject message = messages.at(index).toObject();
        QJsonArray content = message.value(QStringLiteral("content")).toArray();
        if (content.isEmpty())
            return;
        content.append(cachePoint());
        message.insert(QStringLiteral("content"), content);
        messages[index] = message;
    };
    if (stableIndex >= 0 && stableIndex < messages.size())
        markMessage(stableIndex);
    if (!messages.isEmpty() && stableIndex != messages.size() - 1)
        markMessage(messages.size() - 1);

    QJsonObject body{
        {QStringLiteral("messages"), messages},
        {QStringLiteral("inferenceConfig"), QJsonObject{{QStringLiteral("maxTokens"), MaxTokens}}}};
    QJsonArray system = withoutCachePoints(history.system.toArray());
    if (!system.isEmpty()) {
        system.append(cachePoint());
        body.insert(QStringLiteral("system"), system);
    }
    QJsonArray definitions = toolDefinitions(tools).toArray();
    if (!definitions.isEmpty()) {
        definitions.append(cachePoint());
        body.insert(QStringLiteral("toolConfig"), QJsonObject{{QStringLiteral("tools"), definitions}});
    }
    const QString effort = m_config.thinkingEffort.trimmed().toLower();
    static const QStringList efforts{QStringLiteral("low"), QStringLiteral("medium"), QStringLiteral("high"),
                                     QStringLiteral("xhigh"), QStringLiteral("max")};
    if (efforts.contains(effort)) {
        body.insert(
            QStringLiteral("additionalModelRequestFields"),
            QJsonObject{{QStringLiteral("thinking"),
                         QJsonObject{{QStringLiteral("type"), QStringLiteral("adaptive")}}},
                        {QStringLiteral("output_config"), QJsonObject{{QStringLiteral("effort"), effort}}}});
    } else if (effort == QLatin1String("adaptive")) {
        body.insert(QStringLiteral("additionalModelRequestFields"),
                    QJsonObject{{QStringLiteral("thinking"), QJsonObject{{QStringLiteral("type"), effort}}}});
    }
    return body;
}

Result<void> BedrockProtocol::prepare(const CancellationToken &cancel)
{
    if (!m_config.apiKey.isEmpty())
        return {};
    AwsCredentials::Result resolved = resolveCredentials();
    if (resolved.ok() && !resolved.credentials.isValid()) {
        // A helper gives the keys (a command that may ask a person, the SSO portal, STS): they are kept until
        // they are about to expire rather than asked again for every request.
        const bool sameHelper = m_credentials && m_credentials->ok() &&
                                m_credentials->credentials.sameHelperAs(resolved.credentials);
        if (sameHelper && m_credentials->credentials.isFreshAt(QDateTime::currentDateTimeUtc()))
            return {};
        QProcessEnvironment environment = m_environment;
        if (!m_config.awsProfile.isEmpty())
            environment.insert(QStringLiteral("AWS_PROFILE"), m_config.awsProfile);
        resolved = AwsCredentials::withKeys(resolved, environment, m_homePath, cancel);
    }
    m_credentials = resolved;
    if (!m_credentials->ok())
        return Result<void>::failure(
            WireSupport::makeError(ProviderError::Kind::Authentication, providerName(), m_credentials->error)
                .message);
    return {};
}

HttpRequestSpec BedrockProtocol::buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                              const RequestContext &context) const
{
    return buildRequestAt(history, tools, context, QDateTime::currentDateTimeUtc());
}

HttpRequestSpec BedrockProtocol::buildRequestAt(const NativeHistory &history, const ToolSpecList &tools,
                                                const RequestContext &context, const QDateTime &time) const
{
    HttpRequestSpec spec;
    spec.url = endpoint();
    spec.body = QJsonDocument(requestBody(history, tools, context)).toJson(QJsonDocument::Compact);
    spec.headers = {{"content-type", "application/json"}, {"accept", "application/vnd.amazon.eventstream"}};
    for (const auto &[name, value] : m_config.headers)
        WireSupport::setHeader(spec.headers, name, value);
    authorize(spec, time);
    return spec;
}

QStringList BedrockProtocol::modelIds(const QByteArray &modelsList) const
{
    Q_UNUSED(modelsList);
    return {};
}

HttpRequestSpec BedrockProtocol::modelsListRequest() const
{
    HttpRequestSpec spec;
    spec.method = "GET";
    // ListFoundationModels lives on the control plane (bedrock.<region>), not on bedrock-runtime.
    spec.url = QUrl(WireSupport::trimmedBase(
                        m_config.baseUrl, QStringLiteral("https://bedrock.%1.amazonaws.com").arg(region())) +
                    QStringLiteral("/foundation-models"));
    for (const auto &[name, value] : m_config.headers)
        WireSupport::setHeader(spec.headers, name, value);
    authorize(spec, QDateTime::currentDateTimeUtc());
    return spec;
}

void BedrockProtocol::authorize(HttpRequestSpec &spec, const QDateTime &time) const
{
    if (!m_config.apiKey.isEmpty()) {
        spec.headers.append({"authorization", "Bearer " + m_config.apiKey.toUtf8()});
        return;
    }
    const AwsCredentials::Result resolved = m_credentials ? *m_credentials : resolveCredentials();
    if (!resolved.ok())
        return; // prepare() already reported why; the request goes unsigned and fails with 403
    // Sign exactly what is sent; the network layer adds the same Host (with the port only when not default).
    QByteArray host = spec.url.host(QUrl::FullyEncoded).toUtf8();
    if (spec.url.port() != -1)
        host += ':' + QByteArray::number(spec.url.port());
    SigV4Signer::Request request;
    request.method = spec.method;
    request.path = spec.url.path(QUrl::FullyEncoded).toUtf8();
    request.query = spec.url.query(QUrl::FullyEncoded).toUtf8();
    request.headers = spec.headers;
    request.headers.append({"host", host});
    request.body = spec.body;
    const SigV4Signer signer(resolved.credentials, region(), QStringLiteral("bedrock"));
    const SigV4Signer::Signature signature = signer.sign(request, time);
    for (const auto &header : signature.headersToAdd)
        spec.headers.append(header);
}

std::unique_ptr<StreamDecoder> BedrockProtocol::createDecoder(const EventSink &sink) const
{
    return std::make_unique<BedrockStreamDecoder>(sink);
}

ProviderError BedrockProtocol::errorFor(const QString &exceptionType, const QString &message, int httpStatus)
{
    using Kind = ProviderError::Kind;
    const QString type = exceptionType.toLower();
    auto is = [&type](const char *name) { return type == QLatin1String(name); };
    Kind kind = Kind::Stream;
    if (httpStatus == 429 || is("throttlingexception") || is("servicequotaexceededexception") ||
        is("toomanyrequestsexception")) {
        kind = Kind::RateLimit;
    } else if (httpStatus == 401 || httpStatus == 403 || is("accessdeniedexception") ||
               is("unrecognizedclientexception") || is("expiredtokenexception") ||
               is("invalidsignatureexception")) {
        kind = Kind::Authentication;
    } else if (httpStatus >= 500 || httpStatus == 408 || httpStatus == 424 ||
               is("serviceunavailableexception") || is("internalserverexception") ||
               is("modelstreamerrorexception") || is("modeltimeoutexception") ||
               is("modelnotreadyexception") || is("modelerrorexception")) {
        kind = Kind::Overloaded;
    } else if (isContextLengthMessage(message)) {
        kind = Kind::ContextLength;
    } else if ((httpStatus >= 400 && httpStatus < 500) || is("validationexception") ||
               is("resourcenotfoundexception")) {
        kind = Kind::InvalidRequest;
    }
    const QString detail = exceptionType.isEmpty() ? message : exceptionType + QStringLiteral(": ") + message;
    return WireSupport::makeError(kind, providerName(), detail, httpStatus);
}

ProviderError BedrockProtocol::classifyHttpError(int status, const QByteArray &body,
                                                 const HeaderList &headers) const
{
    bool ok = false;
    const QJsonObject object = WireSupport::parseObject(body, &ok);
    QString message = object.value(QStringLiteral("message")).toString();
    if (message.isEmpty())
        message = object.value(QStringLiteral("Message")).toString();
    if (message.isEmpty())
        message = QString::fromUtf8(body.left(500)).trimmed();
    // "ValidationException:http://internal.amazon.com/coral/..." in the header, or "...#ValidationException".
    QString type = QString::fromUtf8(WireSupport::header(headers, "x-amzn-errortype"));
    if (type.isEmpty())
        type = object.value(QStringLiteral("__type")).toString();
    type = type.section(QLatin1Char(':'), 0, 0).section(QLatin1Char('#'), -1);
    ProviderError error = errorFor(type, message, status);
    if (error.kind == ProviderError::Kind::Stream)
        error.kind = ProviderError::Kind::InvalidRequest;
    if (error.kind == ProviderError::Kind::RateLimit || error.kind == ProviderError::Kind::Overloaded)
        error.retryAfterMs = WireSupport::retryAfterMs(headers);
    return error;
}

} // namespace keen
