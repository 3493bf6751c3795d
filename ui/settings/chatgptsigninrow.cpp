#include "settings/chatgptsigninrow.h"

#include "config/chatgptsignin.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace keen {

ChatGptSignInRow::ChatGptSignInRow(QWidget *parent)
    : QWidget(parent)
    , m_button(new QPushButton(tr("Sign in with &ChatGPT"), this))
    , m_signOut(new QPushButton(tr("Sign &Out"), this))
    , m_status(new QLabel(this))
{
    m_button->setObjectName(QStringLiteral("chatGptSignInButton"));
    m_signOut->setObjectName(QStringLiteral("chatGptSignOutButton"));
    m_signOut->setVisible(false);
    m_status->setObjectName(QStringLiteral("chatGptSignInStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_button);
    layout->addWidget(m_signOut);
    layout->addWidget(m_status, 1);
    connect(m_button, &QPushButton::clicked, this, [this] {
        ++m_query; // a stored-sign-in answer still on its way must not overwrite what follows
        m_status->setText(tr("Finish signing in with ChatGPT in your browser..."));
        Q_EMIT signInRequested();
    });
    connect(m_signOut, &QPushButton::clicked, this, [this] {
        const quint64 query = ++m_query;
        m_signOut->setEnabled(false);
        ChatGptSignIn::signOutAsync(this, [this, query](const QString &error) {
            m_signOut->setEnabled(true);
            if (query != m_query)
                return;
            m_status->setText(error.isEmpty() ? tr("Signed out of ChatGPT.") : error);
            if (error.isEmpty())
                setSignedIn(false);
        });
    });
}

ChatGptSignInRow::~ChatGptSignInRow() = default;

void ChatGptSignInRow::lookUp()
{
    const quint64 query = ++m_query;
    ChatGptSignIn::storedAsync(this, [this, query](bool stored) {
        if (query != m_query)
            return;
        m_status->setText(stored ? tr("Signed in with ChatGPT.") : QString());
        setSignedIn(stored);
    });
}

void ChatGptSignInRow::showResult(bool ok, const QString &message)
{
    ++m_query;
    m_status->setText(message);
    // A failed attempt does not undo a sign-in stored before it.
    if (ok)
        setSignedIn(true);
}

void ChatGptSignInRow::setSignedIn(bool signedIn)
{
    if (signedIn == m_signedIn)
        return;
    m_signedIn = signedIn;
    m_signOut->setVisible(signedIn);
    Q_EMIT signedInChanged(signedIn);
}

} // namespace keen

#include "moc_chatgptsigninrow.cpp"
