#include "droppeddetailsdialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTextDocument> // Qt::convertFromPlainText: a tooltip of conversation text is never rich text
#include <QTreeWidget>
#include <QVBoxLayout>

namespace keen {

namespace {

QString kindTitle(DroppedDetail::Kind kind)
{
    switch (kind) {
    case DroppedDetail::Kind::Path:
        return DroppedDetailsDialog::tr("Path");
    case DroppedDetail::Kind::Identifier:
        return DroppedDetailsDialog::tr("Identifier");
    case DroppedDetail::Kind::Number:
        return DroppedDetailsDialog::tr("Number");
    case DroppedDetail::Kind::Error:
        return DroppedDetailsDialog::tr("Error");
    }
    return {};
}

} // namespace

DroppedDetailsDialog::DroppedDetailsDialog(const QList<DroppedDetail> &details, Pinner pin, QWidget *parent)
    : QDialog(parent)
    , m_list(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("droppedDetailsDialog"));
    setWindowTitle(tr("Not in the Summary"));
    resize(720, 420);
    auto *intro =
        new QLabel(tr("These details of the compacted part are not in its summary. Pin the original "
                      "text around one to keep it verbatim after every compaction."),
                   this);
    intro->setWordWrap(true);
    m_list->setObjectName(QStringLiteral("droppedList"));
    m_list->setColumnCount(3);
    m_list->setHeaderLabels({tr("Kind"), tr("Detail"), QString()});
    m_list->setRootIsDecorated(false);
    m_list->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_list->header()->setStretchLastSection(false);
    for (const DroppedDetail &detail : details) {
        // Read without Markdown emphasis marks; Pin the Original pins the excerpt as it was.
        auto *item = new QTreeWidgetItem(
            m_list, {kindTitle(detail.kind), DroppedDetail::readable(detail.text).left(200)});
        item->setToolTip(1, Qt::convertFromPlainText(DroppedDetail::readable(detail.excerpt).left(2000),
                                                     Qt::WhiteSpaceNormal));
        auto *button = new QPushButton(tr("Pin the Original"), m_list);
        button->setObjectName(QStringLiteral("pinOriginalButton"));
        m_list->setItemWidget(item, 2, button);
        connect(button, &QPushButton::clicked, this, [button, pin, detail] {
            if (pin && pin(detail.originalPin())) {
                button->setText(tr("Pinned"));
                button->setEnabled(false);
            }
        });
    }
    m_list->resizeColumnToContents(0);
    m_list->resizeColumnToContents(2);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
}

DroppedDetailsDialog::~DroppedDetailsDialog() = default;

} // namespace keen
