#include "headless/headlessrunner.h"

#include "agent/agentsession.h"
#include "agent/skillcatalog.h"
#include "agent/subagentcatalog.h"
#include "base/jsonlist.h"
#include "conversation/droppeddetail.h"
#include "conversation/streamevent.h"
#include "conversation/toolcalltext.h"
#include "headless/streamoutput.h"
#include "mcp/mcpconnection.h"
#include "mcp/mcpskillfiles.h"
#include "session/pincandidates.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTimer>

#include <algorithm>

namespace keen {

namespace {
// "1 path, 2 error lines, 0 identifiers, 3 numbers": counts of DroppedDetail kinds, in kind order.
QString droppedCounts(const int (&counts)[4])
{
    auto count = [](int n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    return QStringList{count(counts[int(DroppedDetail::Kind::Path)], HeadlessRunner::tr("1 path"),
                             HeadlessRunner::tr("%1 paths")),
                       count(counts[int(DroppedDetail::Kind::Error)], HeadlessRunner::tr("1 error line"),
                             HeadlessRunner::tr("%1 error lines")),
                       count(counts[int(DroppedDetail::Kind::Identifier)], HeadlessRunner::tr("1 identifier"),
                             HeadlessRunner::tr("%1 identifiers")),
                       count(counts[int(DroppedDetail::Kind::Number)], HeadlessRunner::tr("1 number"),
                             HeadlessRunner::tr("%1 numbers"))}
        .join(QStringLiteral(", "));
}
} // namespace

Result<HeadlessRunner::Options> HeadlessRunner::parseArguments(const QStringList &arguments,
                                                               const QString &stdinText)
{
    using R = Result<Options>;
    Options options;
    QStringList launchArgs{QStringLiteral("keen-desktop")};
    QStringList words;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString argument = arguments.at(i);
        // The end of the flags, as getopt has it: a prompt may start with or quote a flag.
        if (argument == QLatin1String("--")) {
            words.append(arguments.mid(i + 1));
            break;
        }
        const QString flag = argument.section(QLatin1Char('='), 0, 0);
        const bool inlineValue =
            argument.startsWith(QLatin1String("--")) && argument.contains(QLatin1Char('='));
        auto value = [&](QString &target) -> bool {
            if (inlineValue) {
                target = argument.section(QLatin1Char('='), 1);
                return true;
            }
            if (i + 1 >= arguments.size())
                return false;
            target = arguments.at(++i);
            return true;
        };
        // The flag's value as a number from 1 on (what --dropped and --pinnable number their lines), 0 if
        // none.
        auto ordinal = [&]() -> int {
            QString v;
            bool number = false;
            const int which = value(v) ? v.trimmed().toInt(&number) : 0;
            return number && which >= 1 ? which : 0;
        };
        if (flag == QLatin1String("--format")) {
            QString format;
            if (!value(format))
                return R::failure(tr("--format needs a value: text or json"));
            if (format != QLatin1String("text") && format != QLatin1String("json"))
                return R::failure(tr("--format must be text or json, not \"%1\"").arg(format));
            options.json = format == QLatin1String("json");
        } else if (flag == QLatin1String("--completion-signal")) {
            if (!value(options.completionSignal) || options.completionSignal.isEmpty())
                return R::failure(tr("--completion-signal needs a value"));
        } else if (flag == QLatin1String("--yolo")) {
            options.yolo = true;
        } else if (flag == QLatin1String("--undo-compaction")) {
            options.undoCompaction = true;
        } else if (flag == QLatin1String("--compact-threshold")) {
            if (!value(options.compactThreshold))
                return R::failure(tr("--compact-threshold needs a value: a percentage from %1 to %2, or off")
                                      .arg(CompactionPolicy::MinThresholdPercent)
                                      .arg(CompactionPolicy::MaxThresholdPercent));
            if (auto checked = CompactionPolicy::withThreshold({}, options.compactThreshold); !checked)
                return R::failure(checked.error());
        } else if (flag == QLatin1String("--compact-detail")) {
            QString detail;
            if (!value(detail))
                return R::failure(tr("--compact-detail needs a value: brief, normal or detailed"));
            options.compactDetail = CompactionPolicy::detailFromName(detail);
            if (!options.compactDetail)
                return R::failure(
                    tr("--compact-detail must be brief, normal or detailed, not \"%1\"").arg(detail));
        } else if (flag == QLatin1String("--pin") || flag == QLatin1String("--unpin")) {
            QString v;
            if (!value(v) || v.trimmed().isEmpty())
                return R::failure(flag == QLatin1String("--pin") ? tr("--pin needs the text to pin")
                                                                 : tr("--unpin needs a pin id (see --pins)"));
            (flag == QLatin1String("--pin") ? options.pins : options.unpins).append(v);
        } else if (flag == QLatin1String("--pins")) {
            options.listPins = true;
        } else if (flag == QLatin1String("--review")) {
            options.review = true;
        } else if (flag == QLatin1String("--dropped")) {
            options.listDropped = true;
        } else if (flag == QLatin1String("--pin-dropped")) {
            const int which = ordinal();
            if (which == 0)
                return R::failure(tr("--pin-dropped needs the number of a detail (see --dropped)"));
            options.pinDropped.append(which);
        } else if (flag == QLatin1String("--pinnable")) {
            options.listPinnable = true;
        } else if (flag == QLatin1String("--pin-item")) {
            const int which = ordinal();
            if (which == 0)
                return R::failure(tr("--pin-item needs the number of an item (see --pinnable)"));
            options.pinItems.append(which);
        } else if (flag == QLatin1String("--compact")) {
            options.compact = true;
            if (inlineValue)
                options.compactFocus = argument.section(QLatin1Char('='), 1);
        } else if (flag == QLatin1String("--provider") || flag == QLatin1String("--model") ||
                   flag == QLatin1String("--base-url") || flag == QLatin1String("--workspace") ||
                   flag == QLatin1String("--context-window") || flag == QLatin1String("--session")) {
            QString v;
            if (!value(v))
                return R::failure(tr("%1 needs a value").arg(flag));
            // `--session "$SID"` with SID unset would quietly start a new conversation.
            if (v.trimmed().isEmpty())
                return R::failure(tr("%1 needs a value; it was empty").arg(flag));
            launchArgs << flag << v;
        } else if (argument.startsWith(QLatin1String("--")) && argument.size() > 2) {
            return R::failure(tr("unknown flag %1").arg(flag));
        } else {
            words.append(argument);
        }
    }
    auto launch = LaunchOptions::parse(launchArgs);
    if (!launch)
        return R::failure(launch.error());
    options.launch = *launch;
    const bool pinWork = options.pinWork();
    if ((!options.unpins.isEmpty() || (options.listPins && options.pins.isEmpty())) &&
        options.launch.sessionId.isEmpty())
        return R::failure(tr("--unpin and --pins need --session ID"));
    if ((options.listDropped || !options.pinDropped.isEmpty()) && options.launch.sessionId.isEmpty())
        return R::failure(tr("--dropped and --pin-dropped need --session ID"));
    if ((options.listPinnable || !options.pinItems.isEmpty()) && options.launch.sessionId.isEmpty())
        return R::failure(tr("--pinnable and --pin-item need --session ID"));
    if (options.undoCompaction && pinWork)
        return R::failure(tr("--undo-compaction does not combine with --pin, --unpin, --pins, --dropped, "
                             "--pin-dropped, --pinnable or --pin-item"));
    if (options.undoCompaction) {
        if (options.launch.sessionId.isEmpty())
            return R::failure(tr("--undo-compaction needs --session ID"));
        if (options.compact || !words.isEmpty())
            return R::failure(tr("--undo-compaction takes no prompt and no --compact"));
        return options;
    }
    if (options.review && !options.compact)
        return R::failure(tr("--review goes with --compact: it reviews that compaction's summary"));
    if (options.compact) {
        // With --compact the words are the optional focus; a prompt is not allowed.
        if (options.launch.sessionId.isEmpty())
            return R::failure(tr("--compact needs --session ID"));
        if (options.compactFocus.isEmpty())
            options.compactFocus = words.join(QLatin1Char(' '));
        return options;
    }
    if (words.isEmpty() && stdinText.isEmpty() && !options.launch.sessionId.isEmpty() &&
        (!options.compactThreshold.isEmpty() || options.compactDetail)) {
        options.policyOnly =
            true; // `run --session ID --compact-threshold 70`: record the policy, nothing else
        return options;
    }
    options.prompt = words.join(QLatin1Char(' '));
    if (!stdinText.isEmpty())
        options.prompt =
            options.prompt.isEmpty() ? stdinText : options.prompt + QLatin1Char('\n') + stdinText;
    if (options.prompt.trimmed().isEmpty() && pinWork)
        return options; // only the pins change
    if (options.prompt.trimmed().isEmpty())
        return R::failure(tr("prompt is required"));
    return options;
}

bool HeadlessRunner::asksForJson(const QStringList &arguments)
{
    bool json = false;
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if (argument == QLatin1String("--"))
            break;
        const QString flag = argument.section(QLatin1Char('='), 0, 0);
        const bool inlineValue =
            argument.startsWith(QLatin1String("--")) && argument.contains(QLatin1Char('='));
        // The flags that take a value (the next word unless given with =), as parseArguments has them.
        static const QStringList valued{QStringLiteral("--format"),
                                        QStringLiteral("--completion-signal"),
                                        QStringLiteral("--compact-threshold"),
                                        QStringLiteral("--compact-detail"),
                                        QStringLiteral("--pin"),
                                        QStringLiteral("--unpin"),
                                        QStringLiteral("--pin-dropped"),
                                        QStringLiteral("--pin-item"),
                                        QStringLiteral("--provider"),
                                        QStringLiteral("--model"),
                                        QStringLiteral("--base-url"),
                                        QStringLiteral("--workspace"),
                                        QStringLiteral("--context-window"),
                                        QStringLiteral("--session")};
        if (!valued.contains(flag))
            continue;
        QString value;
        if (inlineValue)
            value = argument.section(QLatin1Char('='), 1);
        else if (i + 1 < arguments.size())
            value = arguments.at(++i);
        if (flag == QLatin1String("--format"))
            json = value == QLatin1String("json");
    }
    return json;
}

QJsonObject HeadlessRunner::failureJson(const QString &error, const QString &sessionId, const QString &text,
                                        const QJsonObject &usage)
{
    QJsonObject line;
    if (!sessionId.isEmpty()) {
        line.insert(QStringLiteral("session_id"), sessionId);
        line.insert(QStringLiteral("opencode_session_id"), QString(sessionId).remove(QLatin1Char('-')));
    }
    line.insert(QStringLiteral("text"), text);
    line.insert(QStringLiteral("usage"), usage.isEmpty() ? TokenUsage().toJson() : usage);
    line.insert(QStringLiteral("error"), error);
    line.insert(QStringLiteral("partial"), true); // a script must not take it for a whole reply
    return line;
}

HeadlessRunner::HeadlessRunner(QTextStream &out, QTextStream &err, QObject *parent)
    : QObject(parent)
    , m_out(out)
    , m_err(err)
    , m_session(std::make_unique<AgentSession>())
{
    m_session->setInteractive(false);
}

HeadlessRunner::~HeadlessRunner() = default;

void HeadlessRunner::setConfigResolver(ConfigResolver resolver)
{
    m_resolver = std::move(resolver);
}

void HeadlessRunner::setReviewLineReader(CompactionReviewPrompt::LineReader reader)
{
    m_reviewReader = std::move(reader);
}

AgentSession &HeadlessRunner::session()
{
    return *m_session;
}

void HeadlessRunner::interrupt()
{
    m_interrupted = true;
    if (!m_session->interrupt())
        m_session->cancelCompaction();
}

bool HeadlessRunner::interrupted() const
{
    return m_interrupted || m_session->shutdownToken().isCancelled();
}

void HeadlessRunner::onStreamEvent(const StreamEvent &event)
{
    switch (event.type) {
    case StreamEvent::Type::Chunk:
        m_currentText += event.content;
        if (!m_options.json) {
            m_err << event.content;
            m_err.flush();
            m_progressLineOpen = !event.content.endsWith(QLatin1Char('\n'));
        }
        break;
    case StreamEvent::Type::ToolEnd:
        m_sealedLength = m_currentText.size();
        if (!m_options.json && event.toolCall) {
            if (m_progressLineOpen)
                m_err << '\n';
            // "✓ Read src/a.cpp", as the window's card says it.
            m_err << (event.toolCall->error.isEmpty() ? "✓ " : "✗ ")
                  << ToolCallText::line(event.toolCall->name, event.toolCall->input);
            if (!event.toolCall->error.isEmpty())
                m_err << ": " << event.toolCall->error;
            else if (event.toolCall->name == QLatin1String("delegate_task"))
                m_err << ' '
                      << tr("(%1 completed, %2 failed)")
                             .arg(
                                 event.toolCall->output.toObject().value(QStringLiteral("completed")).toInt())
                             .arg(event.toolCall->output.toObject().value(QStringLiteral("failed")).toInt());
            m_err << '\n';
            m_err.flush();
            m_progressLineOpen = false;
        }
        break;
    case StreamEvent::Type::ToolStart:
        m_sealedLength = m_currentText.size();
        m_activityLinesShown = 0;
        break;
    case StreamEvent::Type::ToolOutput:
        // What delegated subagents do, a line each as it happens ("  [scout] read_file src/a.cpp"); a
        // command's running output is not printed (its result is).
        if (!m_options.json && event.toolCall && event.toolCall->name == QLatin1String("delegate_task")) {
            const QStringList lines =
                event.toolCall->recentOutput.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            const qint64 total = event.toolCall->earlierLines + lines.size();
            const qsizetype fresh = qsizetype(std::min<qint64>(lines.size(), total - m_activityLinesShown));
            if (fresh > 0 && m_progressLineOpen)
                m_err << '\n';
            for (qsizetype i = lines.size() - fresh; i < lines.size(); ++i) {
                m_err << "  " << lines.at(i) << '\n';
                m_progressLineOpen = false;
            }
            m_err.flush();
            m_activityLinesShown = std::max(m_activityLinesShown, total);
        }
        break;
    case StreamEvent::Type::Retry:
        m_currentText.truncate(m_sealedLength); // the failed attempt's text is dropped
        if (!m_options.json) {
            // The reason and the wait, so a person knows what is happening and for how long.
            const QString wait =
                event.retryDelayMs >= 1000
                    ? tr("Retrying in %1 s (attempt %2)").arg(qRound(event.retryDelayMs / 1000.0))
                    : tr("Retrying (attempt %2)");
            m_err << (m_progressLineOpen ? "\n" : "") << wait.arg(event.attempt)
                  << (event.error.isEmpty() ? QString() : QStringLiteral(": ") + event.error) << '\n';
            m_err.flush();
            m_progressLineOpen = false;
        }
        break;
    case StreamEvent::Type::Usage:
        if (m_session->compactionMode() != AgentSession::CompactionMode::Manual)
            m_lastUsage = event.usage; // a manual compaction's usage is reported as compaction usage
        break;
    case StreamEvent::Type::Notice:
        // Also with --format json: stdout stays the one JSON line, the warning goes where warnings go, and
        // into the line's "notices" (a script that reads stdout only learns the reply was cut short too).
        m_notices.append(event.content);
        m_err << (m_progressLineOpen ? "\n" : "") << tr("Warning: %1").arg(event.content) << '\n';
        m_err.flush();
        m_progressLineOpen = false;
        break;
    case StreamEvent::Type::CompactionSliced:
        // A manual compaction too large for one request: how it fits, before its last part streams.
        if (!m_options.json && event.autoCompaction && event.error.isEmpty()) {
            const CompactionStrategy &strategy = event.autoCompaction->strategy;
            m_err << (m_progressLineOpen ? "\n" : "")
                  << (strategy.slices > 1 ? tr("Compacting in parts: %1")
                                          : tr("Compacting to fit the input budget: %1"))
                         .arg(strategy.describe())
                  << '\n';
            m_err.flush();
            m_progressLineOpen = false;
        }
        break;
    default:
        break;
    }
}

QString HeadlessRunner::hyphenlessId() const
{
    return QString(m_session->sessionId()).remove(QLatin1Char('-'));
}

QJsonObject HeadlessRunner::usageJson() const
{
    QJsonObject usage = m_lastUsage.value_or(TokenUsage()).toJson();
    // What this run added to the session's running sums.
    const auto since = [](const TokenUsage &total, const TokenUsage &start) {
        TokenUsage run;
        run.inputTokens = total.inputTokens - start.inputTokens;
        run.outputTokens = total.outputTokens - start.outputTokens;
        run.totalTokens = total.totalTokens - start.totalTokens;
        run.reasoningTokens = total.reasoningTokens - start.reasoningTokens;
        run.cachedTokens = total.cachedTokens - start.cachedTokens;
        run.cacheReadTokens = total.cacheReadTokens - start.cacheReadTokens;
        run.cacheWriteTokens = total.cacheWriteTokens - start.cacheWriteTokens;
        return run;
    };
    if (const TokenUsage run = since(m_session->compactionUsage(), m_compactionUsageAtStart);
        run != TokenUsage())
        usage.insert(QStringLiteral("compaction"), run.toJson());
    if (const TokenUsage run = since(m_session->subagentUsage(), m_subagentUsageAtStart); run != TokenUsage())
        usage.insert(QStringLiteral("subagents"), run.toJson());
    return usage;
}

int HeadlessRunner::run(const Options &options)
{
    m_options = options;
    m_completedText.clear();
    m_currentText.clear();
    m_sealedLength = 0;
    m_lastUsage.reset();
    m_interrupted = false;
    m_compactionUsageAtStart = m_session->compactionUsage();
    m_subagentUsageAtStart = m_session->subagentUsage();
    m_compactions = QJsonArray();
    m_jsonWritten = false;
    if (options.yolo)
        m_session->setMode(AgentMode::Yolo);

    // Connected before the session opens: a damaged transcript is reported while it loads.
    const QMetaObject::Connection warnings =
        connect(m_session.get(), &AgentSession::errorOccurred, this, [this](const QString &message) {
            m_err << (m_progressLineOpen ? "\n" : "") << tr("Warning: %1").arg(message) << '\n';
            m_err.flush();
            m_progressLineOpen = false;
        });
    const auto disconnectWarnings = qScopeGuard([warnings] { QObject::disconnect(warnings); });

    const QString workspace =
        options.launch.workspace.isEmpty() ? QDir::currentPath() : options.launch.workspace;
    m_session->setWorkspace(workspace);
    if (!options.launch.sessionId.isEmpty()) {
        m_droppedInEffect.clear();
        m_droppedInEffectSeq = 0;
        m_pinnable.clear();
        QMetaObject::Connection pinnableRead;
        if (options.listPinnable || !options.pinItems.isEmpty())
            pinnableRead = connect(m_session.get(), &AgentSession::sessionOpened, this,
                                   [this](const QList<SessionEvent> &events) {
                                       m_pinnable = PinCandidates::fromEvents(events);
                                   });
        const auto stopReadingPinnable = qScopeGuard([pinnableRead] { QObject::disconnect(pinnableRead); });
        QMetaObject::Connection droppedRead;
        if (options.listDropped || !options.pinDropped.isEmpty()) {
            // The details are saved with the compaction_applied event; the one in effect is what an undo
            // would revert.
            droppedRead = connect(m_session.get(), &AgentSession::sessionOpened, this,
                                  [this](const QList<SessionEvent> &events) {
                                      m_droppedInEffectSeq = m_session->undoableCompaction();
                                      for (auto it = events.crbegin(); it != events.crend(); ++it) {
                                          if (it->seq == m_droppedInEffectSeq && it->compaction()) {
                                              m_droppedInEffect = it->compaction()->dropped;
                                              break;
                                          }
                                      }
                                  });
        }
        const auto stopReading = qScopeGuard([droppedRead] { QObject::disconnect(droppedRead); });
        if (auto opened = m_session->openSession(options.launch.sessionId); !opened)
            return fail(opened.error());
        if (!options.launch.workspace.isEmpty())
            m_session->setWorkspace(options.launch.workspace);
        // The opened session's totals come with it; this run's usage is what comes on top.
        m_compactionUsageAtStart = m_session->compactionUsage();
        m_subagentUsageAtStart = m_session->subagentUsage();
    }
    if (!options.compactThreshold.isEmpty() || options.compactDetail) {
        // Issue 16: on top of the session's own policy (an opened one keeps its transcript's).
        CompactionPolicy policy = m_session->compactionPolicy();
        if (!options.compactThreshold.isEmpty()) {
            auto changed = CompactionPolicy::withThreshold(policy, options.compactThreshold);
            if (!changed)
                return fail(changed.error());
            policy = *changed;
        }
        if (options.compactDetail)
            policy.detail = *options.compactDetail;
        const bool changed = policy != m_session->compactionPolicy();
        QEventLoop saved;
        bool failed = false;
        QString failure;
        connect(m_session.get(), &AgentSession::compactionPolicySaved, &saved, &QEventLoop::quit);
        connect(m_session.get(), &AgentSession::errorOccurred, &saved,
                [&failed, &failure, &saved](const QString &message) {
                    failed = true;
                    failure = message;
                    saved.quit();
                });
        m_session->setCompactionPolicy(policy);
        if (options.policyOnly) {
            if (changed)
                saved.exec(); // on disk before the process says so and exits
            if (failed) {
                writeFailureJson(failure); // the warning above named why
                return Failure;
            }
            m_err << tr("Compaction policy: %1.").arg(policy.describe()) << '\n';
            m_err.flush();
            if (options.json) { // one JSON line, as --pins and --undo-compaction give (issue 16)
                QJsonObject line = policy.toJson();
                line.insert(QStringLiteral("session_id"), m_session->sessionId());
                m_out << QJsonDocument(line).toJson(QJsonDocument::Compact) << '\n';
                m_out.flush();
            }
            return Success;
        }
    }
    if (options.undoCompaction) {
        // No request is sent: the provider is needed only for the window the restored history must fit.
        if (m_resolver) {
            if (auto config = m_resolver(options.launch))
                m_session->setClientConfig(*config);
        }
        return runUndoCompaction();
    }
    const bool pinWork = options.pinWork();
    const bool turnWork = options.compact || !options.prompt.trimmed().isEmpty();
    if (pinWork && !turnWork) {
        // No request is sent: the provider is needed only for the window the pin budget is a share of.
        if (m_resolver) {
            if (auto config = m_resolver(options.launch))
                m_session->setClientConfig(*config);
        }
        return runPinChanges();
    }
    if (!m_resolver)
        return fail(tr("no provider configuration is available"));
    auto config = m_resolver(options.launch);
    if (!config)
        return fail(config.error());
    m_session->setClientConfig(*config);
    if (pinWork) {
        if (const int pinned = runPinChanges(); pinned != Success)
            return pinned;
    }
    // A compaction kept pins over their budget: never silently, the person hears of it (issue 16).
    connect(m_session.get(), &AgentSession::pinBudgetExceeded, this, [this](qint64 used, qint64 budget) {
        m_err << (m_progressLineOpen ? "\n" : "")
              << tr("Warning: the pins take about %1 tokens, over their budget of %2; every pin was kept. "
                    "Unpin something (run --session %3 --pins) or raise pin_budget_percent.")
                     .arg(used)
                     .arg(budget)
                     .arg(m_session->sessionId())
              << '\n';
        m_progressLineOpen = false;
    });

    QEventLoop loop;
    int code = Failure;
    connect(m_session.get(), &AgentSession::streamEvent, &loop,
            [this](const StreamEvent &event) { onStreamEvent(event); });
    // A stalled stream is waited for (the inactivity timeout, 5 minutes by default) before it is retried, and
    // a log that says nothing for that long looks hung: a line on stderr every fifth of it, unless a tool
    // runs.
    QElapsedTimer quiet;
    quiet.start();
    qint64 lastQuietNote = 0;
    int toolsRunning = 0;
    connect(m_session.get(), &AgentSession::streamEvent, &loop, [&](const StreamEvent &event) {
        quiet.restart();
        lastQuietNote = 0;
        if (event.type == StreamEvent::Type::ToolStart)
            ++toolsRunning;
        else if (event.type == StreamEvent::Type::ToolEnd)
            toolsRunning = std::max(0, toolsRunning - 1);
    });
    QTimer quietCheck;
    quietCheck.setInterval(250);
    connect(&quietCheck, &QTimer::timeout, &loop, [&] {
        const int timeoutMs = m_session->clientConfig().inactivityTimeoutMs;
        const qint64 every = std::max(1000, timeoutMs / 5);
        const qint64 silent = quiet.elapsed();
        if (m_options.json || toolsRunning > 0 || silent - lastQuietNote < every)
            return;
        lastQuietNote = silent;
        m_err << (m_progressLineOpen ? "\n" : "")
              << tr("No data from the provider for %1 s; the request is retried after %2 s without data "
                    "(Ctrl+C stops).")
                     .arg(silent / 1000)
                     .arg(timeoutMs / 1000)
              << '\n';
        m_err.flush();
        m_progressLineOpen = false;
    });
    quietCheck.start();
    // S56-S58: only the applied boundary matters here; the checkpointed text stays part of the final text.
    connect(m_session.get(), &AgentSession::autoCompactionCheckpointed, &loop, [this](const QString &) {
        m_completedText += m_currentText;
        m_currentText.clear();
        m_sealedLength = 0;
    });
    // Issue 16, what was dropped: each compaction's record for json, one line on stderr for text.
    connect(m_session.get(), &AgentSession::droppedDetailsFound, &loop,
            [this](quint64 seq, bool automatic, const QList<DroppedDetail> &dropped) {
                m_compactions.append(QJsonObject{{QStringLiteral("seq"), qint64(seq)},
                                                 {QStringLiteral("automatic"), automatic},
                                                 {QStringLiteral("dropped"), toJsonArray(dropped)}});
                if (m_options.json || dropped.isEmpty())
                    return;
                // Counts only: the details themselves are arbitrary text (--format json lists them).
                int counts[4] = {0, 0, 0, 0};
                for (const DroppedDetail &detail : dropped)
                    ++counts[int(detail.kind)];
                m_err << (m_progressLineOpen ? "\n" : "")
                      << tr("Not in the summary: %1 of the earlier conversation (--format json lists them).")
                             .arg(droppedCounts(counts))
                      << '\n';
                m_err.flush();
                m_progressLineOpen = false;
            });
    QString compactionMessage;
    bool compactionApplied = false;
    connect(m_session.get(), &AgentSession::compactionFinished, &loop,
            [&](AgentSession::CompactionMode mode, bool applied, const QString &message) {
                if (mode == AgentSession::CompactionMode::Manual) {
                    compactionApplied = applied;
                    compactionMessage = message;
                } else if (applied && !message.isEmpty() && !m_options.json) {
                    // S56 still: nothing for the seed's single request. An over-budget one says how it fit
                    // and what it left out (issue 16).
                    m_err << (m_progressLineOpen ? "\n" : "")
                          << tr("Context compacted automatically: %1").arg(message) << '\n';
                    m_progressLineOpen = false;
                }
            });
    connect(m_session.get(), &AgentSession::turnFinished, &loop,
            [&](AgentSession::TurnOutcome outcome, const QString &error) {
                if (m_progressLineOpen && !m_options.json)
                    m_err << '\n';
                m_progressLineOpen = false;
                if (options.compact) {
                    if (compactionApplied) {
                        if (m_options.json)
                            m_out << QJsonDocument(
                                         QJsonObject{{QStringLiteral("session_id"), m_session->sessionId()},
                                                     {QStringLiteral("opencode_session_id"), hyphenlessId()},
                                                     {QStringLiteral("text"), compactionMessage},
                                                     {QStringLiteral("usage"), usageJson()},
                                                     {QStringLiteral("compactions"), m_compactions}})
                                         .toJson(QJsonDocument::Compact)
                                  << '\n';
                        else
                            m_out << compactionMessage << '\n';
                        m_jsonWritten = m_options.json;
                        code = Success;
                    } else {
                        code = interrupted() ? int(Interrupted) : fail(compactionMessage);
                    }
                    loop.quit();
                    return;
                }
                const QString text = m_completedText + m_currentText; // S58: no separator
                const bool success = outcome == AgentSession::TurnOutcome::Done;
                const bool stopped = outcome == AgentSession::TurnOutcome::Cancelled || interrupted();
                const QString failure =
                    stopped ? tr("interrupted") : (error.isEmpty() ? tr("the turn did not complete") : error);
                if (m_options.json) {
                    QJsonObject line{{QStringLiteral("session_id"), m_session->sessionId()},
                                     {QStringLiteral("opencode_session_id"), hyphenlessId()},
                                     {QStringLiteral("text"), text},
                                     {QStringLiteral("usage"), usageJson()}};
                    if (!m_compactions.isEmpty())
                        line.insert(QStringLiteral("compactions"), m_compactions);
                    if (!m_notices.isEmpty())
                        line.insert(QStringLiteral("notices"), m_notices);
                    if (!success || stopped) {
                        // A script must not take a cut-off reply for a whole one.
                        line.insert(QStringLiteral("error"), failure);
                        line.insert(QStringLiteral("partial"), true);
                    }
                    StreamOutput::writeUtf8(m_out, QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
                    m_jsonWritten = true;
                } else if (success || !text.isEmpty()) {
                    StreamOutput::writeText(m_out, text); // S59: partial text is still written
                    m_out << '\n';
                }
                m_out.flush();
                const QString partialNote = !m_options.json && !success && !text.isEmpty()
                                                ? QStringLiteral(" ") + tr("(the text on stdout is partial)")
                                                : QString();
                if (stopped) {
                    m_err << tr("Interrupted.") << partialNote << '\n';
                    code = Interrupted;
                } else if (!success) {
                    code = fail(failure + partialNote);
                } else if (!m_options.completionSignal.isEmpty() &&
                           !text.contains(m_options.completionSignal)) {
                    m_err << tr("completion signal \"%1\" not found in the final text")
                                 .arg(m_options.completionSignal)
                          << '\n';
                    code = CompletionSignalMissing;
                } else {
                    code = Success;
                }
                loop.quit();
            });

    QString prompt = options.prompt;
    if (!options.compact) {
        // `run "/review src/"` uses a skill as the window's input does.
        const SkillCatalog skills =
            SkillCatalog::discover(m_session->workspace(), AgentSession::dataFolder(), QDir::homePath());
        if (const std::optional<Result<QString>> activation = skills.activate(prompt)) {
            if (!*activation)
                return fail(activation->error());
            prompt = **activation;
        }
    }
    // MCP servers are started and waited for before the turn, so their skills and call_mcp_tool are there
    // from its first request; one that fails is said on stderr and the run goes on without it.
    const Result<QList<McpServerConfig>> mcpServers =
        McpServerConfig::readFile(McpServerConfig::path(AgentSession::dataFolder()));
    if (mcpServers)
        McpSkillFiles::keepOnly(AgentSession::dataFolder(), *mcpServers); // gone servers' skills go too
    if (!mcpServers) {
        m_err << tr("MCP unavailable: %1").arg(mcpServers.error()) << '\n';
    } else if (!mcpServers->isEmpty()) {
        m_session->setMcpServers(*mcpServers);
        m_session->waitForMcp(McpConnection::ConnectTimeoutMs);
        for (const QString &problem : m_session->mcpProblems())
            m_err << tr("MCP unavailable: %1").arg(problem) << '\n';
        m_err.flush();
    }
    // Subagent profiles in the folder offer delegate_task to this turn.
    m_session->setSubagents(
        SubagentCatalog::discover(m_session->workspace(), AgentSession::dataFolder(), QDir::homePath()));
    m_session->setReviewManualCompaction(options.review); // never from settings.json: a script would wait
    if (options.review) {
        connect(m_session.get(), &AgentSession::compactionReviewRequested, &loop,
                [this](const QString &summary, const MessageList &replaced) {
                    // Asked once the signal has returned: the answer may take minutes, and it starts the
                    // write or the next request.
                    QTimer::singleShot(
                        0, this, [this, summary, count = replaced.size()] { answerReview(summary, count); });
                });
    }
    const Result<void> started =
        options.compact ? m_session->compact(options.compactFocus) : m_session->submit(prompt);
    if (!started)
        return fail(started.error());
    loop.exec();
    m_out.flush();
    m_err.flush();
    return code;
}

void HeadlessRunner::answerReview(const QString &summary, qsizetype replacedMessages)
{
    if (m_progressLineOpen)
        m_err << '\n';
    m_progressLineOpen = false;
    CompactionReviewPrompt prompt(m_err, m_reviewReader);
    const CompactionReviewPrompt::Decision decision = prompt.ask(summary, replacedMessages, m_options.json);
    m_err.flush();
    Result<void> acted;
    switch (decision.action) {
    case CompactionReviewPrompt::Decision::Action::Accept:
        acted = m_session->acceptCompaction(decision.text);
        break;
    case CompactionReviewPrompt::Decision::Action::Regenerate:
        m_currentText.clear(); // the next summary streams in its place
        acted = m_session->regenerateCompaction(decision.text);
        break;
    case CompactionReviewPrompt::Decision::Action::Cancel:
        if (!decision.text.isEmpty())
            m_err << decision.text << '\n';
        m_session->cancelCompactionReview(); // S30: nothing written, nothing changed
        return;
    }
    if (!acted) {
        m_err << acted.error() << '\n';
        m_session->cancelCompactionReview();
    }
}

int HeadlessRunner::fail(const QString &message)
{
    m_err << "Error: " << message << '\n';
    m_err.flush();
    writeFailureJson(message);
    return Failure;
}

void HeadlessRunner::writeFailureJson(const QString &message)
{
    // Whatever ends a --format json run with exit 1, a script reading stdout gets one object saying why.
    if (!m_options.json || m_jsonWritten)
        return;
    QJsonObject line =
        failureJson(message, m_session->sessionId(), m_completedText + m_currentText, usageJson());
    if (!m_compactions.isEmpty())
        line.insert(QStringLiteral("compactions"), m_compactions);
    StreamOutput::writeUtf8(m_out, QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    m_out.flush();
    m_jsonWritten = true;
}

QJsonObject HeadlessRunner::pinsJson() const
{
    QJsonArray pins;
    for (const Pin &pin : m_session->pins()) {
        QJsonObject object{{QStringLiteral("id"), pin.id},
                           {QStringLiteral("kind"), Pin::kindName(pin.kind)},
                           {QStringLiteral("text"), pin.text}};
        if (!pin.source.isEmpty())
            object.insert(QStringLiteral("source"), pin.source);
        pins.append(object);
    }
    return QJsonObject{{QStringLiteral("session_id"), m_session->sessionId()},
                       {QStringLiteral("pins"), pins},
                       {QStringLiteral("pinned_tokens"), m_session->pinnedTokens()},
                       {QStringLiteral("pin_budget"), m_session->pinBudget()}};
}

void HeadlessRunner::reportDropped(QJsonObject *json)
{
    if (!m_options.listDropped)
        return;
    if (json) {
        json->insert(QStringLiteral("compaction_seq"), qint64(m_droppedInEffectSeq));
        json->insert(QStringLiteral("dropped"), toJsonArray(m_droppedInEffect));
        return;
    }
    // Numbered as --pin-dropped takes them, named as the window's list names them.
    for (qsizetype i = 0; i < m_droppedInEffect.size(); ++i) {
        const DroppedDetail &detail = m_droppedInEffect.at(i);
        m_out << (i + 1) << '\t' << DroppedDetail::kindName(detail.kind) << '\t'
              << DroppedDetail::readable(detail.text).simplified() << '\n';
    }
    if (m_droppedInEffectSeq == 0)
        m_err << tr("Session %1 has no compaction in effect.").arg(m_session->sessionId()) << '\n';
    else if (m_droppedInEffect.isEmpty())
        m_err
            << tr("Its compaction's summary left out none of the paths, identifiers, numbers and error lines "
                  "found in the compacted part.")
            << '\n';
    else
        m_err << tr("Not in the summary of its compaction: %1. Pin one's original text with --pin-dropped N.")
                     .arg(m_droppedInEffect.size() == 1 ? tr("1 detail")
                                                        : tr("%1 details").arg(m_droppedInEffect.size()))
              << '\n';
}

void HeadlessRunner::reportPinnable(QJsonObject *json)
{
    if (!m_options.listPinnable)
        return;
    if (json) {
        QJsonArray items;
        for (qsizetype i = 0; i < m_pinnable.size(); ++i) {
            const Pin &pin = m_pinnable.at(i);
            items.append(QJsonObject{{QStringLiteral("number"), i + 1},
                                     {QStringLiteral("kind"), Pin::kindName(pin.kind)},
                                     {QStringLiteral("source"), pin.source},
                                     {QStringLiteral("text"), pin.text}});
        }
        json->insert(QStringLiteral("pinnable"), items);
        return;
    }
    // Numbered as --pin-item takes them; named as the chat's pin rows name a pin.
    for (qsizetype i = 0; i < m_pinnable.size(); ++i) {
        const Pin &pin = m_pinnable.at(i);
        m_out << (i + 1) << '\t' << Pin::kindName(pin.kind) << '\t' << pin.source << '\t' << pin.headline()
              << '\n';
    }
    m_err << (m_pinnable.isEmpty()
                  ? tr("Session %1 has nothing to pin yet.").arg(m_session->sessionId())
                  : tr("Pin one with --pin-item N: it then travels verbatim after every compaction."))
          << '\n';
}

int HeadlessRunner::runPinChanges()
{
    // One change at a time: each waits until its event is on disk (or failed). Connected before the change
    // starts, so an answer can never come before anyone listens.
    auto settle = [this](const std::function<Result<void>()> &change) -> QString {
        QEventLoop loop;
        QString error;
        connect(m_session.get(), &AgentSession::pinsChanged, &loop, [&] { loop.quit(); });
        connect(m_session.get(), &AgentSession::pinFailed, &loop, [&](const QString &why) {
            error = why;
            loop.quit();
        });
        if (const Result<void> started = change(); !started)
            return started.error();
        loop.exec();
        return error;
    };
    for (const QString &id : std::as_const(m_options.unpins)) {
        if (const QString error = settle([&] { return m_session->removePin(id); }); !error.isEmpty())
            return fail(error);
        if (!m_options.json)
            m_err << tr("Unpinned %1.").arg(id) << '\n';
    }
    // The pin just added, what it was made of, and the budget it counts against.
    auto sayPinned = [this](const QString &what) {
        if (!m_options.json)
            m_err << tr("Pinned %1 (%2) in session %3: the pins take about %4 of %5 tokens.")
                         .arg(m_session->pins().constLast().id, what, m_session->sessionId())
                         .arg(m_session->pinnedTokens())
                         .arg(m_session->pinBudget())
                  << '\n';
    };
    for (const int number : std::as_const(m_options.pinDropped)) {
        if (number > m_droppedInEffect.size())
            return fail(
                m_droppedInEffect.isEmpty()
                    ? tr("--pin-dropped %1: session %2 has no compaction in effect that left details out "
                         "of its summary")
                          .arg(number)
                          .arg(m_session->sessionId())
                    : tr("--pin-dropped %1: the compaction in effect left out %2 details (see --dropped)")
                          .arg(number)
                          .arg(m_droppedInEffect.size()));
        const Pin pin = m_droppedInEffect.at(number - 1).originalPin();
        if (const QString error = settle([&] { return m_session->addPin(pin); }); !error.isEmpty())
            return fail(error); // refused (over the pin budget): nothing was written
        sayPinned(tr("the original of %1").arg(pin.source));
    }
    for (const int number : std::as_const(m_options.pinItems)) {
        if (number > m_pinnable.size())
            return fail(tr("--pin-item %1: session %2 has %3 (see --pinnable)")
                            .arg(number)
                            .arg(m_session->sessionId(), m_pinnable.size() == 1
                                                             ? tr("1 item to pin")
                                                             : tr("%1 items to pin").arg(m_pinnable.size())));
        const Pin pin = m_pinnable.at(number - 1);
        if (const QString error = settle([&] { return m_session->addPin(pin); }); !error.isEmpty())
            return fail(error); // refused (over the pin budget): nothing was written
        sayPinned(pin.source);
    }
    for (const QString &text : std::as_const(m_options.pins)) {
        Pin pin;
        pin.kind = Pin::Kind::Note;
        pin.text = text;
        if (const QString error = settle([&] { return m_session->addPin(pin); }); !error.isEmpty())
            return fail(error); // refused: nothing was written (issue 16)
        if (!m_options.json)
            m_err << tr("Pinned %1 in session %2: the pins take about %3 of %4 tokens.")
                         .arg(m_session->pins().constLast().id, m_session->sessionId())
                         .arg(m_session->pinnedTokens())
                         .arg(m_session->pinBudget())
                  << '\n';
    }
    const bool turnFollows = m_options.compact || !m_options.prompt.trimmed().isEmpty();
    if (!turnFollows) {
        if (m_options.json) {
            QJsonObject line = pinsJson();
            reportDropped(&line);
            reportPinnable(&line);
            m_out << QJsonDocument(line).toJson(QJsonDocument::Compact) << '\n';
        } else {
            reportDropped(nullptr);
            reportPinnable(nullptr);
        }
        if (!m_options.json && m_options.listPins) {
            for (const Pin &pin : m_session->pins())
                m_out << pin.id << '\t' << Pin::kindName(pin.kind) << '\t' << pin.headline()
                      << '\n'; // named as the chat's pin row names it
            const qsizetype pinCount = m_session->pins().size();
            m_err << (pinCount == 1 ? tr("1 pin, about %1 of %2 pin-budget tokens.")
                                    : tr("%1 pins, about %2 of %3 pin-budget tokens.").arg(pinCount))
                         .arg(m_session->pinnedTokens())
                         .arg(m_session->pinBudget())
                  << '\n';
        }
    }
    m_out.flush();
    m_err.flush();
    return Success;
}

int HeadlessRunner::runUndoCompaction()
{
    QEventLoop loop;
    int code = Failure;
    bool done = false; // a refusal comes at once, before the loop runs
    connect(
        m_session.get(), &AgentSession::compactionUndone, &loop,
        [&](quint64 appliedSeq, qint64 estimatedTokens, qint64 inputBudget) {
            const bool fits = estimatedTokens <= inputBudget;
            if (m_options.json) {
                m_out << QJsonDocument(QJsonObject{{QStringLiteral("session_id"), m_session->sessionId()},
                                                   {QStringLiteral("undone_seq"), qint64(appliedSeq)},
                                                   {QStringLiteral("estimated_tokens"), estimatedTokens},
                                                   {QStringLiteral("input_budget"), inputBudget},
                                                   {QStringLiteral("fits"), fits}})
                             .toJson(QJsonDocument::Compact)
                      << '\n';
            } else {
                const qsizetype messageCount = m_session->messages().size();
                m_out
                    << (messageCount == 1
                            ? tr("Compaction undone: the conversation continues from before it (1 message).")
                            : tr("Compaction undone: the conversation continues from before it (%1 "
                                 "messages).")
                                  .arg(messageCount))
                    << '\n';
            }
            if (!fits)
                m_err << tr("Warning: the restored history is about %1 tokens, over the input budget of %2; "
                            "run --session %3 --compact to compact it again.")
                             .arg(estimatedTokens)
                             .arg(inputBudget)
                             .arg(m_session->sessionId())
                      << '\n';
            code = Success;
            done = true;
            loop.quit();
        });
    connect(m_session.get(), &AgentSession::undoCompactionFailed, &loop, [&](const QString &error) {
        code = fail(error);
        done = true;
        loop.quit();
    });
    m_session->undoCompaction();
    if (!done)
        loop.exec();
    m_out.flush();
    m_err.flush();
    return code;
}

} // namespace keen
