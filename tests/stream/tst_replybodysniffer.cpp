// ReplyBodySniffer: a successful reply's body told apart as a stream of events or a whole document by its
// first bytes, in whatever pieces the network delivers them.

#include "stream/replybodysniffer.h"

#include <QTest>

using namespace keen;

class TestReplyBodySniffer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void streamsPassThroughAsTheyCome();
    void aDocumentIsKeptWholeWhateverItsPieces_data();
    void aDocumentIsKeptWholeWhateverItsPieces();
    void aDocumentPastTheLimitIsNotKept();
    void anEventStreamIsKnownByItsTypeOrItsFirstLine_data();
    void anEventStreamIsKnownByItsTypeOrItsFirstLine();
};

void TestReplyBodySniffer::streamsPassThroughAsTheyCome()
{
    ReplyBodySniffer sse(1024);
    QCOMPARE(sse.take("\n"), QByteArray()); // white space waits for the first byte that tells
    QCOMPARE(sse.take("data: {\"a\":1}\n\n"), QByteArray("\ndata: {\"a\":1}\n\n"));
    QCOMPARE(sse.take("data: [DONE]\n\n"), QByteArray("data: [DONE]\n\n"));
    QVERIFY(!sse.isDocument());
    QCOMPARE(sse.head(), QByteArray("\ndata: {\"a\":1}\n\ndata: [DONE]\n\n"));

    // An AWS event stream starts with its first message's length, a zero byte for any real message.
    ReplyBodySniffer binary(1024);
    const QByteArray prelude("\x00\x00\x00\x52\x00\x00\x00\x3c", 8);
    QCOMPARE(binary.take(prelude), prelude);
    QVERIFY(!binary.isDocument());
}

void TestReplyBodySniffer::aDocumentIsKeptWholeWhateverItsPieces_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("json object") << QByteArray("  {\"choices\": [{\"message\": {\"content\": \"hi\"}}]}");
    QTest::newRow("json array") << QByteArray("[{\"candidates\": []}]");
    QTest::newRow("web page") << QByteArray("\r\n<!DOCTYPE html><html><body>Welcome</body></html>");
}

void TestReplyBodySniffer::aDocumentIsKeptWholeWhateverItsPieces()
{
    QFETCH(QByteArray, body);
    for (qsizetype piece : {qsizetype(1), qsizetype(3), body.size()}) {
        ReplyBodySniffer sniffer(1024);
        QByteArray handedOn;
        for (qsizetype i = 0; i < body.size(); i += piece)
            handedOn += sniffer.take(body.mid(i, piece));
        QVERIFY(handedOn.isEmpty()); // nothing reaches a stream decoder
        QVERIFY(sniffer.isDocument());
        QVERIFY(!sniffer.documentTooLarge());
        QCOMPARE(sniffer.document(), body);
        QCOMPARE(sniffer.head(), body.left(ReplyBodySniffer::HeadBytes));
    }
}

void TestReplyBodySniffer::aDocumentPastTheLimitIsNotKept()
{
    ReplyBodySniffer sniffer(100);
    sniffer.take("{\"content\": \"");
    sniffer.take(QByteArray(200, 'x'));
    QVERIFY(sniffer.isDocument());
    QVERIFY(sniffer.documentTooLarge());
    QVERIFY(sniffer.document().size() <= 100);
    QCOMPARE(sniffer.head().size(), 213);
}

void TestReplyBodySniffer::anEventStreamIsKnownByItsTypeOrItsFirstLine_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<bool>("stream");
    QTest::newRow("sse") << QByteArray("text/event-stream") << QByteArray("garbage") << true;
    QTest::newRow("sse with charset, any case")
        << QByteArray("Text/Event-Stream; charset=utf-8") << QByteArray("garbage") << true;
    QTest::newRow("aws") << QByteArray("application/vnd.amazon.eventstream") << QByteArray("x") << true;
    QTest::newRow("mislabelled data") << QByteArray("application/json") << QByteArray("data: {}\n\n") << true;
    QTest::newRow("mislabelled event") << QByteArray("text/plain") << QByteArray("event: ping\n") << true;
    QTest::newRow("comment first") << QByteArray() << QByteArray(": keep-alive\n\ndata: {}") << true;
    QTest::newRow("empty body") << QByteArray("text/plain") << QByteArray() << true;
    QTest::newRow("plain text") << QByteArray("text/plain") << QByteArray("404 page not found\n") << false;
    QTest::newRow("text with a colon")
        << QByteArray("text/plain") << QByteArray("Error: no such route") << false;
    QTest::newRow("no type, text") << QByteArray() << QByteArray("Bad Gateway") << false;
}

void TestReplyBodySniffer::anEventStreamIsKnownByItsTypeOrItsFirstLine()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, head);
    QFETCH(bool, stream);
    QCOMPARE(ReplyBodySniffer::looksLikeEventStream(contentType, head), stream);
}

QTEST_GUILESS_MAIN(TestReplyBodySniffer)

#include "tst_replybodysniffer.moc"
