#pragma once

#include "chat/incrementalmarkdown.h"
#include "chat/lrucache.h"
#include "chat/stackedtext.h"

#include <QSet>
#include <QStyledItemDelegate>
#include <QTimer>

#include <memory>
#include <optional>

class QTextDocument;

namespace keen {

class ChatModel;
struct ChatItem;

// Paints one transcript row. Keeps laid-out documents for the most recently shown rows and a size per row in
// two bounded least-recently-used caches, keyed by item id and checked against the item's revision. Markdown
// rows render incrementally (IncrementalMarkdown), so a streamed chunk re-parses only the open tail of the
// row it grew. A row never shown gets an estimated height from its text; painting it lays it out and corrects
// the estimate, so opening a long session lays out only what is on screen.
class ChatDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatDelegate)

public:
    // Height of the strip at the bottom of a pending permission or question card where its buttons sit.
    static constexpr int ActionStripHeight = 46;
    static constexpr int CardMargin = 8;
    static constexpr int MaxCachedDocuments = 200;
    static constexpr int MaxCachedSizes = 50000;
    // A row whose Markdown grew by more than this since it was last rendered (a burst of a fast stream, the
    // rest of a reply flushed at the end of its turn) is rendered this much further per turn of the event
    // loop, so no paint or layout parses more than about this much new text; a 0 ms timer goes on with it.
    static constexpr int RenderStepChars = 2500;

    // Text selected with the mouse, from (firstRow, firstPosition) to (lastRow, lastPosition), positions
    // as StackedText counts them in each row; rows between are selected whole.
    struct TextSelection
    {
        int firstRow = -1;
        int firstPosition = 0;
        int lastRow = -1;
        int lastPosition = 0;
        bool isEmpty() const
        {
            return firstRow < 0 || (firstRow == lastRow && firstPosition == lastPosition);
        }
        // The positions selected in row ([0, 0) when none of it is).
        std::pair<int, int> rangeIn(int row) const;
    };

    ChatDelegate(ChatModel *model, QWidget *view);
    ~ChatDelegate() override;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    QRect documentRect(const QRect &rowRect, const QModelIndex &index) const;
    // The code block of a Markdown row under viewportPos (rowRect: the row's rectangle), or empty.
    QString codeBlockAt(const QModelIndex &index, const QRect &rowRect, const QPoint &viewportPos) const;
    void clearCache();
    // The text position under viewportPos in a row as it is shown now (rowRect: the row's rectangle). width:
    // the text width to measure at, 0 for the view's; the view passes the width before a resize, so the
    // rows' layout is the one still on screen.
    int textPositionAt(const QModelIndex &index, const QRect &rowRect, const QPoint &viewportPos,
                       int width = 0) const;
    // The target of a Markdown link under viewportPos ("https://..."), empty when there is none.
    QString linkAt(const QModelIndex &index, const QRect &rowRect, const QPoint &viewportPos) const;
    // The plain text a row shows between two positions; the word around a position.
    QString textBetween(const QModelIndex &index, int from, int to) const;
    std::pair<int, int> wordAround(const QModelIndex &index, int position) const;
    std::pair<int, int> blockAround(const QModelIndex &index, int position) const;
    // Occurrence number occurrence of needle in what the row shows (ignoring case), as positions. Lays the
    // whole row out, and tells the view when that corrects its estimated height.
    std::optional<std::pair<int, int>> findInRow(const QModelIndex &index, const QString &needle,
                                                 int occurrence) const;
    // The line of text position is on, in viewport coordinates (rowRect: the row's rectangle; width as for
    // textPositionAt).
    QRect textLineRect(const QModelIndex &index, const QRect &rowRect, int position, int width = 0) const;
    // The width rows' text is laid out at in the view as it is now.
    int contentWidth() const;
    void setTextSelection(const TextSelection &selection) { m_selection = selection; }
    const TextSelection &textSelection() const { return m_selection; }
    // The view says when it lays its rows out: a height that changes then is taken in by that layout.
    void setViewLayingOut(bool layingOut) { m_viewLayingOut = layingOut; }
    // For tests: what a row shows as plain text (laid out on demand), and how the caches work.
    QString shownText(const QModelIndex &index) const;
    IncrementalMarkdown::Counters markdownCounters(const QModelIndex &index) const;
    int cacheSize() const { return int(m_documents.size()); }
    int sizeCacheSize() const { return int(m_sizes.size()); }
    int buildCount() const { return m_builds; }       // documents (re)built or updated so far
    int estimateCount() const { return m_estimates; } // heights estimated without a layout
    // Rows shown with less than their whole text, rendered further on the next turns of the event loop.
    bool isCatchingUp() const { return !m_behind.isEmpty(); }
    // For tests: what a row's Markdown rendering holds now, without rendering any further (nullptr when the
    // row has none).
    const IncrementalMarkdown *renderedMarkdown(const QModelIndex &index) const;

private:
    struct Entry
    {
        int width = -1;
        quint64 revision = 0;
        std::unique_ptr<QTextDocument> document;       // rows other than Markdown
        std::unique_ptr<IncrementalMarkdown> markdown; // assistant text and info
        qreal height() const;
    };
    struct SizeEntry
    {
        int width = -1;
        quint64 revision = 0;
        int height = 0;
        bool exact = false;
    };

    // Paint and sizeHint take what a bounded render step gives (Bounded); whatever needs the row's whole text
    // (its plain text, a code block under the mouse) renders it all (Whole).
    enum class Render { Bounded, Whole };
    Entry &entryFor(const QModelIndex &index, int width, Render render = Render::Bounded) const;
    static StackedText stackOf(const Entry &entry);
    // A row laid out (painted, or whole for a search): its measured height replaces the estimate, and the
    // view hears when that moves the rows below.
    void noteLaidOutHeight(const QModelIndex &index, const Entry &entry, int width) const;
    void catchUp();
    int rowHeight(const ChatItem &item, qreal documentHeight) const;
    int estimatedDocumentHeight(const ChatItem &item, int width) const;
    void buildDocument(QTextDocument &document, const ChatItem &item) const;
    QString toolHtml(const ChatItem &item) const;
    QString permissionHtml(const ChatItem &item) const;
    QString diffHtml(const ChatItem &item) const;
    QString lineHtml(const QString &color, const QString &text, bool italic = false) const;
    bool isDark() const;

    ChatModel *m_model;
    QWidget *m_view;
    mutable LruCache<quint64, Entry> m_documents{MaxCachedDocuments};
    mutable LruCache<quint64, SizeEntry> m_sizes{MaxCachedSizes};
    mutable int m_builds = 0;
    mutable int m_estimates = 0;
    mutable QSet<quint64> m_behind;   // ids of rows shown with less than their text
    mutable bool m_stepTaken = false; // a bounded render step ran in this turn of the event loop
    mutable QTimer m_catchUp;
    // Rows whose height changed when asked outside a layout of the view (a visualRect, a paint): the view
    // still counts their old height in its scroll range until told (found when tried: the end of a long
    // table below the end of the range).
    mutable QSet<quint64> m_resized;
    bool m_viewLayingOut = false;
    TextSelection m_selection;
};

} // namespace keen
