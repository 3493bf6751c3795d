#pragma once

#include "base/result.h"
#include "config/launchoptions.h"
#include "conversation/compactionpolicy.h"
#include "conversation/droppeddetail.h"
#include "conversation/tokenusage.h"
#include "headless/compactionreviewprompt.h"
#include "providers/clientconfig.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTextStream>

#include <functional>
#include <memory>
#include <optional>

namespace keen {

class AgentSession;

// `keen-desktop run`: one turn (or one manual compaction) without widgets, on the same AgentSession as the
// window (reference 6.7, seed "Headless behavior").
class HeadlessRunner final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HeadlessRunner)

public:
    enum ExitCode { Success = 0, Failure = 1, CompletionSignalMissing = 2, Interrupted = 130 };

    struct Options
    {
        LaunchOptions launch;
        QString prompt;
        bool json = false;
        QString completionSignal;
        bool compact = false;
        QString compactFocus;
        // --review with --compact (issue 16): the summary is not applied before the person accepts, edits,
        // regenerates or cancels it on standard input (CompactionReviewPrompt).
        bool review = false;
        bool undoCompaction = false; // --undo-compaction: undo the session's latest compaction (issue 16)
        // --compact-threshold 50..95|off, --compact-detail brief|normal|detailed (issue 16): the session's
        // policy from this run on, recorded in its transcript; unset keeps the session's own.
        QString compactThreshold;
        std::optional<CompactionPolicy::Detail> compactDetail;
        bool policyOnly = false; // one of them with --session and no prompt: only the policy is recorded
        // Issue 16, pins: --pin TEXT (a typed note) and --unpin ID, applied before the prompt or --compact,
        // if any; --pins lists them.
        QStringList pins;
        QStringList unpins;
        bool listPins = false;
        // Issue 16, what was dropped: --dropped lists, numbered, what the compaction in effect left out of
        // its summary; --pin-dropped N pins detail N's original text, as the window's Pin the Original does.
        bool listDropped = false;
        QList<int> pinDropped;
        // Issue 16, pins: --pinnable lists, numbered, the messages, code blocks and tool results of the
        // session (PinCandidates, what the chat's context menu offers); --pin-item N pins number N.
        bool listPinnable = false;
        QList<int> pinItems;
        // Any of the pin flags above: they work without a prompt, and with one they apply before it.
        bool pinWork() const
        {
            return !pins.isEmpty() || !unpins.isEmpty() || listPins || listDropped || !pinDropped.isEmpty() ||
                   listPinnable || !pinItems.isEmpty();
        }
        bool yolo = false;
    };

    // Parses `run` arguments (after the word "run"). stdinText is appended to the prompt on a new line.
    static Result<Options> parseArguments(const QStringList &arguments, const QString &stdinText);
    // Whether the arguments ask for --format json, read as parseArguments reads them; for arguments it
    // refuses, so that their error can still be the one JSON object on stdout.
    static bool asksForJson(const QStringList &arguments);
    // The --format json object of a run that failed (exit 1), in the shape of a turn that failed: session_id
    // and opencode_session_id when there is a session, text (what streamed before the failure; empty when the
    // turn never started), usage, error (the message stderr gives) and partial: true.
    static QJsonObject failureJson(const QString &error, const QString &sessionId = QString(),
                                   const QString &text = QString(), const QJsonObject &usage = QJsonObject());

    using ConfigResolver = std::function<Result<ClientConfig>(const LaunchOptions &)>;

    HeadlessRunner(QTextStream &out, QTextStream &err, QObject *parent = nullptr);
    ~HeadlessRunner() override;

    // Tests inject the provider; the default resolves settings, keychain and environment.
    void setConfigResolver(ConfigResolver resolver);
    // Where --review reads its answers; the default is standard input. Tests give their own lines.
    void setReviewLineReader(CompactionReviewPrompt::LineReader reader);
    AgentSession &session();

    // Runs to completion inside the current event loop and returns the exit code.
    int run(const Options &options);
    // Cancels the turn cleanly; run() then returns 130. SIGINT and SIGTERM cancel the session's shutdown
    // token instead (SignalWatcher), which works even while this thread is busy.
    void interrupt();

private:
    // "Error: <message>" on stderr and, with --format json, the failure object on stdout unless this run has
    // already written its one JSON object. Returns Failure.
    int fail(const QString &message);
    void writeFailureJson(const QString &message);
    int runUndoCompaction();
    // --review: asks for the answer to a summary waiting for review and acts on it.
    void answerReview(const QString &summary, qsizetype replacedMessages);
    // --pin / --unpin, then the --pins report when asked or when nothing else runs. Failure when a pin was
    // refused or could not be saved.
    int runPinChanges();
    QJsonObject pinsJson() const;
    // --dropped: the numbered list on stdout (text), or added to the JSON line.
    void reportDropped(QJsonObject *json);
    void reportPinnable(QJsonObject *json);
    bool interrupted() const; // interrupt() or a signal
    void onStreamEvent(const class StreamEvent &event);
    // The --format json line: the turn's last usage report, and apart from it what compaction requests cost
    // during this run (`usage.compaction`, only when one ran).
    QJsonObject usageJson() const;
    // The session id without hyphens: the reference agent's json output has it as opencode_session_id.
    QString hyphenlessId() const;

    QTextStream &m_out;
    QTextStream &m_err;
    std::unique_ptr<AgentSession> m_session;
    ConfigResolver m_resolver;
    CompactionReviewPrompt::LineReader m_reviewReader = &CompactionReviewPrompt::readStandardInputLine;
    Options m_options;
    QString m_completedText; // text sealed by automatic compaction checkpoints (S57)
    QString m_currentText;
    qsizetype m_sealedLength = 0;
    std::optional<TokenUsage> m_lastUsage;
    TokenUsage m_compactionUsageAtStart; // the session's compaction usage when this run started
    TokenUsage m_subagentUsageAtStart;   // and its subagents' usage
    QJsonArray m_compactions;            // the compactions this run applied, for --format json (issue 16)
    QJsonArray m_notices;                // what was said of the reply (its warnings), for --format json
    // What the compaction in effect when the session opened left out of its summary (--dropped,
    // --pin-dropped).
    QList<DroppedDetail> m_droppedInEffect;
    quint64 m_droppedInEffectSeq = 0;
    PinList m_pinnable; // what the session opened offers to pin (--pinnable, --pin-item)
    bool m_interrupted = false;
    bool m_jsonWritten = false; // --format json: this run's one object is on stdout
    bool m_progressLineOpen = false;
    qint64 m_activityLinesShown = 0; // delegate_task: the activity lines of the running call printed so far
};

} // namespace keen
