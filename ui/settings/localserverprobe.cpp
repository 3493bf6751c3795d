#include "settings/localserverprobe.h"

#include "providers/providertable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace keen {

LocalServerProbe::LocalServerProbe(QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
    , m_targets(defaultTargets())
{}

LocalServerProbe::~LocalServerProbe() = default;

QList<LocalServerProbe::Target> LocalServerProbe::defaultTargets()
{
    QList<Target> targets;
    for (const ProviderDescriptor &provider : ProviderTable::all()) {
        if (provider.probedLocally)
            targets.append({provider.id, provider.name, provider.defaultBaseUrl});
    }
    return targets;
}

void LocalServerProbe::setTargets(const QList<Target> &targets)
{
    m_targets = targets;
}

void LocalServerProbe::start(int timeoutMs)
{
    m_found.clear();
    const quint64 generation = ++m_generation; // answers to an earlier start no longer count
    m_pending = int(m_targets.size());
    if (m_pending == 0) {
        Q_EMIT finished();
        return;
    }
    for (const Target &target : std::as_const(m_targets)) {
        QNetworkRequest request(QUrl(target.baseUrl + QStringLiteral("/models")));
        request.setTransferTimeout(timeoutMs);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        QNetworkReply *reply = m_network->get(request);
        connect(reply, &QNetworkReply::finished, this, [this, reply, target, generation] {
            reply->deleteLater();
            if (generation != m_generation)
                return;
            if (reply->error() == QNetworkReply::NoError) {
                const QJsonObject object = QJsonDocument::fromJson(reply->readAll()).object();
                Server server{target.providerId, target.name, target.baseUrl, {}};
                const QJsonArray data = object.value(QStringLiteral("data")).toArray();
                for (const QJsonValue &model : data)
                    server.models << model.toObject().value(QStringLiteral("id")).toString();
                m_found.append(server);
                Q_EMIT serverFound(server);
            }
            if (--m_pending == 0)
                Q_EMIT finished();
        });
    }
}

} // namespace keen

#include "moc_localserverprobe.cpp"
