#pragma once

#include "providers/clientconfig.h"

#include <QObject>
#include <QString>
#include <QStringList>

class QNetworkAccessManager;

namespace keen {

// The settings dialog's "Test Connection": the provider's own protocol builds its models-list request (so
// each provider gets its own authentication: x-api-key, x-goog-api-key, Bearer, SigV4, the ChatGPT sign-in)
// on a worker thread, then the request goes out asynchronously. The GUI thread never waits; no message
// carries the key.
class ConnectionTest final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionTest)

public:
    explicit ConnectionTest(QObject *parent = nullptr);
    ~ConnectionTest() override;

    // config.providerId is a ProviderTable id. finished always comes later, never inside start(). A test
    // still running is superseded: only the last one reports.
    void start(const ClientConfig &config, int timeoutMs = 10000);

Q_SIGNALS:
    // On success, just before finished: the models the answer lists (ProviderProtocol::modelIds), when it
    // lists any.
    void modelsListed(const QStringList &models);
    void finished(bool ok, const QString &message);

private:
    QNetworkAccessManager *m_network;
    quint64 m_generation = 0;
};

} // namespace keen
