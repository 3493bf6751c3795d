#pragma once

#include "conversation/message.h"

#include <QAbstractListModel>

namespace keen {

// The messages a compaction replaces, one row each, for the review dialog. Rows are described when a view
// asks for them, so a review of 10,000 messages opens as fast as one of ten (building every row up front
// stalled the window for about 0.6 s).
class ReplacedMessagesModel final : public QAbstractListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReplacedMessagesModel)

public:
    explicit ReplacedMessagesModel(MessageList replaced, QObject *parent = nullptr);
    ~ReplacedMessagesModel() override;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // One row: "You: first line…", "Assistant: … (3 tool calls)", "Pinned: 2 items, …".
    static QString describe(const Message &message);

private:
    MessageList m_replaced;
};

} // namespace keen
