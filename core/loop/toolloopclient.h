#pragma once

#include "loop/llmclient.h"
#include "providers/providerprotocol.h"

#include <QJsonArray>

#include <memory>
#include <mutex>
#include <optional>

namespace keen {

class HttpStreamer;

// The tool loop every provider shares (reference 1.1, 2.1 and 4.3; seed "Automatic compaction"): request,
// stream, run the requested tools in model order, append the results in the provider's native format,
// repeat. Around it: retries, the terminal-event rule, pending state, and proactive automatic compaction
// before each request. What differs between providers lives in the ProviderProtocol.
class ToolLoopClient final : public LlmClient
{
public:
    static constexpr int MaxToolTurns = 5000;
    // A compaction request (tool calls disabled) gets this many rounds of refused tool calls; when the model
    // still asks for tools after them, the request fails with that reason instead of looping (issue 12).
    static constexpr int MaxCompactionToolRounds = 3;
    // Automatic compactions in one turn that the same tool call made necessary as the lone tool turn after a
    // summary (a model that reads the same big file, or two in turn, again right after each compaction); the
    // next one would be no different, so the turn stops with a message instead of paying for summaries
    // forever.
    static constexpr int MaxSameRefillCompactions = 3;
    // Tool turns in a row that were the same calls, all refused before running (arguments cut off at the
    // output limit, invalid input): the turn then stops with the reason instead of going on to MaxToolTurns.
    static constexpr int MaxSameRefusedRounds = 3;

    explicit ToolLoopClient(std::unique_ptr<ProviderProtocol> protocol);
    ~ToolLoopClient() override;

    void streamChat(const MessageList &messages, const ToolRegistry *tools, const StreamOptions &options,
                    const CancellationToken &cancel, const EventSink &sink) override;
    void reset() override;

    const ProviderProtocol &protocol() const { return *m_protocol; }
    // The provider-native partial turns saved after incomplete turns, in order (for tests and diagnostics).
    QJsonArray pendingState() const;

    // The native messages of one incomplete turn, and where they go in the conversation of a later
    // streamChat: after its first `after` messages that are not system messages, that is after the prompt
    // they answered.
    // Several turns in a row that did not finish each keep their own place, between their prompts.
    struct PendingTurn
    {
        qsizetype after = 0;
        QJsonArray messages;
    };
    // A pending turn that a later turn carried to the provider and finished with: the app's history now
    // holds it as replayed calls (other call ids, no provider-only fields), and later requests send it as it
    // was sent, so their prefix stays the one the provider has cached. Used only while the conversation
    // before it is still the one it followed (beforeHash: the messages before it, system messages not
    // counted) and the replayed turn first found in its place is still there (replayedHash).
    struct SentTurn
    {
        qsizetype after = 0; // where its replayed turn is: after this many messages of the history
        // Turns carried together (interrupted one after the other) join the history together, each as one
        // replayed message: this is the batchIndex-th of its batch, and beforeHash leaves out the replayed
        // messages of the ones before it in the batch (the request it was carried in had none of them).
        int batchIndex = 0;
        size_t beforeHash = 0;
        std::optional<size_t> replayedHash; // none until a request found the replayed turn in the history
        QJsonArray messages;
    };
    static constexpr int MaxSentTurns = 32;

private:
    struct Loop;

    void runLoop(Loop &loop);
    void maybeAutoCompact(Loop &loop);
    // With automatic compaction off (issue 16): true when the next request would exceed the input budget;
    // the turn then ended with a message saying so.
    bool overBudgetWithAutomaticOff(Loop &loop);
    // True when this compaction would be one more than MaxSameRefillCompactions caused by the same tool calls
    // since a summary (one call, or several rounds of them); the turn then ended with a message saying so.
    bool stopsRepeatedRefill(Loop &loop);
    // True when this tool turn was MaxSameRefusedRounds in a row of the same refused calls; the turn then
    // ended with a message saying so.
    bool stopsRepeatedRefusal(Loop &loop, qsizetype calls);
    static bool stoppedAtOutputLimit(const QString &stopReason);
    // What to tell the person when the provider stopped a reply itself (a safety or content filter, a
    // refusal, a tool call it could not read): the reply is then short or empty, and "done" alone would
    // hide why. Empty for an ordinary end.
    static QString stoppedByProviderNotice(const QString &stopReason);
    // One private summary request on native with the tool definitions tools: the nested one-shot loop, tool
    // calls refused, text and usage collected (S38, S39). Returns the assistant text after the last tool
    // activity.
    Result<QString> runSummaryRequest(const Loop &parent, const NativeHistory &native,
                                      const ToolSpecList &tools, const CancellationToken &childCancel,
                                      std::optional<TokenUsage> &usage);
    // The estimated size in bytes of a request on native with the loop's tool definitions.
    qint64 requestBytes(const NativeHistory &native, const ToolSpecList &tools) const;
    // conversation (system message(s) included) in parts that each fit the input budget, oldest first, every
    // part but the last summarised privately with prompt as the final user message; returns the request for
    // the last part (the summary so far in front), strategy says how (issue 16).
    Result<NativeHistory> summariseEarlierParts(const Loop &parent, const MessageList &conversation,
                                                const QString &prompt, const CancellationToken &cancel,
                                                std::optional<TokenUsage> &usage,
                                                CompactionStrategy &strategy);
    // A manual compaction request that does not fit: its earlier parts summarised, loop.native becomes the
    // last part's request. False when the loop already ended (cancelled, or the failure was reported).
    bool sliceManualCompaction(Loop &loop);
    // The seed's single request when it fits the input budget; otherwise the conversation in parts that each
    // fit (CompactionSlicer), strategy says how (issue 16).
    Result<MessageList> runAutoCompaction(Loop &parent, const CancellationToken &childCancel,
                                          std::optional<TokenUsage> &usage, CompactionStrategy &strategy,
                                          QList<DroppedDetail> &dropped);
    Result<ModelTurn> collectTurnWithRetry(Loop &loop, ProviderError &error);
    ToolOutcome executeTool(Loop &loop, const ToolCallRequest &call, ToolActivity &activity, bool &stopTurn);
    qint64 estimateTokens(Loop &loop) const;
    void finishWithError(Loop &loop, const ProviderError &error);
    void savePendingIfAccumulated(Loop &loop);
    // Builds loop.native from messages with the saved native turns in their places: the sent turns in place
    // of their replayed calls, the pending turns after their prompts (the new prompt after them).
    void buildWithNativeTurns(Loop &loop, const MessageList &messages, const QList<SentTurn> &sent) const;
    // The sent turns that still fit messages (see SentTurn); the others are forgotten.
    QList<SentTurn> sentTurnsFor(const MessageList &messages);
    void rememberSentTurns(const Loop &loop);
    bool hasProgress(const Loop &loop) const;
    void emitEvent(const Loop &loop, const StreamEvent &event) const;

    std::unique_ptr<ProviderProtocol> m_protocol;
    mutable std::mutex m_pendingMutex;
    QList<PendingTurn> m_pendingState;
    QList<SentTurn> m_sentTurns;
};

} // namespace keen
