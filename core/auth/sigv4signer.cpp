#include "auth/sigv4signer.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QNetworkRequest>
#include <QUrl>

#include <algorithm>

namespace keen {

namespace {

constexpr char Algorithm[] = "AWS4-HMAC-SHA256";

bool isUnreserved(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

// RFC 3986 encoding as SigV4 wants it: everything but unreserved characters (and '/' in paths), upper-case
// hex.
QByteArray uriEncode(QByteArrayView bytes, bool keepSlash)
{
    static constexpr char Hex[] = "0123456789ABCDEF";
    QByteArray out;
    out.reserve(bytes.size() * 3);
    for (const char c : bytes) {
        if (isUnreserved(c) || (keepSlash && c == '/')) {
            out.append(c);
        } else {
            out.append('%');
            out.append(Hex[(quint8(c) >> 4) & 0xF]);
            out.append(Hex[quint8(c) & 0xF]);
        }
    }
    return out;
}

QByteArray sha256Hex(QByteArrayView data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

QByteArray hmac(const QByteArray &key, const QByteArray &message)
{
    return QMessageAuthenticationCode::hash(message, key, QCryptographicHash::Sha256);
}

// Trims and collapses runs of whitespace (including the line breaks of obsolete header folding) to one space.
QByteArray canonicalHeaderValue(const QByteArray &value)
{
    return value.simplified();
}

bool hasHeader(const SigV4Signer::HeaderList &headers, QByteArrayView name)
{
    return std::any_of(headers.cbegin(), headers.cend(),
                       [&](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
}

} // namespace

SigV4Signer::SigV4Signer(AwsCredentials credentials, QString region, QString service)
    : m_credentials(std::move(credentials))
    , m_region(std::move(region))
    , m_service(std::move(service))
{}

QByteArray SigV4Signer::canonicalUri(const QByteArray &path, bool normalize)
{
    if (!normalize)
        return path.isEmpty() ? QByteArray("/") : uriEncode(path, true);

    // RFC 3986 dot-segment removal, and empty segments (duplicate slashes) dropped.
    QList<QByteArray> segments;
    const QList<QByteArray> parts = path.split('/');
    for (const QByteArray &part : parts) {
        if (part.isEmpty() || part == ".")
            continue;
        if (part == "..") {
            if (!segments.isEmpty())
                segments.removeLast();
            continue;
        }
        segments.append(part);
    }
    const bool trailingSlash = path.endsWith('/') || path.endsWith("/.") || path.endsWith("/..");
    QByteArray out = "/";
    for (qsizetype i = 0; i < segments.size(); ++i) {
        if (i > 0)
            out.append('/');
        out.append(uriEncode(segments.at(i), false));
    }
    if (!segments.isEmpty() && trailingSlash)
        out.append('/');
    return out;
}

QByteArray SigV4Signer::canonicalQuery(const QByteArray &query)
{
    QList<QPair<QByteArray, QByteArray>> params;
    const QList<QByteArray> pieces = query.split('&');
    for (const QByteArray &piece : pieces) {
        if (piece.isEmpty())
            continue;
        const qsizetype equals = piece.indexOf('=');
        const QByteArray name = equals < 0 ? piece : piece.left(equals);
        const QByteArray value = equals < 0 ? QByteArray() : piece.mid(equals + 1);
        params.append({uriEncode(QByteArray::fromPercentEncoding(name), false),
                       uriEncode(QByteArray::fromPercentEncoding(value), false)});
    }
    std::sort(params.begin(), params.end());
    QByteArray out;
    for (const auto &[name, value] : std::as_const(params)) {
        if (!out.isEmpty())
            out.append('&');
        out.append(name + '=' + value);
    }
    return out;
}

QByteArray SigV4Signer::signingKey(const QString &secretAccessKey, const QByteArray &date,
                                   const QString &region, const QString &service)
{
    const QByteArray dateKey = hmac("AWS4" + secretAccessKey.toUtf8(), date);
    const QByteArray regionKey = hmac(dateKey, region.toUtf8());
    const QByteArray serviceKey = hmac(regionKey, service.toUtf8());
    return hmac(serviceKey, "aws4_request");
}

SigV4Signer::Signature SigV4Signer::sign(const Request &request, const QDateTime &time,
                                         const Options &options) const
{
    Signature result;
    const QDateTime utc = time.toUTC();
    const QByteArray amzDate = utc.toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'")).toLatin1();
    const QByteArray date = amzDate.left(8);
    const QByteArray payloadHash = request.payloadHash.value_or(sha256Hex(request.body));

    HeaderList headers = request.headers;
    if (!hasHeader(headers, "x-amz-date")) {
        headers.append({"X-Amz-Date", amzDate});
        result.headersToAdd.append({"X-Amz-Date", amzDate});
    }
    if (options.addContentSha256Header && !hasHeader(headers, "x-amz-content-sha256")) {
        headers.append({"x-amz-content-sha256", payloadHash});
        result.headersToAdd.append({"x-amz-content-sha256", payloadHash});
    }
    const QByteArray token = m_credentials.sessionToken.toUtf8();
    const bool addToken = !token.isEmpty() && !hasHeader(headers, "x-amz-security-token");
    if (addToken && options.signSessionToken)
        headers.append({"X-Amz-Security-Token", token});

    // Lower-case names, sorted; repeated names joined with ',' in their original order.
    QList<QByteArray> names;
    QHash<QByteArray, QByteArray> values;
    for (const auto &[name, value] : std::as_const(headers)) {
        const QByteArray lower = name.trimmed().toLower();
        const QByteArray canonical = canonicalHeaderValue(value);
        auto it = values.find(lower);
        if (it == values.end()) {
            names.append(lower);
            values.insert(lower, canonical);
        } else {
            it.value() += ',' + canonical;
        }
    }
    std::sort(names.begin(), names.end());
    QByteArray canonicalHeaders;
    for (const QByteArray &name : std::as_const(names))
        canonicalHeaders += name + ':' + values.value(name) + '\n';
    const QByteArray signedHeaders = names.join(';');

    result.canonicalRequest = request.method + '\n' + canonicalUri(request.path, options.normalizePath) +
                              '\n' + canonicalQuery(request.query) + '\n' + canonicalHeaders + '\n' +
                              signedHeaders + '\n' + payloadHash;

    const QByteArray scope = date + '/' + m_region.toUtf8() + '/' + m_service.toUtf8() + "/aws4_request";
    result.stringToSign =
        QByteArray(Algorithm) + '\n' + amzDate + '\n' + scope + '\n' + sha256Hex(result.canonicalRequest);
    result.signature =
        hmac(signingKey(m_credentials.secretAccessKey, date, m_region, m_service), result.stringToSign)
            .toHex();
    result.authorization = QByteArray(Algorithm) + " Credential=" + m_credentials.accessKeyId.toUtf8() + '/' +
                           scope + ", SignedHeaders=" + signedHeaders + ", Signature=" + result.signature;

    if (addToken)
        result.headersToAdd.append({"X-Amz-Security-Token", token});
    result.headersToAdd.append({"Authorization", result.authorization});
    return result;
}

void SigV4Signer::signRequest(QNetworkRequest &request, const QByteArray &method, const QByteArray &body,
                              const QDateTime &time, const Options &options) const
{
    const QUrl url = request.url();
    Request toSign;
    toSign.method = method;
    toSign.path = url.path(QUrl::FullyEncoded).toUtf8();
    toSign.query = url.query(QUrl::FullyEncoded).toUtf8();
    toSign.body = body;

    // Host as QNetworkAccessManager will send it: the port only when it is not the scheme's default.
    QByteArray host = url.host(QUrl::FullyEncoded).toUtf8();
    const int port = url.port();
    if (port != -1 && !((url.scheme() == QLatin1String("https") && port == 443) ||
                        (url.scheme() == QLatin1String("http") && port == 80)))
        host += ':' + QByteArray::number(port);
    toSign.headers.append({"host", host});
    // Only headers that stay as they are on the way out: not user-agent or connection, which proxies and the
    // network stack may change.
    const QList<QByteArray> names = request.rawHeaderList();
    for (const QByteArray &name : names) {
        const QByteArray lower = name.toLower();
        if (lower == "content-type" || lower.startsWith("x-amz-"))
            toSign.headers.append({name, request.rawHeader(name)});
    }

    const Signature signature = sign(toSign, time, options);
    for (const auto &[name, value] : signature.headersToAdd)
        request.setRawHeader(name, value);
}

} // namespace keen
