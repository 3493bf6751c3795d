#include "chat/findbar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
#include <QToolButton>

namespace keen {

FindBar::FindBar(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("findBar"));
    setAccessibleName(tr("Find in conversation"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 2, 8, 2);
    layout->setSpacing(4);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("findField"));
    m_edit->setPlaceholderText(tr("Find in conversation"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("findResult"));
    m_result->setMinimumWidth(fontMetrics().horizontalAdvance(tr("10000+ matches")) + 8);
    auto button = [this](QStyle::StandardPixmap icon, const QString &tip, const char *name) {
        auto *tool = new QToolButton(this);
        tool->setObjectName(QLatin1String(name));
        tool->setIcon(style()->standardIcon(icon, nullptr, this));
        tool->setToolTip(tip);
        tool->setAccessibleName(tip);
        tool->setAutoRaise(true);
        return tool;
    };
    m_previous = button(QStyle::SP_ArrowUp, tr("Previous match (Shift+Enter, Shift+F3)"), "findPrevious");
    m_next = button(QStyle::SP_ArrowDown, tr("Next match (Enter, F3)"), "findNext");
    m_close = button(QStyle::SP_DialogCloseButton, tr("Close (Esc)"), "findClose");
    // The style's close icon is drawn dark whatever the palette (invisible in dark mode): a glyph in the
    // text colour instead.
    m_close->setIcon(QIcon());
    m_close->setText(QStringLiteral("✕"));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_result);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    layout->addWidget(m_close);

    m_debounce.setSingleShot(true);
    m_debounce.setInterval(DebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, [this] { Q_EMIT searchChanged(text()); });
    connect(m_edit, &QLineEdit::textChanged, this, [this] { m_debounce.start(); });
    connect(m_previous, &QToolButton::clicked, this, [this] {
        flush();
        Q_EMIT previousRequested();
    });
    connect(m_next, &QToolButton::clicked, this, [this] {
        flush();
        Q_EMIT nextRequested();
    });
    connect(m_close, &QToolButton::clicked, this, &FindBar::close);
    setResult(-1, 0);
    hide();
}

FindBar::~FindBar() = default;

QString FindBar::text() const
{
    return m_edit->text();
}

void FindBar::setResult(int current, int total, bool capped)
{
    if (text().isEmpty())
        m_result->clear();
    else if (total == 0)
        m_result->setText(tr("No matches"));
    else if (current < 0) // none chosen yet
        m_result->setText((capped ? tr("%1+ matches") : tr("%1 matches")).arg(total));
    else if (capped)
        m_result->setText(tr("%1 of %2+").arg(current + 1).arg(total));
    else
        m_result->setText(tr("%1 of %2").arg(current + 1).arg(total));
    m_previous->setEnabled(total > 0);
    m_next->setEnabled(total > 0);
}

QString FindBar::resultText() const
{
    return m_result->text();
}

void FindBar::open(const QString &text, Focus focus)
{
    if (!text.isEmpty())
        m_edit->setText(text);
    show();
    if (focus == Focus::Take)
        m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
    m_debounce.stop();
    Q_EMIT searchChanged(this->text()); // the conversation may have changed since the bar was last open
}

void FindBar::flush()
{
    if (m_debounce.isActive()) {
        m_debounce.stop();
        Q_EMIT searchChanged(text());
    }
}

void FindBar::close()
{
    m_debounce.stop();
    hide();
    Q_EMIT closed();
}

bool FindBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_edit && event->type() == QEvent::ShortcutOverride) {
        // Enter and Esc belong to the bar while it has the focus, not to the window's shortcuts.
        const int key = static_cast<QKeyEvent *>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Escape) {
            event->accept();
            return true;
        }
    }
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            flush();
            if (key->modifiers() & Qt::ShiftModifier)
                Q_EMIT previousRequested();
            else
                Q_EMIT nextRequested();
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            close();
            return true;
        }
    }
    return QFrame::eventFilter(watched, event);
}

} // namespace keen

#include "moc_findbar.cpp"
