#include "tools/localnetwork.h"

#include "base/cancellationwatch.h"

#include <QEventLoop>
#include <QHostInfo>
#include <QMutex>
#include <QTimer>

#include <utility>

namespace keen {

namespace {

// Ranges of RFC 6890 that do not route on the internet, and that this machine or its network answers.
const QList<std::pair<QHostAddress, int>> &localRanges()
{
    static const QList<std::pair<QHostAddress, int>> ranges = [] {
        QList<std::pair<QHostAddress, int>> list;
        for (const char *range :
             {"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
              "192.168.0.0/16", "::/128", "::1/128", "fc00::/7", "fe80::/10"})
            list.append(QHostAddress::parseSubnet(QString::fromLatin1(range)));
        return list;
    }();
    return ranges;
}

QMutex resolverMutex;
LocalNetwork::Resolver testResolver; // guarded by resolverMutex

} // namespace

void LocalNetwork::setResolverForTests(Resolver resolver)
{
    const QMutexLocker lock(&resolverMutex);
    testResolver = std::move(resolver);
}

bool LocalNetwork::contains(const QHostAddress &given)
{
    QHostAddress address = given;
    bool mapped = false;
    // ::ffff:127.0.0.1 is 127.0.0.1.
    if (const quint32 v4 = address.toIPv4Address(&mapped); mapped)
        address = QHostAddress(v4);
    if (address.isLoopback())
        return true;
    const auto &ranges = localRanges();
    return std::any_of(ranges.cbegin(), ranges.cend(),
                       [&](const std::pair<QHostAddress, int> &range) { return address.isInSubnet(range); });
}

QString LocalNetwork::localAddressOf(const QString &host, const CancellationToken &cancel,
                                     const QDeadlineTimer &deadline)
{
    return lookUp(host, cancel, deadline).local;
}

LocalNetwork::Lookup LocalNetwork::lookUp(const QString &host, const CancellationToken &cancel,
                                          const QDeadlineTimer &deadline)
{
    Lookup lookup;
    QString name = host;
    if (name.startsWith(QLatin1Char('[')) && name.endsWith(QLatin1Char(']')))
        name = name.mid(1, name.size() - 2);
    if (const QHostAddress literal(name); !literal.isNull()) {
        if (contains(literal))
            lookup.local = literal.toString();
        return lookup;
    }
    const QString lower = name.toLower();
    if (lower == QLatin1String("localhost") || lower.endsWith(QLatin1String(".localhost"))) {
        lookup.local = lower;
        return lookup;
    }

    {
        const QMutexLocker lock(&resolverMutex);
        if (testResolver)
            lookup.addresses = testResolver(name);
    }
    if (lookup.addresses.isEmpty()) {
        QEventLoop loop;
        QHostInfo info;
        bool answered = false;
        const int id = QHostInfo::lookupHost(name, &loop, [&](const QHostInfo &found) {
            info = found;
            answered = true;
            loop.quit();
        });
        const CancellationWatch watch(cancel, [&loop] { loop.quit(); });
        QTimer timer;
        timer.setSingleShot(true);
        QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
        timer.start(int(std::max<qint64>(0, deadline.remainingTime())));
        if (!answered)
            loop.exec();
        if (!answered) {
            QHostInfo::abortHostLookup(id);
            return lookup; // cancelled or out of time: the caller says which
        }
        lookup.addresses = info.addresses();
        if (lookup.addresses.isEmpty()) // worded as a fetch that looked the name up itself says it
            lookup.error = info.error() == QHostInfo::HostNotFound || info.errorString().isEmpty()
                               ? tr("Host %1 not found").arg(name)
                               : info.errorString();
    }
    for (const QHostAddress &address : std::as_const(lookup.addresses)) {
        if (contains(address)) {
            lookup.local = address.toString();
            break;
        }
    }
    return lookup;
}

} // namespace keen
