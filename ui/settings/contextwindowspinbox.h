#pragma once

#include <QSpinBox>

namespace keen {

// The context window of a provider's models, in tokens: in Settings and in the first-run setup. A local
// server's is the context size it was started with, which no registry knows; too large a number and
// automatic compaction comes after the server has already cut the conversation.
class ContextWindowSpinBox final : public QSpinBox
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContextWindowSpinBox)

public:
    explicit ContextWindowSpinBox(QWidget *parent = nullptr);
    ~ContextWindowSpinBox() override;

    // Shown within the box's range (1,024 to 100,000,000 tokens).
    void setWindow(qint64 tokens);
};

} // namespace keen
