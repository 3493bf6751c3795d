#include "providers/openai/openaichatprotocol.h"

#include "conversation/historyreplay.h"
#include "providers/openai/chatcompletionsstreamdecoder.h"
#include "providers/openai/openaierrorclassifier.h"
#include "providers/providertable.h"
#include "providers/wiresupport.h"

#include <QJsonDocument>

namespace keen {

namespace {

QJsonObject textMessage(const QString &role, const QString &content)
{
    return QJsonObject{{QStringLiteral("role"), role}, {QStringLiteral("content"), content}};
}

// One assistant turn with tool activity becomes: assistant(text so far, tool_calls) + one tool message per
// call, repeated per group of calls, and the trailing prose as a last assistant message.
void appendAssistant(QJsonArray &out, const Message &message, int index)
{
    QString text;
    QString reasoning;
    QJsonArray calls;
    QJsonArray results;
    auto flushCalls = [&] {
        if (calls.isEmpty())
            return;
        QJsonObject assistant{{QStringLiteral("role"), QStringLiteral("assistant")}};
        assistant.insert(QStringLiteral("content"), text.isEmpty() ? QJsonValue() : QJsonValue(text));
        // As the live turn sent it (assistantMessages): DeepSeek's thinking models refuse a tool-call turn
        // replayed without its reasoning ("The reasoning_content in the thinking mode must be passed back").
        if (!reasoning.isEmpty())
            assistant.insert(QStringLiteral("reasoning_content"), reasoning);
        assistant.insert(QStringLiteral("tool_calls"), calls);
        out.append(assistant);
        for (const QJsonValue &result : std::as_const(results))
            out.append(result);
        text.clear();
        reasoning.clear();
        calls = {};
        results = {};
    };
    for (const ReplayStep &step : replaySteps(message, index)) {
        if (step.kind == ReplayStep::Kind::Text) {
            flushCalls();
            text += step.text;
            continue;
        }
        reasoning += step.reasoning;
        calls.append(QJsonObject{
            {QStringLiteral("id"), step.callId},
            {QStringLiteral("type"), QStringLiteral("function")},
            {QStringLiteral("function"),
             QJsonObject{{QStringLiteral("name"), step.tool},
                         {QStringLiteral("arguments"), serializeJson(step.input)}}},
        });
        results.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                                   {QStringLiteral("tool_call_id"), step.callId},
                                   {QStringLiteral("content"), step.result}});
    }
    flushCalls();
    if (!text.isEmpty())
        out.append(textMessage(QStringLiteral("assistant"), text));
}

QString joinUrl(QString base, const QString &path)
{
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    return base + path;
}

// Headers from the settings win over the built-in ones of the same name.
void addExtraHeaders(HeaderList &headers, const HeaderList &extra)
{
    for (const auto &header : extra) {
        headers.removeIf([&header](const auto &existing) {
            return existing.first.compare(header.first, Qt::CaseInsensitive) == 0;
        });
        headers.append(header);
    }
}

} // namespace

OpenAiChatProtocol::OpenAiChatProtocol(ClientConfig config)
    : ProviderProtocol(std::move(config))
{}

QString OpenAiChatProtocol::defaultBaseUrl(const QString &providerId)
{
    return ProviderTable::defaultBaseUrl(providerId);
}

OpenAiChatProtocol::ThinkingMode OpenAiChatProtocol::thinkingMode(const QString &providerId,
                                                                  const QString &model)
{
    const QString name = model.toLower();
    if (providerId == QLatin1String("deepseek"))
        return ThinkingMode::ToggleAndReasoningEffort;
    if (providerId == QLatin1String("moonshotai")) {
        if (name.contains(QLatin1String("kimi-k3")))
            return ThinkingMode::ReasoningEffort;
        if (name.contains(QLatin1String("kimi-k2.6")))
            return ThinkingMode::Type;
        return ThinkingMode::None;
    }
    if (providerId == QLatin1String("zai")) {
        if (name.contains(QLatin1String("glm-5.2")) || name.contains(QLatin1String("glm-5.3")))
            return ThinkingMode::ToggleAndReasoningEffort;
        if (name.contains(QLatin1String("glm-5.1")))
            return ThinkingMode::Type;
        return ThinkingMode::None;
    }
    // A generic server: an effort the person chose is passed on in the standard field.
    if (providerId == QLatin1String("openai-compatible"))
        return ThinkingMode::ReasoningEffort;
    return ThinkingMode::None;
}

NativeHistory OpenAiChatProtocol::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    NativeHistory history;
    for (int i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        switch (message.role) {
        case Message::Role::System:
            history.messages.append(textMessage(QStringLiteral("system"), message.content));
            break;
        case Message::Role::User:
            history.messages.append(textMessage(QStringLiteral("user"), message.content));
            break;
        case Message::Role::Assistant:
            appendAssistant(history.messages, message, int(firstIndex) + i);
            break;
        }
    }
    return history;
}

void OpenAiChatProtocol::appendUserText(NativeHistory &history, const QString &text) const
{
    history.messages.append(textMessage(QStringLiteral("user"), text));
}

QJsonArray OpenAiChatProtocol::assistantMessages(const ModelTurn &turn) const
{
    if (!turn.assistantNative.isEmpty())
        return turn.assistantNative;
    QJsonObject assistant = textMessage(QStringLiteral("assistant"), turn.text);
    if (!turn.reasoning.isEmpty())
        assistant.insert(QStringLiteral("reasoning_content"), turn.reasoning);
    return QJsonArray{assistant};
}

QJsonArray OpenAiChatProtocol::toolResultMessages(const QList<ToolOutcome> &outcomes) const
{
    QJsonArray messages;
    for (const ToolOutcome &outcome : outcomes)
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("tool")},
                                    {QStringLiteral("tool_call_id"), outcome.call.id},
                                    {QStringLiteral("content"), outcome.content}});
    return messages;
}

QJsonValue OpenAiChatProtocol::toolDefinitions(const ToolSpecList &tools) const
{
    if (tools.isEmpty())
        return {};
    QJsonArray definitions;
    for (const ToolSpec &tool : tools) {
        definitions.append(QJsonObject{
            {QStringLiteral("type"), QStringLiteral("function")},
            {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), tool.name},
                                                     {QStringLiteral("description"), tool.description},
                                                     {QStringLiteral("parameters"), tool.inputSchema},
                                                     {QStringLiteral("strict"), false}}},
        });
    }
    return definitions;
}

HttpRequestSpec OpenAiChatProtocol::buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                                 const RequestContext &context) const
{
    Q_UNUSED(context);
    QJsonObject body{
        {QStringLiteral("model"), m_config.model},
        {QStringLiteral("stream"), true},
        {QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}}},
        {QStringLiteral("messages"), history.messages},
    };
    const QJsonValue definitions = toolDefinitions(tools);
    if (definitions.isArray())
        body.insert(QStringLiteral("tools"), definitions);

    const QString effort = m_config.thinkingEffort;
    if (!effort.isEmpty()) {
        switch (thinkingMode(m_config.providerId, m_config.model)) {
        case ThinkingMode::None:
            break;
        case ThinkingMode::ReasoningEffort:
            body.insert(QStringLiteral("reasoning_effort"), effort);
            break;
        case ThinkingMode::Type:
            body.insert(QStringLiteral("thinking"), QJsonObject{{QStringLiteral("type"), effort}});
            break;
        case ThinkingMode::ToggleAndReasoningEffort:
            if (effort == QLatin1String("disabled")) {
                body.insert(QStringLiteral("thinking"),
                            QJsonObject{{QStringLiteral("type"), QStringLiteral("disabled")}});
            } else {
                body.insert(QStringLiteral("reasoning_effort"), effort);
                body.insert(QStringLiteral("thinking"),
                            QJsonObject{{QStringLiteral("type"), QStringLiteral("enabled")}});
            }
            break;
        }
    }

    HttpRequestSpec spec;
    const QString base = m_config.baseUrl.isEmpty() ? defaultBaseUrl(m_config.providerId) : m_config.baseUrl;
    spec.url = QUrl(joinUrl(base, QStringLiteral("/chat/completions")));
    spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    spec.headers.append({QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream")});
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({QByteArrayLiteral("Authorization"), "Bearer " + m_config.apiKey.toUtf8()});
    addExtraHeaders(spec.headers, m_config.headers);
    spec.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return spec;
}

std::unique_ptr<StreamDecoder> OpenAiChatProtocol::createDecoder(const EventSink &sink) const
{
    return std::make_unique<ChatCompletionsStreamDecoder>(sink);
}

std::optional<QByteArray> OpenAiChatProtocol::documentAsStream(const QByteArray &document) const
{
    bool ok = false;
    const QJsonObject completion = WireSupport::parseTextObject(document, &ok);
    if (!ok)
        return std::nullopt;
    auto event = [](const QJsonObject &data) -> QByteArray {
        return "data: " + QJsonDocument(data).toJson(QJsonDocument::Compact) + "\n\n";
    };
    if (completion.contains(QLatin1String("error")))
        return event(completion); // the decoder reads it as the stream's error event
    const QJsonValue choices = completion.value(QLatin1String("choices"));
    if (!choices.isArray())
        return std::nullopt;
    // Each choice's whole message becomes its one delta: the decoder takes content, reasoning and tool calls
    // (a call without an index is numbered by its place) from a delta exactly as from a message.
    QJsonArray deltas;
    for (const QJsonValue &value : choices.toArray()) {
        const QJsonObject choice = value.toObject();
        deltas.append(
            QJsonObject{{QStringLiteral("index"), choice.value(QLatin1String("index"))},
                        {QStringLiteral("delta"), choice.value(QLatin1String("message"))},
                        {QStringLiteral("finish_reason"), choice.value(QLatin1String("finish_reason"))}});
    }
    QJsonObject chunk = completion;
    chunk.insert(QStringLiteral("object"), QStringLiteral("chat.completion.chunk"));
    chunk.insert(QStringLiteral("choices"), deltas);
    return QByteArray(event(chunk) + "data: [DONE]\n\n");
}

HttpRequestSpec OpenAiChatProtocol::modelsListRequest() const
{
    HttpRequestSpec spec;
    spec.method = "GET";
    const QString base = m_config.baseUrl.isEmpty() ? defaultBaseUrl(m_config.providerId) : m_config.baseUrl;
    spec.url = QUrl(joinUrl(base, QStringLiteral("/models")));
    if (!m_config.apiKey.isEmpty())
        spec.headers.append({QByteArrayLiteral("Authorization"), "Bearer " + m_config.apiKey.toUtf8()});
    addExtraHeaders(spec.headers, m_config.headers);
    return spec;
}

ProviderError OpenAiChatProtocol::classifyHttpError(int status, const QByteArray &body,
                                                    const HeaderList &headers) const
{
    return OpenAiErrorClassifier::classifyHttp(status, body, headers);
}

} // namespace keen
