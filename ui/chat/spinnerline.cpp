#include "chat/spinnerline.h"

#include "chat/elidinglabel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QRandomGenerator>

#include <algorithm>

namespace keen {

namespace {
const QStringList &frames()
{
    static const QStringList list{QStringLiteral("⠋"), QStringLiteral("⠙"), QStringLiteral("⠹"),
                                  QStringLiteral("⠸"), QStringLiteral("⠼"), QStringLiteral("⠴"),
                                  QStringLiteral("⠦"), QStringLiteral("⠧"), QStringLiteral("⠇"),
                                  QStringLiteral("⠏")};
    return list;
}
} // namespace

SpinnerLine::SpinnerLine(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("spinnerLine"));
    setAccessibleName(tr("Activity"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 2, 12, 2);
    layout->setSpacing(8);
    m_glyph = new QLabel(this);
    m_glyph->setObjectName(QStringLiteral("spinnerGlyph"));
    m_glyph->setFixedWidth(fontMetrics().horizontalAdvance(QStringLiteral("⠿")) + 4);
    m_text = new ElidingLabel(this);
    m_text->setObjectName(QStringLiteral("spinnerText"));
    m_text->setTextFormat(Qt::PlainText);
    m_notification = new ElidingLabel(this);
    m_notification->setObjectName(QStringLiteral("notificationLabel"));
    m_notification->setTextFormat(Qt::PlainText);
    m_notification->setAccessibleName(tr("Notification"));
    QPalette accent = m_notification->palette();
    accent.setColor(QPalette::WindowText, accent.color(QPalette::Highlight));
    m_notification->setPalette(accent);
    layout->addWidget(m_glyph);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_notification);
    setMinimumHeight(fontMetrics().height() + 8);

    m_frameTimer.setInterval(90);
    connect(&m_frameTimer, &QTimer::timeout, this, [this] {
        m_frame = (m_frame + 1) % int(frames().size());
        m_glyph->setText(frames().at(m_frame));
    });
    m_tipTimer.setInterval(7000);
    connect(&m_tipTimer, &QTimer::timeout, this, &SpinnerLine::nextTip);
    m_quietTimer.setInterval(1000);
    connect(&m_quietTimer, &QTimer::timeout, this, &SpinnerLine::refresh);
    m_notificationTimer.setSingleShot(true);
    connect(&m_notificationTimer, &QTimer::timeout, this, [this] { m_notification->clear(); });
    m_tipIndex = int(QRandomGenerator::global()->bounded(int(tips().size())));
    refresh();
}

SpinnerLine::~SpinnerLine() = default;

QStringList SpinnerLine::tips()
{
    return {
        tr("Esc cancels a running compaction, then the turn"), tr("/compact <hint> shapes the summary"),
        tr("Shift+Tab cycles build, plan and yolo"),           tr("Ctrl+Shift+K compacts the conversation"),
        tr("@ completes file paths of the workspace"),         tr("Prompts typed now are queued (up to 5)"),
        tr("/context shows what fills the context window"),    tr("Ctrl+Shift+S opens the session browser"),
        tr("/show-thinking hides or shows reasoning"),         tr("Up and Down recall earlier prompts"),
    };
}

void SpinnerLine::nextTip()
{
    const QStringList all = tips();
    m_tipIndex = (m_tipIndex + 1) % int(all.size());
    m_tip = all.at(m_tipIndex);
    refresh();
}

void SpinnerLine::start()
{
    if (m_running)
        return;
    m_running = true;
    m_retryAttempt = 0;
    m_waitingForProvider = true;
    m_quiet.start();
    nextTip();
    m_frameTimer.start();
    m_tipTimer.start();
    m_quietTimer.start(std::min(1000, m_quietNoticeMs));
    m_glyph->setText(frames().at(m_frame));
    refresh();
}

void SpinnerLine::stop()
{
    m_running = false;
    m_compacting = false;
    m_retryAttempt = 0;
    m_frameTimer.stop();
    m_tipTimer.stop();
    m_quietTimer.stop();
    m_glyph->clear();
    refresh();
}

void SpinnerLine::setCompacting(bool compacting)
{
    m_compacting = compacting;
    if (compacting && !m_running)
        start();
    if (!compacting && m_running)
        nextTip(); // the normal loader text returns
    refresh();
}

void SpinnerLine::setRetrying(int attempt)
{
    m_retryAttempt = attempt;
    m_quiet.start();
    refresh();
}

void SpinnerLine::showNotification(const QString &text, int durationMs)
{
    m_notification->setText(text);
    m_notificationTimer.start(durationMs);
}

QString SpinnerLine::text() const
{
    return m_text->text();
}

QString SpinnerLine::notification() const
{
    return m_notification->text();
}

void SpinnerLine::setOpening(bool opening)
{
    m_opening = opening;
    if (opening && !m_running)
        start();
    else if (!opening && m_running)
        stop();
    refresh();
}

void SpinnerLine::noteActivity()
{
    const bool wasQuiet = m_quiet.isValid() && m_quiet.elapsed() >= m_quietNoticeMs;
    m_quiet.start();
    if (wasQuiet)
        refresh();
}

void SpinnerLine::setWaitingForProvider(bool waiting)
{
    if (waiting == m_waitingForProvider)
        return;
    m_waitingForProvider = waiting;
    m_quiet.start(); // a tool's run or a person's answer is not the provider's silence
    refresh();
}

void SpinnerLine::refresh()
{
    const qint64 quietMs = m_quiet.isValid() ? m_quiet.elapsed() : 0;
    const bool quiet =
        m_running && !m_opening && m_retryAttempt == 0 && m_waitingForProvider && quietMs >= m_quietNoticeMs;
    if (quiet) {
        const QString waited = tr("No data from the provider for %1 s; Esc stops").arg(quietMs / 1000);
        m_text->setText(m_compacting ? tr("Compacting...") + QLatin1Char(' ') + waited : waited);
        return;
    }
    if (!m_running)
        m_text->clear();
    else if (m_opening)
        m_text->setText(tr("Opening session..."));
    else if (m_compacting)
        m_text->setText(tr("Compacting..."));
    else if (m_retryAttempt > 0)
        m_text->setText(tr("Retrying (attempt %1)...").arg(m_retryAttempt));
    else
        m_text->setText(m_tip);
}

} // namespace keen

#include "moc_spinnerline.cpp"
