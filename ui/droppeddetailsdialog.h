#pragma once

#include "conversation/droppeddetail.h"
#include "conversation/pin.h"

#include <QDialog>
#include <QList>

#include <functional>

class QTreeWidget;

namespace keen {

// What a compaction's summary left out (issue 16): the file paths, identifiers, numbers and error lines of
// the compacted part that the summary does not mention, each with Pin the Original, which pins the original
// text around it so the next compaction keeps it verbatim.
class DroppedDetailsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DroppedDetailsDialog)

public:
    // pin: adds the pin, or explains why not; true when pinned.
    using Pinner = std::function<bool(const Pin &pin)>;
    DroppedDetailsDialog(const QList<DroppedDetail> &details, Pinner pin, QWidget *parent = nullptr);
    ~DroppedDetailsDialog() override;

    QTreeWidget *list() const { return m_list; }

private:
    QTreeWidget *m_list;
};

} // namespace keen
