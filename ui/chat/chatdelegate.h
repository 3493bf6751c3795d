#pragma once

#include <QStyledItemDelegate>

#include <unordered_map>

#include <memory>

class QTextDocument;

namespace keen {

class ChatModel;
struct ChatItem;

// Paints one transcript row. Keeps one laid-out QTextDocument and size per (item id, width) and rebuilds
// only the entry whose revision changed, so a streamed chunk re-lays out only the row it grew.
class ChatDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatDelegate)

public:
    // Height of the strip at the bottom of a pending permission or question card where its buttons sit.
    static constexpr int ActionStripHeight = 46;
    static constexpr int CardMargin = 8;

    ChatDelegate(ChatModel *model, QWidget *view);
    ~ChatDelegate() override;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // The document shown for a row (built or taken from the cache); used by the view for hit tests.
    QTextDocument *document(const QModelIndex &index) const;
    QRect documentRect(const QRect &rowRect, const QModelIndex &index) const;
    void clearCache();
    int cacheSize() const { return int(m_cache.size()); }
    int buildCount() const { return m_builds; } // documents built so far (tests check the cache works)

private:
    struct Entry
    {
        int width = -1;
        quint64 revision = 0;
        std::unique_ptr<QTextDocument> document;
    };

    Entry &entryFor(const QModelIndex &index, int width) const;
    int contentWidth() const;
    void buildDocument(QTextDocument &document, const ChatItem &item) const;
    QString toolHtml(const ChatItem &item) const;
    QString permissionHtml(const ChatItem &item) const;
    QString diffHtml(const ChatItem &item) const;
    QString lineHtml(const QString &color, const QString &text, bool italic = false) const;
    bool isDark() const;

    ChatModel *m_model;
    QWidget *m_view;
    mutable std::unordered_map<quint64, Entry> m_cache;
    mutable int m_builds = 0;
};

} // namespace keen
