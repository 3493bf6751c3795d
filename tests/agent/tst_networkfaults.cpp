// Network faults against the loopback fake provider, for every client (issue 14: Chat Completions, Responses,
// the ChatGPT/Codex sign-in's Responses, Anthropic, Gemini, Bedrock), through the whole stack a
// person uses (AgentSession: the tool loop on its worker, the transcript on its writer): a connection reset
// mid-stream, a body that ends cleanly after some text but before its finish marker (retried with the
// reason, like a reset), a stall (the inactivity timeout names itself), a one-byte-every-100-ms drip (still
// works), 429 with Retry-After (honoured, and the wait is on the Retry event), 500/502/503/529 (retried with
// the reason), a malformed event, invalid UTF-8, a huge line, a body that never ends (stopped at the response
// size cap) and a redirect to another host (not followed with the key). Each row then proves what a person
// relies on: a clear error, the partial reply kept in an assistant_turn that carries the error, a transcript
// that loads without a skipped line, a next turn that works, and the session reopened from disk with every
// turn. A refused connection on a local port fails fast with a hint.
//
// Cheap by design: the inactivity timeout is 250 ms and the retry back-off 1 ms (ClientConfig, which tests
// set), two attempts where a retry is expected, the drip is the reply's last eight bytes and the endless body
// stops at a 256 KiB cap.

#include "fakeproviderserver.h"
#include "protocoltestsupport.h"
#include "testenvironment.h"

#include "agent/agentsession.h"
#include "auth/codexcredentials.h"
#include "auth/filecredentialstorage.h"
#include "loop/clientfactory.h"
#include "providers/providerprotocol.h"
#include "session/sessionstore.h"
#include "stream/eventstreamdecoder.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace keen;
using namespace keen::test;

namespace {

constexpr auto kKey = "sk-network-fault-canary";
// openai-codex signs in with ChatGPT instead of a key: an obviously fake access token, written only to the
// test's own KEEN_HOME (auth.json), with the keychain turned off so no real sign-in is ever read or written.
constexpr auto kCodexToken = "fake-codex-access-token-network-fault-canary";
constexpr int kInactivityMs = 250;

const char *const kProviders[] = {"openai-compatible", "openai",   "openai-codex",
                                  "anthropic",         "googleai", "amazon-bedrock"};

bool isCodex(const QString &provider)
{
    return provider == QLatin1String("openai-codex");
}

// What a failed turn's error must never carry: the key, or the Codex sign-in's token.
QString secretOf(const QString &provider)
{
    return QLatin1String(isCodex(provider) ? kCodexToken : kKey);
}

struct Family
{
    QString fixture;
    bool eventStream = false; // Bedrock's binary frames, not SSE
};

Family familyOf(const QString &provider)
{
    if (provider == QLatin1String("openai-compatible"))
        return {QStringLiteral("openai-chat/text-include-usage.sse")};
    if (provider == QLatin1String("openai") || isCodex(provider)) // Codex speaks the Responses stream
        return {QStringLiteral("openai-responses/text-after-function-call-output.sse")};
    if (provider == QLatin1String("anthropic"))
        return {QStringLiteral("anthropic/text.sse")};
    if (provider == QLatin1String("googleai"))
        return {QStringLiteral("gemini/text.sse")};
    return {QStringLiteral("bedrock/text-nova.bin"), true};
}

ClientConfig configFor(const QString &provider, const QString &baseUrl)
{
    ClientConfig config;
    config.providerId = provider;
    if (!isCodex(provider)) // Codex's token comes from the sign-in (writeFakeCodexSignIn)
        config.apiKey = QLatin1String(kKey);
    config.baseUrl = baseUrl;
    config.retryBaseDelayMs = 1;
    config.maxAttempts = 2;
    config.inactivityTimeoutMs = kInactivityMs;
    config.model = QStringLiteral("test-model");
    if (provider == QLatin1String("amazon-bedrock"))
        config.awsRegion = QStringLiteral("us-east-1");
    if (provider == QLatin1String("openai-compatible"))
        config.baseUrl += QStringLiteral("/v1");
    if (isCodex(provider))
        config.baseUrl += QStringLiteral("/backend-api/codex");
    return config;
}

// The ChatGPT sign-in the Codex client loads before each attempt, as the factory builds it (keychain, then
// auth.json): a fake token valid for a day, so no refresh is ever tried. Refuses to write outside home.
bool writeFakeCodexSignIn(const QString &home)
{
    const QString path = FileCredentialStorage::defaultPath();
    if (!path.startsWith(QDir(home).absolutePath() + QLatin1Char('/')))
        return false;
    CodexCredentials credentials;
    credentials.accessToken = QLatin1String(kCodexToken);
    credentials.refreshToken = QStringLiteral("fake-codex-refresh-token");
    credentials.expiresAt = QDateTime::currentDateTimeUtc().addDays(1);
    credentials.accountId = QStringLiteral("fake-account");
    return bool(FileCredentialStorage(path).save(credentials));
}

FakeProviderServer::Response good(const Family &family)
{
    return FakeProviderServer::fixtureResponse(family.fixture,
                                               FakeProviderServer::SplitMode::randomSplits(5, 512));
}

FakeProviderServer::Response status(int code, const FakeProviderServer::HeaderList &headers = {})
{
    return FakeProviderServer::jsonResponse(
        code, R"({"error":{"type":"overloaded_error","message":"the fake provider is busy"}})", headers);
}

QByteArray bedrockFrame(const char *type, const QByteArray &payload)
{
    EventStreamDecoder::Message message;
    message.headers = {
        {QStringLiteral(":message-type"), EventStreamDecoder::Header::Type::String, QStringLiteral("event")},
        {QStringLiteral(":event-type"), EventStreamDecoder::Header::Type::String, QLatin1String(type)},
        {QStringLiteral(":content-type"), EventStreamDecoder::Header::Type::String,
         QStringLiteral("application/json")},
    };
    message.payload = payload;
    return EventStreamDecoder::encode(message);
}

// Cuts an SSE body after the event that carries its first streamed text: the body up to there, and that event
// (with its blank line). Found by feeding the decoder one event at a time.
std::pair<QByteArray, QByteArray> splitAtFirstTextEvent(const ProviderProtocol &protocol,
                                                        const QByteArray &body)
{
    bool text = false;
    auto decoder = protocol.createDecoder(
        [&text](const StreamEvent &event) { text = text || event.type == StreamEvent::Type::Chunk; });
    // Events end with a blank line, LF or CRLF (Gemini's).
    auto eventEnd = [&body](qsizetype from) -> qsizetype {
        const qsizetype lf = body.indexOf("\n\n", from);
        const qsizetype crlf = body.indexOf("\r\n\r\n", from);
        if (crlf >= 0 && (lf < 0 || crlf < lf))
            return crlf + 4;
        return lf < 0 ? -1 : lf + 2;
    };
    qsizetype start = 0;
    while (start < body.size()) {
        const qsizetype end = eventEnd(start);
        if (end < 0)
            break;
        decoder->feed(body.mid(start, end - start));
        if (text)
            return {body.left(end), body.mid(start, end - start)};
        start = end;
    }
    return {};
}

// Where invalid bytes can go inside streamed text: after the first byte of the first chunk of three bytes or
// more, where it first occurs (a delta comes before any summary of the text), so the damage lands in text the
// person sees.
qsizetype insideFirstText(const QByteArray &body, const QList<StreamEvent> &events)
{
    for (const StreamEvent &event : events) {
        const QByteArray text = event.content.toUtf8();
        if (event.type != StreamEvent::Type::Chunk || text.size() < 3)
            continue;
        const qsizetype at = body.indexOf(text);
        if (at >= 0)
            return at + 1;
    }
    return -1;
}

// What one turn streamed and how it ended, as the window or `run` sees it.
struct Turn
{
    bool finished = false;
    AgentSession::TurnOutcome outcome = AgentSession::TurnOutcome::Error;
    QString error;
    QList<StreamEvent> events;
    qint64 elapsedMs = 0;

    QList<StreamEvent> retries() const
    {
        QList<StreamEvent> out;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::Retry)
                out.append(event);
        }
        return out;
    }
    // The text shown after the last retry: what the last attempt streamed.
    QString shownText() const
    {
        QString text;
        for (const StreamEvent &event : events) {
            if (event.type == StreamEvent::Type::Retry)
                text.clear();
            else if (event.type == StreamEvent::Type::Chunk)
                text += event.content;
        }
        return text;
    }
};

Turn runTurn(AgentSession &session, const QString &prompt, int timeoutMs = 20000)
{
    Turn turn;
    QObject context;
    QObject::connect(&session, &AgentSession::streamEvent, &context,
                     [&turn](const StreamEvent &event) { turn.events.append(event); });
    QObject::connect(&session, &AgentSession::turnFinished, &context,
                     [&turn](AgentSession::TurnOutcome outcome, const QString &error) {
                         turn.finished = true;
                         turn.outcome = outcome;
                         turn.error = error;
                     });
    QElapsedTimer elapsed;
    elapsed.start();
    if (!session.submit(prompt))
        return turn;
    FakeProviderServer::spinUntil([&turn] { return turn.finished; }, timeoutMs);
    turn.elapsedMs = elapsed.elapsed();
    return turn;
}

} // namespace

class TestNetworkFaults final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void faults_data();
    void faults();
    void refusedLocalConnectionFailsFastWithAHint();
    void httpsToAPlainHttpServerFailsFastWithAHint();
    void turnsReuseTheProvidersConnection_data();
    void turnsReuseTheProvidersConnection();
    void aReplyThatIsNotAStreamIsSaidAtOnce_data();
    void aReplyThatIsNotAStreamIsSaidAtOnce();
    void aServerThatDoesNotStreamIsReadWhole();
    void anAddressWhereNothingAnswersIsNamed_data();
    void anAddressWhereNothingAnswersIsNamed();
    void aReplyTheProviderStoppedSaysWhy_data();
    void aReplyTheProviderStoppedSaysWhy();

private:
    std::unique_ptr<AgentSession> newSession(const ClientConfig &config) const;

    std::unique_ptr<TestEnvironment> m_env;
    std::unique_ptr<QTemporaryDir> m_workspace;
};

void TestNetworkFaults::initTestCase()
{
    // The Codex client's sign-in comes from the test's auth.json only, never from a real keychain.
    qputenv("KEEN_DISABLE_KEYCHAIN", "1");
}

void TestNetworkFaults::init()
{
    // issue 14: error runs printed "QIODevice::read (QNetworkReplyHttpImpl): device not open" (an aborted
    // reply was read); no fault may print it again.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("device not open")));
    m_env = std::make_unique<TestEnvironment>();
    m_workspace = std::make_unique<QTemporaryDir>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(writeFakeCodexSignIn(m_env->home()));
}

void TestNetworkFaults::cleanup()
{
    // A session reads its skill folders on the global pool (AgentSession::reloadCatalogs) and installs the
    // bundled skills into KEEN_HOME there, unjoined when the session goes: let it end before the folders are
    // removed, or a late copy leaves the temporary home behind ("QTemporaryDir: Unable to remove").
    QThreadPool::globalInstance()->waitForDone(10000);
    m_workspace.reset();
    m_env.reset();
}

std::unique_ptr<AgentSession> TestNetworkFaults::newSession(const ClientConfig &config) const
{
    auto session = std::make_unique<AgentSession>();
    session->setInteractive(false);
    session->setWorkspace(m_workspace->path());
    session->setSessionStore(std::make_shared<SessionStore>(m_env->path(QStringLiteral("sessions"))));
    session->setClientConfig(config);
    return session;
}

void TestNetworkFaults::faults_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QString>("fault");
    for (const char *provider : kProviders) {
        for (const char *fault : {"reset", "cut", "stall", "drip", "429", "5xx", "malformed", "invalid-utf8",
                                  "huge-line", "endless", "redirect"})
            QTest::newRow(
                qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(provider), QLatin1String(fault))))
                << QString::fromLatin1(provider) << QString::fromLatin1(fault);
    }
}

void TestNetworkFaults::faults()
{
    QFETCH(QString, provider);
    QFETCH(QString, fault);
    FakeProviderServer server;
    FakeProviderServer elsewhere; // another origin (another port), for the redirect
    const Family family = familyOf(provider);
    ClientConfig config = configFor(provider, server.baseUrl().toString());

    const QByteArray body = readFixture(family.fixture);
    auto protocol = createProviderProtocol(config);
    QVERIFY2(protocol, qPrintable(protocol.error()));
    const Decoded clean = decodeBody(**protocol, body, Split::Whole);
    QVERIFY(clean.ok());
    QVERIFY(!clean.streamedText.isEmpty());

    FakeProviderServer::Response response = good(family);
    QString expectedError;      // part of the final error; empty when the turn must succeed
    int expectedRetries = 0;    // Retry events, each with its reason
    bool expectPartial = false; // the failed turn showed text before the fault
    if (fault == QLatin1String("reset")) {
        // Reset mid-stream on every attempt: retried once with the reason, then a clear network error.
        response.resetAfterBytes = body.size() / 2;
        server.enqueue(response);
        server.enqueue(response);
        expectedError = QStringLiteral("network error");
        expectedRetries = 1;
    } else if (fault == QLatin1String("cut")) {
        // The body ends cleanly (its last HTTP chunk arrives) right after the first text, before the finish
        // marker, on every attempt: retried once with the reason, then the truncation is the error.
        if (family.eventStream) {
            response.body =
                bedrockFrame("messageStart", R"({"role":"assistant"})") +
                bedrockFrame("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"Partial "}})");
            expectedError = QStringLiteral("before messageStop (truncated)");
        } else {
            response.body = splitAtFirstTextEvent(**protocol, body).first;
            QVERIFY(!response.body.isEmpty());
            if (provider == QLatin1String("anthropic"))
                expectedError = QStringLiteral("before message_stop (truncated)");
            else if (provider == QLatin1String("googleai"))
                expectedError = QStringLiteral("without a finish reason (truncated)");
            else
                expectedError = QStringLiteral("stream ended before the response was complete");
        }
        server.enqueue(response);
        server.enqueue(response);
        expectedRetries = 1;
        expectPartial = true;
    } else if (fault == QLatin1String("stall")) {
        // A stall is retried once however many attempts are allowed: each one costs the whole inactivity
        // timeout (5 minutes by default), and six of them kept a person waiting half an hour.
        config.maxAttempts = 6;
        response.stallAfterBytes = body.size() * 3 / 4;
        server.enqueue(response);
        server.enqueue(response);
        expectedError = QStringLiteral("sent nothing for %1 ms").arg(kInactivityMs);
        expectedRetries = 1;
        expectPartial = true;
    } else if (fault == QLatin1String("drip")) {
        // The reply's last eight bytes one at a time, 100 ms apart: the drip lasts three times the inactivity
        // timeout, and every byte restarts it.
        const qsizetype head = body.size() - 8;
        response.split = FakeProviderServer::SplitMode::chunkSizes({head, 1, 1, 1, 1, 1, 1, 1, 1});
        response.delayMs = 100;
        server.enqueue(response);
    } else if (fault == QLatin1String("429")) {
        server.enqueue(status(429, {{"Retry-After", "1"}}));
        server.enqueue(good(family));
        expectedRetries = 1;
    } else if (fault == QLatin1String("5xx")) {
        // 500, 502, 503 and 529 in turn: each is retried with its reason, the last attempt works.
        config.maxAttempts = 5;
        for (int code : {500, 502, 503, 529})
            server.enqueue(status(code, {{"retry-after-ms", "1"}}));
        server.enqueue(good(family));
        expectedRetries = 4;
    } else if (fault == QLatin1String("malformed")) {
        QByteArray damaged = body;
        if (family.eventStream) {
            const qsizetype at = damaged.size() * 3 / 4;
            damaged[at] = char(damaged.at(at) ^ 0x5a); // a CRC no longer matches
            expectedError = QStringLiteral("checksum mismatch");
        } else {
            damaged.insert(damaged.lastIndexOf("data:"), "data: {\"broken\n\n"); // before the last event
            expectedError = QStringLiteral("malformed");
        }
        response.body = damaged;
        server.enqueue(response);
        expectPartial = true;
    } else if (fault == QLatin1String("invalid-utf8") && family.eventStream) {
        // Valid frames (the CRC covers the bytes as sent) whose JSON holds invalid UTF-8.
        response.body =
            bedrockFrame("messageStart", R"({"role":"assistant"})") +
            bedrockFrame("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"Partial "}})") +
            bedrockFrame("contentBlockDelta",
                         "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"H\xff\xfei\"}}") +
            bedrockFrame("contentBlockStop", R"({"contentBlockIndex":0})") +
            bedrockFrame("messageStop", R"({"stopReason":"end_turn"})");
        server.enqueue(response);
        expectedError = QStringLiteral("malformed contentBlockDelta event"); // a clear error, no crash
        expectPartial = true;
    } else if (fault == QLatin1String("invalid-utf8")) {
        // Two invalid bytes inside the first streamed text: decoded as U+FFFD, the turn works.
        const qsizetype at = insideFirstText(body, clean.events);
        QVERIFY(at >= 0);
        response.body = body;
        response.body.insert(at, "\xff\xfe");
        server.enqueue(response);
    } else if (fault == QLatin1String("huge-line")) {
        // One line (or frame) of 17 MiB: refused at the 16 MiB cap, not buffered whole.
        if (family.eventStream)
            response.body = bedrockFrame("contentBlockDelta", QByteArray(17 * 1024 * 1024, 'a'));
        else
            response.body = "data: " + QByteArray(17 * 1024 * 1024, 'a');
        response.split = FakeProviderServer::SplitMode::chunkSizes({1024 * 1024});
        response.delayMs = 0;
        config.maxResponseBytes = 64 * 1024 * 1024;
        // Not a stall test: on a loaded machine handling a 1 MiB read can take longer than the 250 ms
        // inactivity timeout used elsewhere, which then fired as a (retried) stall.
        config.inactivityTimeoutMs = 10000;
        server.enqueue(response);
        expectedError =
            family.eventStream ? QStringLiteral("exceeds the limit") : QStringLiteral("longer than");
    } else if (fault == QLatin1String("endless")) {
        // The reply starts well and then streams text forever: stopped at the response size cap (256 KiB
        // here, 256 MiB by default), not retried, with what was shown kept.
        config.maxResponseBytes = 256 * 1024;
        // Not a stall test either: under ASan the server's 16 KiB pieces came more than 250 ms apart once
        // (googleai), which the short inactivity timeout of the other rows took for a stall and retried.
        config.inactivityTimeoutMs = 10000;
        QByteArray textEvent;
        if (family.eventStream) {
            response.body = bedrockFrame("messageStart", R"({"role":"assistant"})");
            textEvent =
                bedrockFrame("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"and on "}})");
        } else {
            const auto [head, event] = splitAtFirstTextEvent(**protocol, body);
            QVERIFY(!event.isEmpty());
            response.body = head;
            textEvent = event;
        }
        response.endlessPiece = textEvent.repeated(16 * 1024 / textEvent.size() + 1); // 16 KiB pieces
        response.split = FakeProviderServer::SplitMode::allAtOnce();
        response.delayMs = 1;
        server.enqueue(response);
        expectedError = QStringLiteral("exceeded 256 KiB");
        expectPartial = true;
    } else if (fault == QLatin1String("redirect")) {
        const QByteArray target = elsewhere.baseUrl().toString().toUtf8() + "/collect";
        server.enqueue(FakeProviderServer::jsonResponse(302, "{}", {{"Location", target}}));
        elsewhere.enqueue(good(family));
        expectedError = QStringLiteral("redirect");
    }

    std::unique_ptr<AgentSession> session = newSession(config);
    const Turn turn = runTurn(*session, QStringLiteral("Hello?"));
    QVERIFY2(turn.finished, "the turn did not end");
    const QList<StreamEvent> retries = turn.retries();
    QStringList retryReasons;
    for (const StreamEvent &retry : retries)
        retryReasons.append(retry.error);
    QVERIFY2(retries.size() == expectedRetries,
             qPrintable(QStringLiteral("%1 retries, expected %2: %3")
                            .arg(retries.size())
                            .arg(expectedRetries)
                            .arg(retryReasons.join(QStringLiteral(" | ")))));
    for (const StreamEvent &retry : retries)
        QVERIFY2(!retry.error.isEmpty(), "a retry says why");
    if (expectedError.isEmpty()) {
        QVERIFY2(turn.outcome == AgentSession::TurnOutcome::Done, qPrintable(turn.error));
        QCOMPARE(turn.shownText().isEmpty(), false);
    } else {
        QCOMPARE(turn.outcome, AgentSession::TurnOutcome::Error);
        QVERIFY2(turn.error.contains(expectedError), qPrintable(turn.error));
        QVERIFY2(!turn.error.contains(secretOf(provider)), qPrintable(turn.error));
    }
    for (const StreamEvent &retry : retries)
        QVERIFY2(!retry.error.contains(secretOf(provider)), qPrintable(retry.error));
    if (isCodex(provider)) {
        // The fake sign-in was what went out, as a Codex request: nothing real was read.
        const QList<FakeProviderServer::Request> requests = server.requests();
        QVERIFY(!requests.isEmpty());
        const FakeProviderServer::Request &first = requests.constFirst();
        QCOMPARE(first.path, QByteArray("/backend-api/codex/responses"));
        QCOMPARE(first.header("authorization"), "Bearer " + QByteArray(kCodexToken));
        QCOMPARE(first.header("chatgpt-account-id"), QByteArray("fake-account"));
    }
    if (expectPartial)
        QVERIFY2(!turn.shownText().isEmpty(), "the fault came after some text was shown");

    if (fault == QLatin1String("drip")) {
        QVERIFY2(turn.elapsedMs >= 3 * kInactivityMs, qPrintable(QString::number(turn.elapsedMs)));
        QCOMPARE(turn.shownText(), clean.streamedText);
    } else if (fault == QLatin1String("cut") || fault == QLatin1String("reset")) {
        QVERIFY2(retries.first().error.contains(expectedError), qPrintable(retries.first().error));
    } else if (fault == QLatin1String("429")) {
        QCOMPARE(retries.first().retryDelayMs, 1000); // the server's wait, on the event the UI shows
        QVERIFY2(turn.elapsedMs >= 1000, qPrintable(QString::number(turn.elapsedMs)));
    } else if (fault == QLatin1String("5xx")) {
        QVERIFY2(retries.at(0).error.contains(QLatin1String("500")) ||
                     retries.at(0).error.contains(QLatin1String("busy")),
                 qPrintable(retries.at(0).error));
    } else if (fault == QLatin1String("invalid-utf8") && !family.eventStream) {
        QVERIFY2(turn.shownText().contains(QChar::ReplacementCharacter) ||
                     turn.shownText() == clean.streamedText,
                 qPrintable(turn.shownText()));
    } else if (fault == QLatin1String("redirect")) {
        QVERIFY2(turn.error.contains(QStringLiteral(":%1").arg(elsewhere.port())), qPrintable(turn.error));
        QCOMPARE(elsewhere.requests().size(), 0); // the key never went there
    }
    QCOMPARE(server.pendingResponses(), qsizetype(0)); // every attempt was made, none more

    // The transcript loads whole and keeps the reply as shown; a failed turn carries its error.
    const QString id = session->sessionId();
    SessionStore store(m_env->path(QStringLiteral("sessions")));
    {
        const Result<LoadedSession> loaded = store.load(id);
        QVERIFY2(loaded, qPrintable(loaded.error()));
        QCOMPARE(loaded->skippedLines, 0);
        const SessionEvent &last = loaded->events.constLast();
        QCOMPARE(last.kind, SessionEvent::Kind::AssistantTurn);
        QCOMPARE(last.assistantMessage(), turn.shownText());
        QCOMPARE(last.error(), turn.error);
    }
    // Nothing saved for the session holds the key or the sign-in's token.
    QDirIterator saved(m_env->path(QStringLiteral("sessions")), QDir::Files, QDirIterator::Subdirectories);
    int savedFiles = 0;
    while (saved.hasNext()) {
        QFile file(saved.next());
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        QVERIFY2(!file.readAll().contains(secretOf(provider).toUtf8()), qPrintable(file.fileName()));
        ++savedFiles;
    }
    QVERIFY(savedFiles > 0); // the transcript at least

    // The same session's next turn works.
    server.closeAllConnections();
    server.enqueue(good(family));
    const Turn after = runTurn(*session, QStringLiteral("Again?"));
    QVERIFY(after.finished);
    QVERIFY2(after.outcome == AgentSession::TurnOutcome::Done, qPrintable(after.error));
    QCOMPARE(after.shownText(), clean.streamedText);
    session.reset();

    // And the session reopens from disk with both turns, the failed one's partial reply included.
    std::unique_ptr<AgentSession> reopened = newSession(config);
    const Result<void> opened = reopened->openSession(id);
    QVERIFY2(opened, qPrintable(opened.error()));
    const MessageList history = reopened->messages();
    QVERIFY2(history.size() >= 3, qPrintable(QString::number(history.size())));
    QCOMPARE(history.first(), Message::user(QStringLiteral("Hello?")));
    QCOMPARE(history.last().content, clean.streamedText);
    if (!turn.shownText().isEmpty())
        QCOMPARE(history.at(1).content, turn.shownText());
}

void TestNetworkFaults::refusedLocalConnectionFailsFastWithAHint()
{
    // A port taken and released, so nothing listens there.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();
    ClientConfig config =
        configFor(QStringLiteral("openai-compatible"), QStringLiteral("http://127.0.0.1:%1").arg(port));
    config.maxAttempts = 6;
    config.retryBaseDelayMs = 1000;
    std::unique_ptr<AgentSession> session = newSession(config);
    const Turn turn = runTurn(*session, QStringLiteral("Hello?"));
    QVERIFY(turn.finished);
    QCOMPARE(turn.retries().size(), 0); // no six silent retries (the first would wait a second)
    QVERIFY2(turn.error.contains(QStringLiteral("connection refused at http://127.0.0.1:%1").arg(port)),
             qPrintable(turn.error));
    QVERIFY2(turn.error.contains(QStringLiteral("is the local server running")), qPrintable(turn.error));

    // On Ollama's own port the hint names it.
    QTcpServer ollama;
    if (ollama.listen(QHostAddress::LocalHost, 11434)) {
        ollama.close();
        session->setClientConfig(
            configFor(QStringLiteral("openai-compatible"), QStringLiteral("http://localhost:11434")));
        const Turn refused = runTurn(*session, QStringLiteral("Hello?"));
        QVERIFY(refused.finished);
        QVERIFY2(refused.error.contains(QStringLiteral("is Ollama running?")), qPrintable(refused.error));
    }
}

// Found trying it headless: https to a plain-http port was retried five times over 15 s. A TLS handshake that
// fails (and a host name that does not resolve) does not get better: one attempt, and a hint.
void TestNetworkFaults::httpsToAPlainHttpServerFailsFastWithAHint()
{
    QTcpServer plain; // answers whatever arrives as a plain HTTP server would: 400, then closes
    QVERIFY(plain.listen(QHostAddress::LocalHost));
    int connections = 0;
    connect(&plain, &QTcpServer::newConnection, &plain, [&] {
        while (QTcpSocket *socket = plain.nextPendingConnection()) {
            ++connections;
            socket->write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            socket->disconnectFromHost();
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
    ClientConfig config = configFor(QStringLiteral("openai-compatible"),
                                    QStringLiteral("https://127.0.0.1:%1/v1").arg(plain.serverPort()));
    config.maxAttempts = 6;
    config.retryBaseDelayMs = 1000;
    std::unique_ptr<AgentSession> session = newSession(config);
    const Turn turn = runTurn(*session, QStringLiteral("Hello?"));
    QVERIFY(turn.finished);
    QCOMPARE(turn.retries().size(), 0);
    QCOMPARE(connections, 1);
    QVERIFY2(turn.error.contains(QStringLiteral("may speak plain http: check base_url")),
             qPrintable(turn.error));
}

void TestNetworkFaults::turnsReuseTheProvidersConnection_data()
{
    QTest::addColumn<QString>("provider");
    for (const char *provider : kProviders)
        QTest::newRow(provider) << QString::fromLatin1(provider);
}

// A person's turns go over the provider's open connection (no new TCP and TLS handshake per message: the
// turns run on the session's one worker thread, whose HttpStreamer keeps its connections), and a connection
// the provider closed while idle is replaced without an error or a retry.
void TestNetworkFaults::turnsReuseTheProvidersConnection()
{
    QFETCH(QString, provider);
    FakeProviderServer server;
    server.setKeepAlive(true);
    const Family family = familyOf(provider);
    std::unique_ptr<AgentSession> session = newSession(configFor(provider, server.baseUrl().toString()));
    for (int i = 0; i < 3; ++i) {
        server.enqueue(good(family));
        const Turn turn = runTurn(*session, QStringLiteral("Turn %1").arg(i));
        QVERIFY(turn.finished);
        QVERIFY2(turn.outcome == AgentSession::TurnOutcome::Done, qPrintable(turn.error));
        QVERIFY(!turn.shownText().isEmpty());
    }
    QCOMPARE(server.requests().size(), 3);
    QCOMPARE(server.connectionCount(), 1);

    // The provider drops the idle connection (its keep-alive timeout ran out): the next turn opens another.
    server.closeAllConnections();
    QTest::qWait(200);
    server.enqueue(good(family));
    const Turn after = runTurn(*session, QStringLiteral("After the close"));
    QVERIFY(after.finished);
    QVERIFY2(after.outcome == AgentSession::TurnOutcome::Done, qPrintable(after.error));
    QCOMPARE(after.retries().size(), 0);
    QCOMPARE(server.requests().size(), 4);
    QCOMPARE(server.connectionCount(), 2);
}

void TestNetworkFaults::aReplyThatIsNotAStreamIsSaidAtOnce_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("said");    // in the error
    QTest::addColumn<QStringList>("notSaid"); // markup a person should not have to read
    const QByteArray page =
        "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title><style>body { width: 35em; "
        "}</style></head>\n<body><h1>Welcome to nginx!</h1><p>If you see this page, the web "
        "server is working.</p></body></html>\n";
    for (const char *provider : kProviders) {
        QTest::newRow(qPrintable(QStringLiteral("%1 web page").arg(QLatin1String(provider))))
            << QString::fromLatin1(provider) << QByteArray("text/html; charset=utf-8") << page
            << QStringList{QStringLiteral(
                               "answered with text/html (“Welcome to nginx! If you see this page, the "
                               "web server is working.”) instead of a stream of events"),
                           QStringLiteral("base_url")}
            << QStringList{QStringLiteral("<h1>"), QStringLiteral("35em"), QStringLiteral("Retr")};
        QTest::newRow(qPrintable(QStringLiteral("%1 plain text").arg(QLatin1String(provider))))
            << QString::fromLatin1(provider) << QByteArray("text/plain") << QByteArray("404 page not found\n")
            << QStringList{QStringLiteral("answered with text/plain (“404 page not found”) instead of a "
                                          "stream of events"),
                           QStringLiteral("404 page not found"), QStringLiteral("base_url")}
            << QStringList{QStringLiteral("ended before")};
        QTest::newRow(qPrintable(QStringLiteral("%1 json error").arg(QLatin1String(provider))))
            << QString::fromLatin1(provider) << QByteArray("application/json")
            << QByteArray(
                   R"({"error":{"message":"model 'test-model' not found","type":"invalid_request_error"}})")
            << QStringList{QStringLiteral("model 'test-model' not found")}
            << QStringList{QStringLiteral("ended before"), QStringLiteral("{\"error\"")};
    }
}

// Found trying a wrong base_url and a server that ignores "stream": true (2026-12-07): a web page, a line of
// text or a JSON error answered with 200 was fed to the stream decoder, which found no events in it, so the
// person waited through five retries (15 s) for "stream ended before the response was complete". Each is
// said at once now, with what came, and the next turn works.
void TestNetworkFaults::aReplyThatIsNotAStreamIsSaidAtOnce()
{
    QFETCH(QString, provider);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(QStringList, said);
    QFETCH(QStringList, notSaid);
    FakeProviderServer server;
    ClientConfig config = configFor(provider, server.baseUrl().toString());
    config.maxAttempts = 6;
    std::unique_ptr<AgentSession> session = newSession(config);
    FakeProviderServer::Response reply;
    reply.contentType = contentType;
    reply.body = body;
    reply.split = FakeProviderServer::SplitMode::randomSplits(3, 16);
    server.enqueue(reply);
    const Turn turn = runTurn(*session, QStringLiteral("Hello?"));
    QVERIFY(turn.finished);
    QCOMPARE(turn.outcome, AgentSession::TurnOutcome::Error);
    QCOMPARE(turn.retries().size(), 0);
    QCOMPARE(server.requests().size(), 1);
    for (const QString &words : said)
        QVERIFY2(turn.error.contains(words), qPrintable(turn.error));
    for (const QString &words : notSaid)
        QVERIFY2(!turn.error.contains(words), qPrintable(turn.error));
    QVERIFY(!turn.error.contains(secretOf(provider)));

    server.enqueue(good(familyOf(provider)));
    const Turn next = runTurn(*session, QStringLiteral("And now?"));
    QVERIFY(next.finished);
    QVERIFY2(next.outcome == AgentSession::TurnOutcome::Done, qPrintable(next.error));
    QVERIFY(!next.shownText().isEmpty());
}

// A server that ignores "stream": true (some proxies and small OpenAI-compatible servers) answers with the
// whole chat.completion: it is read as the response it is, tool calls included; a stream labelled as JSON
// is still streamed.
void TestNetworkFaults::aServerThatDoesNotStreamIsReadWhole()
{
    FakeProviderServer server;
    std::unique_ptr<AgentSession> session =
        newSession(configFor(QStringLiteral("openai-compatible"), server.baseUrl().toString()));
    QFile notes(QDir(m_workspace->path()).filePath(QStringLiteral("notes.txt")));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("The build needs Qt 6.4.\n");
    notes.close();

    auto completion = [](const QJsonObject &message, const QString &finishReason) {
        const QJsonObject object{
            {QStringLiteral("id"), QStringLiteral("chatcmpl-1")},
            {QStringLiteral("object"), QStringLiteral("chat.completion")},
            {QStringLiteral("model"), QStringLiteral("test-model")},
            {QStringLiteral("choices"),
             QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                    {QStringLiteral("message"), message},
                                    {QStringLiteral("finish_reason"), finishReason}}}},
            {QStringLiteral("usage"), QJsonObject{{QStringLiteral("prompt_tokens"), 1200},
                                                  {QStringLiteral("completion_tokens"), 34},
                                                  {QStringLiteral("total_tokens"), 1234}}}};
        FakeProviderServer::Response reply =
            FakeProviderServer::jsonResponse(200, QJsonDocument(object).toJson(QJsonDocument::Compact));
        reply.split = FakeProviderServer::SplitMode::randomSplits(9, 32);
        return reply;
    };
    const QJsonObject call{
        {QStringLiteral("id"), QStringLiteral("call_notes")},
        {QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("read_file")},
                     {QStringLiteral("arguments"), QStringLiteral(R"({"path":"notes.txt"})")}}}};
    server.enqueue(completion(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                          {QStringLiteral("content"), QJsonValue::Null},
                                          {QStringLiteral("tool_calls"), QJsonArray{call}}},
                              QStringLiteral("tool_calls")));
    server.enqueue(
        completion(QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                               {QStringLiteral("content"), QStringLiteral("The build needs Qt 6.4.")}},
                   QStringLiteral("stop")));
    const Turn turn = runTurn(*session, QStringLiteral("What does the build need?"));
    QVERIFY(turn.finished);
    QVERIFY2(turn.outcome == AgentSession::TurnOutcome::Done, qPrintable(turn.error));
    QCOMPARE(turn.shownText(), QStringLiteral("The build needs Qt 6.4."));
    QCOMPARE(turn.retries().size(), 0);
    QCOMPARE(server.requests().size(), 2);
    // The tool ran, and its result went back as the answer to that call.
    const QJsonArray messages = server.requests().at(1).json[QStringLiteral("messages")].toArray();
    const QJsonObject toolResult = messages.last().toObject();
    QCOMPARE(toolResult[QStringLiteral("role")].toString(), QStringLiteral("tool"));
    QCOMPARE(toolResult[QStringLiteral("tool_call_id")].toString(), QStringLiteral("call_notes"));
    QVERIFY2(toolResult[QStringLiteral("content")].toString().contains(QStringLiteral("Qt 6.4")),
             qPrintable(toolResult[QStringLiteral("content")].toString()));
    QCOMPARE(session->totalOutputTokens(), 68); // both requests' usage counted

    // A stream that says it is JSON is still read as the stream it is.
    FakeProviderServer::Response mislabelled = good(familyOf(QStringLiteral("openai-compatible")));
    mislabelled.contentType = "application/json";
    server.enqueue(mislabelled);
    const Turn streamed = runTurn(*session, QStringLiteral("Again?"));
    QVERIFY(streamed.finished);
    QVERIFY2(streamed.outcome == AgentSession::TurnOutcome::Done, qPrintable(streamed.error));
    QVERIFY(streamed.shownText().startsWith(QStringLiteral("I'm unable")));
}

void TestNetworkFaults::anAddressWhereNothingAnswersIsNamed_data()
{
    QTest::addColumn<QString>("provider");
    for (const char *provider : kProviders)
        QTest::newRow(provider) << QString::fromLatin1(provider);
}

// Found trying an Ollama base URL without its /v1 (2026-12-07): "the request was rejected (HTTP 404): 404
// page not found" did not say which address was missing. A 404 that is not the API's own error names the
// address asked and points at base_url; a real API's JSON 404 (a model it does not have) is said as before.
void TestNetworkFaults::anAddressWhereNothingAnswersIsNamed()
{
    QFETCH(QString, provider);
    FakeProviderServer server;
    std::unique_ptr<AgentSession> session = newSession(configFor(provider, server.baseUrl().toString()));
    FakeProviderServer::Response missing;
    missing.status = 404;
    missing.contentType = "text/plain";
    missing.body = "404 page not found";
    server.enqueue(missing);
    const Turn turn = runTurn(*session, QStringLiteral("Hello?"));
    QVERIFY(turn.finished);
    QCOMPARE(turn.outcome, AgentSession::TurnOutcome::Error);
    QCOMPARE(turn.retries().size(), 0);
    const QString asked = server.baseUrl().toString() + QString::fromUtf8(server.lastRequest().path);
    QVERIFY2(turn.error.contains(
                 QStringLiteral("404 page not found. Nothing answers at %1: check base_url").arg(asked)),
             qPrintable(turn.error));
    QVERIFY(!turn.error.contains(secretOf(provider)));

    server.enqueue(FakeProviderServer::jsonResponse(
        404,
        R"({"error":{"message":"The model test-model does not exist","type":"invalid_request_error"}})"));
    const Turn model = runTurn(*session, QStringLiteral("Again?"));
    QVERIFY(model.finished);
    QCOMPARE(model.outcome, AgentSession::TurnOutcome::Error);
    QVERIFY2(!model.error.contains(QStringLiteral("Nothing answers")), qPrintable(model.error));
}

void TestNetworkFaults::aReplyTheProviderStoppedSaysWhy_data()
{
    QTest::addColumn<QString>("provider");
    QTest::addColumn<QByteArray>("from"); // the fixture's ordinary stop reason, as it is written there
    QTest::addColumn<QByteArray>("to");   // the one the provider sent instead
    QTest::addColumn<QString>("notice");
    const QString blocked =
        QStringLiteral("the provider stopped the reply (%1): its safety or content filter "
                       "blocked it, so the answer is cut short or missing");
    QTest::newRow("openai-compatible content_filter")
        << QStringLiteral("openai-compatible") << QByteArray(R"("finish_reason":"stop")")
        << QByteArray(R"("finish_reason":"content_filter")") << blocked.arg(QStringLiteral("content_filter"));
    QTest::newRow("anthropic refusal")
        << QStringLiteral("anthropic") << QByteArray(R"("stop_reason":"end_turn")")
        << QByteArray(R"("stop_reason":"refusal")") << blocked.arg(QStringLiteral("refusal"));
    QTest::newRow("anthropic model_context_window_exceeded")
        << QStringLiteral("anthropic") << QByteArray(R"("stop_reason":"end_turn")")
        << QByteArray(R"("stop_reason":"model_context_window_exceeded")")
        << QStringLiteral("the reply stopped because the conversation filled the model's context window "
                          "(model_context_window_exceeded): compact it, then ask the model to go on");
    QTest::newRow("googleai SAFETY") << QStringLiteral("googleai") << QByteArray(R"("finishReason": "STOP")")
                                     << QByteArray(R"("finishReason": "SAFETY")")
                                     << blocked.arg(QStringLiteral("SAFETY"));
    QTest::newRow("googleai MALFORMED_FUNCTION_CALL")
        << QStringLiteral("googleai") << QByteArray(R"("finishReason": "STOP")")
        << QByteArray(R"("finishReason": "MALFORMED_FUNCTION_CALL")")
        << QStringLiteral(
               "the model wrote a tool call the provider could not read (MALFORMED_FUNCTION_CALL), so "
               "nothing ran: ask again");
    QTest::newRow("amazon-bedrock guardrail_intervened")
        << QStringLiteral("amazon-bedrock") << QByteArray(R"("stopReason":"end_turn")")
        << QByteArray(R"("stopReason":"guardrail_intervened")")
        << blocked.arg(QStringLiteral("guardrail_intervened"));
}

// Found reading the providers' stop reasons (2026-12-07): a reply their safety filter stopped, or a Gemini
// turn that ended on a tool call it could not parse, ended as an ordinary "done", often with no text at all,
// and nothing said why. It says so now, as the output limit does.
void TestNetworkFaults::aReplyTheProviderStoppedSaysWhy()
{
    QFETCH(QString, provider);
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(QString, notice);
    const Family family = familyOf(provider);
    QByteArray body = readFixture(family.fixture);
    if (family.eventStream) {
        // Each frame carries its own length and checksums: decoded, changed and encoded again.
        EventStreamDecoder decoder;
        QByteArray reencoded;
        for (EventStreamDecoder::Message message : decoder.feed(body)) {
            message.payload.replace(from, to);
            reencoded += EventStreamDecoder::encode(message);
        }
        QVERIFY(reencoded.contains(to));
        body = reencoded;
    } else {
        QCOMPARE(body.count(from), 1);
        body.replace(from, to);
    }
    FakeProviderServer server;
    FakeProviderServer::Response reply = good(family);
    reply.body = body;
    server.enqueue(reply);
    std::unique_ptr<AgentSession> session = newSession(configFor(provider, server.baseUrl().toString()));
    const Turn turn = runTurn(*session, QStringLiteral("Hello?"));
    QVERIFY(turn.finished);
    QVERIFY2(turn.outcome == AgentSession::TurnOutcome::Done, qPrintable(turn.error));
    QStringList notices;
    for (const StreamEvent &event : turn.events) {
        if (event.type == StreamEvent::Type::Notice)
            notices.append(event.content);
    }
    QCOMPARE(notices, QStringList{notice});

    // Saved where it was said, after the reply's text, so a reopened session says it too; it is not part
    // of the assistant's message, which is what the model is sent again.
    {
        const Result<LoadedSession> loaded =
            SessionStore(m_env->path(QStringLiteral("sessions"))).load(session->sessionId());
        QVERIFY2(loaded, qPrintable(loaded.error()));
        const SessionEvent &last = loaded->events.constLast();
        QCOMPARE(last.kind, SessionEvent::Kind::AssistantTurn);
        QVERIFY(!last.transcript().isEmpty());
        QCOMPARE(last.transcript().constLast().kind, TranscriptItem::Kind::Notice);
        QCOMPARE(last.transcript().constLast().content, notice);
        QVERIFY(!last.assistantMessage().contains(notice));
    }

    // An ordinary end says nothing of the kind.
    server.enqueue(good(family));
    const Turn ordinary = runTurn(*session, QStringLiteral("Again?"));
    QVERIFY(ordinary.finished);
    for (const StreamEvent &event : ordinary.events)
        QVERIFY2(event.type != StreamEvent::Type::Notice, qPrintable(event.content));
}

QTEST_GUILESS_MAIN(TestNetworkFaults)
#include "tst_networkfaults.moc"
