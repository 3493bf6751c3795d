#include "chat/compactionreviewdialog.h"

#include "chat/replacedmessagesmodel.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QVBoxLayout>

namespace keen {

CompactionReviewDialog::CompactionReviewDialog(const QString &summary, const MessageList &replaced,
                                               QWidget *parent)
    : QDialog(parent)
    , m_original(summary)
    , m_summary(new QPlainTextEdit(this))
    , m_replaced(new QListView(this))
    , m_focus(new QLineEdit(this))
{
    setObjectName(QStringLiteral("compactionReviewDialog"));
    setWindowTitle(tr("Review Compaction"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("This summary will replace the conversation. Press Edit to change it: the "
                                "text here is what is applied and saved."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    auto *left = new QWidget(splitter);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    auto *replacedLabel = new QLabel(replaced.size() == 1 ? tr("Replaces 1 message:")
                                                          : tr("Replaces %1 messages:").arg(replaced.size()),
                                     left);
    replacedLabel->setObjectName(QStringLiteral("reviewReplacedLabel"));
    leftLayout->addWidget(replacedLabel);
    m_replaced->setObjectName(QStringLiteral("reviewReplaced"));
    // One line per message, all the same height: the view lays out only what it shows.
    m_replaced->setUniformItemSizes(true);
    m_replaced->setAlternatingRowColors(true);
    m_replaced->setTextElideMode(Qt::ElideRight);
    m_replaced->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // a long row ends in "…" instead
    m_replaced->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_replaced->setModel(new ReplacedMessagesModel(replaced, m_replaced));
    leftLayout->addWidget(m_replaced);

    auto *right = new QWidget(splitter);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto *summaryRow = new QHBoxLayout;
    auto *summaryLabel = new QLabel(tr("&Summary (Markdown):"), right);
    summaryLabel->setBuddy(m_summary);
    m_edit = new QPushButton(right);
    m_edit->setObjectName(QStringLiteral("reviewEdit"));
    m_edit->setAutoDefault(false);
    summaryRow->addWidget(summaryLabel, 1);
    summaryRow->addWidget(m_edit);
    rightLayout->addLayout(summaryRow);
    m_summary->setObjectName(QStringLiteral("reviewSummary"));
    m_summary->setParent(right);
    m_summary->setPlainText(summary);
    m_summary->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_summary->setAccessibleName(tr("Summary"));
    // Read-only until Edit: a key pressed by mistake while reading (or meant for a button) cannot change
    // what is applied. Selecting and copying work either way.
    m_summary->setReadOnly(true);
    rightLayout->addWidget(m_summary);
    splitter->addWidget(left);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);

    auto *again = new QHBoxLayout;
    m_focus->setObjectName(QStringLiteral("reviewFocus"));
    m_focus->setPlaceholderText(tr("New focus for the summary (optional)"));
    m_focus->setAccessibleName(tr("Focus"));
    m_regenerate = new QPushButton(tr("&Regenerate"), this);
    m_regenerate->setObjectName(QStringLiteral("reviewRegenerate"));
    m_regenerate->setToolTip(tr("Run the compaction again with this focus; nothing is applied meanwhile"));
    again->addWidget(m_focus, 1);
    again->addWidget(m_regenerate);
    layout->addLayout(again);

    auto *buttons = new QDialogButtonBox(this);
    m_accept = buttons->addButton(tr("&Accept"), QDialogButtonBox::AcceptRole);
    m_accept->setObjectName(QStringLiteral("reviewAccept"));
    QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setObjectName(QStringLiteral("reviewCancel"));
    // No default button: Return while reading (or meaning a new line in the read-only summary) applies
    // nothing. Accepting takes a click, Alt+A or Ctrl+Return, as committing does in review tools.
    for (QPushButton *button : {m_accept, m_regenerate, cancel})
        button->setAutoDefault(false);
    m_accept->setToolTip(tr("Apply this summary (Ctrl+Return)"));
    auto *acceptShortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
    connect(acceptShortcut, &QShortcut::activated, m_accept, &QPushButton::click);
    layout->addWidget(buttons);

    // An empty summary is never applied (S27).
    connect(m_summary, &QPlainTextEdit::textChanged, this,
            [this] { m_accept->setEnabled(!m_summary->toPlainText().trimmed().isEmpty()); });
    m_accept->setEnabled(!summary.trimmed().isEmpty());
    connect(m_accept, &QPushButton::clicked, this, [this] {
        m_settled = true;
        Q_EMIT summaryAccepted(this->summary());
        accept();
    });
    connect(m_regenerate, &QPushButton::clicked, this, [this] {
        const auto regenerate = [this] {
            m_settled = true;
            Q_EMIT regenerateRequested(m_focus->text().trimmed());
            accept();
        };
        if (isEdited())
            confirmDiscard(tr("Regenerate the summary and discard your edits?"),
                           tr("Discard Edits and Regenerate"), regenerate);
        else
            regenerate();
    });
    connect(m_focus, &QLineEdit::returnPressed, m_regenerate, &QPushButton::click);
    connect(m_edit, &QPushButton::clicked, this, [this] { setEditing(m_summary->isReadOnly()); });
    setEditing(false);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Cancel, Esc and closing the window all mean the same: nothing is applied.
    connect(this, &QDialog::rejected, this, [this] {
        if (!std::exchange(m_settled, true))
            Q_EMIT reviewCancelled();
    });
    resize(900, 560);
}

CompactionReviewDialog::~CompactionReviewDialog() = default;

void CompactionReviewDialog::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    // The button box makes its first Accept button the default when it is shown; here Return applies
    // nothing (see the constructor).
    m_accept->setDefault(false);
}

void CompactionReviewDialog::reject()
{
    // Cancel, Esc and the window's close button all come here: edits are not dropped without asking.
    if (m_settled || !isEdited()) {
        QDialog::reject();
        return;
    }
    confirmDiscard(tr("Cancel the compaction and discard your edits of the summary?"), tr("Discard Edits"),
                   [this] { QDialog::reject(); });
}

void CompactionReviewDialog::confirmDiscard(const QString &question, const QString &discardLabel,
                                            const std::function<void()> &discard)
{
    auto *box = new QMessageBox(QMessageBox::Question, windowTitle(), question, QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("reviewDiscardEdits"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *discardButton = box->addButton(discardLabel, QMessageBox::DestructiveRole);
    QPushButton *keep = box->addButton(tr("Keep Editing"), QMessageBox::RejectRole);
    box->setDefaultButton(keep);
    box->setEscapeButton(keep);
    connect(box, &QMessageBox::finished, this, [box, discardButton, discard] {
        if (box->clickedButton() == discardButton)
            discard();
    });
    box->open();
}

QString CompactionReviewDialog::summary() const
{
    return m_summary->toPlainText().trimmed();
}

bool CompactionReviewDialog::isEdited() const
{
    return summary() != m_original.trimmed();
}

bool CompactionReviewDialog::isEditing() const
{
    return !m_summary->isReadOnly();
}

void CompactionReviewDialog::setEditing(bool editing)
{
    if (!editing && isEdited())
        m_summary->setPlainText(m_original); // Revert: back to the summary as it streamed
    m_summary->setReadOnly(!editing);
    m_edit->setText(editing ? tr("Re&vert Edits") : tr("&Edit"));
    m_edit->setToolTip(editing ? tr("Put back the summary as the model wrote it and stop editing")
                               : tr("Change the summary before it is applied"));
    m_summary->setFocus();
    if (editing)
        m_summary->moveCursor(QTextCursor::End);
}

} // namespace keen

#include "moc_compactionreviewdialog.cpp"
