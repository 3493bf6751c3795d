#pragma once

#include <QStyledItemDelegate>

namespace keen {

// Paints the session browser's rows: group headers as small captions; sessions as a title with the time on
// the right and, below, the last message or the search snippet with its matches emphasised.
class SessionItemDelegate final : public QStyledItemDelegate
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SessionItemDelegate)

public:
    explicit SessionItemDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    void updateEditorGeometry(QWidget *editor, const QStyleOptionViewItem &option,
                              const QModelIndex &index) const override;
};

} // namespace keen
