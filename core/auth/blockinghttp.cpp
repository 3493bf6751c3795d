#include "auth/blockinghttp.h"

#include "base/cancellationwatch.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <memory>

namespace keen {

BlockingHttp::Reply BlockingHttp::send(const QNetworkRequest &request, const QByteArray &method,
                                       const QByteArray &body, const CancellationToken &cancel)
{
    QNetworkAccessManager network;
    QEventLoop loop;
    const std::unique_ptr<QNetworkReply> reply(
        method == "GET" ? network.get(request) : network.sendCustomRequest(request, method, body));
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    {
        // The token's callback may still run after this function returned: it only sets a flag that this
        // thread polls (never a pointer to the reply).
        const CancellationWatch watch(cancel, [&reply] { reply->abort(); });
        if (!reply->isFinished())
            loop.exec();
    }
    Reply result;
    result.cancelled = cancel.isCancelled();
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.body = reply->readAll();
    if (result.status == 0)
        result.error = reply->errorString();
    return result;
}

} // namespace keen
