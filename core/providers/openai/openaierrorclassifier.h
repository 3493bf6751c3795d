#pragma once

#include "providers/providererror.h"
#include "providers/providerprotocol.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace keen {

// Classifies the errors of OpenAI-shaped APIs (Chat Completions, Responses, Codex and the compatible
// servers), which share the {"error":{"message","type","param","code"}} envelope over HTTP and inside
// streams.
class OpenAiErrorClassifier
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiErrorClassifier)

public:
    // A non-2xx response. The message is plain and never contains a secret.
    static ProviderError classifyHttp(int status, const QByteArray &body, const HeaderList &headers);
    // An error object that arrived inside a 200 stream: the nested {"error":{...}} body, or the error object
    // itself (Responses' flat error event, response.failed's response.error).
    static ProviderError classifyStreamError(const QJsonObject &error);

    // The error object inside an HTTP or stream body, or {} when there is none. Accepts {"error":{...}},
    // {"error":"text"} and the flat {"message","code"} / {"detail":...} forms.
    static QJsonObject errorObject(const QJsonObject &body);
    // "message (code)", or whichever of the two is present.
    static QString describe(const QJsonObject &error);
    static QString code(const QJsonObject &error);
    static bool isContextLength(const QJsonObject &error);
    // Retry-After (seconds or an HTTP date) or retry-after-ms, in milliseconds.
    static std::optional<int> retryAfterMs(const HeaderList &headers);
    static QByteArray header(const HeaderList &headers, const QByteArray &name);
};

} // namespace keen
