// web_fetch (reference 2.2): a page comes back as Markdown, asked for like the other tools that reach outside
// the folder, with its limits (redirects, size, time) and its session cache. Every request goes to a small
// HTTP/1.1 server on 127.0.0.1 inside the test.
#include "testenvironment.h"
#include "tools/htmltomarkdown.h"
#include "tools/localnetwork.h"
#include "tools/permissionpolicy.h"
#include "tools/readfiletool.h"
#include "tools/webfetchtool.h"
#include "tooltestworkspace.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QNetworkProxy>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>

using namespace keen;

namespace {

// Canned replies by path; counts the requests and keeps their headers.
class PageServer final : public QObject
{
public:
    struct Reply
    {
        QByteArray status = "200 OK";
        QByteArray contentType = "text/html; charset=utf-8";
        QByteArray body;
        QList<std::pair<QByteArray, QByteArray>> headers;
        bool neverEnds = false; // headers and part of the body, then silence
    };

    PageServer()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                serve(socket);
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }

    void add(const QString &path, Reply reply) { m_replies.insert(path, std::move(reply)); }
    void redirect(const QString &path, const QByteArray &location, const QByteArray &status = "302 Found")
    {
        Reply reply;
        reply.status = status;
        reply.contentType = "text/html";
        reply.body = "<p>moved</p>";
        reply.headers.append({"Location", location});
        add(path, reply);
    }
    QString url(const QString &path) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path);
    }
    int requests(const QString &path) const { return m_counts.value(path); }
    quint16 port() const { return m_server.serverPort(); }
    int totalRequests() const
    {
        int total = 0;
        for (int count : m_counts)
            total += count;
        return total;
    }
    QByteArray lastHeaders() const { return m_lastHeaders; }

private:
    void serve(QTcpSocket *socket)
    {
        auto buffer = std::make_shared<QByteArray>();
        QObject::connect(socket, &QTcpSocket::readyRead, this, [this, socket, buffer] {
            *buffer += socket->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = buffer->left(end);
            buffer->clear();
            const QList<QByteArray> requestLine = head.left(head.indexOf("\r\n")).split(' ');
            const QString path = QString::fromLatin1(requestLine.value(1));
            m_counts[path] += 1;
            m_lastHeaders = head + "\r\n";
            respond(socket, m_replies.value(path, notFound()));
        });
        QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

    static Reply notFound()
    {
        Reply reply;
        reply.status = "404 Not Found";
        reply.body = "<html><body><h1>Not here</h1><p>No such page.</p></body></html>";
        return reply;
    }

    static void respond(QTcpSocket *socket, const Reply &reply)
    {
        QByteArray head = "HTTP/1.1 " + reply.status + "\r\n";
        if (!reply.contentType.isEmpty())
            head += "Content-Type: " + reply.contentType + "\r\n";
        for (const auto &[name, value] : reply.headers)
            head += name + ": " + value + "\r\n";
        if (reply.neverEnds) {
            head += "Content-Length: 100000\r\n\r\n";
            socket->write(head + "<html><body><p>Loading");
            return;
        }
        head += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\nConnection: close\r\n\r\n";
        socket->write(head + reply.body);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QHash<QString, Reply> m_replies;
    QHash<QString, int> m_counts;
    QByteArray m_lastHeaders;
};

// An https server on 127.0.0.1 with a certificate for one host name: every request gets the same page.
class TlsPageServer final : public QTcpServer
{
public:
    TlsPageServer(const QSslCertificate &certificate, const QSslKey &key, QByteArray body)
        : m_certificate(certificate)
        , m_key(key)
        , m_body(std::move(body))
    {
        listen(QHostAddress::LocalHost, 0);
    }
    QByteArray lastHeaders() const { return m_lastHeaders; }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QSslSocket(this);
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            return;
        }
        socket->setLocalCertificate(m_certificate);
        socket->setPrivateKey(m_key);
        auto buffer = std::make_shared<QByteArray>();
        QObject::connect(socket, &QSslSocket::readyRead, this, [this, socket, buffer] {
            *buffer += socket->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0)
                return;
            m_lastHeaders = buffer->left(end) + "\r\n";
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                          QByteArray::number(m_body.size()) + "\r\nConnection: close\r\n\r\n" + m_body);
            socket->disconnectFromHost();
        });
        QObject::connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        socket->startServerEncryption();
    }

private:
    QSslCertificate m_certificate;
    QSslKey m_key;
    QByteArray m_body;
    QByteArray m_lastHeaders;
};

PageServer::Reply page(const QByteArray &body, const QByteArray &contentType = "text/html; charset=utf-8")
{
    PageServer::Reply reply;
    reply.body = body;
    reply.contentType = contentType;
    return reply;
}

QJsonObject fetch(const QString &url, bool checkCache = false)
{
    QJsonObject input{{QStringLiteral("url"), url}};
    if (checkCache)
        input.insert(QStringLiteral("checkCache"), true);
    return input;
}

const QByteArray ArticleHtml = R"html(<!DOCTYPE html>
<html><head><title>Ignored &amp; title</title>
<style>body { color: red; }</style>
<script>document.write("<h1>not content</h1>");</script>
</head>
<body>
<!-- a comment <p>hidden</p> -->
<nav><a href="javascript:void(0)">Menu</a></nav>
<h1>Widget   API</h1>
<p>The <strong>widget</strong> is <em>fast</em> &mdash; see <a href="/docs/setup.html">the setup guide</a>
and <a href="next.html">the next page</a>. Use <code>widget.run()</code>.</p>
<ul><li>First</li><li>Second<ul><li>Nested</li></ul></li></ul>
<ol><li>One</li><li>Two</li></ol>
<pre><code class="language-python">def run():
    return 1 &lt; 2
</code></pre>
<blockquote><p>Quoted words.</p></blockquote>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr><tr><td>c</td></tr></table>
<hr>
<p><img src="/logo.png" alt="Logo"><img src="/spacer.gif"> &copy; 2026 &#169; &#x2122; &lt;tag&gt;</p>
<noscript><p>Enable JavaScript</p></noscript>
<svg><title>icon</title><text>svg text</text></svg>
</body></html>)html";

} // namespace

class TestWebFetch : public QObject
{
    Q_OBJECT

private:
    using Fixture = test::ToolTestWorkspace;

    static int mode(const QString &path)
    {
        struct stat info = {};
        if (::stat(QFile::encodeName(path).constData(), &info) != 0)
            return -1;
        return int(info.st_mode & 0777);
    }

    static ToolResult run(WebFetchTool &tool, const QJsonObject &input, ToolContext &context)
    {
        if (const QString invalid = tool.validateInput(input); !invalid.isEmpty())
            return ToolResult::failure(invalid);
        return tool.execute(input, context);
    }

private Q_SLOTS:
    void initTestCase() { QCoreApplication::setApplicationVersion(QStringLiteral("9.8.7")); }

    // The converter on its own: every element the model commonly meets.
    void convertsHtmlToMarkdown()
    {
        const QString markdown = HtmlToMarkdown::convert(
            QString::fromUtf8(ArticleHtml), QUrl(QStringLiteral("https://example.org/api/widget")));
        const QString expected = QStringLiteral(
            "Menu\n"
            "\n"
            "# Widget API\n"
            "\n"
            "The **widget** is *fast* — see [the setup guide](https://example.org/docs/setup.html) and "
            "[the next page](https://example.org/api/next.html). Use `widget.run()`.\n"
            "\n"
            "- First\n"
            "- Second\n"
            "  - Nested\n"
            "\n"
            "1. One\n"
            "2. Two\n"
            "\n"
            "```python\n"
            "def run():\n"
            "    return 1 < 2\n"
            "```\n"
            "\n"
            "> Quoted words.\n"
            "\n"
            "| Name | Value |\n"
            "| --- | --- |\n"
            "| a\\|b | 1 |\n"
            "| c |  |\n"
            "\n"
            "---\n"
            "\n"
            "![Logo](https://example.org/logo.png) © 2026 © ™ <tag>");
        QCOMPARE(markdown, expected);
    }

    void convertsEdgeCases_data()
    {
        QTest::addColumn<QString>("html");
        QTest::addColumn<QString>("markdown");
        QTest::newRow("title without h1")
            << QStringLiteral("<title>Release notes</title><h2>1.0</h2><p>Out.</p>")
            << QStringLiteral("# Release notes\n\n## 1.0\n\nOut.");
        QTest::newRow("no title, no h1") << QStringLiteral("<p>Just text</p>") << QStringLiteral("Just text");
        QTest::newRow("br and whitespace") << QStringLiteral("<p>line one<br>line   two\n\n\n   three</p>")
                                           << QStringLiteral("line one\nline two three");
        QTest::newRow("many blank blocks collapse")
            << QStringLiteral("<p>a</p><p></p><div></div><p></p><br><br><br><p>b</p>")
            << QStringLiteral("a\n\nb");
        QTest::newRow("pre keeps spacing, fence outgrows backticks")
            << QStringLiteral("<pre>  x  =  1\n```\n</pre>") << QStringLiteral("````\n  x  =  1\n```\n````");
        QTest::newRow("empty marks and links vanish")
            << QStringLiteral("<p>a<b></b> <a href=\"/x\"></a>b</p>") << QStringLiteral("a b");
        QTest::newRow("unknown and broken entities stay") << QStringLiteral("<p>&bogus; &amp &#xZZ; &#0;</p>")
                                                          << QStringLiteral("&bogus; &amp &#xZZ; \uFFFD");
        QTest::newRow("ordered list start")
            << QStringLiteral("<ol start=\"7\"><li>seven</li><li>eight</li></ol>")
            << QStringLiteral("7. seven\n8. eight");
        QTest::newRow("base href") << QStringLiteral(
                                          "<head><base href=\"https://cdn.example.com/v2/\"></head>"
                                          "<a href=\"guide\">Guide</a>")
                                   << QStringLiteral("[Guide](https://cdn.example.com/v2/guide)");
        QTest::newRow("head without end tag")
            << QStringLiteral("<html><head><meta charset=utf-8><p>Body text") << QStringLiteral("Body text");
        QTest::newRow("stray less-than")
            << QStringLiteral("<p>a < b and 3<4</p>") << QStringLiteral("a < b and 3<4");
        QTest::newRow("unclosed comment")
            << QStringLiteral("<p>kept</p><!-- never closed <p>lost</p>") << QStringLiteral("kept");
        QTest::newRow("quote of two paragraphs")
            << QStringLiteral("<p>before</p><blockquote><p>a</p><p>b</p></blockquote><p>after</p>")
            << QStringLiteral("before\n\n> a\n>\n> b\n\nafter");
        QTest::newRow("list item of paragraphs")
            << QStringLiteral("<ul><li><p>first</p><p>more</p></li><li>second</li></ul>")
            << QStringLiteral("- first\n\n  more\n\n- second"); // a loose list, as Markdown has it
        QTest::newRow("inline code in a list with a quote")
            << QStringLiteral("<blockquote><ul><li>use <code>x</code></li></ul></blockquote>")
            << QStringLiteral("> - use `x`");
    }

    void convertsEdgeCases()
    {
        QFETCH(QString, html);
        QFETCH(QString, markdown);
        QCOMPARE(HtmlToMarkdown::convert(html, QUrl(QStringLiteral("https://example.org/"))), markdown);
    }

    // A page of 100,000 lines (about 5 MB) and pages built to make a careless converter quadratic (deep
    // nesting, tags never closed, an attribute quote never closed) all convert; the benchmark
    // (bench_core webfetch) times the first.
    void convertsLargeAndHostilePagesWhole()
    {
        QString big = QStringLiteral("<html><body><h1>Log</h1><ul>\n");
        for (int i = 1; i <= 100000; ++i)
            big += QStringLiteral("<li><a href=\"/e/%1\">entry %1</a> <b>ok</b></li>\n").arg(i);
        big += QStringLiteral("</ul></body></html>");
        QVERIFY(big.size() > 4 * 1000 * 1000);
        const QString markdown = HtmlToMarkdown::convert(big, QUrl(QStringLiteral("https://log.example/")));
        QVERIFY2(
            markdown.startsWith(QStringLiteral("# Log\n\n- [entry 1](https://log.example/e/1) **ok**\n")),
            qPrintable(markdown.left(200)));
        QVERIFY2(markdown.endsWith(QStringLiteral("- [entry 100000](https://log.example/e/100000) **ok**")),
                 qPrintable(markdown.right(200)));
        QCOMPARE(markdown.count(QLatin1Char('\n')), 100001);

        QString deep;
        for (int i = 0; i < 50000; ++i)
            deep += QStringLiteral("<ul><li><blockquote><b>x");
        const QString flattened = HtmlToMarkdown::convert(deep, QUrl());
        QVERIFY(flattened.count(QLatin1Char('x')) == 50000);
        // Nesting deeper than the converter keeps is flattened: no line carries a prefix of thousands.
        qsizetype longest = 0;
        for (const QString &line : flattened.split(QLatin1Char('\n')))
            longest = std::max(longest, line.size());
        QVERIFY2(longest < 100, qPrintable(QString::number(longest)));

        const QString open = QStringLiteral("<p>start</p><a href=\"") + QString(1000000, QLatin1Char('y'));
        QCOMPARE(HtmlToMarkdown::convert(open, QUrl()), QStringLiteral("start"));
    }

    void validatesInput()
    {
        WebFetchTool tool;
        QVERIFY(tool.validateInput({}).startsWith(QStringLiteral("invalid input: missing required \"url\"")));
        QVERIFY(!tool.validateInput({{QStringLiteral("url"), QStringLiteral("https://a.example/")},
                                     {QStringLiteral("headers"), QStringLiteral("x")}})
                     .isEmpty());
        QVERIFY(!tool.validateInput({{QStringLiteral("url"), QStringLiteral("https://a.example/")},
                                     {QStringLiteral("checkCache"), QStringLiteral("yes")}})
                     .isEmpty());
        QVERIFY(tool.validateInput(fetch(QStringLiteral("https://a.example/"), true)).isEmpty());
        QCOMPARE(tool.inputSchema().value(QStringLiteral("additionalProperties")).toBool(true), false);
    }

    void fetchesAPageAsMarkdown()
    {
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/api/widget"), page(ArticleHtml));
        WebFetchTool tool;
        const QString url = server.url(QStringLiteral("/api/widget"));
        const ToolResult result = run(tool, fetch(url), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("url")).toString(), url);
        QCOMPARE(out.value(QStringLiteral("status_code")).toInt(), 200);
        QVERIFY(!out.contains(QStringLiteral("truncated")));
        QVERIFY(!out.contains(QStringLiteral("artifact_path")));
        const QString content = out.value(QStringLiteral("content")).toString();
        QVERIFY2(content.contains(QStringLiteral("# Widget API\n")), qPrintable(content));
        QVERIFY(content.contains(
            QStringLiteral("[the setup guide](%1)").arg(server.url(QStringLiteral("/docs/setup.html")))));
        QVERIFY(content.contains(QStringLiteral("```python\ndef run():")));
        QVERIFY(!content.contains(QStringLiteral("not content")));

        // The person was asked once, shown the URL; the request carried no cookie and no credentials.
        QCOMPARE(f.person.count(), 1);
        QCOMPARE(f.person.requests().first().toolName, QStringLiteral("web_fetch"));
        QCOMPARE(f.person.requests().first().path, url);
        QVERIFY(!f.person.requests().first().isDangerous);
        QVERIFY(!f.person.requests().first().outsideWorkspace);
        const QByteArray headers = server.lastHeaders().toLower();
        QVERIFY2(headers.contains("\r\nuser-agent: keendesktop/9.8.7\r\n"), headers.constData());
        QVERIFY(headers.contains(
            "\r\naccept: text/html, text/plain, text/markdown, application/json;q=0.9, */*;q=0.5\r\n"));
        QVERIFY(!headers.contains("cookie"));
        QVERIFY(!headers.contains("authorization"));
    }

    void textTypesComeBackAsText()
    {
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/notes.txt"), page("line 1\n<b>not markup</b>\n", "text/plain"));
        server.add(QStringLiteral("/data.json"),
                   page(R"({"name": "keen", "tags": ["a"]})", "application/json"));
        server.add(QStringLiteral("/K%C3%B6ln%20Dom"), page("<p>encoded</p>"));
        server.add(QStringLiteral("/latin1"),
                   page("<p>Caf\xe9 cr\xe8me</p>", "text/html; charset=iso-8859-1"));
        server.add(
            QStringLiteral("/meta-charset"),
            page("<html><head><meta charset=\"windows-1252\"></head><p>\x93quoted\x94</p>", "text/html"));
        server.add(QStringLiteral("/bad-utf8"), page("ok \xff\xfe end", "text/plain; charset=utf-8"));
        server.add(QStringLiteral("/untyped-html"), page("<!doctype html><h1>Sniffed</h1>", QByteArray()));
        WebFetchTool tool;
        auto content = [&](const QString &path) {
            const ToolResult result = run(tool, fetch(server.url(path)), f.context);
            return result.ok() ? result.output.toObject().value(QStringLiteral("content")).toString()
                               : QStringLiteral("error: ") + result.error;
        };
        QCOMPARE(content(QStringLiteral("/notes.txt")), QStringLiteral("line 1\n<b>not markup</b>\n"));
        QCOMPARE(content(QStringLiteral("/data.json")), QStringLiteral(R"({"name": "keen", "tags": ["a"]})"));
        QCOMPARE(content(QStringLiteral("/latin1")), QStringLiteral("Café crème"));
        // A URL as a person writes it (a space, a non-ASCII letter) is sent encoded.
        QCOMPARE(content(QStringLiteral("/Köln Dom")), QStringLiteral("encoded"));
        QCOMPARE(content(QStringLiteral("/meta-charset")), QStringLiteral("“quoted”"));
        QCOMPARE(content(QStringLiteral("/bad-utf8")), QStringLiteral("ok \uFFFD\uFFFD end"));
        QCOMPARE(content(QStringLiteral("/untyped-html")), QStringLiteral("# Sniffed"));
    }

    void failuresNameTheUrlAndTheReason()
    {
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/logo.png"), page(QByteArray(5000, 'P'), "image/png"));
        server.add(QStringLiteral("/blob"), page(QByteArray(5000, '\x01'), "application/octet-stream"));
        WebFetchTool tool;

        ToolResult result = run(tool, fetch(server.url(QStringLiteral("/missing"))), f.context);
        QVERIFY(!result.ok());
        QVERIFY2(
            result.error.startsWith(
                QStringLiteral("HTTP 404 Not Found from %1\n\n").arg(server.url(QStringLiteral("/missing")))),
            qPrintable(result.error));
        QVERIFY(result.error.contains(QStringLiteral("# Not here\n\nNo such page.")));

        result = run(tool, fetch(server.url(QStringLiteral("/logo.png"))), f.context);
        QCOMPARE(result.error, QStringLiteral("web_fetch reads text pages; %1 is image/png.")
                                   .arg(server.url(QStringLiteral("/logo.png"))));
        result = run(tool, fetch(server.url(QStringLiteral("/blob"))), f.context);
        QCOMPARE(result.error, QStringLiteral("web_fetch reads text pages; %1 is application/octet-stream.")
                                   .arg(server.url(QStringLiteral("/blob"))));

        // Refused before anyone is asked or anything is sent.
        const int asked = f.person.count();
        for (const QString &url :
             {QStringLiteral("file:///etc/passwd"), QStringLiteral("ftp://example.org/f"),
              QStringLiteral("data:text/plain,hello")}) {
            result = run(tool, fetch(url), f.context);
            QCOMPARE(result.error,
                     QStringLiteral("web_fetch fetches only http and https URLs; %1 is not one.").arg(url));
        }
        for (const QString &url :
             {QStringLiteral("example.org/page"), QStringLiteral("http://exa mple.org/")}) {
            result = run(tool, fetch(url), f.context);
            QCOMPARE(
                result.error,
                QStringLiteral("%1 is not a valid URL; web_fetch needs a full http:// or https:// address.")
                    .arg(url));
        }
        QCOMPARE(f.person.count(), asked);

        // Nothing listens on a port just freed.
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const QString refusedUrl = QStringLiteral("http://127.0.0.1:%1/").arg(closed.serverPort());
        closed.close();
        result = run(tool, fetch(refusedUrl), f.context);
        QVERIFY2(result.error.startsWith(QStringLiteral("Could not fetch %1: ").arg(refusedUrl)),
                 qPrintable(result.error));
        QVERIFY2(result.error.contains(QStringLiteral("refused"), Qt::CaseInsensitive),
                 qPrintable(result.error));
    }

    void followsRedirectsToWebUrlsOnly()
    {
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/final"), page("<h1>Arrived</h1>"));
        server.redirect(QStringLiteral("/r1"), "/r2", "301 Moved Permanently");
        server.redirect(QStringLiteral("/r2"), server.url(QStringLiteral("/final")).toUtf8());
        for (int i = 0; i < 6; ++i)
            server.redirect(QStringLiteral("/loop%1").arg(i), QStringLiteral("/loop%1").arg(i + 1).toUtf8());
        server.redirect(QStringLiteral("/to-file"), "file:///etc/passwd");
        WebFetchTool tool;

        ToolResult result = run(tool, fetch(server.url(QStringLiteral("/r1"))), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(result.output.toObject().value(QStringLiteral("url")).toString(),
                 server.url(QStringLiteral("/final")));
        QCOMPARE(result.output.toObject().value(QStringLiteral("content")).toString(),
                 QStringLiteral("# Arrived"));

        result = run(tool, fetch(server.url(QStringLiteral("/loop0"))), f.context);
        QCOMPARE(result.error,
                 QStringLiteral("Could not fetch %1: more than 5 redirects (the last one to %2).")
                     .arg(server.url(QStringLiteral("/loop0")), server.url(QStringLiteral("/loop6"))));
        QCOMPARE(server.requests(QStringLiteral("/loop5")), 1);
        QCOMPARE(server.requests(QStringLiteral("/loop6")), 0);

        result = run(tool, fetch(server.url(QStringLiteral("/to-file"))), f.context);
        QCOMPARE(result.error,
                 QStringLiteral("%1 redirects to file:///etc/passwd, which web_fetch does not follow: "
                                "only http and https URLs are fetched.")
                     .arg(server.url(QStringLiteral("/to-file"))));
    }

    // Over 128 KB of Markdown: the start inline, the whole text in a private file read_file can open.
    void aLargePageIsSavedWhole()
    {
        Fixture f;
        PageServer server;
        QByteArray html = "<h1>Big</h1>\n";
        while (html.size() < 300 * 1024)
            html += "<p>Paragraph " + QByteArray::number(html.size()) + " with some words in it.</p>\n";
        html += "<p>THE END</p>";
        server.add(QStringLiteral("/big"), page(html));
        WebFetchTool tool;
        const QString url = server.url(QStringLiteral("/big"));
        const ToolResult result = run(tool, fetch(url), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("truncated")).toBool(), true);
        const QString artifact = out.value(QStringLiteral("artifact_path")).toString();
        QCOMPARE(QFileInfo(artifact).absolutePath(),
                 f.context.dataDir + QStringLiteral("/web-fetch-artifacts"));
        QVERIFY(QFileInfo(artifact).fileName().contains(
            QRegularExpression(QStringLiteral("^keen-web-fetch-[0-9a-f]{16}\\.txt$"))));
        QCOMPARE(mode(artifact), 0600);
        QCOMPARE(mode(QFileInfo(artifact).absolutePath()), 0700);
        QFile file(artifact);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString whole = QString::fromUtf8(file.readAll());
        QCOMPARE(whole, HtmlToMarkdown::convert(QString::fromUtf8(html), QUrl(url)));
        QVERIFY(whole.endsWith(QStringLiteral("THE END")));

        const QString content = out.value(QStringLiteral("content")).toString();
        const qsizetype note = content.indexOf(QStringLiteral("\n\n[Truncated: this is the first "));
        QVERIFY2(note > 0, qPrintable(content.right(300)));
        QVERIFY(content.left(note).toUtf8().size() <= WebFetchTool::MaxInlineBytes);
        QVERIFY(whole.startsWith(content.left(note)));
        QVERIFY(content.left(note).endsWith(QStringLiteral("words in it."))); // cut at a line break
        QVERIFY(content.contains(artifact));
        QVERIFY(!content.contains(QStringLiteral("THE END")));

        // The guard lets read_file open it: the model reads the rest from there.
        ReadFileTool reader;
        const ToolResult read =
            reader.execute({{QStringLiteral("path"), artifact},
                            {QStringLiteral("offset"), int(whole.count(QLatin1Char('\n'))) + 1}},
                           f.context);
        QVERIFY2(read.ok(), qPrintable(read.error));
        QVERIFY(read.output.toObject()
                    .value(QStringLiteral("content"))
                    .toString()
                    .endsWith(QStringLiteral("|THE END")));
        QCOMPARE(f.person.count(), 1); // the fetch; the read needed no question
    }

    // 100,000 lines (11 MB), over the 10 MiB download cap: read up to the cap, said so, and saved whole as
    // read.
    void aHugeDownloadStopsAtTheCap()
    {
        Fixture f;
        PageServer server;
        QByteArray text;
        for (int i = 1; i <= 100000; ++i)
            text += "log line " + QByteArray::number(i) + " " + QByteArray(100, 'x') + "\n";
        QVERIFY(text.size() > WebFetchTool::MaxDownloadBytes);
        server.add(QStringLiteral("/huge.log"), page(text, "text/plain"));
        WebFetchTool tool;
        const ToolResult result = run(tool, fetch(server.url(QStringLiteral("/huge.log"))), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("truncated")).toBool(), true);
        QVERIFY(out.value(QStringLiteral("content"))
                    .toString()
                    .endsWith(QStringLiteral("\n\n[Stopped reading after 10 MiB: the page is longer.]")));
        QCOMPARE(QFileInfo(out.value(QStringLiteral("artifact_path")).toString()).size(),
                 WebFetchTool::MaxDownloadBytes);
    }

    // checkCache answers from this session's earlier result: no request, no second question.
    void aCachedPageNeedsNoRequestAndNoQuestion()
    {
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/small"), page("<p>small page</p>"));
        server.redirect(QStringLiteral("/moved"), "/small");
        WebFetchTool tool;
        const QString url = server.url(QStringLiteral("/small"));

        ToolResult first = run(tool, fetch(url), f.context);
        QVERIFY2(first.ok(), qPrintable(first.error));
        QVERIFY(!first.output.toObject().contains(QStringLiteral("cached")));
        ToolResult again = run(tool, fetch(url, true), f.context);
        QVERIFY2(again.ok(), qPrintable(again.error));
        QCOMPARE(again.output.toObject().value(QStringLiteral("cached")).toBool(), true);
        QCOMPARE(again.output.toObject().value(QStringLiteral("content")).toString(),
                 QStringLiteral("small page"));
        QCOMPARE(server.requests(QStringLiteral("/small")), 1);
        QCOMPARE(f.person.count(), 1);

        // Without checkCache the page is fetched again (and asked for again).
        QVERIFY(run(tool, fetch(url), f.context).ok());
        QCOMPARE(server.requests(QStringLiteral("/small")), 2);
        QCOMPARE(f.person.count(), 2);

        // A URL never fetched goes to the network; its result is kept under the final URL too.
        QVERIFY(run(tool, fetch(server.url(QStringLiteral("/moved")), true), f.context).ok());
        QCOMPARE(server.requests(QStringLiteral("/moved")), 1);
        QVERIFY(run(tool, fetch(server.url(QStringLiteral("/moved")), true), f.context).ok());
        QCOMPARE(server.requests(QStringLiteral("/moved")), 1);
        QCOMPARE(server.requests(QStringLiteral("/small")), 3);

        // Pages over 16 KiB are kept on disk (as the reference agent keeps them), owner-only, beside the
        // artifacts; one over 128 KB too, with its artifact.
        server.add(QStringLiteral("/medium"), page(QByteArray(20 * 1024, 'm'), "text/plain"));
        const QString medium = server.url(QStringLiteral("/medium"));
        const ToolResult fetched = run(tool, fetch(medium, true), f.context);
        QVERIFY(fetched.ok());
        const ToolResult kept = run(tool, fetch(medium, true), f.context);
        QVERIFY(kept.ok());
        QCOMPARE(server.requests(QStringLiteral("/medium")), 1);
        QCOMPARE(kept.output.toObject().value(QStringLiteral("cached")).toBool(), true);
        QCOMPARE(kept.output.toObject().value(QStringLiteral("content")).toString(),
                 QString(20 * 1024, u'm'));
        const QDir artifacts(f.context.dataDir + QStringLiteral("/web-fetch-artifacts"));
        const QStringList files =
            artifacts.entryList({QStringLiteral("keen-web-fetch-cache-*.json")}, QDir::Files);
        QCOMPARE(files.size(), 1);
        QCOMPARE(mode(artifacts.filePath(files.first())), 0600);

        server.add(QStringLiteral("/large"), page(QByteArray(200 * 1024, 'l'), "text/plain"));
        const QString large = server.url(QStringLiteral("/large"));
        const QJsonObject firstLarge = run(tool, fetch(large, true), f.context).output.toObject();
        const QJsonObject secondLarge = run(tool, fetch(large, true), f.context).output.toObject();
        QCOMPARE(server.requests(QStringLiteral("/large")), 1);
        QCOMPARE(secondLarge.value(QStringLiteral("artifact_path")),
                 firstLarge.value(QStringLiteral("artifact_path")));
        QCOMPARE(secondLarge.value(QStringLiteral("content")), firstLarge.value(QStringLiteral("content")));

        // Its file gone (/cleanup): fetched again. Another session's tool does not know the file.
        QVERIFY(QFile::remove(artifacts.filePath(files.first())));
        QVERIFY(run(tool, fetch(medium, true), f.context).ok());
        QCOMPARE(server.requests(QStringLiteral("/medium")), 2);
        WebFetchTool otherSession;
        QVERIFY(run(otherSession, fetch(medium, true), f.context).ok());
        QCOMPARE(server.requests(QStringLiteral("/medium")), 3);
    }

    void permissionDecidesBeforeAnyRequest()
    {
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/p"), page("<p>page</p>"));
        const QString url = server.url(QStringLiteral("/p"));
        WebFetchTool tool;

        f.person.setAnswer(PermissionDecision::Deny);
        ToolResult result = run(tool, fetch(url), f.context);
        QCOMPARE(result.error, QStringLiteral("Permission denied: the user declined web_fetch."));
        f.person.setAnswer(PermissionDecision::Redirect);
        result = run(tool, fetch(url), f.context);
        QVERIFY(result.stopTurn);
        QCOMPARE(server.totalRequests(), 0);

        // Through the policy: "Allow for this session" covers the next fetch.
        f.person.setAnswer(PermissionDecision::AllowForSession);
        PermissionPolicy policy(f.ws.path(), &f.person);
        f.context.permissions = &policy;
        const int asked = f.person.count();
        QVERIFY(run(tool, fetch(url), f.context).ok());
        QVERIFY(run(tool, fetch(url), f.context).ok());
        QCOMPARE(f.person.count(), asked + 1);

        // The project allow-list.
        PermissionPolicy listed(f.ws.path(), &f.person);
        QVERIFY(test::writeFile(PermissionPolicy::allowListPath(f.ws.path()), R"({"allow":["web_fetch"]})"));
        f.context.permissions = &listed;
        QVERIFY(run(tool, fetch(url), f.context).ok());
        QCOMPARE(f.person.count(), asked + 1);

        // A headless run, and plan mode (read-only: it changes nothing). The page is on this computer: not
        // fetched where nobody is asked, unless KEEN_WEB_FETCH_LOCAL=1 says so.
        PermissionPolicy headless(QString(), nullptr, true);
        f.context.permissions = &headless;
        f.context.interactive = false;
        f.context.mode = AgentMode::Plan;
        result = run(tool, fetch(url), f.context);
        QCOMPARE(result.error,
                 QStringLiteral("web_fetch does not fetch %1: 127.0.0.1 is on this computer or the "
                                "local network, and nobody is here to allow that (set "
                                "KEEN_WEB_FETCH_LOCAL=1 to let runs fetch such addresses).")
                     .arg(url));
        QCOMPARE(server.requests(QStringLiteral("/p")), 3);
        qputenv("KEEN_WEB_FETCH_LOCAL", "1");
        const auto unset = qScopeGuard([] { qunsetenv("KEEN_WEB_FETCH_LOCAL"); });
        result = run(tool, fetch(url), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(server.requests(QStringLiteral("/p")), 4);
    }

    // SSRF: a page the person allowed on the internet must not lead the fetch into this computer or its
    // network (127.0.0.1, a cloud's 169.254.169.254); a local address asked for directly is named in the
    // question.
    void localAddressesAreNamedAndNeverReachedByARedirect()
    {
        for (const char *local :
             {"127.0.0.1", "127.8.9.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254",
              "100.64.1.1", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::"})
            QVERIFY2(LocalNetwork::contains(QHostAddress(QString::fromLatin1(local))), local);
        for (const char *remote : {"8.8.8.8", "172.32.0.1", "100.128.0.1", "203.0.113.7", "2001:4860::8888"})
            QVERIFY2(!LocalNetwork::contains(QHostAddress(QString::fromLatin1(remote))), remote);
        const QDeadlineTimer soon(5000);
        QCOMPARE(LocalNetwork::localAddressOf(QStringLiteral("LocalHost"), {}, soon),
                 QStringLiteral("localhost"));
        QCOMPARE(LocalNetwork::localAddressOf(QStringLiteral("api.localhost"), {}, soon),
                 QStringLiteral("api.localhost"));
        QCOMPARE(LocalNetwork::localAddressOf(QStringLiteral("[::1]"), {}, soon), QStringLiteral("::1"));
        QCOMPARE(LocalNetwork::localAddressOf(QStringLiteral("203.0.113.7"), {}, soon), QString());

        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/secret"), page("<p>only this machine may read this</p>"));
        server.add(QStringLiteral("/p"), page("<p>a local page</p>"));
        WebFetchTool tool;

        // Asked directly: allowed when the person says so, and the question says where it goes.
        ToolResult result = run(tool, fetch(server.url(QStringLiteral("/p"))), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(
            f.person.requests().constLast().summary,
            QStringLiteral("127.0.0.1 is an address on this computer or your local network (127.0.0.1)."));

        // A page on the internet (here reached through a proxy that is this test's server) redirecting into
        // this computer: refused before the second request.
        const QString publicPage = QStringLiteral("http://203.0.113.7/start");
        server.redirect(publicPage, server.url(QStringLiteral("/secret")).toLatin1());
        QNetworkProxy::setApplicationProxy(
            QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("127.0.0.1"), server.port()));
        const auto noProxy = qScopeGuard([] { QNetworkProxy::setApplicationProxy(QNetworkProxy::NoProxy); });
        result = run(tool, fetch(publicPage), f.context);
        QCOMPARE(result.error, QStringLiteral("%1 redirects to %2, an address on this computer or the local "
                                              "network (127.0.0.1), which web_fetch does not follow from an "
                                              "internet address.")
                                   .arg(publicPage, server.url(QStringLiteral("/secret"))));
        QCOMPARE(server.requests(publicPage), 1);
        QCOMPARE(server.requests(QStringLiteral("/secret")), 0);
        QVERIFY(f.person.requests().constLast().summary.isEmpty()); // an internet address: nothing to warn of
    }

    // DNS rebinding: a name checked as one address must not be fetched from another. The request goes to
    // the address the name was checked at, naming the host to the server; nothing looks the name up again
    // (here nothing else could: only the test answers for docs.example.test).
    void aNameIsFetchedFromTheAddressItWasCheckedAt()
    {
        int lookups = 0;
        LocalNetwork::setResolverForTests([&lookups](const QString &name) -> QList<QHostAddress> {
            if (name == QLatin1String("docs.example.test") || name == QLatin1String("next.example.test")) {
                ++lookups;
                return {QHostAddress(QStringLiteral("127.0.0.1"))};
            }
            return {};
        });
        const auto systemResolver = qScopeGuard([] { LocalNetwork::setResolverForTests({}); });
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/p"), page("<p>the docs</p>"));
        const QString there = QStringLiteral("http://next.example.test:%1/p").arg(server.port());
        server.redirect(QStringLiteral("/moved"), there.toLatin1());
        WebFetchTool tool;

        const QString url = QStringLiteral("http://docs.example.test:%1/p").arg(server.port());
        ToolResult result = run(tool, fetch(url), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QVERIFY(result.output.toObject()
                    .value(QStringLiteral("content"))
                    .toString()
                    .contains(QStringLiteral("the docs")));
        QVERIFY2(server.lastHeaders().contains(
                     QStringLiteral("\r\nHost: docs.example.test:%1\r\n").arg(server.port()).toLatin1()),
                 server.lastHeaders().constData());
        QCOMPARE(server.lastHeaders().toLower().count("\r\nhost:"), 1);
        QCOMPARE(f.person.requests().constLast().summary,
                 QStringLiteral("docs.example.test is an address on this computer or your local network "
                                "(127.0.0.1)."));
        QCOMPARE(lookups, 1);

        // Each redirect is looked up once too, and fetched from where it was checked.
        result = run(tool, fetch(QStringLiteral("http://docs.example.test:%1/moved").arg(server.port())),
                     f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(result.output.toObject().value(QStringLiteral("url")).toString(), there);
        QVERIFY(server.lastHeaders().contains(
            QStringLiteral("\r\nHost: next.example.test:%1\r\n").arg(server.port()).toLatin1()));
        QCOMPARE(lookups, 3);

        // A name that does not resolve is not fetched (asking again could bring any answer).
        result = run(tool, fetch(QStringLiteral("http://nowhere.invalid/p")), f.context);
        QCOMPARE(result.error,
                 QStringLiteral("Could not fetch http://nowhere.invalid/p: Host nowhere.invalid not found."));
    }

    // A name with several addresses is fetched from the next one when the first cannot be connected to, as
    // Qt's own connection would (seen and left since 12-07: one address was pinned, so a site down at its
    // first address, or one whose IPv4 address has no route, failed).
    void theNextAddressOfANameIsTriedWhenOneRefuses()
    {
        LocalNetwork::setResolverForTests([](const QString &name) -> QList<QHostAddress> {
            if (name == QLatin1String("docs.example.test")) // nothing listens on 127.0.0.2
                return {QHostAddress(QStringLiteral("127.0.0.2")), QHostAddress(QStringLiteral("127.0.0.1"))};
            if (name == QLatin1String("down.example.test"))
                return {QHostAddress(QStringLiteral("127.0.0.2")), QHostAddress(QStringLiteral("127.0.0.3"))};
            return {};
        });
        const auto systemResolver = qScopeGuard([] { LocalNetwork::setResolverForTests({}); });
        Fixture f;
        PageServer server;
        server.add(QStringLiteral("/p"), page("<p>the docs</p>"));
        WebFetchTool tool;

        ToolResult result =
            run(tool, fetch(QStringLiteral("http://docs.example.test:%1/p").arg(server.port())), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QVERIFY(result.output.toObject()
                    .value(QStringLiteral("content"))
                    .toString()
                    .contains(QStringLiteral("the docs")));
        QVERIFY(server.lastHeaders().contains(
            QStringLiteral("\r\nHost: docs.example.test:%1\r\n").arg(server.port()).toLatin1()));

        // None answers: the error says which were tried.
        const QString down = QStringLiteral("http://down.example.test:%1/p").arg(server.port());
        result = run(tool, fetch(down), f.context);
        QVERIFY(!result.ok());
        QVERIFY2(result.error.startsWith(QStringLiteral("Could not fetch %1: ").arg(down)) &&
                     result.error.endsWith(QStringLiteral(" (tried 2 addresses: 127.0.0.2, 127.0.0.3).")),
                 qPrintable(result.error));
    }

    // The same over https: the connection goes to the checked address, and the server must still present
    // a certificate for the name (checked against the name, not the address; the name is sent as SNI).
    void anHttpsNameIsFetchedFromTheAddressItWasCheckedAt()
    {
        QTemporaryDir dir;
        const QString keyFile = dir.filePath(QStringLiteral("key.pem"));
        const QString certFile = dir.filePath(QStringLiteral("cert.pem"));
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
                      {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                       QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-days"),
                       QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=docs.example.test"),
                       QStringLiteral("-addext"), QStringLiteral("subjectAltName=DNS:docs.example.test"),
                       QStringLiteral("-keyout"), keyFile, QStringLiteral("-out"), certFile});
        QVERIFY2(openssl.waitForFinished(60000) && openssl.exitCode() == 0,
                 openssl.readAllStandardError().constData());
        QFile keyPem(keyFile);
        QFile certPem(certFile);
        QVERIFY(keyPem.open(QIODevice::ReadOnly) && certPem.open(QIODevice::ReadOnly));
        const QSslKey key(keyPem.readAll(), QSsl::Rsa);
        const QSslCertificate certificate(certPem.readAll());
        QVERIFY(!key.isNull() && !certificate.isNull());
        // This test's certificate is trusted for the test only.
        const QSslConfiguration before = QSslConfiguration::defaultConfiguration();
        QSslConfiguration trusting = before;
        trusting.addCaCertificate(certificate);
        QSslConfiguration::setDefaultConfiguration(trusting);
        const auto restore = qScopeGuard([before] { QSslConfiguration::setDefaultConfiguration(before); });
        LocalNetwork::setResolverForTests([](const QString &name) -> QList<QHostAddress> {
            if (name == QLatin1String("docs.example.test"))
                return {QHostAddress(QStringLiteral("127.0.0.1"))};
            return {};
        });
        const auto systemResolver = qScopeGuard([] { LocalNetwork::setResolverForTests({}); });

        TlsPageServer server(certificate, key, "<p>the secure docs</p>");
        Fixture f;
        WebFetchTool tool;
        const QString url = QStringLiteral("https://docs.example.test:%1/p").arg(server.serverPort());
        const ToolResult result = run(tool, fetch(url), f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QVERIFY(result.output.toObject()
                    .value(QStringLiteral("content"))
                    .toString()
                    .contains(QStringLiteral("the secure docs")));
        QVERIFY2(
            server.lastHeaders().contains(
                QStringLiteral("\r\nHost: docs.example.test:%1\r\n").arg(server.serverPort()).toLatin1()),
            server.lastHeaders().constData());
        QCOMPARE(server.lastHeaders().toLower().count("\r\nhost:"), 1);
    }

    void aStalledServerTimesOut()
    {
        Fixture f;
        PageServer server;
        PageServer::Reply stalled;
        stalled.neverEnds = true;
        server.add(QStringLiteral("/stalled"), stalled);
        WebFetchTool tool;
        tool.setTimeoutMs(1000);
        QElapsedTimer timer;
        timer.start();
        const ToolResult result = run(tool, fetch(server.url(QStringLiteral("/stalled"))), f.context);
        QCOMPARE(result.error, QStringLiteral("Could not fetch %1: timed out after 1 s.")
                                   .arg(server.url(QStringLiteral("/stalled"))));
        QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
    }

    void cancellingEndsTheFetchAtOnce()
    {
        Fixture f;
        PageServer server;
        PageServer::Reply slow;
        slow.neverEnds = true;
        server.add(QStringLiteral("/slow"), slow);
        WebFetchTool tool; // the 30 s limit: only the cancel can end it in time
        QTimer::singleShot(300, this, [token = f.context.cancel] { token.cancel(); });
        QElapsedTimer timer;
        timer.start();
        const ToolResult result = run(tool, fetch(server.url(QStringLiteral("/slow"))), f.context);
        QCOMPARE(result.error,
                 QStringLiteral("Cancelled while fetching %1.").arg(server.url(QStringLiteral("/slow"))));
        QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(server.requests(QStringLiteral("/slow")), 1);
    }
};

QTEST_GUILESS_MAIN(TestWebFetch)
#include "tst_webfetch.moc"
