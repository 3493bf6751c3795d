#pragma once

#include "base/result.h"

#include <QObject>
#include <QString>

class QTcpServer;
class QTcpSocket;

namespace keen {

// The loopback end of the browser sign-in: a tiny HTTP server on 127.0.0.1 that answers GET /auth/callback,
// checks the state against the one this sign-in sent, and hands over the authorization code. Lives on the
// thread that created it (the GUI thread: it never blocks).
class OAuthCallbackServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OAuthCallbackServer)

public:
    explicit OAuthCallbackServer(QString expectedState, QObject *parent = nullptr);
    ~OAuthCallbackServer() override;

    // Port 0 picks a free port (tests). Fails plainly when the port is taken.
    Result<void> listen(quint16 port);
    quint16 port() const;
    void close();

Q_SIGNALS:
    void codeReceived(const QString &code);
    void failed(const QString &error);

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket *socket);
    void respond(QTcpSocket *socket, int status, const QByteArray &reason, const QString &message);

    QString m_expectedState;
    QTcpServer *m_server = nullptr;
    bool m_done = false;
};

} // namespace keen
