#include "chat/questioncard.h"

#include "chat/elidinglabel.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace keen {

QuestionCard::QuestionCard(quint64 questionId, const UserQuestionList &questions, QWidget *parent)
    : QWidget(parent)
    , m_questionId(questionId)
{
    setObjectName(QStringLiteral("questionCard"));
    setAccessibleName(tr("Question from the agent"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(20, 0, 20, 12);
    outer->addStretch();
    // Each answer beside its question (found when tried: "Answer 1:", "Answer 2:" under a list of questions
    // left the person to count). A long question is elided there (its tooltip and the list above the form
    // show it whole).
    auto *grid = new QGridLayout;
    grid->setColumnStretch(2, 1); // the room left over goes after the answers
    grid->setVerticalSpacing(0);  // each line is QuestionRowHeight high, as the chat's row counts it
    outer->addLayout(grid);
    int number = 1;
    for (const UserQuestion &question : questions) {
        const QString &text = question.question;
        auto *choice = new QComboBox(this);
        choice->setEditable(true);
        choice->setObjectName(QStringLiteral("questionChoice%1").arg(number));
        choice->setAccessibleName(text);
        choice->addItems(question.options);
        choice->setCurrentIndex(0);
        choice->setMinimumWidth(fontMetrics().averageCharWidth() * 24);
        choice->installEventFilter(this); // it has the focus and hands keys to its line edit itself
        auto *label = new ElidingLabel(this);
        label->setObjectName(QStringLiteral("questionLabel%1").arg(number));
        label->setText(text.isEmpty() ? tr("Answer %1:").arg(number) : text);
        label->setBuddy(choice);
        grid->addWidget(label, number - 1, 0);
        grid->addWidget(choice, number - 1, 1);
        grid->setRowMinimumHeight(number - 1, QuestionRowHeight);
        ++number;
        m_choices.append(choice);
    }
    auto *row = new QHBoxLayout;
    auto *submit = new QPushButton(tr("&Submit"), this);
    submit->setObjectName(QStringLiteral("questionSubmitButton"));
    submit->setDefault(true);
    auto *cancel = new QPushButton(tr("&Cancel"), this);
    cancel->setObjectName(QStringLiteral("questionCancelButton"));
    row->addWidget(submit);
    row->addWidget(cancel);
    row->addStretch();
    outer->addLayout(row);
    connect(submit, &QPushButton::clicked, this, [this] {
        UserAnswer answer;
        for (QComboBox *choice : std::as_const(m_choices))
            answer.answers.append(choice->currentText());
        Q_EMIT answered(m_questionId, answer);
    });
    connect(cancel, &QPushButton::clicked, this,
            [this] { Q_EMIT answered(m_questionId, UserAnswer::cancel()); });
}

QuestionCard::~QuestionCard() = default;

bool QuestionCard::eventFilter(QObject *watched, QEvent *event)
{
    // Found when tried: Ctrl+C in an answer's box, with nothing selected there, was taken as Copy and did
    // nothing. As from the input, it cancels the question (reference 6.3: Ctrl+C cancels ask_user first).
    auto *choice = qobject_cast<QComboBox *>(watched);
    const QLineEdit *edit = choice ? choice->lineEdit() : nullptr;
    const bool keyEvent = event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress;
    if (edit && keyEvent && static_cast<QKeyEvent *>(event)->matches(QKeySequence::Copy) &&
        !edit->hasSelectedText()) {
        event->accept(); // not the window's Stop: that one stops the turn
        if (event->type() == QEvent::KeyPress)
            Q_EMIT answered(m_questionId, UserAnswer::cancel());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void QuestionCard::focusDefault()
{
    if (!m_choices.isEmpty())
        m_choices.first()->setFocus(Qt::OtherFocusReason);
}

} // namespace keen

#include "moc_questioncard.cpp"
