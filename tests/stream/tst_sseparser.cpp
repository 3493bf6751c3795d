// The incremental SSE parser: every split of the bytes gives the same events as one read.
#include "stream/sseparser.h"
#include "testenvironment.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

using namespace keen;

namespace {

using Events = QList<SseParser::Event>;

// Events flattened to strings, so QCOMPARE prints a readable difference.
QStringList describe(const Events &events)
{
    QStringList out;
    for (const SseParser::Event &e : events)
        out.append(e.event + QLatin1Char('|') + e.text() + QLatin1Char('|') + e.id);
    return out;
}

SseParser::Event ev(const QString &data, const QString &event = {}, const QString &id = {})
{
    return SseParser::Event{event, data.toUtf8(), id};
}

// Feeds the pieces in order and finishes; fails the test on a parser error.
QStringList parsePieces(const QList<QByteArray> &pieces, QString *error = nullptr)
{
    SseParser parser;
    Events events;
    for (const QByteArray &piece : pieces)
        events += parser.feed(piece);
    events += parser.finish();
    if (error)
        *error = parser.error();
    return describe(events);
}

QStringList parseSplitAt(const QByteArray &bytes, qsizetype offset)
{
    return parsePieces({bytes.first(offset), bytes.sliced(offset)});
}

QStringList parseBytewise(const QByteArray &bytes)
{
    QList<QByteArray> pieces;
    for (char c : bytes)
        pieces.append(QByteArray(1, c));
    return parsePieces(pieces);
}

QStringList parseRandomSplits(const QByteArray &bytes, quint32 seed, int maxPiece)
{
    QRandomGenerator random(seed);
    QList<QByteArray> pieces;
    for (qsizetype pos = 0; pos < bytes.size();) {
        const qsizetype n = std::min<qsizetype>(random.bounded(0, maxPiece + 1), bytes.size() - pos);
        pieces.append(bytes.mid(pos, n)); // empty pieces too: a read may return nothing
        pos += n;
    }
    return parsePieces(pieces);
}

// An independent, non-incremental reading of the SSE rules, used as the oracle for the real fixtures.
QStringList referenceParse(const QByteArray &all)
{
    QList<QByteArray> lines;
    QByteArray current;
    for (qsizetype i = 0; i < all.size(); ++i) {
        const char c = all.at(i);
        if (c == '\r' || c == '\n') {
            lines.append(current);
            current.clear();
            if (c == '\r' && i + 1 < all.size() && all.at(i + 1) == '\n')
                ++i;
        } else {
            current.append(c);
        }
    }
    if (!current.isEmpty())
        lines.append(current);
    lines.append(QByteArray()); // finish() dispatches what is pending

    QStringList out;
    QString name, id;
    QStringList data;
    bool hasData = false;
    for (const QByteArray &line : std::as_const(lines)) {
        if (line.isEmpty()) {
            if (hasData)
                out.append(name + QLatin1Char('|') + data.join(QLatin1Char('\n')) + QLatin1Char('|') + id);
            name.clear();
            data.clear();
            hasData = false;
            continue;
        }
        if (line.startsWith(':'))
            continue;
        const qsizetype colon = line.indexOf(':');
        const QByteArray field = colon < 0 ? line : line.left(colon);
        QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
        if (value.startsWith(' '))
            value.remove(0, 1);
        if (field == "data") {
            data.append(QString::fromUtf8(value));
            hasData = true;
        } else if (field == "event") {
            name = QString::fromUtf8(value);
        } else if (field == "id") {
            id = QString::fromUtf8(value);
        }
    }
    return out;
}

QStringList sseFixtures()
{
    QStringList files;
    for (const QString &dir : {QStringLiteral("anthropic"), QStringLiteral("openai-chat"),
                               QStringLiteral("openai-responses"), QStringLiteral("gemini")}) {
        const QStringList names =
            QDir(test::fixturePath(dir)).entryList({QStringLiteral("*.sse")}, QDir::Files, QDir::Name);
        for (const QString &name : names)
            files.append(dir + QLatin1Char('/') + name);
    }
    return files;
}

// Streams of this size or less are split at every offset; bigger ones get random splits and bytewise reads.
constexpr qsizetype EveryOffsetLimit = 32 * 1024;

} // namespace

class TestSseParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everySplit_data();
    void everySplit();
    void fixtures_data();
    void fixtures();
    void fixtureContents();
    void crAtEndOfReadThenLfIsOneLineEnd();
    void fourByteUtf8SplitAcrossReads();
    void finalEventWithoutBlankLine();
    void eventWithoutDataIsNotDispatched();
    void oversizeLineIsAnErrorWithoutUnboundedMemory();
    void oversizeLineInOneRead();
    void oversizeEventIsAnError();
    void errorIsSticky();
    void parserIsReusableAfterFinish();
    void wholeDataLineIsHandedOnWithoutACopy();
};

void TestSseParser::everySplit_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<Events>("expected");

    QTest::newRow("lf") << QByteArray("data: one\n\ndata: two\n\n")
                        << Events{ev(QStringLiteral("one")), ev(QStringLiteral("two"))};
    QTest::newRow("crlf") << QByteArray("data: one\r\n\r\ndata: two\r\n\r\n")
                          << Events{ev(QStringLiteral("one")), ev(QStringLiteral("two"))};
    QTest::newRow("cr") << QByteArray("data: one\r\rdata: two\r\r")
                        << Events{ev(QStringLiteral("one")), ev(QStringLiteral("two"))};
    QTest::newRow("mixed line ends") << QByteArray("data: a\rdata: b\r\ndata: c\n\r\n\rdata: d\r\r")
                                     << Events{ev(QStringLiteral("a\nb\nc")), ev(QStringLiteral("d"))};
    QTest::newRow("multi-line data") << QByteArray("data: {\"a\":\ndata:  1}\ndata\ndata:\n\n")
                                     << Events{ev(QStringLiteral("{\"a\":\n 1}\n\n"))};
    QTest::newRow("event names")
        << QByteArray("event: message_start\ndata: {}\n\nevent:ping\ndata: p\n\ndata: x\n\n")
        << Events{ev(QStringLiteral("{}"), QStringLiteral("message_start")),
                  ev(QStringLiteral("p"), QStringLiteral("ping")), ev(QStringLiteral("x"))};
    QTest::newRow("comments")
        << QByteArray(": keep-alive\n\n: OPENROUTER PROCESSING\r\n\r\ndata: a\n: inside\ndata: b\n\n:\n\n")
        << Events{ev(QStringLiteral("a\nb"))};
    QTest::newRow("4-byte utf-8") << QByteArray("data: \xF0\x9F\x98\x80 ok \xE2\x82\xAC\n\n")
                                  << Events{ev(QStringLiteral("\U0001F600 ok \u20AC"))};
    QTest::newRow("final event without blank line")
        << QByteArray("data: first\n\ndata: last")
        << Events{ev(QStringLiteral("first")), ev(QStringLiteral("last"))};
    QTest::newRow("final event ending in one line end")
        << QByteArray("event: e\ndata: last\r") << Events{ev(QStringLiteral("last"), QStringLiteral("e"))};
    QTest::newRow("junk lines")
        << QByteArray("garbage\n{\"not\":\"sse\"}\nDATA: upper\nretry: 10\nfoo: bar\ndata: ok\n\n")
        << Events{ev(QStringLiteral("ok"))};
    QTest::newRow("id persists") << QByteArray("id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n")
                                 << Events{ev(QStringLiteral("a"), {}, QStringLiteral("7")),
                                           ev(QStringLiteral("b"), {}, QStringLiteral("7")),
                                           ev(QStringLiteral("c"))};
    QTest::newRow("only one space stripped")
        << QByteArray("data:  two spaces\ndata:none\n\n") << Events{ev(QStringLiteral(" two spaces\nnone"))};
    QTest::newRow("colon in value") << QByteArray("data: {\"k\":\"v: w\"}\n\n")
                                    << Events{ev(QStringLiteral("{\"k\":\"v: w\"}"))};
    QTest::newRow("byte order mark") << QByteArray("\xEF\xBB\xBF"
                                                   "data: bom\n\n")
                                     << Events{ev(QStringLiteral("bom"))};
    QTest::newRow("blank lines only") << QByteArray("\n\r\n\r\r\n\n") << Events{};
    QTest::newRow("groq error event")
        << QByteArray("event: error\ndata: {\"error\":{\"message\":\"x\"}}\n\n")
        << Events{ev(QStringLiteral("{\"error\":{\"message\":\"x\"}}"), QStringLiteral("error"))};
    QTest::newRow("done") << QByteArray("data: {\"a\":1}\n\ndata: [DONE]\n\n")
                          << Events{ev(QStringLiteral("{\"a\":1}")), ev(QStringLiteral("[DONE]"))};
}

void TestSseParser::everySplit()
{
    QFETCH(QByteArray, stream);
    QFETCH(Events, expected);
    const QStringList want = describe(expected);

    QString error;
    QCOMPARE(parsePieces({stream}, &error), want);
    QVERIFY(error.isEmpty());
    QCOMPARE(parseBytewise(stream), want);
    for (qsizetype i = 0; i <= stream.size(); ++i) {
        for (qsizetype j = i; j <= stream.size(); ++j) {
            const QStringList got = parsePieces({stream.first(i), stream.sliced(i, j - i), stream.sliced(j)});
            if (got != want) {
                qWarning("split at %lld and %lld", qlonglong(i), qlonglong(j));
                QCOMPARE(got, want);
            }
        }
    }
}

void TestSseParser::fixtures_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = sseFixtures();
    QVERIFY(files.size() >= 18);
    for (const QString &file : files)
        QTest::newRow(qPrintable(file)) << file;
}

void TestSseParser::fixtures()
{
    QFETCH(QString, file);
    const QByteArray bytes = test::readFixture(file);
    QVERIFY(!bytes.isEmpty());

    const QStringList want = referenceParse(bytes);
    QVERIFY(!want.isEmpty());
    QCOMPARE(parsePieces({bytes}), want);
    QCOMPARE(parseBytewise(bytes), want);
    for (quint32 seed = 1; seed <= 20; ++seed)
        QCOMPARE(parseRandomSplits(bytes, seed, 1 + int(seed * seed) % 700), want);

    if (bytes.size() <= EveryOffsetLimit) {
        for (qsizetype i = 0; i <= bytes.size(); ++i) {
            const QStringList got = parseSplitAt(bytes, i);
            if (got != want) {
                qWarning("split at %lld", qlonglong(i));
                QCOMPARE(got, want);
            }
        }
    }
}

void TestSseParser::fixtureContents()
{
    // Gemini frames events with CRLF: no CR may leak into the data.
    const QStringList gemini = parsePieces({test::readFixture(QStringLiteral("gemini/text.sse"))});
    QCOMPARE(gemini.size(), 3);
    for (const QString &e : gemini)
        QVERIFY(!e.contains(QLatin1Char('\r')));

    // OpenRouter keep-alive comments never become events; the error chunk and [DONE] do.
    const QStringList openrouter = parsePieces(
        {test::readFixture(QStringLiteral("openai-chat/compat-openrouter-comments-error-chunk.sse"))});
    QVERIFY(!openrouter.join(QString()).contains(QStringLiteral("OPENROUTER")));
    QCOMPARE(openrouter.last(), QStringLiteral("|[DONE]|"));
    QVERIFY(openrouter.at(openrouter.size() - 2).contains(QStringLiteral("Token limit reached")));

    // Groq ends with an "event: error" and no [DONE].
    SseParser groqParser;
    Events groq = groqParser.feed(test::readFixture(
        QStringLiteral("openai-chat/compat-groq-reasoning-then-midstream-error-event.sse")));
    groq += groqParser.finish();
    QCOMPARE(groq.last().event, QStringLiteral("error"));
    QVERIFY(QJsonDocument::fromJson(groq.last().data).object().contains(QStringLiteral("error")));

    // Anthropic: every event carries the name that its JSON type repeats; the emoji survives.
    SseParser anthropicParser;
    const QByteArray anthropicBytes =
        test::readFixture(QStringLiteral("anthropic/text-after-tool-results.sse"));
    Events anthropic;
    for (char c : anthropicBytes)
        anthropic += anthropicParser.feed(QByteArray(1, c));
    anthropic += anthropicParser.finish();
    QVERIFY(!anthropic.isEmpty());
    QString text;
    for (const SseParser::Event &e : std::as_const(anthropic)) {
        const QJsonObject json = QJsonDocument::fromJson(e.data).object();
        QCOMPARE(json.value(QStringLiteral("type")).toString(), e.event);
        text += json.value(QStringLiteral("delta")).toObject().value(QStringLiteral("text")).toString();
    }
    bool hasAstralCharacter = false;
    for (QChar c : std::as_const(text))
        hasAstralCharacter = hasAstralCharacter || c.isHighSurrogate();
    QVERIFY(hasAstralCharacter);
    QVERIFY(!text.contains(QChar::ReplacementCharacter));
    QCOMPARE(anthropic.last().event, QStringLiteral("message_stop"));
}

void TestSseParser::crAtEndOfReadThenLfIsOneLineEnd()
{
    // Were CR and LF counted as two line ends, the blank line between them would dispatch "a" alone.
    SseParser parser;
    QVERIFY(parser.feed("data: a\r").isEmpty());
    QVERIFY(parser.feed("").isEmpty());
    QVERIFY(parser.feed("\ndata: b\r").isEmpty());
    QCOMPARE(describe(parser.feed("\n\r")), QStringList{QStringLiteral("|a\nb|")});
    QVERIFY(parser.feed("\n").isEmpty()); // the LF after that CR is the same line end, not another blank line
    QVERIFY(parser.finish().isEmpty());
    QVERIFY(!parser.hasError());
}

void TestSseParser::fourByteUtf8SplitAcrossReads()
{
    const QByteArray stream("data: \xF0\x9F\x8E\x89\n\n"); // U+1F389
    for (qsizetype cut = 6; cut <= 10; ++cut) {
        SseParser parser;
        Events events = parser.feed(stream.first(cut));
        events += parser.feed(stream.sliced(cut));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().text(), QStringLiteral("\U0001F389"));
    }
}

void TestSseParser::finalEventWithoutBlankLine()
{
    SseParser parser;
    QVERIFY(parser.feed("event: done\ndata: {\"x\":").isEmpty());
    QVERIFY(parser.feed("1}").isEmpty());
    const Events events = parser.finish();
    QCOMPARE(describe(events), QStringList{QStringLiteral("done|{\"x\":1}|")});
}

void TestSseParser::eventWithoutDataIsNotDispatched()
{
    SseParser parser;
    QVERIFY(parser.feed("event: ping\n\nevent: lonely\n").isEmpty());
    QVERIFY(parser.finish().isEmpty());
    // The name does not leak into the next event.
    QCOMPARE(describe(parser.feed("data: x\n\n")), QStringList{QStringLiteral("|x|")});
}

void TestSseParser::oversizeLineIsAnErrorWithoutUnboundedMemory()
{
    // A 64 MiB line in 1 MiB reads against the default 16 MiB cap: the parser must give up once the line
    // passes the cap, holding at most the cap itself (the same 1 MiB piece is reused, so the test holds 1
    // MiB).
    const QByteArray piece(1024 * 1024, 'x');
    SseParser parser;
    QVERIFY(parser.feed("data: ").isEmpty());
    int readsBeforeError = 0;
    for (int i = 0; i < 64; ++i) {
        QVERIFY(parser.feed(piece).isEmpty());
        if (parser.hasError())
            break;
        ++readsBeforeError;
    }
    QVERIFY(parser.hasError());
    QCOMPARE(readsBeforeError, int(SseParser::DefaultMaxEventBytes / piece.size()) - 1);
    QVERIFY(parser.error().contains(QString::number(SseParser::DefaultMaxEventBytes)));
    QVERIFY(parser.feed("\n\n").isEmpty());
    QVERIFY(parser.finish().isEmpty());
}

void TestSseParser::oversizeLineInOneRead()
{
    SseParser parser(100);
    QVERIFY(parser.feed("data: small\n\n").size() == 1);
    QVERIFY(parser.feed("data: " + QByteArray(200, 'y') + "\n\n").isEmpty());
    QVERIFY(parser.hasError());
}

void TestSseParser::oversizeEventIsAnError()
{
    // Many short data lines: each line is fine, their event is not.
    SseParser parser(1000);
    for (int i = 0; i < 200 && !parser.hasError(); ++i)
        QVERIFY(parser.feed("data: 0123456789\n").isEmpty());
    QVERIFY(parser.hasError());
    QVERIFY(parser.error().contains(QStringLiteral("1000")));

    // Events under the cap are fine however many of them come.
    SseParser ok(1000);
    int count = 0;
    for (int i = 0; i < 1000; ++i)
        count += int(ok.feed("data: 0123456789\n\n").size());
    QCOMPARE(count, 1000);
    QVERIFY(!ok.hasError());
}

void TestSseParser::errorIsSticky()
{
    SseParser parser(10);
    QVERIFY(parser.feed("data: this is too long").isEmpty());
    QVERIFY(parser.hasError());
    QVERIFY(parser.feed("\n\ndata: x\n\n").isEmpty());
    QVERIFY(parser.finish().isEmpty());
    QVERIFY(parser.hasError());
}

void TestSseParser::parserIsReusableAfterFinish()
{
    SseParser parser;
    QCOMPARE(parser.feed("data: a\r").size(), 0);
    QCOMPARE(describe(parser.finish()), QStringList{QStringLiteral("|a|")});
    // A new body: its leading LF is a blank line of its own, not the end of the old CR.
    QCOMPARE(describe(parser.feed("\xEF\xBB\xBF"
                                  "data: b\n\n")),
             QStringList{QStringLiteral("|b|")});
}

// The decoders take events through the handler (issue 11: every per-chunk step O(chunk)). An event whose one
// data line arrived in the read being fed is handed on pointing into that read, with no copy; an event split
// across reads, or with several data lines, is assembled in the parser's own buffer and stays correct.
void TestSseParser::wholeDataLineIsHandedOnWithoutACopy()
{
    SseParser parser;
    const QByteArray first("data: {\"a\":1}\n\ndata: {\"b\":");
    const QByteArray second("2}\n\ndata: x\ndata: y\n\ndata: {\"c\":3}\n");
    const QByteArray third("\n");
    struct Seen
    {
        QByteArray data;
        bool inRead = false;
    };
    QList<Seen> seen;
    const QByteArray *current = nullptr;
    const auto handler = [&](const SseParser::Event &event) {
        const char *at = event.data.constData();
        const bool inRead = at >= current->constData() && at < current->constData() + current->size();
        seen.append({QByteArray(event.data.constData(), event.data.size()), inRead});
    };
    for (const QByteArray *read : {&first, &second, &third}) {
        current = read;
        parser.feed(*read, handler);
    }
    QVERIFY(!parser.hasError());
    QCOMPARE(seen.size(), 4);
    QCOMPARE(seen.at(0).data, QByteArray("{\"a\":1}"));
    QVERIFY(seen.at(0).inRead); // whole in its read: no copy
    QCOMPARE(seen.at(1).data, QByteArray("{\"b\":2}"));
    QVERIFY(!seen.at(1).inRead); // split across two reads
    QCOMPARE(seen.at(2).data, QByteArray("x\ny"));
    QVERIFY(!seen.at(2).inRead); // two data lines joined
    QCOMPARE(seen.at(3).data, QByteArray("{\"c\":3}"));
    QVERIFY(!seen.at(3).inRead); // its blank line came in the next read: kept before that read ended
}

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
