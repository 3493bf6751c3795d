#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace keen {

// The ChatGPT sign-in for Codex as the settings dialog and the first-run setup offer it: a Sign in button and
// a line saying how the sign-in stands. The owner runs the sign-in (signInRequested, MainWindow with
// ChatGptSignIn) and reports its end through showResult; a sign-in stored earlier is looked up off the GUI
// thread.
class ChatGptSignInRow final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatGptSignInRow)

public:
    explicit ChatGptSignInRow(QWidget *parent = nullptr);
    ~ChatGptSignInRow() override;

    bool isSignedIn() const { return m_signedIn; }
    // Asks whether a sign-in is stored; signedInChanged follows the answer.
    void lookUp();

public Q_SLOTS:
    void showResult(bool ok, const QString &message);

Q_SIGNALS:
    void signInRequested();
    void signedInChanged(bool signedIn);

private:
    void setSignedIn(bool signedIn);

    QPushButton *m_button;
    QPushButton *m_signOut; // shown while signed in
    QLabel *m_status;
    bool m_signedIn = false;
    quint64 m_query = 0; // only the newest answer counts
};

} // namespace keen
