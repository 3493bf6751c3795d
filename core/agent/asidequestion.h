#pragma once

#include "base/cancellationtoken.h"
#include "conversation/message.h"
#include "conversation/streamevent.h"

#include <QObject>

#include <memory>

namespace keen {

class LlmClient;
class StreamRunner;
class WorkerThread;

// /btw <question> (reference 6.1): a quick question on the side of the main task, answered from the recent
// conversation and the model's knowledge, without tools. It runs on a client and a thread of its own, so it
// can go while a turn streams, and nothing of it enters the history, the provider's pending state or the
// transcript.
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

    AsideQuestion(std::shared_ptr<LlmClient> client, CancellationToken cancel, QObject *parent = nullptr);
    // Cancels a question still running and waits for its thread.
    ~AsideQuestion() override;

    void start(const MessageList &request);
    void cancel();
    bool isCancelled() const;

Q_SIGNALS:
    // Chunks (and reasoning, usage) of the answer, in order.
    void event(const keen::StreamEvent &event);
    // The answer is complete; error is empty on success, set when the provider failed; cancelled after
    // cancel() (or the session's shutdown).
    void finished(const QString &error, bool cancelled);

private:
    std::shared_ptr<LlmClient> m_client;
    CancellationToken m_cancel;
    QString m_error;
    // The thread first: the runner waits for its job on it when it goes.
    std::unique_ptr<WorkerThread> m_thread;
    std::unique_ptr<StreamRunner> m_runner;
};

} // namespace keen
