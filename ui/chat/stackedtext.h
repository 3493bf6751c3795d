#pragma once

#include <QAbstractTextDocumentLayout>
#include <QList>
#include <QPointF>
#include <QRectF>

#include <optional>
#include <utility>

class QPalette;
class QTextDocument;

namespace keen {

// Text laid out as documents stacked from top to bottom (the segments of a Markdown row, or a row's one
// document), addressed by one position: the cursor positions of a document follow those of the documents
// above it. Lets a person select part of a row with the mouse and copy just that.
class StackedText
{
public:
    struct Layer
    {
        const QTextDocument *document = nullptr;
        qreal top = 0; // where the document starts, in the row's coordinates
    };

    explicit StackedText(QList<Layer> layers);

    // The position nearest to point (row coordinates); above the first line is 0, below the last is end().
    int positionAt(const QPointF &point) const;
    // The target of the link at point (row coordinates), empty when point is not on a link's text.
    QString linkAt(const QPointF &point) const;
    int end() const;
    // The plain text between two positions (either order), as it reads: a line per paragraph, a table a line
    // per row with a tab between cells, list items with their bullet ("- ", nested ones indented) or number
    // ("2. ") when more than one paragraph is taken in; layers are joined by a line break. Positions stay
    // the documents' own: only the text made of them differs from QTextCursor::selectedText().
    QString text(int from, int to) const;
    // The paragraph (text block: a paragraph, a list item, a line of code) around position, as [first, last).
    std::pair<int, int> blockAround(int position) const;
    // Occurrence number occurrence (0: the first) of needle, ignoring case, as [first, last); none when
    // the text holds fewer.
    std::optional<std::pair<int, int>> find(const QString &needle, int occurrence) const;
    // The line of text position is on, in the row's coordinates.
    QRectF lineRect(int position) const;
    // The word (or the run of other characters) around position, as [first, last).
    std::pair<int, int> wordAround(int position) const;
    // The selection [from, to) in layer number layer's own positions, for its layout's draw(): one range, or
    // several where a table is selected on its own (nothing drawn above it); none when the range does not
    // reach that layer.
    QList<QAbstractTextDocumentLayout::Selection> selectionsIn(int layer, int from, int to,
                                                               const QPalette &palette) const;
    // Whether the selection [from, to) begins in a layer above layer and reaches into it.
    bool reachesIntoFromAbove(int layer, int from, int to) const;

private:
    int base(int layer) const { return m_bases.at(layer); }
    int layerOf(int position) const;

    QList<Layer> m_layers;
    QList<int> m_bases; // first position of each layer
    int m_end = 0;
};

} // namespace keen
