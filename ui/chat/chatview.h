#pragma once

#include "conversation/permissionrequest.h"
#include "conversation/pin.h"
#include "conversation/userquestion.h"

#include <QElapsedTimer>
#include <QListView>
#include <QTimer>

#include <functional>
#include <memory>

class QMenu;

namespace keen {

class ChatDelegate;
class ChatModel;
struct ChatItem;

// The transcript: one QListView over ChatModel with ChatDelegate. Follows new output only when the user is
// already at the bottom. A drag selects text (within a row or across rows, scrolling at the edges), a
// double click a word, a triple click its paragraph; a plain click selects the row. Pending permission and
// question cards get their buttons as index widgets on their own row. Reasoning rows hide when show-thinking
// is off and toggle open on click, Enter or Space.
class ChatView final : public QListView
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatView)

public:
    explicit ChatView(ChatModel *model, QWidget *parent = nullptr);
    ~ChatView() override;

    ChatModel *chatModel() const { return m_model; }
    ChatDelegate *chatDelegate() const { return m_delegate; }
    void setShowThinking(bool show);
    bool showThinking() const { return m_showThinking; }
    bool isFollowing() const { return m_follow; }
    bool hasSelectedText() const;
    // Some of the selected rows or text is on screen (a selection scrolled away is not what Ctrl+C means).
    bool isSelectionInView() const;
    void copySelection() const;
    // What a drag or a double click selected, as plain text (empty when no text is selected).
    QString selectedText() const;
    void clearTextSelection();
    // Find in the conversation: selects occurrence number occurrence of needle in row and scrolls its line
    // to the middle of the view. False when the row does not show that many (it is scrolled to instead).
    bool showMatch(int row, const QString &needle, int occurrence);
    // One page up (-1) or down (+1), by pixels as PageUp and PageDown in the view do.
    void scrollPage(int direction);
    void selectAll() override;
    // Focuses the first button of the pending permission (or question) card, if any.
    bool focusPendingCard();
    // The context menu for a point of the viewport (what a right click opens).
    std::unique_ptr<QMenu> contextMenuFor(const QPoint &viewportPos);
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    // QListView keeps a row's height in 16 bits: a row taller than 32,767 pixels (a pasted log of a few
    // thousand lines, a long file in a reply) would be painted, hit and selected only to there. Its rect
    // here is as tall as the delegate lays it out.
    QRect visualRect(const QModelIndex &index) const override;
    // Lays the rows out again keeping what is read where it was (see ScrollAnchor).
    void doItemsLayout() override;
    // Which compaction can be undone now (0: none); only its row offers an enabled Undo Compaction.
    void setUndoableCompaction(std::function<quint64()> undoable)
    {
        m_undoableCompaction = std::move(undoable);
    }

Q_SIGNALS:
    void permissionDecided(quint64 requestId, keen::PermissionDecision decision);
    void questionAnswered(quint64 questionId, const keen::UserAnswer &answer);
    void escapePressed();
    void interruptRequested(); // Ctrl+C with nothing selected
    // "Undo Compaction" on the row where that compaction_applied happened (issue 16).
    void undoCompactionRequested(quint64 appliedSeq);
    // "Pin Message", "Pin Code Block", "Pin Tool Result" on the row itemId (issue 16).
    void pinRequested(const keen::Pin &pin, quint64 itemId);
    // A click on (or "Show Details Not in the Summary" of) a compaction's dropped-details row (issue 16).
    void droppedDetailsRequested(quint64 itemId);
    // Ctrl+wheel: steps of zoom, positive to enlarge.
    void zoomRequested(int steps);
    // "↻ Try again" on the error a turn ended with (a click, or Enter on its row).
    void retryRequested();
    // A permission or question card that had the keyboard focus was settled (answered, or cancelled with
    // its turn): the view holds the focus until the panel gives it back to the input.
    void settledCardHadFocus();

protected:
    bool event(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    std::function<quint64()> m_undoableCompaction;
    void onRowsInserted(int first, int last);
    void layOutAfterRowsChanged();
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight);
    void attachCard(int row);
    void applyRowVisibility(int row);
    // PageUp/PageDown, Home/End (with or without Ctrl) and the arrows inside a tall row: scrolls and returns
    // true, or leaves the key to QListView.
    bool scrollByKey(QKeyEvent *event);
    void addPinActions(QMenu &menu, const ChatItem &item, const QModelIndex &at, const QPoint &viewportPos);
    // Moves the moving end of the text selection to the text under viewportPos (clamped into the view).
    void extendTextSelection(const QPoint &viewportPos);
    void applyTextSelection();
    bool onLongMessageToggle(const QModelIndex &at, const QPoint &viewportPos) const;
    void updatePointerShape(const QPoint &viewportPos);
    QString linkAt(const QPoint &viewportPos) const;
    // Web and mail links only: a model's file: or custom-scheme link is not handed to the desktop.
    static bool isOpenableLink(const QString &href);
    static bool openLink(const QString &href); // in the browser or mail program
    void rememberScrollAnchor();

    // What a person reading further up is looking at, pinned to the view while rows are measured for the
    // first time (their heights were estimates), rows go in above or the width changes: the row at the top
    // edge. Its top when it starts in view or covers all of it; else its bottom, so the rows under it (a
    // match just found, the text being read) stay where they are even when this row's own height changes.
    struct ScrollAnchor
    {
        quint64 itemId = 0;
        bool bottomEdge = false;
        int y = 0; // of that edge, in viewport coordinates
        bool valid = false;
        // A row reaching above the view: the text position at the top of the view, the y of its line and
        // the text width then, so a new width keeps the same line on top.
        int textPosition = -1;
        int lineY = 0;
        int width = 0;
    };

    ChatModel *m_model;
    ChatDelegate *m_delegate;
    bool m_showThinking = true;
    bool m_follow = true;
    ScrollAnchor m_scrollAnchor;
    bool m_layingOut = false;
    bool m_widthChangePending = false; // resized, not laid out yet
    // The text selection: where the drag began (anchor) and where the pointer is (focus), row and position.
    int m_anchorRow = -1;
    int m_anchorPosition = 0;
    int m_focusRow = -1;
    int m_focusPosition = 0;
    bool m_pressed = false;       // the left button went down on the conversation
    bool m_selectingText = false; // ... and has moved far enough to select text, or double clicked
    QPoint m_pressPoint;
    QString m_pressLink; // the link a left press landed on: a click (no drag) opens it
    QPoint m_lastDragPoint;
    QTimer m_edgeScroll;              // scrolls while a drag holds the pointer above or below the view
    QElapsedTimer m_sinceDoubleClick; // a press soon after a double click, in the same place: a triple click
    QPoint m_doubleClickPoint;
    int m_zoomWheel = 0; // Ctrl+wheel angle not yet a whole zoom step (touchpads send small deltas)
};

} // namespace keen
