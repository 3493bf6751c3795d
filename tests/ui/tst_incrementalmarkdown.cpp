// IncrementalMarkdown (issue 11): a growing reply is parsed block by block, only the open tail again per
// update, and shows the same text as one render of the whole reply. Inline code is styled (issues 11 and 15).
#include "chat/chatcolors.h"
#include "chat/incrementalmarkdown.h"
#include "chat/listnumbering.h"
#include "chat/stackedtext.h"
#include "workloads.h"

#include <QApplication>
#include <QFontDatabase>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextLayout>
#include <QTextTable>

#include <algorithm>
#include <functional>
#include <numeric>

using namespace keen;

namespace {

QString oneShotPlainText(const QString &markdown)
{
    QTextDocument document;
    document.setMarkdown(markdown, ListNumbering::Dialect);
    return document.toPlainText();
}

// Everything markdown shows as it copies: each line's list number ("2. ") or bullet as drawn, then its text.
QString copied(const IncrementalMarkdown &markdown)
{
    const StackedText text(markdown.layers());
    return text.text(0, text.end());
}

QPalette darkPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
    palette.setColor(QPalette::Base, QColor(0x1b, 0x1d, 0x20));
    palette.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    palette.setColor(QPalette::Link, QColor(0x6c, 0xb6, 0xff));
    return palette;
}

// The first table of document, if any.
QTextTable *firstTable(const QTextDocument &document)
{
    for (QTextFrame *frame : document.rootFrame()->childFrames()) {
        if (auto *table = qobject_cast<QTextTable *>(frame))
            return table;
    }
    return nullptr;
}

} // namespace

class TestIncrementalMarkdown : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void streamedReplyShowsWhatAOneShotRenderShows();
    void eachUpdateParsesOnlyTheOpenTail();
    void fencesAndLooseListsAreNeverCut();
    void aLongCodeBlockIsParsedInPieces();
    void aTableAfterCodeOrAQuoteHasItsHeaderInPlace_data();
    void aTableAfterCodeOrAQuoteHasItsHeaderInPlace();
    void anEscapedPipeInATableCodeSpanIsAPipe();
    void aLongLineOfCodeWrapsAndStaysCode();
    void tagsInAReplyShowAsTyped();
    void textThatDoesNotExtendIsRenderedAfresh();
    void rowCutAtABlockKeepsItsFinishedSegments();
    void inlineCodeIsMonospaceAndTintedInBothPalettes_data();
    void inlineCodeIsMonospaceAndTintedInBothPalettes();
    void heightFollowsWidth();
    void streamedParagraphsKeepTheirSpacing();
    void aQuoteHasABarBesideIt_data();
    void aQuoteHasABarBesideIt();
    void orderedListsShowTheNumbersOfTheirMarkdown_data();
    void orderedListsShowTheNumbersOfTheirMarkdown();
    void aListAfterACodeBlockReadsOnWhileStreaming();
    void aListNotStartingAtOneIsDrawnAsQtDrawsNumbers();
    void aLongListIsParsedInPieces_data();
    void aLongListIsParsedInPieces();
    void aListEndedByALessIndentedLineStartsAfresh();
    void aSelectionAcrossListPiecesSelectsEveryMarker_data();
    void aSelectionAcrossListPiecesSelectsEveryMarker();
    void aLongTableIsParsedInPieces_data();
    void aLongTableIsParsedInPieces();
    void aShortTableShowsAsOneRenderShowsIt();
    void aCutTablesColumnsStayInLineWhenTheWidthChanges();
};

void TestIncrementalMarkdown::streamedReplyShowsWhatAOneShotRenderShows()
{
    const QString text = test::Workloads::markdownReply(60000);
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(600);
    for (qsizetype at = 0; at < text.size(); at += 7 * 37) // 37 chunks of 7 chars per flush
        markdown.setText(text.left(at));
    markdown.setText(text);
    QCOMPARE(markdown.toPlainText(), oneShotPlainText(text));
    QVERIFY(markdown.segmentCount() > 1);
    QVERIFY(markdown.size().height() > 0);
}

void TestIncrementalMarkdown::eachUpdateParsesOnlyTheOpenTail()
{
    // 200,000 chars in flushes of 7 * 20 chars. What one flush parses is bounded by the open block and the
    // small finished segment it may merge with, whatever the reply's length; a full render per flush would
    // parse about 143 million chars in all.
    const QString text = test::Workloads::markdownReply(200000);
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(600);
    qsizetype longestTail = 0;
    qint64 mostParsedInOneFlush = 0;
    qint64 fullRenderChars = 0;
    for (qsizetype at = 140; at < text.size() + 140; at += 140) {
        const qint64 before = markdown.counters().charsParsed;
        markdown.setText(text.left(at));
        mostParsedInOneFlush = qMax(mostParsedInOneFlush, markdown.counters().charsParsed - before);
        longestTail = qMax(longestTail, qMin(at, text.size()) - markdown.finishedLength());
        fullRenderChars += qMin(at, text.size());
    }
    const IncrementalMarkdown::Counters counters = markdown.counters();
    QCOMPARE(counters.fullRenders, 0);
    QVERIFY2(longestTail < 1000, qPrintable(QString::number(longestTail)));
    QVERIFY2(mostParsedInOneFlush < 4000, qPrintable(QString::number(mostParsedInOneFlush)));
    QVERIFY2(counters.charsParsed * 20 < fullRenderChars,
             qPrintable(QStringLiteral("%1 of %2").arg(counters.charsParsed).arg(fullRenderChars)));
    QCOMPARE(markdown.toPlainText(), oneShotPlainText(text));
}

// Finished segments never end inside a short fence or a loose list (a long fence is cut in pieces that
// render as one block: aLongCodeBlockIsParsedInPieces).
void TestIncrementalMarkdown::fencesAndLooseListsAreNeverCut()
{
    const QString text = QStringLiteral("Intro paragraph.\n\n```python\ndef f():\n\n    return 1\n\n\n```\n\n"
                                        "- one\n\n- two\n\n  more of two\n\n1. first\n\n2. second\n\nEnd.\n");
    const qsizetype fenceStart = text.indexOf(QStringLiteral("```python"));
    const qsizetype fenceEnd = text.indexOf(QStringLiteral("```\n\n- one")) + 4;
    const qsizetype listStart = text.indexOf(QStringLiteral("- one"));
    const qsizetype listEnd = text.indexOf(QStringLiteral("End."));
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(500);
    QList<qsizetype> boundaries;
    for (qsizetype at = 1; at <= text.size(); ++at) {
        markdown.setText(text.left(at));
        if (boundaries.isEmpty() || boundaries.last() != markdown.finishedLength())
            boundaries.append(markdown.finishedLength());
    }
    for (const qsizetype boundary : std::as_const(boundaries)) {
        QVERIFY2(boundary <= fenceStart || boundary >= fenceEnd, qPrintable(QString::number(boundary)));
        QVERIFY2(boundary <= listStart || boundary >= listEnd, qPrintable(QString::number(boundary)));
    }
    QVERIFY(boundaries.contains(fenceStart)); // the intro was finished on its own
    QCOMPARE(markdown.toPlainText(), oneShotPlainText(text));
}

// A file written in one code fence (2,000 lines, about 70,000 chars) was parsed whole on every flush, its
// cost growing with the square of its length (found by a read against issue 11: a 40,000-char table took 1.9
// s of CPU). A fence at the margin is parsed in pieces of about 2,000 chars; what shows, its height and the
// code a person copies are those of one render of the whole reply.
void TestIncrementalMarkdown::aLongCodeBlockIsParsedInPieces()
{
    QString code;
    for (int i = 1; i <= 2000; ++i) {
        code += i % 50 == 0
                    ? QString() // blank lines inside the code, some where a piece may start
                    : QStringLiteral("    total_%1 = compute(values[%1], scale=%1)  # step %1").arg(i);
        code += QLatin1Char('\n');
    }
    code.chop(1);
    const QString text = QStringLiteral("Here is the file:\n\n```python\n") + code +
                         QStringLiteral("\n```\n\nRun it with `python3 steps.py`.\n");
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(700);
    qint64 mostParsedInOneFlush = 0;
    qint64 fullRenderChars = 0;
    for (qsizetype at = 140; at < text.size() + 140; at += 140) {
        const qint64 before = markdown.counters().charsParsed;
        markdown.setText(text.left(at));
        mostParsedInOneFlush = qMax(mostParsedInOneFlush, markdown.counters().charsParsed - before);
        fullRenderChars += qMin(at, text.size());
    }
    const IncrementalMarkdown::Counters counters = markdown.counters();
    QCOMPARE(counters.fullRenders, 0);
    // A flush parses the piece it finishes and the open one: about two pieces of 2,048 chars at most.
    QVERIFY2(mostParsedInOneFlush < 5000, qPrintable(QString::number(mostParsedInOneFlush)));
    QVERIFY2(counters.charsParsed * 20 < fullRenderChars,
             qPrintable(QStringLiteral("%1 of %2").arg(counters.charsParsed).arg(fullRenderChars)));
    QVERIFY2(markdown.segmentCount() > 10, qPrintable(QString::number(markdown.segmentCount())));

    QCOMPARE(markdown.toPlainText(), oneShotPlainText(text));
    QTextDocument whole;
    whole.setDocumentMargin(0);
    whole.setDefaultFont(QApplication::font());
    whole.setMarkdown(text, ListNumbering::Dialect);
    IncrementalMarkdown::style(whole, QApplication::palette());
    whole.setTextWidth(700);
    QCOMPARE(qRound(markdown.size().height()), qRound(whole.size().height()));
    // Copying the code block from anywhere in it copies all of it, across the pieces.
    for (const qreal fraction : {0.05, 0.5, 0.97})
        QCOMPARE(markdown.codeBlockAt(QPointF(40, markdown.size().height() * fraction)), code);
}

void TestIncrementalMarkdown::aTableAfterCodeOrAQuoteHasItsHeaderInPlace_data()
{
    QTest::addColumn<QString>("before");
    QTest::newRow("a code block") << QStringLiteral("```\nx = 1\n```\n\n");
    QTest::newRow("a quote") << QStringLiteral("> quoted\n\n");
    QTest::newRow("a paragraph") << QStringLiteral("Some text.\n\n");
    QTest::newRow("nothing") << QString();
}

// Found trying the window: after a code block or a quote, a table's first header cell ("col A") sat a line
// lower than the others and was not bold. Qt's importer puts an empty block first in that cell; the styling
// removes it and makes the header row bold, as after a paragraph.
void TestIncrementalMarkdown::aTableAfterCodeOrAQuoteHasItsHeaderInPlace()
{
    QFETCH(QString, before);
    QTextDocument document;
    document.setMarkdown(before + QStringLiteral("| col A | col B |\n|---|---|\n| a | b |\n"),
                         ListNumbering::Dialect);
    IncrementalMarkdown::style(document, QApplication::palette());
    QTextTable *table = firstTable(document);
    QVERIFY(table);
    for (int column = 0; column < 2; ++column) {
        const QTextTableCell cell = table->cellAt(0, column);
        const QTextBlock block = document.findBlock(cell.firstPosition());
        QCOMPARE(block.text(), column == 0 ? QStringLiteral("col A") : QStringLiteral("col B"));
        QCOMPARE(document.findBlock(cell.lastPosition()).position(), block.position()); // one block
        QCOMPARE(block.begin().fragment().charFormat().fontWeight(), int(QFont::Bold));
    }
    QCOMPARE(document.findBlock(table->cellAt(1, 0).firstPosition()).text(), QStringLiteral("a"));
}

// Found in the commands table (/help): "/mode [plan\|build\|yolo]" showed its backslashes. In a table, GFM
// reads "\|" as a pipe inside code spans too; a code span outside a table keeps it (CommonMark).
void TestIncrementalMarkdown::anEscapedPipeInATableCodeSpanIsAPipe()
{
    QTextDocument document;
    document.setMarkdown(
        QStringLiteral("| Command | What |\n|---|---|\n| `a \\| b` | pipes `x\\|y\\|z` and a\\|b |\n"
                       "\nOutside: `p \\| q`\n"),
        ListNumbering::Dialect);
    IncrementalMarkdown::style(document, QApplication::palette());
    QTextTable *table = firstTable(document);
    QVERIFY(table);
    QCOMPARE(table->columns(), 2);
    QCOMPARE(document.findBlock(table->cellAt(1, 0).firstPosition()).text(), QStringLiteral("a | b"));
    QCOMPARE(document.findBlock(table->cellAt(1, 1).firstPosition()).text(),
             QStringLiteral("pipes x|y|z and a|b"));
    // Still code: monospace and styled.
    const QTextBlock cell = document.findBlock(table->cellAt(1, 0).firstPosition());
    QVERIFY(cell.begin().fragment().charFormat().fontFixedPitch());
    QVERIFY(document.toPlainText().contains(QStringLiteral("Outside: p \\| q")));
}

// Found when tried: a line of code wider than the view ran out of sight (the chat cannot scroll sideways).
// It wraps at the row's width, a token longer than a line anywhere; the block is still code (its Copy Code
// Block and pin find it whole).
void TestIncrementalMarkdown::aLongLineOfCodeWrapsAndStaysCode()
{
    QStringList numbers;
    for (int i = 0; i < 600; ++i)
        numbers << QString::number(i);
    const QString line = QStringLiteral("x = [") + numbers.join(QStringLiteral(", ")) + QLatin1Char(']');
    const QString token = QString(700, QLatin1Char('f'));
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(400);
    markdown.setText(QStringLiteral("Here:\n\n```\n") + line + QLatin1Char('\n') + token +
                     QStringLiteral("\n```\n"));
    const QSizeF size = markdown.size();
    QVERIFY2(size.width() <= 400.5, qPrintable(QString::number(size.width())));
    const QFontMetricsF fixed(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    QVERIFY2(size.height() > 10 * fixed.height(), qPrintable(QString::number(size.height())));
    // A point low in the block (on a wrapped line) is in the code block, which is the whole code.
    QCOMPARE(markdown.codeBlockAt(QPointF(40, size.height() - fixed.height())),
             line + QLatin1Char('\n') + token);
}

// Found when tried: "The generic is Vec<String>" read "The generic is Vec", and "wrap it in a <div>
// element" lost its tag: raw HTML in a reply was taken as HTML. Tags show as typed; an autolink still links.
void TestIncrementalMarkdown::tagsInAReplyShowAsTyped()
{
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(600);
    markdown.setText(QStringLiteral("The generic is Vec<String>; wrap it in a <div> element, close it with "
                                    "</div>, <b>not bold</b>.\n\n<details>\nhidden?\n</details>\n\n"
                                    "See <https://example.com/docs>.\n"));
    const QString shown = markdown.toPlainText();
    for (const QString &typed :
         {QStringLiteral("Vec<String>;"), QStringLiteral("a <div> element"), QStringLiteral("with </div>,"),
          QStringLiteral("<b>not bold</b>"), QStringLiteral("<details>"), QStringLiteral("hidden?")})
        QVERIFY2(shown.contains(typed), qPrintable(typed + QStringLiteral(" in: ") + shown));
    QTextDocument document;
    ListNumbering::setMarkdown(document, QStringLiteral("See <https://example.com/docs>.\n"));
    QTextCursor link(&document);
    link.setPosition(document.toPlainText().indexOf(QStringLiteral("example")) + 1);
    QCOMPARE(link.charFormat().anchorHref(), QStringLiteral("https://example.com/docs"));
}

void TestIncrementalMarkdown::textThatDoesNotExtendIsRenderedAfresh()
{
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(400);
    markdown.setText(QStringLiteral("First paragraph.\n\nSecond"));
    markdown.setText(QStringLiteral("Other text."));
    QCOMPARE(markdown.counters().fullRenders, 1);
    QCOMPARE(markdown.toPlainText(), QStringLiteral("Other text."));
}

// Issue 11: a long reply that moves on to a new row is cut at a block boundary (ChatModel::MaxRowChars). The
// cut keeps the finished segments before it and parses only what follows the last of them: no stall of a
// whole-row render on the GUI thread.
void TestIncrementalMarkdown::rowCutAtABlockKeepsItsFinishedSegments()
{
    const QString text = test::Workloads::markdownReply(16000);
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(600);
    for (qsizetype at = 140; at < text.size() + 140; at += 140)
        markdown.setText(text.left(at));
    qsizetype cut = -1;
    for (const qsizetype boundary : IncrementalMarkdown::blockBoundaries(text)) {
        if (boundary <= 12000)
            cut = boundary;
    }
    QVERIFY(cut > 6000);
    const IncrementalMarkdown::Counters before = markdown.counters();
    markdown.setText(text.left(cut));
    const IncrementalMarkdown::Counters after = markdown.counters();
    QCOMPARE(after.fullRenders, before.fullRenders);
    QVERIFY2(after.charsParsed - before.charsParsed < 2000,
             qPrintable(QString::number(after.charsParsed - before.charsParsed)));
    QCOMPARE(markdown.toPlainText(), oneShotPlainText(text.left(cut)));
    // It can still grow afterwards and shows what a one-shot render shows.
    markdown.setText(text);
    QCOMPARE(markdown.toPlainText(), oneShotPlainText(text));
}

void TestIncrementalMarkdown::inlineCodeIsMonospaceAndTintedInBothPalettes_data()
{
    QTest::addColumn<QPalette>("palette");
    QTest::newRow("light") << QApplication::palette();
    QTest::newRow("dark") << darkPalette();
}

void TestIncrementalMarkdown::inlineCodeIsMonospaceAndTintedInBothPalettes()
{
    QFETCH(QPalette, palette);
    QTextDocument document;
    document.setMarkdown(QStringLiteral("Call `parseLine()` now.\n\n```\nblock\n```\n"),
                         ListNumbering::Dialect);
    IncrementalMarkdown::style(document, palette);
    const QTextBlock first = document.firstBlock();
    QTextCharFormat code;
    QTextCharFormat prose;
    for (auto it = first.begin(); !it.atEnd(); ++it) {
        if (it.fragment().text().contains(QStringLiteral("parseLine")))
            code = it.fragment().charFormat();
        if (it.fragment().text().contains(QStringLiteral("Call")))
            prose = it.fragment().charFormat();
    }
    QVERIFY(code.isValid());
    QVERIFY(code.property(QTextFormat::UserProperty).toBool());
    QVERIFY(code.fontFixedPitch());
    QCOMPARE(code.fontFamilies().toStringList().value(0),
             QFontDatabase::systemFont(QFontDatabase::FixedFont).family());
    const QColor tint = code.background().color();
    QCOMPARE(tint, ChatColors::inlineCodeBackground(palette));
    QVERIFY(tint != palette.color(QPalette::Base));
    QVERIFY(code.foreground().color() != palette.color(QPalette::Base));
    // The tint sits between the background and the text in both palettes.
    const int base = palette.color(QPalette::Base).lightness();
    const int text = palette.color(QPalette::Text).lightness();
    QVERIFY(tint.lightness() > qMin(base, text) && tint.lightness() < qMax(base, text));
    QVERIFY(!prose.background().style() || prose.background().color() != tint);
    // The fenced block keeps its block background and is not styled as inline code.
    const QTextBlock block = document.lastBlock();
    QCOMPARE(block.text(), QStringLiteral("block"));
    QCOMPARE(block.blockFormat().background().color(), ChatColors::codeBlockBackground(palette));
    QVERIFY(!block.begin().fragment().charFormat().property(QTextFormat::UserProperty).toBool());
}

void TestIncrementalMarkdown::heightFollowsWidth()
{
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setText(test::Workloads::markdownReply(5000));
    markdown.setTextWidth(800);
    const qreal wide = markdown.size().height();
    markdown.setTextWidth(200);
    QVERIFY(markdown.size().height() > wide);
}

// Issue 15: a long plain reply streamed in flushes showed some paragraphs squeezed onto the next line where
// one segment ended and the next began (the gap between paragraphs was lost between two documents).
void TestIncrementalMarkdown::streamedParagraphsKeepTheirSpacing()
{
    QString text = test::Workloads::markdownReply(20000); // headings, lists, tables and code blocks too
    for (int i = 1; i <= 200; ++i)
        text += QStringLiteral("Paragraph %1: lorem ipsum dolor sit amet, consectetur adipiscing elit.\n\n")
                    .arg(i);
    QTextDocument whole;
    whole.setDocumentMargin(0);
    whole.setDefaultFont(QApplication::font());
    whole.setMarkdown(text, ListNumbering::Dialect);
    IncrementalMarkdown::style(whole, QApplication::palette());
    whole.setTextWidth(800);

    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(800);
    for (qsizetype at = 0; at < text.size(); at += 613)
        markdown.setText(text.left(at));
    markdown.setText(text);
    QVERIFY(markdown.segmentCount() > 1);
    QCOMPARE(qRound(markdown.size().height()), qRound(whole.size().height()));
}

QTEST_MAIN(TestIncrementalMarkdown)
#include "tst_incrementalmarkdown.moc"

void TestIncrementalMarkdown::aQuoteHasABarBesideIt_data()
{
    QTest::addColumn<QPalette>("palette");
    QTest::newRow("light") << QApplication::palette();
    QTest::newRow("dark") << darkPalette();
}

// Found trying the window: a quote was only indented text, hard to tell from a list's continuation; quoted
// mail or a quoted error message reads as a quote with a bar at its left, as in mail and chat apps.
void TestIncrementalMarkdown::aQuoteHasABarBesideIt()
{
    QFETCH(QPalette, palette);
    IncrementalMarkdown markdown(QApplication::font(), palette);
    markdown.setText(QStringLiteral(
        "Before.\n\n> The build failed with error 42.\n>\n> Second quoted paragraph.\n\nAfter.\n"));
    markdown.setTextWidth(500);
    QImage image(500, qCeil(markdown.size().height()), QImage::Format_RGB32);
    image.fill(palette.color(QPalette::Base));
    {
        QPainter painter(&image);
        QAbstractTextDocumentLayout::PaintContext context;
        context.palette = palette;
        markdown.draw(&painter, context);
    }
    const QRgb bar = ChatColors::quoteBar(palette).rgb();
    // Found trying the window: the first bar (the table border colour) was hard to see in dark mode.
    const auto contrast = [](const QColor &a, const QColor &b) {
        return qAbs(a.lightness() - b.lightness());
    };
    QVERIFY(contrast(ChatColors::quoteBar(palette), palette.color(QPalette::Base)) >= 80);
    auto barRows = [&](int x) {
        int rows = 0;
        for (int y = 0; y < image.height(); ++y)
            rows += (image.pixel(x, y) & 0xffffff) == (bar & 0xffffff) ? 1 : 0;
        return rows;
    };
    const int lineHeight = QFontMetrics(QApplication::font()).height();
    // Down the quote's two paragraphs without a break, not beside the paragraphs before and after it.
    const int x = qRound(2 + IncrementalMarkdown::QuoteBarWidth / 2);
    QVERIFY2(barRows(x) >= 2 * lineHeight - 2, qPrintable(QString::number(barRows(x))));
    QVERIFY2(barRows(x) < 3 * lineHeight + 8, qPrintable(QString::number(barRows(x))));
    // The quoted text sits just right of the bar.
    QVERIFY(markdown.toPlainText().contains(QStringLiteral("error 42")));
}

void TestIncrementalMarkdown::orderedListsShowTheNumbersOfTheirMarkdown_data()
{
    QTest::addColumn<QString>("markdown");
    QTest::addColumn<QString>("shown");
    // An unindented code block ends a list (CommonMark): "2. Configure" starts a new list that starts at 2.
    QTest::newRow("steps around code") << QStringLiteral("1. Install\n\n```sh\napt install x\n```\n\n"
                                                         "2. Configure\n3. Run\n\n```\nx --run\n```\n\n"
                                                         "4. Check\n")
                                       << QStringLiteral("1. Install\napt install x\n2. Configure\n3. Run\n"
                                                         "x --run\n4. Check");
    QTest::newRow("paren delimiter") << QStringLiteral("1) a\n\n```\nx\n```\n\n2) b\n")
                                     << QStringLiteral("1) a\nx\n2) b");
    QTest::newRow("nested") << QStringLiteral("3. a\n\n   more of a\n4. b\n   1. b one\n   2. b two\n\n"
                                              "      7. deep\n      8. deeper\n5. c\n")
                            << QStringLiteral(
                                   "3. a\nmore of a\n4. b\n   1. b one\n   2. b two\n      7. deep\n"
                                   "      8. deeper\n5. c");
    QTest::newRow("in a bullet") << QStringLiteral("- bullet\n\n  4. inside\n  5. on\n- next\n")
                                 << QStringLiteral("- bullet\n  4. inside\n  5. on\n- next");
    QTest::newRow("in a quote") << QStringLiteral("> 5. q\n> 6. r\n\nAfter.\n")
                                << QStringLiteral("5. q\n6. r\nAfter.");
    QTest::newRow("quote around code")
        << QStringLiteral("> 1. a\n>\n> ```\n> x\n> ```\n>\n> 2. b\n") << QStringLiteral("1. a\nx\n2. b");
    QTest::newRow("zero") << QStringLiteral("0. zero\n1. one\n") << QStringLiteral("0. zero\n1. one");
    QTest::newRow("ten") << QStringLiteral("10. ten\n11. eleven\n12. twelve\n")
                         << QStringLiteral("10. ten\n11. eleven\n12. twelve");
    QTest::newRow("leading zeros") << QStringLiteral("007. seven\n008. eight\n")
                                   << QStringLiteral("7. seven\n8. eight");
    QTest::newRow("nine digits") << QStringLiteral("123456789. big\n1. bigger\n")
                                 << QStringLiteral("123456789. big\n123456790. bigger");
    // The items after the first count on from it, whatever their own numbers.
    QTest::newRow("later numbers") << QStringLiteral("4. a\n4. b\n9. c\n")
                                   << QStringLiteral("4. a\n5. b\n6. c");
    // Not lists: an ordered list starting at 2 cannot interrupt a paragraph; code is code.
    QTest::newRow("in a paragraph") << QStringLiteral("Version\n2. not a list\n")
                                    << QStringLiteral("Version 2. not a list");
    QTest::newRow("in code") << QStringLiteral("```\n2. code line\n```\n\n    3. indented code\n")
                             << QStringLiteral("2. code line\n3. indented code");
    // The item's text keeps its own Markdown at the end of its line.
    QTest::newRow("emphasis last") << QStringLiteral("2. __bold__\n3. *it*\n")
                                   << QStringLiteral("2. bold\n3. it");
    // Qt 6.4 makes a hard line break in an item a new item, in a list from 1 too ("1. first\n2. second").
    QTest::newRow("hard break") << QStringLiteral("2. first\\\n   second\n")
                                << QStringLiteral("2. first\n3. second");
    // A rule as an item's text stays a rule (Qt gives it no number); the next item reads 3, as written.
    QTest::newRow("rule") << QStringLiteral("2. ---\n3. after\n") << QStringLiteral("\n\n3. after");
    QTest::newRow("tasks") << QStringLiteral("3. [ ] task\n4. [x] done\n")
                           << QStringLiteral("3. [ ] task\n4. [x] done");
}

// Found on Debian 12: Qt 6.4's Markdown reader drops a list's start number, so "2. Configure" after a code
// block read "1. Configure". The numbers shown (and copied) are the Markdown's, rendered whole or streamed.
void TestIncrementalMarkdown::orderedListsShowTheNumbersOfTheirMarkdown()
{
    QFETCH(QString, markdown);
    QFETCH(QString, shown);
    IncrementalMarkdown whole(QApplication::font(), QApplication::palette());
    whole.setTextWidth(500);
    whole.setText(markdown);
    QCOMPARE(copied(whole), shown);
    QCOMPARE(whole.toPlainText(), oneShotPlainText(markdown)); // no trace of how the numbers came through

    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(500);
    for (qsizetype at = 1; at <= markdown.size(); at += 3)
        streamed.setText(markdown.left(at));
    streamed.setText(markdown);
    QCOMPARE(streamed.counters().fullRenders, 0);
    QCOMPARE(copied(streamed), shown);
}

void TestIncrementalMarkdown::aListAfterACodeBlockReadsOnWhileStreaming()
{
    const QString text =
        QStringLiteral("1. Install\n\n```sh\napt install x\n```\n\n2. Configure it\n3. Run\n");
    IncrementalMarkdown markdown(QApplication::font(), QApplication::palette());
    markdown.setTextWidth(500);
    bool sawTheSecondList = false;
    for (qsizetype at = 1; at <= text.size(); ++at) {
        markdown.setText(text.left(at));
        const QString shown = copied(markdown);
        if (text.left(at).endsWith(QStringLiteral("2. Con"))) {
            // The code block is a finished segment; the open tail holds the new list, numbered from 2.
            QVERIFY(markdown.finishedLength() > 0);
            QCOMPARE(shown, QStringLiteral("1. Install\napt install x\n2. Con"));
            sawTheSecondList = true;
        }
        QVERIFY2(!shown.contains(QStringLiteral("1. Con")) && !shown.contains(QStringLiteral("2. Run")),
                 qPrintable(shown));
    }
    QVERIFY(sawTheSecondList);
    QCOMPARE(copied(markdown), QStringLiteral("1. Install\napt install x\n2. Configure it\n3. Run"));
}

namespace {

// One QTextDocument holding all of text, read and styled as the chat does and laid out at width: what a
// render of the whole reply at once shows, for the pieces to be compared with.
void renderWhole(QTextDocument &whole, const QString &text, qreal width)
{
    whole.setDocumentMargin(0);
    whole.setDefaultFont(QApplication::font());
    ListNumbering::setMarkdown(whole, text);
    IncrementalMarkdown::style(whole, QApplication::palette());
    whole.setTextWidth(width);
}

QImage rendered(const IncrementalMarkdown &markdown, int selectionFrom = 0, int selectionTo = 0)
{
    QImage image(400, qCeil(markdown.size().height()), QImage::Format_RGB32);
    image.fill(QApplication::palette().color(QPalette::Base));
    QPainter painter(&image);
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette = QApplication::palette();
    markdown.draw(&painter, context, selectionFrom, selectionTo);
    return image;
}

// What is drawn left of the text of the line where needle is: a list item's number.
QImage numberOf(const IncrementalMarkdown &markdown, const QImage &image, const QString &needle)
{
    const StackedText text(markdown.layers());
    const auto found = text.find(needle, 0);
    if (!found)
        return {};
    const QRectF line = text.lineRect(found->first);
    return image.copy(QRect(0, qFloor(line.top()), 40, qCeil(line.height())));
}

// Where each line of the paragraph holding needle starts.
QList<qreal> lineStarts(const IncrementalMarkdown &markdown, const QString &needle)
{
    for (const StackedText::Layer &layer : markdown.layers()) {
        const QTextCursor found = layer.document->find(needle);
        if (found.isNull())
            continue;
        const QTextLayout *layout = found.block().layout();
        QList<qreal> starts;
        for (int i = 0; i < layout->lineCount(); ++i)
            starts.append(layout->position().x() + layout->lineAt(i).x());
        return starts;
    }
    return {};
}

bool isBlank(const QImage &image)
{
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            if (image.pixel(x, y) != image.pixel(0, 0))
                return false;
        }
    }
    return true;
}

} // namespace

// The numbers drawn for a list that starts at 2 on Qt 6.4 look like the ones Qt draws itself: the same pixels
// as Qt's "2." and "3." for the second and third items of a list from 1, selected or not.
void TestIncrementalMarkdown::aListNotStartingAtOneIsDrawnAsQtDrawsNumbers()
{
    IncrementalMarkdown shown(QApplication::font(), QApplication::palette());
    shown.setTextWidth(400);
    shown.setText(QStringLiteral("2. Configure\n3. Run it with a line long enough to wrap at this width, so "
                                 "the second line shows its hanging indent\n"));
    IncrementalMarkdown qt(QApplication::font(), QApplication::palette());
    qt.setTextWidth(400);
    qt.setText(QStringLiteral("1. Install\n2. Configure\n3. Run it with a line long enough to wrap at this "
                              "width, so the second line shows its hanging indent\n"));
    for (const bool selected : {false, true}) {
        const QImage shownImage =
            selected ? rendered(shown, 0, StackedText(shown.layers()).end()) : rendered(shown);
        const QImage qtImage = selected ? rendered(qt, 0, StackedText(qt.layers()).end()) : rendered(qt);
        // Qt shows a number selected when the selection begins before its item: "3." (and "2." of the list
        // from 1) once all is selected.
        const QStringList items = selected ? QStringList{QStringLiteral("Run")}
                                           : QStringList{QStringLiteral("Configure"), QStringLiteral("Run")};
        for (const QString &item : items) {
            const QImage number = numberOf(shown, shownImage, item);
            QVERIFY(!number.isNull());
            QVERIFY2(!isBlank(number), qPrintable(item));
            QVERIFY2(number == numberOf(qt, qtImage, item), qPrintable(item));
        }
        QVERIFY(numberOf(shown, shownImage, QStringLiteral("Configure")) !=
                numberOf(qt, qtImage, QStringLiteral("Install"))); // "2." is not drawn as "1."
    }
    // The wrapped item is laid out as Qt lays it out: its second line starts under its first.
    QCOMPARE(lineStarts(shown, QStringLiteral("hanging")), lineStarts(qt, QStringLiteral("hanging")));
    QCOMPARE(lineStarts(shown, QStringLiteral("hanging")).size(), 2);
}

namespace {

// A list of count items as a model writes one: bullet or number first, the item's own text after it.
QString listOf(int count, const std::function<QString(int)> &item)
{
    QString text = QStringLiteral("Here are the steps:\n\n");
    for (int i = 1; i <= count; ++i)
        text += item(i);
    return text + QStringLiteral("\nThat is all.\n");
}

// What one QTextDocument holding all of markdown shows as it copies (numbers and bullets as drawn).
QString copiedFromOneDocument(const QTextDocument &document)
{
    const StackedText text({{&document, 0}});
    return text.text(0, text.end());
}

} // namespace

void TestIncrementalMarkdown::aLongListIsParsedInPieces_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("shown"); // a line one render of the whole list shows, in a later piece
    QTest::newRow("2,000 bullets") << listOf(2000, [](int i) {
        return QStringLiteral("- Item %1: check `field_%1` and log it\n").arg(i);
    }) << QStringLiteral("\n- Item 1999: check field_1999 and log it\n");
    QTest::newRow("300 numbered") << listOf(300, [](int i) {
        return QStringLiteral("%1. Step %1: run the migration for table number %1\n").arg(i);
    }) << QStringLiteral("\n151. Step 151: run the migration for table number 151\n");
    // Every item written "1.": the items after the first count on from it, in every piece.
    QTest::newRow("300 numbered 1.") << listOf(300, [](int i) {
        return QStringLiteral("1. Step %1: run the migration for table number %1\n").arg(i);
    }) << QStringLiteral("\n151. Step 151: run the migration for table number 151\n");
    // A blank line between items: a loose list, its items as far apart in every piece.
    QTest::newRow("600 loose bullets") << listOf(600, [](int i) {
        return QStringLiteral("* Item %1 of a loose list, with a blank line after it\n\n").arg(i);
    }) << QStringLiteral("\n- Item 599 of a loose list, with a blank line after it\n");
    // Items with a second line (a lazy one from item 10 on), items and code nested at the item's text: pieces
    // start at top-level items only.
    QTest::newRow("nested") << listOf(500, [](int i) {
        const QString indent(QString::number(i).size() + 2, QLatin1Char(' '));
        QString item = QStringLiteral("%1. Item %1 starts here\n   and goes on\n").arg(i);
        if (i % 7 == 0)
            item +=
                indent + QStringLiteral("- nested %1\n").arg(i) + indent + QStringLiteral("- nested again\n");
        if (i % 11 == 0)
            item += indent + QStringLiteral("```sh\n") + indent + QStringLiteral("run --step %1\n").arg(i) +
                    indent + QStringLiteral("- not an item, code\n") + indent + QStringLiteral("```\n");
        return item;
    }) << QStringLiteral("Item 499 starts here and goes on\n"); // Qt 6.4 numbers code lines in an item too
}

// Found by a read against issue 11: a reply that is one long list (2,000 items) was one open block, parsed
// whole again on every flush, so streaming it slowed down as it grew. A list at the margin is parsed in
// pieces of about 2,000 chars at its items; a person sees, copies and scrolls the same list as one render of
// the whole reply shows: the same bullets and numbers, the same spacing, no gap between pieces.
void TestIncrementalMarkdown::aLongListIsParsedInPieces()
{
    QFETCH(QString, text);
    QFETCH(QString, shown);
    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(700);
    QList<qint64> parsedPerFlush;
    for (qsizetype at = 7; at < text.size() + 7; at += 7) {
        const qint64 before = streamed.counters().charsParsed;
        streamed.setText(text.left(at));
        parsedPerFlush.append(streamed.counters().charsParsed - before);
        // Pieces start at items of the list at the margin (or at the paragraph after the list), never inside
        // one (nested items, code, a second line).
        static const QRegularExpression item(QStringLiteral("(\\d+\\.|[-*]) (Item|Step)|That is all"));
        if (const qsizetype cut = streamed.finishedLength(); cut > 0)
            QVERIFY2(item.match(text, cut, QRegularExpression::NormalMatch,
                                QRegularExpression::AnchorAtOffsetMatchOption)
                         .hasMatch(),
                     qPrintable(text.mid(cut, 40)));
    }
    const IncrementalMarkdown::Counters counters = streamed.counters();
    QCOMPARE(counters.fullRenders, 0);
    // A flush parses the piece it finishes and the open one: about two pieces of 2,048 chars at most, however
    // long the list has grown (one that parsed the whole list parsed up to all of it).
    const qint64 mostParsedInOneFlush = *std::max_element(parsedPerFlush.cbegin(), parsedPerFlush.cend());
    QVERIFY2(mostParsedInOneFlush < 5000, qPrintable(QString::number(mostParsedInOneFlush)));
    // So the last tenth of the flushes parses about as much as the first tenth: streaming the list costs in
    // proportion to its length, not to its square (the last flushes got slower and slower).
    const qsizetype tenth = parsedPerFlush.size() / 10;
    const qint64 first = std::accumulate(parsedPerFlush.cbegin(), parsedPerFlush.cbegin() + tenth, qint64(0));
    const qint64 last = std::accumulate(parsedPerFlush.cend() - tenth, parsedPerFlush.cend(), qint64(0));
    QVERIFY2(last < 3 * first, qPrintable(QStringLiteral("first tenth %1, last tenth %2, all %3 for %4 chars")
                                              .arg(first)
                                              .arg(last)
                                              .arg(counters.charsParsed)
                                              .arg(text.size())));
    QVERIFY2(streamed.segmentCount() > 3, qPrintable(QString::number(streamed.segmentCount())));

    IncrementalMarkdown atOnce(QApplication::font(), QApplication::palette());
    atOnce.setTextWidth(700);
    atOnce.setText(text);
    QTextDocument whole;
    renderWhole(whole, text, 700);

    QCOMPARE(streamed.toPlainText(), atOnce.toPlainText());
    QCOMPARE(streamed.toPlainText(), oneShotPlainText(text));
    const QString copiedWhole = copiedFromOneDocument(whole);
    QVERIFY2(copiedWhole.contains(shown), qPrintable(shown));
    QCOMPARE(copied(streamed), copiedWhole);
    QCOMPARE(copied(atOnce), copiedWhole);
    QVERIFY2(qAbs(streamed.size().height() - whole.size().height()) <= 1,
             qPrintable(QStringLiteral("%1 vs %2").arg(streamed.size().height()).arg(whole.size().height())));
    QVERIFY(qAbs(atOnce.size().height() - whole.size().height()) <= 1);
}

// A model's list often nests a bullet two spaces under "1." (CommonMark: not inside the item, so it ends the
// list, and the next "1." starts another); a note indented by one space after a blank line ends it too. No
// piece starts with the item after them, which would number on from the list before; pieces are cut again
// further on. What a person sees is what one render of the whole reply shows.
void TestIncrementalMarkdown::aListEndedByALessIndentedLineStartsAfresh()
{
    const QString text = listOf(400, [](int i) {
        QString item = QStringLiteral("1. Step %1: run the migration for table number %1\n").arg(i);
        if (i == 101)
            item += QStringLiteral("  - a detail two spaces in\n");
        if (i == 201) // longer than a piece: a list not ended here would be cut right after it
            item += QStringLiteral("\n Note: ") + QStringLiteral("the tables above are done; ").repeated(90) +
                    QLatin1Char('\n');
        return item;
    });
    const QList<qsizetype> newLists = {text.indexOf(QStringLiteral("1. Step 102:")),
                                       text.indexOf(QStringLiteral("1. Step 202:"))};
    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(700);
    QList<qsizetype> cuts;
    for (qsizetype at = 7; at < text.size() + 7; at += 7) {
        streamed.setText(text.left(at));
        if (cuts.isEmpty() || cuts.last() != streamed.finishedLength())
            cuts.append(streamed.finishedLength());
    }
    for (const qsizetype newList : newLists)
        QVERIFY2(!cuts.contains(newList), qPrintable(QString::number(newList)));
    QVERIFY(std::count_if(cuts.cbegin(), cuts.cend(), [&](qsizetype cut) { return cut > newLists.last(); }) >
            2);
    QTextDocument whole;
    renderWhole(whole, text, 700);
    const QString copiedWhole = copiedFromOneDocument(whole);
    for (const QString &shown : {QStringLiteral("\n101. Step 101:"), QStringLiteral("\n1. Step 102:"),
                                 QStringLiteral("\n100. Step 201:"), QStringLiteral("\n1. Step 202:"),
                                 QStringLiteral("\n199. Step 400:")})
        QVERIFY2(copiedWhole.contains(shown), qPrintable(shown));
    QCOMPARE(copied(streamed), copiedWhole);
    QVERIFY(qAbs(streamed.size().height() - whole.size().height()) <= 1);
}

namespace {

// A table of rows as a model writes one (inline code, bold, an escaped pipe in code), between what text
// holds before and after it.
// The number of row i as tableOf writes it: padded, every row as wide as the first; else as a model writes
// them, a digit wider at 10, 100 and 1,000.
QString rowNumber(int i, bool padded)
{
    return padded ? QStringLiteral("%1").arg(i, 4, 10, QLatin1Char('0')) : QString::number(i);
}

QString tableOf(int rows, const QString &before, const QString &after,
                const std::function<QString(int)> &cell = nullptr, bool padded = true)
{
    QString text = before + QStringLiteral("| # | Module name | Option | State |\n|---:|:---|:---:|---|\n");
    for (int i = 1; i <= rows; ++i) {
        const QString number = rowNumber(i, padded);
        const QString option = cell ? cell(i) : QStringLiteral("option %1").arg(number);
        text += i % 10 == 0 ? QStringLiteral("| %1 | `mod_%1 \\| alt` | %2 | **ok** |\n").arg(number, option)
                            : QStringLiteral("| %1 | `mod_%1` | %2 | **ok** |\n").arg(number, option);
    }
    return text + after;
}

// The tables of document, top to bottom.
QList<QTextTable *> tablesOf(const QTextDocument &document)
{
    QList<QTextTable *> tables;
    for (QTextFrame *frame : document.rootFrame()->childFrames()) {
        if (auto *table = qobject_cast<QTextTable *>(frame))
            tables.append(table);
    }
    return tables;
}

QRectF cellBox(const QTextTable &table, int row, int column)
{
    const QTextDocument *document = table.document();
    return document->documentLayout()->blockBoundingRect(
        document->findBlock(table.cellAt(row, column).firstPosition()));
}

// Where the text of each column of row starts and ends.
QList<std::pair<qreal, qreal>> columnEdges(const QTextTable &table, int row)
{
    QList<std::pair<qreal, qreal>> edges;
    for (int column = 0; column < table.columns(); ++column) {
        const QRectF box = cellBox(table, row, column);
        edges.append({box.left(), box.right()});
    }
    return edges;
}

// A later piece of a cut table: its document starts with the table, which goes on from the layer above.
QTextTable *pieceOfATable(const QTextDocument &document)
{
    const QList<QTextTable *> tables = tablesOf(document);
    return !tables.isEmpty() && tables.first()->firstPosition() == 1 ? tables.first() : nullptr;
}

QString edgesText(const QList<std::pair<qreal, qreal>> &edges)
{
    QStringList parts;
    for (const auto &[left, right] : edges)
        parts.append(QStringLiteral("%1-%2").arg(left).arg(right));
    return parts.join(QLatin1Char(' '));
}

// The pixel rows where something is drawn at x (document coordinates), from the top: left of a table's first
// column's text, its horizontal borders.
QList<int> borderRowsAt(const std::function<void(QPainter &, const QRectF &)> &paint, qreal x, qreal height)
{
    QImage image(int(x) + 4, int(height) + 2, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    paint(painter, QRectF(0, 0, image.width(), image.height()));
    painter.end();
    QList<int> rows;
    for (int y = 0; y < image.height(); ++y) {
        if (image.pixel(int(x), y) != qRgb(255, 255, 255))
            rows.append(y);
    }
    return rows;
}

// Checks that the columns of every later piece of the cut table in markdown line up with its first piece's.
void checkColumnsLineUp(const IncrementalMarkdown &markdown, int *pieces)
{
    *pieces = 0;
    const QList<StackedText::Layer> layers = markdown.layers();
    QList<std::pair<qreal, qreal>> first;
    for (const StackedText::Layer &layer : layers) {
        if (QTextTable *piece = pieceOfATable(*layer.document); piece && !first.isEmpty()) {
            ++*pieces;
            const QList<std::pair<qreal, qreal>> edges = columnEdges(*piece, 0);
            QCOMPARE(edges.size(), first.size());
            for (qsizetype column = 0; column < edges.size(); ++column) {
                QVERIFY2(qAbs(edges.at(column).first - first.at(column).first) <= 1 &&
                             qAbs(edges.at(column).second - first.at(column).second) <= 1,
                         qPrintable(edgesText(edges) + QStringLiteral(" vs ") + edgesText(first)));
            }
        } else if (first.isEmpty()) {
            for (QTextTable *table : tablesOf(*layer.document)) {
                if (layer.document->findBlock(table->cellAt(0, 1).firstPosition()).text() ==
                    QStringLiteral("Module name"))
                    first = columnEdges(*table, 0);
            }
        }
    }
    QVERIFY(!first.isEmpty());
}

} // namespace

void TestIncrementalMarkdown::aSelectionAcrossListPiecesSelectsEveryMarker_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("bullets");
    QTest::newRow("bullets") << listOf(400, [](int i) {
        return QStringLiteral("- Item %1: check `field_%1` and log it\n").arg(i);
    }) << true;
    QTest::newRow("numbers") << listOf(300, [](int i) {
        return QStringLiteral("%1. Step %1: run the migration for table number %1\n").arg(i);
    }) << false;
}

// Seen at the 12-06 reading: selected from above, the first item of every later piece of a long list showed
// its bullet or number unselected (Qt selects a marker only when the selection begins before its item,
// which it cannot in a piece's own document). Every marker of the list shows selected, as in one document.
void TestIncrementalMarkdown::aSelectionAcrossListPiecesSelectsEveryMarker()
{
    QFETCH(QString, text);
    QFETCH(bool, bullets);
    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(400);
    for (qsizetype at = text.indexOf(QLatin1Char('\n')); at >= 0;
         at = text.indexOf(QLatin1Char('\n'), at + 1))
        streamed.setText(text.left(at + 1));
    const QList<StackedText::Layer> layers = streamed.layers();
    QVERIFY2(layers.size() >= 4, qPrintable(QString::number(layers.size())));
    const QImage plain = rendered(streamed);
    const QImage selected = rendered(streamed, 0, StackedText(layers).end());
    const QRgb highlight = QApplication::palette().color(QPalette::Active, QPalette::Highlight).rgb();
    auto hasHighlight = [&](const QImage &image) {
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                if (image.pixel(x, y) == highlight)
                    return true;
            }
        }
        return false;
    };
    int pieces = 0;
    for (qsizetype i = 1; i < layers.size(); ++i) {
        const QTextBlock first = layers.at(i).document->firstBlock();
        if (!first.textList())
            continue;
        ++pieces;
        const QString item = first.text();
        const QString next = first.next().text(); // the second item of the piece, which Qt selects itself
        const QImage marker = numberOf(streamed, selected, item);
        QVERIFY2(marker != numberOf(streamed, plain, item), qPrintable(item));
        if (bullets) { // every bullet looks alike: the piece's first as its second, which Qt drew selected
            QVERIFY2(marker == numberOf(streamed, selected, next), qPrintable(item));
        } else { // a number on the selection's colour, as Qt draws the next one
            QVERIFY2(hasHighlight(marker), qPrintable(item));
            QVERIFY2(!hasHighlight(numberOf(streamed, plain, item)), qPrintable(item));
            QVERIFY(hasHighlight(numberOf(streamed, selected, next)));
        }
    }
    QVERIFY2(pieces >= 3, qPrintable(QString::number(pieces)));
}

void TestIncrementalMarkdown::aLongTableIsParsedInPieces_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("flush");       // chars per flush; 0: a flush per row
    QTest::addColumn<bool>("sameHeight"); // the whole table fits the width: drawn as one render draws it
    QTest::addColumn<bool>("padded");     // row numbers all as wide
    const QString intro = QStringLiteral("Here is the table:\n\n");
    const QString outro = QStringLiteral("\nThat is all.\n");
    QTest::newRow("300 rows, 7-char flushes") << tableOf(300, intro, outro) << 7 << true << true;
    QTest::newRow("300 rows ending the reply") << tableOf(300, intro, QString()) << 0 << true << true;
    QTest::newRow("300 rows under a heading")
        << tableOf(300, QStringLiteral("## Modules\n"), outro) << 0 << true << true;
    QTest::newRow("2,000 rows, a flush per row") << tableOf(2000, intro, outro) << 0 << true << true;
    // Found when tried in the window: numbered as a model numbers them, the rows of later pieces are wider
    // than the first piece's ("mod_1187" against "mod_45"); they wrapped in its columns. The columns widen,
    // those above too.
    QTest::newRow("1,200 rows numbered 1 to 1200")
        << tableOf(1200, intro, outro, nullptr, false) << 0 << true << false;
    // A cell in a later piece wider than the row allows: its column takes what the others leave, in every
    // piece.
    QTest::newRow("a later cell wider than the row") << tableOf(300, intro, outro, [](int i) {
        return i == 250 ? QStringLiteral("option 250, which takes a good deal more words to describe "
                                         "than all the options above it did, and "
                                         "`a_single_identifier_longer_than_the_column_is_wide`")
                        : QStringLiteral("option %1").arg(i, 4, 10, QLatin1Char('0'));
    }) << 0 << false << true;
}

// Found by a read against issue 11: a long table was one open block, parsed and laid out whole on every
// flush (68 ms a flush at 300 rows, 406 ms at 1,000), so streaming it cost the square of its length. A table
// at the margin is parsed in pieces of about 2,000 chars at its rows; a person sees one table: the header
// once at the top, the columns in line, no gap or doubled border between pieces, the text one render copies.
void TestIncrementalMarkdown::aLongTableIsParsedInPieces()
{
    QFETCH(QString, text);
    QFETCH(int, flush);
    QFETCH(bool, sameHeight);
    QFETCH(bool, padded);
    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(800);
    QList<qint64> parsedPerFlush;
    auto update = [&](qsizetype at) {
        const qint64 before = streamed.counters().charsParsed;
        streamed.setText(text.left(at));
        parsedPerFlush.append(streamed.counters().charsParsed - before);
    };
    if (flush > 0) {
        for (qsizetype at = flush; at < text.size() + flush; at += flush)
            update(at);
    } else {
        for (qsizetype at = text.indexOf(QLatin1Char('\n')); at >= 0;
             at = text.indexOf(QLatin1Char('\n'), at + 1))
            update(at + 1);
        update(text.size());
    }
    const IncrementalMarkdown::Counters counters = streamed.counters();
    QCOMPARE(counters.fullRenders, 0);
    // A flush parses the piece it finishes and the open one, each with the table's header: about two pieces
    // of 2,048 chars at most, however long the table has grown.
    const qint64 mostParsedInOneFlush = *std::max_element(parsedPerFlush.cbegin(), parsedPerFlush.cend());
    QVERIFY2(mostParsedInOneFlush < 5000, qPrintable(QString::number(mostParsedInOneFlush)));
    QVERIFY2(streamed.segmentCount() > 3, qPrintable(QString::number(streamed.segmentCount())));

    QTextDocument whole;
    renderWhole(whole, text, 800);
    QCOMPARE(tablesOf(whole).size(), 1);

    // The header once, every row in order, and the text one render copies.
    const QString plain = streamed.toPlainText();
    QCOMPARE(plain.count(QStringLiteral("Module name")), 1);
    QCOMPARE(plain, whole.toPlainText());
    const int rows = tablesOf(whole).first()->rows() - 1;
    qsizetype at = 0;
    for (int i = 1; i <= rows; ++i) {
        const QString row = QStringLiteral("\n%1\nmod_%1").arg(rowNumber(i, padded));
        const qsizetype found = plain.indexOf(row, at);
        QVERIFY2(found >= at, qPrintable(row));
        at = found + row.size();
    }
    QCOMPARE(copied(streamed), copiedFromOneDocument(whole));

    // The columns of every later piece are the first piece's; its rows are body rows, styled as every
    // table's (inline code), not bold as a header.
    int pieces = 0;
    checkColumnsLineUp(streamed, &pieces);
    QVERIFY2(pieces >= 3, qPrintable(QString::number(pieces)));
    for (const StackedText::Layer &layer : streamed.layers()) {
        if (QTextTable *piece = pieceOfATable(*layer.document)) {
            const QTextBlock number = layer.document->findBlock(piece->cellAt(0, 0).firstPosition());
            QVERIFY(number.begin().fragment().charFormat().fontWeight() != QFont::Bold);
            const QTextBlock code = layer.document->findBlock(piece->cellAt(0, 1).firstPosition());
            QVERIFY(code.begin().fragment().charFormat().boolProperty(QTextFormat::UserProperty));
            QVERIFY2(!code.text().contains(QLatin1Char('\\')), qPrintable(code.text()));
        }
    }

    // No gap and no doubled border between pieces: the table's horizontal borders are where one render
    // draws them (left of the first column's text, rows are as high in both).
    if (sameHeight) {
        const qreal height = std::min<qreal>(whole.size().height(), 5000); // three pieces or more
        const QList<int> streamedRows = borderRowsAt(
            [&](QPainter &painter, const QRectF &clip) {
                QAbstractTextDocumentLayout::PaintContext context;
                context.clip = clip;
                streamed.draw(&painter, context);
            },
            4, height);
        const QList<int> wholeRows = borderRowsAt(
            [&](QPainter &painter, const QRectF &clip) { whole.drawContents(&painter, clip); }, 4, height);
        QVERIFY(wholeRows.size() > 150);
        QCOMPARE(streamedRows, wholeRows);
        QVERIFY2(
            qAbs(streamed.size().height() - whole.size().height()) <= 1,
            qPrintable(QStringLiteral("%1 vs %2").arg(streamed.size().height()).arg(whole.size().height())));
    }
}

// A table shorter than a piece is not cut: one segment, as one render lays it out.
void TestIncrementalMarkdown::aShortTableShowsAsOneRenderShowsIt()
{
    const QString text = tableOf(30, QStringLiteral("Here is the table:\n\n"), QString());
    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(800);
    for (qsizetype at = 7; at < text.size() + 7; at += 7)
        streamed.setText(text.left(at));
    QCOMPARE(streamed.counters().segments, 1);
    QTextDocument whole;
    renderWhole(whole, text, 800);
    QCOMPARE(streamed.size().height(), whole.size().height());
    QCOMPARE(streamed.toPlainText(), whole.toPlainText());
    const QTextDocument &shown = *streamed.layers().first().document;
    QCOMPARE(columnEdges(*tablesOf(shown).first(), 0), columnEdges(*tablesOf(whole).first(), 0));
    const QTextBlock header = shown.findBlock(tablesOf(shown).first()->cellAt(0, 1).firstPosition());
    QCOMPARE(header.begin().fragment().charFormat().fontWeight(), int(QFont::Bold));
}

// When the row gets narrower (or wider), the first piece of a cut table is laid out again and the later
// pieces take its new column widths.
void TestIncrementalMarkdown::aCutTablesColumnsStayInLineWhenTheWidthChanges()
{
    const QString text =
        tableOf(300, QStringLiteral("Here is the table:\n\n"), QStringLiteral("\nDone.\n"),
                [](int i) { return QStringLiteral("option %1 of the module, described").arg(i); });
    IncrementalMarkdown streamed(QApplication::font(), QApplication::palette());
    streamed.setTextWidth(800);
    for (qsizetype at = 7; at < text.size() + 7; at += 7)
        streamed.setText(text.left(at));
    const qreal wide = streamed.size().height();
    for (const qreal width : {250.0, 800.0, 400.0}) {
        streamed.setTextWidth(width);
        int pieces = 0;
        checkColumnsLineUp(streamed, &pieces);
        QVERIFY(pieces >= 3);
        for (const StackedText::Layer &layer : streamed.layers()) {
            for (QTextTable *table : tablesOf(*layer.document))
                QVERIFY2(cellBox(*table, 0, table->columns() - 1).right() <= width,
                         qPrintable(QString::number(width)));
        }
    }
    streamed.setTextWidth(250);
    QVERIFY(streamed.size().height() > wide); // the options wrap in every piece
    QCOMPARE(streamed.toPlainText().count(QStringLiteral("Module name")), 1);
}
