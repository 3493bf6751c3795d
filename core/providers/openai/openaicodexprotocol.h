#pragma once

#include "auth/codexcredentials.h"
#include "providers/openai/openairesponsesprotocol.h"

#include <QCoreApplication>
#include <memory>

namespace keen {

class CredentialStorage;

// The Responses API at the ChatGPT Codex backend, for provider openai-codex (reference 1.4): signed in with
// ChatGPT instead of an API key, HTTP/1.1 only, system messages joined into `instructions`, the Codex
// headers, and the access token refreshed before it expires.
class OpenAiCodexProtocol final : public OpenAiResponsesProtocol
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiCodexProtocol)

public:
    // storage holds the sign-in (FileCredentialStorage by default in the factory); issuer is where tokens are
    // refreshed (a local server in tests).
    OpenAiCodexProtocol(ClientConfig config, std::shared_ptr<CredentialStorage> storage,
                        QString issuer = QString());

    static QString defaultBaseUrl();
    static QString userAgent();
    static QString notAuthenticatedMessage();

    NativeHistory toNative(const MessageList &messages, qsizetype firstIndex = 0) const override;
    HttpRequestSpec buildRequest(const NativeHistory &history, const ToolSpecList &tools,
                                 const RequestContext &context) const override;
    HttpRequestSpec modelsListRequest() const override;
    // None: the ChatGPT backend's list is not the public API's shape; the registry's ids are the ones to
    // offer.
    QStringList modelIds(const QByteArray &modelsList) const override;
    ProviderError classifyHttpError(int status, const QByteArray &body,
                                    const HeaderList &headers) const override;
    // Loads the sign-in and refreshes the token when it has less than a minute left.
    Result<void> prepare(const CancellationToken &cancel) override;

    const CodexCredentials &credentials() const { return m_credentials; }

private:
    // The settings' extra headers, then the sign-in's token and account headers (which settings cannot
    // override).
    void addSignInHeaders(HeaderList &headers) const;

    std::shared_ptr<CredentialStorage> m_storage;
    QString m_issuer;
    CodexCredentials m_credentials;
};

} // namespace keen
