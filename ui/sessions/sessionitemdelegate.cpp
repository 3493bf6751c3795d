#include "sessions/sessionitemdelegate.h"

#include "sessions/sessionlistmodel.h"

#include <QApplication>
#include <QPainter>
#include <QPoint>
#include <QTextLayout>

namespace keen {

namespace {

constexpr int kHorizontalMargin = 10;
constexpr int kVerticalMargin = 5;
constexpr int kLineSpacing = 2;
// Characters kept before the first match when the snippet is cut at the front.
constexpr int kLeadingContext = 16;

QFont titleFont(const QFont &base)
{
    QFont font = base;
    font.setWeight(QFont::DemiBold);
    return font;
}

QFont secondaryFont(const QFont &base)
{
    QFont font = base;
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * 0.92);
    return font;
}

QColor secondaryColor(const QStyleOptionViewItem &option, bool selected)
{
    if (selected)
        return option.palette.color(QPalette::HighlightedText);
    QColor color = option.palette.color(QPalette::Text);
    color.setAlphaF(0.62f);
    return color;
}

// One line of text with ranges emphasised, elided at the end to fit width.
void drawHighlightedLine(QPainter *painter, const QRect &rect, QString text, QList<QPoint> highlights,
                         const QFont &font, const QColor &color, const QColor &matchBackground, bool selected)
{
    const QFontMetrics metrics(font);
    // When the first match would be elided away, start the line a few words before it.
    if (!highlights.isEmpty()) {
        const QPoint first = highlights.first();
        if (first.x() > kLeadingContext &&
            metrics.horizontalAdvance(text.left(first.x() + first.y())) > rect.width()) {
            int cut = int(text.lastIndexOf(QLatin1Char(' '), first.x() - kLeadingContext)) + 1;
            if (cut <= 0 || cut > first.x())
                cut = first.x() - kLeadingContext;
            text = QChar(0x2026) + text.mid(cut);
            for (QPoint &range : highlights)
                range.setX(range.x() - cut + 1);
        }
    }
    const QString elided = metrics.elidedText(text, Qt::ElideRight, rect.width());
    const int visible = elided.size() < text.size() ? int(elided.size()) - 1 : int(elided.size());

    QList<QTextLayout::FormatRange> formats;
    for (const QPoint &range : std::as_const(highlights)) {
        const int start = range.x();
        const int length = qMin(range.y(), visible - start);
        if (start < 0 || length <= 0)
            continue;
        QTextLayout::FormatRange format;
        format.start = start;
        format.length = length;
        format.format.setFontWeight(QFont::Bold);
        if (!selected)
            format.format.setBackground(matchBackground);
        formats.append(format);
    }
    QTextLayout layout(elided, font);
    layout.setFormats(formats);
    QTextOption textOption;
    textOption.setWrapMode(QTextOption::NoWrap);
    layout.setTextOption(textOption);
    layout.beginLayout();
    QTextLine line = layout.createLine();
    if (line.isValid())
        line.setLineWidth(rect.width());
    layout.endLayout();
    painter->save();
    painter->setPen(color);
    painter->setClipRect(rect);
    layout.draw(painter, rect.topLeft());
    painter->restore();
}

} // namespace

SessionItemDelegate::SessionItemDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{}

void SessionItemDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                                const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();

    if (index.data(SessionListModel::IsGroupRole).toBool()) {
        painter->save();
        QFont font = secondaryFont(opt.font);
        font.setWeight(QFont::Bold);
        painter->setFont(font);
        painter->setPen(secondaryColor(opt, false));
        const QRect textRect =
            opt.rect.adjusted(kHorizontalMargin, kVerticalMargin + 2, -kHorizontalMargin, 0);
        painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, index.data(Qt::DisplayRole).toString());
        painter->restore();
        return;
    }

    // Background, selection and hover as the style draws them; the text is ours.
    opt.text.clear();
    opt.icon = QIcon();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const bool selected = opt.state & QStyle::State_Selected;
    const QRect content =
        opt.rect.adjusted(kHorizontalMargin, kVerticalMargin, -kHorizontalMargin, -kVerticalMargin);
    const QFont title = titleFont(opt.font);
    const QFont secondary = secondaryFont(opt.font);
    const QFontMetrics titleMetrics(title);
    const QFontMetrics secondaryMetrics(secondary);

    const QString time = index.data(SessionListModel::TimeTextRole).toString();
    const int timeWidth = secondaryMetrics.horizontalAdvance(time);
    const QRect titleRect(content.left(), content.top(), content.width() - timeWidth - 8,
                          titleMetrics.height());
    const QRect timeRect(content.right() - timeWidth, content.top(), timeWidth + 1, titleMetrics.height());

    painter->save();
    painter->setFont(title);
    painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(
        titleRect, Qt::AlignLeft | Qt::AlignVCenter,
        titleMetrics.elidedText(index.data(Qt::DisplayRole).toString(), Qt::ElideRight, titleRect.width()));
    painter->setFont(secondary);
    painter->setPen(secondaryColor(opt, selected));
    painter->drawText(timeRect, Qt::AlignRight | Qt::AlignVCenter, time);
    painter->restore();

    const QRect previewRect(content.left(), titleRect.bottom() + 1 + kLineSpacing, content.width(),
                            secondaryMetrics.height());
    QColor matchBackground = opt.palette.color(QPalette::Highlight);
    matchBackground.setAlphaF(0.22f);
    QString preview = index.data(SessionListModel::PreviewRole).toString();
    if (preview.isEmpty())
        preview = tr("No messages yet");
    drawHighlightedLine(painter, previewRect, preview,
                        index.data(SessionListModel::HighlightsRole).value<QList<QPoint>>(), secondary,
                        secondaryColor(opt, selected), matchBackground, selected);
}

QSize SessionItemDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const int width = option.rect.width() > 0 ? option.rect.width() : 240;
    const QFontMetrics secondaryMetrics(secondaryFont(option.font));
    if (index.data(SessionListModel::IsGroupRole).toBool())
        return QSize(width, secondaryMetrics.height() + 2 * kVerticalMargin + 4);
    const QFontMetrics titleMetrics(titleFont(option.font));
    return QSize(width,
                 titleMetrics.height() + kLineSpacing + secondaryMetrics.height() + 2 * kVerticalMargin + 2);
}

void SessionItemDelegate::updateEditorGeometry(QWidget *editor, const QStyleOptionViewItem &option,
                                               const QModelIndex &) const
{
    // The title line is what a rename edits.
    const QFontMetrics titleMetrics(titleFont(option.font));
    editor->setGeometry(QRect(option.rect.left() + kHorizontalMargin / 2, option.rect.top() + 1,
                              option.rect.width() - kHorizontalMargin,
                              titleMetrics.height() + 2 * kVerticalMargin));
}

} // namespace keen
