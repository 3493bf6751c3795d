#pragma once

#include "agent/agentsession.h"
#include "chat/chatmodel.h"
#include "chat/conversationsearch.h"
#include "conversation/agentmode.h"

#include <QFont>
#include <QHash>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <optional>

class QAction;
class QFrame;
class QToolButton;

namespace keen {

class ChatModel;
class ChatView;
class FindBar;
class InputEditor;
class QueueChips;
class SpinnerLine;
class WorkspaceFileIndex;

// The chat area of the window: transcript, spinner line, queued prompts and the input editor, driven by an
// AgentSession. Owns the key rules (reference 4.2, 4.4, 6.3): Esc cancels a running compaction first (during
// an automatic one only the child), then denies a pending permission, then interrupts the turn; Stop and
// Ctrl+C without a selection interrupt the parent turn (Ctrl+C cancels a pending question of the agent
// first), except during a manual compaction where they are ignored. Prompts typed while busy queue (up to 5)
// and drain one at a time after each turn or compaction.
class ChatPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChatPanel)

public:
    static constexpr int MaxQueue = 5;

    explicit ChatPanel(AgentSession *session, QWidget *parent = nullptr);
    ~ChatPanel() override;

    ChatModel *model() const { return m_model; }
    // False while a session opens, from its last screen until its whole history is in the view.
    bool isHistoryShown() const { return !m_preview && !m_completingHistory; }
    ChatView *view() const { return m_view; }
    InputEditor *input() const { return m_input; }
    SpinnerLine *spinner() const { return m_spinner; }
    FindBar *findBar() const { return m_findBar; }
    // Find in Conversation (Ctrl+F), next and previous match (F3, Shift+F3): for the window's menu.
    QAction *findAction() const { return m_findAction; }
    QAction *findNextAction() const { return m_findNextAction; }
    QAction *findPreviousAction() const { return m_findPreviousAction; }
    // View > Zoom In, Zoom Out, Actual Size (Ctrl++, Ctrl+-, Ctrl+0; Ctrl+wheel over the conversation): the
    // text size of the conversation and the input, in percent of the desktop's font.
    QAction *zoomInAction() const { return m_zoomInAction; }
    QAction *zoomOutAction() const { return m_zoomOutAction; }
    QAction *zoomResetAction() const { return m_zoomResetAction; }
    int zoomPercent() const { return m_zoomPercent; }
    void setZoomPercent(int percent);
    // A session search hit: the find bar opens on the longest of the search's words (the focus stays where
    // it is: the input, after an opening) and shows its first match from row on, so a word deep in a long
    // message or output is in view.
    void showSearchHit(int row, const QString &searchWords);
    QStringList queue() const { return m_queue; }
    bool isBusy() const;
    bool showThinking() const { return m_showThinking; }
    void setWorkspace(const QString &workspace);
    // The pins chip says what the pins take of their budget: again after the budget changed.
    void updatePinsButton();

public Q_SLOTS:
    // What Enter in the input does: a command, a prompt, or a queued prompt.
    void submitInput(const QString &text);
    void runCommand(const QString &text);
    // A short notice in the line above the input ("Queue cleared", a command's usage), gone after a moment.
    void notify(const QString &text);
    void escape();
    // Stop: the button, and Ctrl+C where no editor of the window takes it.
    void interrupt();
    // Ctrl+C with nothing to copy: a question of the agent is cancelled first, else the turn is stopped.
    void interruptFromKeyboard();
    void compact(const QString &focus = QString());
    // Undoes the compaction_applied appliedSeq, 0 the latest in effect (issue 16).
    void undoCompaction(quint64 appliedSeq = 0);
    void newSession();
    void setMode(keen::AgentMode mode);
    void setShowThinking(bool show);
    void removeQueued(int index);
    void showContextDialog();
    // Issue 16: Conversation > Pins, /pins, the pins button.
    void showPinsDialog();
    // Pins (a refusal opens a dialog); itemId, when not 0, is the row it came from (it gets the pin mark).
    bool pin(const keen::Pin &pin, quint64 itemId = 0);
    // The list of what a compaction's summary left out, from its row (issue 16).
    void showDroppedDetails(quint64 itemId);
    // Opens the find bar (with the selected text, when it is a short one).
    void findInConversation();
    void findNext();
    void findPrevious();

Q_SIGNALS:
    // An opened session's whole history is in the view (the rows above its last screen come in after it).
    void historyShown();
    void busyChanged(bool busy);
    void modeChanged(keen::AgentMode mode);
    void showThinkingChanged(bool show);
    void toolHistoryChanged(bool full); // /tool-history full|none
    // /adversary model: the reviewer's provider and model, both empty for the conversation's (to be saved).
    void reviewerModelChanged(const QString &provider, const QString &model);
    void zoomChanged(int percent);
    void settingsRequested();
    void quitRequested();    // /exit
    void logoutRequested();  // /logout
    void cleanupRequested(); // /cleanup: the window has the session store and the sidebar
    void sessionsRequested();
    void thinkingRequested(const QString &effort);
    // /model NAME (the current provider's model) or /model PROVIDER/NAME; /model alone asks for the settings.
    void modelRequested(const QString &choice);
    void metricsChanged(); // usage totals or the last usage changed (reset by an automatic compaction)
    // A compaction was applied or undone: what Conversation > Undo Compaction would undo changed.
    void undoableCompactionChanged();

private:
    // /allow-permission and /reset-permission: usage and the tool list without names, an error naming
    // unknown tools, else the session writes the project allow-list.
    void changeProjectPermissions(bool allow, const QString &usage, const QString &argument);
    // /memory [show global|project]: the memory files, read on a worker.
    void showMemory(const QString &argument, const QString &usage);
    // /adversary [focus]: started now, or queued while a turn runs.
    void reviewConversation(const QString &command);
    // /skills [list|status|reload|enable <name>|disable <name>].
    void runSkillsCommand(const QString &argument, const QString &usage);
    void runMcpCommand(const QString &argument, const QString &usage);
    // /adversary model [<provider>/<model>|default]: shows or sets the reviewer.
    void chooseReviewerModel(const QStringList &words);
    // `/<skill> [arguments]`: sends (or queues) the skill's activation; false when no skill has that name.
    bool activateSkill(const QString &text);
    // The completion list: the commands, then the skills.
    void onSkillsChanged();
    enum class RunKind { None, Turn, ManualCompaction, Shell };

    void connectSession();
    void finishOpening();
    void onTurnStarted(const QString &text);
    void onStreamEvent(const StreamEvent &event);
    void onTurnFinished(AgentSession::TurnOutcome outcome, const QString &error);
    void onAsideStarted(const QString &question);
    void onAsideFinished(const QString &error, bool cancelled);
    void onShellCommandStarted(const QString &command);
    void onShellCommandFinished(bool cancelled);
    void onCompactionStarted(AgentSession::CompactionMode mode);
    void onCompactionUndone(quint64 appliedSeq, qint64 estimatedTokens, qint64 inputBudget);
    // Added to the row of a manual compaction that was cancelled or failed.
    static QString compactionNotAppliedText();
    // The same when no text of the attempt is shown (cancelled before any, or a reviewed summary removed).
    static QString compactionUnchangedText();
    // Removes the rows of the running manual compaction's attempt, its heading included (issue 16: a reviewed
    // summary that is regenerated or cancelled is gone from the chat, as it is from the transcript).
    void removeSummaryRows();
    // Whether the running manual compaction's attempt shows any text (its summary, or thoughts).
    bool summaryTextShown() const;
    void onCompactionFinished(AgentSession::CompactionMode mode, bool applied, const QString &message);
    // Issue 16: the summary waits in a CompactionReviewDialog for Accept, Regenerate or Cancel.
    void onCompactionReviewRequested(const QString &summary, const MessageList &replaced);
    void onAutoCompactionCheckpointed();
    void onPermissionRequested(const PermissionRequest &request);
    // Zoom from an action or the wheel: applied, and the new size shown beside the spinner.
    void zoomTo(int percent);
    void runSearch(const QString &text);
    // The matches found again after the conversation changed, the current one kept when it still is one.
    void refreshMatches();
    void stepMatch(int step);
    void showCurrentMatch();
    // Tells the spinner whether the turn waits for the provider now (its silence is then worth a word).
    void updateProviderWait();
    void onPermissionDecided(quint64 requestId, PermissionDecision decision);
    void onQuestionAnswered(quint64 questionId, const UserAnswer &answer);
    // Cancels a question of the agent still waiting for an answer; false when none waits.
    bool cancelPendingQuestion();
    void enqueue(const QString &text);
    void scheduleDrain();
    void drainOne();
    void updateQueueView();
    void setBusy(bool busy);
    void updateUndoOffer();
    void applyModeStyle();

    AgentSession *m_session;
    ChatModel *m_model;
    ChatView *m_view;
    SpinnerLine *m_spinner;
    QueueChips *m_chips;
    QFrame *m_inputFrame;
    InputEditor *m_input;
    QToolButton *m_pinsButton;
    WorkspaceFileIndex *m_files;
    QStringList m_queue;
    QHash<quint64, QString> m_decisions;
    RunKind m_runKind = RunKind::None;
    quint64 m_asideRow = 0;        // the /btw row being answered, 0 when none
    QString m_manualCompactionHow; // how the running manual compaction fit the input budget (issue 16)
    int m_summaryFirstRow = 0;     // the first row the running manual compaction's summary streams into
    // An opening session's last screen (AgentSession::sessionPreviewed): the event its rows start at, how
    // many events and how many rows it has.
    struct Preview
    {
        quint64 firstSeq = 0;
        qsizetype events = 0;
        int rows = 0;
    };
    std::optional<Preview> m_preview;
    ChatModel::Rows m_beforePreview;
    quint64 m_historyGeneration = 0; // moves on whenever the rows are replaced wholesale
    bool m_completingHistory = false;
    // What to show once the skills were read again (/skills reload, enable, disable).
    std::optional<SkillCatalog::View> m_skillsReport;
    QString m_skillsNotice;
    bool m_subagentsReport = false;     // /subagents: the table, once the folders were read again
    bool m_mcpReport = false;           // /mcp: the table, once mcp/configs.json was read again
    bool m_mcpTableWhenSettled = false; // /mcp while a server starts: the table again once none does
    bool m_busy = false;
    int m_toolsRunning = 0; // tools started and not ended in this turn
    FindBar *m_findBar = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_findNextAction = nullptr;
    QAction *m_findPreviousAction = nullptr;
    QString m_findText;
    QString m_turnPrompt; // the running (or last) turn's words, for "Try again" after an error
    ConversationSearch m_search;
    QList<ConversationSearch::Match> m_matches;
    int m_currentMatch = -1;
    bool m_matchesStale = false; // rows changed since the search ran
    int m_findStartRow = -1;     // once: where the next search looks first, instead of the top of the view
    QTimer m_findRefresh;
    QAction *m_zoomInAction = nullptr;
    QAction *m_zoomOutAction = nullptr;
    QAction *m_zoomResetAction = nullptr;
    QFont m_baseFont;      // the conversation's font at 100%
    QFont m_inputBaseFont; // the input's
    int m_zoomPercent = 100;
    bool m_drainScheduled = false;
    bool m_showThinking = true;
};

} // namespace keen
