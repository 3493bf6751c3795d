#include "stream/httpstreamer.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

#include <atomic>
#include <memory>

namespace keen {

namespace {
constexpr qsizetype MaxErrorBodyBytes = 64 * 1024;
constexpr int CancelPollMs = 50;
} // namespace

HttpStreamer::HttpStreamer()
    : m_network(std::make_unique<QNetworkAccessManager>())
{}

HttpStreamer::~HttpStreamer() = default;

HttpOutcome HttpStreamer::send(const HttpRequestSpec &request, const CancellationToken &cancel,
                               int inactivityTimeoutMs, const std::function<bool(const QByteArray &)> &onData)
{
    HttpOutcome outcome;
    if (cancel.isCancelled()) {
        outcome.cancelled = true;
        return outcome;
    }

    QNetworkRequest networkRequest(request.url);
    for (const auto &[name, value] : request.headers)
        networkRequest.setRawHeader(name, value);
    if (request.http1Only)
        networkRequest.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    networkRequest.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                                QNetworkRequest::NoLessSafeRedirectPolicy);

    QEventLoop loop;
    std::unique_ptr<QNetworkReply> reply(
        request.method == "POST"
            ? m_network->post(networkRequest, request.body)
            : m_network->sendCustomRequest(networkRequest, request.method, request.body));

    // The token's callback may run on any thread: it only sets a flag that a timer on this thread polls,
    // so no object of this thread is touched from another one.
    auto cancelFlag = std::make_shared<std::atomic_bool>(false);
    const int callbackId = cancel.onCancelled([cancelFlag] { cancelFlag->store(true); });
    QTimer cancelPoll;
    cancelPoll.setInterval(CancelPollMs);
    QObject::connect(&cancelPoll, &QTimer::timeout, &loop, [&] {
        if (cancelFlag->load() && !outcome.cancelled) {
            outcome.cancelled = true;
            reply->abort();
        }
    });
    cancelPoll.start();

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
    cancel.removeCallback(callbackId);

    outcome.status = statusCode();
    outcome.headers = reply->rawHeaderPairs();
    // Bytes that arrived together with the finished signal.
    const QByteArray rest = reply->readAll();
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
        if (!httpError)
            outcome.networkError = reply->errorString();
    }
    return outcome;
}

} // namespace keen
