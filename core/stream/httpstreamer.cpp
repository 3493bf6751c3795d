#include "stream/httpstreamer.h"

#include "base/cancellationwatch.h"
#include "base/controlcharacters.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QThreadStorage>
#include <QTimer>

#include <algorithm>
#include <cstring>
#include <memory>

namespace keen {

namespace {
constexpr qsizetype MaxErrorBodyBytes = 64 * 1024;

// RFC 9110 token characters.
bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

// Printable for a message: a bad header name is shown with its control characters escaped.
QString printableName(const QByteArray &name)
{
    QString out;
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f)
            out += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
        else
            out += QChar::fromLatin1(c);
    }
    return out.left(80);
}
} // namespace

QString HttpStreamer::checkHeaders(const HeaderList &headers)
{
    for (const auto &[name, value] : headers) {
        const bool nameOk =
            !name.isEmpty() && std::all_of(name.cbegin(), name.cend(), [](char c) { return isTokenChar(c); });
        if (!nameOk)
            return QCoreApplication::translate("HttpStreamer",
                                               "the header name \"%1\" is not valid (letters, digits and "
                                               "!#$%&'*+-.^_`|~ only); check \"headers\" in settings.json")
                .arg(printableName(name));
        // C1 controls (NEL) and U+2028/9 as well: Qt would send them MIME-encoded, a parser may split there.
        if (ControlCharacters::inUtf8(value))
            return QCoreApplication::translate(
                       "HttpStreamer",
                       "the value of the header \"%1\" contains a line break or another control character, "
                       "so it was not sent; check the API key (api_key, api_key_helper, environment) and "
                       "\"headers\" in settings.json")
                .arg(QString::fromLatin1(name));
    }
    return {};
}

HttpStreamer::HttpStreamer()
    : m_network(std::make_unique<QNetworkAccessManager>())
{}

HttpStreamer::~HttpStreamer() = default;

HttpStreamer &HttpStreamer::forCurrentThread()
{
    static QThreadStorage<HttpStreamer *> perThread; // deletes each thread's one when that thread ends
    if (!perThread.hasLocalData())
        perThread.setLocalData(new HttpStreamer);
    return *perThread.localData();
}

HttpOutcome HttpStreamer::send(const HttpRequestSpec &request, const CancellationToken &cancel,
                               int inactivityTimeoutMs, const std::function<bool(const QByteArray &)> &onData)
{
    HttpOutcome outcome;
    if (cancel.isCancelled()) {
        outcome.cancelled = true;
        return outcome;
    }

    outcome.invalidRequest = checkHeaders(request.headers);
    if (!outcome.invalidRequest.isEmpty())
        return outcome;

    QNetworkRequest networkRequest(request.url);
    for (const auto &[name, value] : request.headers)
        networkRequest.setRawHeader(name, value);
    if (request.http1Only)
        networkRequest.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    // The request carries the key: a redirect is followed only within the same scheme, host and port.
    networkRequest.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                                QNetworkRequest::SameOriginRedirectPolicy);

    QEventLoop loop;
    std::unique_ptr<QNetworkReply> reply(
        request.method == "POST"
            ? m_network->post(networkRequest, request.body)
            : m_network->sendCustomRequest(networkRequest, request.method, request.body));

    // Cancellation from any thread reaches this one through a polled flag (see CancellationWatch).
    const CancellationWatch cancelWatch(cancel, [&] {
        if (!outcome.cancelled) {
            outcome.cancelled = true;
            reply->abort();
        }
    });

    QTimer inactivity;
    inactivity.setSingleShot(true);
    inactivity.setInterval(inactivityTimeoutMs);
    QObject::connect(&inactivity, &QTimer::timeout, &loop, [&] {
        outcome.stalled = true;
        reply->abort();
    });
    inactivity.start();
    QObject::connect(reply.get(), &QNetworkReply::uploadProgress, &loop, [&] { inactivity.start(); });

    auto statusCode = [&reply] { return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); };
    QObject::connect(reply.get(), &QNetworkReply::readyRead, &loop, [&] {
        inactivity.start();
        const QByteArray bytes = reply->readAll();
        const int status = statusCode();
        if (status >= 200 && status < 300) {
            if (!outcome.stoppedByReader && !onData(bytes)) {
                outcome.stoppedByReader = true;
                reply->abort();
            }
        } else if (outcome.errorBody.size() < MaxErrorBodyBytes) {
            outcome.errorBody.append(bytes.left(MaxErrorBodyBytes - outcome.errorBody.size()));
        }
    });
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();

    outcome.status = statusCode();
    outcome.headers = reply->rawHeaderPairs();
    if (outcome.status >= 300 && outcome.status < 400) {
        // A blocked redirect has no target attribute: the Location header says where it went.
        QUrl target = reply->attribute(QNetworkRequest::RedirectionTargetAttribute).toUrl();
        if (target.isEmpty())
            target = QUrl::fromEncoded(reply->rawHeader("Location"));
        outcome.redirectedTo = request.url.resolved(target);
    }
    // Bytes that arrived together with the finished signal. An aborted reply is closed: reading it would
    // only print "device not open".
    const QByteArray rest = reply->isOpen() ? reply->readAll() : QByteArray();
    if (!rest.isEmpty() && !outcome.cancelled && !outcome.stoppedByReader && !outcome.stalled) {
        if (outcome.status >= 200 && outcome.status < 300)
            onData(rest);
        else
            outcome.errorBody.append(rest.left(MaxErrorBodyBytes - outcome.errorBody.size()));
    }
    if (reply->error() != QNetworkReply::NoError && !outcome.cancelled && !outcome.stalled &&
        !outcome.stoppedByReader) {
        // HTTP error statuses are reported through status and body; only transport failures are network
        // errors.
        const bool httpError = outcome.status >= 400;
        if (!httpError) {
            outcome.networkError = reply->errorString();
            outcome.connectionRefused = reply->error() == QNetworkReply::ConnectionRefusedError;
            outcome.hostNotFound = reply->error() == QNetworkReply::HostNotFoundError;
            outcome.tlsFailed = reply->error() == QNetworkReply::SslHandshakeFailedError;
        }
    }
    return outcome;
}

} // namespace keen
