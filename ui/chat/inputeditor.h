#pragma once

#include "chat/slashcommands.h"

#include <QPlainTextEdit>
#include <QStringList>

class QCompleter;
class QStandardItemModel;

namespace keen {

// The prompt editor: Enter sends, Shift+Enter is a newline, Up/Down at the top/bottom edge recall earlier
// inputs, "/" completes commands and "@" completes workspace file paths. Ctrl+C copies a selection, else asks
// to interrupt; Esc is reported to the window (its cancel cascade).
class InputEditor final : public QPlainTextEdit
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InputEditor)

public:
    static constexpr int MaxVisibleLines = 15;

    explicit InputEditor(QWidget *parent = nullptr);
    ~InputEditor() override;

    // The slash commands "/" completes, each shown with its arguments and what it does.
    void setCommands(const QList<SlashCommands::Command> &commands);
    void setFiles(const QStringList &files);
    // The folder dropped or pasted files are named relative to (as @path), when they are inside it.
    void setWorkspace(const QString &workspace) { m_workspace = workspace; }
    QStringList history() const { return m_history; }
    void setHistory(const QStringList &history);
    // Prompts of earlier runs, older than any sent in this one: Up reaches them after this run's.
    void addEarlierHistory(const QStringList &earlier);
    void addToHistory(const QString &text);
    QCompleter *completer() const { return m_completer; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void submitted(const QString &text);
    // A sent prompt joined the history (not one sent twice in a row): for the history of later runs.
    void historyAdded(const QString &text);
    void escapePressed();
    void interruptRequested(); // Ctrl+C with no selection
    // PageUp (-1) or PageDown (+1): a composer's paging keys scroll the conversation, as in chat apps and
    // the reference's terminal interface.
    void pageRequested(int direction);

protected:
    bool event(QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    // Tab moves the focus on, except while the completion list is open: then it takes the completion.
    bool focusNextPrevChild(bool next) override;
    void resizeEvent(QResizeEvent *event) override;
    // Files dropped on the input, or copied in a file manager and pasted, are named, not read: "@src/a.cpp"
    // inside the workspace (as the @ completion writes them), the absolute path outside it.
    bool canInsertFromMimeData(const QMimeData *source) const override;
    void insertFromMimeData(const QMimeData *source) override;

private:
    enum class CompletionKind { None, Command, File };

    void submit();
    bool recallHistory(int direction);
    void updateCompletion();
    void insertCompletion(const QString &completion);
    void updateHeight();
    void updatePlaceholder();

    QCompleter *m_completer;
    QStandardItemModel *m_completionModel; // shown text; Qt::UserRole: what a choice inserts
    QList<SlashCommands::Command> m_commands;
    QStringList m_files;
    QString m_workspace;
    CompletionKind m_completionKind = CompletionKind::None;
    int m_tokenStart = 0;
    QStringList m_history;
    int m_historyIndex = -1; // -1: editing the draft
    QString m_draft;
};

} // namespace keen
