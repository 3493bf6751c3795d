#include "chat/chatview.h"

#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/longmessage.h"
#include "chat/permissioncard.h"
#include "chat/questioncard.h"
#include "conversation/tooloutputtext.h"
#include "session/pincandidates.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDesktopServices>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QUrl>
#include <QWheelEvent>

#include <algorithm>
#include <limits>

namespace keen {

ChatView::ChatView(ChatModel *model, QWidget *parent)
    : QListView(parent)
    , m_model(model)
{
    setObjectName(QStringLiteral("chatView"));
    setAccessibleName(tr("Conversation"));
    m_delegate = new ChatDelegate(model, viewport());
    setModel(model);
    setItemDelegate(m_delegate);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setResizeMode(QListView::Adjust);
    setUniformItemSizes(false);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setWordWrap(true);
    setFrameShape(QFrame::NoFrame);
    setSpacing(0);
    verticalScrollBar()->setSingleStep(24);
    setMouseTracking(true); // the pointer shows where text can be selected and which rows open on a click
    m_edgeScroll.setInterval(40);
    connect(&m_edgeScroll, &QTimer::timeout, this, [this] {
        const int above = -m_lastDragPoint.y();
        const int below = m_lastDragPoint.y() - viewport()->height();
        if (above <= 0 && below <= 0) {
            m_edgeScroll.stop();
            return;
        }
        // Faster the further the pointer is from the edge, as text editors do.
        const int step = std::clamp(std::max(above, below), 4, 120);
        verticalScrollBar()->setValue(verticalScrollBar()->value() + (above > 0 ? -step : step));
        extendTextSelection(m_lastDragPoint);
    });

    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        m_follow = value >= verticalScrollBar()->maximum() - 4;
        if (!m_layingOut)
            rememberScrollAnchor();
    });
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int max) {
        if (m_follow)
            verticalScrollBar()->setValue(max);
    });
    connect(model, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &, int first, int last) { onRowsInserted(first, last); });
    // The text selection names rows: rows put in above it move it down; a removal or a reset ends it.
    connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        const int count = last - first + 1;
        if (m_anchorRow >= first)
            m_anchorRow += count;
        if (m_focusRow >= first)
            m_focusRow += count;
        applyTextSelection();
    });
    connect(model, &QAbstractItemModel::rowsRemoved, this, &ChatView::clearTextSelection);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &ChatView::layOutAfterRowsChanged);
    connect(model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                onDataChanged(topLeft, bottomRight);
            });
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        clearTextSelection();
        m_follow = true;
        if (m_model->rowCount() > 0)
            onRowsInserted(0, m_model->rowCount() - 1);
    });
}

ChatView::~ChatView() = default;

void ChatView::setShowThinking(bool show)
{
    if (m_showThinking == show)
        return;
    m_showThinking = show;
    for (int row = 0; row < m_model->rowCount(); ++row)
        applyRowVisibility(row);
}

void ChatView::applyRowVisibility(int row)
{
    const bool reasoning = m_model->item(row).kind == ChatItem::Kind::Reasoning;
    setRowHidden(row, reasoning && !m_showThinking);
}

void ChatView::onRowsInserted(int first, int last)
{
    for (int row = first; row <= last; ++row) {
        applyRowVisibility(row);
        attachCard(row);
    }
    layOutAfterRowsChanged();
}

void ChatView::layOutAfterRowsChanged()
{
    // QListView forgets its whole layout when rows go in or out and lays out again on a 0 ms timer; a paint
    // that came first drew the chat blank (seen as a blank chat while a tool loop added a card after
    // another). The rows' sizes are cached, so laying out now costs what the timer would have.
    if (isVisible())
        executeDelayedItemsLayout();
}

void ChatView::attachCard(int row)
{
    const ChatItem &item = m_model->item(row);
    if (item.settled)
        return;
    const QModelIndex modelIndex = m_model->index(row);
    if (item.kind == ChatItem::Kind::Permission) {
        auto *card = new PermissionCard(item.permission);
        connect(card, &PermissionCard::decided, this, &ChatView::permissionDecided);
        setIndexWidget(modelIndex, card);
    } else if (item.kind == ChatItem::Kind::Question) {
        auto *card = new QuestionCard(item.questionId, item.questions);
        connect(card, &QuestionCard::answered, this, &ChatView::questionAnswered);
        setIndexWidget(modelIndex, card);
    }
}

void ChatView::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight)
{
    for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
        const ChatItem &item = m_model->item(row);
        if ((item.kind == ChatItem::Kind::Permission || item.kind == ChatItem::Kind::Question) &&
            item.settled && indexWidget(m_model->index(row))) {
            const bool hadFocus = indexWidget(m_model->index(row))->isAncestorOf(QApplication::focusWidget());
            setIndexWidget(m_model->index(row), nullptr);
            if (hadFocus) {
                setFocus(Qt::OtherFocusReason);
                Q_EMIT settledCardHadFocus();
            }
        }
    }
    // The row's height may have changed: relayout (the delegate rebuilds only that row's document).
    scheduleDelayedItemsLayout();
}

bool ChatView::focusPendingCard()
{
    for (int row = m_model->rowCount() - 1; row >= 0; --row) {
        QWidget *widget = indexWidget(m_model->index(row));
        if (auto *card = qobject_cast<PermissionCard *>(widget)) {
            scrollTo(m_model->index(row));
            card->focusDefault();
            return true;
        }
        if (auto *card = qobject_cast<QuestionCard *>(widget)) {
            scrollTo(m_model->index(row));
            card->focusDefault();
            return true;
        }
    }
    return false;
}

bool ChatView::hasSelectedText() const
{
    return !m_delegate->textSelection().isEmpty() || (selectionModel() && selectionModel()->hasSelection());
}

bool ChatView::isSelectionInView() const
{
    const QRect area = viewport()->rect();
    const ChatDelegate::TextSelection &text = m_delegate->textSelection();
    if (!text.isEmpty()) {
        const QModelIndex top = indexAt(QPoint(area.center().x(), area.top()));
        const QModelIndex bottom = indexAt(QPoint(area.center().x(), area.bottom()));
        const int firstShown = top.isValid() ? top.row() : 0;
        const int lastShown = bottom.isValid() ? bottom.row() : m_model->rowCount() - 1;
        return text.firstRow <= lastShown && text.lastRow >= firstShown;
    }
    if (!selectionModel())
        return false;
    const QModelIndexList rows = selectionModel()->selectedRows();
    return std::any_of(rows.cbegin(), rows.cend(), [&](const QModelIndex &row) {
        return !isRowHidden(row.row()) && visualRect(row).intersects(area);
    });
}

QString ChatView::selectedText() const
{
    const ChatDelegate::TextSelection &selection = m_delegate->textSelection();
    if (selection.isEmpty())
        return {};
    QStringList parts;
    for (int row = selection.firstRow; row <= selection.lastRow && row < m_model->rowCount(); ++row) {
        if (isRowHidden(row))
            continue;
        const auto [from, to] = selection.rangeIn(row);
        QString part = m_delegate->textBetween(m_model->index(row), from, to);
        // A long message's "▸ Show all N lines" is a control, not its text (it was copied with the lines).
        const ChatItem &item = m_model->item(row);
        if (item.kind == ChatItem::Kind::User && LongMessage::isLong(item.text)) {
            const qsizetype lastLine = part.lastIndexOf(QLatin1Char('\n')) + 1;
            if (LongMessage::isToggleLine(part.mid(lastLine), item.collapsed))
                part.truncate(qMax<qsizetype>(0, lastLine - 1));
        }
        if (!part.isEmpty())
            parts << part;
    }
    return parts.join(QStringLiteral("\n\n"));
}

void ChatView::copySelection() const
{
    if (!m_delegate->textSelection().isEmpty()) {
        QApplication::clipboard()->setText(selectedText());
        return;
    }
    QModelIndexList rows = selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList parts;
    for (const QModelIndex &row : std::as_const(rows))
        parts << m_model->item(row.row()).plainText();
    QApplication::clipboard()->setText(parts.join(QStringLiteral("\n\n")));
}

void ChatView::clearTextSelection()
{
    m_anchorRow = m_focusRow = -1;
    m_anchorPosition = m_focusPosition = 0;
    m_selectingText = false;
    m_edgeScroll.stop();
    applyTextSelection();
}

bool ChatView::showMatch(int row, const QString &needle, int occurrence)
{
    if (row < 0 || row >= m_model->rowCount() || isRowHidden(row))
        return false;
    const QModelIndex index = m_model->index(row);
    clearSelection();
    clearTextSelection();
    const ChatItem &item = m_model->item(row);
    if (item.collapsed && (item.kind == ChatItem::Kind::Reasoning ||
                           (item.kind == ChatItem::Kind::User && LongMessage::isLong(item.text))))
        m_model->toggleCollapsed(row); // a match in a folded thought or message is shown by opening it
    const auto found = m_delegate->findInRow(index, needle, occurrence);
    executeDelayedItemsLayout(); // the row may have been measured afresh: place it before scrolling to it
    if (!found) {
        scrollTo(index, PositionAtCenter);
        return false;
    }
    m_anchorRow = m_focusRow = row;
    m_anchorPosition = found->first;
    m_focusPosition = found->second;
    applyTextSelection();
    const QRect line = m_delegate->textLineRect(index, visualRect(index), found->first);
    QScrollBar *bar = verticalScrollBar();
    bar->setValue(bar->value() + line.center().y() - viewport()->height() / 2);
    return true;
}

void ChatView::selectAll()
{
    clearTextSelection();
    QListView::selectAll();
}

void ChatView::applyTextSelection()
{
    ChatDelegate::TextSelection selection;
    if (m_anchorRow >= 0 && m_focusRow >= 0) {
        const bool anchorFirst =
            m_anchorRow < m_focusRow || (m_anchorRow == m_focusRow && m_anchorPosition <= m_focusPosition);
        selection.firstRow = anchorFirst ? m_anchorRow : m_focusRow;
        selection.firstPosition = anchorFirst ? m_anchorPosition : m_focusPosition;
        selection.lastRow = anchorFirst ? m_focusRow : m_anchorRow;
        selection.lastPosition = anchorFirst ? m_focusPosition : m_anchorPosition;
    }
    m_delegate->setTextSelection(selection);
    viewport()->update();
}

void ChatView::extendTextSelection(const QPoint &viewportPos)
{
    if (m_anchorRow < 0 || m_model->rowCount() == 0)
        return;
    // Outside the view the selection follows the nearest row on screen (the edge timer scrolls on).
    const QPoint inside(std::clamp(viewportPos.x(), 0, viewport()->width() - 1),
                        std::clamp(viewportPos.y(), 0, viewport()->height() - 1));
    QModelIndex at = indexAt(inside);
    if (!at.isValid()) { // below the last row: its end
        at = m_model->index(m_model->rowCount() - 1);
        m_focusRow = at.row();
        m_focusPosition = std::numeric_limits<int>::max();
    } else {
        m_focusRow = at.row();
        m_focusPosition = m_delegate->textPositionAt(at, visualRect(at), inside);
    }
    applyTextSelection();
}

void ChatView::updatePointerShape(const QPoint &viewportPos)
{
    const QModelIndex at = indexAt(viewportPos);
    Qt::CursorShape shape = Qt::ArrowCursor;
    if (at.isValid()) {
        const ChatItem &item = m_model->item(at.row());
        shape = item.kind == ChatItem::Kind::Reasoning || !item.dropped.isEmpty() ||
                        !m_delegate->linkAt(at, visualRect(at), viewportPos).isEmpty() ||
                        onLongMessageToggle(at, viewportPos)
                    ? Qt::PointingHandCursor
                    : Qt::IBeamCursor;
    }
    if (viewport()->cursor().shape() != shape)
        viewport()->setCursor(shape);
}

bool ChatView::onLongMessageToggle(const QModelIndex &at, const QPoint &viewportPos) const
{
    // A long message folds and opens on its last line ("Show all ... lines" / "Show less") only, so a click
    // into its text to select does not lay out a pasted log of thousands of lines.
    if (!at.isValid() || m_model->item(at.row()).kind != ChatItem::Kind::User ||
        !LongMessage::isLong(m_model->item(at.row()).text))
        return false;
    const ChatItem &item = m_model->item(at.row());
    const auto [first, last] =
        m_delegate->blockAround(at, m_delegate->textPositionAt(at, visualRect(at), viewportPos));
    return LongMessage::isToggleLine(m_delegate->textBetween(at, first, last), item.collapsed);
}

QString ChatView::linkAt(const QPoint &viewportPos) const
{
    const QModelIndex at = indexAt(viewportPos);
    return at.isValid() ? m_delegate->linkAt(at, visualRect(at), viewportPos) : QString();
}

bool ChatView::isOpenableLink(const QString &href)
{
    const QUrl url(href);
    static const QStringList opened{QStringLiteral("http"), QStringLiteral("https"),
                                    QStringLiteral("mailto")};
    return url.isValid() && opened.contains(url.scheme().toLower());
}

bool ChatView::openLink(const QString &href)
{
    return isOpenableLink(href) && QDesktopServices::openUrl(QUrl(href));
}

bool ChatView::viewportEvent(QEvent *event)
{
    // Light and dark: cached documents carry the colours of the viewport's palette (the delegate draws for
    // it), so they are rebuilt once the viewport itself has the new palette, after the view.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange ||
        event->type() == QEvent::FontChange) { // and zoom: they are laid out in the viewport's font
        m_delegate->clearCache();
        scheduleDelayedItemsLayout();
    }
    return QListView::viewportEvent(event);
}

bool ChatView::event(QEvent *event)
{
    if (event->type() == QEvent::ShortcutOverride) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->matches(QKeySequence::Copy) || key->key() == Qt::Key_Escape) {
            event->accept();
            return true;
        }
    }
    return QListView::event(event);
}

void ChatView::keyPressEvent(QKeyEvent *event)
{
    if (event->matches(QKeySequence::Copy)) {
        if (hasSelectedText())
            copySelection();
        else
            Q_EMIT interruptRequested();
        return;
    }
    if (event->key() == Qt::Key_Escape) {
        // A first Esc only lets go of what is selected; the next one goes on to the turn (cancel, deny,
        // stop).
        if (hasSelectedText()) {
            clearSelection();
            clearTextSelection();
            return;
        }
        Q_EMIT escapePressed();
        return;
    }
    // Enter or Space folds and opens the current row: a thought, or a long message (LongMessage); Enter on
    // an error offering "Try again" takes the offer.
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter || event->key() == Qt::Key_Space) &&
        currentIndex().isValid()) {
        const ChatItem &item = m_model->item(currentIndex().row());
        if (item.kind == ChatItem::Kind::Reasoning ||
            (item.kind == ChatItem::Kind::User && LongMessage::isLong(item.text))) {
            m_model->toggleCollapsed(currentIndex().row());
            return;
        }
        if (item.kind == ChatItem::Kind::Error && !item.retryPrompt.isEmpty() &&
            event->key() != Qt::Key_Space) {
            Q_EMIT retryRequested();
            return;
        }
    }
    if (scrollByKey(event))
        return;
    QListView::keyPressEvent(event);
}

void ChatView::rememberScrollAnchor()
{
    if (m_widthChangePending)
        return;
    if (m_follow) {
        m_scrollAnchor = {};
        return;
    }
    const QRect area = viewport()->rect();
    const QModelIndex index = indexAt(QPoint(area.center().x(), area.top()));
    if (!index.isValid())
        return; // the rows are not laid out yet (rows just went in): keep what was there before
    const QRect row = visualRect(index);
    const bool bottomEdge = row.top() < area.top() && row.bottom() < area.bottom();
    m_scrollAnchor =
        ScrollAnchor{m_model->item(index.row()).id, bottomEdge, bottomEdge ? row.bottom() : row.top(), true};
    // Found when tried: narrowing the window (or showing the sidebar) in the middle of a long pasted log
    // kept the log's top where it was, and the text rewrapped under it: the line read was thousands of lines
    // away. In a row that reaches above the view, the line on top is remembered as a text position, which
    // a new width wraps elsewhere.
    if (row.top() < area.top()) {
        m_scrollAnchor.textPosition =
            m_delegate->textPositionAt(index, row, QPoint(row.left() + 1, area.top()));
        m_scrollAnchor.lineY = m_delegate->textLineRect(index, row, m_scrollAnchor.textPosition).top();
        m_scrollAnchor.width = m_delegate->contentWidth();
    }
}

void ChatView::doItemsLayout()
{
    // Heights change when rows are measured, rows go in above or the width changes; without this the text
    // being read (or a match just found far up) slid out of view.
    const bool follow = m_follow;
    const ScrollAnchor anchor = m_scrollAnchor;
    m_layingOut = true;
    m_widthChangePending = false;
    m_delegate->setViewLayingOut(true);
    QListView::doItemsLayout();
    m_delegate->setViewLayingOut(false);
    if (!follow && anchor.valid) {
        const int row = m_model->rowOf(anchor.itemId);
        if (row >= 0 && !isRowHidden(row)) {
            const QModelIndex index = m_model->index(row);
            const QRect rect = visualRect(index);
            int moved = (anchor.bottomEdge ? rect.bottom() : rect.top()) - anchor.y;
            if (anchor.textPosition >= 0 && anchor.width != m_delegate->contentWidth())
                moved = m_delegate->textLineRect(index, rect, anchor.textPosition).top() - anchor.lineY;
            if (moved != 0)
                verticalScrollBar()->setValue(verticalScrollBar()->value() + moved);
        }
    }
    m_layingOut = false;
    rememberScrollAnchor();
}

QRect ChatView::visualRect(const QModelIndex &index) const
{
    QRect rect = QListView::visualRect(index);
    if (rect.height() >= std::numeric_limits<qint16>::max() && index.isValid()) {
        QStyleOptionViewItem option;
        initViewItemOption(&option);
        rect.setHeight(m_delegate->sizeHint(option, index).height());
    }
    return rect;
}

void ChatView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    // A row taller than the screen that is partly in view is as visible as it can be: the item view would
    // jump to its top (a click into the middle of a long reply made the view leap back to where it began).
    if (hint == EnsureVisible && index.isValid()) {
        const QRect rect = visualRect(index);
        if (rect.height() > viewport()->height() && rect.intersects(viewport()->rect()))
            return;
    }
    QListView::scrollTo(index, hint);
}

void ChatView::scrollPage(int direction)
{
    verticalScrollBar()->triggerAction(direction < 0 ? QAbstractSlider::SliderPageStepSub
                                                     : QAbstractSlider::SliderPageStepAdd);
}

bool ChatView::scrollByKey(QKeyEvent *event)
{
    // A reply can be taller than many screens: the item view's own keys move from row to row (PageDown
    // stopped above a long reply, Ctrl+End showed the top of the last row), so paging, Home and End scroll
    // by pixels as a document does, and the arrows go through a tall row a line at a time.
    if (event->modifiers() & ~(Qt::ControlModifier | Qt::KeypadModifier))
        return false; // Shift extends the selection of rows: the item view's own behaviour
    QScrollBar *bar = verticalScrollBar();
    switch (event->key()) {
    case Qt::Key_PageDown:
        scrollPage(1);
        return true;
    case Qt::Key_PageUp:
        scrollPage(-1);
        return true;
    case Qt::Key_End:
        bar->triggerAction(QAbstractSlider::SliderToMaximum);
        return true;
    case Qt::Key_Home:
        bar->triggerAction(QAbstractSlider::SliderToMinimum);
        return true;
    case Qt::Key_Down:
    case Qt::Key_Up: {
        const QRect current = visualRect(currentIndex());
        const QRect shown = viewport()->rect();
        if (!currentIndex().isValid() || !current.intersects(shown))
            return false;
        const bool down = event->key() == Qt::Key_Down;
        if (down ? current.bottom() <= shown.bottom() : current.top() >= shown.top())
            return false; // the row is in view to its edge: on to the next row
        bar->triggerAction(down ? QAbstractSlider::SliderSingleStepAdd
                                : QAbstractSlider::SliderSingleStepSub);
        return true;
    }
    default:
        return false;
    }
}

void ChatView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        const QPoint point = event->position().toPoint();
        const QModelIndex at = indexAt(point);
        const bool tripleClick =
            m_sinceDoubleClick.isValid() &&
            m_sinceDoubleClick.elapsed() < QApplication::doubleClickInterval() &&
            (point - m_doubleClickPoint).manhattanLength() < QApplication::startDragDistance();
        m_sinceDoubleClick.invalidate();
        if (tripleClick && at.isValid() && at.row() == m_anchorRow) {
            // The paragraph (or line of code) the double click's word is in.
            const auto [first, last] = m_delegate->blockAround(at, m_anchorPosition);
            m_anchorPosition = first;
            m_focusPosition = last;
            m_focusRow = m_anchorRow;
            m_pressed = true;
            m_selectingText = true;
            applyTextSelection();
            return;
        }
        clearTextSelection();
        m_pressed = at.isValid() && event->modifiers() == Qt::NoModifier;
        m_pressLink = m_pressed ? m_delegate->linkAt(at, visualRect(at), point) : QString();
        if (m_pressed) {
            m_pressPoint = point;
            m_anchorRow = at.row();
            m_anchorPosition = m_delegate->textPositionAt(at, visualRect(at), point);
        }
    }
    QListView::mousePressEvent(event);
}

void ChatView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint point = event->position().toPoint();
    if (!(event->buttons() & Qt::LeftButton) || !m_pressed) {
        updatePointerShape(point);
        QListView::mouseMoveEvent(event);
        return;
    }
    // A drag selects text, never rows: the item view's own drag would extend the row selection.
    if (!m_selectingText && (point - m_pressPoint).manhattanLength() < QApplication::startDragDistance())
        return;
    if (!m_selectingText) {
        m_selectingText = true;
        clearSelection();
    }
    m_lastDragPoint = point;
    extendTextSelection(point);
    if ((point.y() < 0 || point.y() >= viewport()->height()) && !m_edgeScroll.isActive())
        m_edgeScroll.start();
}

void ChatView::mouseReleaseEvent(QMouseEvent *event)
{
    const bool selected = std::exchange(m_selectingText, false);
    m_pressed = false;
    m_edgeScroll.stop();
    if (selected && event->button() == Qt::LeftButton) {
        // X11 and Wayland: what is selected is also the primary selection (a middle click pastes it).
        if (QApplication::clipboard()->supportsSelection())
            QApplication::clipboard()->setText(selectedText(), QClipboard::Selection);
        return; // the end of a drag is not a click: no row opens or toggles
    }
    const QPoint point = event->position().toPoint();
    const QModelIndex at = indexAt(point);
    const bool plainClick = event->button() == Qt::LeftButton && event->modifiers() == Qt::NoModifier;
    QListView::mouseReleaseEvent(event);
    const QString pressedLink = std::exchange(m_pressLink, QString());
    if (plainClick && !pressedLink.isEmpty() && linkAt(point) == pressedLink) {
        if (pressedLink == ChatItem::RetryLink)
            Q_EMIT retryRequested();
        else if (pressedLink == ChatItem::UndoCompactionLink && at.isValid())
            Q_EMIT undoCompactionRequested(m_model->item(at.row()).compactionSeq);
        else
            openLink(pressedLink); // a click on a link, as in a browser
        return;
    }
    if (plainClick && at.isValid() && m_model->item(at.row()).kind == ChatItem::Kind::Reasoning) {
        // A folded thought opens on a click anywhere; an open one folds on its "Thinking" line only, so a
        // click (or the first click of a double click) into its text does not fold it away.
        const bool onHeader =
            m_model->item(at.row()).collapsed ||
            m_delegate->blockAround(at, m_delegate->textPositionAt(at, visualRect(at), point)).first == 0;
        if (onHeader)
            m_model->toggleCollapsed(at.row());
    }
    if (plainClick && onLongMessageToggle(at, point))
        m_model->toggleCollapsed(at.row());
    if (plainClick && at.isValid() && !m_model->item(at.row()).dropped.isEmpty())
        Q_EMIT droppedDetailsRequested(m_model->item(at.row()).id);
}

void ChatView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const QPoint point = event->position().toPoint();
    const QModelIndex at = indexAt(point);
    const bool foldedThought = at.isValid() && m_model->item(at.row()).kind == ChatItem::Kind::Reasoning &&
                               m_model->item(at.row()).collapsed;
    if (event->button() != Qt::LeftButton || !at.isValid() || foldedThought) {
        QListView::mouseDoubleClickEvent(event);
        return;
    }
    // A word, as in any text view; a drag from here goes on selecting from the word's start.
    const auto [first, last] =
        m_delegate->wordAround(at, m_delegate->textPositionAt(at, visualRect(at), point));
    clearSelection();
    m_anchorRow = m_focusRow = at.row();
    m_anchorPosition = first;
    m_focusPosition = last;
    m_pressed = true;
    m_selectingText = true;
    m_pressPoint = point;
    m_doubleClickPoint = point;
    m_sinceDoubleClick.start();
    applyTextSelection();
}

void ChatView::wheelEvent(QWheelEvent *event)
{
    if (!(event->modifiers() & Qt::ControlModifier)) {
        QListView::wheelEvent(event);
        return;
    }
    // One notch (120) is one zoom step, as in browsers and editors.
    m_zoomWheel += event->angleDelta().y();
    const int steps = m_zoomWheel / 120;
    m_zoomWheel -= steps * 120;
    if (steps != 0)
        Q_EMIT zoomRequested(steps);
    event->accept();
}

void ChatView::contextMenuEvent(QContextMenuEvent *event)
{
    contextMenuFor(event->pos())->exec(event->globalPos());
}

std::unique_ptr<QMenu> ChatView::contextMenuFor(const QPoint &viewportPos)
{
    const QModelIndex at = indexAt(viewportPos);
    auto owned = std::make_unique<QMenu>(this);
    QMenu &menu = *owned;
    if (const QString link = linkAt(viewportPos); !link.isEmpty() && !ChatItem::isActionLink(link)) {
        QAction *open = menu.addAction(tr("&Open Link"));
        open->setObjectName(QStringLiteral("openLinkAction"));
        open->setEnabled(isOpenableLink(link));
        connect(open, &QAction::triggered, this, [link] { openLink(link); });
        QAction *copy = menu.addAction(tr("Copy &Link Address"));
        copy->setObjectName(QStringLiteral("copyLinkAction"));
        connect(copy, &QAction::triggered, this, [link] { QApplication::clipboard()->setText(link); });
        menu.addSeparator();
    }
    if (at.isValid()) {
        const ChatItem item = m_model->item(at.row());
        if (item.compactionSeq != 0 && !item.compactionUndone) {
            // Only the latest compaction in effect can be undone: an earlier row says so instead of
            // offering an action that can only fail.
            const bool latest = !m_undoableCompaction || m_undoableCompaction() == item.compactionSeq;
            QAction *undo = menu.addAction(latest ? tr("&Undo Compaction")
                                                  : tr("&Undo Compaction (undo the later one first)"));
            undo->setEnabled(latest);
            undo->setObjectName(QStringLiteral("undoCompactionRowAction"));
            connect(undo, &QAction::triggered, this,
                    [this, seq = item.compactionSeq] { Q_EMIT undoCompactionRequested(seq); });
            menu.addSeparator();
        }
        if (!item.dropped.isEmpty()) {
            QAction *show = menu.addAction(tr("Show &Details Not in the Summary…"));
            show->setObjectName(QStringLiteral("showDroppedDetailsAction"));
            connect(show, &QAction::triggered, this,
                    [this, id = item.id] { Q_EMIT droppedDetailsRequested(id); });
            menu.addSeparator();
        }
        addPinActions(menu, item, at, viewportPos);
        QAction *copyMessage = menu.addAction(tr("&Copy Message"));
        ChatItem whole = item; // a long reply: all of its rows
        whole.text = m_model->wholeText(at.row());
        connect(copyMessage, &QAction::triggered, this,
                [text = whole.plainText()] { QApplication::clipboard()->setText(text); });
        if (item.kind == ChatItem::Kind::Tool && item.toolState != ChatItem::ToolState::Running) {
            // What the tool gave back as its card reads it (a read's file text, a search's matches, a
            // command's output): the card's line is all Copy Message has.
            const QString output =
                item.output.isEmpty() ? ToolOutputText::shown(item.result).trimmed() : item.output;
            if (!output.isEmpty()) {
                QAction *copyOutput = menu.addAction(tr("Copy &Output"));
                copyOutput->setObjectName(QStringLiteral("copyToolOutputAction"));
                connect(copyOutput, &QAction::triggered, this,
                        [output] { QApplication::clipboard()->setText(output); });
            }
        }
        const QStringList blocks = PinCandidates::codeBlocks(item.text);
        if (item.kind == ChatItem::Kind::AssistantText && !blocks.isEmpty()) {
            for (qsizetype i = 0; i < blocks.size(); ++i) {
                const QString firstLine = blocks.at(i).section(QLatin1Char('\n'), 0, 0).left(40);
                const QString title = blocks.size() == 1
                                          ? tr("Copy C&ode")
                                          : tr("Copy Code Block %1: %2").arg(i + 1).arg(firstLine);
                QAction *copyCode = menu.addAction(title);
                copyCode->setObjectName(QStringLiteral("copyCodeAction"));
                connect(copyCode, &QAction::triggered, this,
                        [code = blocks.at(i)] { QApplication::clipboard()->setText(code); });
            }
        }
    }
    if (hasSelectedText()) {
        QAction *copySelected = menu.addAction(tr("Copy &Selection"), QKeySequence::Copy);
        connect(copySelected, &QAction::triggered, this, &ChatView::copySelection);
    }
    QAction *selectAllAction = menu.addAction(tr("Select &All"), QKeySequence::SelectAll);
    connect(selectAllAction, &QAction::triggered, this, &QAbstractItemView::selectAll);
    return owned;
}

void ChatView::addPinActions(QMenu &menu, const ChatItem &item, const QModelIndex &at,
                             const QPoint &viewportPos)
{
    // Issue 16: what is pinned travels verbatim after every compaction's summary. The pins are core's
    // (PinCandidates), the same as `run --session ID --pin-item N` makes.
    auto add = [&](const QString &title, const QString &objectName, const Pin &pin) {
        QAction *action = menu.addAction(title);
        action->setObjectName(objectName);
        connect(action, &QAction::triggered, this,
                [this, pin, id = item.id] { Q_EMIT pinRequested(pin, id); });
    };
    if (item.kind == ChatItem::Kind::AssistantText) {
        // The block under the pointer, as the reply wrote it when it can be found there.
        const QString shown = m_delegate->codeBlockAt(at, visualRect(at), viewportPos);
        if (!shown.isEmpty()) {
            QString code = shown;
            for (const QString &block : PinCandidates::codeBlocks(item.text)) {
                if (block.trimmed() == shown.trimmed())
                    code = block;
            }
            add(tr("Pin Code &Block"), QStringLiteral("pinCodeBlockAction"), PinCandidates::codeBlock(code));
        }
        // A long reply goes on over several rows: the message is all of them, not the row under the pointer.
        add(tr("&Pin Message"), QStringLiteral("pinMessageAction"),
            PinCandidates::message(m_model->wholeText(at.row()), false));
    } else if (item.kind == ChatItem::Kind::User) {
        add(tr("&Pin Message"), QStringLiteral("pinMessageAction"), PinCandidates::message(item.text, true));
    } else if (item.kind == ChatItem::Kind::Tool && item.toolState != ChatItem::ToolState::Running) {
        // bash: the output its card shows; any other tool: what it returned, as the model got it. The card's
        // own line only when neither is known.
        add(tr("&Pin Tool Result"), QStringLiteral("pinToolResultAction"),
            PinCandidates::toolResult(item.toolName, item.detail, item.output, item.result,
                                      item.plainText()));
    } else {
        return;
    }
    menu.addSeparator();
}

void ChatView::paintEvent(QPaintEvent *event)
{
    QListView::paintEvent(event);
    if (m_model->rowCount() > 0)
        return;
    // An empty conversation says what to do instead of showing a blank page.
    QPainter painter(viewport());
    QFont title = font();
    title.setPointSizeF(title.pointSizeF() * 1.6);
    title.setBold(true);
    const QRect area = viewport()->rect().adjusted(40, 0, -40, 0);
    const int middle = area.center().y();
    painter.setFont(title);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(area.left(), middle - 60, area.width(), 40), Qt::AlignCenter,
                     tr("What are we building?"));
    painter.setFont(font());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(
        QRect(area.left(), middle - 14, area.width(), 80), Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap,
        tr("Type a prompt below and press Enter. / lists commands, @ completes file names.\n"
           "Compact (Ctrl+Shift+K) summarizes a long conversation; Esc cancels, Ctrl+Shift+S opens "
           "earlier sessions."));
}

void ChatView::resizeEvent(QResizeEvent *event)
{
    // Until the rows are laid out at the new width, what is on screen is no place to remember.
    if (event->oldSize().width() != event->size().width())
        m_widthChangePending = true;
    QListView::resizeEvent(event);
    scheduleDelayedItemsLayout();
}

} // namespace keen

#include "moc_chatview.cpp"
