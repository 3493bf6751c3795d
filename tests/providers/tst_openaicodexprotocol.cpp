// OpenAiCodexProtocol (reference 1.4): the Responses shape at the ChatGPT Codex backend with instructions,
// the Codex headers, HTTP/1.1, the sign-in loaded and refreshed in prepare(), text de-duplicated across the
// delta/done/item events, and the Codex error format.

#include "auth/codexoauth.h"
#include "memorycredentialstorage.h"
#include "openaitestsupport.h"
#include "providers/openai/openaicodexprotocol.h"

#include <QJsonArray>
#include <QTest>

using namespace keen;
using namespace keen::test::openai;

namespace {

CodexCredentials validCredentials(qint64 secondsLeft = 3600)
{
    CodexCredentials credentials;
    credentials.accessToken = QStringLiteral("chatgpt-access");
    credentials.refreshToken = QStringLiteral("chatgpt-refresh");
    credentials.expiresAt = QDateTime::currentDateTimeUtc().addSecs(secondsLeft);
    credentials.accountId = QStringLiteral("acct-42");
    return credentials;
}

ClientConfig config()
{
    ClientConfig config;
    config.providerId = QStringLiteral("openai-codex");
    config.model = QStringLiteral("gpt-5-codex");
    return config;
}

QByteArray sseEvent(const QByteArray &json)
{
    const QByteArray type =
        QJsonDocument::fromJson(json).object().value(QStringLiteral("type")).toString().toUtf8();
    return "event: " + type + "\ndata: " + json + "\n\n";
}

QByteArray header(const HttpRequestSpec &spec, const QByteArray &name)
{
    QByteArray value;
    int count = 0;
    for (const auto &[key, v] : spec.headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0) {
            value = v;
            ++count;
        }
    }
    return count > 1 ? QByteArray("<duplicate>") : value;
}

} // namespace

class TestOpenAiCodexProtocol final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requestShapeAndHeaders();
    void toNativeKeepsSystemApart();
    void notSignedIn();
    void refreshesTokenThatIsAboutToExpire();
    void refreshFailureFailsPrepare();
    void textIsNotRepeatedAcrossDoneEvents();
    void textOnlyInDoneEventsIsShownOnce();
    void callsFromOutputItemsWhenCompletedIsEmpty();
    void errorFormat();
};

void TestOpenAiCodexProtocol::requestShapeAndHeaders()
{
    auto storage = std::make_shared<keen::test::MemoryCredentialStorage>();
    storage->m_credentials = validCredentials();
    ClientConfig cfg = config();
    cfg.thinkingEffort = QStringLiteral("medium");
    cfg.headers = {
        {"OpenAI-Organization", "org-x"}, {"OpenAI-Project", "p"}, {"X-Extra", "1"}, {"originator", "spoof"}};
    OpenAiCodexProtocol protocol(cfg, storage);
    QVERIFY(protocol.prepare(CancellationToken()).ok());
    QCOMPARE(storage->m_saves, 0); // nothing to refresh

    const ToolRegistry tools = weatherAndStockTools();
    RequestContext context;
    context.options.sessionId = QStringLiteral("aaaa-bbbb-cccc");
    const HttpRequestSpec spec =
        protocol.buildRequest(protocol.toNative({Message::system(QStringLiteral("System one.")),
                                                 Message::user(QStringLiteral("Hi")),
                                                 Message::system(QStringLiteral("System two."))}),
                              tools.specs(), context);

    QCOMPARE(spec.url, QUrl(QStringLiteral("https://chatgpt.com/backend-api/codex/responses")));
    QVERIFY(spec.http1Only);
    QCOMPARE(header(spec, "Authorization"), QByteArray("Bearer chatgpt-access"));
    QCOMPARE(header(spec, "originator"), QByteArray("keen-desktop"));
    QCOMPARE(header(spec, "ChatGPT-Account-Id"), QByteArray("acct-42"));
    QVERIFY(header(spec, "User-Agent").startsWith("keen-desktop ("));
    QCOMPARE(header(spec, "User-Agent"), OpenAiCodexProtocol::userAgent().toUtf8());
    QCOMPARE(header(spec, "X-Extra"), QByteArray("1"));
    QCOMPARE(header(spec, "OpenAI-Organization"), QByteArray());
    QCOMPARE(header(spec, "OpenAI-Project"), QByteArray());

    const QJsonObject body = QJsonDocument::fromJson(spec.body).object();
    QCOMPARE(body[QStringLiteral("instructions")].toString(), QStringLiteral("System one.\n\nSystem two."));
    QCOMPARE(body[QStringLiteral("input")].toArray(),
             (QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                     {QStringLiteral("content"), QStringLiteral("Hi")}}}));
    QCOMPARE(body[QStringLiteral("store")], QJsonValue(false));
    QCOMPARE(body[QStringLiteral("stream")], QJsonValue(true));
    QCOMPARE(body[QStringLiteral("prompt_cache_key")].toString(), QStringLiteral("aaaabbbbcccc"));
    QCOMPARE(body[QStringLiteral("reasoning")][QStringLiteral("effort")].toString(),
             QStringLiteral("medium"));
    QCOMPARE(body[QStringLiteral("include")].toArray(),
             QJsonArray{QStringLiteral("reasoning.encrypted_content")});
    QCOMPARE(body[QStringLiteral("tools")].toArray().size(), 2);
    QCOMPARE(body[QStringLiteral("tools")][0][QStringLiteral("name")].toString(),
             QStringLiteral("GetWeatherArgs"));

    // A base URL override (tests, proxies) keeps the path; no account id, no header.
    storage->m_credentials->accountId.clear();
    cfg.baseUrl = QStringLiteral("http://127.0.0.1:8/codex/");
    OpenAiCodexProtocol local(cfg, storage);
    QVERIFY(local.prepare(CancellationToken()).ok());
    const HttpRequestSpec localSpec = local.buildRequest(local.toNative({}), {}, {});
    QCOMPARE(localSpec.url, QUrl(QStringLiteral("http://127.0.0.1:8/codex/responses")));
    QCOMPARE(header(localSpec, "ChatGPT-Account-Id"), QByteArray());
    QCOMPARE(QJsonDocument::fromJson(localSpec.body)[QStringLiteral("instructions")].toString(), QString());
}

void TestOpenAiCodexProtocol::toNativeKeepsSystemApart()
{
    const OpenAiCodexProtocol protocol(config(), nullptr);
    const NativeHistory native = protocol.toNative(conversationWithToolHistory());
    QCOMPARE(native.system.toString(), QStringLiteral("You are Keen."));
    QCOMPARE(native.messages.size(), 8); // the Responses items without the system one
    QCOMPARE(native.messages.at(0)[QStringLiteral("role")].toString(), QStringLiteral("user"));
    // Call ids keep the index in the full conversation.
    QCOMPARE(native.messages.at(2)[QStringLiteral("call_id")].toString(), QStringLiteral("historical_2_0"));
    QCOMPARE(native.messages.at(3)[QStringLiteral("type")].toString(),
             QStringLiteral("function_call_output"));
}

void TestOpenAiCodexProtocol::notSignedIn()
{
    const QString expected =
        QStringLiteral("not authenticated with OpenAI ChatGPT/Codex; sign in from the provider settings");
    OpenAiCodexProtocol withoutStorage(config(), nullptr);
    QCOMPARE(withoutStorage.prepare(CancellationToken()).error(), expected);
    OpenAiCodexProtocol empty(config(), std::make_shared<keen::test::MemoryCredentialStorage>());
    const Result<void> result = empty.prepare(CancellationToken());
    QVERIFY(!result.ok());
    QCOMPARE(result.error(), expected);
}

void TestOpenAiCodexProtocol::refreshesTokenThatIsAboutToExpire()
{
    TokenServer tokens;
    tokens.enqueue(200,
                   R"({"access_token":"fresh-access","refresh_token":"fresh-refresh","expires_in":7200})");
    auto storage = std::make_shared<keen::test::MemoryCredentialStorage>();
    storage->m_credentials = validCredentials(30); // less than a minute left
    OpenAiCodexProtocol protocol(config(), storage, tokens.url());
    const Result<void> prepared = protocol.prepare(CancellationToken());
    QVERIFY2(prepared.ok(), qPrintable(prepared.error()));
    QCOMPARE(tokens.requests().size(), 1);
    QCOMPARE(protocol.credentials().accessToken, QStringLiteral("fresh-access"));
    QCOMPARE(protocol.credentials().accountId, QStringLiteral("acct-42"));
    QCOMPARE(storage->m_saves, 1);
    QCOMPARE(storage->m_credentials->refreshToken, QStringLiteral("fresh-refresh"));
    QCOMPARE(header(protocol.buildRequest({}, {}, {}), "Authorization"), QByteArray("Bearer fresh-access"));

    // The next attempt finds a fresh token and does not refresh again.
    QVERIFY(protocol.prepare(CancellationToken()).ok());
    QCOMPARE(tokens.requests().size(), 1);
}

void TestOpenAiCodexProtocol::refreshFailureFailsPrepare()
{
    TokenServer tokens;
    tokens.enqueue(400, R"({"error":"invalid_grant","error_description":"Refresh token expired"})");
    auto storage = std::make_shared<keen::test::MemoryCredentialStorage>();
    storage->m_credentials = validCredentials(-100);
    OpenAiCodexProtocol protocol(config(), storage, tokens.url());
    const Result<void> prepared = protocol.prepare(CancellationToken());
    QVERIFY(!prepared.ok());
    QVERIFY2(prepared.error().contains(QStringLiteral("Refresh token expired")),
             qPrintable(prepared.error()));
    QVERIFY(!prepared.error().contains(QStringLiteral("chatgpt-refresh")));
    QCOMPARE(storage->m_saves, 0);
}

void TestOpenAiCodexProtocol::textIsNotRepeatedAcrossDoneEvents()
{
    const QByteArray sse =
        sseEvent(
            R"({"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"})")
        // The backend may skip deltas: the .done events carry the whole text.
        +
        sseEvent(
            R"({"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello"})") +
        sseEvent(
            R"({"type":"response.content_part.done","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hello"}})") +
        sseEvent(
            R"({"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello"}]}})") +
        sseEvent(
            R"({"type":"response.completed","response":{"status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello"}]}]}})");
    const OpenAiCodexProtocol protocol(config(), nullptr);
    for (const Split split : {Split::Whole, Split::Bytewise, Split::Random}) {
        const Decoded decoded = decode(protocol, sse, split, 11);
        QVERIFY(decoded.ok());
        QCOMPARE(decoded.streamedText, QStringLiteral("Hello"));
        QCOMPARE(decoded.events.size(), 2);
        QCOMPARE(decoded.events.at(1).content, QStringLiteral("lo"));
        QCOMPARE(decoded.turn().text, QStringLiteral("Hello"));
        QCOMPARE(decoded.turn().assistantNative.size(), 1);
    }
}

void TestOpenAiCodexProtocol::textOnlyInDoneEventsIsShownOnce()
{
    const QByteArray sse =
        sseEvent(
            R"({"type":"response.content_part.done","item_id":"msg_2","output_index":0,"content_index":0,"part":{"type":"output_text","text":"World"}})") +
        sseEvent(
            R"({"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_2","role":"assistant","content":[{"type":"output_text","text":"World"}]}})") +
        sseEvent(R"({"type":"response.completed","response":{"status":"completed","output":[]}})");
    const OpenAiCodexProtocol protocol(config(), nullptr);
    const Decoded decoded = decode(protocol, sse, Split::Bytewise);
    QVERIFY(decoded.ok());
    QCOMPARE(decoded.streamedText, QStringLiteral("World"));
    QCOMPARE(decoded.events.size(), 1);
    // Replayed from output_item.done although the completed output was empty.
    QCOMPARE(decoded.turn().assistantNative.size(), 1);
    QCOMPARE(decoded.turn().assistantNative.at(0)[QStringLiteral("id")].toString(), QStringLiteral("msg_2"));
}

void TestOpenAiCodexProtocol::callsFromOutputItemsWhenCompletedIsEmpty()
{
    const QByteArray call =
        R"({"type":"function_call","id":"fc_1","call_id":"call_1","name":"bash","arguments":"{\"command\":\"ls\"}"})";
    const QByteArray sse =
        sseEvent(R"({"type":"response.output_item.done","output_index":0,"item":)" + call + "}") +
        sseEvent(R"({"type":"response.output_item.done","output_index":0,"item":)" + call + "}") +
        sseEvent(
            R"({"type":"response.completed","response":{"status":"completed","output":[],"usage":{"input_tokens":10,"output_tokens":3,"total_tokens":13,"input_tokens_details":{"cached_tokens":4}}}})");
    const OpenAiCodexProtocol protocol(config(), nullptr);
    const Decoded decoded = decode(protocol, sse, Split::Random, 4);
    QVERIFY(decoded.ok());
    QCOMPARE(decoded.turn().toolCalls.size(), 1);
    QCOMPARE(decoded.turn().toolCalls.at(0).id, QStringLiteral("call_1"));
    QCOMPARE(decoded.turn().toolCalls.at(0).input,
             (QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}}));
    QCOMPARE(decoded.turn().usage->cachedTokens, 4);
}

void TestOpenAiCodexProtocol::errorFormat()
{
    const OpenAiCodexProtocol protocol(config(), nullptr);
    const ProviderError auth = protocol.classifyHttpError(401, R"({"detail":"Unauthorized"})", {});
    QCOMPARE(auth.kind, ProviderError::Kind::Authentication);
    QVERIFY2(auth.message.startsWith(QStringLiteral("OpenAI Codex API error: HTTP 401: Unauthorized")),
             qPrintable(auth.message));
    QVERIFY(auth.message.contains(QStringLiteral("sign in again")));

    const ProviderError invalid = protocol.classifyHttpError(
        400,
        R"({"error":{"message":"Unsupported model","type":"invalid_request_error","code":"model_not_supported","param":"model"}})",
        {});
    QCOMPARE(invalid.kind, ProviderError::Kind::InvalidRequest);
    QCOMPARE(
        invalid.message,
        QStringLiteral(
            "OpenAI Codex API error: HTTP 400: Unsupported model: code=model_not_supported: param=model"));

    const ProviderError plain = protocol.classifyHttpError(502, "Bad gateway", {});
    QCOMPARE(plain.kind, ProviderError::Kind::Overloaded);
    QCOMPARE(plain.message, QStringLiteral("OpenAI Codex API error: HTTP 502: Bad gateway"));

    const ProviderError limited = protocol.classifyHttpError(
        429, R"({"error":{"message":"You have hit your usage limit","type":"usage_limit_reached"}})",
        {{"Retry-After", "60"}});
    QCOMPARE(limited.kind, ProviderError::Kind::RateLimit);
    QCOMPARE(limited.retryAfterMs, 60000);
}

QTEST_GUILESS_MAIN(TestOpenAiCodexProtocol)
#include "tst_openaicodexprotocol.moc"
