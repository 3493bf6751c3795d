#pragma once

#include "chat/stackedtext.h"

#include <QAbstractTextDocumentLayout>
#include <QFont>
#include <QList>
#include <QPalette>
#include <QSizeF>
#include <QString>
#include <QTextFormat>

#include <memory>
#include <vector>

class QPainter;
class QTextBlock;
class QTextDocument;
class QTextTable;

namespace keen {

// Shows Markdown that grows at its end (a streamed reply) as a stack of laid-out QTextDocuments. Blocks that
// are finished (followed by a blank line and a line that cannot continue them, or a closed code fence) are
// parsed and laid out once, in a segment of their own; each setText() parses only the open tail. A long code
// fence, list or table at the margin would be one open block, parsed whole on every flush (streaming it cost
// the square of its length): it is cut into pieces of about 2,000 chars, a fence at its line starts, a list
// at its own items' starts, a table at its rows' starts, that show, measure and copy as the one block would.
// A piece of a table is parsed after the table's header and delimiter rows and its header row taken out
// again; all pieces of one table have the same fixed column widths, as wide as the widest cell of any piece
// so far needs (Qt sizes one table's columns from all of its rows): a later row wider than the rows above
// widens its column in the pieces above too. Where the cells together are wider than the row, the columns
// are narrowed alike, where Qt would share the width out its own way: the one difference a person can see. A
// text cut short keeps the segments that end within it; any other text that does not extend the previous one
// is rendered afresh. Also styles what QTextDocument's Markdown leaves plain: code blocks and inline code
// (monospace, tinted), headings, tables, from palette roles.
class IncrementalMarkdown
{
public:
    // What the renderer did, for tests that prove a flush costs the open tail only.
    struct Counters
    {
        qint64 charsParsed = 0;   // Markdown characters handed to the parser, all calls together
        int fullRenders = 0;      // texts rendered from scratch
        qint64 segmentsDrawn = 0; // segments draw() painted, all calls together
        int segments = 0;         // segments there are now (finished blocks and the open tail)
    };

    IncrementalMarkdown(const QFont &font, const QPalette &palette);
    ~IncrementalMarkdown();
    IncrementalMarkdown(const IncrementalMarkdown &) = delete;
    IncrementalMarkdown &operator=(const IncrementalMarkdown &) = delete;

    void setText(const QString &text);
    const QString &text() const { return m_text; }
    void setTextWidth(qreal width);
    QSizeF size() const;
    // Paints what intersects context.clip (document coordinates), the text between the positions
    // selectionFrom and selectionTo (StackedText positions over layers()) selected.
    void draw(QPainter *painter, const QAbstractTextDocumentLayout::PaintContext &context,
              int selectionFrom = 0, int selectionTo = 0) const;
    // The laid-out segments, top to bottom, for positions and selections.
    QList<StackedText::Layer> layers() const;

    QString toPlainText() const;
    // The text of the code block at position (document coordinates), empty when it is not in one.
    QString codeBlockAt(const QPointF &position) const;
    qsizetype finishedLength() const { return m_finished; }
    int segmentCount() const { return int(m_segments.size()); }
    Counters counters() const;

    // Every position in text where finished blocks end and the next block begins (in order).
    static QList<qsizetype> blockBoundaries(const QString &text);

    // How far each level of a block quote is indented; its bar sits at the left of that space.
    static constexpr qreal QuoteIndent = 18;
    // Marks the blocks of a code block once style() has let their long lines wrap (Qt marks them only by
    // nonBreakableLines, which style() clears).
    static constexpr int CodeBlockProperty = QTextFormat::UserProperty + 0x43; // 'C'
    static bool isCodeBlock(const QTextBlockFormat &format);
    static constexpr qreal QuoteBarWidth = 3;
    // Marks a table that goes on from the piece above (its header row taken out): style() leaves its first
    // row as a body row.
    static constexpr int TablePieceProperty = QTextFormat::UserProperty + 0x54; // 'T'

    // Applies the chat's styling to a document QTextDocument::setMarkdown filled.
    static void style(QTextDocument &document, const QPalette &palette);
    // The bar down the left of each block quote of document in clip (QTextDocument has no quote border).
    static void drawQuoteBars(QPainter *painter, const QTextDocument &document, const QRectF &clip,
                              const QPalette &palette);
    // The first row of a table as Qt renders it after a paragraph: no empty block first, bold.
    static void fixHeaderRow(QTextDocument &document, QTextTable &table);
    static void unescapePipesInCode(QTextDocument &document, const QTextTable &table);

private:
    struct Segment
    {
        qsizetype start = 0;
        qsizetype end = 0;
        // A long code fence is cut into pieces of about LongFenceCutChars (a file written in one fence
        // would otherwise be parsed whole on every flush): a piece that starts inside the fence is parsed
        // with the fence's opening line before it, and one that ends inside it with a closing fence after.
        QString fenceOpener;    // the opening line this segment is parsed after, empty when none
        QString fenceOpenAtEnd; // the opening line of the fence still open at end, empty when none
        // A long list at the margin is cut the same way, at the start of one of its items: parsed alone it is
        // the same item, never the first of a list of its own. A piece that goes on with the list of the
        // segment before numbers on from it; its gap above is the one between two items of one document.
        bool continuesList = false;
        bool listGoesOnAtEnd = false; // the segment after continues its list
        // A long table at the margin is cut at the start of one of its rows: a piece that starts inside it is
        // parsed after the table's header and delimiter rows (the header row is then taken out) and lines up
        // with the piece above: its columns get tableColumns of the segment before, and it sits one border
        // up into it (seamGap()).
        QString tableHead;      // the header and delimiter rows this segment is parsed after, empty when none
        QString tableHeadAtEnd; // those of the table still open at end, empty when none
        QList<qreal> tableColumns; // with tableHeadAtEnd: the widths that table's columns are laid out with
        std::unique_ptr<QTextDocument> document;
        qreal gapBefore = 0; // the space between paragraphs that one document would put above it
        qreal height = 0;    // gapBefore included
    };
    struct Scan
    {
        qsizetype position = 0; // start of the first line not scanned yet
        bool inFence = false;
        bool fenceAtLineStart = false;
        QChar fenceChar;
        qsizetype fenceLength = 0;
        bool blankBefore = false;
        qsizetype boundary = 0; // the last position where finished blocks end
        // In an open fence at the margin: its opening line, and the last line end where a piece of it may
        // end (LongFenceCutChars or more after the fence's start or the cut before).
        QString fenceOpener;
        qsizetype fenceCut = 0;
        qsizetype fencePieceStart = 0;
        // In a list at the margin: the character its items' markers end with ('-', '*', '+'; '.' or ')' after
        // a number), null when in none; and the last item start where a piece of it may begin. A line less
        // indented than the item's text that is no lazy continuation ends the list (the next item starts a
        // new one); one inside a code fence in an item, where this scan no longer follows CommonMark, stops
        // the cuts until the list ends (listUnsure).
        QChar listMarker;
        qsizetype listContentIndent = 0; // where the text of its last item starts, in columns
        bool listUnsure = false;
        bool paragraphBefore = false; // the line before was paragraph text (a lazy line may continue it)
        qsizetype listCut = 0;
        qsizetype listPieceStart = 0;
        // In a table at the margin: its header and delimiter rows, empty when in none; the last row start
        // where a piece of it may begin, with the header of its table. A line that may be anything but one of
        // its rows stops the cuts (the piece open then still starts inside the table, so it is parsed the
        // same).
        QString tableCandidate; // the line before, when it may be the header row of a table
        qsizetype tableCandidateStart = 0;
        bool headingBefore = false;
        QString tableHead;
        qsizetype tablePieceStart = 0;
        qsizetype tableCut = 0;
        QString tableCutHead;
    };

    void reset();
    static void scan(Scan &state, QStringView text, QList<qsizetype> *boundaries = nullptr);
    // Follows the list at the margin that line (not blank, not in a fence) may be in.
    static void followList(Scan &state, QStringView line, bool blockEnded);
    static bool isParagraphText(QStringView line);
    // Follows the table at the margin that line (not blank, not in a fence) may start or be a row of.
    static void followTable(Scan &state, QStringView line);
    // Parses [segment.start, segment.end) into segment.document, as segment's cuts say.
    void parse(Segment &segment);
    // Numbers the list piece starts with on from the same list at the end of the piece before.
    static void continueNumbering(QTextDocument &piece, const QTextDocument &before);
    // Makes the finished segment [m_finished, end), which ends inside the fence fenceOpenAtEnd opened (empty:
    // outside any fence) or inside a list that goes on (listGoesOn); small finished segments before it are
    // parsed again with it, so they merge.
    // A segment may also end inside a table (tableHeadAtEnd: its header and delimiter rows).
    void finishSegment(qsizetype end, const QString &fenceOpenAtEnd, bool listGoesOn = false,
                       const QString &tableHeadAtEnd = QString());
    // The code lines of the run around block, followed into the pieces of a cut fence before and after it.
    QString codeAround(std::size_t segmentIndex, const QTextBlock &block) const;
    // Lays segment out at the width, after before (the segment above it, laid out already; null when none).
    // A piece of a cut table with a cell wider than its column widens the pieces above (widenTableAbove).
    void layout(Segment &segment, const Segment *before);
    // The tables of a segment that are pieces of a cut table: the one it starts with, going on with the
    // table above (continued), and the one it ends in, going on below (goesOn); the same for a middle piece.
    struct CutTables
    {
        QTextTable *continued = nullptr;
        QTextTable *goesOn = nullptr;
    };
    static CutTables cutTables(const Segment &segment);
    // The widths Qt gives table's columns laid out without fixed widths (its constraints are cleared).
    QList<qreal> naturalColumns(QTextDocument &document, QTextTable &table) const;
    // Whether a cell of table (laid out) takes more than one line: wraps, or has a line break.
    static bool anyCellWraps(const QTextTable &table);
    // widths narrowed alike to fit the width when they are wider together.
    QList<qreal> fitted(QList<qreal> widths) const;
    static void applyColumns(QTextTable &table, const QList<qreal> &widths);
    // Gives the finished pieces of the cut table that ends in last the column widths, and lays them out
    // again.
    void widenTableAbove(const Segment *last, const QList<qreal> &widths);
    // How far below the end of before the piece of a cut table starts so that its first row follows the
    // last row of before as it would in one table (negative: its top border is before's bottom one).
    static qreal seamGap(const QTextDocument &before, const QTextDocument &piece);
    // Gives segment the gap above it that one document holding the previous segment too would have.
    void placeAfterFinished(Segment &segment) const;

    QFont m_font;
    QPalette m_palette;
    qreal m_width = -1;
    QString m_text;
    qsizetype m_finished = 0;      // text before this is in m_segments
    QString m_finishedInFence;     // the opening line of the fence m_finished is inside, empty when none
    bool m_finishedInList = false; // m_finished is at an item of a list the last segment holds
    QString m_finishedInTable;     // the header and delimiter rows of the table m_finished is inside
    Scan m_scan;
    std::vector<Segment> m_segments;
    Segment m_tail;
    Counters m_counters;
    mutable qint64 m_segmentsDrawn = 0; // draw() is const
};

} // namespace keen
