#pragma once

#include "agent/contextbreakdown.h"

#include <QDialog>

class QTableWidget;

namespace keen {

// /context: what fills the context window (reference 3.4).
class ContextDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContextDialog)

public:
    explicit ContextDialog(const ContextBreakdown &breakdown, QWidget *parent = nullptr);
    ~ContextDialog() override;

    QTableWidget *table() const { return m_table; }

private:
    QTableWidget *m_table;
};

} // namespace keen
