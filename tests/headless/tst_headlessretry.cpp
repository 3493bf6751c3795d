// A reply cut short is retried like any other passing failure (reference: every error but a cancel, a
// deadline or a client error is retried), for every provider protocol (OpenAI Chat Completions, Responses,
// Codex, Anthropic, Gemini, Bedrock), headless: `keen-desktop run`'s HeadlessRunner in this process, the real
// tool loop and tools, each provider's own wire format from the loopback fake provider. What a person or a
// script observes: stdout is exactly the completed attempt's text, stderr names the retry and its reason, the
// transcript holds only the completed attempt's reply, and a tool call the cut attempt had begun never runs.
//
// "Cut short" is a body that ends cleanly (the last HTTP chunk arrives) before the provider's finish marker:
// [DONE] or a finish_reason, response.completed, message_stop, a finishReason, messageStop. A connection
// reset (TCP RST) after text arrived is retried as well. Retries wait 10 ms, 20 ms, ... (ProviderScript's
// protocols), so six attempts take a fraction of a second.
#include "fakeproviderserver.h"
#include "protocoltestsupport.h"
#include "providerscript.h"
#include "testenvironment.h"

#include "agent/agentsession.h"
#include "conversation/metatypes.h"
#include "headless/headlessrunner.h"
#include "loop/toolloopclient.h"
#include "session/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QTimer>
#include <QtEndian>

using namespace keen;
using keen::test::FakeProviderServer;
namespace ProviderScript = keen::test::ProviderScript;

namespace {

constexpr qint64 Window = 200000;
const QString FirstText = QStringLiteral("Doomed reply");     // streamed as "Doom", then "ed reply"
const QString SecondText = QStringLiteral("Complete answer"); // the attempt that completes

// Where a body is cut short.
enum class Cut {
    AfterFirstText,  // at the end of the event (or frame) that streamed the first text
    InsideNextEvent, // a few bytes into the event after it
    InsideArguments, // in the middle of a tool call's arguments
    JustShort,       // the longest prefix that is not a complete reply: everything but the end
};

QString cutName(Cut cut)
{
    switch (cut) {
    case Cut::AfterFirstText:
        return QStringLiteral("after first text");
    case Cut::InsideNextEvent:
        return QStringLiteral("inside next event");
    case Cut::InsideArguments:
        return QStringLiteral("inside arguments");
    case Cut::JustShort:
        return QStringLiteral("just short");
    }
    return {};
}

std::unique_ptr<ProviderProtocol> protocolFor(const QString &provider)
{
    return ProviderScript::makeProtocol(provider, QUrl(QStringLiteral("http://127.0.0.1:9")), Window);
}

// The offset just past the event (SSE, with its blank line) or frame (Bedrock) that streamed the body's first
// text: the body is fed to the provider's decoder one byte at a time until it shows text.
qsizetype afterFirstText(const QString &provider, const QByteArray &body)
{
    const auto protocol = protocolFor(provider);
    bool text = false;
    const auto decoder = protocol->createDecoder(
        [&text](const StreamEvent &event) { text = text || event.type == StreamEvent::Type::Chunk; });
    for (qsizetype i = 0; i < body.size(); ++i) {
        decoder->feed(body.mid(i, 1));
        if (!text)
            continue;
        qsizetype end = i + 1;
        while (provider != QLatin1String("amazon-bedrock") && end < body.size() &&
               (body.at(end) == '\r' || body.at(end) == '\n'))
            ++end;
        return end;
    }
    return -1;
}

// The longest prefix of body that the provider's decoder does not take for a complete reply.
qsizetype justShort(const QString &provider, const QByteArray &body)
{
    const auto protocol = protocolFor(provider);
    for (qsizetype length = body.size() - 1; length > 0; --length) {
        if (!keen::test::decodeBody(*protocol, body.left(length), keen::test::Split::Whole).ok())
            return length;
    }
    return -1;
}

// response with its body cut where cut says; the body still ends cleanly (the terminating HTTP chunk is
// sent).
FakeProviderServer::Response cutShort(const QString &provider, FakeProviderServer::Response response, Cut cut)
{
    qsizetype at = -1;
    switch (cut) {
    case Cut::AfterFirstText:
        at = afterFirstText(provider, response.body);
        break;
    case Cut::InsideNextEvent:
        at = afterFirstText(provider, response.body);
        if (at > 0)
            at += 12;
        break;
    case Cut::InsideArguments:
        at = response.body.indexOf("doomed");
        if (at > 0)
            at += 3; // "doo|med.txt"
        break;
    case Cut::JustShort:
        at = justShort(provider, response.body);
        break;
    }
    if (at <= 0 || at >= response.body.size())
        qFatal("no place to cut the %s body (%s)", qPrintable(provider), qPrintable(cutName(cut)));
    response.body.truncate(at);
    return response;
}

// Whether a Bedrock body ends at a frame boundary (each frame starts with its total length, big-endian).
bool endsBetweenFrames(const QByteArray &body)
{
    qsizetype at = 0;
    while (at + 4 <= body.size()) {
        const quint32 length = qFromBigEndian<quint32>(body.constData() + at);
        if (length < 16)
            return false;
        at += length;
    }
    return at == body.size();
}

// What the error of a body cut short says, by protocol.
QString truncationReason(const QString &provider, const QByteArray &cutBody)
{
    if (provider == QLatin1String("anthropic"))
        return QStringLiteral("the response ended before message_stop (truncated)");
    if (provider == QLatin1String("googleai"))
        return QStringLiteral("the response ended without a finish reason (truncated)");
    if (provider == QLatin1String("amazon-bedrock")) {
        return endsBetweenFrames(cutBody)
                   ? QStringLiteral("the response ended before messageStop (truncated)")
                   : QStringLiteral("The event stream ended inside a frame");
    }
    return QStringLiteral("stream ended before the response was complete");
}

// The lines of text that start with prefix.
QStringList linesStartingWith(const QString &text, const QString &prefix)
{
    QStringList out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (const QString &line : lines) {
        if (line.startsWith(prefix))
            out.append(line);
    }
    return out;
}

QString arguments(const QJsonObject &input)
{
    return QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Compact));
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// One provider, one loopback server, one workspace, and a HeadlessRunner writing into strings.
class Rig
{
public:
    explicit Rig(const QString &provider)
        : m_provider(provider)
        , m_outStream(&out)
        , m_errStream(&err)
        , runner(m_outStream, m_errStream)
    {
        AgentSession &session = runner.session();
        session.setWorkspace(workspace());
        session.setSessionStore(std::make_shared<SessionStore>(sessionsPath()));
        session.setClientConfig(config());
        session.setClientFactory([this](const ClientConfig &config) {
            return Result<std::shared_ptr<LlmClient>>(
                std::shared_ptr<LlmClient>(std::make_shared<ToolLoopClient>(
                    ProviderScript::makeProtocol(m_provider, server.baseUrl(), config.contextWindow))));
        });
        const ClientConfig resolved = config();
        runner.setConfigResolver(
            [resolved](const LaunchOptions &) { return Result<ClientConfig>(resolved); });
    }

    QString workspace() const { return m_workspace.path(); }
    QString sessionsPath() const { return m_env.path(QStringLiteral("sessions")); }

    ClientConfig config() const
    {
        ClientConfig config;
        config.providerId = m_provider;
        config.model = QStringLiteral("test-model");
        config.contextWindow = Window;
        return config;
    }

    void enqueue(const QList<FakeProviderServer::Response> &responses)
    {
        for (const FakeProviderServer::Response &response : responses)
            server.enqueue(response);
    }

    // `run PROMPT`; a run that hangs is interrupted, so the test fails on the exit code instead of hanging.
    int run(const QString &prompt)
    {
        out.clear();
        err.clear();
        HeadlessRunner::Options options;
        options.prompt = prompt;
        options.launch.workspace = workspace();
        QTimer guard;
        guard.setSingleShot(true);
        QObject::connect(&guard, &QTimer::timeout, &runner, [this] { runner.interrupt(); });
        guard.start(20000);
        return runner.run(options);
    }

    // The saved transcript of the run's session, as bytes and loaded.
    QByteArray transcriptBytes() { return readAll(runner.session().transcriptPath()); }
    Result<LoadedSession> loadTranscript()
    {
        return SessionStore(sessionsPath()).load(runner.session().sessionId());
    }

private:
    keen::test::TestEnvironment m_env;
    QString m_provider;
    QTemporaryDir m_workspace;

public:
    FakeProviderServer server;
    QString out;
    QString err;

private:
    QTextStream m_outStream;
    QTextStream m_errStream;

public:
    HeadlessRunner runner;
};

} // namespace

class TestHeadlessRetry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { registerCoreMetaTypes(); }

    void aReplyCutShortIsRetriedAndOnlyTheCompletedAttemptIsKept_data();
    void aReplyCutShortIsRetriedAndOnlyTheCompletedAttemptIsKept();
    void aReplyCutShortOnEveryAttemptEndsWithTheErrorAfterTheLast_data();
    void aReplyCutShortOnEveryAttemptEndsWithTheErrorAfterTheLast();
    void aConnectionResetAfterTextIsRetried_data();
    void aConnectionResetAfterTextIsRetried();
    void aToolCallOfTheCutAttemptNeverRuns_data();
    void aToolCallOfTheCutAttemptNeverRuns();
};

void TestHeadlessRetry::aReplyCutShortIsRetriedAndOnlyTheCompletedAttemptIsKept_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<int>("cut");
    for (const QString &provider : ProviderScript::providers()) {
        for (Cut cut : {Cut::AfterFirstText, Cut::InsideNextEvent})
            QTest::newRow(qPrintable(provider + QLatin1Char(' ') + cutName(cut))) << provider << int(cut);
    }
}

// proves: a body that streamed text and then ended before its finish marker (at an event boundary, or inside
// the next event) is retried; `run` prints exactly the completed attempt's text on stdout, stderr shows the
// cut attempt's text as it streamed, then "Retrying (attempt 2): <why>", and the transcript holds the
// completed attempt's reply only (the cut text is in no line of it, nor in the retried request).
void TestHeadlessRetry::aReplyCutShortIsRetriedAndOnlyTheCompletedAttemptIsKept()
{
    QFETCH(QString, provider);
    QFETCH(int, cut);
    Rig rig(provider);
    const FakeProviderServer::Response doomed =
        cutShort(provider, ProviderScript::text(provider, FirstText), Cut(cut));
    rig.enqueue({doomed, ProviderScript::text(provider, SecondText)});

    QCOMPARE(rig.run(QStringLiteral("hello")), int(HeadlessRunner::Success));
    QCOMPARE(rig.out, SecondText + QLatin1Char('\n'));
    const QStringList retries = linesStartingWith(rig.err, QStringLiteral("Retrying"));
    QCOMPARE(retries.size(), 1);
    QVERIFY2(retries.first().startsWith(QLatin1String("Retrying (attempt 2): ")), qPrintable(rig.err));
    QVERIFY2(retries.first().contains(truncationReason(provider, doomed.body)), qPrintable(rig.err));
    // The cut attempt's text streamed to stderr before the retry line, on a line of its own.
    QVERIFY2(rig.err.contains(QStringLiteral("Doom\nRetrying (attempt 2): ")), qPrintable(rig.err));
    QVERIFY2(!rig.err.contains(QLatin1String("Error")), qPrintable(rig.err));

    const QList<FakeProviderServer::Request> requests = rig.server.requests();
    QCOMPARE(requests.size(), 2);
    QVERIFY(!requests.at(1).body.contains("Doom")); // the retry asks again, without the cut text
    QCOMPARE(rig.server.pendingResponses(), qsizetype(0));

    const QByteArray transcript = rig.transcriptBytes();
    QVERIFY2(!transcript.contains("Doom"), transcript.constData());
    const Result<LoadedSession> loaded = rig.loadTranscript();
    QVERIFY2(loaded, qPrintable(loaded.error()));
    QCOMPARE(loaded->skippedLines, 0);
    const SessionEvent &last = loaded->events.constLast();
    QCOMPARE(last.kind, SessionEvent::Kind::AssistantTurn);
    QCOMPARE(last.assistantMessage(), SecondText);
    QCOMPARE(last.error(), QString());
    QCOMPARE(rig.runner.session().messages().constLast(), Message::assistant(SecondText));
}

void TestHeadlessRetry::aReplyCutShortOnEveryAttemptEndsWithTheErrorAfterTheLast_data()
{
    ProviderScript::addProviderRows();
}

// proves: a reply cut short on every attempt is tried six times (ClientConfig::maxAttempts), each retry shown
// with its reason, and then `run` exits 1 with the truncation as the error; stdout and the transcript hold
// the last attempt's partial text once (each retry dropped the text before it), marked as partial.
void TestHeadlessRetry::aReplyCutShortOnEveryAttemptEndsWithTheErrorAfterTheLast()
{
    QFETCH(QString, provider);
    Rig rig(provider);
    const FakeProviderServer::Response doomed =
        cutShort(provider, ProviderScript::text(provider, FirstText), Cut::AfterFirstText);
    const int attempts = ClientConfig().maxAttempts;
    QCOMPARE(attempts, 6);
    for (int i = 0; i < attempts; ++i)
        rig.enqueue({doomed});

    QCOMPARE(rig.run(QStringLiteral("hello")), int(HeadlessRunner::Failure));
    QCOMPARE(rig.out, QStringLiteral("Doom\n"));
    const QString reason = truncationReason(provider, doomed.body);
    const QStringList retries = linesStartingWith(rig.err, QStringLiteral("Retrying"));
    QCOMPARE(retries.size(), attempts - 1);
    for (int i = 0; i < retries.size(); ++i) {
        QVERIFY2(retries.at(i).startsWith(QStringLiteral("Retrying (attempt %1): ").arg(i + 2)),
                 qPrintable(retries.at(i)));
        QVERIFY2(retries.at(i).contains(reason), qPrintable(retries.at(i)));
    }
    const QStringList errors = linesStartingWith(rig.err, QStringLiteral("Error: "));
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().contains(reason), qPrintable(rig.err));
    QVERIFY2(errors.first().endsWith(QLatin1String("(the text on stdout is partial)")), qPrintable(rig.err));
    QCOMPARE(rig.server.requests().size(), attempts);
    QCOMPARE(rig.server.pendingResponses(), qsizetype(0));

    const Result<LoadedSession> loaded = rig.loadTranscript();
    QVERIFY2(loaded, qPrintable(loaded.error()));
    const SessionEvent &last = loaded->events.constLast();
    QCOMPARE(last.kind, SessionEvent::Kind::AssistantTurn);
    QCOMPARE(last.assistantMessage(), QStringLiteral("Doom"));
    QVERIFY2(last.error().contains(reason), qPrintable(last.error()));
}

void TestHeadlessRetry::aConnectionResetAfterTextIsRetried_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<bool>("keepAlive");
    for (const QString &provider : ProviderScript::providers()) {
        QTest::newRow(qPrintable(provider + QStringLiteral(" connection close"))) << provider << false;
        QTest::newRow(qPrintable(provider + QStringLiteral(" keep-alive"))) << provider << true;
    }
}

// proves: a connection reset (TCP RST, as a crashed proxy sends) after the reply's first text was shown is
// retried, on a "Connection: close" and on a kept-alive connection: stdout is exactly the next attempt's
// text, stderr says "Retrying (attempt 2): <why>", and the transcript holds the completed reply only. The
// server stops after the first text event and resets the connection once the client has shown that text, so
// the text has arrived whatever the machine's speed. Seen with Qt 6.4: QNetworkReply mostly finishes such a
// reply without an error, as if the body had ended, so the decoder names it cut short (a truncation, which
// was not retried before); sometimes it reports "Connection closed" (a network error). Either is retried.
void TestHeadlessRetry::aConnectionResetAfterTextIsRetried()
{
    QFETCH(QString, provider);
    QFETCH(bool, keepAlive);
    Rig rig(provider);
    rig.server.setKeepAlive(keepAlive);
    FakeProviderServer::Response first = ProviderScript::text(provider, FirstText);
    first.stallAfterBytes = afterFirstText(provider, first.body);
    QVERIFY(first.stallAfterBytes > 0);
    rig.enqueue({first, ProviderScript::text(provider, SecondText)});
    bool reset = false;
    QObject context;
    QObject::connect(&rig.runner.session(), &AgentSession::streamEvent, &context,
                     [&rig, &reset](const StreamEvent &event) {
                         if (event.type != StreamEvent::Type::Chunk || reset)
                             return;
                         reset = true;
                         QTimer::singleShot(0, &rig.server, [&rig] { rig.server.resetAllConnections(); });
                     });

    QCOMPARE(rig.run(QStringLiteral("hello")), int(HeadlessRunner::Success));
    QVERIFY(reset);
    QCOMPARE(rig.out, SecondText + QLatin1Char('\n'));
    const QStringList retries = linesStartingWith(rig.err, QStringLiteral("Retrying"));
    QCOMPARE(retries.size(), 1);
    const QString prefix = QStringLiteral("Retrying (attempt 2): ");
    QVERIFY2(retries.first().startsWith(prefix), qPrintable(rig.err));
    const QString reason = retries.first().mid(prefix.size());
    QVERIFY2(reason.startsWith(QLatin1String("network error: ")) ||
                 reason.contains(truncationReason(provider, first.body.left(first.stallAfterBytes))),
             qPrintable(reason));
    QVERIFY2(rig.err.contains(QStringLiteral("Doom\nRetrying (attempt 2): ")), qPrintable(rig.err));
    QCOMPARE(rig.server.requests().size(), 2);

    const QByteArray transcript = rig.transcriptBytes();
    QVERIFY2(!transcript.contains("Doom"), transcript.constData());
    const Result<LoadedSession> loaded = rig.loadTranscript();
    QVERIFY2(loaded, qPrintable(loaded.error()));
    QCOMPARE(loaded->events.constLast().assistantMessage(), SecondText);
    QCOMPARE(loaded->events.constLast().error(), QString());
}

void TestHeadlessRetry::aToolCallOfTheCutAttemptNeverRuns_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<int>("cut");
    for (const QString &provider : ProviderScript::providers()) {
        for (Cut cut : {Cut::InsideArguments, Cut::JustShort})
            QTest::newRow(qPrintable(provider + QLatin1Char(' ') + cutName(cut))) << provider << int(cut);
    }
}

// proves: a write_file call in an attempt that was cut short (in the middle of its arguments, or with the
// whole call sent and only the end of the stream missing) never runs: doomed.txt is never written, stderr
// lists one tool run (the completed attempt's), the retried request carries no trace of the cut call, and
// neither does the transcript. The completed attempt's call (kept.txt) runs and the turn goes on.
void TestHeadlessRetry::aToolCallOfTheCutAttemptNeverRuns()
{
    QFETCH(QString, provider);
    QFETCH(int, cut);
    Rig rig(provider);
    const QString doomedWrite = arguments({{QStringLiteral("path"), QStringLiteral("doomed.txt")},
                                           {QStringLiteral("content"), QStringLiteral("never")}});
    const QString keptWrite = arguments({{QStringLiteral("path"), QStringLiteral("kept.txt")},
                                         {QStringLiteral("content"), QStringLiteral("written once")}});
    rig.enqueue({cutShort(provider,
                          ProviderScript::toolCall(provider, QStringLiteral("call_doomed"),
                                                   QStringLiteral("write_file"), doomedWrite),
                          Cut(cut)),
                 ProviderScript::toolCall(provider, QStringLiteral("call_kept"), QStringLiteral("write_file"),
                                          keptWrite),
                 ProviderScript::text(provider, QStringLiteral("Wrote kept.txt"))});

    QCOMPARE(rig.run(QStringLiteral("write a file")), int(HeadlessRunner::Success));
    QCOMPARE(rig.out, QStringLiteral("Wrote kept.txt\n"));
    QVERIFY(!QFile::exists(QDir(rig.workspace()).filePath(QStringLiteral("doomed.txt"))));
    QCOMPARE(readAll(QDir(rig.workspace()).filePath(QStringLiteral("kept.txt"))), QByteArray("written once"));
    QCOMPARE(linesStartingWith(rig.err, QStringLiteral("Retrying (attempt 2): ")).size(), 1);
    QCOMPARE(linesStartingWith(rig.err, QStringLiteral("✓ ")),
             QStringList{QStringLiteral("✓ Write kept.txt")});
    QVERIFY2(!rig.err.contains(QLatin1String("✗")), qPrintable(rig.err));

    const QList<FakeProviderServer::Request> requests = rig.server.requests();
    QCOMPARE(requests.size(), 3);
    QVERIFY(!requests.at(1).body.contains("doomed"));
    QVERIFY(!requests.at(2).body.contains("doomed"));
    QVERIFY(requests.at(2).body.contains("kept.txt"));
    QVERIFY2(!rig.transcriptBytes().contains("doomed"), rig.transcriptBytes().constData());
}

QTEST_GUILESS_MAIN(TestHeadlessRetry)
#include "tst_headlessretry.moc"
