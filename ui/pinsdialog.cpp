#include "pinsdialog.h"

#include "agent/agentsession.h"
#include "tokenformat.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTextDocument> // Qt::convertFromPlainText: a tooltip of conversation text is never rich text
#include <QVBoxLayout>

namespace keen {

namespace {

QString kindTitle(Pin::Kind kind)
{
    switch (kind) {
    case Pin::Kind::Note:
        return PinsDialog::tr("Note");
    case Pin::Kind::Message:
        return PinsDialog::tr("Message");
    case Pin::Kind::CodeBlock:
        return PinsDialog::tr("Code block");
    case Pin::Kind::ToolResult:
        return PinsDialog::tr("Tool result");
    case Pin::Kind::Detail:
        return PinsDialog::tr("Original text");
    }
    return {};
}

} // namespace

PinsDialog::PinsDialog(AgentSession *session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_list(new QListWidget(this))
    , m_budget(new QLabel(this))
    , m_note(new QLineEdit(this))
    , m_pinButton(new QPushButton(tr("&Pin Note"), this))
    , m_unpinButton(new QPushButton(tr("&Unpin"), this))
{
    setObjectName(QStringLiteral("pinsDialog"));
    setWindowTitle(tr("Pins"));
    resize(560, 380);
    auto *intro =
        new QLabel(tr("Pinned items are kept verbatim after the summary of every compaction. One the "
                      "conversation does not hold yet, such as a note, reaches the model with the next "
                      "request."),
                   this);
    intro->setWordWrap(true);
    m_list->setObjectName(QStringLiteral("pinsList"));
    m_list->setWordWrap(true);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_budget->setObjectName(QStringLiteral("pinBudgetLabel"));
    m_note->setObjectName(QStringLiteral("pinNoteEdit"));
    m_note->setPlaceholderText(tr("A note every compaction should keep"));
    m_pinButton->setObjectName(QStringLiteral("pinNoteButton"));
    m_unpinButton->setObjectName(QStringLiteral("unpinButton"));

    auto *noteRow = new QHBoxLayout;
    noteRow->addWidget(m_note, 1);
    noteRow->addWidget(m_pinButton);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_unpinButton, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_budget);
    layout->addLayout(noteRow);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_pinButton, &QPushButton::clicked, this, &PinsDialog::pinNote);
    connect(m_note, &QLineEdit::returnPressed, this, &PinsDialog::pinNote);
    connect(m_unpinButton, &QPushButton::clicked, this, &PinsDialog::unpinSelected);
    connect(m_list, &QListWidget::itemSelectionChanged, this,
            [this] { m_unpinButton->setEnabled(!m_list->selectedItems().isEmpty()); });
    connect(m_session, &AgentSession::pinsChanged, this, &PinsDialog::refresh);
    refresh();
}

PinsDialog::~PinsDialog() = default;

bool PinsDialog::addOrExplain(AgentSession *session, const Pin &pin, QWidget *parent)
{
    const Result<void> added = session->addPin(pin);
    if (added)
        return true;
    // Never a silent drop (issue 16): the person reads why, with the numbers.
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Pin"), added.error(), QMessageBox::Ok, parent);
    box->setTextFormat(Qt::PlainText); // the reason quotes the pin
    box->setObjectName(QStringLiteral("pinRefusedDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return false;
}

QString PinsDialog::budgetText(qint64 used, qint64 budget)
{
    return tr("Pins use about %1 of %2 tokens.")
        .arg(TokenFormat::compact(used), TokenFormat::compact(budget));
}

void PinsDialog::refresh()
{
    m_list->clear();
    for (const Pin &pin : m_session->pins()) {
        // A tool result reads as its card showed it; the model gets it as the tool returned it. Named as the
        // chat's pin row and `run --pins` name it: a detail by the line that holds it.
        const QString shown = pin.shownText();
        QString title = kindTitle(pin.kind);
        if (!pin.source.isEmpty())
            title += QStringLiteral(" (") + pin.source + QLatin1Char(')');
        auto *item = new QListWidgetItem(title + QStringLiteral(": ") + pin.headline(), m_list);
        item->setData(Qt::UserRole, pin.id);
        item->setToolTip(Qt::convertFromPlainText(shown.left(2000), Qt::WhiteSpaceNormal));
    }
    const qint64 used = m_session->pinnedTokens();
    const qint64 budget = m_session->pinBudget();
    m_budget->setText(budgetText(used, budget));
    // Over budget (the window shrank since): said in the warning colour, never hidden.
    m_budget->setStyleSheet(used > budget ? QStringLiteral("color: #c0392b; font-weight: bold;") : QString());
    m_unpinButton->setEnabled(!m_list->selectedItems().isEmpty());
}

void PinsDialog::pinNote()
{
    const QString text = m_note->text().trimmed();
    if (text.isEmpty())
        return;
    Pin pin;
    pin.kind = Pin::Kind::Note;
    pin.text = text;
    if (addOrExplain(m_session, pin, this))
        m_note->clear();
}

void PinsDialog::unpinSelected()
{
    for (const QListWidgetItem *item : m_list->selectedItems())
        m_session->removePin(item->data(Qt::UserRole).toString());
}

} // namespace keen
