#include "agent/asidequestion.h"

#include "agent/streamrunner.h"
#include "agent/workerthread.h"
#include "loop/llmclient.h"
#include "tools/toolregistry.h"

#include <QDir>

namespace keen {

QString AsideQuestion::systemPrompt(const QString &workspace)
{
    return QStringLiteral(
               "You answer a quick side question (\"btw\") that the person asks next to the main task of "
               "Keen Desktop, a coding agent working in their project. Answer from the recent conversation "
               "given here and from what you know; you cannot use tools, read files or run commands. Be "
               "brief and direct, and say so when the answer needs a look at the project.\n\nWorking "
               "directory: ") +
           QDir(workspace).absolutePath();
}

MessageList AsideQuestion::request(const MessageList &history, const QString &question,
                                   const QString &workspace)
{
    MessageList recent;
    for (const Message &message : history) {
        // Text only: replayed tool calls would need the tools declared, and the answer needs none.
        if (message.role != Message::Role::System && !message.content.trimmed().isEmpty())
            recent.append(Message{message.role, message.content, std::nullopt});
    }
    if (!recent.isEmpty() && recent.constLast().role == Message::Role::User)
        recent.removeLast(); // the prompt the running turn answers: the aside is not that answer
    if (recent.size() > ContextMessages)
        recent = recent.mid(recent.size() - ContextMessages);
    MessageList messages{Message::system(systemPrompt(workspace))};
    messages.append(recent);
    messages.append(Message::user(question));
    return messages;
}

AsideQuestion::AsideQuestion(std::shared_ptr<LlmClient> client, CancellationToken cancel, QObject *parent)
    : QObject(parent)
    , m_client(std::move(client))
    , m_cancel(std::move(cancel))
    , m_thread(std::make_unique<WorkerThread>(QStringLiteral("keen-aside")))
{}

AsideQuestion::~AsideQuestion()
{
    m_cancel.cancel();
    m_runner.reset(); // waits for the stream on m_thread, which goes after it
}

void AsideQuestion::start(const MessageList &request)
{
    m_runner = std::make_unique<StreamRunner>(*m_thread, this);
    connect(m_runner.get(), &StreamRunner::event, this, [this](const StreamEvent &event) {
        if (event.type == StreamEvent::Type::Error || event.type == StreamEvent::Type::Incomplete)
            m_error = event.error;
        Q_EMIT this->event(event);
    });
    connect(m_runner.get(), &StreamRunner::finished, this, [this] {
        Q_EMIT finished(m_cancel.isCancelled() ? QString() : m_error, m_cancel.isCancelled());
    });
    StreamOptions options;
    options.oneShot = true; // no pending state saved or replayed, no compaction
    options.disableAutoCompaction = true;
    options.disableToolCalls = true;
    m_runner->start(m_client, request, std::make_shared<const ToolRegistry>(), options, m_cancel);
}

void AsideQuestion::cancel()
{
    m_cancel.cancel();
}

bool AsideQuestion::isCancelled() const
{
    return m_cancel.isCancelled();
}

} // namespace keen
