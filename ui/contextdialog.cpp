#include "contextdialog.h"

#include "chat/chatcolors.h"
#include "tokenformat.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keen {

ContextDialog::ContextDialog(const ContextBreakdown &breakdown, QWidget *parent)
    : QDialog(parent)
    , m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("contextDialog"));
    setWindowTitle(tr("Context"));
    auto *layout = new QVBoxLayout(this);
    m_table->setObjectName(QStringLiteral("contextTable"));
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Category"), tr("Tokens"), tr("% of window")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);

    struct Row
    {
        QString name;
        qint64 tokens;
        bool bold;
    };
    QList<Row> rows{
        {tr("System prompt"), breakdown.systemPromptTokens, false},
        {tr("Tool definitions (%1)").arg(breakdown.toolDefinitionCount), breakdown.toolDefinitionTokens,
         false},
        {tr("User messages"), breakdown.userTokens, false},
        {tr("Assistant messages"), breakdown.assistantTokens, false},
        {tr("Tool results"), breakdown.toolResultTokens, false},
        {tr("Total"), breakdown.totalTokens, true},
    };
    if (breakdown.contextWindow > 0)
        rows.append({tr("Free"), breakdown.freeTokens(), false});
    m_table->setRowCount(int(rows.size()));
    for (int i = 0; i < rows.size(); ++i) {
        const Row &row = rows.at(i);
        auto *name = new QTableWidgetItem(row.name);
        auto *tokens = new QTableWidgetItem(QLocale().toString(row.tokens));
        tokens->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        const double percent = breakdown.percentOfWindow(row.tokens);
        auto *share =
            new QTableWidgetItem(breakdown.contextWindow > 0 ? TokenFormat::percent(percent) : tr("N/A"));
        share->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (row.bold) {
            QFont font = name->font();
            font.setBold(true);
            for (QTableWidgetItem *item : {name, tokens, share})
                item->setFont(font);
            if (percent >= 95.0)
                share->setForeground(ChatColors::error(palette()));
            else if (percent >= 80.0)
                share->setForeground(ChatColors::warning(palette()));
        }
        m_table->setItem(i, 0, name);
        m_table->setItem(i, 1, tokens);
        m_table->setItem(i, 2, share);
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_table);
    auto *note = new QLabel(breakdown.note(), this);
    note->setObjectName(QStringLiteral("contextNote"));
    note->setWordWrap(true);
    layout->addWidget(note);
    const TokenUsage &compaction = breakdown.compactionUsage;
    if (compaction.inputTokens > 0 || compaction.outputTokens > 0) {
        // What compacting cost so far; those requests are not part of the context above.
        auto *cost = new QLabel(
            tr("Compaction requests this session: %1 input / %2 output tokens")
                .arg(QLocale().toString(compaction.inputTokens), QLocale().toString(compaction.outputTokens)),
            this);
        cost->setObjectName(QStringLiteral("contextCompactionUsage"));
        cost->setWordWrap(true);
        layout->addWidget(cost);
    }
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(460, 360);
}

ContextDialog::~ContextDialog() = default;

} // namespace keen

#include "moc_contextdialog.cpp"
