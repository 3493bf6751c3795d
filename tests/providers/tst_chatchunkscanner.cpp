// ChatChunkScanner reads the common Chat Completions chunk without a JSON document. What it accepts must read
// exactly as the full parse reads it (the decoder's own rules, restated below as the reference); what it does
// not take goes to the full parse. Real streams from the SDK fixtures take the fast path for their text.
#include "chatchunkreference.h"
#include "providers/openai/chatchunkscanner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace keen {

namespace {

// When the scanner takes the bytes, they read as the full parse reads them.
void expectSameAsFullParse(const QByteArray &json)
{
    if (const std::optional<ChatChunkScanner::Chunk> scanned = ChatChunkScanner::scan(json)) {
        const QString mismatch = test::chatChunkMismatch(json, *scanned);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch + QStringLiteral(" in ") + QString::fromUtf8(json)));
    }
}

} // namespace

class TestChatChunkScanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsWhatTheFullParseReads_data();
    void readsWhatTheFullParseReads();
    void leavesTheRestToTheFullParse_data();
    void leavesTheRestToTheFullParse();
    void realStreamsTakeTheFastPathForTheirText();
    void truncationsAndSingleByteChangesNeverReadDifferently();
};

void TestChatChunkScanner::readsWhatTheFullParseReads_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("reasoning");
    QTest::addColumn<QString>("finish");

    QTest::newRow("openai text chunk")
        << QByteArray(R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1712345678,)"
                      R"("model":"gpt-4o","system_fingerprint":"fp_1","choices":[{"index":0,)"
                      R"("delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]})")
        << QStringLiteral("Hello") << QString() << QString();
    QTest::newRow("role first")
        << QByteArray(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})") << QString()
        << QString() << QString();
    QTest::newRow("finish chunk") << QByteArray(
                                         R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})")
                                  << QString() << QString() << QStringLiteral("stop");
    QTest::newRow("escapes")
        << QByteArray(
               R"({"choices":[{"delta":{"content":"a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u4e2d\ud83d\ude00"}}]})")
        << QStringLiteral("a\"b\\c/d\b\f\n\r\tA\u00e9\u4e2d\U0001F600") << QString() << QString();
    QTest::newRow("raw utf-8")
        << QByteArray(
               "{\"choices\":[{\"delta\":{\"content\":\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\"}}]}")
        << QStringLiteral("caf\u00e9 \u4e2d \U0001F600") << QString() << QString();
    // Found by fuzz_chatchunkscanner: a text with escapes starting with U+FEFF lost it, which Qt's full parse
    // keeps (it drops the mark only from a text without escapes, through QString::fromUtf8).
    QTest::newRow("byte order mark first")
        << QByteArray("{\"choices\":[{\"delta\":{\"content\":\"\xef\xbb\xbfx\",\"reasoning\":"
                      "\"\xef\xbb\xbf\\ty\"}}]}")
        << QStringLiteral("x") << QStringLiteral("\uFEFF\ty") << QString();
    QTest::newRow("whitespace everywhere")
        << QByteArray(
               " {\r\n \"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"x\" } } ] \t} \n")
        << QStringLiteral("x") << QString() << QString();
    QTest::newRow("reasoning names in order")
        << QByteArray(
               R"({"choices":[{"delta":{"reasoning":"second","reasoning_content":"","reasoning_text":"third"}}]})")
        << QString() << QStringLiteral("second") << QString();
    QTest::newRow("null texts, null tool calls, null usage and error")
        << QByteArray(
               R"({"usage":null,"error":null,"choices":[{"delta":{"content":null,"refusal":null,"tool_calls":null}}]})")
        << QString() << QString() << QString();
    QTest::newRow("unknown nested values skipped")
        << QByteArray(
               R"({"x":{"a":[1,-2.5,true,false,null,{"b":"\u00e9"}],"c":[]},"choices":[{"delta":{"content":"y","extra":{"z":[[]]}},"logprobs":{"content":[]}}]})")
        << QStringLiteral("y") << QString() << QString();
    QTest::newRow("empty choices") << QByteArray(R"({"id":"1","choices":[]})") << QString() << QString()
                                   << QString();
    QTest::newRow("control character escaped")
        << QByteArray(R"({"choices":[{"delta":{"content":"\u0000\u001f"}}]})")
        << QString(QChar(0)) + QChar(0x1f) << QString() << QString();
}

void TestChatChunkScanner::readsWhatTheFullParseReads()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, content);
    QFETCH(QString, reasoning);
    QFETCH(QString, finish);
    const std::optional<ChatChunkScanner::Chunk> chunk = ChatChunkScanner::scan(json);
    QVERIFY2(chunk, "the scanner gave the common chunk to the full parse");
    QCOMPARE(chunk->content, content);
    QCOMPARE(chunk->reasoning, reasoning);
    QCOMPARE(chunk->finishReason, finish);
    expectSameAsFullParse(json);
}

void TestChatChunkScanner::leavesTheRestToTheFullParse_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("usage") << QByteArray(R"({"choices":[],"usage":{"prompt_tokens":1}})");
    QTest::newRow("error object") << QByteArray(R"({"error":{"message":"overloaded"}})");
    QTest::newRow("error string") << QByteArray(R"({"error":"overloaded"})");
    QTest::newRow("tool calls") << QByteArray(R"({"choices":[{"delta":{"tool_calls":[{"index":0}]}}]})");
    QTest::newRow("second choice") << QByteArray(R"({"choices":[{"delta":{}},{"delta":{}}]})");
    QTest::newRow("index 1") << QByteArray(R"({"choices":[{"index":1,"delta":{"content":"x"}}]})");
    QTest::newRow("index as text") << QByteArray(R"({"choices":[{"index":"0","delta":{"content":"x"}}]})");
    QTest::newRow("number content") << QByteArray(R"({"choices":[{"delta":{"content":5}}]})");
    QTest::newRow("repeated content")
        << QByteArray(R"({"choices":[{"delta":{"content":"a","content":"b"}}]})");
    QTest::newRow("repeated choices") << QByteArray(R"({"choices":[],"choices":[]})");
    QTest::newRow("lone high surrogate") << QByteArray(R"({"choices":[{"delta":{"content":"\ud83d"}}]})");
    QTest::newRow("lone low surrogate") << QByteArray(R"({"choices":[{"delta":{"content":"\ude00"}}]})");
    QTest::newRow("invalid utf-8") << QByteArray("{\"choices\":[{\"delta\":{\"content\":\"\xc3\x28\"}}]}");
    QTest::newRow("overlong utf-8") << QByteArray("{\"choices\":[{\"delta\":{\"content\":\"\xc0\xaf\"}}]}");
    QTest::newRow("utf-8 surrogate") << QByteArray(
        "{\"choices\":[{\"delta\":{\"content\":\"\xed\xa0\x80\"}}]}");
    QTest::newRow("invalid utf-8 in a skipped value") << QByteArray("{\"id\":\"\xff\",\"choices\":[]}");
    QTest::newRow("raw control character")
        << QByteArray("{\"choices\":[{\"delta\":{\"content\":\"a\nb\"}}]}");
    QTest::newRow("bad escape") << QByteArray(R"({"choices":[{"delta":{"content":"\x"}}]})");
    QTest::newRow("exponent") << QByteArray(R"({"created":1e400,"choices":[]})");
    QTest::newRow("trailing garbage") << QByteArray(R"({"choices":[]} x)");
    QTest::newRow("two objects") << QByteArray(R"({"choices":[]}{"choices":[]})");
    QTest::newRow("cut short") << QByteArray(R"({"choices":[{"delta":{"content":"Hel)");
    QTest::newRow("array") << QByteArray(R"([{"choices":[]}])");
    QTest::newRow("trailing comma") << QByteArray(R"({"choices":[],})");
    QTest::newRow("leading zero") << QByteArray(R"({"created":01,"choices":[]})");
    QTest::newRow("escaped key") << QByteArray(R"({"cho\u0069ces":[{"delta":{"content":"x"}}]})");
    QTest::newRow("deep nesting") << QByteArray("{\"x\":" + QByteArray(40, '[') + QByteArray(40, ']') + "}");
}

void TestChatChunkScanner::leavesTheRestToTheFullParse()
{
    QFETCH(QByteArray, json);
    QVERIFY2(!ChatChunkScanner::scan(json), json.constData());
}

// Every data line of the Chat Completions fixtures (real SDK streams): what the scanner takes reads as the
// full parse reads it, and the chunks of text are taken.
void TestChatChunkScanner::realStreamsTakeTheFastPathForTheirText()
{
    const QDir fixtures(QStringLiteral(KEEN_SOURCE_DIR "/tests/fixtures/openai-chat"));
    int lines = 0, taken = 0, textChunks = 0, textTaken = 0;
    for (const QString &name : fixtures.entryList({QStringLiteral("*.sse")})) {
        QFile file(fixtures.filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        for (const QByteArray &line : file.readAll().split('\n')) {
            if (!line.startsWith("data: {"))
                continue;
            const QByteArray json = line.mid(6).trimmed();
            ++lines;
            const bool scanned = ChatChunkScanner::scan(json).has_value();
            taken += scanned;
            expectSameAsFullParse(json);
            const QJsonObject object = QJsonDocument::fromJson(json).object();
            const bool plainText = !test::chatChunkReference(object).content.isEmpty() &&
                                   !object.contains(QLatin1String("usage")) &&
                                   object.value(QLatin1String("choices")).toArray().size() == 1;
            textChunks += plainText;
            textTaken += plainText && scanned;
        }
    }
    QVERIFY(lines > 50);
    QVERIFY2(textChunks > 20, qPrintable(QString::number(textChunks)));
    QCOMPARE(textTaken, textChunks);
    qInfo("%d of %d data lines read without a JSON document", taken, lines);
}

// The same property on damaged variants of a real chunk: every prefix, and every single byte replaced by
// each of the characters that change JSON's meaning.
void TestChatChunkScanner::truncationsAndSingleByteChangesNeverReadDifferently()
{
    const QByteArray chunk =
        R"({"id":"c1","created":1712345678,"choices":[{"index":0,"delta":{"role":"assistant","content":"a\"\u00e9\ud83d\ude00 b","reasoning":null},"finish_reason":null}],"usage":null})";
    QVERIFY(ChatChunkScanner::scan(chunk));
    for (qsizetype length = 0; length <= chunk.size(); ++length)
        expectSameAsFullParse(chunk.left(length));
    for (qsizetype at = 0; at < chunk.size(); ++at) {
        for (const char replacement : QByteArray("\"\\{}[],:0-.e \x01\x7f\xc3u")) {
            QByteArray changed = chunk;
            changed[at] = replacement;
            expectSameAsFullParse(changed);
            if (QTest::currentTestFailed())
                return;
        }
    }
}

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestChatChunkScanner)
#include "tst_chatchunkscanner.moc"
