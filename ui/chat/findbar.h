#pragma once

#include <QFrame>
#include <QTimer>

class QLabel;
class QLineEdit;
class QToolButton;

namespace keen {

// The bar of Find in Conversation (Ctrl+F): a text field, "3 of 17", previous and next, close. Typing
// searches after a short pause; Enter and Shift+Enter go to the next and previous match, Esc closes.
class FindBar final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FindBar)

public:
    static constexpr int DebounceMs = 150;

    explicit FindBar(QWidget *parent = nullptr);
    ~FindBar() override;

    QString text() const;
    QLineEdit *lineEdit() const { return m_edit; }
    // current: the match shown (from 0, -1 for none); total: how many there are (capped when capped).
    void setResult(int current, int total, bool capped = false);
    QString resultText() const;
    enum class Focus { Take, Leave };
    // Shows the bar with text (the field's own text when empty), focused and selected, and searches.
    // Leave keeps the focus where it is (a search hit opened from the sessions sidebar).
    void open(const QString &text = QString(), Focus focus = Focus::Take);
    // Hides the bar (Esc in it, its close button, Esc in the input while nothing runs) and says closed().
    void close();

Q_SIGNALS:
    void searchChanged(const QString &text);
    void nextRequested();
    void previousRequested();
    void closed();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    // A search typed but not run yet (the pause not over) runs now.
    void flush();

    QLineEdit *m_edit;
    QLabel *m_result;
    QToolButton *m_previous;
    QToolButton *m_next;
    QToolButton *m_close;
    QTimer m_debounce;
};

} // namespace keen
