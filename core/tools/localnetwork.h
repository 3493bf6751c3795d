#pragma once

#include "base/cancellationtoken.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QHostAddress>
#include <QList>
#include <QString>

#include <functional>

namespace keen {

// Addresses on this computer or the local network (loopback, private, link-local, shared, unspecified),
// which a page on the internet must not reach through web_fetch: a redirect from a public page into
// 127.0.0.1 or a cloud's 169.254.169.254 is how a fetched page would read what only this machine can.
class LocalNetwork
{
    Q_DECLARE_TR_FUNCTIONS(LocalNetwork)

public:
    static bool contains(const QHostAddress &address);
    // The first local address host stands for ("localhost" and *.localhost without asking DNS), or empty
    // when it names none (or cannot be resolved: then the fetch itself says so). Resolves on the calling
    // (worker) thread, until cancel or the deadline.
    static QString localAddressOf(const QString &host, const CancellationToken &cancel,
                                  const QDeadlineTimer &deadline);

    // What a host name stood for when it was checked. web_fetch connects to these very addresses: a name
    // that answers with an internet address for the check and with 127.0.0.1 a moment later (DNS
    // rebinding) cannot move the request onto this machine.
    struct Lookup
    {
        QList<QHostAddress> addresses; // empty for an address literal and a *.localhost name
        QString local;                 // the first local address (or localhost name), as localAddressOf
        QString error;                 // the name could not be resolved (empty when the wait ended first)
    };
    static Lookup lookUp(const QString &host, const CancellationToken &cancel,
                         const QDeadlineTimer &deadline);

    // Tests answer names themselves (nothing else on the machine would resolve "docs.example.test"); an
    // empty function puts the system resolver back.
    using Resolver = std::function<QList<QHostAddress>(const QString &name)>;
    static void setResolverForTests(Resolver resolver);
};

} // namespace keen
