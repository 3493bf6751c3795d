#include "chat/stackedtext.h"

#include "chat/listnumbering.h"

#include <QHash>
#include <QPalette>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextList>
#include <QTextTable>

#include <algorithm>

namespace keen {

namespace {

// A cursor never changes the document it reads: selecting needs a cursor, and a cursor a non-const document.
QTextCursor cursorOver(const QTextDocument *document, int from, int to)
{
    QTextCursor cursor(const_cast<QTextDocument *>(document));
    cursor.setPosition(from);
    cursor.setPosition(to, QTextCursor::KeepAnchor);
    return cursor;
}

int lastPosition(const QTextDocument *document)
{
    return std::max(0, document->characterCount() - 1);
}

// An empty block right before a table (a document that starts with a table has one): Qt's layout puts it on
// the table's top border, where it shows nothing. The same test as QTextDocumentLayout's.
bool isHiddenBeforeTable(const QTextBlock &block)
{
    if (!block.isValid() || block.length() != 1)
        return false;
    const QTextBlockFormat format = block.blockFormat();
    if (format.hasProperty(QTextFormat::BlockTrailingHorizontalRulerWidth) ||
        format.hasProperty(QTextFormat::BackgroundBrush))
        return false;
    const auto *table = qobject_cast<const QTextTable *>(block.document()->frameAt(block.position() + 1));
    return table && table->firstPosition() == block.position() + 1;
}

// The empty block Qt's Markdown reader puts after a table: the layout hides it on the table's bottom border.
bool isHiddenAfterTable(const QTextBlock &block)
{
    if (!block.isValid() || block.length() != 1 || block.position() == 0)
        return false;
    const auto *table = qobject_cast<const QTextTable *>(block.document()->frameAt(block.position() - 1));
    return table && table->lastPosition() == block.position() - 1;
}

const QTextTable *tableOf(const QTextBlock &block)
{
    return qobject_cast<const QTextTable *>(block.document()->frameAt(block.position()));
}

// What a list item shows before its text, as text: "- " for a bullet, its number ("3. ") in a numbered list,
// a task's box after either; indented by the markers of the items it is nested in. Empty outside a list.
// indents keeps the indent found for each item (by block number), so the items of a long list are not
// walked back over again for each one.
QString listMarker(const QTextBlock &block, QHash<int, qsizetype> &indents)
{
    const QTextList *list = block.textList();
    if (!list)
        return {};
    QString marker;
    switch (list->format().style()) {
    case QTextListFormat::ListDisc:
    case QTextListFormat::ListCircle:
    case QTextListFormat::ListSquare:
    case QTextListFormat::ListStyleUndefined:
        marker = QStringLiteral("-");
        break;
    default:
        marker = ListNumbering::itemText(block); // the number as drawn, "3."
        break;
    }
    if (block.blockFormat().marker() == QTextBlockFormat::MarkerType::Checked)
        marker += QStringLiteral(" [x]");
    else if (block.blockFormat().marker() == QTextBlockFormat::MarkerType::Unchecked)
        marker += QStringLiteral(" [ ]");
    marker += QLatin1Char(' ');
    // A nested item sits under the text of the item it belongs to, the nearest item above of a lower level
    // (an item of the same level in between has the same indent); with none, two spaces a level.
    const int level = list->format().indent();
    qsizetype indent = 2 * std::max(0, level - 1);
    for (QTextBlock above = block.previous(); level > 1 && above.isValid(); above = above.previous()) {
        const QTextList *outer = above.textList();
        if (!outer)
            continue;
        if (const int aboveLevel = outer->format().indent(); aboveLevel < level) {
            indent = listMarker(above, indents).size();
            break;
        } else if (aboveLevel == level && indents.contains(above.blockNumber())) {
            indent = indents.value(above.blockNumber());
            break;
        }
    }
    indents.insert(block.blockNumber(), indent);
    return QString(indent, QLatin1Char(' ')) + marker;
}

// The text of every cell of table in the given rows and columns, a line per row, the cells separated by a
// tab: what spreadsheets and browsers paste as a table.
QString cellsText(const QTextTable &table, int firstRow, int rows, int firstColumn, int columns)
{
    QStringList lines;
    for (int row = firstRow; row < firstRow + rows; ++row) {
        QStringList cells;
        for (int column = firstColumn; column < firstColumn + columns; ++column) {
            const QTextTableCell cell = table.cellAt(row, column);
            if (!cell.isValid() || cell.row() != row || cell.column() != column) {
                cells.append(QString()); // covered by a spanning cell: keeps the columns in line
                continue;
            }
            QString text =
                cursorOver(table.document(), cell.firstPosition(), cell.lastPosition()).selectedText();
            text.replace(QChar::ParagraphSeparator, QLatin1Char(' '));
            text.replace(QChar::LineSeparator, QLatin1Char(' '));
            cells.append(text);
        }
        lines.append(cells.join(QLatin1Char('\t')));
    }
    return lines.join(QLatin1Char('\n'));
}

// The text of document between from and to (from < to) as it reads: the selection Qt draws (a range that
// reaches into a table from outside takes in the whole table, one within a table whole cells), a line per
// paragraph, a table a line per row with its cells separated by a tab, a list item with its bullet or number
// when the range takes in its start and reaches past its paragraph (beyond: past the document, into the
// layers above or below).
QString plainText(const QTextDocument *document, int from, int to, bool beyond)
{
    const QTextCursor cursor = cursorOver(document, from, to);
    int firstRow = -1, rows = 0, firstColumn = -1, columns = 0;
    cursor.selectedTableCells(&firstRow, &rows, &firstColumn, &columns);
    if (firstRow >= 0 && cursor.currentTable())
        return cellsText(*cursor.currentTable(), firstRow, rows, firstColumn, columns);

    int start = cursor.selectionStart();
    const int end = cursor.selectionEnd();
    // Begun inside a table and ending past it: the cursor took in the line end before the table too.
    if (start < from && qobject_cast<const QTextTable *>(document->frameAt(start + 1)))
        ++start;
    const QTextBlock first = document->findBlock(start);
    // Within one paragraph, just the characters (a word, a find match); across paragraphs, their structure.
    const bool acrossBlocks = beyond || first != document->findBlock(end);
    QString text;
    QHash<int, qsizetype> indents;
    bool any = false;
    const QTextTable *previousTable = nullptr;
    int previousRow = -1;
    int previousColumn = -1;
    for (QTextBlock block = first; block.isValid() && block.position() <= end; block = block.next()) {
        if (isHiddenBeforeTable(block) || isHiddenAfterTable(block))
            continue;
        const int blockStart = block.position();
        const int textEnd = blockStart + block.length() - 1;
        const QTextTable *table = tableOf(block);
        const QTextTableCell cell = table ? table->cellAt(blockStart) : QTextTableCell();
        const int row = cell.isValid() ? cell.row() : -1; // an invalid cell has no row to ask for
        const int column = cell.isValid() ? cell.column() : -1;
        if (any) {
            if (table && table == previousTable && row == previousRow)
                text += column == previousColumn ? QLatin1Char(' ') : QLatin1Char('\t');
            else
                text += QLatin1Char('\n');
        }
        if (acrossBlocks && start <= blockStart)
            text += listMarker(block, indents);
        const int a = std::max(start, blockStart);
        const int b = std::min(end, textEnd);
        if (a < b) {
            QString part = block.text().mid(a - blockStart, b - a);
            part.replace(QChar::LineSeparator, table ? QLatin1Char(' ') : QLatin1Char('\n'));
            text += part;
        }
        any = true;
        previousTable = table;
        previousRow = row;
        previousColumn = column;
    }
    return text;
}

} // namespace

StackedText::StackedText(QList<Layer> layers)
    : m_layers(std::move(layers))
{
    m_layers.removeIf([](const Layer &layer) { return layer.document == nullptr; });
    int next = 0;
    for (const Layer &layer : std::as_const(m_layers)) {
        m_bases.append(next);
        m_end = next + lastPosition(layer.document);
        next = m_end + 1;
    }
}

int StackedText::end() const
{
    return m_end;
}

int StackedText::layerOf(int position) const
{
    const auto after = std::upper_bound(m_bases.cbegin(), m_bases.cend(), position);
    return std::max(0, int(after - m_bases.cbegin()) - 1);
}

int StackedText::positionAt(const QPointF &point) const
{
    for (int i = 0; i < m_layers.size(); ++i) {
        const Layer &layer = m_layers.at(i);
        if (point.y() < layer.top) // in the gap above a layer: its start
            return base(i);
        const qreal bottom = layer.top + layer.document->size().height();
        if (point.y() < bottom) {
            const int at =
                layer.document->documentLayout()->hitTest(point - QPointF(0, layer.top), Qt::FuzzyHit);
            return base(i) + std::clamp(at, 0, lastPosition(layer.document));
        }
    }
    return m_end;
}

QString StackedText::linkAt(const QPointF &point) const
{
    for (const Layer &layer : m_layers) {
        if (point.y() < layer.top)
            return {};
        if (point.y() < layer.top + layer.document->size().height())
            return layer.document->documentLayout()->anchorAt(point - QPointF(0, layer.top));
    }
    return {};
}

QString StackedText::text(int from, int to) const
{
    if (from > to)
        std::swap(from, to);
    QStringList parts;
    for (int i = 0; i < m_layers.size(); ++i) {
        const QTextDocument *document = m_layers.at(i).document;
        const int first = std::clamp(from - base(i), 0, lastPosition(document));
        const int last = std::clamp(to - base(i), 0, lastPosition(document));
        if (first >= last)
            continue;
        // Not selectedText(): it runs a table's cells together with U+FDD0 between them and drops list
        // markers; not selection().toPlainText(): it puts every cell on a line of its own, and starts a list
        // item or a block after a table with a line break that is not part of what was selected.
        // A list of one item alone in its layer ("2. Configure" after a code block) keeps its number too.
        const bool beyond = from < base(i) + first || to > base(i) + last;
        QString part = plainText(document, first, last, beyond);
        part.replace(QChar::Nbsp, QLatin1Char(' '));
        parts.append(part);
    }
    return parts.join(QLatin1Char('\n'));
}

std::pair<int, int> StackedText::blockAround(int position) const
{
    if (m_layers.isEmpty())
        return {0, 0};
    const int i = layerOf(position);
    const QTextDocument *document = m_layers.at(i).document;
    const QTextBlock block = document->findBlock(std::clamp(position - base(i), 0, lastPosition(document)));
    return {base(i) + block.position(), base(i) + block.position() + std::max(0, block.length() - 1)};
}

std::optional<std::pair<int, int>> StackedText::find(const QString &needle, int occurrence) const
{
    if (needle.isEmpty() || occurrence < 0)
        return std::nullopt;
    for (int i = 0; i < m_layers.size(); ++i) {
        const QTextDocument *document = m_layers.at(i).document;
        QTextCursor found(const_cast<QTextDocument *>(document));
        while (!(found = document->find(needle, found)).isNull()) {
            if (occurrence-- == 0)
                return std::pair(base(i) + found.selectionStart(), base(i) + found.selectionEnd());
        }
    }
    return std::nullopt;
}

QRectF StackedText::lineRect(int position) const
{
    if (m_layers.isEmpty())
        return {};
    const int i = layerOf(position);
    const Layer &layer = m_layers.at(i);
    const int local = std::clamp(position - base(i), 0, lastPosition(layer.document));
    const QTextBlock block = layer.document->findBlock(local);
    QRectF box = layer.document->documentLayout()->blockBoundingRect(block).translated(0, layer.top);
    if (const QTextLayout *lines = block.layout()) {
        const QTextLine line = lines->lineForTextPosition(local - block.position());
        if (line.isValid())
            box = QRectF(box.left(), box.top() + line.y(), box.width(), line.height());
    }
    return box;
}

std::pair<int, int> StackedText::wordAround(int position) const
{
    if (m_layers.isEmpty())
        return {0, 0};
    const int i = layerOf(position);
    const QTextDocument *document = m_layers.at(i).document;
    QTextCursor cursor = cursorOver(document, std::clamp(position - base(i), 0, lastPosition(document)),
                                    std::clamp(position - base(i), 0, lastPosition(document)));
    cursor.select(QTextCursor::WordUnderCursor);
    if (!cursor.hasSelection())
        return {position, position};
    return {base(i) + cursor.selectionStart(), base(i) + cursor.selectionEnd()};
}

bool StackedText::reachesIntoFromAbove(int layer, int from, int to) const
{
    if (layer <= 0 || layer >= m_layers.size())
        return false;
    return std::min(from, to) < base(layer) && std::max(from, to) > base(layer);
}

QList<QAbstractTextDocumentLayout::Selection> StackedText::selectionsIn(int layer, int from, int to,
                                                                        const QPalette &palette) const
{
    if (layer < 0 || layer >= m_layers.size())
        return {};
    if (from > to)
        std::swap(from, to);
    const QTextDocument *document = m_layers.at(layer).document;
    const int first = std::clamp(from - base(layer), 0, lastPosition(document));
    const int last = std::clamp(to - base(layer), 0, lastPosition(document));
    if (first >= last)
        return {};
    QAbstractTextDocumentLayout::Selection selection;
    selection.format.setBackground(palette.brush(QPalette::Active, QPalette::Highlight));
    selection.format.setForeground(palette.brush(QPalette::Active, QPalette::HighlightedText));
    const QTextCursor whole = cursorOver(document, first, last);
    int start = whole.selectionStart();
    const int end = whole.selectionEnd();
    QList<QAbstractTextDocumentLayout::Selection> selections;
    auto add = [&](int anchor, int position) {
        selection.cursor = cursorOver(document, anchor, position);
        selections.append(selection);
    };
    // A cursor that reaches into a table from outside takes in the whole table and the line end before it,
    // which Qt draws as a selected sliver: above the table when that line is the empty block hidden on its
    // top border (a document that starts with a table has one; Qt leaves out the hidden block after a table,
    // not this one), at the end of the paragraph before when the selection began inside the table. There the
    // table is selected on its own, cell to cell, and the line end is left out.
    const QList<QTextFrame *> frames = document->rootFrame()->childFrames();
    for (const QTextFrame *frame : frames) {
        const auto *table = qobject_cast<const QTextTable *>(frame);
        const int lineEnd = table ? table->firstPosition() - 1 : -1;
        if (!table || lineEnd < start || lineEnd >= end ||
            (first <= lineEnd && !isHiddenBeforeTable(document->findBlock(lineEnd))))
            continue;
        if (start < lineEnd)
            add(start, lineEnd);
        add(table->firstPosition(), table->cellAt(table->rows() - 1, table->columns() - 1).lastPosition());
        start = table->lastPosition() + 1;
    }
    if (start < end)
        add(start, end);
    return selections;
}

} // namespace keen
