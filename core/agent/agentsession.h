#pragma once

#include "agent/contextbreakdown.h"
#include "agent/skillcatalog.h"
#include "agent/subagentcatalog.h"
#include "base/result.h"
#include "conversation/agentmode.h"
#include "conversation/compactionpolicy.h"
#include "conversation/message.h"
#include "conversation/permissionrequest.h"
#include "conversation/pin.h"
#include "conversation/streamevent.h"
#include "conversation/userquestion.h"
#include "mcp/mcpserverconfig.h"
#include "providers/clientconfig.h"
#include "session/sessionstore.h"

#include <QJsonObject>
#include <QObject>
#include <QUrl>

#include <functional>
#include <memory>

namespace keen {

class LlmClient;
class StreamRunner;
class ToolRegistry;
class TurnRecorder;

// The facade the window and the headless runner talk to (DESIGN.md, "Flow of one turn"). Lives on the GUI
// (or main) thread; owns the conversation history (AppState), the session transcript and the worker that
// runs the provider's tool loop. Everything it reports arrives as signals on its own thread.
class AgentSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentSession)

public:
    enum class CompactionMode { None, Manual, Automatic };
    Q_ENUM(CompactionMode)
    enum class TurnOutcome { Done, Error, Incomplete, Cancelled };
    Q_ENUM(TurnOutcome)

    using ClientFactory = std::function<Result<std::shared_ptr<LlmClient>>(const ClientConfig &)>;

    explicit AgentSession(QObject *parent = nullptr);
    ~AgentSession() override;

    // --- setup ---
    void setWorkspace(const QString &absolutePath);
    QString workspace() const;
    void setClientConfig(const ClientConfig &config);
    const ClientConfig &clientConfig() const;
    // Tests and headless inject a client factory; the default builds the real provider clients.
    void setClientFactory(ClientFactory factory);
    void setSessionStore(std::shared_ptr<SessionStore> store);
    SessionStore &sessionStore() const;
    void setMode(AgentMode mode);
    AgentMode mode() const;
    void setToolHistoryFull(bool full);
    bool toolHistoryFull() const;
    // Headless: no person to ask; permissions inside the guard are approved, dangerous commands refused
    // unless yolo.
    void setInteractive(bool interactive);
    bool isInteractive() const;

    // The session's automatic-compaction threshold and summary detail (issue 16). A change is recorded in
    // the transcript as a compaction_policy event (when no session exists yet, once it is created), applies
    // from the next turn or compaction on, and comes back when the session is opened again. A new
    // conversation starts with the defaults, the seed's.
    void setCompactionPolicy(const CompactionPolicy &policy);
    CompactionPolicy compactionPolicy() const;

    // /allow-permission and /reset-permission (reference 2.3): tools added to or removed from the workspace's
    // project allow-list (.keen/permissions.json), written on a worker; projectPermissionsChanged or
    // errorOccurred follows. Tool names are checked by the caller against tools().
    void changeProjectPermissions(const QStringList &toolNames, bool allow);

    // --- conversation ---
    // Starts a turn with the user's text. Fails (nothing changes) when busy or the client is not ready.
    Result<void> submit(const QString &text);
    // `!command` (reference 6.1): runs command with bash in the workspace, for the person, without the model
    // and without a prompt (ShellCommand). Its card follows from streamEvent's tool events between
    // shellCommandStarted() and shellCommandFinished(); interrupt() stops it. Nothing is added to the history
    // or the transcript. Fails when busy ("Operation not permitted") or the command is empty.
    Result<void> runShellCommand(const QString &command);
    // /btw <question> (reference 6.1): asks on the side, also while a turn runs (AsideQuestion: the recent
    // conversation as text, no tools, a client and thread of its own). asideEvent() streams the answer,
    // asideFinished() ends it; its usage counts in the token totals, never in the context meter. Nothing is
    // stored. Fails for an empty question, while another is answered, or without a provider.
    Result<void> askAside(const QString &question);
    // /adversary [focus] (reference 6.1): a critical review of the conversation so far, on the side like a
    // /btw answer (asideEvent, asideFinished; isAsideRunning, cancelAside), by a model that may read and
    // search the project but change nothing. Not while a turn runs (the window queues it).
    // With a reviewer model set (/adversary model) the review runs on it; another provider's key is looked
    // up on a worker first, and a failure ends the review's row with the reason.
    Result<void> reviewConversation(const QString &focus = QString());
    // /adversary model (reference 6.1, adversary_provider and adversary_model in settings.json): the provider
    // and model reviews run on; both empty: the conversation's.
    void setReviewerModel(const QString &provider, const QString &model);
    // "provider/model", or empty for the conversation's.
    QString reviewerModel() const;
    // How another provider's configuration (its key) is found, on a worker. Default: ConfigResolver over
    // settings.json, the keychain and the environment. Tests give their own.
    using ConfigLookup = std::function<Result<ClientConfig>(const QString &provider, const QString &model)>;
    void setConfigLookup(ConfigLookup lookup);
    bool isAsideRunning() const;
    // Esc / Ctrl+C while it runs: true when there was one to cancel.
    bool cancelAside();
    // Manual compaction (/compact [focus], the Compact button). Fails when busy or the history is empty.
    Result<void> compact(const QString &focus = QString());
    // Undoes a compaction (issue 16): appliedSeq names its compaction_applied, 0 the latest one in effect. An
    // appended compaction_reverted event records it; the history becomes the one from before the compaction
    // plus every turn after it. The transcript is read on a worker; compactionUndone() or
    // undoCompactionFailed() follow, nothing changes on failure.
    void undoCompaction(quint64 appliedSeq = 0);
    // The compaction_applied an undo would revert by default; 0 when there is none.
    quint64 undoableCompaction() const;
    // Review before it applies (issue 16, a setting, off by default): a manual compaction's valid summary is
    // not applied at once; compactionReviewRequested() hands it over with what it replaces and the session
    // stays busy until acceptCompaction() (the text, edited or not, is what is applied, saved and sent next),
    // regenerateCompaction() (runs it again with a new focus) or cancelCompactionReview() (nothing applied:
    // history, provider state and transcript as before, S30).
    void setReviewManualCompaction(bool review);
    bool reviewManualCompaction() const;
    bool isReviewingCompaction() const;
    Result<void> acceptCompaction(const QString &summary);
    Result<void> regenerateCompaction(const QString &focus);
    void cancelCompactionReview();
    // Esc: cancels a running compaction (manual, or only the automatic child). Returns true if it did.
    bool cancelCompaction();
    // Stop / Ctrl+C: interrupts the parent turn, or a shell command. Ignored during a manual compaction.
    // Returns true if it did.
    bool interrupt();
    // Every turn's and compaction's token descends from this one. Cancelling it, from any thread and even
    // while this object's thread is busy, stops whatever runs now and everything started after
    // (SIGINT/SIGTERM).
    CancellationToken shutdownToken() const;
    void answerPermission(quint64 requestId, PermissionDecision decision);
    void answerQuestion(quint64 questionId, const keen::UserAnswer &answer);

    // --- pins (issue 16) ---
    // What travels verbatim after the summary of every compaction, in the order pinned.
    const PinList &pins() const;
    // The pin budget is this share of the input budget (settings.json pin_budget_percent, default 10).
    static constexpr int DefaultPinBudgetPercent = 10;
    static constexpr int McpSignInMinutes = 5; // how long an MCP sign-in waits for the browser
    void setPinBudgetPercent(int percent);
    int pinBudgetPercent() const;
    qint64 pinBudget() const;    // tokens
    qint64 pinnedTokens() const; // what the pins take in a replacement, estimated like the history (S1)
    static qint64 pinTokens(const PinList &pins);
    // Pins text (an empty id gets a new one). Refused, with nothing written, when the text is empty or the
    // pins would no longer fit the pin budget: the error says how much they would take. The pin_added event
    // is written on the writer's thread; pinAdded() and pinsChanged() once it is on disk, pinFailed() when it
    // could not be. A pin whose text the history does not hold (a typed note, Pin the Original, ...) is also
    // appended to the history (a pinned_context event), with or without an earlier compaction, so the next
    // request carries it; while busy, with the next request.
    Result<void> addPin(Pin pin);
    Result<void> removePin(const QString &id);

    // --- sessions ---
    // Starts a new, empty conversation; the session is created lazily on the first message. Never waits for
    // the previous conversation's queued writes: they finish on its writer's thread (the destructor waits).
    void newSession();
    // Opens a saved session: the history continues from its projection. Emits sessionOpened for replay.
    // Blocking: reads on this thread, after the writes of conversations left before (headless `run`).
    Result<void> openSession(const QString &sessionId);
    // The same without blocking this thread: the transcript is read and projected on a worker, then applied
    // here. sessionOpening() at once, sessionPreviewed() with its last events once they are read, then
    // sessionOpened() or sessionOpenFailed(). An empty id opens the most
    // recent other session of the workspace (/resume), looked up on the worker too.
    void openSessionAsync(const QString &sessionId);
    bool isOpening() const;
    QString sessionId() const; // empty until the first message
    QString transcriptPath() const;

    // --- state ---
    bool isBusy() const;
    CompactionMode compactionMode() const;
    const MessageList &messages() const;
    std::optional<TokenUsage> lastUsage() const; // cleared when a compaction applies
    // The turns' requests since the session started (compaction requests not included).
    qint64 totalInputTokens() const;
    qint64 totalOutputTokens() const;
    // Every request of every manual and automatic compaction since the session started (applied, failed or
    // cancelled alike), kept apart from the turns.
    TokenUsage compactionUsage() const;
    // Every request of every delegated subagent since the session started.
    TokenUsage subagentUsage() const;
    ContextBreakdown contextBreakdown() const;
    // The tools the model gets (sorted by name).
    const ToolRegistry &tools() const;
    QStringList toolNames() const; // for the window, which does not see the tools folder
    // The memory files the system prompt reads (reference 7.4), for /memory.
    QString globalMemoryPath() const;
    QString projectMemoryPath() const;
    // Where the app keeps sessions, command output and the rest (KEEN_HOME, or the platform's data folder).
    static QString dataFolder();
    // The usage ledger every request's tokens are written to (UsageLedger), for /usage.
    QString usageLedgerPath() const;
    // The skills (reference 7.2) and subagent profiles (7.3) as the folders held them when last read: when
    // the window opens a folder, after each turn and on reloadCatalogs(), which reads both again on a worker
    // and emits skillsChanged. The system prompt reads them itself for every request; the delegate_task tool
    // is offered while at least one profile exists.
    const SkillCatalog &skills() const;
    const SubagentCatalog &subagents() const;
    // For a headless run, which reads the folders before its one turn instead of on a worker.
    void setSubagents(const SubagentCatalog &catalog);
    void reloadCatalogs();
    // Saved to the skills' config.json on a worker, then read again (skillsChanged, or notification on
    // error).
    Result<void> setSkillEnabled(const QString &name, bool enabled);
    // The message that activates the skill text names (`/<name> [arguments]`, SkillCatalog::activate).
    std::optional<Result<QString>> skillActivation(const QString &text) const;

    // MCP servers (reference 8.3): <data dir>/mcp/configs.json is read with the skills (reloadCatalogs); each
    // server runs from the folder this session works in, connected on a thread of its own, and while one is
    // configured the model gets call_mcp_tool. A server whose tools are known is the skill mcp:<name>.
    // mcpStatusChanged follows every change; a server that fails to start is also a notification ("MCP
    // unavailable: <server>: <why>"). A headless run sets the servers itself and waits for them.
    void setMcpServers(const QList<McpServerConfig> &servers);
    // What /mcp shows: a Markdown table (Server, Status, Auth, Detail), after a problem of the file if any.
    // starting, when given, says whether a row of this same table is still "connecting".
    QString mcpStatusMarkdown(bool *starting = nullptr) const;
    // "<server>: <why>" for every server that failed to start.
    QStringList mcpProblems() const;
    // Blocks until no server is still starting, or timeoutMs passed (headless; never on the GUI thread).
    bool waitForMcp(int timeoutMs) const;
    // /mcp connect <server-or-tool>: stops and starts that server (or the one offering that tool) again;
    // false when none has that name. A server whose auth is "oauth" is signed in to again first
    // (McpSignIn): mcpSignInNeeded names the page to open, a notification says how it ended, and the server
    // connects with the new token.
    bool reconnectMcp(const QString &name);
    // /mcp logout <server>: forgets its OAuth sign-in (mcp/oauth.json) and connects it again, which then
    // fails as not signed in; false when no OAuth server has that name.
    bool signOutMcp(const QString &name);
    // A server is still starting (its row of /mcp says "connecting").
    bool isMcpStarting() const;
    // The server whose browser sign-in is under way (reconnectMcp), empty for none.
    QString mcpSignInServer() const;
    // Stops the browser sign-in under way, storing nothing; false when none was.
    bool cancelMcpSignIn();

Q_SIGNALS:
    void turnStarted(const QString &userText);
    // Every event of the parent stream, in order, for rendering. Never carries the private automatic summary.
    void streamEvent(const keen::StreamEvent &event);
    // A turn (or a manual compaction) ended.
    void turnFinished(keen::AgentSession::TurnOutcome outcome, const QString &error);
    void asideStarted(const QString &question);
    void reviewStarted(const QString &focus);
    void asideEvent(const keen::StreamEvent &event);
    void asideFinished(const QString &error, bool cancelled);
    void shellCommandStarted(const QString &command);
    void shellCommandFinished(bool cancelled);
    void compactionStarted(keen::AgentSession::CompactionMode mode);
    // A manual compaction's summary waits for review (reviewManualCompaction()); replaced is the history it
    // would replace.
    void compactionReviewRequested(const QString &summary, const keen::MessageList &replaced);
    // Manual: success with the applied summary, or failure text ("Compaction cancelled.",
    // "Compaction failed: <reason>"). Automatic: applied, cancelled or failed.
    void compactionFinished(keen::AgentSession::CompactionMode mode, bool applied, const QString &message);
    // An automatic compaction was applied and persisted: the output so far is a sealed checkpoint.
    void autoCompactionCheckpointed(const QString &checkpointText);
    // An undo was saved and the history restored (issue 16). estimatedTokens of the restored history against
    // inputBudget: when it is over, the history no longer fits and wants another compaction.
    void compactionUndone(quint64 appliedSeq, qint64 estimatedTokens, qint64 inputBudget);
    void undoCompactionFailed(const QString &error);
    // The pins changed and are on disk (added, removed, or another session opened).
    void pinsChanged();
    // One pin was added or removed here and is on disk, whoever asked (the chat's row follows these); not
    // emitted for the pins of a session being opened.
    void pinAdded(const keen::Pin &pin);
    void pinRemoved(const keen::Pin &pin);
    void pinFailed(const QString &error);
    // A compaction applied with pins over the pin budget (the input budget shrank since they were pinned):
    // every pin was kept, the person should know they take more than their share.
    void pinBudgetExceeded(qint64 pinnedTokens, qint64 pinBudget);
    // After an applied compaction (its compaction_applied seq), before the turn ends: what its summary left
    // out of the compacted range (issue 16, "what was dropped"); may be empty. Saved with the event.
    void droppedDetailsFound(quint64 appliedSeq, bool automatic, const QList<keen::DroppedDetail> &details);
    void permissionRequested(const keen::PermissionRequest &request);
    // A permission request or a question of the agent (they share ids) was answered, or cancelled with
    // the turn.
    void interactionSettled(quint64 requestId);
    void questionAsked(quint64 questionId, const keen::UserQuestionList &questions);
    void notification(const QString &text);
    // The policy in effect changed: set here, or read from a session that was opened, or reset by a new one.
    void compactionPolicyChanged(const keen::CompactionPolicy &policy);
    // A change of policy was written to the transcript (its chat row).
    void compactionPolicySaved(const keen::CompactionPolicy &policy);
    void usageChanged();
    void skillsChanged();
    void mcpStatusChanged();
    // An MCP sign-in is waiting for the person in the browser, at page.
    void mcpSignInNeeded(const QString &server, const QUrl &page);
    void historyReplaced();
    // The system prompt the context estimate counts was built again (on a worker: a folder opened, skills
    // were read again, a turn ended) and differs from before.
    void systemPromptEstimated();
    void sessionChanged(const QString &sessionId);
    // A saved session was opened: its events, for the chat view to replay.
    void sessionOpened(const QList<keen::SessionEvent> &events);
    // While a session opens: its last events (the same as the last ones sessionOpened brings), read before
    // the rest so the window can show its last screen first. Nothing of the session is applied yet.
    void sessionPreviewed(const QList<keen::SessionEvent> &lastEvents);
    void sessionOpening();
    void sessionOpenFailed(const QString &error);
    // The session just opened is being written by another Keen Desktop (a second window, a `run --session`):
    // nothing can be saved to it here until that one lets go. The window says so at once; a headless run
    // fails at its first write with the same message instead.
    void sessionInUseElsewhere(const QString &message);
    // Something went wrong outside a turn (persistence, configuration).
    void errorOccurred(const QString &message);
    // The usage ledger (/usage) could not be written: why, naming the file. Said once per file and process;
    // a headless run has it on stderr from the log already.
    void usageNotRecorded(const QString &why);
    // The project allow-list was written: toolNames were allowed (or reset); allowList is the file's list
    // now.
    void projectPermissionsChanged(bool allowed, const QStringList &toolNames, const QStringList &allowList);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace keen
