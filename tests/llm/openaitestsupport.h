#pragma once

// Shared by the OpenAI protocol tests (Chat Completions, Responses, Codex, OAuth, tool loop): fixture
// loading, feeding a body to a decoder in the pieces the network might deliver, and a tool with a canned
// result.

#include "llm/providerprotocol.h"
#include "llm/streamevent.h"
#include "testenvironment.h"
#include "tools/tool.h"
#include "tools/toolregistry.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHostAddress>
#include <QJsonDocument>
#include <QRandomGenerator>
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

enum class Split { Whole, Bytewise, Random };

struct Decoded
{
    std::optional<Result<ModelTurn>> result;
    ProviderError error;
    bool failedBeforeEnd = false;
    QList<StreamEvent> events;
    QString streamedText;
    QString streamedReasoning;

    bool ok() const { return result && result->ok(); }
    const ModelTurn &turn() const { return result->value(); }
};

inline Decoded decode(const ProviderProtocol &protocol, const QByteArray &body, Split split, quint32 seed = 1)
{
    Decoded out;
    auto decoder = protocol.createDecoder([&out](const StreamEvent &event) {
        out.events.append(event);
        if (event.type == StreamEvent::Type::Chunk)
            out.streamedText += event.content;
        else if (event.type == StreamEvent::Type::ReasoningChunk)
            out.streamedReasoning += event.content;
    });
    QRandomGenerator random(seed);
    qsizetype offset = 0;
    while (offset < body.size()) {
        qsizetype size = body.size() - offset;
        if (split == Split::Bytewise)
            size = 1;
        else if (split == Split::Random)
            size = qMin<qsizetype>(size, 1 + random.bounded(120));
        decoder->feed(body.mid(offset, size));
        offset += size;
        if (decoder->failed()) {
            out.failedBeforeEnd = offset < body.size();
            break;
        }
    }
    out.result.emplace(decoder->finish());
    out.error = decoder->error();
    return out;
}

// Adds the split columns of a data-driven test: every fixture is decoded whole, byte by byte and in random
// pieces.
inline void addSplitRows(const char *name, const std::function<void(QTestData &)> &fill)
{
    const QList<std::tuple<const char *, Split, quint32>> splits{{"whole", Split::Whole, 0},
                                                                 {"bytewise", Split::Bytewise, 0},
                                                                 {"random1", Split::Random, 1},
                                                                 {"random2", Split::Random, 2},
                                                                 {"random3", Split::Random, 3}};
    for (const auto &[label, split, seed] : splits) {
        QTestData &row = QTest::addRow("%s/%s", name, label) << int(split) << seed;
        fill(row);
    }
}

inline QByteArray sha256(const QString &text)
{
    return QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex();
}

// A tool with a definition and a canned result, recording the inputs it got.
class CannedTool final : public Tool
{
public:
    CannedTool(QString name, QString description, QJsonObject schema, QJsonValue output = QJsonValue())
        : m_name(std::move(name))
        , m_description(std::move(description))
        , m_schema(std::move(schema))
        , m_output(std::move(output))
    {}
    QString name() const override { return m_name; }
    QString description() const override { return m_description; }
    QJsonObject inputSchema() const override { return m_schema; }
    ToolResult execute(const QJsonObject &input, ToolContext &) override
    {
        m_inputs.append(input);
        return ToolResult::success(m_output);
    }
    QList<QJsonObject> inputs() const { return m_inputs; }

private:
    QString m_name;
    QString m_description;
    QJsonObject m_schema;
    QJsonValue m_output;
    QList<QJsonObject> m_inputs;
};

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
