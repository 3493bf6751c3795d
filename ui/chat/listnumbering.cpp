#include "chat/listnumbering.h"

#include <QFontMetrics>
#include <QList>
#include <QPainter>
#include <QPair>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextList>

#include <algorithm>

namespace keen {

namespace {

#if QT_VERSION < QT_VERSION_CHECK(6, 6, 0)

// A list item's number carried through Qt's Markdown reader: " \uE000<digits>\uE001". Private-use characters
// mean nothing to the reader; the space before keeps a closing "__" or an autolink at the line's end as it
// was.
constexpr char16_t MarkOpen = 0xE000;
constexpr char16_t MarkClose = 0xE001;
// Where a list's start number is kept in its format (QTextFormat::ListStart is Qt 6.6's).
constexpr int StartProperty = QTextFormat::UserProperty + 0x4c; // 'L'

bool isAsciiDigit(QChar c)
{
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

bool isSpaceOrTab(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t');
}

// The number of the ordered list marker that starts line's content after quote marks and bullets (CommonMark:
// one to nine digits, then "." or ")", then a space and the item's text), -1 when there is none. An empty
// item, or one that starts with a code fence, a table or a rule, gets no mark: it would make the item's text,
// land in the fence's info string or a cell, or turn the rule into text (that list numbers from 1, as
// before).
int itemNumber(QStringView line)
{
    qsizetype at = 0;
    while (true) {
        while (at < line.size() && isSpaceOrTab(line.at(at)))
            ++at;
        if (at < line.size() && line.at(at) == QLatin1Char('>')) {
            ++at;
            continue;
        }
        if (at + 1 < line.size() && QStringLiteral("-*+").contains(line.at(at)) &&
            isSpaceOrTab(line.at(at + 1))) {
            ++at;
            continue;
        }
        break;
    }
    const qsizetype digitsFrom = at;
    while (at < line.size() && isAsciiDigit(line.at(at)))
        ++at;
    const qsizetype digits = at - digitsFrom;
    if (digits < 1 || digits > 9 || at + 1 >= line.size() ||
        (line.at(at) != QLatin1Char('.') && line.at(at) != QLatin1Char(')')) ||
        !isSpaceOrTab(line.at(at + 1)))
        return -1;
    const QStringView content = line.sliced(at + 1).trimmed();
    const bool rule = std::all_of(content.begin(), content.end(), [](QChar c) {
        return c == QLatin1Char('-') || c == QLatin1Char('*') || c == QLatin1Char('_') || isSpaceOrTab(c);
    });
    if (rule || content.startsWith(u"```") || content.startsWith(u"~~~") ||
        content.startsWith(QLatin1Char('|')))
        return -1;
    return line.sliced(digitsFrom, digits).toInt();
}

// markdown with the mark of each line that starts an ordered list item (or looks like one: the reader
// decides, the marks of other lines are just taken out again) after the line's text, before a hard break.
QString marked(const QString &markdown)
{
    if (markdown.contains(QChar(MarkOpen)))
        return markdown; // a mark of the text's own would be taken for one: Qt's numbering, as before
    QString result;
    qsizetype copied = 0; // markdown before this is in result
    for (qsizetype from = 0; from < markdown.size();) {
        qsizetype newline = markdown.indexOf(QLatin1Char('\n'), from);
        if (newline < 0)
            newline = markdown.size();
        const QStringView line = QStringView(markdown).sliced(from, newline - from);
        if (const int number = itemNumber(line); number >= 0) {
            qsizetype end = line.size();
            while (end > 0 && line.at(end - 1).isSpace())
                --end;
            qsizetype backslashes = 0;
            while (backslashes < end && line.at(end - 1 - backslashes) == QLatin1Char('\\'))
                ++backslashes;
            if (backslashes % 2 == 1)
                --end; // a hard line break "\" stays last
            result += QStringView(markdown).sliced(copied, from + end - copied);
            result += QLatin1Char(' ') + QChar(MarkOpen) + QString::number(number) + QChar(MarkClose);
            copied = from + end;
        }
        from = newline + 1;
    }
    if (copied == 0)
        return markdown; // no list items: the text as it is, not a copy
    result += QStringView(markdown).sliced(copied);
    return result;
}

// Takes the marks out of document, giving each ordered list the number its first item's mark holds.
void takeMarks(QTextDocument &document)
{
    QList<QPair<QTextList *, int>> starts;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        const QString text = block.text();
        qsizetype open = text.indexOf(QChar(MarkOpen));
        if (open < 0)
            continue;
        QTextList *list = block.textList();
        bool first = true;
        QList<QPair<qsizetype, qsizetype>> marks; // [from, to) in the block
        for (; open >= 0; open = text.indexOf(QChar(MarkOpen), open + 1)) {
            const qsizetype close = text.indexOf(QChar(MarkClose), open + 1);
            if (close < 0)
                break;
            bool ok = false;
            const int number = QStringView(text).sliced(open + 1, close - open - 1).toInt(&ok);
            if (!ok)
                continue;
            // The first mark of a list's first item is its own line's: the list starts there.
            if (first && list && list->format().style() == QTextListFormat::ListDecimal &&
                list->itemNumber(block) == 0 && number != 1)
                starts.append({list, number});
            first = false;
            const qsizetype from = open > 0 && text.at(open - 1) == QLatin1Char(' ') ? open - 1 : open;
            marks.append({from, close + 1});
        }
        for (auto mark = marks.crbegin(); mark != marks.crend(); ++mark) {
            QTextCursor cursor(block);
            cursor.setPosition(block.position() + int(mark->first));
            cursor.setPosition(block.position() + int(mark->second), QTextCursor::KeepAnchor);
            cursor.removeSelectedText();
        }
    }
    for (const auto &[list, start] : std::as_const(starts))
        ListNumbering::setStart(*list, start);
}

#endif

// Draws block's marker (its number, or its bullet) as QTextDocumentLayout draws a list item's (Qt 6.4,
// drawListItem()), so it looks the same as the ones Qt draws; selected when a selection in context begins
// before the block and reaches into it, as Qt decides, or when forced is given.
void drawMarker(QPainter *painter, const QTextDocument &document, const QTextBlock &block,
                const QAbstractTextDocumentLayout::PaintContext &context,
                const QTextCharFormat *forced = nullptr)
{
    QTextLayout *layout = block.layout();
    const QTextList *list = block.textList();
    if (!layout || layout->lineCount() == 0 || !list)
        return;
    const QTextCharFormat charFormat = QTextCursor(block).charFormat();
    QFont font(charFormat.font());
    QPaintDevice *device = document.documentLayout()->paintDevice();
    if (device)
        font = QFont(font, device);
    const QFontMetrics metrics(font);
    const int style = list->format().style();
    const bool bullet = style == QTextListFormat::ListDisc || style == QTextListFormat::ListCircle ||
                        style == QTextListFormat::ListSquare;
    const QString text = bullet ? QString() : ListNumbering::itemText(block);
    const Qt::LayoutDirection direction = block.textDirection();
    QPointF position = layout->position().toPoint();
    const QTextLine firstLine = layout->lineAt(0);
    const QRectF textRect = firstLine.naturalTextRect();
    position += textRect.topLeft().toPoint();
    if (direction == Qt::RightToLeft)
        position.rx() += textRect.width();
    const qreal side = metrics.lineSpacing() / 3;
    QRectF box(position,
               bullet ? QSizeF(side, side) : QSizeF(metrics.horizontalAdvance(text), metrics.height()));
    qreal offset = metrics.horizontalAdvance(QLatin1Char(' '));
    if (direction == Qt::LeftToRight)
        offset = -offset - box.width();
    box.translate(offset, bullet ? metrics.height() / 2 - side / 2 : 0);

    const QTextCharFormat *selected = forced;
    for (const QAbstractTextDocumentLayout::Selection &selection : context.selections) {
        if (selection.cursor.selectionStart() < block.position() &&
            selection.cursor.selectionEnd() >= block.position() + 1)
            selected = &selection.format;
    }
    const QTextBlockFormat::MarkerType marker = block.blockFormat().marker();
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    if (selected) {
        painter->setPen(QPen(selected->foreground(), 0));
        painter->fillRect(box, selected->background());
    } else {
        QBrush foreground = charFormat.foreground();
        if (foreground == Qt::NoBrush)
            foreground = context.palette.text();
        painter->setPen(QPen(foreground, 0));
    }
    if (marker != QTextBlockFormat::MarkerType::NoMarker) { // a task's box, as Qt draws it
        const int adjust = metrics.lineSpacing() / 6;
        box.adjust(-adjust, 0, -adjust, 0);
        if (marker == QTextBlockFormat::MarkerType::Checked) {
            painter->setPen(QPen(painter->pen().color(), 2));
            painter->drawLine(box.topLeft(), box.bottomRight());
            painter->drawLine(box.topRight(), box.bottomLeft());
            painter->setPen(QPen(painter->pen().color(), 0));
        }
        painter->drawRect(box.adjusted(-adjust, -adjust, adjust, adjust));
    } else if (style == QTextListFormat::ListSquare) { // a bullet in the text colour, selected or not
        painter->fillRect(box, context.palette.text());
    } else if (style == QTextListFormat::ListCircle) {
        painter->setPen(QPen(context.palette.text(), 0));
        painter->drawEllipse(box);
    } else if (style == QTextListFormat::ListDisc) {
        painter->setBrush(context.palette.text());
        painter->setPen(Qt::NoPen);
        painter->drawEllipse(box);
    }
    if (!bullet) {
        QTextLayout number(text, font, device);
        number.setCacheEnabled(true);
        QTextOption option(Qt::AlignLeft | Qt::AlignAbsolute);
        option.setTextDirection(direction);
        number.setTextOption(option);
        number.beginLayout();
        QTextLine line = number.createLine();
        if (line.isValid())
            line.setLeadingIncluded(true);
        number.endLayout();
        number.draw(painter, QPointF(box.left(), position.y()));
    }
    painter->restore();
}

} // namespace

void ListNumbering::setMarkdown(QTextDocument &document, const QString &markdown)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 6, 0)
    // The reader sets each ordered list's start (QTextListFormat::setStart()); Qt numbers and draws from it.
    document.setMarkdown(markdown, Dialect);
#else
    const QString withMarks = marked(markdown);
    document.setMarkdown(withMarks, Dialect);
    if (withMarks.size() != markdown.size())
        takeMarks(document);
#endif
}

void ListNumbering::setStart(QTextList &list, int start)
{
    QTextListFormat format = list.format();
#if QT_VERSION >= QT_VERSION_CHECK(6, 6, 0)
    format.setStart(start);
    list.setFormat(format);
#else
    if (start == 1)
        format.clearProperty(StartProperty);
    else
        format.setProperty(StartProperty, start);
    list.setFormat(format);
    // Qt draws no number for items of a list not from 1 (a block's own list style wins), drawNumbers() does.
    for (int i = 0; i < list.count(); ++i) {
        QTextCursor item(list.item(i));
        QTextBlockFormat blockFormat = item.blockFormat();
        if (start == 1)
            blockFormat.clearProperty(QTextFormat::ListStyle);
        else
            blockFormat.setProperty(QTextFormat::ListStyle, int(QTextListFormat::ListStyleUndefined));
        item.setBlockFormat(blockFormat);
    }
#endif
}

int ListNumbering::numberAfter(const QTextList &list)
{
    const QTextListFormat format = list.format();
#if QT_VERSION >= QT_VERSION_CHECK(6, 6, 0)
    return format.start() + list.count();
#else
    return (format.hasProperty(StartProperty) ? format.intProperty(StartProperty) : 1) + list.count();
#endif
}

QString ListNumbering::itemText(const QTextBlock &block)
{
    const QTextList *list = block.textList();
    if (!list)
        return {};
#if QT_VERSION < QT_VERSION_CHECK(6, 6, 0)
    const QTextListFormat format = list->format();
    if (format.hasProperty(StartProperty) && format.style() == QTextListFormat::ListDecimal) {
        // As QTextList::itemText() words it: the prefix, the number, the suffix ("." unless set).
        const QString number =
            QString::number(qint64(format.intProperty(StartProperty)) + list->itemNumber(block));
        const QString prefix = format.numberPrefix();
        const QString suffix =
            format.hasProperty(QTextFormat::ListNumberSuffix) ? format.numberSuffix() : QStringLiteral(".");
        return block.textDirection() == Qt::RightToLeft ? suffix + number + prefix : prefix + number + suffix;
    }
#endif
    return list->itemText(block);
}

void ListNumbering::drawSelectedMarker(QPainter *painter, const QTextDocument &document,
                                       const QTextBlock &block,
                                       const QAbstractTextDocumentLayout::PaintContext &context,
                                       const QTextCharFormat &selection)
{
    drawMarker(painter, document, block, context, &selection);
}

void ListNumbering::drawNumbers(QPainter *painter, const QTextDocument &document,
                                const QAbstractTextDocumentLayout::PaintContext &context)
{
#if QT_VERSION < QT_VERSION_CHECK(6, 6, 0)
    QAbstractTextDocumentLayout *layout = document.documentLayout();
    QTextBlock block = document.begin();
    if (!context.clip.isNull()) {
        // From the block at the top of the clip (one before it: hitTest may round down into the next).
        block = document.findBlock(std::max(0, layout->hitTest(context.clip.topLeft(), Qt::FuzzyHit)));
        if (block.previous().isValid())
            block = block.previous();
    }
    for (; block.isValid(); block = block.next()) {
        const QRectF box = layout->blockBoundingRect(block);
        const bool inFlow = document.frameAt(block.position()) == document.rootFrame(); // not in a table
        if (!context.clip.isNull() && inFlow && box.top() > context.clip.bottom())
            break;
        const QTextList *list = block.textList();
        if (!list || !list->format().hasProperty(StartProperty) || !block.isVisible() ||
            (!context.clip.isNull() && box.bottom() < context.clip.top()))
            continue;
        drawMarker(painter, document, block, context);
    }
#else
    Q_UNUSED(painter);
    Q_UNUSED(document);
    Q_UNUSED(context);
#endif
}

} // namespace keen
