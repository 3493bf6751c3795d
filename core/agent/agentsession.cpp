#include "agent/agentsession.h"
#include "agent/asidequestion.h"

#include "agent/contextestimator.h"
#include "agent/delegatetasktool.h"
#include "agent/interactionbroker.h"
#include "agent/shellcommand.h"
#include "agent/streamrunner.h"
#include "agent/systemprompt.h"
#include "agent/turnrecorder.h"
#include "agent/usageledger.h"
#include "agent/workerthread.h"
#include "base/appfolders.h"
#include "base/logcategories.h"
#include "base/whenfinished.h"
#include "config/configresolver.h"
#include "config/modelregistry.h"
#include "conversation/heldpins.h"
#include "loop/clientfactory.h"
#include "loop/compactioncommit.h"
#include "loop/compactionprompts.h"
#include "loop/contextbudget.h"
#include "loop/droppeddetails.h"
#include "loop/llmclient.h"
#include "mcp/callmcptooltool.h"
#include "mcp/mcphub.h"
#include "mcp/mcpoauthstore.h"
#include "mcp/mcpsignin.h"
#include "mcp/mcpskillfiles.h"
#include "providers/providertable.h"
#include "session/compactionundo.h"
#include "session/sessionpins.h"
#include "session/sessionwriter.h"
#include "tools/defaulttools.h"
#include "tools/permissionpolicy.h"
#include "tools/projectallowlist.h"
#include "tools/toolregistry.h"

#include <QCoreApplication>
#include <QDir>
#include <QFuture>
#include <QFutureWatcher>
#include <QLocale>
#include <QPointer>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace keen {

namespace {

QString dataDirectory()
{
    return AppFolders::data();
}

} // namespace

struct AgentSession::Private
{
    AgentSession *q = nullptr;
    QString workspace = QDir::currentPath();
    ClientConfig config;
    ClientFactory factory = [](const ClientConfig &config) { return createLlmClient(config); };
    std::shared_ptr<LlmClient> client;
    ClientConfig clientBuiltFor;
    std::shared_ptr<SessionStore> store = std::make_shared<SessionStore>();
    std::optional<Session> session;
    std::unique_ptr<SessionWriter> writer; // every transcript write of session, in order, off this thread
    // Writers of earlier conversations, finishing their queued writes on their own threads (the GUI thread
    // never waits for them); each is deleted once it has ended, and the destructor waits for those left, so
    // nothing queued is lost at exit. retiredEnd: the last one's end, which comes after all earlier ones'.
    std::vector<std::unique_ptr<SessionWriter>> retired;
    QFuture<void> retiredEnd;
    // The running turn's user_message write: the worker sends the request once it is on disk.
    std::optional<QFuture<Result<QList<quint64>>>> userWrite;
    bool commitPending = false;  // an automatic compaction's batch is being written
    bool finishDeferred = false; // the stream finished meanwhile: the turn ends after the commit
    quint64 turnGeneration = 0;  // moves on with every stream and new conversation
    MessageList history;         // AppState: never holds the system prompt (S55)
    // /context measures only the messages that changed since last time; reset where the whole history is
    // replaced, so the estimates of a replaced history do not keep its text alive.
    ContextEstimator contextEstimator;
    AgentMode mode = AgentMode::Build;
    bool toolHistoryFull = false;
    bool interactive = true;
    CompactionPolicy compactionPolicy; // issue 16: the session's, the seed's by default
    bool reviewCompaction = false;     // issue 16: a manual summary waits for acceptCompaction()
    // The summary under review and what it came with; set between the stream's end and the person's answer.
    struct Review
    {
        QString summary;
        QList<TranscriptItem> transcript;
        CompactionStrategy strategy;
    };
    std::optional<Review> review;
    bool applyingManual = false; // a manual compaction's compaction_applied is being written

    InteractionBroker *broker = nullptr;
    std::unique_ptr<PermissionPolicy> policy;
    std::shared_ptr<ToolRegistry> tools;

    // Declared before the runner: a runner waits for its run on this thread, so it goes first.
    std::unique_ptr<WorkerThread> streamThread;
    std::unique_ptr<StreamRunner> runner;
    CancellationToken parentCancel;
    const CancellationToken shutdown; // never reassigned: other threads hold copies
    CompactionMode compaction = CompactionMode::None;
    CancellationToken childCancel; // the automatic compaction's child token
    bool turnFailedToPersist = false;
    TurnRecorder recorder;
    QHash<quint64, PermissionRequest> askedPermissions; // shown to the person, not answered or settled yet
    std::optional<StreamEvent> terminal;

    std::optional<TokenUsage> lastUsage;
    qint64 totalInput = 0;
    qint64 totalOutput = 0;
    TokenUsage compactionUsage;
    TokenUsage subagentUsage;
    CompactionStrategy manualStrategy;    // how the running manual compaction fit the input budget (issue 16)
    quint64 undoableSeq = 0;              // the compaction_applied in effect, for undo (issue 16)
    bool undoing = false;                 // undoCompaction() is reading or writing
    std::unique_ptr<ShellCommand> shell;  // a `!command` running
    std::unique_ptr<AsideQuestion> aside; // a /btw question being answered
    QString reviewerProvider;             // /adversary model; empty: the conversation's
    QString reviewerModel;
    bool reviewerResolving = false; // a review waits for its provider's configuration
    quint64 reviewerRequest = 0;    // moves on when a waiting review is cancelled or replaced
    AgentSession::ConfigLookup configLookup = [](const QString &provider, const QString &model) {
        LaunchOptions options;
        options.provider = provider;
        options.model = model;
        const Result<ResolvedClientConfig> resolved = ConfigResolver(Settings::loadOrDefaults().settings)
                                                          .resolve(options, SecretStore::FileFallback::Allow);
        return resolved ? Result<ClientConfig>(resolved->config)
                        : Result<ClientConfig>::failure(resolved.error());
    };
    // The configuration for provider and model (empty provider: current's): the same provider keeps the key
    // and settings and changes the model; another is looked up (blocking: call it on a worker).
    static Result<ClientConfig> configFor(const ClientConfig &current,
                                          const AgentSession::ConfigLookup &lookup, const QString &provider,
                                          const QString &model);
    PinList pins;                   // issue 16: in effect, as the transcript says
    qsizetype turnHistoryStart = 0; // the history's size before the running turn added to it
    // Turns that ran tools and did not finish, carried by the client's pending state (finishTurn), with the
    // history's size when each ended: where the transcript has them. Dropped when the history is replaced.
    struct CarriedTurn
    {
        qsizetype at = 0;
        Message message;
    };
    QList<CarriedTurn> carriedTurns;
    int pinBudgetPercent = AgentSession::DefaultPinBudgetPercent;
    // The session, pin tokens and budget the person was last told were over (audit 2026-12-06: a tool loop
    // with twelve automatic compactions said it twelve times, a window dialog each). Told again only when one
    // of them changes; cleared when the pins fit again.
    std::optional<std::tuple<QString, qint64, qint64>> pinBudgetWarned;
    SkillCatalog skills;
    SubagentCatalog subagents;
    quint64 skillsGeneration = 0; // a newer reload (or another folder) wins over a slower earlier one
    std::shared_ptr<McpHub> mcp;  // while a server is configured
    QList<McpServerConfig> mcpServers;
    QString mcpConfigProblem;    // mcp/configs.json cannot be used, and why
    QStringList mcpFailuresTold; // "<server>: <why>" already said, so each failure is told once
    // The session's token totals as of an event (docs/SESSION_FORMAT.md, session_usage): written on every
    // turn and compaction, read back when the session is opened again.
    SessionEvent withSessionUsage(SessionEvent event) const;
    void restoreSessionUsage(const QList<SessionEvent> &events);
    QPointer<McpSignIn> mcpSignIn; // the browser sign-in under way (one at a time)
    QString mcpSignedOut;          // the server /mcp logout just signed out of
    void tellMcpFailures();
    // Starts the configured servers on a new hub (none when none is configured); the old hub ends off this
    // thread.
    void startMcp();
    QStringList hiddenEnvironment() const;

    void rebuildTools();
    // delegate_task's children: a client for a profile (its provider and model, or this session's), and
    // their usage in the ledger. Both run on the worker and hold copies, never this object.
    DelegateTaskTool::ClientMaker subagentClientMaker() const;
    DelegateTaskTool::UsageRecorder subagentUsageRecorder() const;
    // What the usage ledger calls when it cannot write: usageNotRecorded, on the session's thread.
    std::function<void(const QString &)> ledgerFailure() const;
    void writePolicy();
    // Hands the writer over to `retired` without waiting for it; the next writer starts after its end.
    void retireWriter();
    std::unique_ptr<SessionWriter> makeWriter(SessionWriter::Start start);
    // Fresh for every request, the mode included (S20, S33).
    // The system prompt for estimates on this thread (/context, the meter). Building it reads the folder's
    // files (instructions, skills, memory), so it is built on a worker when the folder opens, skills are read
    // again and a turn ends, and kept here in build mode; the mode's section is added when it is used.
    QString promptCache;
    quint64 promptGeneration = 0;
    void refreshPromptCache();
    QString estimatedSystemPrompt();
    // Fills the request's empty system message on the stream's worker: building the prompt reads the project
    // instructions and memory files, which stays off this thread.
    StreamRunner::Prepare systemPromptOnWorker() const;
    // One side stream at a time, and only with a provider.
    Result<void> asideAllowed() const;
    // The client and connections of a /btw question or a /adversary review, on made (its usage is recorded
    // under made's provider and model).
    Result<void> createAside(const QString &usageKind, const ClientConfig &made);
    // Sends the review request, within the input budget of made's window.
    void startReview(const QString &focus, const ClientConfig &made);
    Result<void> ensureClient();
    void joinCarriedTurns();
    Result<void> ensureSession();
    QString userWriteError() const;
    bool sessionNeverCreated() const;
    void endTurn(TurnOutcome outcome, const QString &error);
    void startStream(const MessageList &request, const StreamOptions &options, StreamRunner::Prepare prepare,
                     std::optional<QFuture<Result<QList<quint64>>>> userMessage = std::nullopt);
    void onEvent(const StreamEvent &event);
    void onFinished();
    void releaseFinishedRunner();
    void finishTurn();
    void finishManualCompaction();
    // S28, S29: writes the compaction_applied, then replaces the history; summary may be an edited one.
    // edited: the person changed the reviewed summary (issue 16); recorded so the reopened chat says so too.
    void applyManualCompaction(const QString &summary, const QList<TranscriptItem> &transcript,
                               const CompactionStrategy &strategy, bool edited = false);
    void startManualCompaction(const QString &focus);
    void writeManualCompaction(const QString &summary, const QList<TranscriptItem> &transcript,
                               const CompactionStrategy &strategy, const QList<DroppedDetail> &dropped,
                               bool edited);
    void applyAutoCompaction(const StreamEvent &event);
    void commitAutoCompaction(const AutoCompactionInfo &info, const MessageList &persisted,
                              const QString &checkpointMessage, const Result<QList<quint64>> &written);
    void addUsage(const TokenUsage &usage);
    // Every request's usage goes to the usage ledger (/usage), whatever it was for.
    void recordUsage(const QString &kind, const TokenUsage &usage) const;
    void recordUsage(const QString &kind, const TokenUsage &usage, const ClientConfig &made) const;
    void addCompactionUsage(const std::optional<TokenUsage> &usage);
    void applyOpened(LoadedSession loaded, MessageList projected);
    qint64 contextWindow() const
    {
        return config.contextWindow > 0 ? config.contextWindow : ContextBudget::DefaultContextWindow;
    }
    // After a compaction applied: pins over their budget are kept, and the person hears of it.
    void checkPinBudget();
    // Issue 16: the pins of candidates that the next request would not carry: their text is in none of the
    // history's messages or replayed tool outputs (a typed note, Pin the Original, a message a summary
    // replaced, a tool result the history no longer replays). The same with or without an earlier
    // compaction; such a pin would otherwise reach the model only at the next compaction.
    bool opening = false; // openSessionAsync() is reading
};

void AgentSession::Private::rebuildTools()
{
    tools = std::make_shared<ToolRegistry>(createDefaultTools(interactive));
    if (!subagents.isEmpty())
        tools->add(std::make_shared<DelegateTaskTool>(subagentClientMaker(), subagentUsageRecorder(),
                                                      QDir::homePath(), mcp));
    if (mcp)
        tools->add(std::make_shared<CallMcpToolTool>(mcp));
    if (!policy) {
        policy = std::make_unique<PermissionPolicy>(workspace, broker, !interactive);
        // A damaged permissions.json is read on the worker; the person hears of it here.
        policy->setProblemReporter([session = q](const QString &message) {
            QMetaObject::invokeMethod(
                session, [session, message] { Q_EMIT session->errorOccurred(message); },
                Qt::QueuedConnection);
        });
    }
    policy->setWorkspace(workspace);
    policy->setPerson(interactive ? broker : nullptr);
    policy->setAutoApprove(!interactive);
    ToolContext context;
    context.workspace = workspace;
    context.dataDir = dataDirectory();
    context.hiddenEnvironment = hiddenEnvironment();
    context.permissions = policy.get();
    context.interactive = interactive;
    context.mode = mode;
    if (interactive) {
        InteractionBroker *b = broker;
        context.askUser = [b](const QJsonObject &input, const CancellationToken &cancel) {
            return b->ask(input, cancel);
        };
    }
    tools->setContext(context);
}

QStringList AgentSession::Private::hiddenEnvironment() const
{
    QStringList variables;
    for (const ProviderDescriptor &provider : ProviderTable::all())
        variables += provider.keyEnvironmentVariables;
    return variables;
}

void AgentSession::Private::startMcp()
{
    std::shared_ptr<McpHub> old = std::exchange(mcp, nullptr);
    if (old)
        old->setStatusListener({});
    if (!mcpServers.isEmpty()) {
        mcp = std::make_shared<McpHub>(workspace, dataDirectory(), hiddenEnvironment());
        // On the hub's thread: the session hears of it on its own (a session being destroyed ends its hub
        // first, so the posted call never outlives it).
        mcp->setStatusListener([session = q] {
            QMetaObject::invokeMethod(
                session,
                [session] {
                    session->reloadCatalogs(); // the servers' skills
                    session->d->tellMcpFailures();
                    Q_EMIT session->mcpStatusChanged();
                },
                Qt::QueuedConnection);
        });
        mcp->configure(mcpServers);
    }
    rebuildTools(); // the registry lets go of the old hub (a running turn keeps its own until it ends)
    // Stopping the old servers waits for their programs to exit: never on this thread.
    if (old)
        (void)QtConcurrent::run([old = std::move(old)]() mutable { old.reset(); });
    Q_EMIT q->mcpStatusChanged();
}

void AgentSession::Private::tellMcpFailures()
{
    const QStringList failures = q->mcpProblems();
    for (const QString &failure : failures) {
        // Signed out on purpose: "not signed in" is what the person asked for, not news.
        const bool signedOut =
            !mcpSignedOut.isEmpty() && failure.startsWith(mcpSignedOut + QStringLiteral(": "));
        if (signedOut)
            mcpSignedOut.clear();
        else if (!mcpFailuresTold.contains(failure))
            Q_EMIT q->notification(tr("MCP unavailable: %1").arg(failure));
    }
    mcpFailuresTold = failures; // a server that recovers and fails again is told again
}

DelegateTaskTool::ClientMaker AgentSession::Private::subagentClientMaker() const
{
    return [config = config, factory = factory,
            lookup = configLookup](const SubagentCatalog::Profile &profile) {
        using R = Result<std::shared_ptr<LlmClient>>;
        Result<ClientConfig> child = configFor(config, lookup, profile.provider, profile.model);
        if (!child)
            return R::failure(tr("the subagent %1 needs %2/%3: %4")
                                  .arg(profile.name, profile.provider, profile.model, child.error()));
        // On the conversation's model, a profile's effort that model does not offer is left out, as the
        // settings' is (ConfigResolver): the parent's effort stays.
        if (!profile.thinkingEffort.isEmpty()) {
            const auto info = ModelRegistry::builtIn().model(child->providerId, child->model);
            if (!info || info->thinkingEfforts.contains(profile.thinkingEffort))
                child->thinkingEffort = profile.thinkingEffort;
        }
        if (child->providerId.isEmpty())
            return R::failure(tr("No provider is configured yet. Open the provider settings to choose one."));
        return factory(*child);
    };
}

Result<ClientConfig> AgentSession::Private::configFor(const ClientConfig &current,
                                                      const AgentSession::ConfigLookup &lookup,
                                                      const QString &provider, const QString &model)
{
    if (provider.isEmpty() || provider == current.providerId) {
        ClientConfig same = current;
        if (!model.isEmpty())
            same.model = model;
        return same;
    }
    return lookup(provider, model);
}

DelegateTaskTool::UsageRecorder AgentSession::Private::subagentUsageRecorder() const
{
    // The session outlives the call: its destructor waits for the turn's worker, where the tool runs.
    return [session = q, config = config, ledger = UsageLedger::defaultPath(dataDirectory()),
            failure = ledgerFailure()](const SubagentCatalog::Profile &profile, const TokenUsage &usage) {
        const QString provider = profile.provider.isEmpty() ? config.providerId : profile.provider;
        const QString model = profile.model.isEmpty() ? config.model : profile.model;
        UsageLedger::record(
            ledger, {QDateTime::currentDateTimeUtc(), provider, model, QStringLiteral("subagent"), usage},
            failure);
        // The ↑/↓ totals count them like side questions; the context meter does not.
        QMetaObject::invokeMethod(
            session,
            [session, usage] {
                Private &d = *session->d;
                d.totalInput = TokenUsage::add(d.totalInput, usage.inputTokens);
                d.totalOutput = TokenUsage::add(d.totalOutput, usage.outputTokens);
                d.subagentUsage += usage;
                Q_EMIT session->usageChanged();
            },
            Qt::QueuedConnection);
    };
}

void AgentSession::Private::writePolicy()
{
    const CompactionPolicy written = compactionPolicy;
    whenFinished(writer->write({SessionEvent::compactionPolicy(written)}), q,
                 [this, written, id = session->id](const Result<QList<quint64>> &saved) {
                     if (!session || session->id != id)
                         return; // another conversation is open now
                     if (!saved) {
                         Q_EMIT q->errorOccurred(
                             tr("could not save the compaction policy: %1").arg(saved.error()));
                         return;
                     }
                     Q_EMIT q->compactionPolicySaved(written);
                 });
}

Result<void> AgentSession::Private::ensureClient()
{
    const bool sameConfig =
        client && clientBuiltFor.providerId == config.providerId && clientBuiltFor.model == config.model &&
        clientBuiltFor.baseUrl == config.baseUrl && clientBuiltFor.apiKey == config.apiKey &&
        clientBuiltFor.headers == config.headers && clientBuiltFor.thinkingEffort == config.thinkingEffort &&
        clientBuiltFor.contextWindow == config.contextWindow;
    if (sameConfig)
        return {};
    if (config.providerId.isEmpty())
        return Result<void>::failure(tr("No provider is configured yet. Open the "
                                        "provider settings to choose one."));
    auto built = factory(config);
    if (!built)
        return Result<void>::failure(built.error());
    client = *built;
    clientBuiltFor = config;
    // The old client's pending state goes with it (another provider, model or effort): the interrupted turns
    // it carried join the history now, where the transcript has them, or the next request would lose them.
    joinCarriedTurns();
    return {};
}

void AgentSession::Private::joinCarriedTurns()
{
    qsizetype inserted = 0;
    for (const CarriedTurn &carried : std::as_const(carriedTurns))
        history.insert(carried.at + inserted++, carried.message);
    carriedTurns.clear();
}

void AgentSession::Private::retireWriter()
{
    if (!writer)
        return;
    retiredEnd = writer->retire();
    SessionWriter *const ending = writer.get();
    retired.push_back(std::move(writer));
    whenFinished(retiredEnd, q, [this, ending] {
        // Everything it was given is on disk and its lock is free: its destructor waits only for its
        // thread's last instructions.
        std::erase_if(retired,
                      [ending](const std::unique_ptr<SessionWriter> &each) { return each.get() == ending; });
    });
}

std::unique_ptr<SessionWriter> AgentSession::Private::makeWriter(SessionWriter::Start start)
{
    // Its thread waits for the retired writers first: their events go before its own, and the lock of this
    // very session (opened again) is let go before it takes it.
    return std::make_unique<SessionWriter>(store, *session, start, retiredEnd);
}

Result<void> AgentSession::Private::ensureSession()
{
    if (session)
        return {};
    // Named here, created on the writer's thread (issue 11: no disk work on this thread). Listeners hear of
    // it once it is on disk; a failure reaches the turn through its user_message write, which fails with it.
    auto planned = store->plan(workspace);
    if (!planned)
        return Result<void>::failure(planned.error());
    session = *planned;
    retireWriter(); // without waiting: the new writer starts after it, on its own thread
    writer = makeWriter(SessionWriter::Start::Create);
    whenFinished(writer->created(), q, [this, id = session->id](const Result<QList<quint64>> &created) {
        if (created && session && session->id == id)
            Q_EMIT q->sessionChanged(id);
    });
    if (!compactionPolicy.isDefault())
        writePolicy(); // chosen before the first message (or `run --compact-threshold` on a new session)
    return {};
}

QString AgentSession::Private::userWriteError() const
{
    if (!userWrite || !userWrite->isFinished() || userWrite->resultCount() == 0)
        return {};
    const Result<QList<quint64>> written = userWrite->result();
    return written ? QString() : written.error();
}

bool AgentSession::Private::sessionNeverCreated() const
{
    if (!writer)
        return false;
    const QFuture<Result<QList<quint64>>> created = writer->created();
    return created.isFinished() && created.resultCount() > 0 && !created.result();
}

void AgentSession::Private::refreshPromptCache()
{
    const quint64 generation = ++promptGeneration;
    whenFinished(QtConcurrent::run([workspace = workspace, dataDir = dataDirectory()] {
                     return SystemPromptBuilder::build(workspace, dataDir, AgentMode::Build);
                 }),
                 q, [this, generation](const QString &prompt) {
                     if (generation != promptGeneration || prompt == promptCache)
                         return;
                     promptCache = prompt;
                     Q_EMIT q->systemPromptEstimated();
                 });
}

QString AgentSession::Private::estimatedSystemPrompt()
{
    // Before the worker's first build comes back (a few milliseconds after a folder opens) the estimate
    // has no system prompt: reading the folder's files here would be disk work on the GUI thread.
    // systemPromptEstimated() says when it is there.
    const QString modeText = SystemPromptBuilder::modeSection(mode);
    return modeText.isEmpty() ? promptCache : promptCache + QStringLiteral("\n\n") + modeText;
}

StreamRunner::Prepare AgentSession::Private::systemPromptOnWorker() const
{
    return [workspace = workspace, dataDir = dataDirectory(),
            mode = mode](MessageList &messages, const StreamRunner::Notify &notify) {
        for (Message &message : messages) {
            if (message.role == Message::Role::System && message.content.isEmpty()) {
                QStringList warnings;
                message.content = SystemPromptBuilder::build(workspace, dataDir, mode, &warnings);
                // A memory or instructions file that could not be read: said, and the turn goes on.
                for (const QString &warning : std::as_const(warnings))
                    notify(StreamEvent::notice(warning));
                return true;
            }
        }
        return true;
    };
}

void AgentSession::Private::startStream(const MessageList &request, const StreamOptions &options,
                                        StreamRunner::Prepare prepare,
                                        std::optional<QFuture<Result<QList<quint64>>>> userMessage)
{
    ++turnGeneration;
    recorder.clear();
    recorder.setWorkspace(workspace);
    recorder.setRetainOutputs(toolHistoryFull);
    terminal.reset();
    turnFailedToPersist = false;
    parentCancel = shutdown.child();
    commitPending = false;
    finishDeferred = false;
    userWrite = userMessage;
    if (userMessage) {
        // The worker, not this thread, waits for the person's words to be on disk before they are sent; after
        // a failed write nothing is sent (finishTurn reports why).
        prepare = [written = *userMessage, prepare](MessageList &messages,
                                                    const StreamRunner::Notify &notify) {
            QFuture<Result<QList<quint64>>> waited = written;
            waited.waitForFinished();
            if (!waited.result())
                return false;
            return prepare ? prepare(messages, notify) : true;
        };
    }
    // Parented too, so a runner released to deleteLater() is still deleted with the session.
    if (!streamThread)
        streamThread = std::make_unique<WorkerThread>(QStringLiteral("keen-stream"));
    runner = std::make_unique<StreamRunner>(*streamThread, q);
    QObject::connect(runner.get(), &StreamRunner::event, q,
                     [this](const StreamEvent &event) { onEvent(event); });
    QObject::connect(runner.get(), &StreamRunner::finished, q, [this] { onFinished(); });
    runner->start(client, request, tools, options, parentCancel, std::move(prepare));
}

void AgentSession::Private::recordUsage(const QString &kind, const TokenUsage &usage) const
{
    // The client that made the request.
    recordUsage(kind, usage, clientBuiltFor.providerId.isEmpty() ? config : clientBuiltFor);
}

void AgentSession::Private::recordUsage(const QString &kind, const TokenUsage &usage,
                                        const ClientConfig &made) const
{
    UsageLedger::record(UsageLedger::defaultPath(dataDirectory()),
                        {QDateTime::currentDateTimeUtc(), made.providerId, made.model, kind, usage},
                        ledgerFailure());
}

std::function<void(const QString &)> AgentSession::Private::ledgerFailure() const
{
    // Called on the ledger's thread, which the session's destructor waits for; a call queued to a session
    // deleted since is dropped.
    return [session = q](const QString &why) {
        QMetaObject::invokeMethod(
            session, [session, why] { Q_EMIT session->usageNotRecorded(why); }, Qt::QueuedConnection);
    };
}

void AgentSession::Private::addUsage(const TokenUsage &usage)
{
    recordUsage(QStringLiteral("turn"), usage);
    lastUsage = usage;
    totalInput = TokenUsage::add(totalInput, usage.inputTokens); // saturating: counts are untrusted
    totalOutput = TokenUsage::add(totalOutput, usage.outputTokens);
    Q_EMIT q->usageChanged();
}

void AgentSession::Private::addCompactionUsage(const std::optional<TokenUsage> &usage)
{
    if (!usage)
        return;
    recordUsage(QStringLiteral("compaction"), *usage);
    compactionUsage += *usage;
    Q_EMIT q->usageChanged();
}

void AgentSession::Private::onEvent(const StreamEvent &event)
{
    if (turnFailedToPersist)
        return; // the turn is being stopped: late events of it are dropped
    switch (event.type) {
    case StreamEvent::Type::AutoCompactionStarted:
        compaction = CompactionMode::Automatic; // S49
        if (event.autoCompaction)
            childCancel = event.autoCompaction->cancel;
        Q_EMIT q->compactionStarted(CompactionMode::Automatic);
        return;
    case StreamEvent::Type::AutoCompactionCancelled:
    case StreamEvent::Type::AutoCompactionFailed:
        compaction = CompactionMode::None; // S52: history untouched, the parent goes on
        childCancel = CancellationToken();
        if (event.autoCompaction)
            addCompactionUsage(event.autoCompaction->usage);
        Q_EMIT q->compactionFinished(CompactionMode::Automatic, false, event.error);
        return;
    case StreamEvent::Type::AutoCompactionApplied:
        applyAutoCompaction(event);
        return;
    case StreamEvent::Type::Notice:
        recorder.record(event);
        Q_EMIT q->streamEvent(event);
        return;
    case StreamEvent::Type::CompactionSliced:
        // The private earlier parts of a manual compaction: their cost, and how it fit for the event.
        if (event.autoCompaction) {
            manualStrategy = event.autoCompaction->strategy;
            addCompactionUsage(event.autoCompaction->usage);
        }
        Q_EMIT q->streamEvent(event);
        return;
    case StreamEvent::Type::Usage:
        if (compaction == CompactionMode::Manual)
            addCompactionUsage(event.usage);
        else if (event.usage)
            addUsage(*event.usage);
        break;
    case StreamEvent::Type::Retry:
        recorder.rewindForRetry();
        break;
    case StreamEvent::Type::Done:
    case StreamEvent::Type::Error:
    case StreamEvent::Type::Incomplete:
        terminal = event;
        break;
    default:
        recorder.record(event);
        break;
    }
    Q_EMIT q->streamEvent(event);
}

void AgentSession::Private::applyAutoCompaction(const StreamEvent &event)
{
    compaction = CompactionMode::None;
    childCancel = CancellationToken();
    const AutoCompactionInfo info = event.autoCompaction.value_or(AutoCompactionInfo());
    addCompactionUsage(info.usage); // spent whether or not the result can be saved
    const MessageList persisted = withoutSystemMessages(info.replacement); // S53, S55
    if (persisted.isEmpty()) {
        const QString why = tr("automatic compaction applied without replacement history");
        if (info.commit)
            info.commit->reject(why);
        Q_EMIT q->compactionFinished(CompactionMode::Automatic, false, why);
        return;
    }
    // S53, S60, S61: the visible output so far and the replacement are written
    // together, then applied.
    if (!writer) {
        if (info.commit)
            info.commit->reject(tr("no session is open"));
        Q_EMIT q->compactionFinished(CompactionMode::Automatic, false, tr("no session is open"));
        return;
    }
    const RecordedTurn checkpoint = recorder.checkpoint(); // what comes after starts a fresh turn memory
    const QList<SessionEvent> batch{
        SessionEvent::assistantTurn(checkpoint.transcript, checkpoint.message, checkpoint.turnMemory, false,
                                    QString()),
        withSessionUsage(
            SessionEvent::compactionApplied(QString(), {}, persisted, info.strategy, info.dropped)), // S64
    };
    // The commit waits for its batch: the worker stays held until the batch is on disk (S60, S61), this
    // thread goes on and applies it when the writer reports back. A stream that ends meanwhile ends after it.
    commitPending = true;
    whenFinished(writer->write(batch), q,
                 [this, info, persisted, message = checkpoint.message,
                  generation = turnGeneration](const Result<QList<quint64>> &written) {
                     if (generation != turnGeneration) {
                         if (info.commit)
                             info.commit->reject(tr("the conversation was closed"));
                         return;
                     }
                     commitPending = false;
                     commitAutoCompaction(info, persisted, message, written);
                     if (std::exchange(finishDeferred, false))
                         onFinished();
                 });
}

void AgentSession::Private::commitAutoCompaction(const AutoCompactionInfo &info, const MessageList &persisted,
                                                 const QString &checkpointMessage,
                                                 const Result<QList<quint64>> &written)
{
    if (!written) {
        const QString why = tr("could not save the automatic compaction: %1").arg(written.error());
        turnFailedToPersist = true;
        if (info.commit)
            info.commit->reject(written.error());
        client->reset();
        parentCancel.cancel();
        Q_EMIT q->compactionFinished(CompactionMode::Automatic, false, why);
        Q_EMIT q->errorOccurred(why);
        return;
    }
    history = persisted;
    contextEstimator = ContextEstimator(); // lets go of the replaced history's text
    carriedTurns.clear();                  // they were in the history it replaced
    undoableSeq = written->value(1);
    lastUsage.reset(); // metrics restart from the next usage report
    if (info.commit)
        info.commit->accept();
    if (parentCancel.isCancelled())
        client->reset(); // the loop may have stopped before it took the replacement: the summary holds it all
    Q_EMIT q->usageChanged();
    Q_EMIT q->historyReplaced();
    Q_EMIT q->autoCompactionCheckpointed(checkpointMessage);
    // Issue 16: how an over-budget compaction fit (empty for the seed's single request).
    const QString strategy = info.strategy.describe();
    Q_EMIT q->compactionFinished(CompactionMode::Automatic, true, strategy);
    Q_EMIT q->droppedDetailsFound(undoableSeq, true, info.dropped);
    Q_EMIT q->notification(strategy.isEmpty() ? tr("Context compacted automatically.")
                                              : tr("Context compacted automatically (%1).").arg(strategy));
    checkPinBudget();
}

void AgentSession::Private::checkPinBudget()
{
    const qint64 used = q->pinnedTokens();
    const qint64 budget = q->pinBudget();
    if (used <= budget) {
        pinBudgetWarned.reset();
        return;
    }
    const auto warning = std::make_tuple(q->sessionId(), used, budget);
    if (pinBudgetWarned == warning)
        return; // said already: the pins and the budget are as they were
    pinBudgetWarned = warning;
    Q_EMIT q->pinBudgetExceeded(used, budget);
}

// Runs inside the slot that the runner's own finished() invoked: deleting the runner there would destroy the
// sender during its emission. Its thread is done, so it is only handed to the event loop to delete.
void AgentSession::Private::releaseFinishedRunner()
{
    if (!runner)
        return;
    QObject::disconnect(runner.get(), nullptr, q, nullptr);
    runner.release()->deleteLater();
}

void AgentSession::Private::onFinished()
{
    if (commitPending) {
        finishDeferred = true;
        return;
    }
    if (compaction == CompactionMode::Manual)
        finishManualCompaction();
    else
        finishTurn();
}

void AgentSession::Private::finishTurn()
{
    compaction = CompactionMode::None;
    childCancel = CancellationToken();
    const bool cancelled = parentCancel.isCancelled() && !turnFailedToPersist;
    if (cancelled)
        recorder.interruptRunningTools(tr("Interrupted by the user."));
    const RecordedTurn turn = recorder.checkpoint();
    if (const QString lost = userWriteError(); !lost.isEmpty()) {
        // The request never left (the worker waited for the message): the turn did not happen.
        while (history.size() > turnHistoryStart && history.constLast().role == Message::Role::User)
            history.removeLast(); // the words, and pins that were to go in with them
        const QString why = tr("could not save the message: %1").arg(lost);
        if (sessionNeverCreated()) {
            session.reset();
            retireWriter(); // its queue fails with the creation's error, on its thread
        }
        endTurn(TurnOutcome::Error,
                why); // the turn's error, shown once (errorOccurred as well showed it twice)
        return;
    }
    TurnOutcome outcome = TurnOutcome::Done;
    QString error;
    if (turnFailedToPersist) {
        outcome = TurnOutcome::Error;
        error = tr("the automatic compaction could not be saved; the turn was stopped");
    } else if (cancelled) {
        outcome = TurnOutcome::Cancelled;
    } else if (!terminal) {
        outcome = TurnOutcome::Error;
        error = tr("the provider stream ended without a result");
    } else if (terminal->type == StreamEvent::Type::Error) {
        outcome = TurnOutcome::Error;
        error = terminal->error;
    } else if (terminal->type == StreamEvent::Type::Incomplete) {
        outcome = TurnOutcome::Incomplete;
        error = terminal->error;
    }

    if (turnFailedToPersist) {
        endTurn(outcome, error);
        return;
    }
    // Memory mirrors the projection. A turn that ran tools and did not finish is carried to the next request
    // by the client's pending state instead, so it is not replayed twice; once a later turn ends done, the
    // client has let go of that state and the carried turns join the history where the transcript has them
    // (before, the next requests but one lost them, while the same session reopened sent them).
    const bool carriedByPending = outcome != TurnOutcome::Done && turn.turnMemory.toolActivity.size() > 0;
    const Message reply = Message::assistant(
        turn.message, turn.turnMemory.isEmpty() ? std::nullopt : std::optional<TurnMemory>(turn.turnMemory));
    if (carriedByPending)
        carriedTurns.append({history.size(), reply});
    else if (!turn.message.isEmpty() || !turn.turnMemory.isEmpty())
        history.append(reply);
    if (outcome == TurnOutcome::Done)
        joinCarriedTurns();
    const bool interrupted = outcome == TurnOutcome::Cancelled;
    if (turn.isEmpty() && outcome == TurnOutcome::Done) {
        endTurn(outcome, error);
        return;
    }
    if (!writer) {
        Q_EMIT q->errorOccurred(tr("could not save the reply: %1").arg(tr("no session is open")));
        endTurn(outcome, error);
        return;
    }
    // The reply is written on the writer's thread; the turn ends when it is on disk, so whoever reads the
    // transcript after turnFinished finds it, and this thread never waits for the disk.
    whenFinished(writer->write({withSessionUsage(SessionEvent::assistantTurn(
                     turn.transcript, turn.message, turn.turnMemory, interrupted, error))}),
                 q,
                 [this, outcome, error, generation = turnGeneration](const Result<QList<quint64>> &written) {
                     if (generation != turnGeneration)
                         return; // a new conversation started meanwhile: this turn was dropped with it
                     if (!written)
                         Q_EMIT q->errorOccurred(tr("could not save the reply: %1").arg(written.error()));
                     endTurn(outcome, error);
                 });
}

void AgentSession::Private::endTurn(TurnOutcome outcome, const QString &error)
{
    releaseFinishedRunner();
    // The turn may have written the memory, the instructions or a skill: read the folder again (the prompt
    // for the estimate follows the skills).
    q->reloadCatalogs();
    Q_EMIT q->turnFinished(outcome, error);
}

void AgentSession::Private::finishManualCompaction()
{
    compaction = CompactionMode::None;
    const bool cancelled = parentCancel.isCancelled();
    const QString summary = recorder.textAfterLastToolActivity().trimmed(); // S24
    const RecordedTurn visible = recorder.checkpoint();
    QString failure;
    if (cancelled) {
        failure = tr("Compaction cancelled.");
    } else if (!terminal || terminal->type != StreamEvent::Type::Done) {
        const QString reason = terminal ? terminal->error : tr("the stream ended without a result");
        failure = tr("Compaction failed: %1").arg(reason);
    } else if (summary.isEmpty()) {
        failure = tr("Compaction failed: %1").arg(QStringLiteral("compaction returned empty summary")); // S27
    }
    if (failure.isEmpty() && !writer)
        failure = tr("Compaction failed: %1").arg(tr("no session is open"));
    if (failure.isEmpty() && reviewCompaction) {
        // Issue 16: the person reviews it first; the stream is over, the compaction is not.
        releaseFinishedRunner();
        review = Review{summary, visible.transcript, manualStrategy};
        Q_EMIT q->compactionReviewRequested(summary, history);
        return;
    }
    if (failure.isEmpty()) {
        applyManualCompaction(summary, visible.transcript, manualStrategy);
        return;
    }
    releaseFinishedRunner();
    Q_EMIT q->compactionFinished(CompactionMode::Manual, false, failure);
    Q_EMIT q->turnFinished(cancelled ? TurnOutcome::Cancelled : TurnOutcome::Error, failure);
}

void AgentSession::Private::applyManualCompaction(const QString &summary,
                                                  const QList<TranscriptItem> &transcript,
                                                  const CompactionStrategy &strategy, bool edited)
{
    applyingManual = true; // busy until it is on disk, also after a review (no runner then)
    // Issue 16: what the summary left out of the history it replaces, found off this thread (regular
    // expressions over the whole history), then saved with the compaction. What the pins keep is not dropped.
    const QString kept =
        CompactionPrompts::manualReplacement(summary, CompactionPrompts::pinnedContext(pins));
    whenFinished(
        QtConcurrent::run([replaced = history, kept] { return DroppedDetails::find(replaced, kept); }), q,
        [this, summary, transcript, strategy, edited,
         generation = turnGeneration](const QList<DroppedDetail> &dropped) {
            if (generation != turnGeneration)
                return; // a new conversation started meanwhile
            writeManualCompaction(summary, transcript, strategy, dropped, edited);
        });
}

void AgentSession::Private::writeManualCompaction(const QString &summary,
                                                  const QList<TranscriptItem> &transcript,
                                                  const CompactionStrategy &strategy,
                                                  const QList<DroppedDetail> &dropped, bool edited)
{
    // S28, S29: persisted first, so a failed write leaves history and transcript unchanged (S30). Written on
    // the writer's thread; the compaction stays busy until it is on disk.
    // Issue 16: the pins follow the summary verbatim; without pins this is the seed's message exactly.
    const MessageList replacement{
        Message::user(CompactionPrompts::manualReplacement(summary, CompactionPrompts::pinnedContext(pins)))};
    const SessionEvent applied = withSessionUsage(SessionEvent::compactionApplied(
        QStringLiteral("Context compacted."), transcript, replacement, strategy, dropped, edited));
    whenFinished(writer->write({applied}), q,
                 [this, summary, replacement, dropped,
                  generation = turnGeneration](const Result<QList<quint64>> &written) {
                     if (generation != turnGeneration)
                         return; // a new conversation started meanwhile
                     applyingManual = false;
                     releaseFinishedRunner();
                     if (!written) {
                         const QString failure = tr("Compaction failed: %1").arg(written.error());
                         Q_EMIT q->compactionFinished(CompactionMode::Manual, false, failure);
                         Q_EMIT q->turnFinished(TurnOutcome::Error, failure);
                         return;
                     }
                     history = replacement;
                     contextEstimator = ContextEstimator(); // lets go of the replaced history's text
                     carriedTurns.clear();                  // they were in the history it replaced
                     undoableSeq = written->first();
                     lastUsage.reset(); // it measured the replaced history
                     client->reset();   // the pending state the request carried is part of the summary now
                     Q_EMIT q->usageChanged();
                     Q_EMIT q->historyReplaced();
                     Q_EMIT q->compactionFinished(CompactionMode::Manual, true, summary);
                     Q_EMIT q->droppedDetailsFound(undoableSeq, false, dropped);
                     Q_EMIT q->turnFinished(TurnOutcome::Done, QString());
                     checkPinBudget();
                 });
}

void AgentSession::Private::startManualCompaction(const QString &focus)
{
    // S19, S20, S23: the same system prompt and history as a regular turn, the prompt as the last message.
    MessageList request{Message::system(QString())}; // filled on the worker, as for a turn
    request.append(history);
    // Issue 16: the session's detail guidance follows the seed's prompt; by default there is none.
    request.append(Message::user(
        CompactionPrompts::withDetail(CompactionPrompts::manualPrompt(focus), compactionPolicy.detail)));
    StreamOptions options;
    options.sessionId = session->id;
    options.disableToolCalls = true;      // S21
    options.disableAutoCompaction = true; // S22
    options.keepPendingState = true;      // S30: a compaction that does not apply changes nothing
    options.manualCompaction = true;      // sliced when it would not fit the input budget (issue 16)
    options.compactionPolicy = compactionPolicy;
    manualStrategy = CompactionStrategy();
    compaction = CompactionMode::Manual;
    Q_EMIT q->compactionStarted(CompactionMode::Manual);
    startStream(request, options, systemPromptOnWorker());
}

AgentSession::AgentSession(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->broker = new InteractionBroker(this);
    // A tool posts its tool_start before it asks, but the runner delivers stream events at a pace while the
    // broker's request comes at once: what the runner still holds goes first, so the tool's card is always
    // above its prompt (the tools of a reply run one after another, so each prompt follows its own card).
    connect(d->broker, &InteractionBroker::permissionRequested, this,
            [this](const PermissionRequest &request) {
                if (d->runner)
                    d->runner->deliverPending();
                d->askedPermissions.insert(request.id, request);
                Q_EMIT permissionRequested(request);
            });
    connect(d->broker, &InteractionBroker::questionAsked, this,
            [this](quint64 questionId, const QJsonObject &questions) {
                if (d->runner)
                    d->runner->deliverPending();
                Q_EMIT questionAsked(questionId, UserQuestion::listFrom(questions));
            });
    connect(d->broker, &InteractionBroker::settled, this, [this](quint64 requestId) {
        // Still asked here, it was not answered: the turn was stopped while it waited.
        if (const auto asked = d->askedPermissions.constFind(requestId);
            asked != d->askedPermissions.cend()) {
            d->recorder.recordPermission(asked->callId, AnsweredPermission::unansweredOf(*asked));
            d->askedPermissions.erase(asked);
        }
        Q_EMIT interactionSettled(requestId);
    });
    d->rebuildTools();
}

AgentSession::~AgentSession()
{
    if (d->mcp)
        d->mcp->setStatusListener({}); // its servers are stopped with it, below
    d->broker->cancelAll();
    d->runner.reset();
    d->aside.reset();
    UsageLedger::flush(); // a headless run exits after this: its usage is on disk
}

void AgentSession::setWorkspace(const QString &absolutePath)
{
    const QString before = d->workspace;
    d->workspace = QDir(absolutePath).absolutePath();
    if (d->mcp && d->workspace != before)
        d->startMcp(); // local servers run in the folder worked in
    d->rebuildTools();
    d->promptCache.clear(); // another folder's files
    d->refreshPromptCache();
}

QString AgentSession::workspace() const
{
    return d->workspace;
}

void AgentSession::setClientConfig(const ClientConfig &config)
{
    d->config = config;
    if (!d->subagents.isEmpty())
        d->rebuildTools(); // delegate_task's children run on this configuration
}

const ClientConfig &AgentSession::clientConfig() const
{
    return d->config;
}

void AgentSession::setClientFactory(ClientFactory factory)
{
    d->factory = std::move(factory);
    d->client.reset();
    if (!d->subagents.isEmpty())
        d->rebuildTools();
}

void AgentSession::setSessionStore(std::shared_ptr<SessionStore> store)
{
    d->store = std::move(store);
}

SessionStore &AgentSession::sessionStore() const
{
    return *d->store;
}

void AgentSession::setMode(AgentMode mode)
{
    d->mode = mode;
    d->rebuildTools();
}

AgentMode AgentSession::mode() const
{
    return d->mode;
}

void AgentSession::setToolHistoryFull(bool full)
{
    d->toolHistoryFull = full;
}

bool AgentSession::toolHistoryFull() const
{
    return d->toolHistoryFull;
}

void AgentSession::setInteractive(bool interactive)
{
    d->interactive = interactive;
    d->rebuildTools();
}

bool AgentSession::isInteractive() const
{
    return d->interactive;
}

void AgentSession::setCompactionPolicy(const CompactionPolicy &policy)
{
    if (policy == d->compactionPolicy)
        return;
    d->compactionPolicy = policy;
    Q_EMIT compactionPolicyChanged(policy);
    if (d->writer)
        d->writePolicy(); // else written when the session is created (ensureSession)
}

CompactionPolicy AgentSession::compactionPolicy() const
{
    return d->compactionPolicy;
}

void AgentSession::changeProjectPermissions(const QStringList &toolNames, bool allow)
{
    whenFinished(QtConcurrent::run([workspace = d->workspace, toolNames, allow] {
                     return allow ? ProjectAllowList::allow(workspace, toolNames)
                                  : ProjectAllowList::reset(workspace, toolNames);
                 }),
                 this, [this, toolNames, allow](const Result<QStringList> &written) {
                     if (!written) {
                         Q_EMIT errorOccurred(written.error());
                         return;
                     }
                     Q_EMIT projectPermissionsChanged(allow, toolNames, *written);
                 });
}

Result<void> AgentSession::submit(const QString &text)
{
    if (isBusy())
        return Result<void>::failure(tr("Operation not permitted"));
    if (text.trimmed().isEmpty())
        return Result<void>::failure(tr("prompt is required"));
    if (auto ready = d->ensureClient(); !ready)
        return ready;
    if (auto opened = d->ensureSession(); !opened)
        return opened;
    // The person's words only: the mode is part of the fresh system prompt (S20). Written on the writer's
    // thread; the worker sends the request once they are on disk.
    QList<SessionEvent> batch;
    d->turnHistoryStart = d->history.size();
    // Issue 16: pins the history does not hold (added while busy, or before this app wrote pinned_context)
    // go in before the words, in the same batch.
    if (const PinList missing = pinsMissingFromHistory(d->history, d->pins); !missing.isEmpty()) {
        QStringList ids;
        for (const Pin &pin : missing)
            ids.append(pin.id);
        const QString context = CompactionPrompts::pinnedContext(missing);
        batch.append(SessionEvent::pinnedContext(ids, context));
        d->history.append(Message::user(context));
    }
    batch.append(SessionEvent::userMessage(text));
    const QFuture<Result<QList<quint64>>> written = d->writer->write(batch);
    d->history.append(Message::user(text));

    // S33, S55: fresh each turn; built on the worker (systemPromptOnWorker).
    MessageList request{Message::system(QString())};
    request.append(d->history);
    StreamOptions options;
    options.sessionId = d->session->id;
    options.disableWriteToolCalls = d->mode == AgentMode::Plan;
    options.awaitCompactionCommit = true;
    options.compactionPolicy = d->compactionPolicy;
    options.pinnedContext = CompactionPrompts::pinnedContext(d->pins); // issue 16
    Q_EMIT turnStarted(text);
    d->startStream(request, options, d->systemPromptOnWorker(), written);
    return {};
}

Result<void> AgentSession::runShellCommand(const QString &command)
{
    if (isBusy())
        return Result<void>::failure(tr("Operation not permitted"));
    if (command.trimmed().isEmpty())
        return Result<void>::failure(tr("Usage: !<command>"));
    d->shell = std::make_unique<ShellCommand>(command, d->tools->context(), d->shutdown.child());
    connect(d->shell.get(), &ShellCommand::toolEvent, this, &AgentSession::streamEvent);
    connect(d->shell.get(), &ShellCommand::finished, this, [this] {
        // Deleted later: this runs in the command's own signal.
        ShellCommand *done = d->shell.release();
        const bool cancelled = done->isCancelled();
        done->deleteLater();
        Q_EMIT shellCommandFinished(cancelled);
    });
    Q_EMIT shellCommandStarted(command);
    d->shell->start();
    return {};
}

Result<void> AgentSession::askAside(const QString &question)
{
    if (question.trimmed().isEmpty())
        return Result<void>::failure(tr("Usage: /btw <question>"));
    if (const Result<void> free = d->asideAllowed(); !free)
        return free;
    if (const Result<void> created = d->createAside(QStringLiteral("aside"), d->config); !created)
        return created;
    Q_EMIT asideStarted(question);
    d->aside->start(AsideQuestion::request(d->history, question, d->workspace));
    return {};
}

Result<void> AgentSession::reviewConversation(const QString &focus)
{
    if (isBusy())
        return Result<void>::failure(tr("Operation not permitted"));
    if (d->history.isEmpty())
        return Result<void>::failure(tr("Nothing to review yet: the conversation is empty."));
    if (const Result<void> free = d->asideAllowed(); !free)
        return free;
    if (d->reviewerProvider.isEmpty() || d->reviewerProvider == d->config.providerId) {
        const Result<ClientConfig> made =
            Private::configFor(d->config, d->configLookup, d->reviewerProvider, d->reviewerModel);
        if (const Result<void> created = d->createAside(QStringLiteral("review"), *made); !created)
            return created;
        Q_EMIT reviewStarted(focus);
        d->startReview(focus, *made);
        return {};
    }
    // Another provider: its key is looked up off this thread; the review's row shows meanwhile.
    d->reviewerResolving = true;
    const quint64 request = ++d->reviewerRequest;
    Q_EMIT reviewStarted(focus);
    const QString provider = d->reviewerProvider;
    const QString model = d->reviewerModel;
    whenFinished(
        QtConcurrent::run([current = d->config, lookup = d->configLookup, provider, model] {
            return Private::configFor(current, lookup, provider, model);
        }),
        this, [this, request, focus, provider, model](const Result<ClientConfig> &made) {
            if (request != d->reviewerRequest)
                return; // cancelled meanwhile
            d->reviewerResolving = false;
            if (!made) {
                Q_EMIT asideFinished(
                    tr("The reviewer %1/%2 cannot be used: %3").arg(provider, model, made.error()), false);
                return;
            }
            if (const Result<void> created = d->createAside(QStringLiteral("review"), *made); !created) {
                Q_EMIT asideFinished(created.error(), false);
                return;
            }
            d->startReview(focus, *made);
        });
    return {};
}

void AgentSession::Private::startReview(const QString &focus, const ClientConfig &made)
{
    const qint64 window = made.contextWindow > 0 ? made.contextWindow : contextWindow();
    aside->startReview(
        AsideQuestion::reviewRequest(history, focus, workspace, ContextBudget::inputBudget(window)), *tools);
}

void AgentSession::setReviewerModel(const QString &provider, const QString &model)
{
    d->reviewerProvider = provider;
    d->reviewerModel = provider.isEmpty() ? QString() : model;
}

QString AgentSession::reviewerModel() const
{
    return d->reviewerProvider.isEmpty() ? QString()
                                         : d->reviewerProvider + QLatin1Char('/') + d->reviewerModel;
}

void AgentSession::setConfigLookup(ConfigLookup lookup)
{
    d->configLookup = std::move(lookup);
    if (!d->subagents.isEmpty())
        d->rebuildTools(); // delegate_task's children look up their providers with it
}

Result<void> AgentSession::Private::asideAllowed() const
{
    if (aside || reviewerResolving)
        return Result<void>::failure(AgentSession::tr("A side question is being answered; Esc cancels it."));
    if (config.providerId.isEmpty())
        return Result<void>::failure(
            AgentSession::tr("No provider is configured yet. Open the provider settings to choose "
                             "one."));
    return {};
}

Result<void> AgentSession::Private::createAside(const QString &usageKind, const ClientConfig &made)
{
    // A client of its own: the turn's client keeps its pending state and its connection to itself.
    auto client = factory(made);
    if (!client)
        return Result<void>::failure(client.error());
    aside = std::make_unique<AsideQuestion>(*client, shutdown.child());
    QObject::connect(aside.get(), &AsideQuestion::event, q,
                     [this, usageKind, made](const StreamEvent &event) {
                         if (event.type == StreamEvent::Type::Usage && event.usage) {
                             recordUsage(usageKind, *event.usage, made);
                             totalInput = TokenUsage::add(totalInput, event.usage->inputTokens);
                             totalOutput = TokenUsage::add(totalOutput, event.usage->outputTokens);
                             Q_EMIT q->usageChanged();
                         }
                         Q_EMIT q->asideEvent(event);
                     });
    QObject::connect(aside.get(), &AsideQuestion::finished, q, [this](const QString &error, bool cancelled) {
        // Deleted later: this runs in its own signal.
        aside.release()->deleteLater();
        Q_EMIT q->asideFinished(error, cancelled);
    });
    return {};
}

bool AgentSession::isAsideRunning() const
{
    return d->aside != nullptr || d->reviewerResolving;
}

bool AgentSession::cancelAside()
{
    if (d->reviewerResolving) {
        // Its provider was still being looked up: nothing runs yet.
        d->reviewerResolving = false;
        ++d->reviewerRequest;
        Q_EMIT asideFinished(QString(), true);
        return true;
    }
    if (!d->aside || d->aside->isCancelled())
        return false;
    d->aside->cancel();
    return true;
}

Result<void> AgentSession::compact(const QString &focus)
{
    if (isBusy())
        return Result<void>::failure(tr("Operation not permitted"));
    if (d->history.isEmpty())
        return Result<void>::failure(tr("Nothing to compact yet: the conversation is empty."));
    if (auto ready = d->ensureClient(); !ready)
        return ready;
    if (auto opened = d->ensureSession(); !opened)
        return opened;
    d->startManualCompaction(focus);
    return {};
}

namespace {

// What a worker works out for undoCompaction().
struct UndoPlan
{
    QString error;
    quint64 target = 0;
    quint64 nextUndoable = 0;
    MessageList history;
    qint64 estimatedTokens = 0;
};

} // namespace

void AgentSession::undoCompaction(quint64 appliedSeq)
{
    if (isBusy() || d->opening) {
        Q_EMIT undoCompactionFailed(tr("Operation not permitted"));
        return;
    }
    if (!d->session || !d->writer) {
        Q_EMIT undoCompactionFailed(tr("This conversation has no compaction to undo."));
        return;
    }
    d->undoing = true;
    const quint64 generation = d->turnGeneration;
    const std::shared_ptr<SessionStore> store = d->store;
    const std::shared_ptr<ToolRegistry> tools = d->tools;
    const QString id = d->session->id;
    const QString workspace = d->workspace;
    const QString dataDir = dataDirectory();
    const AgentMode mode = d->mode;
    const qint64 window =
        d->config.contextWindow > 0 ? d->config.contextWindow : ContextBudget::DefaultContextWindow;
    // Reading the transcript, the projection and the estimate (it reads the project instructions) stay off
    // this thread.
    whenFinished(
        QtConcurrent::run([=] {
            UndoPlan plan;
            Result<LoadedSession> loaded = store->load(id);
            if (!loaded) {
                plan.error = loaded.error();
                return plan;
            }
            QList<SessionEvent> events = std::move(loaded->events);
            const Result<quint64> target = CompactionUndo::target(events, appliedSeq);
            if (!target) {
                plan.error = target.error();
                return plan;
            }
            plan.target = *target;
            SessionEvent revert = SessionEvent::compactionReverted(plan.target, QString());
            revert.seq = events.isEmpty() ? 1 : events.constLast().seq + 1;
            events.append(revert);
            plan.history = buildConversation(events);
            for (Message &message : plan.history) {
                if (message.role == Message::Role::User)
                    message.content = stripModeSuffix(message.content);
            }
            plan.nextUndoable = CompactionUndo::latestInEffect(events);
            plan.estimatedTokens =
                ContextEstimator::breakdown(SystemPromptBuilder::build(workspace, dataDir, mode), *tools,
                                            plan.history, window, std::nullopt)
                    .totalTokens;
            return plan;
        }),
        this, [this, generation, window](UndoPlan plan) {
            if (generation != d->turnGeneration || !d->writer) {
                d->undoing = false;
                return; // another conversation started meanwhile
            }
            if (!plan.error.isEmpty()) {
                d->undoing = false;
                Q_EMIT undoCompactionFailed(plan.error);
                return;
            }
            whenFinished(
                d->writer->write(
                    {SessionEvent::compactionReverted(plan.target, QStringLiteral("Compaction undone."))}),
                this, [this, generation, window, plan](const Result<QList<quint64>> &written) {
                    d->undoing = false;
                    if (generation != d->turnGeneration)
                        return;
                    if (!written) {
                        Q_EMIT undoCompactionFailed(tr("could not save the undo: %1").arg(written.error()));
                        return;
                    }
                    d->history = plan.history;
                    d->contextEstimator = ContextEstimator(); // lets go of the summary's history
                    d->carriedTurns.clear();                  // they were in the history it replaced
                    d->undoableSeq = plan.nextUndoable;
                    d->lastUsage.reset(); // it measured the compacted history
                    if (d->client)
                        d->client->reset(); // pending state belonged to the compacted history
                    Q_EMIT usageChanged();
                    Q_EMIT historyReplaced();
                    Q_EMIT compactionUndone(plan.target, plan.estimatedTokens,
                                            ContextBudget::inputBudget(window));
                });
        });
}

const PinList &AgentSession::pins() const
{
    return d->pins;
}

void AgentSession::setPinBudgetPercent(int percent)
{
    d->pinBudgetPercent = std::clamp(percent, 1, 100);
}

int AgentSession::pinBudgetPercent() const
{
    return d->pinBudgetPercent;
}

qint64 AgentSession::pinBudget() const
{
    return ContextBudget::inputBudget(d->contextWindow()) * d->pinBudgetPercent / 100;
}

qint64 AgentSession::pinTokens(const PinList &pins)
{
    const QString block = CompactionPrompts::pinnedContext(pins);
    return ContextBudget::estimateTokens(ContextBudget::utf8Bytes(block));
}

qint64 AgentSession::pinnedTokens() const
{
    return pinTokens(d->pins);
}

Result<void> AgentSession::addPin(Pin pin)
{
    if (pin.text.trimmed().isEmpty())
        return Result<void>::failure(tr("There is nothing to pin: the text is empty."));
    if (pin.id.isEmpty())
        pin.id = Pin::newId();
    PinList after = d->pins;
    after.append(pin);
    const qint64 needed = pinTokens(after);
    if (needed > pinBudget()) {
        // Never a silent drop: refused here, before anything is written, with what it would take.
        return Result<void>::failure(
            tr("This pin does not fit: the pins would take about %1 tokens of the %2-token pin budget "
               "(%3% of the input budget). Unpin something, pin less, or raise the pin budget (Settings, "
               "or pin_budget_percent in settings.json).")
                .arg(QLocale().toString(needed), QLocale().toString(pinBudget()),
                     QString::number(d->pinBudgetPercent)));
    }
    if (auto opened = d->ensureSession(); !opened)
        return opened;
    QList<SessionEvent> batch{SessionEvent::pinAdded(pin)};
    // Issue 16: a pin the history does not hold joins it now, so the very next request carries it, in the
    // form a compaction's replacement gives it. Appended here, in the order of the writes: a turn submitted
    // before the batch is on disk sends it too. While busy it goes in with the next request (submit).
    std::optional<Message> context;
    if (!isBusy() && !d->opening && !pinsMissingFromHistory(d->history, {pin}).isEmpty()) {
        context = Message::user(CompactionPrompts::pinnedContext({pin}));
        batch.append(SessionEvent::pinnedContext({pin.id}, context->content));
        d->history.append(*context);
        Q_EMIT usageChanged();
    }
    whenFinished(d->writer->write(batch), this,
                 [this, pin, context, session = d->session->id](const Result<QList<quint64>> &written) {
                     if (sessionId() != session)
                         return; // another conversation was opened meanwhile
                     if (!written) {
                         if (context) {
                             if (const qsizetype at = d->history.lastIndexOf(*context); at >= 0)
                                 d->history.removeAt(at);
                             Q_EMIT usageChanged();
                         }
                         Q_EMIT pinFailed(tr("could not save the pin: %1").arg(written.error()));
                         return;
                     }
                     d->pins.append(pin);
                     Q_EMIT pinAdded(pin);
                     Q_EMIT pinsChanged();
                 });
    return {};
}

Result<void> AgentSession::removePin(const QString &id)
{
    const auto pinned =
        std::find_if(d->pins.cbegin(), d->pins.cend(), [&](const Pin &pin) { return pin.id == id; });
    if (pinned == d->pins.cend() || !d->writer || !d->session)
        return Result<void>::failure(tr("There is no pin %1 in this conversation.").arg(id));
    whenFinished(d->writer->write({SessionEvent::pinRemoved(id, pinned->headline())}), this,
                 [this, id, session = d->session->id](const Result<QList<quint64>> &written) {
                     if (sessionId() != session)
                         return; // another conversation was opened meanwhile
                     if (!written) {
                         Q_EMIT pinFailed(tr("could not save the unpin: %1").arg(written.error()));
                         return;
                     }
                     const auto at = std::find_if(d->pins.cbegin(), d->pins.cend(),
                                                  [&](const Pin &pin) { return pin.id == id; });
                     if (at == d->pins.cend())
                         return; // removed twice before the first was on disk
                     const Pin removed = *at;
                     d->pins.erase(at);
                     Q_EMIT pinRemoved(removed);
                     Q_EMIT pinsChanged();
                 });
    return {};
}

quint64 AgentSession::undoableCompaction() const
{
    return d->undoableSeq;
}

void AgentSession::setReviewManualCompaction(bool review)
{
    d->reviewCompaction = review;
}

bool AgentSession::reviewManualCompaction() const
{
    return d->reviewCompaction;
}

bool AgentSession::isReviewingCompaction() const
{
    return d->review.has_value();
}

Result<void> AgentSession::acceptCompaction(const QString &summary)
{
    if (!d->review)
        return Result<void>::failure(tr("No compaction is waiting for review."));
    const QString text = summary.trimmed();
    if (text.isEmpty())
        return Result<void>::failure(tr("The summary is empty.")); // S27
    Private::Review review = *std::exchange(d->review, std::nullopt);
    QList<TranscriptItem> transcript = review.transcript;
    const bool edited = text != review.summary;
    if (edited) {
        // The transcript replays what was applied: the edited text replaces what streamed after the last tool
        // activity (S24), whose cards stay.
        while (!transcript.isEmpty() && (transcript.constLast().kind == TranscriptItem::Kind::Text ||
                                         transcript.constLast().kind == TranscriptItem::Kind::Reasoning))
            transcript.removeLast();
        transcript.append(TranscriptItem::text(text));
    }
    d->applyManualCompaction(text, transcript, review.strategy, edited);
    return {};
}

Result<void> AgentSession::regenerateCompaction(const QString &focus)
{
    if (!d->review)
        return Result<void>::failure(tr("No compaction is waiting for review."));
    d->review.reset(); // dropped unapplied: nothing was written or changed for it
    d->startManualCompaction(focus);
    return {};
}

void AgentSession::cancelCompactionReview()
{
    if (!d->review)
        return;
    d->review.reset(); // S30: nothing was written or changed, the pending state was kept
    const QString message = tr("Compaction cancelled.");
    Q_EMIT compactionFinished(CompactionMode::Manual, false, message);
    Q_EMIT turnFinished(TurnOutcome::Cancelled, message);
}

bool AgentSession::cancelCompaction()
{
    if (d->compaction == CompactionMode::Manual) {
        d->parentCancel.cancel(); // S26
        return true;
    }
    if (d->compaction == CompactionMode::Automatic) {
        d->childCancel.cancel(); // S50: only the child
        d->childCancel = CancellationToken();
        return true;
    }
    return false;
}

CancellationToken AgentSession::shutdownToken() const
{
    return d->shutdown;
}

bool AgentSession::interrupt()
{
    if (d->shell) {
        d->shell->cancel();
        return true;
    }
    if (!d->runner || d->compaction == CompactionMode::Manual)
        return false;         // ignored during a manual compaction
    d->parentCancel.cancel(); // S51
    return true;
}

void AgentSession::answerPermission(quint64 requestId, PermissionDecision decision)
{
    if (decision == PermissionDecision::Redirect)
        d->parentCancel.cancel(); // "Ask what to do instead" interrupts the turn
    if (const auto asked = d->askedPermissions.constFind(requestId); asked != d->askedPermissions.cend()) {
        d->recorder.recordPermission(asked->callId, AnsweredPermission::of(*asked, decision));
        d->askedPermissions.erase(asked); // answered: its settling is not a stop
    }
    d->broker->answerPermission(requestId, decision);
}

void AgentSession::answerQuestion(quint64 questionId, const UserAnswer &answer)
{
    d->broker->answerQuestion(questionId, answer.toJson());
}

void AgentSession::newSession()
{
    if (d->runner)
        d->parentCancel.cancel();
    d->broker->cancelAll();
    d->askedPermissions.clear(); // the conversation they belonged to is gone
    d->runner.reset();
    ++d->turnGeneration;
    d->session.reset();
    d->retireWriter(); // its queued writes go on on its thread; the next writer starts after them
    d->history.clear();
    d->contextEstimator = ContextEstimator(); // lets go of the old conversation's text
    d->carriedTurns.clear();                  // they were in the history it replaced
    d->lastUsage.reset();
    d->totalInput = 0;
    d->totalOutput = 0;
    d->compactionUsage = TokenUsage();
    d->subagentUsage = TokenUsage();
    d->compaction = CompactionMode::None;
    d->undoableSeq = 0;
    d->undoing = false;
    d->review.reset();
    d->applyingManual = false;
    const bool policyWasSet = !d->compactionPolicy.isDefault();
    d->compactionPolicy = CompactionPolicy();
    d->commitPending = false;
    d->finishDeferred = false;
    d->userWrite.reset();
    d->pins.clear();
    if (d->policy)
        d->policy->clearSessionAllowances();
    if (d->client)
        d->client->reset();
    Q_EMIT usageChanged();
    Q_EMIT historyReplaced();
    if (policyWasSet)
        Q_EMIT compactionPolicyChanged(d->compactionPolicy);
    Q_EMIT sessionChanged(QString());
    Q_EMIT pinsChanged();
}

namespace {

// What a worker reads for openSessionAsync().
struct OpenedSession
{
    Result<LoadedSession> loaded = Result<LoadedSession>::failure(QString());
    MessageList history;
    bool nothingToResume = false;
    bool preview = false; // only the last events (loadTail), shown while the rest is read
};

// Enough rows for a tall window's last screen, however short the events are.
constexpr int PreviewEvents = 60;

} // namespace

SessionEvent AgentSession::Private::withSessionUsage(SessionEvent event) const
{
    event.sessionUsage = SessionUsage{
        {.inputTokens = totalInput, .outputTokens = totalOutput}, compactionUsage, subagentUsage};
    return event;
}

void AgentSession::Private::restoreSessionUsage(const QList<SessionEvent> &events)
{
    // The latest event that has them: the totals are the session's as of that event.
    for (auto it = events.crbegin(); it != events.crend(); ++it) {
        if (!it->sessionUsage)
            continue;
        totalInput = it->sessionUsage->turns.inputTokens;
        totalOutput = it->sessionUsage->turns.outputTokens;
        compactionUsage = it->sessionUsage->compaction;
        subagentUsage = it->sessionUsage->subagents;
        return;
    }
}

void AgentSession::Private::applyOpened(LoadedSession loaded, MessageList projected)
{
    q->newSession();
    session = loaded.session;
    // newSession() retired the previous writer, which may hold this very session's lock (opened again): the
    // new one takes the lock, and writes, only after that writer has ended (on its own thread).
    writer = makeWriter(SessionWriter::Start::Existing);
    whenFinished(writer->locked(), q, [this, id = session->id](const Result<QList<quint64>> &locked) {
        if (!locked && q->sessionId() == id)
            Q_EMIT q->sessionInUseElsewhere(locked.error());
    });
    if (!loaded.session.workspace.isEmpty() && QDir(loaded.session.workspace).exists())
        q->setWorkspace(loaded.session.workspace);
    history = std::move(projected);
    contextEstimator = ContextEstimator(); // lets go of the previous conversation's text
    carriedTurns.clear();                  // they were in the history it replaced
    undoableSeq = CompactionUndo::latestInEffect(loaded.events);
    compactionPolicy = SessionEvent::latestPolicy(loaded.events); // issue 16: the session keeps its policy
    if (!compactionPolicy.isDefault())
        Q_EMIT q->compactionPolicyChanged(compactionPolicy);
    pins = SessionPins::active(loaded.events);
    restoreSessionUsage(loaded.events); // the status bar's totals, as they were when it was saved
    for (Message &message : history) {
        if (message.role == Message::Role::User)
            message.content = stripModeSuffix(message.content); // a mode saved by an older version
    }
    if (!loaded.problems.isEmpty())
        Q_EMIT q->errorOccurred(loaded.problemSummary()); // names the file, the lines and why
    Q_EMIT q->sessionChanged(session->id);
    Q_EMIT q->historyReplaced();
    Q_EMIT q->pinsChanged();
    Q_EMIT q->usageChanged();
    Q_EMIT q->sessionOpened(loaded.events);
}

Result<void> AgentSession::openSession(const QString &sessionId)
{
    if (isBusy() || d->opening)
        return Result<void>::failure(tr("Operation not permitted"));
    d->retiredEnd.waitForFinished(); // what the retired writers still write belongs in the read (and seqs)
    auto loaded = d->store->load(sessionId);
    if (!loaded)
        return Result<void>::failure(loaded.error());
    MessageList history = buildConversation(loaded->events);
    d->applyOpened(std::move(*loaded), std::move(history));
    return {};
}

void AgentSession::openSessionAsync(const QString &sessionId)
{
    if (isBusy() || d->opening) {
        Q_EMIT sessionOpenFailed(tr("Operation not permitted"));
        return;
    }
    d->opening = true;
    Q_EMIT sessionOpening();
    const std::shared_ptr<SessionStore> store = d->store;
    const QString workspace = d->workspace;
    const QString current = this->sessionId();
    const QFuture<void> retiredEnd = d->retiredEnd;
    // One worker reads the end of the transcript first, so the window shows the last screen at once (result
    // 0), then all of it for the history and the rows above (result 1; issue 11: a 30 MB session).
    auto *watcher = new QFutureWatcher<OpenedSession>(this);
    connect(watcher, &QFutureWatcher<OpenedSession>::resultReadyAt, this, [this, watcher](int index) {
        OpenedSession opened = watcher->resultAt(index);
        if (opened.preview) {
            if (opened.loaded)
                Q_EMIT sessionPreviewed(opened.loaded->events);
            return;
        }
        d->opening = false;
        if (opened.nothingToResume)
            Q_EMIT sessionOpenFailed(tr("No earlier session to resume."));
        else if (!opened.loaded)
            Q_EMIT sessionOpenFailed(opened.loaded.error());
        else
            d->applyOpened(std::move(*opened.loaded), std::move(opened.history));
    });
    connect(watcher, &QFutureWatcher<OpenedSession>::finished, watcher, &QObject::deleteLater);
    watcher->setFuture(QtConcurrent::run(
        [store, sessionId, workspace, current, retiredEnd](QPromise<OpenedSession> &promise) {
            // A conversation just left may still be being written (New Session does not wait for it): its
            // events belong in what is read, and its next seq after them.
            QFuture<void>(retiredEnd).waitForFinished();
            QString target = sessionId;
            if (target.isEmpty()) {
                const QList<SessionInfo> sessions = store->list(workspace);
                for (const SessionInfo &info : sessions) {
                    if (info.id != current) {
                        target = info.id;
                        break;
                    }
                }
                if (target.isEmpty()) {
                    OpenedSession nothing;
                    nothing.nothingToResume = true;
                    promise.addResult(std::move(nothing));
                    return;
                }
            }
            OpenedSession preview;
            preview.preview = true;
            preview.loaded = store->loadTail(target, PreviewEvents);
            promise.addResult(std::move(preview));
            OpenedSession opened;
            opened.loaded = store->load(target);
            if (opened.loaded)
                opened.history = buildConversation(opened.loaded->events);
            promise.addResult(std::move(opened), 1);
        }));
}

bool AgentSession::isOpening() const
{
    return d->opening;
}

QString AgentSession::sessionId() const
{
    return d->session ? d->session->id : QString();
}

QString AgentSession::transcriptPath() const
{
    return d->session ? d->session->transcriptPath : QString();
}

bool AgentSession::isBusy() const
{
    return d->runner != nullptr || d->undoing || d->review.has_value() || d->applyingManual || d->shell;
}

AgentSession::CompactionMode AgentSession::compactionMode() const
{
    return d->compaction;
}

const MessageList &AgentSession::messages() const
{
    return d->history;
}

std::optional<TokenUsage> AgentSession::lastUsage() const
{
    return d->lastUsage;
}

qint64 AgentSession::totalInputTokens() const
{
    return d->totalInput;
}

qint64 AgentSession::totalOutputTokens() const
{
    return d->totalOutput;
}

TokenUsage AgentSession::subagentUsage() const
{
    return d->subagentUsage;
}

TokenUsage AgentSession::compactionUsage() const
{
    return d->compactionUsage;
}

ContextBreakdown AgentSession::contextBreakdown() const
{
    ContextBreakdown breakdown = d->contextEstimator.estimate(
        d->estimatedSystemPrompt(), *d->tools, d->history, d->config.contextWindow, d->lastUsage);
    breakdown.compactionUsage = d->compactionUsage;
    breakdown.reportedEarlier = !breakdown.anchoredToProvider && d->totalInput > 0;
    return breakdown;
}

const ToolRegistry &AgentSession::tools() const
{
    return *d->tools;
}

QStringList AgentSession::toolNames() const
{
    return d->tools->names();
}

QString AgentSession::globalMemoryPath() const
{
    return SystemPromptBuilder::globalMemoryPath(dataDirectory());
}

QString AgentSession::projectMemoryPath() const
{
    return SystemPromptBuilder::projectMemoryPath(d->workspace);
}

QString AgentSession::dataFolder()
{
    return dataDirectory();
}

QString AgentSession::usageLedgerPath() const
{
    return UsageLedger::defaultPath(dataDirectory());
}

const SkillCatalog &AgentSession::skills() const
{
    return d->skills;
}

const SubagentCatalog &AgentSession::subagents() const
{
    return d->subagents;
}

void AgentSession::setSubagents(const SubagentCatalog &catalog)
{
    const bool offered = !d->subagents.isEmpty();
    d->subagents = catalog;
    if (offered != !catalog.isEmpty())
        d->rebuildTools(); // delegate_task comes or goes with the profiles
}

void AgentSession::reloadCatalogs()
{
    struct Catalogs
    {
        SkillCatalog skills;
        SubagentCatalog subagents;
        Result<QList<McpServerConfig>> mcpServers;
    };
    const quint64 generation = ++d->skillsGeneration;
    whenFinished(QtConcurrent::run([workspace = d->workspace, dataDir = dataDirectory()] {
                     // The skills of servers no longer in the file go first, so they are not offered.
                     Result<QList<McpServerConfig>> servers =
                         McpServerConfig::readFile(McpServerConfig::path(dataDir));
                     if (servers)
                         McpSkillFiles::keepOnly(dataDir, *servers);
                     return Catalogs{SkillCatalog::discover(workspace, dataDir, QDir::homePath()),
                                     SubagentCatalog::discover(workspace, dataDir, QDir::homePath()),
                                     std::move(servers)};
                 }),
                 this, [this, generation](const Catalogs &catalogs) {
                     if (generation != d->skillsGeneration)
                         return;
                     d->skills = catalogs.skills;
                     setSubagents(catalogs.subagents);
                     if (catalogs.mcpServers) {
                         d->mcpConfigProblem.clear();
                         setMcpServers(*catalogs.mcpServers);
                     } else if (catalogs.mcpServers.error() != d->mcpConfigProblem) {
                         // Said once; the servers already running keep running.
                         d->mcpConfigProblem = catalogs.mcpServers.error();
                         Q_EMIT notification(tr("MCP servers: %1").arg(d->mcpConfigProblem));
                         Q_EMIT mcpStatusChanged();
                     }
                     d->refreshPromptCache(); // the prompt lists the enabled skills and the subagents
                     Q_EMIT skillsChanged();
                 });
}

void AgentSession::setMcpServers(const QList<McpServerConfig> &servers)
{
    if (servers == d->mcpServers)
        return;
    d->mcpServers = servers;
    if (!d->mcp || servers.isEmpty()) {
        d->startMcp();
        return;
    }
    d->mcp->configure(servers); // only what changed restarts
    Q_EMIT mcpStatusChanged();
}

QString AgentSession::mcpStatusMarkdown(bool *starting) const
{
    QString text;
    if (!d->mcpConfigProblem.isEmpty())
        text = tr("⚠ %1").arg(d->mcpConfigProblem) + QStringLiteral("\n\n");
    const QList<McpHub::ServerStatus> servers = d->mcp ? d->mcp->status() : QList<McpHub::ServerStatus>();
    if (starting)
        *starting = std::any_of(servers.cbegin(), servers.cend(), [](const McpHub::ServerStatus &server) {
            return server.state == McpConnection::State::Connecting;
        });
    return text + McpHub::markdownTable(servers, McpServerConfig::path(dataDirectory()));
}

QStringList AgentSession::mcpProblems() const
{
    QStringList problems;
    if (!d->mcp)
        return problems;
    for (const McpHub::ServerStatus &server : d->mcp->status()) {
        if (server.state == McpConnection::State::Failed)
            problems.append(server.config.name + QStringLiteral(": ") + server.detail);
    }
    return problems;
}

bool AgentSession::waitForMcp(int timeoutMs) const
{
    return !d->mcp || d->mcp->waitUntilSettled(timeoutMs);
}

bool AgentSession::isMcpStarting() const
{
    if (!d->mcp)
        return false;
    const QList<McpHub::ServerStatus> servers = d->mcp->status();
    return std::any_of(servers.cbegin(), servers.cend(), [](const McpHub::ServerStatus &server) {
        return server.state == McpConnection::State::Connecting;
    });
}

bool AgentSession::reconnectMcp(const QString &name)
{
    if (!d->mcp)
        return false;
    QString server = name;
    if (!d->mcp->server(name)) {
        // A tool's name connects its server again (reference 6.1: connect <server-or-tool>).
        for (const McpHub::ServerStatus &status : d->mcp->status()) {
            for (const McpConnection::Tool &tool : status.tools) {
                if (tool.name == name && server == name)
                    server = status.config.name;
            }
        }
    }
    const std::optional<McpHub::ServerStatus> status = d->mcp->server(server);
    if (!status)
        return false;
    if (status->config.usesOAuth() && status->config.problem.isEmpty() && !status->config.disabled) {
        // A forced sign-in (reference 6.1): a new one replaces one still waiting for the browser.
        delete d->mcpSignIn;
        auto *signIn = new McpSignIn(status->config, dataDirectory(), this);
        d->mcpSignIn = signIn;
        connect(signIn, &McpSignIn::browserNeeded, this,
                [this, server](const QUrl &page) { Q_EMIT mcpSignInNeeded(server, page); });
        connect(signIn, &McpSignIn::finished, this, [this, signIn, server](bool ok, const QString &message) {
            signIn->deleteLater();
            Q_EMIT notification(message);
            if (ok && d->mcp && d->mcp->reconnect(server))
                Q_EMIT mcpStatusChanged();
        });
        signIn->start();
        return true;
    }
    if (!d->mcp->reconnect(server))
        return false;
    Q_EMIT mcpStatusChanged();
    return true;
}

static_assert(AgentSession::McpSignInMinutes * 60 * 1000 == McpSignIn::TimeoutMs);

QString AgentSession::mcpSignInServer() const
{
    return d->mcpSignIn ? d->mcpSignIn->serverName() : QString();
}

bool AgentSession::cancelMcpSignIn()
{
    if (!d->mcpSignIn)
        return false;
    d->mcpSignIn->cancel();
    delete d->mcpSignIn;
    return true;
}

bool AgentSession::signOutMcp(const QString &name)
{
    const std::optional<McpHub::ServerStatus> status = d->mcp ? d->mcp->server(name) : std::nullopt;
    if (!status || !status->config.usesOAuth())
        return false;
    if (d->mcpSignIn && d->mcpSignIn->serverName() == name)
        delete d->mcpSignIn;
    whenFinished(
        QtConcurrent::run([dataDir = dataDirectory(), name] { return McpOAuthStore::remove(dataDir, name); }),
        this, [this, name](const Result<void> &removed) {
            Q_EMIT notification(removed ? tr("Signed out of MCP server %1.").arg(name) : removed.error());
            d->mcpSignedOut = name;
            if (d->mcp && d->mcp->reconnect(name))
                Q_EMIT mcpStatusChanged();
        });
    return true;
}

Result<void> AgentSession::setSkillEnabled(const QString &name, bool enabled)
{
    if (!d->skills.find(name))
        return Result<void>::failure(tr("No such skill: %1").arg(name));
    whenFinished(QtConcurrent::run([dataDir = dataDirectory(), name, enabled] {
                     return SkillCatalog::setEnabled(dataDir, name, enabled);
                 }),
                 this, [this](const Result<void> &saved) {
                     if (!saved)
                         Q_EMIT notification(saved.error());
                     reloadCatalogs();
                 });
    return {};
}

std::optional<Result<QString>> AgentSession::skillActivation(const QString &text) const
{
    return d->skills.activate(text);
}

} // namespace keen
