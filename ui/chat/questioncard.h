#pragma once

#include "conversation/userquestion.h"

#include <QWidget>

class QComboBox;

namespace keen {

// The inputs of a pending ask_user question: one editable choice per question (the first option is the
// recommendation and preselected; a custom answer may be typed), Submit and Cancel.
class QuestionCard final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QuestionCard)

public:
    QuestionCard(quint64 questionId, const UserQuestionList &questions, QWidget *parent = nullptr);
    ~QuestionCard() override;

    // Questions up to this many characters fit the form's one-line labels in a window of ordinary width;
    // longer ones are also listed whole above the form.
    static constexpr qsizetype WholeQuestionLength = 80;
    // The height of one question's line of the form: the chat's row reserves this much per question, and
    // the form keeps to it, so it sits right under the card's heading (a line's gap was left above it).
    static constexpr int QuestionRowHeight = 34;

    void focusDefault();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

Q_SIGNALS:
    // {answers:[...], cancelled:bool}
    void answered(quint64 questionId, const keen::UserAnswer &answer);

private:
    quint64 m_questionId;
    QList<QComboBox *> m_choices;
};

} // namespace keen
