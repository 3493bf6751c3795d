#include "providers/openai/openaicodexprotocol.h"

#include "auth/codexoauth.h"
#include "auth/credentialstorage.h"
#include "providers/openai/openaierrorclassifier.h"
#include "providers/providertable.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QSysInfo>

#include <mutex>

namespace keen {

namespace {

// One refresh at a time in the whole process: refresh tokens are single use, so two sessions refreshing the
// same sign-in at once would log each other out.
std::mutex &refreshMutex()
{
    static std::mutex mutex;
    return mutex;
}

constexpr qint64 RefreshMarginMs = 60 * 1000;

} // namespace

OpenAiCodexProtocol::OpenAiCodexProtocol(ClientConfig config, std::shared_ptr<CredentialStorage> storage,
                                         QString issuer)
    : OpenAiResponsesProtocol(std::move(config))
    , m_storage(std::move(storage))
    , m_issuer(issuer.isEmpty() ? CodexOAuth::defaultIssuer() : std::move(issuer))
{}

QString OpenAiCodexProtocol::defaultBaseUrl()
{
    return ProviderTable::defaultBaseUrl(QStringLiteral("openai-codex"));
}

QString OpenAiCodexProtocol::userAgent()
{
    return QStringLiteral("keen-desktop (%1; %2)")
        .arg(QSysInfo::kernelType(), QSysInfo::currentCpuArchitecture());
}

QString OpenAiCodexProtocol::notAuthenticatedMessage()
{
    return OpenAiCodexProtocol::tr(
        "not authenticated with OpenAI ChatGPT/Codex; sign in from the provider settings");
}

NativeHistory OpenAiCodexProtocol::toNative(const MessageList &messages, qsizetype firstIndex) const
{
    QStringList system;
    for (const Message &message : messages) {
        if (message.role == Message::Role::System)
            system.append(message.content);
    }
    NativeHistory history;
    history.system = system.join(QStringLiteral("\n\n"));
    history.messages = inputItems(messages, false, firstIndex);
    return history;
}

HttpRequestSpec OpenAiCodexProtocol::buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                                  const RequestContext &context) const
{
    QJsonObject body = requestBody(history, tools, context);
    // The backend requires instructions, even empty ones.
    body.insert(QStringLiteral("instructions"), history.system.toString());

    HttpRequestSpec spec;
    spec.http1Only = true;
    spec.url = QUrl(joinUrl(m_config.baseUrl.isEmpty() ? defaultBaseUrl() : m_config.baseUrl,
                            QStringLiteral("/responses")));
    spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
    spec.headers.append({QByteArrayLiteral("Accept"), QByteArrayLiteral("text/event-stream")});
    addSignInHeaders(spec.headers);
    spec.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return spec;
}

QStringList OpenAiCodexProtocol::modelIds(const QByteArray &modelsList) const
{
    Q_UNUSED(modelsList);
    return {};
}

HttpRequestSpec OpenAiCodexProtocol::modelsListRequest() const
{
    HttpRequestSpec spec;
    spec.method = "GET";
    spec.http1Only = true;
    spec.url = QUrl(joinUrl(m_config.baseUrl.isEmpty() ? defaultBaseUrl() : m_config.baseUrl,
                            QStringLiteral("/models?client_version=") + QStringLiteral(KEEN_VERSION)));
    addSignInHeaders(spec.headers);
    return spec;
}

void OpenAiCodexProtocol::addSignInHeaders(HeaderList &headers) const
{
    addExtraHeaders(headers, m_config.headers);
    // The sign-in decides these; settings cannot override them, and the API-key-only headers would be
    // refused.
    headers.removeIf([](const auto &header) {
        for (const char *name : {"authorization", "originator", "user-agent", "chatgpt-account-id",
                                 "openai-organization", "openai-project"}) {
            if (header.first.compare(name, Qt::CaseInsensitive) == 0)
                return true;
        }
        return false;
    });
    headers.append({QByteArrayLiteral("Authorization"), "Bearer " + m_credentials.accessToken.toUtf8()});
    headers.append({QByteArrayLiteral("originator"), QByteArrayLiteral("keen-desktop")});
    headers.append({QByteArrayLiteral("User-Agent"), userAgent().toUtf8()});
    if (!m_credentials.accountId.isEmpty())
        headers.append({QByteArrayLiteral("ChatGPT-Account-Id"), m_credentials.accountId.toUtf8()});
}

ProviderError OpenAiCodexProtocol::classifyHttpError(int status, const QByteArray &body,
                                                     const HeaderList &headers) const
{
    ProviderError error = OpenAiErrorClassifier::classifyHttp(status, body, headers);
    // formatCodexStreamError: "OpenAI Codex API error: HTTP <code>: <message>[: code=..][: param=..]".
    const QJsonObject object = OpenAiErrorClassifier::errorObject(QJsonDocument::fromJson(body).object());
    QString message = object.value(QLatin1String("message")).toString().trimmed();
    if (message.isEmpty())
        message = QString::fromUtf8(body.left(4096)).trimmed();
    if (message.isEmpty())
        message = OpenAiCodexProtocol::tr("no details");
    QString text = OpenAiCodexProtocol::tr("OpenAI Codex API error: HTTP %1: %2").arg(status).arg(message);
    const QString code = OpenAiErrorClassifier::code(object);
    if (!code.isEmpty())
        text += QStringLiteral(": code=") + code;
    const QString param = object.value(QLatin1String("param")).toString();
    if (!param.isEmpty())
        text += QStringLiteral(": param=") + param;
    if (error.kind == ProviderError::Kind::Authentication)
        text += OpenAiCodexProtocol::tr(" (sign in again from the provider settings)");
    error.message = text;
    return error;
}

Result<void> OpenAiCodexProtocol::prepare(const CancellationToken &cancel)
{
    if (!m_storage)
        return Result<void>::failure(notAuthenticatedMessage());
    std::lock_guard lock(refreshMutex());
    // Read again under the lock: another session may have refreshed (and so spent the old refresh token).
    std::optional<CodexCredentials> stored = m_storage->load();
    if (!stored || !stored->isValid())
        return Result<void>::failure(notAuthenticatedMessage());
    if (stored->expiresWithin(RefreshMarginMs)) {
        Result<CodexCredentials> refreshed = CodexOAuth::refreshBlocking(m_issuer, *stored, cancel);
        if (!refreshed)
            return Result<void>::failure(refreshed.error());
        if (Result<void> saved = m_storage->save(refreshed.value()); !saved)
            return Result<void>::failure(
                OpenAiCodexProtocol::tr("the ChatGPT sign-in was refreshed but could not be saved: %1")
                    .arg(saved.error()));
        stored = refreshed.value();
    }
    m_credentials = *stored;
    return {};
}

} // namespace keen
