// The loopback fake provider itself: split modes really reach the client in pieces, requests are recorded,
// truncation and stalls look like they do from a real server, and a client in a worker thread works.
#include "fakeproviderserver.h"
#include "testenvironment.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <atomic>

using namespace keen;
using keen::test::FakeProviderServer;
using SplitMode = FakeProviderServer::SplitMode;

namespace {

struct Received
{
    QByteArray body;
    int reads = 0;
    int status = 0;
    QByteArray contentType;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    bool finished = false;
};

// Posts to the server with a QNetworkAccessManager in this thread and reads the reply piece by piece.
Received post(QNetworkAccessManager &nam, const QUrl &url, const QByteArray &body, int transferTimeoutMs = 0)
{
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("x-api-key", "test-key");
    request.setRawHeader("anthropic-version", "2023-06-01");
    if (transferTimeoutMs > 0)
        request.setTransferTimeout(transferTimeoutMs);
    QNetworkReply *reply = nam.post(request, body);
    auto received = std::make_shared<Received>();
    QObject::connect(reply, &QIODevice::readyRead, reply, [reply, received] {
        const QByteArray bytes = reply->readAll();
        if (!bytes.isEmpty()) {
            received->body += bytes;
            ++received->reads;
        }
    });
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, received] {
        if (reply->isOpen())
            received->body += reply->readAll();
        received->status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        received->contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
        received->error = reply->error();
        received->finished = true;
        reply->deleteLater();
    });
    // A real event loop, as the clients run: QTest::qWaitFor sleeps 10 ms between polls, which would merge
    // pieces.
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit, Qt::QueuedConnection);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    if (!received->finished)
        loop.exec();
    return *received;
}

} // namespace

class TestFakeProviderServer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void splitModes_data();
    void splitModes();
    void recordsRequests();
    void eventStreamAndJsonFixtures();
    void responsesAreUsedInOrder();
    void missingResponseIs500();
    void closeBeforeEnd();
    void stallTriggersTransferTimeout();
    void contentLengthMode();
    void clientInWorkerThread();
};

void TestFakeProviderServer::splitModes_data()
{
    QTest::addColumn<SplitMode>("mode");
    QTest::addColumn<int>("minimumReads");
    QTest::newRow("all at once") << SplitMode::allAtOnce() << 1;
    QTest::newRow("one byte at a time") << SplitMode::oneByteAtATime() << 200;
    QTest::newRow("random splits") << SplitMode::randomSplits(42, 50) << 10;
    QTest::newRow("chunk sizes") << SplitMode::chunkSizes({1, 2, 3, 5, 8, 13, 0, 400}) << 10;
}

void TestFakeProviderServer::splitModes()
{
    QFETCH(SplitMode, mode);
    QFETCH(int, minimumReads);
    const QByteArray fixture = test::readFixture(QStringLiteral("anthropic/text.sse"));
    QVERIFY(!fixture.isEmpty());

    FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueueFixture(QStringLiteral("anthropic/text.sse"), mode);
    QSignalSpy finished(&server, &FakeProviderServer::responseFinished);

    QNetworkAccessManager nam;
    const Received received =
        post(nam, server.baseUrl().resolved(QUrl(QStringLiteral("/v1/messages"))), "{}");
    QVERIFY(received.finished);
    QCOMPARE(received.error, QNetworkReply::NoError);
    QCOMPARE(received.status, 200);
    QCOMPARE(received.contentType, QByteArray("text/event-stream"));
    QCOMPARE(received.body, fixture);
    QVERIFY2(received.reads >= minimumReads, qPrintable(QString::number(received.reads)));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(server.pendingResponses(), 0);
}

void TestFakeProviderServer::recordsRequests()
{
    FakeProviderServer server;
    QSignalSpy spy(&server, &FakeProviderServer::requestReceived);
    server.enqueue(FakeProviderServer::jsonResponse(200, "{}"));
    QNetworkAccessManager nam;
    const QByteArray body = test::readFixture(QStringLiteral("anthropic/text.request.json"));
    QVERIFY(!body.isEmpty());
    const QUrl url = server.baseUrl().resolved(QUrl(QStringLiteral("/v1/messages?beta=true")));
    QCOMPARE(post(nam, url, body).status, 200);

    QCOMPARE(spy.size(), 1);
    QCOMPARE(spy.first().first().toInt(), 0);
    QCOMPARE(server.requests().size(), 1);
    const FakeProviderServer::Request request = server.lastRequest();
    QCOMPARE(request.method, QByteArray("POST"));
    QCOMPARE(request.target, QByteArray("/v1/messages?beta=true"));
    QCOMPARE(request.path, QByteArray("/v1/messages"));
    QCOMPARE(request.query, QByteArray("beta=true"));
    QCOMPARE(request.header("X-API-KEY"), QByteArray("test-key"));
    QCOMPARE(request.header("anthropic-version"), QByteArray("2023-06-01"));
    QCOMPARE(request.header("content-type"), QByteArray("application/json"));
    QVERIFY(!request.hasHeader("authorization"));
    QCOMPARE(request.body, body);
    QVERIFY(request.json.isObject());
    QCOMPARE(request.json.object(), QJsonDocument::fromJson(body).object());
}

void TestFakeProviderServer::eventStreamAndJsonFixtures()
{
    FakeProviderServer server;
    server.enqueueFixture(QStringLiteral("bedrock/tool-use-claude.bin"), SplitMode::randomSplits(3, 100));
    server.enqueueFixture(QStringLiteral("anthropic/error-400-prompt-too-long.json"), SplitMode::allAtOnce(),
                          400);
    QNetworkAccessManager nam;
    const QUrl url =
        server.baseUrl().resolved(QUrl(QStringLiteral("/model/us.amazon.nova-micro-v1%3A0/converse-stream")));

    const Received bin = post(nam, url, "{}");
    QCOMPARE(bin.status, 200);
    QCOMPARE(bin.contentType, QByteArray("application/vnd.amazon.eventstream"));
    QCOMPARE(bin.body, test::readFixture(QStringLiteral("bedrock/tool-use-claude.bin")));
    // The percent-encoded model id arrives as sent.
    QCOMPARE(server.lastRequest().path, QByteArray("/model/us.amazon.nova-micro-v1%3A0/converse-stream"));

    const Received error = post(nam, url, "{}");
    QCOMPARE(error.status, 400);
    QCOMPARE(error.error, QNetworkReply::ProtocolInvalidOperationError);
    QCOMPARE(error.contentType, QByteArray("application/json"));
    QCOMPARE(error.body, test::readFixture(QStringLiteral("anthropic/error-400-prompt-too-long.json")));
}

void TestFakeProviderServer::responsesAreUsedInOrder()
{
    FakeProviderServer server;
    server.enqueue(FakeProviderServer::jsonResponse(429, R"({"error":"slow down"})", {{"retry-after", "2"}}));
    server.enqueue(FakeProviderServer::jsonResponse(200, R"({"ok":true})"));
    QNetworkAccessManager nam;
    const QUrl url = server.baseUrl().resolved(QUrl(QStringLiteral("/v1/chat/completions")));
    QCOMPARE(post(nam, url, R"({"n":1})").status, 429);
    QCOMPARE(post(nam, url, R"({"n":2})").status, 200);
    QCOMPARE(server.requests().size(), 2);
    QCOMPARE(server.requests().at(0).json.object().value(QStringLiteral("n")).toInt(), 1);
    QCOMPARE(server.requests().at(1).json.object().value(QStringLiteral("n")).toInt(), 2);
}

void TestFakeProviderServer::missingResponseIs500()
{
    FakeProviderServer server;
    QNetworkAccessManager nam;
    QTest::ignoreMessage(QtWarningMsg, "FakeProviderServer: no scripted response for POST /x");
    const Received received = post(nam, server.baseUrl().resolved(QUrl(QStringLiteral("/x"))), "{}");
    QCOMPARE(received.status, 500);
    QCOMPARE(server.requests().size(), 1);
}

void TestFakeProviderServer::closeBeforeEnd()
{
    // The connection closes in the middle of the body, without the terminating chunk: the client gets the
    // bytes before the cut and a network error, exactly what a dropped provider stream looks like.
    const QByteArray fixture = test::readFixture(QStringLiteral("openai-chat/text-include-usage.sse"));
    FakeProviderServer server;
    FakeProviderServer::Response response = FakeProviderServer::fixtureResponse(
        QStringLiteral("openai-chat/text-include-usage.sse"), SplitMode::randomSplits(9));
    response.closeAfterBytes = 1000;
    server.enqueue(response);
    QNetworkAccessManager nam;
    const Received received = post(nam, server.baseUrl(), "{}");
    QCOMPARE(received.status, 200);
    QCOMPARE(received.body, fixture.left(1000));
    // Usually RemoteHostClosedError; when the close arrives in the same read as the last bytes, Qt 6.4 may
    // report NoError. Either way the body is short, which is what clients must detect.
    QVERIFY2(received.error == QNetworkReply::RemoteHostClosedError ||
                 received.error == QNetworkReply::NoError,
             qPrintable(QString::number(received.error)));
}

void TestFakeProviderServer::stallTriggersTransferTimeout()
{
    const QByteArray fixture = test::readFixture(QStringLiteral("anthropic/text.sse"));
    FakeProviderServer server;
    FakeProviderServer::Response response = FakeProviderServer::fixtureResponse(
        QStringLiteral("anthropic/text.sse"), SplitMode::chunkSizes({30}));
    response.stallAfterBytes = 90;
    server.enqueue(response);
    QNetworkAccessManager nam;
    QElapsedTimer timer;
    timer.start();
    const Received received = post(nam, server.baseUrl(), "{}", 300);
    QVERIFY(received.finished);
    QCOMPARE(received.body, fixture.left(90));
    QCOMPARE(received.error,
             QNetworkReply::OperationCanceledError); // what QNetworkRequest::setTransferTimeout gives
    QVERIFY(timer.elapsed() >= 250);
    server.closeAllConnections();
}

void TestFakeProviderServer::contentLengthMode()
{
    const QByteArray fixture = test::readFixture(QStringLiteral("gemini/text.sse"));
    FakeProviderServer server;
    FakeProviderServer::Response response =
        FakeProviderServer::fixtureResponse(QStringLiteral("gemini/text.sse"), SplitMode::chunkSizes({7}));
    response.chunked = false;
    server.enqueue(response);
    QNetworkAccessManager nam;
    const Received received = post(nam, server.baseUrl(), "{}");
    QCOMPARE(received.error, QNetworkReply::NoError);
    QCOMPARE(received.body, fixture);
    QVERIFY(received.reads > 10);
}

void TestFakeProviderServer::clientInWorkerThread()
{
    // The client runs a blocking request with its own event loop in a worker thread, as the provider clients
    // do; the main thread keeps spinning (QTRY_*) so the server can answer.
    const QByteArray fixture = test::readFixture(QStringLiteral("bedrock/text-nova.bin"));
    FakeProviderServer server;
    server.enqueueFixture(QStringLiteral("bedrock/text-nova.bin"), SplitMode::randomSplits(5, 300));
    const QUrl url = server.baseUrl().resolved(QUrl(QStringLiteral("/model/m/converse-stream")));

    Received received;
    std::atomic_bool done = false;
    Qt::HANDLE workerThread = nullptr;
    std::unique_ptr<QThread> thread(QThread::create([&] {
        workerThread = QThread::currentThreadId();
        QNetworkAccessManager nam; // network objects live in the thread that uses them
        received = post(nam, url, R"({"messages":[]})");
        done = true;
    }));
    thread->start();
    QVERIFY(FakeProviderServer::spinUntil([&] { return done.load(); }, 30000));
    thread->wait();

    QVERIFY(workerThread != QThread::currentThreadId());
    QCOMPARE(received.error, QNetworkReply::NoError);
    QCOMPARE(received.body, fixture);
    QVERIFY(received.reads > 1);
    QCOMPARE(server.lastRequest().json.object().value(QStringLiteral("messages")).toArray().size(), 0);
}

QTEST_GUILESS_MAIN(TestFakeProviderServer)
#include "tst_fakeproviderserver.moc"
