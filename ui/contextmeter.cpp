#include "contextmeter.h"

#include "chat/chatcolors.h"
#include "tokenformat.h"

#include <QPainter>

namespace keen {

ContextMeter::ContextMeter(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("contextMeter"));
    setAccessibleName(tr("Context used"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    refresh();
}

ContextMeter::~ContextMeter() = default;

void ContextMeter::setContextWindow(qint64 window)
{
    m_window = window;
    refresh();
}

void ContextMeter::setCompactionPolicy(const CompactionPolicy &policy)
{
    m_policy = policy;
    refresh();
}

void ContextMeter::setInputTokens(std::optional<qint64> tokens, bool estimated)
{
    m_tokens = tokens;
    m_estimated = tokens && estimated;
    refresh();
}

double ContextMeter::percent() const
{
    if (m_window <= 0 || !m_tokens)
        return 0;
    // Not capped: a history opened with a smaller window, or one big tool result, can be far over it, and
    // "100%" would hide by how much.
    return qMax(0.0, 100.0 * double(*m_tokens) / double(m_window));
}

ContextMeter::Level ContextMeter::level() const
{
    const double value = percent();
    if (value >= 95.0)
        return Level::Critical;
    if (value >= 80.0)
        return Level::Warning;
    return Level::Normal;
}

double ContextMeter::thresholdFraction() const
{
    if (!showsThresholdMark())
        return 0;
    return double(TokenFormat::autoCompactionThreshold(m_window, m_policy)) / double(m_window);
}

QString ContextMeter::text() const
{
    if (m_window <= 0)
        return tr("N/A");
    return m_estimated ? QStringLiteral("~") + TokenFormat::percent(percent())
                       : TokenFormat::percent(percent());
}

QSize ContextMeter::sizeHint() const
{
    // As wide as the text it shows ("~3277.02%" after a huge paste), never narrower than a usual one, so
    // the status bar does not jump about while the percent changes below 100.
    const int text = qMax(fontMetrics().horizontalAdvance(QStringLiteral("~100.00%")),
                          fontMetrics().horizontalAdvance(this->text()));
    return {text + TextLeft + 4, fontMetrics().height() + 4};
}

void ContextMeter::refresh()
{
    updateGeometry(); // the text may have grown past the width the status bar gave it
    setAccessibleDescription(tr("%1 of the context window").arg(text()));
    if (m_window > 0) {
        QString tip =
            tr("Context: %1 of %2 tokens (%3).")
                .arg(TokenFormat::compact(m_tokens.value_or(0)), TokenFormat::compact(m_window), text());
        tip += QLatin1Char(' ');
        tip += m_policy.automatic
                   ? tr("Automatic compaction at about %1 tokens (%2% of the input budget).")
                         .arg(TokenFormat::compact(TokenFormat::autoCompactionThreshold(m_window, m_policy)))
                         .arg(m_policy.thresholdPercent)
                   : tr("Automatic compaction is off for this session.");
        if (percent() > 100.0)
            tip +=
                QLatin1Char('\n') +
                tr("Over the context window: the next request will not fit. Compact the conversation first.");
        if (m_estimated)
            tip += QLatin1Char('\n') + tr("Estimated here until the provider reports the next request.");
        setToolTip(tip);
    } else {
        setToolTip(tr("Context window unknown"));
    }
    update();
}

void ContextMeter::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF bar(1.5, (height() - 8) / 2.0, BarWidth, 8);
    const QPalette pal = palette();
    painter.setPen(QPen(pal.color(QPalette::Mid), 1));
    painter.setBrush(pal.color(QPalette::Base));
    painter.drawRoundedRect(bar, 3, 3);
    QColor fill = pal.color(QPalette::Highlight);
    if (level() == Level::Warning)
        fill = ChatColors::warning(pal);
    else if (level() == Level::Critical)
        fill = ChatColors::error(pal);
    const double fraction = qMin(1.0, percent() / 100.0);
    if (fraction > 0) {
        painter.setPen(Qt::NoPen);
        painter.setBrush(fill);
        painter.drawRoundedRect(
            QRectF(bar.left(), bar.top(), qMax(2.0, bar.width() * fraction), bar.height()), 3, 3);
    }
    if (showsThresholdMark()) {
        const double x = bar.left() + bar.width() * thresholdFraction();
        painter.setPen(QPen(pal.color(QPalette::WindowText), 1.5));
        painter.drawLine(QPointF(x, bar.top() - 3), QPointF(x, bar.bottom() + 3));
    }
    painter.setPen(level() == Level::Normal ? pal.color(QPalette::WindowText) : fill);
    painter.drawText(QRectF(TextLeft, 0, width() - TextLeft, height()), Qt::AlignVCenter | Qt::AlignLeft,
                     text());
}

} // namespace keen

#include "moc_contextmeter.cpp"
