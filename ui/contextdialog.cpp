#include "contextdialog.h"

#include "chat/chatcolors.h"
#include "tokenformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace keen {

ContextDialog::ContextDialog(const ContextBreakdown &breakdown, const CompactionPolicy &policy,
                             QWidget *parent)
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
    layout->addWidget(policyControls(policy));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->setObjectName(QStringLiteral("contextButtons"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(480, 500);
}

QWidget *ContextDialog::policyControls(const CompactionPolicy &policy)
{
    auto *group = new QGroupBox(tr("Compaction for this session"), this);
    group->setObjectName(QStringLiteral("contextPolicy"));
    auto *form = new QFormLayout(group);

    m_automatic = new QCheckBox(tr("Compact automatically at"), group);
    m_automatic->setObjectName(QStringLiteral("contextAutoCompact"));
    m_automatic->setChecked(policy.automatic);
    m_threshold = new QSpinBox(group);
    m_threshold->setObjectName(QStringLiteral("contextThreshold"));
    m_threshold->setRange(CompactionPolicy::MinThresholdPercent, CompactionPolicy::MaxThresholdPercent);
    m_threshold->setSingleStep(5);
    m_threshold->setSuffix(tr("% of the input budget"));
    m_threshold->setValue(policy.thresholdPercent);
    m_threshold->setEnabled(policy.automatic);
    m_threshold->setAccessibleName(tr("Automatic compaction threshold"));
    connect(m_automatic, &QCheckBox::toggled, m_threshold, &QWidget::setEnabled);
    auto *when = new QHBoxLayout;
    when->addWidget(m_automatic);
    when->addWidget(m_threshold, 1);
    form->addRow(when);

    m_detail = new QComboBox(group);
    m_detail->setObjectName(QStringLiteral("contextDetail"));
    m_detail->addItem(tr("Brief"), int(CompactionPolicy::Detail::Brief));
    m_detail->addItem(tr("Normal"), int(CompactionPolicy::Detail::Normal));
    m_detail->addItem(tr("Detailed"), int(CompactionPolicy::Detail::Detailed));
    m_detail->setCurrentIndex(m_detail->findData(int(policy.detail)));
    form->addRow(tr("Summary &detail:"), m_detail);

    auto *note = new QLabel(tr("Off: nothing is compacted automatically; a turn that would go over the input "
                               "budget stops and asks you to compact. Compact and /compact always work."),
                            group);
    note->setObjectName(QStringLiteral("contextPolicyNote"));
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    form->addRow(note);
    return group;
}

CompactionPolicy ContextDialog::policy() const
{
    CompactionPolicy policy;
    policy.automatic = m_automatic->isChecked();
    policy.thresholdPercent = m_threshold->value();
    policy.detail = CompactionPolicy::Detail(m_detail->currentData().toInt());
    return policy;
}

ContextDialog::~ContextDialog() = default;

} // namespace keen

#include "moc_contextdialog.cpp"
