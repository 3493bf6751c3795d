#include "agent/connectiontest.h"

#include "base/cancellationtoken.h"
#include "base/secretredaction.h"
#include "base/whenfinished.h"
#include "loop/clientfactory.h"
#include "providers/localserverhint.h"
#include "providers/providerprotocol.h"
#include "providers/unexpectedreply.h"
#include "stream/replybodysniffer.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QtConcurrent/QtConcurrentRun>

namespace keen {

namespace {

// QFuture needs a default-constructible value.
struct PreparedRequest
{
    std::optional<HttpRequestSpec> spec;
    QString error;
    std::shared_ptr<const ProviderProtocol> protocol; // reads the answer's models
};

PreparedRequest prepareRequest(const ClientConfig &config)
{
    Result<std::unique_ptr<ProviderProtocol>> protocol = createProviderProtocol(config);
    if (!protocol)
        return {std::nullopt, protocol.error(), nullptr};
    // Loads what authentication needs (AWS credentials, the ChatGPT sign-in); may read files or refresh.
    const Result<void> prepared = (*protocol)->prepare(CancellationToken());
    if (!prepared)
        return {std::nullopt, prepared.error(), nullptr};
    const HttpRequestSpec spec = (*protocol)->modelsListRequest();
    return {spec, {}, std::shared_ptr<const ProviderProtocol>(std::move(*protocol))};
}

} // namespace

ConnectionTest::ConnectionTest(QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
{}

ConnectionTest::~ConnectionTest() = default;

void ConnectionTest::start(const ClientConfig &config, int timeoutMs)
{
    const quint64 generation = ++m_generation;
    whenFinished(
        QtConcurrent::run(prepareRequest, config), this,
        [this, generation, timeoutMs, apiKey = config.apiKey](const PreparedRequest &prepared) {
            if (generation != m_generation)
                return;
            if (!prepared.spec) {
                // Queued: when preparing failed at once, Qt may run this continuation inside start() itself,
                // and callers are promised that finished always comes later.
                QMetaObject::invokeMethod(
                    this,
                    [this, message = tr("✗ %1").arg(prepared.error)] { Q_EMIT finished(false, message); },
                    Qt::QueuedConnection);
                return;
            }
            const HttpRequestSpec &spec = *prepared.spec;
            QNetworkRequest request(spec.url);
            request.setTransferTimeout(timeoutMs);
            if (spec.http1Only)
                request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
            for (const auto &[name, value] : spec.headers)
                request.setRawHeader(name, value);
            QNetworkReply *reply = m_network->sendCustomRequest(request, spec.method, spec.body);
            connect(reply, &QNetworkReply::finished, this,
                    [this, reply, generation, apiKey, protocol = prepared.protocol] {
                        reply->deleteLater();
                        if (generation != m_generation)
                            return;
                        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                        const bool ok = reply->error() == QNetworkReply::NoError;
                        // What the chat would say: the provider's error as its protocol reads it, the hint
                        // for a local server that is not running, else Qt's transport message. Never the
                        // request's headers, so never the key.
                        QString message = tr("✓ Connected.");
                        if (!ok && status > 0) {
                            HeaderList headers;
                            for (const auto &[name, value] : reply->rawHeaderPairs())
                                headers.append({name, value});
                            // A provider may quote the key it refused.
                            const QByteArray body = reply->readAll();
                            QString why = protocol->classifyHttpError(status, body, headers).message;
                            if (status == 404)
                                why += UnexpectedReply::notFoundHint(reply->url(), body);
                            why = SecretRedaction::redact(why, apiKey);
                            message = why.isEmpty() ? tr("✗ The server answered HTTP %1.").arg(status)
                                                    : tr("✗ %1").arg(why);
                        } else if (reply->error() == QNetworkReply::ConnectionRefusedError &&
                                   LocalServerHint::isLocalHost(reply->url())) {
                            message = tr("✗ %1").arg(LocalServerHint::connectionRefused(reply->url()));
                        } else if (!ok) {
                            message = tr("✗ %1").arg(reply->errorString());
                        }
                        if (ok) {
                            const QByteArray body = reply->readAll();
                            const QStringList models = protocol->modelIds(body);
                            if (!models.isEmpty())
                                Q_EMIT modelsListed(models);
                            // A base URL that reaches a web server's page instead of the API is answered
                            // too: a list of models is JSON, a page or a line of text is not.
                            if (models.isEmpty() && QJsonDocument::fromJson(body).isNull()) {
                                Q_EMIT finished(
                                    false,
                                    tr("✗ The server answered with %1, not with the API's list of "
                                       "models. Check the base URL: it must be the address of the API.")
                                        .arg(UnexpectedReply::what(reply->rawHeader("Content-Type"),
                                                                   body.left(ReplyBodySniffer::HeadBytes))));
                                return;
                            }
                        }
                        Q_EMIT finished(ok, message);
                    });
        });
}

} // namespace keen
