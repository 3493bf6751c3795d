#include "auth/oauthcallbackserver.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>
#include <QUrlQuery>

namespace keen {

namespace {

constexpr qsizetype MaxRequestBytes = 64 * 1024;

} // namespace

OAuthCallbackServer::OAuthCallbackServer(QString expectedState, QObject *parent)
    : QObject(parent)
    , m_expectedState(std::move(expectedState))
    , m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &OAuthCallbackServer::onNewConnection);
}

OAuthCallbackServer::~OAuthCallbackServer() = default;

Result<void> OAuthCallbackServer::listen(quint16 port)
{
    if (!m_server->listen(QHostAddress::LocalHost, port))
        return Result<void>::failure(tr("OAuth callback port %1 is unavailable; close the program using it "
                                        "(another sign-in?) and try again")
                                         .arg(port));
    return {};
}

quint16 OAuthCallbackServer::port() const
{
    return m_server->serverPort();
}

void OAuthCallbackServer::close()
{
    m_server->close();
}

void OAuthCallbackServer::onNewConnection()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }
}

void OAuthCallbackServer::onReadyRead(QTcpSocket *socket)
{
    // The request line and headers only; a browser's GET has no body. Keep what arrived in a property so a
    // request split across reads still parses.
    QByteArray buffer = socket->property("request").toByteArray() + socket->readAll();
    if (buffer.size() > MaxRequestBytes) {
        respond(socket, 431, "Request Header Fields Too Large", tr("The request was too large."));
        return;
    }
    if (!buffer.contains("\r\n\r\n") && !buffer.contains("\n\n")) {
        socket->setProperty("request", buffer);
        return;
    }
    const QList<QByteArray> requestLine = buffer.left(buffer.indexOf('\n')).trimmed().split(' ');
    if (requestLine.size() < 2 || requestLine.at(0) != "GET") {
        respond(socket, 405, "Method Not Allowed", tr("Only GET is supported."));
        return;
    }
    const QUrl url(QString::fromLatin1(requestLine.at(1)));
    if (url.path() != QLatin1String("/auth/callback")) {
        // Browsers also ask for /favicon.ico; that is not the end of the sign-in.
        respond(socket, 404, "Not Found", tr("Not found."));
        return;
    }
    if (m_done) {
        respond(socket, 409, "Conflict", tr("This sign-in has already finished. You can close this window."));
        return;
    }
    const QUrlQuery query(url);
    const QString state = query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded);
    const QString code = query.queryItemValue(QStringLiteral("code"), QUrl::FullyDecoded);
    const QString error = query.queryItemValue(QStringLiteral("error"), QUrl::FullyDecoded);
    if (state.isEmpty() || state != m_expectedState) {
        // A forged or stale redirect: refuse it and end this sign-in, never exchanging its code.
        m_done = true;
        respond(socket, 400, "Bad Request", tr("Sign-in failed: the state did not match. Please try again."));
        Q_EMIT failed(tr("sign-in failed: the OAuth state did not match (a stale or forged redirect)"));
        return;
    }
    if (!error.isEmpty() || code.isEmpty()) {
        m_done = true;
        QString description = query.queryItemValue(QStringLiteral("error_description"), QUrl::FullyDecoded);
        if (description.isEmpty())
            description = error.isEmpty() ? tr("no authorization code was returned") : error;
        respond(socket, 400, "Bad Request", tr("Sign-in failed: %1").arg(description.toHtmlEscaped()));
        Q_EMIT failed(tr("sign-in failed: %1").arg(description));
        return;
    }
    m_done = true;
    respond(socket, 200, "OK", tr("Signed in to Keen Desktop. You can close this window."));
    Q_EMIT codeReceived(code);
}

void OAuthCallbackServer::respond(QTcpSocket *socket, int status, const QByteArray &reason,
                                  const QString &message)
{
    const QByteArray body =
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Keen Desktop</title></head>"
        "<body><p>" +
        message.toUtf8() + "</p></body></html>";
    QByteArray response = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\n";
    response += "Content-Type: text/html; charset=utf-8\r\n";
    response += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    response += "Connection: close\r\n\r\n";
    response += body;
    socket->setProperty("request", QVariant());
    // The page reaches the browser even when the sign-in ends (and this server goes) right away: the socket
    // no longer belongs to the server and deletes itself once it is closed.
    socket->setParent(nullptr);
    socket->write(response);
    socket->disconnectFromHost();
}

} // namespace keen
