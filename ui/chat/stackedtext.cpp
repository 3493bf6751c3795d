#include "chat/stackedtext.h"

#include <QPalette>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>

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
        // selectedText(), not selection().toPlainText(): the fragment of a list item or a block after a table
        // starts with a line break that is not part of what was selected.
        QString part = cursorOver(document, first, last).selectedText();
        part.replace(QChar::ParagraphSeparator, QLatin1Char('\n'));
        part.replace(QChar::LineSeparator, QLatin1Char('\n'));
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
    selection.cursor = cursorOver(document, first, last);
    selection.format.setBackground(palette.brush(QPalette::Active, QPalette::Highlight));
    selection.format.setForeground(palette.brush(QPalette::Active, QPalette::HighlightedText));
    return {selection};
}

} // namespace keen
