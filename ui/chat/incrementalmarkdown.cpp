#include "chat/incrementalmarkdown.h"

#include "chat/chatcolors.h"
#include "chat/inerttextdocument.h"
#include "chat/listnumbering.h"

#include <QAbstractTextDocumentLayout>
#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextList>
#include <QTextTable>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace keen {

namespace {

// Finished segments smaller than this are parsed again together with the next finished blocks, so a slow
// stream does not leave one document per paragraph (each re-parse is bounded by this size).
constexpr qsizetype MergeBelowChars = 2048;
// A code fence at the margin longer than this is cut into pieces of about this size at line starts, so a
// flush parses at most one piece of it again (a file written in one fence was parsed whole on every flush:
// the cost grew with the square of its length). Not below MergeBelowChars: pieces are not merged again.
constexpr qsizetype LongFenceCutChars = MergeBelowChars;
// A list at the margin longer than this is cut the same way, at the start of one of its items (a reply that
// is one list of 2,000 items was parsed whole on every flush too).
constexpr qsizetype LongListCutChars = MergeBelowChars;
// And a table at the margin, at the start of one of its rows (a table of 300 rows took 68 ms a flush).
constexpr qsizetype LongTableCutChars = MergeBelowChars;

bool isSpaceOrTab(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t');
}

// The columns line's leading spaces and tabs take (a tab runs to the next multiple of 4, as CommonMark
// counts).
qsizetype indentColumns(QStringView line)
{
    qsizetype columns = 0;
    for (const QChar c : line) {
        if (c == QLatin1Char(' '))
            ++columns;
        else if (c == QLatin1Char('\t'))
            columns += 4 - columns % 4;
        else
            break;
    }
    return columns;
}

// "- - -", "***": a rule, not a list item, though it may start like one.
bool isThematicBreak(QStringView line)
{
    const QStringView content = line.trimmed();
    if (content.isEmpty())
        return false;
    const QChar c = content.at(0);
    if (c != QLatin1Char('-') && c != QLatin1Char('*') && c != QLatin1Char('_'))
        return false;
    qsizetype count = 0;
    for (const QChar other : content) {
        if (other == c)
            ++count;
        else if (!isSpaceOrTab(other))
            return false;
    }
    return count >= 3;
}

// Whether content (a line without its indentation) may start a block other than a paragraph: a heading,
// quote, table, fence, rule, list item or setext underline. Errs towards yes: a line that may is never taken
// for a lazy continuation of a list item's paragraph.
bool mayStartBlock(QStringView content)
{
    if (content.isEmpty() || content.contains(QLatin1Char('|')))
        return true;
    const QChar first = content.at(0);
    return first.isDigit() || QStringView(u"#>`~-*+_=").contains(first);
}

// A list item that starts at the margin, text following its marker.
struct ItemStart
{
    QChar marker;                // '-', '*' or '+' for a bullet; '.' or ')' after an ordered item's number
    qsizetype contentIndent = 0; // the column its text starts at: its next lines are indented as far
    bool mayInterrupt = false;   // may start a list right below a paragraph line (a bullet, or number 1)
};

std::optional<ItemStart> itemAtMargin(QStringView line)
{
    if (line.isEmpty() || isThematicBreak(line))
        return std::nullopt;
    ItemStart item;
    qsizetype width = 0; // the marker's
    const QChar first = line.at(0);
    if (first == QLatin1Char('-') || first == QLatin1Char('*') || first == QLatin1Char('+')) {
        item.marker = first;
        item.mayInterrupt = true;
        width = 1;
    } else {
        while (width < line.size() && width < 10 && line.at(width).isDigit() &&
               line.at(width).unicode() < 128)
            ++width;
        if (width == 0 || width > 9 || width >= line.size() ||
            (line.at(width) != QLatin1Char('.') && line.at(width) != QLatin1Char(')')))
            return std::nullopt;
        item.marker = line.at(width);
        item.mayInterrupt = line.first(width).toInt() == 1;
        ++width;
    }
    const QStringView rest = line.sliced(width);
    // Not an item, or an empty one (which may not interrupt a paragraph): no piece starts there.
    if (rest.isEmpty() || !isSpaceOrTab(rest.at(0)) || rest.trimmed().isEmpty())
        return std::nullopt;
    // Text indented by 5 columns or more after the marker is indented code; the item's text starts after 1.
    const qsizetype spaces = indentColumns(rest);
    item.contentIndent = width + (spaces > 4 ? 1 : spaces);
    return item;
}

// "## Results": a heading ends on its line, so a table's header row may follow right below it.
bool isAtxHeading(QStringView line)
{
    qsizetype level = 0;
    while (level < line.size() && level < 7 && line.at(level) == QLatin1Char('#'))
        ++level;
    return level > 0 && level <= 6 && (level == line.size() || isSpaceOrTab(line.at(level)));
}

// A line at the margin that is a row of the table above it and cannot start any other block (stricter than
// Qt's reader, which takes more lines for rows: a line this is wrong about only stops the cuts).
bool mayBeTableRow(QStringView line)
{
    if (line.isEmpty())
        return false;
    const QChar first = line.at(0);
    return first == QLatin1Char('|') || (first.isLetterOrNumber() && !itemAtMargin(line));
}

// The cells of a table row: the pipes not escaped, less one at either end.
qsizetype tableCells(QStringView line)
{
    const QStringView row = line.trimmed();
    qsizetype pipes = 0;
    for (qsizetype at = 0; at < row.size(); ++at) {
        if (row.at(at) == QLatin1Char('\\'))
            ++at;
        else if (row.at(at) == QLatin1Char('|'))
            ++pipes;
    }
    if (row.startsWith(QLatin1Char('|')))
        --pipes;
    if (row.size() > 1 && row.endsWith(QLatin1Char('|')) && !row.endsWith(QLatin1String("\\|")))
        --pipes;
    return pipes + 1;
}

// The columns of a table's delimiter row ("|---|:--:|"), 0 when line is none. As Qt 6.4's reader (md4c) reads
// one: at least one pipe, each cell three or more of ":", "-" and ":", but at the margin only.
qsizetype delimiterColumns(QStringView line)
{
    auto skipSpace = [&](qsizetype at) {
        while (at < line.size() && line.at(at).isSpace())
            ++at;
        return at;
    };
    qsizetype at = 0;
    bool pipe = false;
    if (at < line.size() && line.at(at) == QLatin1Char('|')) {
        pipe = true;
        at = skipSpace(at + 1);
    }
    qsizetype columns = 0;
    while (true) {
        const qsizetype cell = at;
        if (at < line.size() && line.at(at) == QLatin1Char(':'))
            ++at;
        while (at < line.size() && line.at(at) == QLatin1Char('-'))
            ++at;
        if (at < line.size() && line.at(at) == QLatin1Char(':'))
            ++at;
        if (at - cell < 3)
            return 0;
        ++columns;
        at = skipSpace(at);
        bool delimited = false;
        if (at < line.size() && line.at(at) == QLatin1Char('|')) {
            delimited = pipe = true;
            at = skipSpace(at + 1);
        }
        if (at >= line.size())
            break;
        if (!delimited)
            return 0;
    }
    return pipe ? columns : 0;
}

QTextTable *firstTableOf(const QTextDocument &document)
{
    const QList<QTextFrame *> frames = document.rootFrame()->childFrames();
    for (QTextFrame *frame : frames) {
        if (auto *table = qobject_cast<QTextTable *>(frame))
            return table;
    }
    return nullptr;
}

QTextTable *lastTableOf(const QTextDocument &document)
{
    const QList<QTextFrame *> frames = document.rootFrame()->childFrames();
    for (auto it = frames.crbegin(); it != frames.crend(); ++it) {
        if (auto *table = qobject_cast<QTextTable *>(*it))
            return table;
    }
    return nullptr;
}

QRectF cellTextBox(const QTextTable &table, int row, int column, bool lastBlock = false)
{
    const QTextTableCell cell = table.cellAt(row, column);
    const QTextDocument *document = table.document();
    return document->documentLayout()->blockBoundingRect(
        document->findBlock(lastBlock ? cell.lastPosition() : cell.firstPosition()));
}

// What one column of table takes beside the text of its cells: the cell's padding on both sides and one
// collapsed border (measured: a column given a fixed width w has its text w minus this wide, and starts w
// right of the column before's text).
qreal columnFrame(const QTextTable &table)
{
    return 2 * table.format().cellPadding() + table.format().border();
}

// The widths of table's columns as laid out, as QTextLength::FixedLength takes them.
QList<qreal> columnWidths(const QTextTable &table)
{
    QList<qreal> widths;
    for (int column = 0; column < table.columns(); ++column)
        widths.append(cellTextBox(table, 0, column).width() + columnFrame(table));
    return widths;
}

// The fence that closes the fence opened by opener ("```cpp" -> "```").
QString closingFence(const QString &opener)
{
    qsizetype run = 0;
    while (run < opener.size() && opener.at(run) == opener.at(0))
        ++run;
    return opener.left(run);
}

bool isFence(QStringView line, QChar *fenceChar, qsizetype *length)
{
    qsizetype indent = 0;
    while (indent < line.size() && indent < 4 && line.at(indent) == QLatin1Char(' '))
        ++indent;
    if (indent > 3 || indent >= line.size())
        return false;
    const QChar c = line.at(indent);
    if (c != QLatin1Char('`') && c != QLatin1Char('~'))
        return false;
    qsizetype run = 0;
    while (indent + run < line.size() && line.at(indent + run) == c)
        ++run;
    if (run < 3)
        return false;
    *fenceChar = c;
    *length = run;
    return true;
}

// A line after a blank line that may belong to the block before it: an indented continuation or a list item
// (a loose list goes on across blank lines). A table is kept with what comes before it too: a document that
// starts with a table gets an empty first block.
bool mayContinueBlock(QStringView line)
{
    const QChar first = line.at(0);
    if (first == QLatin1Char(' ') || first == QLatin1Char('\t') || first == QLatin1Char('|'))
        return true;
    if ((first == QLatin1Char('-') || first == QLatin1Char('*') || first == QLatin1Char('+')) &&
        (line.size() == 1 || line.at(1) == QLatin1Char(' ')))
        return true;
    qsizetype digits = 0;
    while (digits < line.size() && digits < 10 && line.at(digits).isDigit())
        ++digits;
    return digits > 0 && digits < line.size() &&
           (line.at(digits) == QLatin1Char('.') || line.at(digits) == QLatin1Char(')'));
}

} // namespace

IncrementalMarkdown::IncrementalMarkdown(const QFont &font, const QPalette &palette)
    : m_font(font)
    , m_palette(palette)
{}

IncrementalMarkdown::~IncrementalMarkdown() = default;

void IncrementalMarkdown::reset()
{
    m_segments.clear();
    m_tail = Segment();
    m_finished = 0;
    m_finishedInFence.clear();
    m_finishedInList = false;
    m_finishedInTable.clear();
    m_scan = Scan();
}

void IncrementalMarkdown::scan(Scan &s, QStringView text, QList<qsizetype> *boundaries)
{
    auto finish = [&](qsizetype at) {
        s.boundary = at;
        if (boundaries)
            boundaries->append(at);
    };
    while (true) {
        const qsizetype newline = text.indexOf(QLatin1Char('\n'), s.position);
        if (newline < 0)
            break;
        const QStringView line = text.sliced(s.position, newline - s.position);
        QChar fenceChar;
        qsizetype fenceLength = 0;
        if (s.inFence) {
            if (!s.listMarker.isNull() && !s.fenceAtLineStart && !line.trimmed().isEmpty() &&
                indentColumns(line) < s.listContentIndent)
                s.listUnsure = true; // CommonMark ends the item there, and the fence in it
            if (isFence(line, &fenceChar, &fenceLength) && fenceChar == s.fenceChar &&
                fenceLength >= s.fenceLength && line.trimmed().size() == fenceLength) {
                s.inFence = false;
                s.fenceOpener.clear();
                s.fenceCut = 0;
                if (s.fenceAtLineStart)
                    finish(newline + 1); // a closed fence at the margin is a whole block
            } else if (s.fenceAtLineStart && s.position - s.fencePieceStart >= LongFenceCutChars &&
                       !line.trimmed().isEmpty()) {
                // The next piece starts at this line: not at a blank one, which Qt's reader drops at the
                // start of a code block.
                s.fenceCut = s.position;
                s.fencePieceStart = s.fenceCut;
            }
            s.blankBefore = false;
            s.paragraphBefore = false;
            s.tableCandidate.clear();
            s.headingBefore = false;
        } else if (line.trimmed().isEmpty()) {
            s.blankBefore = true;
            s.paragraphBefore = false;
            s.tableHead.clear(); // a blank line ends a table
            s.tableCandidate.clear();
            s.headingBefore = false;
        } else {
            const bool blockEnded = s.blankBefore && !mayContinueBlock(line);
            if (blockEnded)
                finish(s.position);
            followList(s, line, blockEnded);
            followTable(s, line);
            s.blankBefore = false;
            s.paragraphBefore = isParagraphText(line);
            if (isFence(line, &fenceChar, &fenceLength)) {
                s.inFence = true;
                s.fenceChar = fenceChar;
                s.fenceLength = fenceLength;
                s.fenceAtLineStart = line.at(0) == fenceChar;
                if (s.fenceAtLineStart) {
                    s.fenceOpener = line.trimmed().toString();
                    s.fencePieceStart = s.position;
                    s.fenceCut = 0;
                }
            }
        }
        s.position = newline + 1;
    }
}

void IncrementalMarkdown::followList(Scan &s, QStringView line, bool blockEnded)
{
    if (blockEnded) {
        s.listMarker = QChar();
        s.listUnsure = false;
    }
    if (const std::optional<ItemStart> item = itemAtMargin(line)) {
        if (!s.listMarker.isNull() && item->marker == s.listMarker) {
            // The next item of the list: the line above ended the item before (CommonMark).
            if (!s.listUnsure && s.position - s.listPieceStart >= LongListCutChars) {
                s.listCut = s.position;
                s.listPieceStart = s.position;
            }
            s.listContentIndent = item->contentIndent;
        } else if ((!s.listMarker.isNull() && !s.listUnsure) || s.blankBefore || s.position == 0 ||
                   item->mayInterrupt) {
            // Another marker starts another list; "2) b" right below a paragraph line goes on with the
            // paragraph.
            s.listMarker = item->marker;
            s.listContentIndent = item->contentIndent;
            s.listUnsure = false;
            s.listPieceStart = s.position;
        } else {
            s.listMarker = QChar();
        }
        return;
    }
    // A line at the margin that is no item, or one indented less than the item's text, is a lazy
    // continuation of the item's paragraph if it may be one; else it ends the item and the list (a model's
    // "  - detail" under "1. Step": the next "1." starts a list of its own, which no piece may start with).
    const bool lazy = !s.blankBefore && s.paragraphBefore && !mayStartBlock(line.trimmed());
    if (!s.listMarker.isNull() && indentColumns(line) < s.listContentIndent && !lazy)
        s.listMarker = QChar();
}

void IncrementalMarkdown::followTable(Scan &s, QStringView line)
{
    const QStringView row = line.endsWith(QLatin1Char('\r')) ? line.chopped(1) : line;
    const QString candidate = std::exchange(s.tableCandidate, QString());
    // Qt's reader takes a header row only as the first line of a paragraph.
    const bool blockStart = s.blankBefore || s.position == 0 || s.headingBefore;
    s.headingBefore = isAtxHeading(row);
    if (!s.tableHead.isEmpty()) {
        if (mayBeTableRow(row)) {
            if (s.position - s.tablePieceStart >= LongTableCutChars) {
                s.tableCut = s.position;
                s.tableCutHead = s.tableHead;
                s.tablePieceStart = s.position;
            }
            return;
        }
        s.tableHead.clear();
    }
    if (!candidate.isEmpty()) {
        // GFM: as many cells in the header row as in the delimiter row, or it is no table.
        const qsizetype columns = delimiterColumns(row);
        if (columns > 0 && columns == tableCells(candidate)) {
            s.tableHead = candidate + QLatin1Char('\n') + row.toString();
            s.tablePieceStart = s.tableCandidateStart;
            return;
        }
    }
    if (blockStart && mayBeTableRow(row) && row.contains(QLatin1Char('|'))) {
        s.tableCandidate = row.toString();
        s.tableCandidateStart = s.position;
    }
}

bool IncrementalMarkdown::isParagraphText(QStringView line)
{
    QStringView content = line.trimmed();
    if (const std::optional<ItemStart> item = itemAtMargin(content)) // an item's first line: its text
        content = content.sliced(std::min(item->contentIndent, content.size())).trimmed();
    return !mayStartBlock(content);
}

void IncrementalMarkdown::parse(Segment &segment)
{
    std::unique_ptr<QTextDocument> document = std::make_unique<InertTextDocument>();
    document->setDocumentMargin(0);
    document->setDefaultFont(m_font);
    document->setUndoRedoEnabled(false);
    QString source = m_text.sliced(segment.start, segment.end - segment.start);
    if (!segment.fenceOpener.isEmpty())
        source.prepend(segment.fenceOpener + QLatin1Char('\n'));
    if (!segment.fenceOpenAtEnd.isEmpty())
        source += closingFence(segment.fenceOpenAtEnd) + QLatin1Char('\n');
    if (!segment.tableHead.isEmpty())
        source.prepend(segment.tableHead + QLatin1Char('\n'));
    ListNumbering::setMarkdown(*document, source);
    if (segment.continuesList && !m_segments.empty())
        continueNumbering(*document, *m_segments.back().document);
    QTextTable *piece = segment.tableHead.isEmpty() ? nullptr : firstTableOf(*document);
    if (piece && piece->rows() > 1) {
        // The header row was parsed only to make the rows a table of its columns: it shows once, above.
        piece->removeRows(0, 1);
        QTextTableFormat format = piece->format();
        format.setProperty(TablePieceProperty, true);
        piece->setFormat(format);
    }
    style(*document, m_palette);
    // Pieces of one table join without the space around a table between them.
    if (piece && piece->format().boolProperty(TablePieceProperty)) {
        QTextTableFormat format = piece->format();
        format.setTopMargin(0);
        piece->setFormat(format);
    }
    if (QTextTable *last = lastTableOf(*document); last && !segment.tableHeadAtEnd.isEmpty()) {
        QTextTableFormat format = last->format();
        format.setBottomMargin(0);
        last->setFormat(format);
    }
    m_counters.charsParsed += source.size();
    segment.document = std::move(document);
}

void IncrementalMarkdown::continueNumbering(QTextDocument &piece, const QTextDocument &before)
{
    // The items of an ordered list count on from its first (Qt numbers the items it made, hard breaks
    // included): the piece's first item shows the number after the last item of the piece before.
    QTextList *list = piece.firstBlock().textList();
    if (!list || list->format().style() != QTextListFormat::ListDecimal)
        return;
    for (QTextBlock block = before.lastBlock(); block.isValid(); block = block.previous()) {
        const QTextList *last = block.textList();
        if (last && last->format().indent() == list->format().indent()) {
            if (last->format().style() == QTextListFormat::ListDecimal)
                ListNumbering::setStart(*list, ListNumbering::numberAfter(*last));
            return;
        }
    }
}

IncrementalMarkdown::CutTables IncrementalMarkdown::cutTables(const Segment &segment)
{
    CutTables cut;
    if (!segment.document)
        return cut;
    if (!segment.tableHead.isEmpty()) {
        if (QTextTable *first = firstTableOf(*segment.document);
            first && first->format().boolProperty(TablePieceProperty))
            cut.continued = first;
    }
    if (!segment.tableHeadAtEnd.isEmpty())
        cut.goesOn = lastTableOf(*segment.document);
    return cut;
}

QList<qreal> IncrementalMarkdown::naturalColumns(QTextDocument &document, QTextTable &table) const
{
    QTextTableFormat format = table.format();
    if (!format.columnWidthConstraints().isEmpty()) {
        format.clearColumnWidthConstraints();
        table.setFormat(format);
    }
    document.size(); // laid out without them
    return columnWidths(table);
}

bool IncrementalMarkdown::anyCellWraps(const QTextTable &table)
{
    const QTextDocument *document = table.document();
    for (QTextBlock block = document->findBlock(table.firstPosition());
         block.isValid() && block.position() <= table.lastPosition(); block = block.next()) {
        if (block.layout() && block.layout()->lineCount() > 1)
            return true;
    }
    return false;
}

QList<qreal> IncrementalMarkdown::fitted(QList<qreal> widths) const
{
    // Columns wider together than the row (the widest cells of different pieces): narrowed alike, as Qt
    // narrows a table too wide for its width; a word longer than its column then breaks anywhere.
    qreal total = 1; // the table's last border
    for (const qreal width : std::as_const(widths))
        total += width;
    if (m_width > 0 && total > m_width) {
        const qreal scale = (m_width - 1) / (total - 1);
        for (qreal &width : widths)
            width = std::floor(width * scale);
    }
    return widths;
}

void IncrementalMarkdown::applyColumns(QTextTable &table, const QList<qreal> &widths)
{
    QList<QTextLength> lengths;
    for (const qreal width : widths)
        lengths.append(QTextLength(QTextLength::FixedLength, width));
    QTextTableFormat format = table.format();
    if (format.columnWidthConstraints() != lengths) {
        format.setColumnWidthConstraints(lengths);
        table.setFormat(format);
    }
}

void IncrementalMarkdown::layout(Segment &segment, const Segment *before)
{
    segment.tableColumns.clear();
    if (!segment.document) {
        segment.height = 0;
        return;
    }
    QTextDocument &document = *segment.document;
    // Once: setting the width lays the whole document out again, even at the same width; changed widths of
    // a table's columns lay that table out again when its size is next asked for.
    document.setTextWidth(m_width);
    CutTables cut = cutTables(segment);
    if (cut.continued &&
        (!before || !before->document || before->tableColumns.size() != cut.continued->columns()))
        cut.continued = nullptr;
    // Every piece of a cut table has the same columns: as wide as the widest cell of any of its pieces
    // needs (what Qt gives one table whose rows all fit), so a later row wider than the rows above widens
    // its column in the pieces above too (row numbers that grow a digit: found when tried, "1187" wrapped
    // in a column sized for "45").
    QList<qreal> continuedWidths;
    if (cut.continued) {
        continuedWidths = before->tableColumns;
        applyColumns(*cut.continued, continuedWidths);
        document.size(); // laid out now, so its lines can be counted
    }
    // A piece whose cells all fit on one line in the columns above needs them no wider: laid out once (a
    // second layout without fixed widths doubled the cost of a flush).
    if (cut.continued && anyCellWraps(*cut.continued)) {
        const QList<qreal> natural = naturalColumns(document, *cut.continued);
        bool wider = false;
        for (qsizetype column = 0; column < continuedWidths.size(); ++column) {
            if (natural.at(column) > continuedWidths.at(column) + 0.5) {
                continuedWidths[column] = natural.at(column);
                wider = true;
            }
        }
        continuedWidths = fitted(continuedWidths);
        if (wider && continuedWidths != before->tableColumns)
            widenTableAbove(before, continuedWidths);
        applyColumns(*cut.continued, continuedWidths);
    }
    QList<qreal> startedWidths;
    if (cut.goesOn && cut.goesOn != cut.continued) {
        // The first piece of a cut table: its own columns so far, fixed, so that the pieces below line up.
        startedWidths = fitted(naturalColumns(document, *cut.goesOn));
        applyColumns(*cut.goesOn, startedWidths);
    }
    if (cut.continued)
        segment.gapBefore = seamGap(*before->document, document);
    segment.height = segment.gapBefore + document.size().height();
    if (cut.goesOn)
        segment.tableColumns = cut.goesOn == cut.continued ? continuedWidths : startedWidths;
}

void IncrementalMarkdown::widenTableAbove(const Segment *last, const QList<qreal> &widths)
{
    // The finished pieces of the table, last up to its first: a piece that goes on with the table above
    // leads on up to the one before it.
    std::size_t index = m_segments.size();
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        if (&m_segments[i] == last)
            index = i;
    }
    if (index == m_segments.size())
        return;
    std::size_t first = index;
    while (first > 0) {
        const CutTables cut = cutTables(m_segments[first]);
        if (!cut.continued || (cut.goesOn && cut.goesOn != cut.continued))
            break;
        --first;
    }
    for (std::size_t i = first; i <= index; ++i) {
        Segment &segment = m_segments[i];
        const CutTables cut = cutTables(segment);
        const bool continues = i > first && cut.continued;
        if (QTextTable *table = continues ? cut.continued : cut.goesOn)
            applyColumns(*table, widths);
        if (continues)
            segment.gapBefore = seamGap(*m_segments[i - 1].document, *segment.document);
        segment.height = segment.gapBefore + segment.document->size().height();
        segment.tableColumns = widths;
    }
}

qreal IncrementalMarkdown::seamGap(const QTextDocument &before, const QTextDocument &piece)
{
    const QTextTable *above = lastTableOf(before);
    const QTextTable *below = firstTableOf(piece);
    if (!above || !below)
        return 0;
    // In one table the next row's text starts a cell's padding, a border and the next cell's padding below
    // the text of the row's highest cell.
    qreal bottom = 0;
    for (int column = 0; column < above->columns(); ++column)
        bottom = std::max(bottom, cellTextBox(*above, above->rows() - 1, column, true).bottom());
    const qreal top = cellTextBox(*below, 0, 0).top();
    return bottom + columnFrame(*above) - before.size().height() - top;
}

void IncrementalMarkdown::placeAfterFinished(Segment &segment) const
{
    // A document leaves out its first block's top margin and its last block's bottom margin; between two
    // blocks of one document the larger of the two margins separates them, so do the same between segments.
    segment.gapBefore = 0;
    if (m_segments.empty() || !segment.document || !segment.fenceOpener.isEmpty() ||
        !segment.tableHead.isEmpty())
        return; // the next piece of a cut fence goes on right below the one before; a table's: layout()
    const QTextDocument *before = m_segments.back().document.get();
    segment.gapBefore = std::max(before->lastBlock().blockFormat().bottomMargin(),
                                 segment.document->firstBlock().blockFormat().topMargin());
}

void IncrementalMarkdown::setText(const QString &text)
{
    const bool extends = text.size() >= m_text.size() && QStringView(text).startsWith(QStringView(m_text));
    const bool truncates = !extends && QStringView(m_text).startsWith(QStringView(text));
    if (truncates) {
        // A long reply moving on to a new row keeps its first part (ChatModel::MaxRowChars): the segments
        // that end within the kept text stay as they are; only the rest of it is parsed again.
        while (!m_segments.empty() && m_segments.back().end > text.size())
            m_segments.pop_back();
        m_finished = m_segments.empty() ? 0 : m_segments.back().end;
        m_finishedInFence = m_segments.empty() ? QString() : m_segments.back().fenceOpenAtEnd;
        m_finishedInList = !m_segments.empty() && m_segments.back().listGoesOnAtEnd;
        m_finishedInTable = m_segments.empty() ? QString() : m_segments.back().tableHeadAtEnd;
        m_tail = Segment();
        m_scan = Scan(); // scanning is cheap next to parsing: from the start, so its state is exact
    } else if (!extends) {
        reset();
        ++m_counters.fullRenders;
    } else if (text.size() == m_text.size() && (m_tail.document || m_text.isEmpty())) {
        return; // nothing new
    }
    m_text = text;
    scan(m_scan, m_text);
    if (m_scan.boundary > m_finished)
        finishSegment(m_scan.boundary, QString());
    if (m_scan.listCut > m_finished)
        finishSegment(m_scan.listCut, QString(), true);
    if (m_scan.inFence && !m_scan.fenceOpener.isEmpty() && m_scan.fenceCut > m_finished)
        finishSegment(m_scan.fenceCut, m_scan.fenceOpener);
    if (m_scan.tableCut > m_finished)
        finishSegment(m_scan.tableCut, QString(), false, m_scan.tableCutHead);
    m_tail = Segment();
    if (m_finished < m_text.size()) {
        m_tail.start = m_finished;
        m_tail.end = m_text.size();
        m_tail.fenceOpener = m_finishedInFence;
        m_tail.continuesList = m_finishedInList;
        m_tail.tableHead = m_finishedInTable;
        parse(m_tail);
        placeAfterFinished(m_tail);
        layout(m_tail, m_segments.empty() ? nullptr : &m_segments.back());
    }
}

void IncrementalMarkdown::finishSegment(qsizetype end, const QString &fenceOpenAtEnd, bool listGoesOn,
                                        const QString &tableHeadAtEnd)
{
    // Small finished segments before are parsed once more with the new blocks, so they merge.
    Segment segment;
    segment.start = m_finished;
    segment.fenceOpener = m_finishedInFence;
    segment.continuesList = m_finishedInList;
    segment.tableHead = m_finishedInTable;
    if (!m_segments.empty() && m_segments.back().end - m_segments.back().start < MergeBelowChars) {
        segment.start = m_segments.back().start;
        segment.fenceOpener = m_segments.back().fenceOpener;
        segment.continuesList = m_segments.back().continuesList;
        segment.tableHead = m_segments.back().tableHead;
        m_segments.pop_back();
    }
    segment.end = end;
    segment.fenceOpenAtEnd = fenceOpenAtEnd;
    segment.listGoesOnAtEnd = listGoesOn;
    segment.tableHeadAtEnd = tableHeadAtEnd;
    parse(segment);
    placeAfterFinished(segment);
    layout(segment, m_segments.empty() ? nullptr : &m_segments.back());
    m_segments.push_back(std::move(segment));
    m_finished = end;
    m_finishedInFence = fenceOpenAtEnd;
    m_finishedInList = listGoesOn;
    m_finishedInTable = tableHeadAtEnd;
}

QList<qsizetype> IncrementalMarkdown::blockBoundaries(const QString &text)
{
    Scan state;
    QList<qsizetype> boundaries;
    scan(state, text, &boundaries);
    return boundaries;
}

void IncrementalMarkdown::setTextWidth(qreal width)
{
    if (qFuzzyCompare(width, m_width))
        return;
    m_width = width;
    // In order: a piece of a cut table takes its columns from the piece above, laid out at the new width.
    const Segment *before = nullptr;
    for (Segment &segment : m_segments) {
        layout(segment, before);
        before = &segment;
    }
    layout(m_tail, before);
}

QSizeF IncrementalMarkdown::size() const
{
    qreal height = m_tail.height;
    for (const Segment &segment : m_segments)
        height += segment.height;
    return {m_width, height};
}

void IncrementalMarkdown::draw(QPainter *painter, const QAbstractTextDocumentLayout::PaintContext &context,
                               int selectionFrom, int selectionTo) const
{
    std::optional<StackedText> selected;
    if (selectionFrom != selectionTo)
        selected.emplace(layers());
    qreal y = 0;
    int layer = 0; // the segments with a document, as layers() counts them
    auto drawSegment = [&](const Segment &segment) {
        if (segment.document && y + segment.height >= context.clip.top() &&
            (context.clip.isNull() || y <= context.clip.bottom())) {
            QAbstractTextDocumentLayout::PaintContext local = context;
            const qreal top = y + segment.gapBefore;
            local.clip = context.clip.translated(0, -top);
            if (selected)
                local.selections = selected->selectionsIn(layer, selectionFrom, selectionTo, context.palette);
            painter->save();
            painter->translate(0, top);
            segment.document->documentLayout()->draw(painter, local);
            ListNumbering::drawNumbers(painter, *segment.document, local);
            // A piece that starts with an item of the list above: selected from there, its marker is too, as
            // in one document.
            if (const QTextBlock first = segment.document->firstBlock();
                selected && !local.selections.isEmpty() && first.textList() &&
                selected->reachesIntoFromAbove(layer, selectionFrom, selectionTo))
                ListNumbering::drawSelectedMarker(painter, *segment.document, first, local,
                                                  local.selections.constFirst().format);
            drawQuoteBars(painter, *segment.document, local.clip, context.palette);
            painter->restore();
            ++m_segmentsDrawn;
        }
        if (segment.document)
            ++layer;
        y += segment.height;
    };
    for (const Segment &segment : m_segments)
        drawSegment(segment);
    drawSegment(m_tail);
}

QList<StackedText::Layer> IncrementalMarkdown::layers() const
{
    QList<StackedText::Layer> layers;
    qreal y = 0;
    auto add = [&](const Segment &segment) {
        if (segment.document)
            layers.append({segment.document.get(), y + segment.gapBefore});
        y += segment.height;
    };
    for (const Segment &segment : m_segments)
        add(segment);
    add(m_tail);
    return layers;
}

IncrementalMarkdown::Counters IncrementalMarkdown::counters() const
{
    Counters counters = m_counters;
    counters.segmentsDrawn = m_segmentsDrawn;
    counters.segments = int(m_segments.size()) + (m_tail.document ? 1 : 0);
    return counters;
}

QString IncrementalMarkdown::codeBlockAt(const QPointF &position) const
{
    qreal y = 0;
    const std::size_t count = m_segments.size() + 1;
    for (std::size_t index = 0; index < count; ++index) {
        const Segment &segment = index < m_segments.size() ? m_segments.at(index) : m_tail;
        const qreal top = y + segment.gapBefore;
        y += segment.height;
        if (!segment.document || position.y() < top || position.y() >= y)
            continue;
        const int at = segment.document->documentLayout()->hitTest(position - QPointF(0, top), Qt::FuzzyHit);
        const QTextBlock block = segment.document->findBlock(std::max(0, at));
        if (!block.isValid() || !isCodeBlock(block.blockFormat()))
            return {};
        return codeAround(index, block);
    }
    return {};
}

QString IncrementalMarkdown::codeAround(std::size_t segmentIndex, const QTextBlock &block) const
{
    auto isCode = [](const QTextBlock &line) { return line.isValid() && isCodeBlock(line.blockFormat()); };
    auto segmentAt = [this](std::size_t index) -> const Segment & {
        return index < m_segments.size() ? m_segments.at(index) : m_tail;
    };
    // The last code line of a document, when the code runs to its end (an empty block after it is no line).
    auto lastCode = [&](const QTextDocument &document) {
        QTextBlock last = document.lastBlock();
        if (!isCode(last) && last.text().isEmpty())
            last = last.previous();
        return last;
    };
    QTextBlock first = block;
    while (isCode(first.previous()))
        first = first.previous();
    QTextBlock last = block;
    while (isCode(last.next()))
        last = last.next();
    QStringList lines;
    for (QTextBlock line = first; line.isValid(); line = line.next()) {
        lines.append(line.text());
        if (line == last)
            break;
    }
    // A cut fence: the pieces before and after hold the rest of the block.
    for (std::size_t index = segmentIndex;
         index > 0 && !first.previous().isValid() && !segmentAt(index).fenceOpener.isEmpty();) {
        --index;
        QStringList before;
        for (QTextBlock line = lastCode(*segmentAt(index).document); isCode(line); line = line.previous()) {
            before.prepend(line.text());
            first = line;
        }
        if (before.isEmpty())
            break;
        lines = before + lines;
    }
    for (std::size_t index = segmentIndex; index + 1 < m_segments.size() + 1 &&
                                           lastCode(*segmentAt(index).document) == last &&
                                           !segmentAt(index).fenceOpenAtEnd.isEmpty();) {
        ++index;
        if (!segmentAt(index).document)
            break;
        for (QTextBlock line = segmentAt(index).document->firstBlock(); isCode(line); line = line.next()) {
            lines.append(line.text());
            last = line;
        }
    }
    QString code = lines.join(QLatin1Char('\n'));
    code.replace(QChar::LineSeparator, QLatin1Char('\n'));
    return code;
}

QString IncrementalMarkdown::toPlainText() const
{
    QString text;
    bool first = true;
    auto add = [&](const Segment &segment) {
        QString part = segment.document->toPlainText();
        // A piece of a cut table goes on with the row after the last one above; its document has the line
        // end of the empty block before the table, where the one above ends with the line end after its
        // table, as one document has a single line end between two rows.
        if (!segment.tableHead.isEmpty() && part.startsWith(QLatin1Char('\n')))
            part.remove(0, 1);
        else if (!first)
            text += QLatin1Char('\n');
        text += part;
        first = false;
    };
    for (const Segment &segment : m_segments)
        add(segment);
    if (m_tail.document)
        add(m_tail);
    return text;
}

void IncrementalMarkdown::fixHeaderRow(QTextDocument &document, QTextTable &table)
{
    // Qt 6.4's importer puts an empty block first in the first header cell of a table that follows a code
    // block or a quote (found trying the window: "col A" a line low and not bold). The empty block goes, and
    // the header row is bold as it is after a paragraph.
    QTextCharFormat bold;
    bold.setFontWeight(QFont::Bold);
    for (int column = 0; column < table.columns(); ++column) {
        const QTextTableCell cell = table.cellAt(0, column);
        const QTextBlock first = document.findBlock(cell.firstPosition());
        if (first.length() == 1 && first.next().isValid() && first.next().position() <= cell.lastPosition()) {
            QTextCursor empty(&document);
            empty.setPosition(first.position());
            empty.setPosition(first.next().position(), QTextCursor::KeepAnchor);
            empty.removeSelectedText();
        }
        QTextCursor text(&document);
        text.setPosition(cell.firstPosition());
        text.setPosition(cell.lastPosition(), QTextCursor::KeepAnchor);
        text.mergeCharFormat(bold);
    }
}

void IncrementalMarkdown::unescapePipesInCode(QTextDocument &document, const QTextTable &table)
{
    // GFM: "\|" is a pipe in a table cell, inside code spans too; Qt 6.4 keeps the backslash there (found
    // in the commands table: "/mode [plan\|build\|yolo]"). Outside tables a code span keeps it, as
    // CommonMark says.
    QList<int> backslashes;
    for (QTextBlock block = document.findBlock(table.firstPosition());
         block.isValid() && block.position() <= table.lastPosition(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.isValid() || !fragment.charFormat().fontFixedPitch())
                continue;
            const QString text = fragment.text();
            for (qsizetype at = text.indexOf(QLatin1String("\\|")); at >= 0;
                 at = text.indexOf(QLatin1String("\\|"), at + 2))
                backslashes.append(fragment.position() + int(at));
        }
    }
    QTextCursor cursor(&document);
    for (auto it = backslashes.crbegin(); it != backslashes.crend(); ++it) { // from the end: positions hold
        cursor.setPosition(*it);
        cursor.deleteChar();
    }
}

void IncrementalMarkdown::drawQuoteBars(QPainter *painter, const QTextDocument &document, const QRectF &clip,
                                        const QPalette &palette)
{
    QAbstractTextDocumentLayout *layout = document.documentLayout();
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        const int level = block.blockFormat().intProperty(QTextFormat::BlockQuoteLevel);
        if (level <= 0)
            continue;
        QRectF box = layout->blockBoundingRect(block);
        if (!clip.isNull() && (box.bottom() < clip.top() || box.top() > clip.bottom()))
            continue;
        // Paragraphs of one quote share one unbroken bar: it runs on to where the next one begins.
        const QTextBlock next = block.next();
        const int nextLevel =
            next.isValid() ? next.blockFormat().intProperty(QTextFormat::BlockQuoteLevel) : 0;
        if (nextLevel > 0)
            box.setBottom(std::max(box.bottom(), layout->blockBoundingRect(next).top()));
        for (int depth = 0; depth < level; ++depth) {
            const qreal bottom = depth < nextLevel ? box.bottom() : layout->blockBoundingRect(block).bottom();
            painter->fillRect(QRectF(QuoteIndent * depth + 2, box.top(), QuoteBarWidth, bottom - box.top()),
                              ChatColors::quoteBar(palette));
        }
    }
}

bool IncrementalMarkdown::isCodeBlock(const QTextBlockFormat &format)
{
    return format.hasProperty(QTextFormat::BlockCodeFence) || format.nonBreakableLines() ||
           format.boolProperty(CodeBlockProperty);
}

void IncrementalMarkdown::style(QTextDocument &document, const QPalette &palette)
{
    // A word longer than the line (a URL, a hash, a minified line of code) breaks anywhere.
    QTextOption wrapping = document.defaultTextOption();
    wrapping.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    document.setDefaultTextOption(wrapping);
    const QColor codeBackground = ChatColors::codeBlockBackground(palette);
    const QColor inlineBackground = ChatColors::inlineCodeBackground(palette);
    const QColor inlineText = ChatColors::inlineCodeText(palette);
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    QTextCursor cursor(&document);
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        const QTextBlockFormat format = block.blockFormat();
        if (isCodeBlock(format)) {
            QTextBlockFormat code;
            code.setBackground(codeBackground);
            code.setLeftMargin(6);
            code.setRightMargin(6);
            // A long line wraps at the row's width: the chat cannot scroll sideways, so a line of code
            // wider than the view ran out of sight (found when tried).
            code.setNonBreakableLines(false);
            code.setProperty(CodeBlockProperty, true);
            cursor.setPosition(block.position());
            cursor.mergeBlockFormat(code);
            continue;
        }
        if (const int quote = format.intProperty(QTextFormat::BlockQuoteLevel); quote > 0) {
            // Qt indents a quote by 40 pixels a level and draws nothing beside it: a narrower indent here,
            // and drawQuoteBars() puts the bar in it.
            QTextBlockFormat indent;
            indent.setLeftMargin(QuoteIndent * quote);
            indent.setRightMargin(0);
            cursor.setPosition(block.position());
            cursor.mergeBlockFormat(indent);
        }
        const int level = format.headingLevel();
        if (level > 0) {
            // Chat headings stay close to the body size; a summary's "## Goal" should not shout.
            QTextCharFormat heading;
            heading.setProperty(QTextFormat::FontSizeAdjustment, level == 1 ? 1 : 0);
            heading.setFontWeight(QFont::Bold);
            cursor.setPosition(block.position());
            cursor.setPosition(block.position() + block.length() - 1, QTextCursor::KeepAnchor);
            cursor.mergeCharFormat(heading);
            QTextBlockFormat spacing;
            spacing.setTopMargin(6);
            spacing.setBottomMargin(2);
            cursor.mergeBlockFormat(spacing);
        }
        // Inline code: the importer only marks it fixed-pitch, which many fonts render like the body text.
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.isValid() || !fragment.charFormat().fontFixedPitch())
                continue;
            QTextCharFormat code;
            code.setFontFamilies({fixed.family()});
            code.setFontFixedPitch(true);
            code.setBackground(inlineBackground);
            code.setForeground(inlineText);
            code.setProperty(QTextFormat::UserProperty, true); // marks styled inline code (tests)
            QTextCursor span(&document);
            span.setPosition(fragment.position());
            span.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
            span.mergeCharFormat(code);
        }
    }
    const QList<QTextFrame *> frames = document.rootFrame()->childFrames();
    for (QTextFrame *frame : frames) {
        if (auto *table = qobject_cast<QTextTable *>(frame)) {
            if (!table->format().boolProperty(TablePieceProperty)) // its first row is a body row
                fixHeaderRow(document, *table);
            unescapePipesInCode(document, *table);
            QTextTableFormat format = table->format();
            format.setBorder(1);
            format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
            format.setBorderBrush(ChatColors::tableBorder(palette));
            format.setBorderCollapse(true);
            format.setCellPadding(4);
            format.setCellSpacing(0);
            format.setTopMargin(4);
            format.setBottomMargin(4);
            table->setFormat(format);
        }
    }
}

} // namespace keen
