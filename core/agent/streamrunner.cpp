#include "agent/streamrunner.h"

#include "loop/llmclient.h"
#include "tools/toolregistry.h"

namespace keen {

void StreamRunner::ThreadStopper::operator()(QThread *thread) const
{
    thread->quit();
    thread->wait();
    delete thread;
}

StreamRunner::StreamRunner(QObject *parent)
    : QObject(parent)
{}

StreamRunner::~StreamRunner()
{
    m_cancel.cancel();
    m_thread.reset(); // waits: the worker never outlives the object its events are posted to
}

bool StreamRunner::isRunning() const
{
    return m_thread && m_thread->isRunning();
}

void StreamRunner::start(std::shared_ptr<LlmClient> client, const MessageList &messages,
                         std::shared_ptr<const ToolRegistry> tools, const StreamOptions &options,
                         const CancellationToken &cancel)
{
    m_thread.reset();
    m_cancel = cancel;
    QThread *thread = QThread::create([this, client, messages, tools, options, cancel] {
        client->streamChat(messages, tools.get(), options, cancel, [this](const StreamEvent &event) {
            // Posted to this object's thread: values only cross threads.
            QMetaObject::invokeMethod(
                this, [this, event] { Q_EMIT this->event(event); }, Qt::QueuedConnection);
        });
    });
    thread->setObjectName(QStringLiteral("keen-stream"));
    // Queued behind every event the worker posted, so finished() always comes last.
    connect(thread, &QThread::finished, this, &StreamRunner::finished, Qt::QueuedConnection);
    m_thread.reset(thread);
    thread->start();
}

} // namespace keen
