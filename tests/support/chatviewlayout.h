#pragma once

// What a test of the chat view waits for instead of a fixed sleep: the view has taken in the heights the
// delegate measured (header only: the support library does not link the widgets).
#include "chat/chatdelegate.h"
#include "chat/chatmodel.h"
#include "chat/chatview.h"

#include <QScrollBar>
#include <QStyleOptionViewItem>

#include <optional>

namespace keen::test {

// The view places its rows at the heights the delegate has for them now (measured for a row laid out,
// estimated for one never shown): each row starts where the one above it ends, and the scroll range ends
// where the last row does. A row measured at a new height is placed there only by the view's next layout,
// which a queued signal asks for.
inline bool viewPlacesRowsAtTheirHeights(const ChatView &view, const ChatModel &model)
{
    const QScrollBar *bar = view.verticalScrollBar();
    const ChatDelegate *delegate = view.chatDelegate();
    std::optional<int> next;
    for (int row = 0; row < model.rowCount(); ++row) {
        if (view.isRowHidden(row))
            continue;
        const QModelIndex index = model.index(row);
        // The first call runs a layout still pending, which may scroll.
        const int top = view.visualRect(index).top();
        if (!next)
            next = -bar->value(); // the view scrolls by pixels: the first row starts the contents
        if (top != *next)
            return false;
        *next += delegate->sizeHint(QStyleOptionViewItem(), index).height();
    }
    return !next || bar->maximum() == qMax(0, *next + bar->value() - view.viewport()->height());
}

// Painting what the view shows measures nothing new: the rows on screen are laid out, not estimated, and
// the view places every row at its height. Retried (QTRY_VERIFY) it lets the view lay the rows out again
// after each paint that measured one afresh, as the event loop does on screen.
inline bool viewHasSettled(ChatView &view, const ChatModel &model)
{
    if (!viewPlacesRowsAtTheirHeights(view, model))
        return false;
    view.viewport()->repaint(); // synchronous: the rows on screen are measured
    return viewPlacesRowsAtTheirHeights(view, model);
}

} // namespace keen::test
