// The window's path with a canary key (issue 14, secrets): the chat panel and AgentSession with the real
// provider client against the loopback fake provider, which refuses the key and quotes it back (a 401, then
// an error event inside a stream that already sent text). The person sees clear errors; the canary is in no
// chat row, no log line (every Qt message is captured), no file under KEEN_HOME and no Markdown export.
#include "chat/chatmodel.h"
#include "chat/chatpanel.h"
#include "chat/inputeditor.h"

#include "agent/agentsession.h"
#include "fakeproviderserver.h"
#include "session/sessionexporter.h"
#include "session/sessionstore.h"
#include "testenvironment.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace keen;
using test::FakeProviderServer;

namespace {

const QByteArray kCanary = "sk-CANARY-window-5e1d93b7a2";

QByteArrayList g_messages;
QtMessageHandler g_previous = nullptr;

void capture(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    g_messages.append(message.toUtf8());
    if (g_previous)
        g_previous(type, context, message);
}

QByteArray quoting(const char *shape)
{
    return QByteArray(shape).replace("KEY", kCanary);
}

} // namespace

class TestChatSecrets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { g_previous = qInstallMessageHandler(capture); }
    void cleanupTestCase() { qInstallMessageHandler(g_previous); }
    void quotedKeyNeverShownLoggedOrSaved();
};

void TestChatSecrets::quotedKeyNeverShownLoggedOrSaved()
{
    test::TestEnvironment env;
    FakeProviderServer server;
    QVERIFY(server.isListening());
    server.enqueue(FakeProviderServer::jsonResponse(
        401,
        quoting(
            R"({"error":{"message":"Incorrect API key provided: KEY","type":"invalid_request_error"}})")));
    FakeProviderServer::Response stream;
    stream.contentType = "text/event-stream";
    stream.body = quoting("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial words \"}}]}\n\n"
                          "data: {\"error\":{\"message\":\"key KEY was revoked\"}}\n\n");
    server.enqueue(stream);

    AgentSession session;
    ClientConfig config;
    config.providerId = QStringLiteral("openai-compatible");
    config.model = QStringLiteral("test-model");
    config.baseUrl = server.baseUrl().toString();
    config.apiKey = QString::fromLatin1(kCanary);
    config.contextWindow = 100000;
    config.maxAttempts = 1;
    session.setClientConfig(config);
    QDir().mkpath(env.path(QStringLiteral("work")));
    session.setWorkspace(env.path(QStringLiteral("work")));
    const auto store = std::make_shared<SessionStore>(env.path(QStringLiteral("sessions")));
    session.setSessionStore(store);

    ChatPanel panel(&session);
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChatModel *model = panel.model();
    const auto errorRows = [model] {
        QStringList errors;
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->item(row).kind == ChatItem::Kind::Error)
                errors.append(model->item(row).plainText());
        }
        return errors;
    };

    for (const char *prompt : {"first", "second"}) {
        const qsizetype before = errorRows().size();
        QTest::keyClicks(panel.input(), QString::fromLatin1(prompt));
        QTest::keyClick(panel.input(), Qt::Key_Return);
        QVERIFY(FakeProviderServer::spinUntil(
            [&] { return errorRows().size() > before && !session.isBusy(); }, 20000));
    }
    QCOMPARE(server.requests().size(), 2);
    QCOMPARE(server.requests().first().header("authorization"), "Bearer " + kCanary);
    const QStringList errors = errorRows();
    QVERIFY2(errors.at(0).contains(QLatin1String("Incorrect API key provided: [redacted]")),
             qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY2(errors.at(1).contains(QLatin1String("key [redacted] was revoked")),
             qPrintable(errors.join(QLatin1Char('\n'))));

    // Nothing the window shows holds the key.
    for (int row = 0; row < model->rowCount(); ++row)
        QVERIFY2(!model->item(row).plainText().toUtf8().contains(kCanary),
                 qPrintable(model->item(row).plainText()));
    for (const QByteArray &message : std::as_const(g_messages))
        QVERIFY2(!message.contains(kCanary), message.constData());

    // Nor any file the session wrote, nor its export.
    QTRY_VERIFY(!store->list().isEmpty());
    int files = 0;
    QDirIterator it(env.home(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY2(!file.readAll().contains(kCanary), qPrintable(path));
        ++files;
    }
    QVERIFY(files >= 1);
    const QString exported = env.path(QStringLiteral("export.md"));
    const SessionInfo info = store->list().constFirst();
    const Result<void> written = SessionExporter::exportToFile(*store, info.path, exported);
    QVERIFY2(written.ok(), qPrintable(written.error()));
    QFile markdown(exported);
    QVERIFY(markdown.open(QIODevice::ReadOnly));
    const QByteArray text = markdown.readAll();
    QVERIFY(text.contains("first"));
    QVERIFY(!text.contains(kCanary));
}

QTEST_MAIN(TestChatSecrets)
#include "tst_chatsecrets.moc"
