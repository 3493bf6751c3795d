#pragma once

#include <QLabel>

namespace keen {

// A one-line plain-text label that never asks for more width than it gets: its minimum width is zero, and a
// text wider than the label is drawn elided at the right, the whole text shown as its tooltip. A status line
// of QLabels otherwise makes the window as wide as its longest message.
class ElidingLabel final : public QLabel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ElidingLabel)

public:
    explicit ElidingLabel(QWidget *parent = nullptr);
    ~ElidingLabel() override;

    QSize minimumSizeHint() const override;
    // Whether the text is shown cut short.
    bool isElided() const;

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
};

} // namespace keen
