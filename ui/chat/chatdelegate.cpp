#include "chat/chatdelegate.h"

#include "chat/chatcolors.h"
#include "chat/chatmodel.h"
#include "chat/inerttextdocument.h"
#include "chat/listnumbering.h"
#include "chat/longmessage.h"
#include "chat/questioncard.h"
#include "chat/tooldisplay.h"

#include <QAbstractScrollArea>
#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QTextDocument>

#include <limits>

namespace keen {

namespace {
constexpr int kPaddingX = 12;
constexpr int kPaddingY = 8;
constexpr int kMaxOutputLines = 15;

bool isCard(ChatItem::Kind kind)
{
    return kind == ChatItem::Kind::User || kind == ChatItem::Kind::Tool ||
           kind == ChatItem::Kind::Permission || kind == ChatItem::Kind::Question;
}

bool hasActionStrip(const ChatItem &item)
{
    return (item.kind == ChatItem::Kind::Permission || item.kind == ChatItem::Kind::Question) &&
           !item.settled;
}

int questionCount(const ChatItem &item)
{
    return int(item.questions.size());
}

// The room of a waiting card's widgets under its text. A question's form lines have their own spacing
// and the form's buttons their own margin, so the form takes the text's bottom padding and some of the
// strip's (a line's gap was left between the heading and the form).
int actionStripHeight(const ChatItem &item)
{
    if (item.kind == ChatItem::Kind::Question)
        return ChatDelegate::ActionStripHeight + QuestionCard::QuestionRowHeight * questionCount(item) -
               2 * kPaddingY;
    return ChatDelegate::ActionStripHeight;
}

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}
} // namespace

ChatDelegate::ChatDelegate(ChatModel *model, QWidget *view)
    : QStyledItemDelegate(view)
    , m_model(model)
    , m_view(view)
{
    // Drop only what is gone; a changed row is rebuilt lazily because its revision moved on.
    connect(model, &QAbstractItemModel::modelReset, this, &ChatDelegate::clearCache);
    connect(model, &QAbstractItemModel::rowsAboutToBeRemoved, this,
            [this](const QModelIndex &, int first, int last) {
                for (int row = first; row <= last; ++row) {
                    m_documents.remove(m_model->item(row).id);
                    m_sizes.remove(m_model->item(row).id);
                    m_behind.remove(m_model->item(row).id);
                }
            });
    m_catchUp.setSingleShot(true);
    m_catchUp.setInterval(0);
    connect(&m_catchUp, &QTimer::timeout, this, &ChatDelegate::catchUp);
}

void ChatDelegate::catchUp()
{
    // The next turn of the event loop: the rows still behind get their next step when the view lays them
    // out again.
    m_stepTaken = false;
    const QSet<quint64> resized = std::exchange(m_resized, {});
    for (const quint64 id : resized) {
        if (const int row = m_model->rowOf(id); row >= 0 && !m_behind.contains(id))
            Q_EMIT sizeHintChanged(m_model->index(row));
    }
    const QSet<quint64> behind = m_behind;
    for (const quint64 id : behind) {
        const int row = m_model->rowOf(id);
        if (row < 0 || !m_documents.find(id)) { // gone, or its rendering was dropped from the cache
            m_behind.remove(id);
            continue;
        }
        Q_EMIT sizeHintChanged(m_model->index(row));
    }
}

const IncrementalMarkdown *ChatDelegate::renderedMarkdown(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    const Entry *entry = m_documents.find(m_model->item(index.row()).id);
    return entry ? entry->markdown.get() : nullptr;
}

ChatDelegate::~ChatDelegate() = default;

void ChatDelegate::clearCache()
{
    m_documents.clear();
    m_sizes.clear();
    m_behind.clear();
}

bool ChatDelegate::isDark() const
{
    return ChatColors::isDark(m_view->palette());
}

qreal ChatDelegate::Entry::height() const
{
    if (markdown)
        return markdown->size().height();
    return document ? document->size().height() : 0;
}

int ChatDelegate::contentWidth() const
{
    return qMax(120, m_view->width() - 2 * CardMargin - 2 * kPaddingX);
}

ChatDelegate::Entry &ChatDelegate::entryFor(const QModelIndex &index, int width, Render render) const
{
    const ChatItem &item = m_model->item(index.row());
    Entry &entry = m_documents.get(item.id);
    const bool markdown = item.kind == ChatItem::Kind::AssistantText || item.kind == ChatItem::Kind::Info;
    if ((!entry.document && !entry.markdown) || entry.revision != item.revision) {
        if (markdown) {
            // A grown reply extends the text shown before: only its open tail is parsed again.
            entry.document.reset();
            if (!entry.markdown)
                entry.markdown = std::make_unique<IncrementalMarkdown>(m_view->font(), m_view->palette());
            const QString &shown = entry.markdown->text();
            // A row of streamed text is rendered in steps from its first text on, also when its turn ended
            // before it was shown; a replayed one (the history of an opened session) whole, when it first
            // comes into view.
            // A row behind waits for the next turn once this turn's step is taken, even for its last few
            // characters: the view measures a row more than once in one layout, and a height that grows
            // between those calls is left out of its scroll range (found when tried: the end of a long
            // table below the end of the range).
            const qsizetype remaining = item.text.size() - shown.size();
            const bool bigStep = render == Render::Bounded && (!shown.isEmpty() || item.streamed) &&
                                 (remaining > RenderStepChars ||
                                  (remaining > 0 && m_stepTaken && m_behind.contains(item.id))) &&
                                 QStringView(item.text).startsWith(shown);
            if (bigStep) {
                // Rendered a step further per turn (issue 11: the paint after a burst or the end of a turn
                // would parse all of it at once); the row stays behind until it has all its text.
                m_behind.insert(item.id);
                if (!m_stepTaken) {
                    qsizetype cut = qMin(shown.size() + RenderStepChars, item.text.size());
                    if (cut < item.text.size() && item.text.at(cut - 1).isHighSurrogate())
                        ++cut; // never between the halves of a surrogate pair
                    entry.markdown->setText(item.text.left(cut));
                    m_stepTaken = true;
                    ++m_builds;
                }
                if (!m_catchUp.isActive())
                    m_catchUp.start();
                if (entry.width != width) {
                    entry.markdown->setTextWidth(width);
                    entry.width = width;
                }
                return entry; // its revision stays behind the item's, so the next layout goes on
            }
            entry.markdown->setText(item.text);
            if (m_behind.remove(item.id) && !m_viewLayingOut) {
                // Caught up outside a layout (a hover, a click): the view is told its height next turn.
                m_resized.insert(item.id);
                if (!m_catchUp.isActive())
                    m_catchUp.start();
            }
        } else {
            entry.markdown.reset();
            if (!entry.document)
                entry.document = std::make_unique<InertTextDocument>();
            entry.document->clear();
            entry.document->setDocumentMargin(0);
            entry.document->setDefaultFont(m_view->font());
            // A command's output, a long path or a diff line wraps, anywhere if it must: the chat cannot
            // scroll sideways.
            QTextOption wrapping = entry.document->defaultTextOption();
            wrapping.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
            entry.document->setDefaultTextOption(wrapping);
            buildDocument(*entry.document, item);
            entry.width = -1;
        }
        entry.revision = item.revision;
        ++m_builds;
    }
    if (entry.width != width) {
        if (entry.markdown)
            entry.markdown->setTextWidth(width);
        else
            entry.document->setTextWidth(width);
        entry.width = width;
    }
    return entry;
}

QString ChatDelegate::shownText(const QModelIndex &index) const
{
    if (!index.isValid())
        return {};
    const Entry &entry = entryFor(index, contentWidth(), Render::Whole);
    return entry.markdown ? entry.markdown->toPlainText() : entry.document->toPlainText();
}

IncrementalMarkdown::Counters ChatDelegate::markdownCounters(const QModelIndex &index) const
{
    if (!index.isValid())
        return {};
    const Entry &entry = entryFor(index, contentWidth(), Render::Whole);
    return entry.markdown ? entry.markdown->counters() : IncrementalMarkdown::Counters();
}

QString ChatDelegate::codeBlockAt(const QModelIndex &index, const QRect &rowRect,
                                  const QPoint &viewportPos) const
{
    if (!index.isValid())
        return {};
    const Entry &entry = entryFor(index, contentWidth(), Render::Whole);
    if (!entry.markdown)
        return {};
    return entry.markdown->codeBlockAt(QPointF(viewportPos - documentRect(rowRect, index).topLeft()));
}

std::pair<int, int> ChatDelegate::TextSelection::rangeIn(int row) const
{
    if (isEmpty() || row < firstRow || row > lastRow)
        return {0, 0};
    return {row == firstRow ? firstPosition : 0,
            row == lastRow ? lastPosition : std::numeric_limits<int>::max()};
}

StackedText ChatDelegate::stackOf(const Entry &entry)
{
    if (entry.markdown)
        return StackedText(entry.markdown->layers());
    return StackedText({{entry.document.get(), 0}});
}

int ChatDelegate::textPositionAt(const QModelIndex &index, const QRect &rowRect, const QPoint &viewportPos,
                                 int width) const
{
    if (!index.isValid())
        return 0;
    const Entry &entry = entryFor(index, width > 0 ? width : contentWidth());
    return stackOf(entry).positionAt(QPointF(viewportPos - documentRect(rowRect, index).topLeft()));
}

QString ChatDelegate::linkAt(const QModelIndex &index, const QRect &rowRect, const QPoint &viewportPos) const
{
    if (!index.isValid())
        return {};
    const Entry &entry = entryFor(index, contentWidth());
    return stackOf(entry).linkAt(QPointF(viewportPos - documentRect(rowRect, index).topLeft()));
}

QString ChatDelegate::textBetween(const QModelIndex &index, int from, int to) const
{
    if (!index.isValid())
        return {};
    return stackOf(entryFor(index, contentWidth(), Render::Whole)).text(from, to);
}

std::pair<int, int> ChatDelegate::wordAround(const QModelIndex &index, int position) const
{
    if (!index.isValid())
        return {position, position};
    return stackOf(entryFor(index, contentWidth())).wordAround(position);
}

std::pair<int, int> ChatDelegate::blockAround(const QModelIndex &index, int position) const
{
    if (!index.isValid())
        return {position, position};
    return stackOf(entryFor(index, contentWidth())).blockAround(position);
}

std::optional<std::pair<int, int>> ChatDelegate::findInRow(const QModelIndex &index, const QString &needle,
                                                           int occurrence) const
{
    if (!index.isValid())
        return std::nullopt;
    const int width = contentWidth();
    const Entry &entry = entryFor(index, width, Render::Whole);
    noteLaidOutHeight(index, entry, width);
    return stackOf(entry).find(needle, occurrence);
}

void ChatDelegate::noteLaidOutHeight(const QModelIndex &index, const Entry &entry, int width) const
{
    const ChatItem &item = m_model->item(index.row());
    const int height = rowHeight(item, entry.height());
    SizeEntry &known = m_sizes.get(item.id);
    if (known.width == width && known.revision == entry.revision && known.height == height && known.exact)
        return;
    const bool moved = known.height != height;
    known = SizeEntry{width, entry.revision, height, true};
    if (moved) // the estimate was off: the view lays the rows out again
        Q_EMIT const_cast<ChatDelegate *>(this)->sizeHintChanged(index);
}

QRect ChatDelegate::textLineRect(const QModelIndex &index, const QRect &rowRect, int position,
                                 int width) const
{
    if (!index.isValid())
        return {};
    const QRectF line = stackOf(entryFor(index, width > 0 ? width : contentWidth())).lineRect(position);
    return line.toAlignedRect().translated(documentRect(rowRect, index).topLeft());
}

QRect ChatDelegate::documentRect(const QRect &rowRect, const QModelIndex &index) const
{
    const ChatItem &item = m_model->item(index.row());
    const int padY = isCard(item.kind) ? kPaddingY : 3;
    QRect rect = rowRect.adjusted(CardMargin + kPaddingX, 3 + padY, -CardMargin - kPaddingX, -3 - padY);
    if (hasActionStrip(item))
        rect.setBottom(rect.bottom() - actionStripHeight(item));
    return rect;
}

int ChatDelegate::rowHeight(const ChatItem &item, qreal documentHeight) const
{
    const int padY = isCard(item.kind) ? kPaddingY : 3;
    int height = qCeil(documentHeight) + 2 * padY + 6;
    if (hasActionStrip(item))
        height += actionStripHeight(item);
    return height;
}

int ChatDelegate::estimatedDocumentHeight(const ChatItem &item, int width) const
{
    // Lines of text wrapped at the average character width: close enough to place the scroll bar, and it
    // costs a pass over the text instead of a Markdown parse and a layout.
    const QFontMetrics metrics(m_view->font());
    const qsizetype perLine = qMax(1, width / qMax(1, metrics.averageCharWidth()));
    const bool plain = item.kind == ChatItem::Kind::AssistantText || item.kind == ChatItem::Kind::Info ||
                       item.kind == ChatItem::Kind::User;
    const bool folded = item.kind == ChatItem::Kind::User && item.collapsed && LongMessage::isLong(item.text);
    const QString text = folded  ? LongMessage::head(item.text) + QStringLiteral("\n-")
                         : plain ? item.text
                                 : item.plainText();
    if (item.kind == ChatItem::Kind::Reasoning && item.collapsed)
        return 2 * metrics.lineSpacing();
    qsizetype lines = 0;
    qsizetype start = 0;
    while (start <= text.size()) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = text.size();
        lines += qMax<qsizetype>(1, (end - start + perLine - 1) / perLine);
        start = end + 1;
    }
    ++m_estimates;
    return int(qMin<qsizetype>(lines, 1000000) * metrics.lineSpacing());
}

QSize ChatDelegate::sizeHint(const QStyleOptionViewItem &, const QModelIndex &index) const
{
    if (!index.isValid())
        return {};
    const ChatItem &item = m_model->item(index.row());
    const int width = contentWidth();
    const QSize size(width + 2 * CardMargin + 2 * kPaddingX, 0);
    SizeEntry &known = m_sizes.get(item.id);
    if (known.width == width && known.revision == item.revision)
        return size + QSize(0, known.height);
    if (m_documents.find(item.id)) {
        // Laid out before (a streamed row, a row on screen): measured, and kept up to date cheaply. A row
        // still behind its text keeps the revision it shows, so its height is asked for again.
        const int before = known.width == width ? known.height : -1;
        const Entry &entry = entryFor(index, width);
        SizeEntry &measured = m_sizes.get(item.id); // entryFor may have made room in the cache
        measured = SizeEntry{width, entry.revision, rowHeight(item, entry.height()), true};
        if (!m_viewLayingOut && before >= 0 && measured.height != before) {
            m_resized.insert(item.id);
            if (!m_catchUp.isActive())
                m_catchUp.start();
        }
        return size + QSize(0, measured.height);
    } else {
        known = SizeEntry{width, item.revision, rowHeight(item, estimatedDocumentHeight(item, width)), false};
    }
    return size + QSize(0, known.height);
}

void ChatDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                         const QModelIndex &index) const
{
    if (!index.isValid())
        return;
    const ChatItem &item = m_model->item(index.row());
    const int width = contentWidth();
    const Entry &entry = entryFor(index, width);
    noteLaidOutHeight(index, entry, width);
    const QPalette &palette = option.palette;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);

    const QRectF card = QRectF(option.rect).adjusted(CardMargin, 3, -CardMargin, -3);
    if (option.state & QStyle::State_Selected) {
        QColor highlight = palette.color(QPalette::Highlight);
        highlight.setAlpha(60);
        painter->fillRect(option.rect, highlight);
    }
    if (isCard(item.kind)) {
        QColor background = palette.color(QPalette::Base);
        QColor border = palette.color(QPalette::Mid);
        if (item.kind == ChatItem::Kind::User) {
            background = palette.color(QPalette::AlternateBase);
            border = palette.color(QPalette::Highlight);
        } else if (item.kind == ChatItem::Kind::Permission && !item.settled) {
            border = item.permission.isDangerous ? ChatColors::error(palette) : ChatColors::warning(palette);
        }
        QPainterPath path;
        path.addRoundedRect(card.adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
        painter->fillPath(path, background);
        painter->setPen(QPen(border, item.kind == ChatItem::Kind::Permission && !item.settled ? 2.0 : 1.0));
        painter->drawPath(path);
        if (item.kind == ChatItem::Kind::User) {
            painter->fillRect(QRectF(card.left(), card.top() + 4, 3, card.height() - 8),
                              palette.color(QPalette::Highlight));
        }
    }
    if (item.aside)
        painter->fillRect(QRectF(card.left(), card.top() + 2, 3, card.height() - 4),
                          ChatColors::aside(palette));
    if (option.state & QStyle::State_HasFocus) {
        painter->setPen(QPen(palette.color(QPalette::Highlight), 1, Qt::DotLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(card.adjusted(1, 1, -1, -1), 6, 6);
    }

    const QRect docRect = documentRect(option.rect, index);
    painter->translate(docRect.topLeft());
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette = palette;
    context.palette.setColor(QPalette::Text, palette.color(QPalette::Text));
    context.clip = QRectF(0, 0, docRect.width() + kPaddingX, docRect.height() + kPaddingY);
    // Only the part of the row inside the viewport is drawn: a long reply's row is many screens tall, and
    // drawing all of it on every flush of a stream was most of the GUI thread's time (issue 11).
    if (const auto *view = qobject_cast<const QAbstractScrollArea *>(option.widget)) {
        context.clip &= QRectF(view->viewport()->rect().translated(-docRect.topLeft()));
        if (context.clip.isEmpty()) { // an empty clip would mean "no clip" below
            painter->restore();
            return;
        }
    }
    painter->setClipRect(context.clip);
    const auto [selectedFrom, selectedTo] = m_selection.rangeIn(index.row());
    if (entry.markdown) {
        entry.markdown->draw(painter, context, selectedFrom, selectedTo);
    } else {
        if (selectedFrom != selectedTo)
            context.selections = stackOf(entry).selectionsIn(0, selectedFrom, selectedTo, palette);
        entry.document->documentLayout()->draw(painter, context);
        ListNumbering::drawNumbers(painter, *entry.document, context);
    }
    painter->restore();
    if (item.pinned) {
        // The pin mark (issue 16): an accent bar down the row's left edge, clear of the text.
        painter->fillRect(QRectF(option.rect.left() + 1, card.top() + 2, 3, card.height() - 4),
                          palette.color(QPalette::Highlight));
    }
}

QString ChatDelegate::lineHtml(const QString &color, const QString &text, bool italic) const
{
    QString html = QStringLiteral("<div style=\"color:%1;%2\">")
                       .arg(color, italic ? QStringLiteral("font-style:italic;") : QString());
    html += escaped(text).replace(QLatin1Char('\n'), QStringLiteral("<br/>"));
    html += QStringLiteral("</div>");
    return html;
}

QString ChatDelegate::diffHtml(const ChatItem &item) const
{
    if (item.diff.isEmpty())
        return {};
    const QPalette palette = m_view->palette();
    const QString added = ChatColors::diffAdded(palette).name();
    const QString removed = ChatColors::diffRemoved(palette).name();
    const QString hunk = ChatColors::diffHunk(palette).name();
    const QString muted = ChatColors::muted(palette).name();
    // One preformatted paragraph per line: fixed-width line numbers never wrap (reference 6.6 layout).
    QString html = QStringLiteral("<div style=\"margin-top:6px\"></div>");
    for (qsizetype at = 0; at < item.diff.size(); ++at) {
        if (at == item.diffGapAt)
            html += lineHtml(muted, tr("... %1 more diff lines").arg(item.diffGap));
        const DiffLine &line = item.diff.at(at);
        QString background;
        QString sign = QStringLiteral(" ");
        switch (line.kind) {
        case DiffLine::Kind::Added:
            background = added;
            sign = QStringLiteral("+");
            break;
        case DiffLine::Kind::Removed:
            background = removed;
            sign = QStringLiteral("-");
            break;
        case DiffLine::Kind::Hunk:
            background = hunk;
            break;
        case DiffLine::Kind::Context:
            break;
        }
        const QString style =
            QStringLiteral("margin:0; white-space:pre-wrap; font-family:monospace;%1")
                .arg(background.isEmpty() ? QString()
                                          : QStringLiteral(" background-color:%1;").arg(background));
        if (line.kind == DiffLine::Kind::Hunk) {
            html +=
                QStringLiteral("<p style=\"%1 color:%2\">  %3</p>").arg(style, muted, escaped(line.content));
            continue;
        }
        const QString oldNum = line.oldLine > 0 ? QString::number(line.oldLine) : QString();
        const QString newNum = line.newLine > 0 ? QString::number(line.newLine) : QString();
        html += QStringLiteral("<p style=\"%1\"><span style=\"color:%2\">%3 %4 </span>%5 %6</p>")
                    .arg(style, muted, oldNum.rightJustified(5, QLatin1Char(' ')),
                         newNum.rightJustified(5, QLatin1Char(' ')), sign, escaped(line.content));
    }
    if (item.diffOmitted > 0) // ChatItem keeps at most MaxDiffLines
        html += lineHtml(muted, tr("... %1 more diff lines").arg(item.diffOmitted));
    return html;
}

QString ChatDelegate::toolHtml(const ChatItem &item) const
{
    const QPalette palette = m_view->palette();
    const QString muted = ChatColors::muted(palette).name();
    const QString glyph = ChatItem::toolGlyph(item.toolState);
    QString color;
    switch (item.toolState) {
    case ChatItem::ToolState::Running:
        color = ChatColors::warning(palette).name();
        break;
    case ChatItem::ToolState::Done:
        color = ChatColors::success(palette).name();
        break;
    case ChatItem::ToolState::Failed:
        color = ChatColors::error(palette).name();
        break;
    case ChatItem::ToolState::Interrupted:
        color = muted;
        break;
    }
    QString html =
        QStringLiteral("<div><span style=\"color:%1\">%2</span>&nbsp; <b>%3</b>&nbsp; %4")
            .arg(color, glyph, escaped(item.label),
                 QStringLiteral("<span style=\"font-family:monospace\">%1</span>").arg(escaped(item.detail)));
    QStringList meta;
    if (!item.metadata.isEmpty())
        meta << item.metadata;
    const QString duration = ToolDisplay::duration(item.durationNs);
    if (!duration.isEmpty())
        meta << duration;
    if (item.toolState == ChatItem::ToolState::Running)
        html += QStringLiteral("...");
    if (!meta.isEmpty())
        html += QStringLiteral("&nbsp; <span style=\"color:%1\">%2</span>")
                    .arg(muted, escaped(meta.join(QStringLiteral(" · "))));
    html += QStringLiteral("</div>");
    if (!item.toolError.isEmpty())
        html += lineHtml(ChatColors::error(palette).name(), item.toolError);
    if (!item.output.isEmpty()) {
        QStringList lines = item.output.split(QLatin1Char('\n'));
        qint64 above = item.outputEarlierLines;
        QString suffix;
        if (item.toolName == QLatin1String("web_fetch") || item.toolName == QLatin1String("call_mcp_tool")) {
            // A page (or an MCP tool's answer) is read from its top: its first lines (the card's size says
            // how much there is, Copy Output has all of it).
            if (lines.size() > kMaxOutputLines) {
                lines = lines.mid(0, kMaxOutputLines);
                suffix = QStringLiteral("\n…");
            }
        } else if (lines.size() > kMaxOutputLines) {
            above += lines.size() - kMaxOutputLines;
            lines = lines.mid(lines.size() - kMaxOutputLines);
        }
        QString prefix;
        if (above > 0)
            prefix = (above == 1 ? tr("... 1 earlier line") : tr("... %1 earlier lines").arg(above)) +
                     QLatin1Char('\n');
        const QString background = ChatColors::codeBlockBackground(m_view->palette()).name();
        html += QStringLiteral(
                    "<table width=\"100%\" cellspacing=\"0\" cellpadding=\"6\" style=\"margin-top:6px\">"
                    "<tr><td bgcolor=\"%1\"><pre style=\"margin:0; white-space:pre-wrap\">%2</pre></td></tr>"
                    "</table>")
                    .arg(background, escaped(prefix + lines.join(QLatin1Char('\n')) + suffix));
    }
    html += diffHtml(item);
    return html;
}

QString ChatDelegate::permissionHtml(const ChatItem &item) const
{
    const PermissionRequest &request = item.permission;
    const QString muted = m_view->palette().color(QPalette::PlaceholderText).name();
    QString html;
    if (request.toolName == QLatin1String("delegate_task")) {
        // A line per task: "agent: the task's first line".
        html += QStringLiteral("<div><b>%1</b></div>").arg(escaped(tr("Hand these tasks to subagents?")));
        html += QStringLiteral("<pre style=\"margin-top:4px; white-space:pre-wrap\">%1</pre>")
                    .arg(escaped(request.command));
        html += lineHtml(muted,
                         tr("They may change files, run commands, fetch web pages and call MCP tools without "
                            "asking you; dangerous commands and paths outside the folder are refused."));
    } else if (request.toolName == QLatin1String("call_mcp_tool")) {
        // The server, the tool and what it is given: the person judges the call by its arguments.
        html += QStringLiteral("<div><b>%1</b> <span style=\"font-family:monospace\">%2</span></div>")
                    .arg(escaped(tr("Call the MCP tool")), escaped(request.path));
        if (!request.summary.isEmpty())
            html += QStringLiteral("<pre style=\"margin-top:4px; white-space:pre-wrap\">%1</pre>")
                        .arg(escaped(request.summary));
    } else if (!request.command.isEmpty()) {
        html += QStringLiteral("<div><b>%1</b></div>").arg(escaped(tr("Run this command?")));
        html += QStringLiteral("<pre style=\"margin-top:4px; white-space:pre-wrap\">$ %1</pre>")
                    .arg(escaped(request.command));
        if (!request.summary.isEmpty())
            html += lineHtml(muted, request.summary);
    } else {
        html += QStringLiteral("<div><b>%1</b> <span style=\"font-family:monospace\">%2</span></div>")
                    .arg(escaped(tr("Allow %1?").arg(item.label)),
                         escaped(request.resolvedPath.isEmpty() ? request.path : request.resolvedPath));
        // web_fetch to this computer or the local network: said, so the person knows where it goes.
        if (request.toolName == QLatin1String("web_fetch") && !request.summary.isEmpty())
            html +=
                lineHtml(ChatColors::error(m_view->palette()).name(), QStringLiteral("⚠ ") + request.summary);
    }
    if (request.isDangerous)
        html +=
            lineHtml(ChatColors::error(m_view->palette()).name(), tr("⚠ This command may be destructive."));
    if (item.diff.isEmpty() && !request.diff.isEmpty())
        html += lineHtml(muted, request.diff); // a change a diff cannot show ("Binary file ... replaced.")
    html += diffHtml(item);
    if (item.settled)
        html += lineHtml(muted, item.outcome, true);
    return html;
}

void ChatDelegate::buildDocument(QTextDocument &document, const ChatItem &item) const
{
    const QPalette palette = m_view->palette();
    const QString muted = palette.color(QPalette::PlaceholderText).name();
    switch (item.kind) {
    case ChatItem::Kind::User: {
        const bool foldable = LongMessage::isLong(item.text);
        document.setPlainText(foldable && item.collapsed ? LongMessage::head(item.text) : item.text);
        if (foldable) {
            QTextCursor cursor(&document);
            cursor.movePosition(QTextCursor::End);
            QTextCharFormat toggle;
            toggle.setForeground(palette.color(QPalette::Link));
            cursor.insertBlock();
            cursor.insertText(LongMessage::toggleText(item.text, item.collapsed), toggle);
        }
        return;
    }
    case ChatItem::Kind::AssistantText:
    case ChatItem::Kind::Info:
        // Shown through IncrementalMarkdown; a plain document of it is styled the same way.
        ListNumbering::setMarkdown(document, item.text);
        IncrementalMarkdown::style(document, palette);
        return;
    case ChatItem::Kind::Reasoning: {
        const QString header =
            (item.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + tr("Thinking");
        QString body;
        if (item.collapsed) {
            QString first = item.text.trimmed().section(QLatin1Char('\n'), 0, 0);
            if (first.size() > 120)
                first = first.left(120) + QStringLiteral("…");
            body = first;
        } else {
            body = item.text.trimmed();
        }
        document.setHtml(
            QStringLiteral("<div style=\"color:%1\"><b>%2</b></div>").arg(muted, escaped(header)) +
            lineHtml(muted, body, true));
        return;
    }
    case ChatItem::Kind::Tool:
        document.setHtml(toolHtml(item));
        return;
    case ChatItem::Kind::Permission:
        document.setHtml(permissionHtml(item));
        return;
    case ChatItem::Kind::Question: {
        QString html = QStringLiteral("<div><b>%1</b></div>").arg(escaped(tr("The agent asks:")));
        const UserQuestionList &questions = item.questions;
        if (item.settled && !item.answers.isEmpty() && item.answers.size() == questions.size()) {
            // Answered: each answer after its question, so the history says what was answered to what.
            for (qsizetype i = 0; i < questions.size(); ++i)
                html += QStringLiteral("<div>%1 <b>%2</b></div>")
                            .arg(escaped(questions.at(i).question), escaped(item.answers.at(i)));
            document.setHtml(html);
            return;
        }
        // While it waits, the form below puts each question beside its answer; the list here repeated them
        // (found when tried) and stays only when a question is too long for the form's one line.
        const bool formShowsThemWhole =
            std::all_of(questions.cbegin(), questions.cend(), [](const UserQuestion &question) {
                return question.question.size() <= QuestionCard::WholeQuestionLength;
            });
        if (!item.settled && formShowsThemWhole) {
            document.setHtml(html);
            return;
        }
        html += lineHtml(palette.color(QPalette::Text).name(), item.text);
        if (item.settled)
            html += lineHtml(muted, item.outcome, true);
        document.setHtml(html);
        return;
    }
    case ChatItem::Kind::Retry:
        document.setHtml(lineHtml(ChatColors::warning(palette).name(), item.text, true));
        return;
    case ChatItem::Kind::Interrupted:
        document.setHtml(lineHtml(ChatColors::warning(palette).name(), item.text));
        return;
    case ChatItem::Kind::Error: {
        QString html = lineHtml(ChatColors::error(palette).name(), QStringLiteral("✗ ") + item.text);
        if (!item.retryPrompt.isEmpty())
            html += QStringLiteral("<div><a href=\"%1\">%2</a></div>")
                        .arg(ChatItem::RetryLink, escaped(tr("↻ Try again")));
        document.setHtml(html);
        return;
    }
    case ChatItem::Kind::Status: {
        if (item.compactionUndone) {
            // The row stays where the compaction happened; scrolled back to, it must not read as in effect.
            document.setHtml(lineHtml(muted, tr("%1 (undone)").arg(item.text)));
            return;
        }
        QString html =
            lineHtml(item.text.startsWith(QStringLiteral("✓")) ? ChatColors::success(palette).name() : muted,
                     item.text);
        if (item.undoOffered)
            html += QStringLiteral("<div><a href=\"%1\">%2</a></div>")
                        .arg(ChatItem::UndoCompactionLink, escaped(tr("↶ Undo compaction")));
        document.setHtml(html);
        return;
    }
    }
}

} // namespace keen

#include "moc_chatdelegate.cpp"
