#include "settings/localserverprobe.h"

#include "agent/connectiontest.h"
#include "providers/providertable.h"

namespace keen {

LocalServerProbe::LocalServerProbe(QObject *parent)
    : QObject(parent)
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
        // One test per server, gone when it has answered (or when a later start supersedes it).
        auto *test = new ConnectionTest(this);
        auto models = std::make_shared<QStringList>();
        connect(test, &ConnectionTest::modelsListed, this,
                [models](const QStringList &listed) { *models = listed; });
        connect(test, &ConnectionTest::finished, this, [this, test, target, generation, models](bool ok) {
            test->deleteLater();
            if (generation != m_generation)
                return;
            if (ok) {
                const Server server{target.providerId, target.name, target.baseUrl, *models};
                m_found.append(server);
                Q_EMIT serverFound(server);
            }
            if (--m_pending == 0)
                Q_EMIT finished();
        });
        ClientConfig config;
        config.providerId = target.providerId;
        config.baseUrl = target.baseUrl;
        test->start(config, timeoutMs);
    }
}

} // namespace keen

#include "moc_localserverprobe.cpp"
