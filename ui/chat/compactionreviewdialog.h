#pragma once

#include "conversation/message.h"

#include <QDialog>

#include <functional>

class QLineEdit;
class QListView;
class QPlainTextEdit;
class QPushButton;

namespace keen {

// Review before it applies (issue 16): a manual compaction's streamed summary as editable Markdown beside the
// messages it replaces. Accept applies the text as it is now (edited or not); Edit makes the summary
// writable (and then reads Revert Edits, which puts back the streamed text); Regenerate runs the compaction
// again with the focus typed beside it; Cancel applies nothing. Regenerate and Cancel ask before they drop
// edits.
class CompactionReviewDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CompactionReviewDialog)

public:
    CompactionReviewDialog(const QString &summary, const MessageList &replaced, QWidget *parent = nullptr);
    ~CompactionReviewDialog() override;

    QString summary() const;
    bool isEdited() const;
    bool isEditing() const;

Q_SIGNALS:
    void summaryAccepted(const QString &summary);
    void regenerateRequested(const QString &focus);
    void reviewCancelled();

public Q_SLOTS:
    void reject() override;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void setEditing(bool editing);
    // Asks before edits are dropped (Regenerate, Cancel, Esc, closing): discard runs only on the person's
    // yes.
    void confirmDiscard(const QString &question, const QString &discardLabel,
                        const std::function<void()> &discard);

    QString m_original;
    QPlainTextEdit *m_summary;
    QListView *m_replaced;
    QLineEdit *m_focus;
    QPushButton *m_accept;
    QPushButton *m_edit = nullptr;
    QPushButton *m_regenerate;
    bool m_settled = false; // one of the three signals was sent
};

} // namespace keen
