#include "loop/toolloopclient.h"

#include "base/logcategories.h"
#include "base/secretredaction.h"
#include "conversation/historyreplay.h"
#include "loop/autocompactiongate.h"
#include "loop/compactioncommit.h"
#include "loop/compactionprompts.h"
#include "loop/compactionslicer.h"
#include "loop/contextbudget.h"
#include "loop/droppeddetails.h"
#include "providers/localserverhint.h"
#include "providers/providertable.h"
#include "providers/unexpectedreply.h"
#include "providers/wiresupport.h"
#include "stream/httpstreamer.h"
#include "stream/replybodysniffer.h"
#include "tools/outputcompressor.h"
#include "tools/toolpermissions.h"
#include "tools/toolregistry.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonDocument>
#include <QLocale>
#include <QThread>

#include <algorithm>

namespace keen {

namespace {

// A whole reply a server sent instead of a stream is read up to this size: a chat.completion of the longest
// answer is a few MB.
constexpr qsizetype kMaxDocumentBytes = qsizetype(16) * 1024 * 1024;

// What a tool turn asked for, comparable between turns: each call's name and arguments, ids left out (they
// differ on every turn). "read_file({...})".
QByteArray callsSignature(const QList<ToolCallRequest> &calls)
{
    QByteArray signature;
    for (const ToolCallRequest &call : calls) {
        if (!signature.isEmpty())
            signature += ' ';
        signature +=
            call.name.toUtf8() + '(' + QJsonDocument(call.input).toJson(QJsonDocument::Compact) + ')';
    }
    return signature;
}

qint64 jsonBytes(const QJsonValue &value)
{
    if (value.isUndefined() || value.isNull())
        return 0;
    return serializeJson(value).toUtf8().size();
}

QString errorJson(const QString &message)
{
    return serializeJson(QJsonObject{{QStringLiteral("error"), message}});
}

// Where a pending turn goes in messages: after the first `conversational` messages that are not system
// messages (a conversation's system prompt is rebuilt for every request, so only the others count).
qsizetype indexAfter(const MessageList &messages, qsizetype conversational)
{
    qsizetype seen = 0;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        if (messages.at(i).role == Message::Role::System)
            continue;
        if (seen == conversational)
            return i;
        ++seen;
    }
    return messages.size();
}

qsizetype conversationalCount(const MessageList &messages)
{
    return std::count_if(messages.cbegin(), messages.cend(),
                         [](const Message &message) { return message.role != Message::Role::System; });
}

// A fingerprint of one message: its role, its text and its tool activity. qHash, with no serialisation of a
// plain message, so the fingerprint of a history of tens of megabytes costs a few milliseconds per turn.
size_t messageFingerprint(const Message &message, size_t seed = 0)
{
    seed = qHashMulti(seed, int(message.role), message.content);
    if (message.turnMemory)
        seed = qHash(QJsonDocument(message.turnMemory->toJson()).toJson(QJsonDocument::Compact), seed);
    return seed;
}

// The fingerprint of the first `conversational` messages that are not system messages and not at one of the
// indexes in skipped (SentTurn::beforeHash).
size_t conversationFingerprint(const MessageList &messages, qsizetype conversational,
                               const QList<qsizetype> &skipped = {})
{
    size_t seed = 0;
    qsizetype seen = 0;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const Message &message = messages.at(i);
        if (message.role == Message::Role::System || skipped.contains(i))
            continue;
        if (seen++ == conversational)
            break;
        seed = messageFingerprint(message, seed);
    }
    return seed;
}

// The replayed pending state of interrupted turns exists only in the native history. A sliced compaction
// works from the generic history, so each such turn goes in where it belongs (at most at limit, the latest
// prompt) as one tool output holding its native JSON, to be summarised (or cut, or left out) like any other.
MessageList withPendingTurns(const MessageList &conversation,
                             const QList<ToolLoopClient::PendingTurn> &pending, qsizetype limit)
{
    MessageList result = conversation;
    for (qsizetype i = pending.size() - 1; i >= 0; --i) {
        ToolActivity activity;
        activity.tool = QStringLiteral("interrupted_turn");
        activity.status = QStringLiteral("success");
        activity.retainedOutput = serializeJson(pending.at(i).messages);
        result.insert(std::min({indexAfter(result, pending.at(i).after), limit, result.size()}),
                      Message::assistant(QString(), TurnMemory{{activity}}));
    }
    return result;
}

// The automatic replacement, and what its summary left out (issue 16), found here where the raw tool outputs
// of the loop still are (S8). What the replacement keeps verbatim (the pins, the latest user message) is not
// dropped.
Result<MessageList> replacementWithDropped(const QString &summary, const MessageList &history,
                                           const QString &pinnedContext, QList<DroppedDetail> &dropped)
{
    Result<MessageList> replacement =
        CompactionPrompts::automaticReplacement(summary, history, pinnedContext);
    if (!replacement)
        return replacement;
    QString kept;
    for (const Message &message : std::as_const(*replacement))
        kept += message.content + QLatin1Char('\n');
    dropped = DroppedDetails::find(history, kept);
    return replacement;
}

} // namespace

// The state of one streamChat call, or of one nested compaction request.
struct ToolLoopClient::Loop
{
    StreamOptions options;
    const ToolRegistry *tools = nullptr;
    ToolSpecList toolSpecs; // what the protocol offers the model, taken from tools once per call
    CancellationToken cancel;
    EventSink sink;

    NativeHistory native;
    MessageList compactionHistory; // generic history incl. system and the loop's raw tool outputs (S7, S8)
    int turnStartLen = 0;
    // How many messages of the conversation (system messages not counted) the native history stands for:
    // where a turn that does not finish belongs (PendingTurn::after). The request's, or the replacement's
    // after a compaction.
    qsizetype conversationLength = 0;
    MessageList requestMessages; // what streamChat was given
    QList<PendingTurn> injectedPending;
    bool pendingReconciled = false; // a request carrying injectedPending has completed: ordinary history now
    bool hasNewToolTurns = false;
    int refusedToolRounds = 0;   // rounds of tool calls refused because tool calls are disabled
    bool autoCompactOff = false; // suppression after a failed or cancelled attempt (S46)
    bool stopped = false;        // ended inside maybeAutoCompact; the terminal event is already out
    // The runaway guard (MaxSameRefillCompactions): the calls of the latest tool turn; the tool turns since
    // the last automatic compaction (a hash of each turn's calls, and the tools they called, in order); and
    // per such sequence how many of this turn's compactions it made necessary (the first compaction also
    // counts for the tool turn right before it, as if it were alone).
    QByteArray lastToolCalls;
    QByteArray callsSinceCompaction;
    QStringList toolsSinceCompaction;
    // The latest response stopped at the model's output limit (a call in it may be cut short).
    bool outputLimited = false;
    // Tool turns in a row whose calls were all refused before running, with the same calls each time.
    int sameRefusedRounds = 0;
    int refusedThisRound = 0;
    QByteArray lastRefusedCalls;
    int toolTurnsSinceCompaction = 0;
    int compactionsThisTurn = 0;
    QHash<QByteArray, int> refillsByRounds;
    HttpStreamer *http = nullptr; // this thread's: HttpStreamer::forCurrentThread()

    // Estimate cache: serialised size of each native message, plus system and tool definitions (issue 5).
    mutable QList<qint64> messageBytes;
    mutable qint64 fixedBytes = -1;

    void invalidateEstimate()
    {
        messageBytes.clear();
        fixedBytes = -1;
    }
};

ToolLoopClient::ToolLoopClient(std::unique_ptr<ProviderProtocol> protocol)
    : m_protocol(std::move(protocol))
{}

ToolLoopClient::~ToolLoopClient() = default;

void ToolLoopClient::reset()
{
    std::lock_guard lock(m_pendingMutex);
    m_pendingState.clear();
    m_sentTurns.clear();
}

QJsonArray ToolLoopClient::pendingState() const
{
    std::lock_guard lock(m_pendingMutex);
    QJsonArray all;
    for (const PendingTurn &turn : m_pendingState) {
        for (const QJsonValue &message : turn.messages)
            all.append(message);
    }
    return all;
}

void ToolLoopClient::emitEvent(const Loop &loop, const StreamEvent &event) const
{
    // Like the reference's sendStreamEvent: nothing goes out once the stream is cancelled.
    if (!loop.cancel.isCancelled() && loop.sink)
        loop.sink(event);
}

void ToolLoopClient::streamChat(const MessageList &messages, const ToolRegistry *tools,
                                const StreamOptions &options, const CancellationToken &cancel,
                                const EventSink &sink)
{
    Loop loop;
    loop.options = options;
    loop.tools = tools;
    if (tools)
        loop.toolSpecs = tools->specs();
    loop.cancel = cancel;
    loop.sink = sink;
    loop.http = &HttpStreamer::forCurrentThread();
    loop.compactionHistory = messages;
    loop.conversationLength = conversationalCount(messages);
    loop.requestMessages = messages;
    {
        std::unique_lock lock(m_pendingMutex);
        const QList<SentTurn> sent = options.oneShot ? QList<SentTurn>() : sentTurnsFor(messages);
        if (options.oneShot || (m_pendingState.isEmpty() && sent.isEmpty())) {
            lock.unlock();
            loop.native = m_protocol->toNative(messages);
        } else {
            buildWithNativeTurns(loop, messages, sent);
            if (!options.keepPendingState)
                m_pendingState.clear();
        }
    }
    loop.turnStartLen = int(loop.native.messages.size());
    if (options.manualCompaction && !sliceManualCompaction(loop))
        return;
    runLoop(loop);
}

QList<ToolLoopClient::SentTurn> ToolLoopClient::sentTurnsFor(const MessageList &messages)
{
    QList<SentTurn> fitting;
    QList<qsizetype> batch; // where the replayed turns of the current batch were found, in order
    for (SentTurn turn : std::as_const(m_sentTurns)) {
        if (turn.batchIndex == 0)
            batch.clear();
        if (batch.size() != turn.batchIndex)
            continue; // one before it in its batch is not in the history
        const qsizetype at = indexAfter(messages, turn.after);
        if (at >= messages.size() || messages.at(at).role != Message::Role::Assistant ||
            conversationFingerprint(messages, turn.after - turn.batchIndex, batch) != turn.beforeHash)
            continue;
        const size_t replayed = messageFingerprint(messages.at(at));
        if (!turn.replayedHash)
            turn.replayedHash = replayed;
        else if (*turn.replayedHash != replayed)
            continue;
        fitting.append(turn);
        batch.append(at);
    }
    m_sentTurns = fitting; // a history that no longer starts the same way never will again
    return fitting;
}

void ToolLoopClient::rememberSentTurns(const Loop &loop)
{
    if (loop.injectedPending.isEmpty() || loop.options.oneShot || loop.options.keepPendingState)
        return;
    std::lock_guard lock(m_pendingMutex);
    int batchIndex = 0;
    for (const PendingTurn &turn : loop.injectedPending) {
        // The ones before it in the batch join the history before it, one message each.
        m_sentTurns.append(SentTurn{turn.after + batchIndex,
                                    batchIndex,
                                    conversationFingerprint(loop.requestMessages, turn.after),
                                    {},
                                    turn.messages});
        ++batchIndex;
    }
    while (m_sentTurns.size() > MaxSentTurns)
        m_sentTurns.removeFirst();
}

void ToolLoopClient::buildWithNativeTurns(Loop &loop, const MessageList &messages,
                                          const QList<SentTurn> &sent) const
{
    // The partial native turn of an incomplete turn goes right after the prompt it answered: before the new
    // prompt, and when several turns in a row did not finish, each between its own prompt and the next. The
    // APIs whose turns alternate merge consecutive user messages into one, an interrupted prompt with the
    // next: inserted before that merged message, the replayed calls would come before the prompt they answer
    // (and Anthropic would find a thinking block in the middle of the previous reply). So the conversation is
    // built in parts around the pending turns (normalised into alternation when the request is built), and
    // the new prompt is appended as the protocol appends one (after the results, in their user message).
    const bool promptLast = !messages.isEmpty() && messages.last().role == Message::Role::User;
    const qsizetype before = promptLast ? messages.size() - 1 : messages.size();
    qsizetype built = -1; // how many messages the native history holds so far; -1 before the first part
    auto buildTo = [&](qsizetype end) {
        if (built < 0) {
            loop.native = m_protocol->toNative(messages.first(end)); // with the system handling
        } else if (end > built) {
            const NativeHistory part = m_protocol->toNative(messages.mid(built, end - built), built);
            for (const QJsonValue &message : part.messages)
                loop.native.messages.append(message);
        }
        built = std::max(built, end);
    };
    // A sent turn stands in for the replayed calls in its place (the assistant messages there).
    for (const SentTurn &turn : sent) {
        const qsizetype at = indexAfter(messages, turn.after);
        if (at < std::max<qsizetype>(built, 0) || at >= before)
            continue;
        buildTo(at);
        for (const QJsonValue &message : turn.messages)
            loop.native.messages.append(message);
        qsizetype end = at;
        while (end < before && messages.at(end).role == Message::Role::Assistant)
            ++end;
        built = end;
    }
    for (const PendingTurn &turn : std::as_const(m_pendingState)) {
        buildTo(
            std::clamp<qsizetype>(indexAfter(messages, turn.after), std::max<qsizetype>(built, 0), before));
        for (const QJsonValue &message : turn.messages)
            loop.native.messages.append(message);
    }
    buildTo(before);
    if (promptLast)
        m_protocol->appendUserText(loop.native, messages.last().content);
    loop.injectedPending = m_pendingState;
}

bool ToolLoopClient::hasProgress(const Loop &loop) const
{
    return !loop.injectedPending.isEmpty() || loop.native.messages.size() > loop.turnStartLen;
}

void ToolLoopClient::savePendingIfAccumulated(Loop &loop)
{
    if (loop.options.oneShot || loop.options.keepPendingState || !hasProgress(loop))
        return;
    QList<PendingTurn> pending = loop.injectedPending;
    PendingTurn turn{loop.conversationLength, {}};
    for (qsizetype i = loop.turnStartLen; i < loop.native.messages.size(); ++i)
        turn.messages.append(loop.native.messages.at(i));
    if (!turn.messages.isEmpty())
        pending.append(turn);
    std::lock_guard lock(m_pendingMutex);
    m_pendingState = pending;
}

void ToolLoopClient::finishWithError(Loop &loop, const ProviderError &error)
{
    if (loop.cancel.isCancelled()) {
        savePendingIfAccumulated(loop);
        return;
    }
    // The terminal-event rule: a turn that made progress (or replayed pending state) is incomplete.
    if (hasProgress(loop)) {
        savePendingIfAccumulated(loop);
        emitEvent(loop, StreamEvent::incomplete(error.message));
    } else {
        emitEvent(loop, StreamEvent::failure(error.message));
    }
}

void ToolLoopClient::runLoop(Loop &loop)
{
    for (int iteration = 0; iteration < MaxToolTurns; ++iteration) {
        if (loop.cancel.isCancelled()) {
            savePendingIfAccumulated(loop);
            return;
        }
        maybeAutoCompact(loop); // S35: before each request of the loop
        if (loop.stopped)
            return;
        if (overBudgetWithAutomaticOff(loop))
            return;

        ProviderError error;
        Result<ModelTurn> result = collectTurnWithRetry(loop, error);
        if (!result) {
            finishWithError(loop, error);
            return;
        }
        ModelTurn turn = std::move(result).value();
        loop.pendingReconciled = true; // the provider accepted a request carrying the replayed state
        if (turn.usage)
            emitEvent(loop, StreamEvent::usageReport(*turn.usage));

        const QJsonArray assistant = m_protocol->assistantMessages(turn);
        for (const QJsonValue &message : assistant)
            loop.native.messages.append(message);

        if (turn.toolCalls.isEmpty()) {
            if (!loop.cancel.isCancelled() && stoppedAtOutputLimit(turn.stopReason))
                emitEvent(loop,
                          StreamEvent::notice(QCoreApplication::translate(
                                                  "ToolLoopClient",
                                                  "the reply stopped at the model's output limit (%1), so it "
                                                  "may be cut short: ask it to go on")
                                                  .arg(turn.stopReason)));
            else if (const QString notice = stoppedByProviderNotice(turn.stopReason);
                     !notice.isEmpty() && !loop.cancel.isCancelled())
                emitEvent(loop, StreamEvent::notice(notice));
            if (!loop.cancel.isCancelled()) {
                rememberSentTurns(loop); // the app's history gets them as replayed calls now
                emitEvent(loop, StreamEvent::done());
            } else {
                savePendingIfAccumulated(loop);
            }
            return;
        }
        if (loop.options.disableToolCalls && loop.refusedToolRounds >= MaxCompactionToolRounds) {
            // A compaction request never saves pending state (one-shot, or it keeps the existing one), so
            // this is a plain failure: the manual compaction reports it, the automatic one is suppressed
            // (S46).
            emitEvent(loop, StreamEvent::failure(
                                QCoreApplication::translate("ToolLoopClient",
                                                            "the model kept calling tools instead of writing "
                                                            "the summary (%1 rounds of tool calls refused)")
                                    .arg(MaxCompactionToolRounds)));
            return;
        }

        // Run the tools sequentially, in model order.
        loop.outputLimited = stoppedAtOutputLimit(turn.stopReason);
        loop.refusedThisRound = 0;
        QList<ToolOutcome> outcomes;
        TurnMemory memory;
        bool stopTurn = false;
        const int textOffset = int(turn.text.toUtf8().size());
        for (const ToolCallRequest &call : std::as_const(turn.toolCalls)) {
            ToolActivity activity;
            activity.textOffset = textOffset;
            if (stopTurn || loop.cancel.isCancelled()) {
                // Every call still needs a result for the native history to stay valid.
                const QString why =
                    QCoreApplication::translate("ToolLoopClient", "tool call skipped: the turn was stopped");
                outcomes.append(ToolOutcome{call, errorJson(why), true});
                activity.tool = call.name;
                activity.input = call.input;
                activity.status = QStringLiteral("error");
                activity.hasRawOutput = true;
                activity.rawOutput = QJsonObject{{QStringLiteral("error"), why}};
                memory.toolActivity.append(activity);
                continue;
            }
            outcomes.append(executeTool(loop, call, activity, stopTurn));
            memory.toolActivity.append(activity);
        }
        const QJsonArray results = m_protocol->toolResultMessages(outcomes);
        for (const QJsonValue &message : results)
            loop.native.messages.append(message);
        loop.compactionHistory.append(Message::assistant(turn.text, memory));
        loop.hasNewToolTurns = true;
        loop.lastToolCalls = callsSignature(turn.toolCalls);
        loop.callsSinceCompaction += QCryptographicHash::hash(loop.lastToolCalls, QCryptographicHash::Sha1);
        for (const ToolCallRequest &call : std::as_const(turn.toolCalls)) {
            if (!loop.toolsSinceCompaction.contains(call.name))
                loop.toolsSinceCompaction.append(call.name);
        }
        ++loop.toolTurnsSinceCompaction;
        if (stopsRepeatedRefusal(loop, turn.toolCalls.size()))
            return;
        if (loop.options.disableToolCalls)
            ++loop.refusedToolRounds;
        loop.autoCompactOff = false; // a new tool turn advanced the history (S46)

        if (loop.cancel.isCancelled()) {
            savePendingIfAccumulated(loop);
            return;
        }
        if (stopTurn) {
            // "Ask what to do instead": the turn ends here and the person types what to do next.
            savePendingIfAccumulated(loop);
            emitEvent(loop, StreamEvent::incomplete(
                                QCoreApplication::translate("ToolLoopClient", "Interrupted by the user.")));
            return;
        }
    }
    finishWithError(loop, ProviderError{ProviderError::Kind::Stream,
                                        QCoreApplication::translate(
                                            "ToolLoopClient", "the tool loop reached its limit of %1 turns")
                                            .arg(MaxToolTurns),
                                        0, std::nullopt});
}

ToolOutcome ToolLoopClient::executeTool(Loop &loop, const ToolCallRequest &call, ToolActivity &activity,
                                        bool &stopTurn)
{
    activity.tool = call.name;
    activity.input = call.input;
    auto fail = [&](const QString &message) {
        activity.status = QStringLiteral("error");
        activity.hasRawOutput = true;
        activity.rawOutput = QJsonObject{{QStringLiteral("error"), message}};
        activity.retainedOutput = activity.rawOutput;
        return ToolOutcome{call, errorJson(message), true};
    };

    if (!loop.tools)
        return fail(QStringLiteral("tool registry not available"));
    // Refused before it runs: no start/end events (reference), only a display event so the call still
    // gets a card that ends in its failed state.
    auto reject = [&](const QString &message) {
        ToolCallInfo rejected;
        rejected.callId = call.id;
        rejected.name = call.name;
        rejected.input = call.input;
        rejected.error = message;
        emitEvent(loop, StreamEvent::tool(StreamEvent::Type::ToolRejected, rejected));
        ++loop.refusedThisRound;
        return fail(message);
    };
    const std::shared_ptr<Tool> tool = loop.tools->find(call.name);
    if (!tool && !loop.options.disableToolCalls)
        return reject(QStringLiteral("tool \"%1\" not found").arg(call.name));

    // Arguments that are not a whole JSON object (cut short at the output limit, most often) would otherwise
    // read as {} and be refused for a missing parameter, which tells the model nothing.
    if (!loop.options.disableToolCalls && !call.arguments.trimmed().isEmpty() &&
        !QJsonDocument::fromJson(call.arguments.toUtf8()).isObject())
        return reject(loop.outputLimited
                          ? QStringLiteral("the arguments of this call were cut off: the reply reached the "
                                           "model's output limit before the call was complete. Make the call "
                                           "again with less content (for a big file, write it in parts)")
                          : QStringLiteral("the arguments of this call are not a valid JSON object"));

    // With tool calls disabled every tool accepts any input and refuses at execution (S14, S21).
    if (!loop.options.disableToolCalls) {
        const QString invalid = tool->validateInput(call.input);
        if (!invalid.isEmpty())
            return reject(invalid);
    }

    ToolCallInfo info;
    info.callId = call.id;
    info.name = call.name;
    info.input = call.input;
    emitEvent(loop, StreamEvent::tool(StreamEvent::Type::ToolStart, info));

    ToolContext context = loop.tools->context();
    context.cancel = loop.cancel;
    context.callId = call.id;
    context.outputProgress = [&](const QString &recentOutput, qint64 earlierLines) {
        ToolCallInfo progress;
        progress.callId = info.callId;
        progress.name = info.name;
        progress.recentOutput = recentOutput;
        progress.earlierLines = earlierLines;
        emitEvent(loop, StreamEvent::tool(StreamEvent::Type::ToolOutput, progress));
    };
    context.running.start(); // started again when a person answers a permission request
    ToolResult result;
    if (loop.options.disableToolCalls)
        result = ToolResult::failure(CompactionPrompts::toolCallsDisabledMessage());
    else if (loop.options.disableWriteToolCalls && tool->isWriteTool())
        result = ToolResult::failure(ToolPermissions::planModeRefusal());
    else
        result = tool->execute(call.input, context);
    stopTurn = stopTurn || result.stopTurn;

    info.output = result.output;
    info.error = result.error;
    info.durationNs = context.running.nsecsElapsed();
    info.diff = result.diff;
    emitEvent(loop, StreamEvent::tool(StreamEvent::Type::ToolEnd, info));

    activity.exitCode = result.exitCode && *result.exitCode != 0 ? result.exitCode : std::nullopt;
    activity.hasRawOutput = true;
    if (!result.ok()) {
        activity.status = QStringLiteral("error");
        activity.rawOutput = QJsonObject{{QStringLiteral("error"), result.error}};
        activity.retainedOutput = activity.rawOutput;
        return ToolOutcome{call, errorJson(result.error), true};
    }
    activity.status = QStringLiteral("success");
    activity.rawOutput = result.output;
    const QJsonValue forLlm = OutputCompressor::forLlm(call.name, result.output);
    activity.retainedOutput = forLlm;
    return ToolOutcome{call, forLlm.isString() ? forLlm.toString() : serializeJson(forLlm), false};
}

Result<ModelTurn> ToolLoopClient::collectTurnWithRetry(Loop &loop, ProviderError &error)
{
    const ClientConfig &config = m_protocol->config();
    const int maxAttempts = std::max(1, config.maxAttempts);
    bool keyRefreshed = false;
    bool stalledBefore = false;
    for (int attempt = 1; attempt <= maxAttempts; ++attempt) {
        if (loop.cancel.isCancelled()) {
            error =
                ProviderError{ProviderError::Kind::Cancelled, QStringLiteral("cancelled"), 0, std::nullopt};
            return Result<ModelTurn>::failure(error.message);
        }
        const Result<void> prepared = m_protocol->prepare(loop.cancel);
        if (!prepared) {
            error = ProviderError{ProviderError::Kind::Authentication, prepared.error(), 0, std::nullopt};
            return Result<ModelTurn>::failure(error.message);
        }
        RequestContext context;
        context.options = loop.options;
        context.stableIndex = loop.turnStartLen - 1;
        const HttpRequestSpec request = m_protocol->buildRequest(loop.native, loop.toolSpecs, context);
        std::unique_ptr<StreamDecoder> decoder =
            m_protocol->createDecoder([this, &loop](const StreamEvent &event) { emitEvent(loop, event); });

        qint64 received = 0;
        bool tooLarge = false;
        ReplyBodySniffer body(kMaxDocumentBytes);
        const HttpOutcome outcome =
            loop.http->send(request, loop.cancel, config.inactivityTimeoutMs, [&](const QByteArray &bytes) {
                received += bytes.size();
                if (received > config.maxResponseBytes) {
                    tooLarge = true;
                    return false;
                }
                if (const QByteArray streamed = body.take(bytes); !streamed.isEmpty() && !decoder->failed())
                    decoder->feed(streamed);
                // After a failure, the rest of the body's first bytes still come: they may say what it is.
                return (!decoder->failed() || body.head().size() < ReplyBodySniffer::HeadBytes) &&
                       !body.documentTooLarge();
            });
        const QByteArray contentType = WireSupport::header(outcome.headers, "content-type");
        if (outcome.cancelled || loop.cancel.isCancelled()) {
            error =
                ProviderError{ProviderError::Kind::Cancelled, QStringLiteral("cancelled"), 0, std::nullopt};
            return Result<ModelTurn>::failure(error.message);
        }
        if (tooLarge) {
            // Not retried: the same request would stream the same endless body again.
            error = ProviderError{ProviderError::Kind::Stream,
                                  QCoreApplication::translate(
                                      "ToolLoopClient", "the provider's response exceeded %1 and was stopped")
                                      .arg(QLocale::c().formattedDataSize(config.maxResponseBytes, 0)),
                                  outcome.status, std::nullopt};
        } else if (!outcome.invalidRequest.isEmpty()) {
            error =
                ProviderError{ProviderError::Kind::InvalidRequest, outcome.invalidRequest, 0, std::nullopt};
        } else if (outcome.redirectedTo.isValid() && !outcome.redirectedTo.isEmpty()) {
            error = ProviderError{ProviderError::Kind::InvalidRequest,
                                  QCoreApplication::translate(
                                      "ToolLoopClient",
                                      "the provider redirected the request to %1 (HTTP %2); redirects "
                                      "to another host are not followed, so the key was not sent there. "
                                      "Check base_url")
                                      .arg(outcome.redirectedTo
                                               .adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery |
                                                         QUrl::RemoveFragment | QUrl::RemovePath)
                                               .toString())
                                      .arg(outcome.status),
                                  outcome.status, std::nullopt};
        } else if (outcome.hostNotFound || outcome.tlsFailed) {
            // Neither gets better within the retries (15 s of them): say so at once, with a hint for TLS
            // spoken to a plain-http server.
            QString message =
                QCoreApplication::translate("ToolLoopClient", "network error: %1").arg(outcome.networkError);
            if (outcome.tlsFailed && request.url.scheme() == QLatin1String("https") &&
                outcome.networkError.contains(QLatin1String("wrong version number")))
                message +=
                    QCoreApplication::translate("ToolLoopClient",
                                                " (the server at %1 may speak plain http: check base_url)")
                        .arg(request.url.host() + QLatin1Char(':') + QString::number(request.url.port(443)));
            error = ProviderError{ProviderError::Kind::InvalidRequest, message, 0, std::nullopt};
        } else if (outcome.connectionRefused && LocalServerHint::isLocalHost(request.url)) {
            // A local server that is not running will not start within the retries: say so at once.
            error = ProviderError{ProviderError::Kind::InvalidRequest,
                                  LocalServerHint::connectionRefused(request.url), 0, std::nullopt};
        } else if (outcome.status >= 300 ||
                   (outcome.status == 0 && outcome.networkError.isEmpty() && !outcome.stalled)) {
            error = m_protocol->classifyHttpError(outcome.status, outcome.errorBody, outcome.headers);
            if (outcome.status == 404)
                error.message += UnexpectedReply::notFoundHint(request.url, outcome.errorBody);
        } else if (decoder->failed()) {
            error = decoder->error();
        } else if (outcome.stalled) {
            error = ProviderError{
                ProviderError::Kind::Stalled,
                config.inactivityTimeoutMs % 1000 == 0
                    ? QCoreApplication::translate("ToolLoopClient",
                                                  "the provider sent nothing for %1 seconds")
                          .arg(config.inactivityTimeoutMs / 1000)
                    : QCoreApplication::translate("ToolLoopClient", "the provider sent nothing for %1 ms")
                          .arg(config.inactivityTimeoutMs),
                0, std::nullopt};
        } else if (!outcome.networkError.isEmpty()) {
            error = ProviderError{
                ProviderError::Kind::Network,
                QCoreApplication::translate("ToolLoopClient", "network error: %1").arg(outcome.networkError),
                outcome.status, std::nullopt};
        } else if (body.isDocument()) {
            // A server that ignored "stream": true, or a page that is not the API at all.
            const std::optional<QByteArray> stream =
                body.documentTooLarge() ? std::nullopt : m_protocol->documentAsStream(body.document());
            if (stream) {
                decoder->feed(*stream);
                Result<ModelTurn> turn = decoder->finish();
                if (turn)
                    return turn;
                error = decoder->error();
            } else {
                error = UnexpectedReply::error(contentType, body.head(),
                                               body.documentTooLarge() ? kMaxDocumentBytes : 0);
            }
        } else {
            Result<ModelTurn> turn = decoder->finish();
            if (turn)
                return turn;
            error = decoder->error();
        }
        // A body that is neither a stream nor a document (a line of plain text) decodes as no events at all,
        // which would read as a stream cut short and be retried.
        if ((error.kind == ProviderError::Kind::Truncated || error.kind == ProviderError::Kind::Stream) &&
            outcome.status >= 200 && outcome.status < 300 && !body.isDocument() &&
            !ReplyBodySniffer::looksLikeEventStream(contentType, body.head()))
            error = UnexpectedReply::error(contentType, body.head());

        // A provider may quote the key it refused; the message is shown, printed and saved.
        error.message = SecretRedaction::redact(error.message, config.apiKey);

        if (error.kind == ProviderError::Kind::Authentication && config.refreshApiKey && !keyRefreshed) {
            // The helper's key may have expired: ask it once more and repeat this attempt.
            keyRefreshed = true;
            if (const Result<QString> key = config.refreshApiKey(); key && !key->isEmpty()) {
                m_protocol->setApiKey(*key);
                --attempt;
                continue;
            }
        }
        // A stall costs the whole inactivity timeout (5 minutes by default): one more try is worth it (a dead
        // connection), six would keep the person waiting half an hour for a provider that has gone quiet.
        const bool stalledAgain =
            error.kind == ProviderError::Kind::Stalled && std::exchange(stalledBefore, true);
        if (!error.isRetryable() || stalledAgain || attempt == maxAttempts)
            return Result<ModelTurn>::failure(error.message);
        qCInfo(LogCategories::toolLoop) << "retrying after" << error.message;
        const int delayMs = std::min(error.retryAfterMs.value_or(attempt * config.retryBaseDelayMs), 60000);
        emitEvent(loop, StreamEvent::retry(attempt + 1, error.message, delayMs));
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < delayMs && !loop.cancel.isCancelled())
            QThread::msleep(std::min<qint64>(20, delayMs - waited.elapsed() + 1));
    }
    return Result<ModelTurn>::failure(error.message);
}

qint64 ToolLoopClient::estimateTokens(Loop &loop) const
{
    if (loop.fixedBytes < 0)
        loop.fixedBytes =
            jsonBytes(loop.native.system) + jsonBytes(m_protocol->toolDefinitions(loop.toolSpecs));
    // Only messages added since the last check are serialised.
    for (qsizetype i = loop.messageBytes.size(); i < loop.native.messages.size(); ++i)
        loop.messageBytes.append(jsonBytes(loop.native.messages.at(i)));
    qint64 total = loop.fixedBytes;
    for (qint64 bytes : std::as_const(loop.messageBytes))
        total += bytes;
    return ContextBudget::estimateTokens(total);
}

void ToolLoopClient::maybeAutoCompact(Loop &loop)
{
    // S36: every precondition, else the request goes unchanged.
    AutoCompactionGate gate;
    gate.oneShot = loop.options.oneShot;
    gate.disabled = loop.options.disableAutoCompaction || !loop.options.compactionPolicy.automatic;
    gate.thresholdPercent = loop.options.compactionPolicy.thresholdPercent;
    gate.newToolTurn = loop.hasNewToolTurns;
    gate.suppressed = loop.autoCompactOff;
    gate.unreconciledPending = !loop.injectedPending.isEmpty() && !loop.pendingReconciled;
    gate.providerWaitsForPending = m_protocol->compactionWaitsForReconciledPending();
    if (!gate.preconditionsHold())
        return; // the estimate is not even needed
    gate.estimatedTokens = estimateTokens(loop);
    gate.budget = ContextBudget::inputBudget(m_protocol->config().contextWindow);
    if (!gate.allows())
        return;
    if (stopsRepeatedRefill(loop))
        return;

    const CancellationToken child = loop.cancel.child();
    AutoCompactionInfo started;
    started.cancel = child;
    emitEvent(loop, StreamEvent::compaction(StreamEvent::Type::AutoCompactionStarted, started));

    std::optional<TokenUsage> usage;
    CompactionStrategy strategy;
    QList<DroppedDetail> dropped;
    const Result<MessageList> replacement = runAutoCompaction(loop, child, usage, strategy, dropped);
    if (!replacement) {
        // S46: nothing changes, the parent request goes on, no new attempt until another tool turn.
        AutoCompactionInfo info;
        info.usage = usage;
        info.error = replacement.error();
        const auto type = child.isCancelled() ? StreamEvent::Type::AutoCompactionCancelled
                                              : StreamEvent::Type::AutoCompactionFailed;
        emitEvent(loop, StreamEvent::compaction(type, info));
        loop.autoCompactOff = true;
        return;
    }

    AutoCompactionInfo applied;
    applied.replacement = *replacement;
    applied.usage = usage;
    applied.strategy = strategy;
    applied.dropped = dropped;
    if (loop.options.awaitCompactionCommit)
        applied.commit = std::make_shared<CompactionCommit>();
    emitEvent(loop, StreamEvent::compaction(StreamEvent::Type::AutoCompactionApplied, applied));
    if (applied.commit) {
        QString reason;
        if (!applied.commit->wait(loop.cancel, &reason)) {
            // The app could not persist: the loop keeps its history and the turn stops (S61).
            loop.autoCompactOff = true;
            if (!loop.cancel.isCancelled())
                emitEvent(loop, StreamEvent::failure(
                                    QCoreApplication::translate("ToolLoopClient",
                                                                "automatic compaction could not be saved: %1")
                                        .arg(reason)));
            loop.stopped = true;
            return;
        }
    }

    // S45, S47: the native and generic histories change only now that a valid summary exists.
    loop.native = m_protocol->rebuildAfterCompaction(loop.native, *replacement);
    loop.compactionHistory = *replacement;
    loop.conversationLength = conversationalCount(*replacement); // what the app's history becomes (S40)
    loop.injectedPending.clear();
    {
        std::lock_guard lock(m_pendingMutex);
        m_pendingState.clear();
        m_sentTurns.clear(); // the summary stands for them now
    }
    loop.turnStartLen = int(loop.native.messages.size());
    loop.invalidateEstimate();
}

bool ToolLoopClient::stopsRepeatedRefill(Loop &loop)
{
    // A model that forgets what a summary left out does the same work again right after it: reads the
    // same big output (the same file, or two files in turn), or the same several reads in a row. It would
    // compact after each round for as long as the turn lasts, paying for every request and summary (seen
    // in the window: four paged reads of one file repeated after each summary, 1,300 requests in two
    // minutes). What counts is the whole sequence of tool calls since the last compaction, with their
    // arguments: a loop that gets on with its work calls something new each time.
    QList<QByteArray> rounds{loop.callsSinceCompaction};
    if (loop.compactionsThisTurn == 0 && loop.toolTurnsSinceCompaction > 1)
        rounds.append(QCryptographicHash::hash(loop.lastToolCalls, QCryptographicHash::Sha1));
    bool runaway = false;
    for (const QByteArray &round : std::as_const(rounds))
        runaway = runaway || loop.refillsByRounds.value(round) + 1 > MaxSameRefillCompactions;
    if (!runaway) {
        for (const QByteArray &round : std::as_const(rounds))
            loop.refillsByRounds[round] += 1;
        ++loop.compactionsThisTurn;
        loop.toolTurnsSinceCompaction = 0;
        loop.callsSinceCompaction.clear();
        loop.toolsSinceCompaction.clear();
        return false;
    }
    ProviderError error;
    error.kind = ProviderError::Kind::ContextLength;
    if (loop.toolTurnsSinceCompaction == 1) {
        error.message =
            QCoreApplication::translate(
                "ToolLoopClient",
                "stopped before automatic compaction number %1 of this turn: the same tool call (%2) "
                "filled the context again right after a summary %3 times. Ask for a smaller part of "
                "its output, or use a model with a larger context window")
                .arg(loop.compactionsThisTurn + 1)
                .arg(QString::fromUtf8(loop.lastToolCalls.left(loop.lastToolCalls.indexOf('('))))
                .arg(MaxSameRefillCompactions);
    } else {
        error.message =
            QCoreApplication::translate(
                "ToolLoopClient",
                "stopped before automatic compaction number %1 of this turn: the same %2 rounds of "
                "tool calls (%3) filled the context again after a summary %4 times. Ask for smaller "
                "parts of their output, or use a model with a larger context window")
                .arg(loop.compactionsThisTurn + 1)
                .arg(loop.toolTurnsSinceCompaction)
                .arg(loop.toolsSinceCompaction.join(QStringLiteral(", ")))
                .arg(MaxSameRefillCompactions);
    }
    loop.stopped = true;
    finishWithError(loop, error);
    return true;
}

bool ToolLoopClient::stoppedAtOutputLimit(const QString &stopReason)
{
    // Chat Completions "length", Anthropic and Bedrock "max_tokens", Gemini "MAX_TOKENS", Responses
    // "incomplete" (max_output_tokens).
    return stopReason == QLatin1String("length") ||
           stopReason.compare(QLatin1String("max_tokens"), Qt::CaseInsensitive) == 0 ||
           stopReason == QLatin1String("incomplete");
}

QString ToolLoopClient::stoppedByProviderNotice(const QString &stopReason)
{
    // Chat Completions "content_filter", Anthropic "refusal", Bedrock "guardrail_intervened" and
    // "content_filtered", Gemini's safety and policy reasons.
    static const QStringList blocked{QStringLiteral("content_filter"),
                                     QStringLiteral("refusal"),
                                     QStringLiteral("guardrail_intervened"),
                                     QStringLiteral("content_filtered"),
                                     QStringLiteral("SAFETY"),
                                     QStringLiteral("RECITATION"),
                                     QStringLiteral("BLOCKLIST"),
                                     QStringLiteral("PROHIBITED_CONTENT"),
                                     QStringLiteral("SPII"),
                                     QStringLiteral("IMAGE_SAFETY"),
                                     QStringLiteral("LANGUAGE")};
    if (blocked.contains(stopReason))
        return QCoreApplication::translate(
                   "ToolLoopClient", "the provider stopped the reply (%1): its safety or content filter "
                                     "blocked it, so the answer is cut short or missing")
            .arg(stopReason);
    // Anthropic's newer models end a reply so when it filled the rest of the context window.
    if (stopReason == QLatin1String("model_context_window_exceeded"))
        return QCoreApplication::translate("ToolLoopClient",
                                           "the reply stopped because the conversation filled the model's "
                                           "context window (%1): compact it, then ask the model to go on")
            .arg(stopReason);
    // Gemini ends a turn so when the model wrote a call it cannot parse, or one to a tool it was not given.
    if (stopReason == QLatin1String("MALFORMED_FUNCTION_CALL") ||
        stopReason == QLatin1String("UNEXPECTED_TOOL_CALL"))
        return QCoreApplication::translate("ToolLoopClient",
                                           "the model wrote a tool call the provider could not read (%1), so "
                                           "nothing ran: ask again")
            .arg(stopReason);
    return {};
}

bool ToolLoopClient::stopsRepeatedRefusal(Loop &loop, qsizetype calls)
{
    // A model that sends the same call that cannot run (cut off at the output limit, invalid input) again
    // after being told why would do so until MaxToolTurns: thousands of paid requests.
    const bool allRefused = calls > 0 && loop.refusedThisRound == calls;
    if (!allRefused) {
        loop.sameRefusedRounds = 0;
        loop.lastRefusedCalls.clear();
        return false;
    }
    loop.sameRefusedRounds = loop.lastRefusedCalls == loop.lastToolCalls ? loop.sameRefusedRounds + 1 : 1;
    loop.lastRefusedCalls = loop.lastToolCalls;
    if (loop.sameRefusedRounds < MaxSameRefusedRounds)
        return false;
    finishWithError(
        loop, ProviderError{
                  ProviderError::Kind::InvalidRequest,
                  QCoreApplication::translate(
                      "ToolLoopClient", "stopped: the model sent the same tool call that cannot run (%1) %2 "
                                        "times in a row%3")
                      .arg(QString::fromUtf8(loop.lastToolCalls.left(loop.lastToolCalls.indexOf('('))))
                      .arg(MaxSameRefusedRounds)
                      .arg(loop.outputLimited
                               ? QCoreApplication::translate(
                                     "ToolLoopClient", ", each time cut off at the model's output limit")
                               : QString()),
                  0, std::nullopt});
    return true;
}

bool ToolLoopClient::overBudgetWithAutomaticOff(Loop &loop)
{
    // Issue 16: the person turned automatic compaction off, so nothing compacts behind their back; but a
    // request over the input budget is not sent either (the estimate says the provider would refuse it, and
    // every further tool turn would only grow it). The turn stops here, its progress kept as pending state
    // for the next turn, and says what to do. Compaction requests themselves are never stopped: a manual one
    // that does not fit is sliced.
    if (loop.options.compactionPolicy.automatic || loop.options.oneShot || loop.options.disableAutoCompaction)
        return false;
    const qint64 budget = ContextBudget::inputBudget(m_protocol->config().contextWindow);
    const qint64 estimate = estimateTokens(loop);
    if (estimate <= budget)
        return false;
    ProviderError error;
    error.kind = ProviderError::Kind::ContextLength;
    error.message =
        QCoreApplication::translate(
            "ToolLoopClient",
            "the conversation needs about %1 tokens, over the input budget of %2, and automatic "
            "compaction is off for this session: compact it (Compact or /compact; headless: run --session ID "
            "--compact) or turn automatic compaction on (Context; headless: --compact-threshold), then "
            "continue")
            .arg(estimate)
            .arg(budget);
    finishWithError(loop, error);
    return true;
}

qint64 ToolLoopClient::requestBytes(const NativeHistory &native, const ToolSpecList &tools) const
{
    qint64 bytes = jsonBytes(native.system) + jsonBytes(m_protocol->toolDefinitions(tools));
    for (const QJsonValue &message : native.messages)
        bytes += jsonBytes(message);
    return bytes;
}

Result<QString> ToolLoopClient::runSummaryRequest(const Loop &parent, const NativeHistory &native,
                                                  const ToolSpecList &tools,
                                                  const CancellationToken &childCancel,
                                                  std::optional<TokenUsage> &usage)
{
    // S37-S39: a nested one-shot request on this client; tool calls are refused; everything is collected
    // here.
    Loop nested;
    nested.options.sessionId = parent.options.sessionId;
    nested.options.oneShot = true;
    nested.options.disableAutoCompaction = true;
    nested.options.disableToolCalls = true;
    nested.tools = parent.tools;
    nested.toolSpecs = tools;
    nested.cancel = childCancel;
    nested.http = parent.http; // the same thread, and the same open connection
    nested.native = native;
    nested.compactionHistory = parent.compactionHistory;
    nested.turnStartLen = std::min<int>(parent.turnStartLen, int(native.messages.size()));

    QString summary;
    QString streamError;
    bool finished = false;
    nested.sink = [&](const StreamEvent &event) {
        switch (event.type) {
        case StreamEvent::Type::Chunk:
            summary += event.content;
            break;
        case StreamEvent::Type::ToolStart:
        case StreamEvent::Type::ToolEnd:
            summary.clear(); // only the assistant text after the last tool activity counts
            break;
        case StreamEvent::Type::Usage:
            // Every request of the nested stream costs tokens (a refused tool round is one more request).
            if (event.usage) {
                TokenUsage total = usage.value_or(TokenUsage());
                total += *event.usage;
                usage = total;
            }
            break;
        case StreamEvent::Type::Error:
            streamError = event.error;
            break;
        case StreamEvent::Type::Incomplete:
            streamError = QStringLiteral("automatic compaction stream incomplete: ") + event.error;
            break;
        case StreamEvent::Type::Done:
            finished = true;
            break;
        default:
            break;
        }
    };
    runLoop(nested);

    if (childCancel.isCancelled())
        return Result<QString>::failure(QStringLiteral("automatic compaction cancelled"));
    if (!streamError.isEmpty())
        return Result<QString>::failure(streamError);
    if (!finished)
        return Result<QString>::failure(QStringLiteral("automatic compaction stream incomplete"));
    return summary;
}

Result<NativeHistory>
ToolLoopClient::summariseEarlierParts(const Loop &parent, const MessageList &conversation,
                                      const QString &prompt, const CancellationToken &cancel,
                                      std::optional<TokenUsage> &usage, CompactionStrategy &strategy)
{
    // Each request: the system prompt, the summary so far, one part and the prompt; nothing else. No tool
    // definitions: the prefix differs from the parent's anyway (no prompt cache to keep), tool calls are
    // refused, and in a small window they would take most of the room.
    MessageList system;
    for (const Message &message : conversation) {
        if (message.role == Message::Role::System)
            system.append(message);
    }
    auto partRequest = [&](const QString &summarySoFar, const QString &part, int number, bool last) {
        MessageList messages = system;
        messages.append(Message::user(CompactionSlicer::partMessage(summarySoFar, part, number, last)));
        NativeHistory native = m_protocol->toNative(messages);
        m_protocol->appendUserText(native, prompt);
        return native;
    };
    const qint64 budgetBytes = ContextBudget::inputBudget(m_protocol->config().contextWindow) * 3;
    // Room for the request's framing beyond what requestBytes counts (model, settings, JSON keys).
    const qint64 slack = 1024 + budgetBytes / 50;
    auto roomFor = [&](const QString &summarySoFar, int number) {
        return budgetBytes - slack - requestBytes(partRequest(summarySoFar, QString(), number, false), {});
    };

    CompactionSlicer slicer(conversation);
    // The summary so far takes room from later parts: plan the part count with three quarters of the first.
    slicer.leaveOutOldestOutputs(roomFor(QString(), 1) * 3 / 4);
    QString summary;
    for (int number = 1;; ++number) {
        const qint64 room = roomFor(summary, number);
        if (room < CompactionSlicer::MinPartBytes)
            return Result<NativeHistory>::failure(
                QCoreApplication::translate(
                    "ToolLoopClient", "the system prompt, the tools and the summary so far leave no room "
                                      "for the conversation in a compaction request within the input "
                                      "budget of %1 tokens")
                    .arg(budgetBytes / 3));
        const QString part = slicer.nextPart(room);
        if (slicer.atEnd()) {
            strategy = slicer.strategy();
            strategy.slices = number;
            return partRequest(summary, part, number, true);
        }
        const Result<QString> next =
            runSummaryRequest(parent, partRequest(summary, part, number, false), {}, cancel, usage);
        if (!next)
            return Result<NativeHistory>::failure(next.error());
        if (next->trimmed().isEmpty())
            return Result<NativeHistory>::failure(QStringLiteral("compaction returned an empty summary"));
        summary = next->trimmed();
    }
}

bool ToolLoopClient::sliceManualCompaction(Loop &loop)
{
    const qint64 budget = ContextBudget::inputBudget(m_protocol->config().contextWindow);
    if (estimateTokens(loop) <= budget)
        return true; // the seed's request, unchanged (S19, S20, S23)
    MessageList conversation = loop.compactionHistory;
    const QString prompt = conversation.takeLast().content; // the manual prompt, focus included (S18)
    // The pending turns sit before the prompt in the native request.
    conversation = withPendingTurns(conversation, loop.injectedPending, conversation.size());
    std::optional<TokenUsage> usage;
    AutoCompactionInfo sliced;
    const Result<NativeHistory> last =
        summariseEarlierParts(loop, conversation, prompt, loop.cancel, usage, sliced.strategy);
    sliced.usage = usage;
    if (!last)
        sliced.error = last.error();
    emitEvent(loop, StreamEvent::compaction(StreamEvent::Type::CompactionSliced, sliced));
    if (loop.cancel.isCancelled())
        return false;
    if (!last) {
        emitEvent(loop, StreamEvent::failure(last.error()));
        return false;
    }
    // The last part streams visibly, as the seed's single request would have (S25), without tool
    // definitions like the parts before it.
    loop.native = *last;
    loop.toolSpecs = {};
    loop.injectedPending.clear();
    loop.turnStartLen = int(loop.native.messages.size());
    loop.invalidateEstimate();
    return true;
}

Result<MessageList> ToolLoopClient::runAutoCompaction(Loop &parent, const CancellationToken &childCancel,
                                                      std::optional<TokenUsage> &usage,
                                                      CompactionStrategy &strategy,
                                                      QList<DroppedDetail> &dropped)
{
    if (lastUserMessageIndex(parent.compactionHistory) < 0)
        return Result<MessageList>::failure(QStringLiteral("automatic compaction requires a user message"));

    // The seed's request: the parent's native request is the cacheable prefix, the automatic prompt the final
    // user message (S37). Sent whenever it fits the input budget.
    const qint64 budgetBytes = ContextBudget::inputBudget(m_protocol->config().contextWindow) * 3;
    NativeHistory whole = parent.native;
    // The seed's prompt, then the session's detail guidance (issue 16): the cached prefix stays the same.
    const QString prompt = CompactionPrompts::withDetail(CompactionPrompts::automaticPrompt(),
                                                         parent.options.compactionPolicy.detail);
    m_protocol->appendUserText(whole, prompt);
    if (requestBytes(whole, parent.toolSpecs) <= budgetBytes) {
        const Result<QString> summary =
            runSummaryRequest(parent, whole, parent.toolSpecs, childCancel, usage);
        if (!summary)
            return Result<MessageList>::failure(summary.error());
        return replacementWithDropped(*summary, parent.compactionHistory, parent.options.pinnedContext,
                                      dropped);
    }

    // Issue 16: it does not fit, so no request that cannot be sent goes out: the conversation is summarised
    // in parts, oldest first, the last one with the summary of all before it.
    // The pending turns sit before the latest user message in the native request.
    const MessageList conversation = withPendingTurns(parent.compactionHistory, parent.injectedPending,
                                                      lastUserMessageIndex(parent.compactionHistory));
    const Result<NativeHistory> last =
        summariseEarlierParts(parent, conversation, prompt, childCancel, usage, strategy);
    if (!last)
        return Result<MessageList>::failure(last.error());
    const Result<QString> summary = runSummaryRequest(parent, *last, {}, childCancel, usage);
    if (!summary)
        return Result<MessageList>::failure(summary.error());
    return replacementWithDropped(*summary, parent.compactionHistory, parent.options.pinnedContext, dropped);
}

} // namespace keen
