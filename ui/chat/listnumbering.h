#pragma once

#include <QAbstractTextDocumentLayout>
#include <QString>
#include <QTextDocument>

class QPainter;
class QTextBlock;
class QTextCharFormat;
class QTextList;

namespace keen {

// Ordered lists numbered as their Markdown numbers them: "2. Configure" after an unindented code block starts
// a new list (CommonMark) that reads 2., not 1. Qt 6.6's Markdown reader keeps a list's start number
// (QTextListFormat::start()); Qt 6.4's (Debian 12) drops it and numbers every list from 1. There the number
// of each list item's line is carried through the reader as a mark at the end of its first line, taken out
// again after reading; a list that does not start at 1 keeps its start in its format, Qt draws no numbers
// for its items, and drawNumbers() draws the right ones where Qt would.
class ListNumbering
{
public:
    // The Markdown of the chat: GitHub's, without raw HTML. A coding reply says "Vec<String>", "a <div>
    // element" in plain prose; read as HTML those words vanished (found when tried), and an <img> in it
    // named a file to read. Tags show as typed, as in other chat apps.
    static constexpr QTextDocument::MarkdownFeatures Dialect =
        QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub | QTextDocument::MarkdownNoHTML);

    // QTextDocument::setMarkdown(markdown, Dialect), each ordered list starting at its own number.
    static void setMarkdown(QTextDocument &document, const QString &markdown);
    // Numbers the ordered list list from start on, as if its Markdown's first item had that number: a piece
    // of a long list parsed apart from the items before it goes on with their numbers.
    static void setStart(QTextList &list, int start);
    // The number an item added at the end of the ordered list list would show.
    static int numberAfter(const QTextList &list);
    // What the ordered list item block starts shows before its text ("3."), as drawn; otherwise Qt's item
    // text (empty for a bullet).
    static QString itemText(const QTextBlock &block);
    // Draws the numbers Qt 6.4 cannot (lists not starting at 1) of the blocks of document in context.clip,
    // as Qt draws an item's number: after QAbstractTextDocumentLayout::draw(painter, context).
    static void drawNumbers(QPainter *painter, const QTextDocument &document,
                            const QAbstractTextDocumentLayout::PaintContext &context);
    // Draws the marker (number or bullet) of the list item block selected, over the one drawn: Qt selects an
    // item's marker only when the selection begins before the item, which it cannot for the first block of
    // a document (a piece of a long list, whose selection begins in the piece above).
    static void drawSelectedMarker(QPainter *painter, const QTextDocument &document, const QTextBlock &block,
                                   const QAbstractTextDocumentLayout::PaintContext &context,
                                   const QTextCharFormat &selection);
};

} // namespace keen
