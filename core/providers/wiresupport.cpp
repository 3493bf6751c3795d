#include "providers/wiresupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>

namespace keen {

QByteArray WireSupport::header(const HeaderList &headers, const QByteArray &name)
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

void WireSupport::setHeader(HeaderList &headers, const QByteArray &name, const QByteArray &value)
{
    for (auto &[key, existing] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0) {
            existing = value;
            return;
        }
    }
    headers.append({name, value});
}

std::optional<int> WireSupport::retryAfterMs(const HeaderList &headers)
{
    const QByteArray value = header(headers, "retry-after").trimmed();
    if (value.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double seconds = value.toDouble(&ok);
    if (ok && seconds >= 0)
        return int(qMin(seconds * 1000.0, 24.0 * 3600 * 1000));
    // An HTTP date (RFC 7231 IMF-fixdate).
    const QDateTime when = QLocale::c().toDateTime(QString::fromLatin1(value),
                                                   QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (!when.isValid())
        return std::nullopt;
    QDateTime utc = when;
    utc.setTimeSpec(Qt::UTC);
    const qint64 delta = QDateTime::currentDateTimeUtc().msecsTo(utc);
    return int(qBound<qint64>(0, delta, 24LL * 3600 * 1000));
}

std::optional<int> WireSupport::durationMs(const QString &text)
{
    QString value = text.trimmed();
    if (!value.endsWith(QLatin1Char('s')))
        return std::nullopt;
    value.chop(1);
    bool ok = false;
    const double seconds = value.toDouble(&ok);
    if (!ok || seconds < 0)
        return std::nullopt;
    return int(qMin(seconds * 1000.0, 24.0 * 3600 * 1000));
}

namespace {

QJsonObject objectOf(const QJsonDocument &document, const QJsonParseError &error, bool *ok)
{
    const bool parsed = error.error == QJsonParseError::NoError && document.isObject();
    if (ok)
        *ok = parsed;
    return parsed ? document.object() : QJsonObject();
}

} // namespace

QJsonObject WireSupport::parseObject(const QByteArray &bytes, bool *ok)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    return objectOf(document, error, ok);
}

QJsonDocument WireSupport::parseTextDocument(const QByteArray &bytes, QJsonParseError *error)
{
    QJsonDocument document = QJsonDocument::fromJson(bytes, error);
    if (error->error == QJsonParseError::IllegalUTF8String) // rare: only then pay for the round trip
        document = QJsonDocument::fromJson(QString::fromUtf8(bytes).toUtf8(), error);
    return document;
}

QJsonObject WireSupport::parseTextObject(const QByteArray &bytes, bool *ok)
{
    QJsonParseError error;
    const QJsonDocument document = parseTextDocument(bytes, &error);
    return objectOf(document, error, ok);
}

QJsonObject WireSupport::toolInput(const QString &arguments)
{
    if (arguments.trimmed().isEmpty())
        return {};
    return parseObject(arguments.toUtf8());
}

QString WireSupport::trimmedBase(const QString &base, const QString &fallback)
{
    QString url = base.trimmed().isEmpty() ? fallback : base.trimmed();
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    return url;
}

ProviderError WireSupport::makeError(ProviderError::Kind kind, const QString &provider, const QString &detail,
                                     int httpStatus)
{
    QString what;
    switch (kind) {
    case ProviderError::Kind::Authentication:
        what = QCoreApplication::translate("keen::WireSupport", "authentication failed; check the API key or "
                                                                "credentials");
        break;
    case ProviderError::Kind::RateLimit:
        what = QCoreApplication::translate("keen::WireSupport", "rate limit reached");
        break;
    case ProviderError::Kind::Overloaded:
        what = QCoreApplication::translate("keen::WireSupport", "the service is overloaded or failing");
        break;
    case ProviderError::Kind::ContextLength:
        what = QCoreApplication::translate("keen::WireSupport",
                                           "the conversation is too long for the model's context window");
        break;
    case ProviderError::Kind::InvalidRequest:
        what = QCoreApplication::translate("keen::WireSupport", "the request was rejected");
        break;
    case ProviderError::Kind::Network:
        what = QCoreApplication::translate("keen::WireSupport", "network failure");
        break;
    case ProviderError::Kind::Stalled:
        what = QCoreApplication::translate("keen::WireSupport", "the response stalled");
        break;
    case ProviderError::Kind::Truncated:
        what = QCoreApplication::translate("keen::WireSupport", "the response was cut short");
        break;
    case ProviderError::Kind::Stream:
        what = QCoreApplication::translate("keen::WireSupport", "the response stream failed");
        break;
    case ProviderError::Kind::Cancelled:
        what = QCoreApplication::translate("keen::WireSupport", "cancelled");
        break;
    }
    QString message = httpStatus > 0
                          ? QCoreApplication::translate("keen::WireSupport", "%1: %2 (HTTP %3)")
                                .arg(provider, what, QString::number(httpStatus))
                          : QCoreApplication::translate("keen::WireSupport", "%1: %2").arg(provider, what);
    if (!detail.trimmed().isEmpty())
        message += QStringLiteral(": ") + detail.trimmed();
    ProviderError error;
    error.kind = kind;
    error.message = message;
    error.httpStatus = httpStatus;
    return error;
}

} // namespace keen
