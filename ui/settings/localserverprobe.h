#pragma once

#include <QList>
#include <QObject>
#include <QStringList>

namespace keen {

// Looks for OpenAI-compatible servers on this machine (the ProviderTable entries marked probedLocally: Ollama
// 11434, llama.cpp 8080, LM Studio 1234) with the provider's own models-list request each (ConnectionTest:
// the request and the reading of its answer are the protocol's, not the window's). Never blocks the GUI
// thread.
class LocalServerProbe final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LocalServerProbe)

public:
    struct Server
    {
        QString providerId; // ollama, llamacpp, lmstudio
        QString name;
        QString baseUrl; // http://localhost:<port>/v1
        QStringList models;
    };
    struct Target
    {
        QString providerId;
        QString name;
        QString baseUrl;
    };

    explicit LocalServerProbe(QObject *parent = nullptr);
    ~LocalServerProbe() override;

    static QList<Target> defaultTargets();
    void setTargets(const QList<Target> &targets); // tests point this at a loopback server
    // Starting again forgets what an earlier start has not reported yet.
    void start(int timeoutMs = 1500);
    bool isRunning() const { return m_pending > 0; }
    QList<Server> servers() const { return m_found; }

Q_SIGNALS:
    void serverFound(const keen::LocalServerProbe::Server &server);
    void finished();

private:
    QList<Target> m_targets;
    QList<Server> m_found;
    int m_pending = 0;
    quint64 m_generation = 0;
};

} // namespace keen
