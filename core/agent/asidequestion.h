#pragma once

#include "base/cancellationtoken.h"
#include "conversation/message.h"
#include "conversation/streamevent.h"

#include <QObject>

#include <memory>

namespace keen {

class LlmClient;
class PermissionPolicy;
class StreamRunner;
class ToolRegistry;
class WorkerThread;

// A stream on the side of the main task (reference 6.1), on a client and a thread of its own, so it can go
// while a turn streams; nothing of it enters the history, the provider's pending state or the transcript.
// - /btw <question>: a quick question answered from the recent conversation and the model's knowledge,
//   without tools.
// - /adversary [focus]: a critical review of the conversation by a second look that may read the project
//   (read_file, glob, grep) but change nothing and ask no one.
class AsideQuestion final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AsideQuestion)

public:
    static constexpr qsizetype ContextMessages = 10;

    // The request: the aside's system prompt, the last ContextMessages messages of history as plain text (a
    // trailing prompt the model has not answered yet is left out; tool activity is not replayed, no tools
    // are declared), then the question.
    static MessageList request(const MessageList &history, const QString &question, const QString &workspace);
    static QString systemPrompt(const QString &workspace);

    // The tools a review may use: reading and searching.
    static const QStringList &reviewToolNames();
    // The review's request: its system prompt, then one user message with the conversation as text (the
    // person's messages marked "[user]:", the agent's "[main agent]:" with a line per tool call), newest
    // messages kept within a third of inputBudget, then the focus or "Review this conversation.".
    static MessageList reviewRequest(const MessageList &history, const QString &focus,
                                     const QString &workspace, qint64 inputBudget);
    static QString reviewSystemPrompt(const QString &workspace);

    AsideQuestion(std::shared_ptr<LlmClient> client, CancellationToken cancel, QObject *parent = nullptr);
    // Cancels a question still running and waits for its thread.
    ~AsideQuestion() override;

    void start(const MessageList &request);
    // A review: the read-only tools of sessionTools, in plan mode, with no one to ask for a permission (a
    // read that would need one is refused).
    void startReview(const MessageList &request, const ToolRegistry &sessionTools);
    void cancel();
    bool isCancelled() const;

Q_SIGNALS:
    // Chunks (and reasoning, usage) of the answer, in order.
    void event(const keen::StreamEvent &event);
    // The answer is complete; error is empty on success, set when the provider failed; cancelled after
    // cancel() (or the session's shutdown).
    void finished(const QString &error, bool cancelled);

private:
    void connectRunner();

    std::shared_ptr<LlmClient> m_client;
    CancellationToken m_cancel;
    QString m_error;
    std::unique_ptr<PermissionPolicy> m_reviewPermissions; // outlives the stream: reset after m_runner
    // The thread first: the runner waits for its job on it when it goes.
    std::unique_ptr<WorkerThread> m_thread;
    std::unique_ptr<StreamRunner> m_runner;
};

} // namespace keen
