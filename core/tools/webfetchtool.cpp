#include "tools/webfetchtool.h"

#include "base/cancellationwatch.h"
#include "base/regularfile.h"
#include "tools/htmltomarkdown.h"
#include "tools/localnetwork.h"
#include "tools/textartifact.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QStringDecoder>
#include <QTimer>

#include <algorithm>
#include <cctype>
#include <memory>

namespace keen {

namespace {

const QString Required = QStringLiteral("{\"url\":\"https://...\"}");

// What one GET ended with.
struct Hop
{
    int status = 0;
    QString reason;
    QByteArray contentType;
    QByteArray location;
    QByteArray body;
    bool truncated = false; // stopped at MaxDownloadBytes
    bool cancelled = false;
    bool timedOut = false;
    bool notText = false; // stopped early: the reply is a picture, an archive...
    QString networkError;
    // No connection was made (refused, unreachable): another address of the same name may still answer.
    bool notConnected = false;
};

// "text/html" from "text/html; charset=utf-8".
QByteArray mimeTypeOf(const QByteArray &contentType)
{
    return contentType.split(';').constFirst().trimmed().toLower();
}

QByteArray charsetOf(const QByteArray &contentType)
{
    for (const QByteArray &parameter : contentType.split(';')) {
        const QByteArray trimmed = parameter.trimmed();
        if (trimmed.toLower().startsWith("charset="))
            return trimmed.mid(8).replace('"', "").replace('\'', "").trimmed();
    }
    return {};
}

bool isHtmlType(const QByteArray &mime)
{
    return mime == "text/html" || mime == "application/xhtml+xml";
}

bool isTextType(const QByteArray &mime)
{
    return mime.startsWith("text/") || mime.endsWith("json") || mime.endsWith("+xml") ||
           mime == "application/xml" || mime == "application/javascript" ||
           mime == "application/ecmascript" || mime.endsWith("yaml") || mime == "application/toml" ||
           mime == "application/x-sh";
}

// No type, or the generic one: the body says whether it is a page.
bool isUntyped(const QByteArray &mime)
{
    return mime.isEmpty() || mime == "application/octet-stream";
}

bool looksLikeHtml(const QByteArray &body)
{
    QByteArray start = body.left(1024);
    if (start.startsWith("\xEF\xBB\xBF"))
        start.remove(0, 3);
    start = start.trimmed().left(16).toLower();
    return start.startsWith("<!doctype html") || start.startsWith("<html");
}

// A charset named in a <meta> near the top of a page whose Content-Type names none.
QByteArray metaCharset(const QByteArray &body)
{
    const QByteArray head = body.left(2048).toLower();
    const qsizetype at = head.indexOf("charset=");
    if (at < 0)
        return {};
    qsizetype start = at + 8;
    while (start < head.size() && (head.at(start) == '"' || head.at(start) == '\''))
        ++start;
    qsizetype end = start;
    while (end < head.size() && (std::isalnum(static_cast<unsigned char>(head.at(end))) ||
                                 head.at(end) == '-' || head.at(end) == '_'))
        ++end;
    return head.mid(start, end - start);
}

QString decode(const QByteArray &body, QByteArray charset)
{
    if (charset.isEmpty())
        charset = "UTF-8";
    QStringDecoder decoder(charset.constData());
    if (!decoder.isValid()) // a charset this Qt does not know: UTF-8 is the best guess
        return QString::fromUtf8(body);
    return decoder.decode(body); // invalid bytes become U+FFFD
}

QByteArray userAgent()
{
    const QString version = QCoreApplication::applicationVersion();
    return version.isEmpty() ? QByteArrayLiteral("KeenDesktop")
                             : QByteArrayLiteral("KeenDesktop/") + version.toUtf8();
}

bool isWebScheme(const QUrl &url)
{
    return url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https");
}

bool throughAProxy(const QUrl &url)
{
    const QList<QNetworkProxy> proxies = QNetworkProxyFactory::proxyForQuery(QNetworkProxyQuery(url));
    return !proxies.isEmpty() && proxies.constFirst().type() != QNetworkProxy::NoProxy &&
           proxies.constFirst().type() != QNetworkProxy::DefaultProxy;
}

// Where a GET of url connects, in the order to try: the addresses its name was checked against, or one
// null address to let Qt look the name up (an address literal, a *.localhost name, or a proxy, which
// resolves the name itself). The local address the person was told about first, then IPv4 before IPv6
// (the order Qt's own connection would try them in).
QList<QHostAddress> addressesToConnect(const QUrl &url, const LocalNetwork::Lookup &lookup)
{
    if (throughAProxy(url))
        return {QHostAddress()};
    if (lookup.addresses.isEmpty())
        return {lookup.local.isEmpty() ? QHostAddress() : QHostAddress(lookup.local)}; // null for localhost
    QList<QHostAddress> ordered = lookup.addresses;
    std::stable_partition(ordered.begin(), ordered.end(), [](const QHostAddress &a) {
        return a.protocol() == QAbstractSocket::IPv4Protocol;
    });
    if (!lookup.local.isEmpty()) {
        const QHostAddress local(lookup.local);
        ordered.removeAll(local);
        ordered.prepend(local);
    }
    return ordered;
}

bool isConnectionFailure(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::UnknownNetworkError: // "Network unreachable" among them
        return true;
    default:
        return false;
    }
}

// One GET, without following a redirect, on this thread's event loop. A non-null connectTo is where the
// connection goes; the server still sees the URL's name (Host, and the TLS certificate it must present).
Hop get(QNetworkAccessManager &network, const QUrl &url, const QHostAddress &connectTo,
        const CancellationToken &cancel, const QDeadlineTimer &deadline)
{
    Hop hop;
    QNetworkRequest request(url);
    if (!connectTo.isNull()) {
        QUrl pinned = url;
        pinned.setHost(connectTo.toString());
        request.setUrl(pinned);
        QByteArray host = url.host(QUrl::FullyEncoded).toLatin1();
        if (url.port() != -1)
            host += ':' + QByteArray::number(url.port());
        request.setRawHeader("Host", host);
        request.setPeerVerifyName(url.host());
        // HTTP/2 would name the address, not the host, in its :authority (Qt drops a Host header there),
        // and a server with many sites on one address would answer for the wrong one.
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    }
    request.setRawHeader("User-Agent", userAgent());
    request.setRawHeader("Accept", "text/html, text/plain, text/markdown, application/json;q=0.9, */*;q=0.5");
    // Each redirect is checked here (scheme, count); nothing of the person's goes along: no cookies, no
    // credentials.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::AuthenticationReuseAttribute, QNetworkRequest::Manual);

    QEventLoop loop;
    std::unique_ptr<QNetworkReply> reply(network.get(request));
    auto stop = [&reply](bool &why) {
        why = true;
        reply->abort();
    };
    const CancellationWatch watch(cancel, [&] { stop(hop.cancelled); });
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, [&] { stop(hop.timedOut); });
    timer.start(int(std::max<qint64>(0, deadline.remainingTime())));

    auto success = [&reply] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        return status >= 200 && status < 300;
    };
    QObject::connect(reply.get(), &QNetworkReply::metaDataChanged, &loop, [&] {
        // A picture or an archive is not read at all.
        const QByteArray mime = mimeTypeOf(reply->header(QNetworkRequest::ContentTypeHeader).toByteArray());
        if (success() && !isUntyped(mime) && !isHtmlType(mime) && !isTextType(mime))
            stop(hop.notText);
    });
    auto read = [&] {
        if (hop.truncated || hop.notText || !reply->isOpen())
            return;
        hop.body += reply->readAll();
        if (hop.body.size() > WebFetchTool::MaxDownloadBytes) {
            hop.body.truncate(WebFetchTool::MaxDownloadBytes);
            stop(hop.truncated);
            return;
        }
        const QByteArray mime = mimeTypeOf(reply->header(QNetworkRequest::ContentTypeHeader).toByteArray());
        if (success() && isUntyped(mime) && hop.body.size() >= 1024 && !looksLikeHtml(hop.body))
            stop(hop.notText);
    };
    QObject::connect(reply.get(), &QNetworkReply::readyRead, &loop, read);
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    read();

    hop.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    hop.reason =
        QString::fromUtf8(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray());
    hop.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    hop.location = reply->rawHeader("Location");
    const bool stopped = hop.cancelled || hop.timedOut || hop.truncated || hop.notText;
    if (reply->error() != QNetworkReply::NoError && !stopped && hop.status == 0) {
        hop.networkError = reply->errorString();
        hop.notConnected = hop.body.isEmpty() && isConnectionFailure(reply->error());
    }
    return hop;
}

} // namespace

QString WebFetchTool::name() const
{
    return QStringLiteral("web_fetch");
}

QString WebFetchTool::description() const
{
    return QStringLiteral(
        "Fetch a web page over http or https and return it as Markdown text (HTML is converted; plain "
        "text, JSON and XML come back as they are). Use it to read documentation, issues, changelogs and "
        "API references the user points to or you need; not for downloading binaries, pictures or "
        "archives. Each fetch needs the user's permission. Timeout 30 s. Content over 128 KB is cut "
        "and the whole text saved to a file you can read with read_file. Set checkCache to true to get "
        "a page already fetched in this session without a new request.");
}

QJsonObject WebFetchTool::inputSchema() const
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("url"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("The http or https URL to fetch")}}},
             {QStringLiteral("checkCache"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                          {QStringLiteral("description"),
                           QStringLiteral("Return this session's earlier result for the URL, if any, "
                                          "instead of fetching it again")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("url")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString WebFetchTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("url")}, Required);
        !error.isEmpty())
        return error;
    if (QString error =
            ToolInput::unknownParameters(tool, input, {QStringLiteral("url"), QStringLiteral("checkCache")});
        !error.isEmpty())
        return error;
    const QJsonValue checkCache = input.value(QLatin1String("checkCache"));
    if (!checkCache.isUndefined() && !checkCache.isNull() && !checkCache.isBool())
        return ToolInput::wrongType(tool, QStringLiteral("checkCache"), WebFetchTool::tr("a boolean"));
    return {};
}

QString WebFetchTool::artifactPath(const QString &dataDir, const QString &url, const QString &content)
{
    return TextArtifact::path(dataDir, QStringLiteral("web-fetch-artifacts"),
                              QStringLiteral("keen-web-fetch"), url, content);
}

std::optional<QJsonObject> WebFetchTool::cached(const QString &url) const
{
    QString file;
    {
        const QMutexLocker lock(&m_cacheMutex);
        if (const QJsonObject *output = m_cache.object(url))
            return *output;
        file = m_diskCache.value(url);
    }
    if (file.isEmpty())
        return std::nullopt;
    // Removed meanwhile (/cleanup) or damaged: fetched again.
    const RegularFile::Read read = RegularFile::read(file, 4 * MaxInlineBytes);
    const QJsonObject output = QJsonDocument::fromJson(read.bytes).object();
    if (!read.ok() || !output.value(QLatin1String("content")).isString()) {
        const QMutexLocker lock(&m_cacheMutex);
        m_diskCache.remove(url);
        return std::nullopt;
    }
    return output;
}

void WebFetchTool::rememberOnDisk(const QStringList &urls, const QJsonObject &output, const QString &dataDir)
{
    if (dataDir.isEmpty())
        return;
    const QByteArray json = QJsonDocument(output).toJson(QJsonDocument::Compact);
    const QString hash = QString::fromLatin1(
        QCryptographicHash::hash(urls.constFirst().toUtf8(), QCryptographicHash::Sha256).toHex().left(16));
    const QString file =
        QDir(dataDir).filePath(QStringLiteral("web-fetch-artifacts/keen-web-fetch-cache-%1.json").arg(hash));
    if (!TextArtifact::save(file, json))
        return; // not cached: the next checkCache fetches again
    const QMutexLocker lock(&m_cacheMutex);
    for (const QString &url : urls)
        m_diskCache.insert(url, file);
}

void WebFetchTool::remember(const QStringList &urls, const QJsonObject &output)
{
    const QMutexLocker lock(&m_cacheMutex);
    for (const QString &url : urls)
        m_cache.insert(url, new QJsonObject(output));
}

ToolResult WebFetchTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString given = input.value(QLatin1String("url")).toString().trimmed();
    // Tolerant: a model writes a space or a non-ASCII letter as it reads; they are encoded, not refused.
    const QUrl requested(given);
    if (!requested.isValid() || requested.scheme().isEmpty())
        return ToolResult::failure(
            WebFetchTool::tr("%1 is not a valid URL; web_fetch needs a full http:// or https:// address.")
                .arg(given));
    if (!isWebScheme(requested) || requested.host().isEmpty())
        return ToolResult::failure(
            WebFetchTool::tr("web_fetch fetches only http and https URLs; %1 is not one.").arg(given));
    const QString key = requested.toString(QUrl::FullyEncoded);

    // A page fetched earlier in this session: no request, and no second question.
    if (input.value(QLatin1String("checkCache")).toBool()) {
        if (std::optional<QJsonObject> output = cached(key)) {
            output->insert(QStringLiteral("cached"), true);
            return ToolResult::success(*output);
        }
    }

    const QDeadlineTimer deadline(m_timeoutMs);
    // An address on this computer or the local network: a person asked about it is told so; a run nobody
    // watches (headless, a subagent) does not fetch it unless KEEN_WEB_FETCH_LOCAL=1 says it may.
    LocalNetwork::Lookup lookup = LocalNetwork::lookUp(requested.host(), context.cancel, deadline);
    const QString local = lookup.local;
    if (!local.isEmpty() && !context.interactive && qEnvironmentVariableIntValue("KEEN_WEB_FETCH_LOCAL") != 1)
        return ToolResult::failure(
            WebFetchTool::tr(
                "web_fetch does not fetch %1: %2 is on this computer or the local network, and "
                "nobody is here to allow that (set KEEN_WEB_FETCH_LOCAL=1 to let runs fetch such "
                "addresses).")
                .arg(given, local));

    PermissionRequest request;
    request.toolName = name();
    request.path = given;
    if (!local.isEmpty())
        request.summary = WebFetchTool::tr("%1 is an address on this computer or your local network (%2).")
                              .arg(requested.host(), local);
    const PermissionDecision decision = ToolPermissions::ask(context, request);
    if (decision != PermissionDecision::Allow)
        return ToolPermissions::refusal(decision, request, context);

    QNetworkAccessManager network;
    QUrl current = requested;
    Hop hop;
    for (int redirects = 0;; ++redirects) {
        // A name that did not resolve for the check is not looked up again for the request (it could
        // answer then, with anything); a proxy resolves names itself.
        if (!lookup.error.isEmpty() && !throughAProxy(current))
            return ToolResult::failure(WebFetchTool::tr("Could not fetch %1: %2.").arg(given, lookup.error));
        // Each address of the name in turn while none can be connected to, as Qt's own connection would
        // do: a site whose first address is down, or has no route here (IPv6 at home), is still read.
        const QList<QHostAddress> addresses = addressesToConnect(current, lookup);
        QStringList triedAddresses;
        for (const QHostAddress &address : addresses) {
            hop = get(network, current, address, context.cancel, deadline);
            triedAddresses.append(address.toString());
            if (!hop.notConnected)
                break;
        }
        if (hop.notConnected && triedAddresses.size() > 1)
            hop.networkError = WebFetchTool::tr("%1 (tried %2 addresses: %3)")
                                   .arg(hop.networkError, QString::number(triedAddresses.size()),
                                        triedAddresses.join(QStringLiteral(", ")));
        if (hop.cancelled)
            return ToolResult::failure(WebFetchTool::tr("Cancelled while fetching %1.").arg(given));
        if (hop.timedOut)
            return ToolResult::failure(WebFetchTool::tr("Could not fetch %1: timed out after %2 s.")
                                           .arg(given, QString::number(m_timeoutMs / 1000.0)));
        if (!hop.networkError.isEmpty())
            return ToolResult::failure(
                WebFetchTool::tr("Could not fetch %1: %2.").arg(given, hop.networkError));
        if (hop.status == 0)
            return ToolResult::failure(
                WebFetchTool::tr("Could not fetch %1: the server sent no HTTP response.").arg(given));
        if (hop.status < 300 || hop.status >= 400 || hop.location.isEmpty())
            break;
        const QUrl target = current.resolved(QUrl::fromEncoded(hop.location));
        if (!isWebScheme(target))
            return ToolResult::failure(
                WebFetchTool::tr("%1 redirects to %2, which web_fetch does not follow: "
                                 "only http and https URLs are fetched.")
                    .arg(current.toString(QUrl::FullyEncoded), target.toString(QUrl::FullyEncoded)));
        LocalNetwork::Lookup next = LocalNetwork::lookUp(target.host(), context.cancel, deadline);
        // What was allowed is a page on the internet: its redirect into this machine or its network is not.
        if (local.isEmpty() && !next.local.isEmpty())
            return ToolResult::failure(
                WebFetchTool::tr("%1 redirects to %2, an address on this computer or the local network "
                                 "(%3), which web_fetch does not follow from an internet address.")
                    .arg(current.toString(QUrl::FullyEncoded), target.toString(QUrl::FullyEncoded),
                         next.local));
        if (redirects == MaxRedirects)
            return ToolResult::failure(
                WebFetchTool::tr("Could not fetch %1: more than %2 redirects (the last one to %3).")
                    .arg(given, QString::number(MaxRedirects), target.toString(QUrl::FullyEncoded)));
        current = target;
        lookup = std::move(next);
    }
    const QString finalUrl = current.toString(QUrl::FullyEncoded); // as it can be fetched again

    const QByteArray mime = mimeTypeOf(hop.contentType);
    const bool html = isHtmlType(mime) || (isUntyped(mime) && looksLikeHtml(hop.body));
    const bool text = html || isTextType(mime);
    const bool ok = hop.status >= 200 && hop.status < 300;
    if (ok && (hop.notText || !text))
        return ToolResult::failure(WebFetchTool::tr("web_fetch reads text pages; %1 is %2.")
                                       .arg(finalUrl, mime.isEmpty() ? WebFetchTool::tr("of unknown type")
                                                                     : QString::fromLatin1(mime)));

    QString content;
    if (text) {
        QByteArray charset = charsetOf(hop.contentType);
        if (charset.isEmpty() && html)
            charset = metaCharset(hop.body);
        const QString decoded = decode(hop.body, charset);
        content = html ? HtmlToMarkdown::convert(decoded, current) : decoded;
    }
    if (!ok) {
        QString error = hop.reason.isEmpty()
                            ? WebFetchTool::tr("HTTP %1 from %2").arg(QString::number(hop.status), finalUrl)
                            : WebFetchTool::tr("HTTP %1 %2 from %3")
                                  .arg(QString::number(hop.status), hop.reason, finalUrl);
        QString excerpt = content.trimmed().left(ErrorExcerptChars);
        if (!excerpt.isEmpty() && excerpt.back().isHighSurrogate())
            excerpt.chop(1); // never half a character
        if (!excerpt.isEmpty())
            error += QStringLiteral("\n\n") + excerpt;
        return ToolResult::failure(error);
    }

    QJsonObject output{
        {QStringLiteral("url"), finalUrl},
        {QStringLiteral("status_code"), hop.status},
    };
    const QByteArray utf8 = content.toUtf8();
    QString shown = content;
    bool truncated = hop.truncated;
    if (utf8.size() > MaxInlineBytes) {
        truncated = true;
        shown = TextArtifact::head(utf8, MaxInlineBytes);
        const QString path = artifactPath(context.dataDir, finalUrl, content);
        const Result<void> saved = TextArtifact::save(path, utf8);
        const QString saveError = saved ? QString() : saved.error();
        if (saveError.isEmpty()) {
            output.insert(QStringLiteral("artifact_path"), path);
            shown +=
                WebFetchTool::tr("\n\n[Truncated: this is the first %1 KB of %2 KB. The whole page is in "
                                 "%3; read the rest with read_file and its offset and limit.]")
                    .arg(shown.toUtf8().size() / 1024)
                    .arg(utf8.size() / 1024)
                    .arg(path);
        } else {
            shown += WebFetchTool::tr("\n\n[Truncated: this is the first %1 KB of %2 KB; the whole page "
                                      "could not be saved (%3).]")
                         .arg(shown.toUtf8().size() / 1024)
                         .arg(utf8.size() / 1024)
                         .arg(saveError);
        }
    }
    if (hop.truncated)
        shown += WebFetchTool::tr("\n\n[Stopped reading after %1 MiB: the page is longer.]")
                     .arg(MaxDownloadBytes / (1024 * 1024));
    output.insert(QStringLiteral("content"), shown);
    if (truncated)
        output.insert(QStringLiteral("truncated"), true);
    if (!truncated && utf8.size() <= MaxCachedBytes)
        remember({key, finalUrl}, output);
    else
        rememberOnDisk({key, finalUrl}, output, context.dataDir);
    return ToolResult::success(output);
}

} // namespace keen
