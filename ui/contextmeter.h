#pragma once

#include "conversation/compactionpolicy.h"

#include <QWidget>

#include <optional>

namespace keen {

// The context meter of the status bar: percent of the window taken by the last reported input, coloured at
// 80% and 95%, with a mark where automatic compaction fires (the session's threshold of the input budget,
// 90% by default; no mark when it is off).
class ContextMeter final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContextMeter)

public:
    static constexpr int BarWidth = 80;
    static constexpr int TextLeft = 88; // where the percent starts, right of the bar
    enum class Level { Normal, Warning, Critical };

    explicit ContextMeter(QWidget *parent = nullptr);
    ~ContextMeter() override;

    void setContextWindow(qint64 window);
    void setCompactionPolicy(const CompactionPolicy &policy);
    const CompactionPolicy &compactionPolicy() const { return m_policy; }
    bool showsThresholdMark() const { return m_window > 0 && m_policy.automatic; }
    // nullopt: nothing to show yet. estimated: counted locally (after a compaction or when a session opens),
    // until the provider reports the next request's input.
    void setInputTokens(std::optional<qint64> tokens, bool estimated = false);
    bool isEstimated() const { return m_estimated; }
    qint64 contextWindow() const { return m_window; }
    double percent() const; // of the window, over 100 when the history is larger; 0 without usage
    Level level() const;
    bool suggestsCompaction() const { return m_window > 0 && percent() >= 70.0; }
    double thresholdFraction() const; // where the automatic compaction mark sits, 0..1 (0 when off)
    QString text() const;             // "12.5%", "~3.1%" (estimated) or "N/A"
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void refresh();

    qint64 m_window = 0;
    CompactionPolicy m_policy;
    std::optional<qint64> m_tokens;
    bool m_estimated = false;
};

} // namespace keen
