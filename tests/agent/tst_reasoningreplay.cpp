// A thinking model's reasoning before its tool calls goes back with those calls in every later request of
// the Chat Completions API, in the same session and after it is reopened from disk: DeepSeek's thinking
// models refuse a history whose tool-call turns lack it (HTTP 400, "The reasoning_content in the thinking
// mode must be passed back to the API"). Through the whole stack against the loopback fake provider.

#include "fakeproviderserver.h"
#include "testenvironment.h"

#include "agent/agentsession.h"
#include "session/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace keen;
using namespace keen::test;

namespace {

QByteArray sse(const QList<QJsonObject> &deltas, const QString &finishReason)
{
    QByteArray body;
    for (qsizetype i = 0; i < deltas.size(); ++i) {
        QJsonObject choice{{QStringLiteral("index"), 0}, {QStringLiteral("delta"), deltas.at(i)}};
        if (i == deltas.size() - 1)
            choice.insert(QStringLiteral("finish_reason"), finishReason);
        body += "data: " +
                QJsonDocument(QJsonObject{{QStringLiteral("choices"), QJsonArray{choice}}})
                    .toJson(QJsonDocument::Compact) +
                "\n\n";
    }
    return body + "data: [DONE]\n\n";
}

// The reasoning, then a glob call: one tool-call turn of a thinking model.
QByteArray thinksThenCalls(const QString &reasoning, const QString &callId)
{
    return sse(
        {QJsonObject{{QStringLiteral("reasoning_content"), reasoning}},
         QJsonObject{{QStringLiteral("tool_calls"),
                      QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                             {QStringLiteral("id"), callId},
                                             {QStringLiteral("type"), QStringLiteral("function")},
                                             {QStringLiteral("function"),
                                              QJsonObject{{QStringLiteral("name"), QStringLiteral("glob")},
                                                          {QStringLiteral("arguments"),
                                                           QStringLiteral(R"({"pattern":"*.md"})")}}}}}}}},
        QStringLiteral("tool_calls"));
}

QByteArray answers(const QString &text)
{
    return sse({QJsonObject{{QStringLiteral("reasoning_content"), QStringLiteral("Answer now.")}},
                QJsonObject{{QStringLiteral("content"), text}}},
               QStringLiteral("stop"));
}

// The reasoning_content of each assistant message that carries tool calls, in order.
QStringList reasoningOfCallTurns(const FakeProviderServer::Request &request)
{
    QStringList reasoning;
    for (const QJsonValue &value : request.json[QStringLiteral("messages")].toArray()) {
        const QJsonObject message = value.toObject();
        if (message.contains(QStringLiteral("tool_calls")))
            reasoning.append(message.value(QStringLiteral("reasoning_content")).toString());
    }
    return reasoning;
}

} // namespace

class TestReasoningReplay final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void reasoningGoesBackWithItsCalls();
};

void TestReasoningReplay::reasoningGoesBackWithItsCalls()
{
    TestEnvironment env;
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    QFile readme(QDir(workspace.path()).filePath(QStringLiteral("README.md")));
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("# Demo\n");
    readme.close();

    FakeProviderServer server;
    ClientConfig config;
    config.providerId = QStringLiteral("deepseek");
    config.apiKey = QStringLiteral("sk-reasoning-test");
    config.baseUrl = server.baseUrl().toString();
    config.model = QStringLiteral("deepseek-reasoner");
    config.retryBaseDelayMs = 1;
    auto newSession = [&] {
        auto session = std::make_unique<AgentSession>();
        session->setInteractive(false);
        session->setWorkspace(workspace.path());
        session->setSessionStore(std::make_shared<SessionStore>(env.path(QStringLiteral("sessions"))));
        session->setClientConfig(config);
        return session;
    };
    auto runTurn = [&](AgentSession &session, const QString &prompt) {
        bool finished = false;
        AgentSession::TurnOutcome outcome = AgentSession::TurnOutcome::Error;
        QString error;
        QObject context;
        connect(&session, &AgentSession::turnFinished, &context,
                [&](AgentSession::TurnOutcome result, const QString &why) {
                    finished = true;
                    outcome = result;
                    error = why;
                });
        if (!session.submit(prompt))
            return QStringLiteral("not submitted");
        if (!FakeProviderServer::spinUntil([&] { return finished; }, 20000))
            return QStringLiteral("no end");
        return outcome == AgentSession::TurnOutcome::Done ? QString() : error;
    };

    std::unique_ptr<AgentSession> session = newSession();
    server.enqueue(FakeProviderServer::sseResponse(
        thinksThenCalls(QStringLiteral("List the files first."), QStringLiteral("call_1"))));
    server.enqueue(FakeProviderServer::sseResponse(answers(QStringLiteral("One Markdown file."))));
    QCOMPARE(runTurn(*session, QStringLiteral("What Markdown files are there?")), QString());
    // Within the turn, the live call went back with its reasoning (as before).
    QCOMPARE(reasoningOfCallTurns(server.requests().at(1)),
             QStringList{QStringLiteral("List the files first.")});

    // The next message of the same session: the earlier call turn is replayed with its reasoning.
    server.enqueue(FakeProviderServer::sseResponse(answers(QStringLiteral("Still one."))));
    QCOMPARE(runTurn(*session, QStringLiteral("And now?")), QString());
    QCOMPARE(reasoningOfCallTurns(server.requests().at(2)),
             QStringList{QStringLiteral("List the files first.")});
    const QString id = session->sessionId();
    session.reset();

    // Reopened from disk: the same.
    std::unique_ptr<AgentSession> reopened = newSession();
    const Result<void> opened = reopened->openSession(id);
    QVERIFY2(opened, qPrintable(opened.error()));
    server.enqueue(FakeProviderServer::sseResponse(
        thinksThenCalls(QStringLiteral("Look again."), QStringLiteral("call_2"))));
    server.enqueue(FakeProviderServer::sseResponse(answers(QStringLiteral("Still one file."))));
    QCOMPARE(runTurn(*reopened, QStringLiteral("Check again?")), QString());
    QCOMPARE(reasoningOfCallTurns(server.requests().at(3)),
             QStringList{QStringLiteral("List the files first.")});
    QCOMPARE(reasoningOfCallTurns(server.requests().at(4)),
             (QStringList{QStringLiteral("List the files first."), QStringLiteral("Look again.")}));
    reopened.reset();
    QThreadPool::globalInstance()->waitForDone(10000);
}

QTEST_GUILESS_MAIN(TestReasoningReplay)

#include "tst_reasoningreplay.moc"
