#include "providers/openai/openaierrorclassifier.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonValue>

namespace keen {

namespace {

QString typeOf(const QJsonObject &error)
{
    return error.value(QLatin1String("type")).toString();
}

bool isQuotaError(const QJsonObject &error)
{
    return OpenAiErrorClassifier::code(error) == QLatin1String("insufficient_quota") ||
           typeOf(error) == QLatin1String("insufficient_quota");
}

bool isRateLimitError(const QJsonObject &error)
{
    const QString code = OpenAiErrorClassifier::code(error);
    const QString type = typeOf(error);
    return code == QLatin1String("rate_limit_exceeded") || type == QLatin1String("rate_limit_exceeded") ||
           type == QLatin1String("rate_limit_error") || type == QLatin1String("requests") ||
           type == QLatin1String("tokens");
}

bool isOverloadedError(const QJsonObject &error)
{
    const QString code = OpenAiErrorClassifier::code(error);
    const QString type = typeOf(error);
    return code == QLatin1String("server_error") || type == QLatin1String("server_error") ||
           code == QLatin1String("server_is_overloaded") || type == QLatin1String("overloaded_error") ||
           code == QLatin1String("overloaded") || code == QLatin1String("slow_down");
}

// Some servers put the HTTP status inside a stream error (Groq's status_code, OpenRouter's numeric code).
int embeddedStatus(const QJsonObject &error)
{
    const QJsonValue statusCode = error.value(QLatin1String("status_code"));
    if (statusCode.isDouble())
        return statusCode.toInt();
    const QJsonValue code = error.value(QLatin1String("code"));
    if (code.isDouble())
        return code.toInt();
    return 0;
}

ProviderError::Kind kindForStatus(int status)
{
    if (status == 401 || status == 403)
        return ProviderError::Kind::Authentication;
    if (status == 429)
        return ProviderError::Kind::RateLimit;
    if (status >= 500)
        return ProviderError::Kind::Overloaded;
    return ProviderError::Kind::InvalidRequest;
}

QString quotaMessage(const QString &detail)
{
    return OpenAiErrorClassifier::tr(
               "the account has no quota left; check the plan and billing of this API key: %1")
        .arg(detail);
}

} // namespace

QByteArray OpenAiErrorClassifier::header(const HeaderList &headers, const QByteArray &name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

std::optional<int> OpenAiErrorClassifier::retryAfterMs(const HeaderList &headers)
{
    bool ok = false;
    const QByteArray ms = header(headers, "retry-after-ms").trimmed();
    if (!ms.isEmpty()) {
        const double value = ms.toDouble(&ok);
        if (ok && value >= 0)
            return int(value);
    }
    const QByteArray retryAfter = header(headers, "retry-after").trimmed();
    if (retryAfter.isEmpty())
        return std::nullopt;
    const double seconds = retryAfter.toDouble(&ok);
    if (ok && seconds >= 0)
        return int(seconds * 1000);
    // The HTTP-date form ("Wed, 21 Oct 2015 07:28:00 GMT"), which RFC 2822 parsing accepts.
    const QDateTime when = QDateTime::fromString(QString::fromLatin1(retryAfter), Qt::RFC2822Date);
    if (when.isValid())
        return int(
            qBound(qint64(0), QDateTime::currentDateTimeUtc().msecsTo(when), qint64(24 * 3600 * 1000)));
    return std::nullopt;
}

QJsonObject OpenAiErrorClassifier::errorObject(const QJsonObject &body)
{
    const QJsonValue error = body.value(QLatin1String("error"));
    if (error.isObject())
        return error.toObject();
    if (error.isString() && !error.toString().isEmpty()) {
        QJsonObject flat{{QStringLiteral("message"), error.toString()}};
        if (body.contains(QLatin1String("code")))
            flat.insert(QStringLiteral("code"), body.value(QLatin1String("code")));
        return flat;
    }
    if (body.value(QLatin1String("message")).isString())
        return body;
    // The ChatGPT backend (Codex) answers {"detail": "..."} or {"detail": {"message": ...}}.
    const QJsonValue detail = body.value(QLatin1String("detail"));
    if (detail.isString())
        return QJsonObject{{QStringLiteral("message"), detail.toString()}};
    if (detail.isObject())
        return errorObject(detail.toObject());
    return {};
}

QString OpenAiErrorClassifier::code(const QJsonObject &error)
{
    const QJsonValue code = error.value(QLatin1String("code"));
    return code.isString() ? code.toString() : QString();
}

QString OpenAiErrorClassifier::describe(const QJsonObject &error)
{
    const QString message = error.value(QLatin1String("message")).toString().trimmed();
    QString tag = code(error);
    if (tag.isEmpty())
        tag = typeOf(error);
    if (message.isEmpty())
        return tag;
    if (tag.isEmpty())
        return message;
    return message + QStringLiteral(" (") + tag + QLatin1Char(')');
}

bool OpenAiErrorClassifier::isContextLength(const QJsonObject &error)
{
    // llama.cpp's server says "request (4476 tokens) exceeds the available context size (4096 tokens)" with
    // its own type.
    if (code(error) == QLatin1String("context_length_exceeded") ||
        typeOf(error) == QLatin1String("context_length_exceeded") ||
        typeOf(error) == QLatin1String("exceed_context_size_error"))
        return true;
    const QString message = error.value(QLatin1String("message")).toString();
    return message.contains(QLatin1String("maximum context length"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("context_length_exceeded"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("exceeds the context window"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("context window of this model"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("exceeds the available context size"), Qt::CaseInsensitive);
}

ProviderError OpenAiErrorClassifier::classifyHttp(int status, const QByteArray &body,
                                                  const HeaderList &headers)
{
    const QJsonObject parsed = QJsonDocument::fromJson(body).object();
    const QJsonObject error = errorObject(parsed);
    QString detail = describe(error);
    if (detail.isEmpty()) {
        // No JSON envelope (a proxy's HTML page, say): a short, single-line excerpt.
        detail = QString::fromUtf8(body.left(300)).simplified();
    }
    if (detail.isEmpty())
        detail = OpenAiErrorClassifier::tr("no details");

    ProviderError result;
    result.httpStatus = status;
    result.kind = kindForStatus(status);
    if (isContextLength(error))
        result.kind = ProviderError::Kind::ContextLength;
    else if (isQuotaError(error))
        result.kind = ProviderError::Kind::InvalidRequest; // retrying cannot help until billing changes
    // llama.cpp's server started without --jinja answers a request with tools by HTTP 500 "tools param
    // requires --jinja flag": the same on every retry, until the server is started again with it.
    const bool needsJinja =
        error.value(QLatin1String("message")).toString().contains(QLatin1String("--jinja"));
    if (needsJinja)
        result.kind = ProviderError::Kind::InvalidRequest;

    switch (result.kind) {
    case ProviderError::Kind::Authentication:
        result.message =
            OpenAiErrorClassifier::tr("authentication failed (HTTP %1): %2").arg(status).arg(detail);
        break;
    case ProviderError::Kind::RateLimit:
        result.message = OpenAiErrorClassifier::tr("rate limited (HTTP %1): %2").arg(status).arg(detail);
        result.retryAfterMs = retryAfterMs(headers);
        break;
    case ProviderError::Kind::Overloaded:
        result.message = OpenAiErrorClassifier::tr("the provider is overloaded or failed (HTTP %1): %2")
                             .arg(status)
                             .arg(detail);
        result.retryAfterMs = retryAfterMs(headers);
        break;
    case ProviderError::Kind::ContextLength:
        result.message = OpenAiErrorClassifier::tr(
                             "the conversation is too long for the model's context window (HTTP %1): %2")
                             .arg(status)
                             .arg(detail);
        break;
    default:
        result.message =
            isQuotaError(error)
                ? quotaMessage(detail)
                : OpenAiErrorClassifier::tr("the request was rejected (HTTP %1): %2").arg(status).arg(detail);
        if (needsJinja)
            result.message += OpenAiErrorClassifier::tr(". The agent's tools need llama-server started with "
                                                        "--jinja (and a chat template that knows tools)");
        break;
    }
    return result;
}

ProviderError OpenAiErrorClassifier::classifyStreamError(const QJsonObject &body)
{
    QJsonObject error = errorObject(body);
    if (error.isEmpty())
        error = body;
    ProviderError result;
    result.kind = ProviderError::Kind::Stream;
    const int status = embeddedStatus(error);
    if (status >= 400)
        result.kind = kindForStatus(status);
    if (isContextLength(error))
        result.kind = ProviderError::Kind::ContextLength;
    else if (isQuotaError(error))
        result.kind = ProviderError::Kind::InvalidRequest;
    else if (isRateLimitError(error))
        result.kind = ProviderError::Kind::RateLimit;
    else if (isOverloadedError(error))
        result.kind = ProviderError::Kind::Overloaded;
    result.httpStatus = status >= 400 ? status : 0;

    QString detail = describe(error);
    if (detail.isEmpty())
        detail = OpenAiErrorClassifier::tr("the provider reported an error without details");
    result.message = isQuotaError(error) ? quotaMessage(detail) : detail;
    return result;
}

} // namespace keen
