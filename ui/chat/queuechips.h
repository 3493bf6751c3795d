#pragma once

#include <QStringList>
#include <QWidget>

class QHBoxLayout;

namespace keen {

// Prompts queued while a turn or a compaction runs (reference 6.2), shown as removable chips.
class QueueChips final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueChips)

public:
    explicit QueueChips(QWidget *parent = nullptr);
    ~QueueChips() override;

    void setItems(const QStringList &items);

Q_SIGNALS:
    void removeRequested(int index);

private:
    QHBoxLayout *m_layout;
};

} // namespace keen
