#pragma once

// Shared by the OpenAI protocol tests (Chat Completions, Responses, Codex, OAuth, tool loop): fixture
// loading, feeding a body to a decoder in the pieces the network might deliver, and a tool with a canned
// result.

#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "conversation/streamevent.h"
#include "providers/providerprotocol.h"
#include "tools/tool.h"
#include "tools/toolregistry.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHostAddress>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <optional>

namespace keen::test::openai {

// tests/fixtures (copied from the shared captures with their SOURCES).
inline QByteArray fixture(const QString &relativePath)
{
    return keen::test::readFixture(relativePath);
}

inline QJsonObject fixtureJson(const QString &relativePath)
{
    return QJsonDocument::fromJson(fixture(relativePath)).object();
}

using keen::test::Decoded;
using keen::test::Split;

inline Decoded decode(const ProviderProtocol &protocol, const QByteArray &body, Split split, quint32 seed = 1)
{
    return decodeBody(protocol, body, split, seed, 120);
}

// Adds the split columns of a data-driven test: every fixture is decoded whole, byte by byte and in random
// pieces.
inline void addSplitRows(const char *name, const std::function<void(QTestData &)> &fill)
{
    for (const auto &[label, mode] : splitModes()) {
        QTestData &row = QTest::addRow("%s/%s", name, qPrintable(label)) << int(mode.first) << mode.second;
        fill(row);
    }
}

inline QByteArray sha256(const QString &text)
{
    return QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex();
}

// A tool with a definition and a canned result, recording the inputs it got.
using CannedTool = keen::test::FakeTool;

inline QJsonObject objectSchema(const QString &property)
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{{property, QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}},
        {QStringLiteral("required"), QJsonArray{property}}};
}

// Two tools, added out of order so the tests see the registry sort them.
inline ToolRegistry weatherAndStockTools()
{
    ToolRegistry registry;
    registry.add(std::make_shared<CannedTool>(
        QStringLiteral("get_stock_price"), QStringLiteral("Price of a stock"),
        objectSchema(QStringLiteral("ticker")), QJsonObject{{QStringLiteral("price"), 187.5}}));
    registry.add(std::make_shared<CannedTool>(
        QStringLiteral("GetWeatherArgs"), QStringLiteral("Weather in a city"),
        objectSchema(QStringLiteral("city")), QJsonObject{{QStringLiteral("celsius"), 12}}));
    return registry;
}

// A conversation whose assistant turn used two tools around some prose (reference 5.5 turn memory).
inline MessageList conversationWithToolHistory()
{
    ToolActivity read;
    read.textOffset = 10; // after "Let me see"
    read.tool = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("README.md")}};
    read.status = QStringLiteral("success");
    read.retainedOutput = QJsonObject{{QStringLiteral("content"), QStringLiteral("# Keen")}};
    ToolActivity bash;
    bash.textOffset = 10; // a second call at the same offset: one group of parallel calls
    bash.tool = QStringLiteral("bash");
    bash.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("false")}};
    bash.status = QStringLiteral("error");
    bash.exitCode = 1;
    TurnMemory memory;
    memory.toolActivity = {read, bash};
    return MessageList{
        Message::system(QStringLiteral("You are Keen.")),
        Message::user(QStringLiteral("What is in the README?")),
        Message::assistant(QStringLiteral("Let me see. It says Keen."), memory),
        Message::user(QStringLiteral("Thanks")),
    };
}

// A stand-in for <issuer>/oauth/token: a loopback HTTP server that records each request and answers each
// with the next scripted status and JSON body.
class TokenServer
{
public:
    struct Request
    {
        QByteArray requestLine;
        QByteArray headers;
        QByteArray body;
    };

    TokenServer()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { onRead(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }

    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }
    void enqueue(int status, const QByteArray &json) { m_responses.append({status, json}); }
    QList<Request> requests() const { return m_requests; }

private:
    void onRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QByteArray head = buffer.left(headerEnd);
        qsizetype length = 0;
        for (const QByteArray &line : head.split('\n')) {
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        }
        if (buffer.size() < headerEnd + 4 + length)
            return;
        Request request;
        request.requestLine = head.left(head.indexOf('\r'));
        request.headers = head;
        request.body = buffer.mid(headerEnd + 4, length);
        m_requests.append(request);
        m_buffers.remove(socket);
        const auto [status, json] =
            m_responses.isEmpty() ? std::pair<int, QByteArray>{500, "{}"} : m_responses.takeFirst();
        socket->write("HTTP/1.1 " + QByteArray::number(status) +
                      " X\r\nContent-Type: application/json\r\nContent-Length: " +
                      QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QList<std::pair<int, QByteArray>> m_responses;
    QList<Request> m_requests;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

// An unsigned JWT with these claims (the app never verifies signatures; the server does).
inline QString fakeJwt(const QJsonObject &claims)
{
    const auto part = [](const QByteArray &bytes) {
        return bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    };
    return QString::fromLatin1(part(R"({"alg":"none","typ":"JWT"})") + '.' +
                               part(QJsonDocument(claims).toJson(QJsonDocument::Compact)) + ".sig");
}

} // namespace keen::test::openai
