#pragma once

#include "agent/contextbreakdown.h"
#include "conversation/compactionpolicy.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QSpinBox;
class QTableWidget;

namespace keen {

// /context: what fills the context window (reference 3.4), and the session's compaction policy (issue 16):
// when automatic compaction fires, or not at all, and how detailed summaries are. OK hands the choice back
// with policy(); Cancel keeps the session's.
class ContextDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContextDialog)

public:
    explicit ContextDialog(const ContextBreakdown &breakdown,
                           const CompactionPolicy &policy = CompactionPolicy(), QWidget *parent = nullptr);
    ~ContextDialog() override;

    QTableWidget *table() const { return m_table; }
    CompactionPolicy policy() const;

private:
    QWidget *policyControls(const CompactionPolicy &policy);

    QTableWidget *m_table;
    QCheckBox *m_automatic = nullptr;
    QSpinBox *m_threshold = nullptr;
    QComboBox *m_detail = nullptr;
};

} // namespace keen
