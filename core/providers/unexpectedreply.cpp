#include "providers/unexpectedreply.h"

#include "providers/wiresupport.h"
#include "stream/replybodysniffer.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>

namespace keen {

namespace {

constexpr qsizetype kExcerptChars = 160;

// {"error": {"message": ...}} or {"error": "..."}, as OpenAI-compatible servers and proxies send them.
QString jsonErrorMessage(const QByteArray &head)
{
    bool ok = false;
    const QJsonObject object = WireSupport::parseObject(head, &ok);
    if (!ok)
        return {};
    const QJsonValue error = object.value(QLatin1String("error"));
    if (error.isString())
        return error.toString();
    return error.toObject().value(QLatin1String("message")).toString();
}

} // namespace

QString UnexpectedReply::excerpt(const QByteArray &contentType, const QByteArray &head)
{
    QString text = QString::fromUtf8(head);
    if (ReplyBodySniffer::mediaType(contentType) == "text/html" ||
        text.trimmed().startsWith(QLatin1Char('<'))) {
        static const QRegularExpression hidden(QStringLiteral("<(script|style|head)\\b.*?(</\\1>|$)"),
                                               QRegularExpression::CaseInsensitiveOption |
                                                   QRegularExpression::DotMatchesEverythingOption);
        static const QRegularExpression tag(QStringLiteral("<[^>]*(>|$)"));
        text.remove(hidden);
        text.replace(tag, QStringLiteral(" "));
    }
    text = text.simplified();
    if (text.size() > kExcerptChars)
        text = text.left(kExcerptChars - 1).trimmed() + QChar(0x2026);
    return text;
}

QString UnexpectedReply::notFoundHint(const QUrl &url, const QByteArray &body)
{
    if (!QJsonDocument::fromJson(body).isNull())
        return {};
    const QString address =
        url.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemoveUserInfo).toString();
    return url.path().contains(QLatin1String("/v1"))
               ? tr(". Nothing answers at %1: check base_url").arg(address)
               : tr(". Nothing answers at %1: check base_url (an OpenAI-compatible server's usually ends in "
                    "/v1)")
                     .arg(address);
}

QString UnexpectedReply::what(const QByteArray &contentType, const QByteArray &head)
{
    const QByteArray type = ReplyBodySniffer::mediaType(contentType);
    QString reply = type.isEmpty() ? tr("a reply without a content type") : QString::fromLatin1(type);
    if (const QString words = excerpt(contentType, head); !words.isEmpty())
        reply += QStringLiteral(" (\u201C%1\u201D)").arg(words);
    return reply;
}

ProviderError UnexpectedReply::error(const QByteArray &contentType, const QByteArray &head,
                                     qint64 exceededBytes)
{
    ProviderError error;
    error.kind = ProviderError::Kind::InvalidRequest; // the same request gets the same reply: not retried
    const QString jsonError = jsonErrorMessage(head);
    if (!jsonError.isEmpty()) {
        error.message = tr("the server answered with an error instead of a stream of events: %1")
                            .arg(jsonError.simplified().left(400));
        return error;
    }
    const QString reply = what(contentType, head);
    error.message = exceededBytes > 0
                        ? tr("the server answered with %1 of more than %2 instead of a stream of events")
                              .arg(reply, QLocale::c().formattedDataSize(exceededBytes, 0))
                        : tr("the server answered with %1 instead of a stream of events").arg(reply);
    error.message += tr(". Check base_url: it must be the address of the API (an OpenAI-compatible server's "
                        "usually ends in /v1)");
    return error;
}

} // namespace keen
