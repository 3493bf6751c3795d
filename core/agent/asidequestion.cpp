#include "agent/asidequestion.h"

#include "agent/streamrunner.h"
#include "agent/workerthread.h"
#include "conversation/historyreplay.h"
#include "loop/contextbudget.h"
#include "loop/llmclient.h"
#include "tools/permissionpolicy.h"
#include "tools/toolregistry.h"

#include <QDir>

#include <algorithm>

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

const QStringList &AsideQuestion::reviewToolNames()
{
    static const QStringList names{QStringLiteral("glob"), QStringLiteral("grep"),
                                   QStringLiteral("read_file")};
    return names;
}

QString AsideQuestion::reviewSystemPrompt(const QString &workspace)
{
    return QStringLiteral(
               "You are a critical reviewer of the work of another AI coding agent (the main agent), "
               "done for the user in their project. Critically review the main agent's work for bugs, "
               "logic errors, security issues, missed edge cases, risks and flawed assumptions. Check its "
               "claims against the files: you can read and search the project with read_file, glob and "
               "grep, but you cannot change anything or run commands. Report concrete findings, most "
               "severe first, each with the file and line when there is one and what should be done "
               "instead. Do not repeat what is fine; "
               "if you find nothing that matters, say so plainly.\n\nWorking directory: ") +
           QDir(workspace).absolutePath();
}

MessageList AsideQuestion::reviewRequest(const MessageList &history, const QString &focus,
                                         const QString &workspace, qint64 inputBudget)
{
    constexpr qsizetype MaxToolInput = 500;
    QStringList parts; // newest first while collecting
    qint64 tokens = 0;
    const qint64 allowed = qMax<qint64>(1, inputBudget / 3);
    qsizetype left = 0;
    for (qsizetype i = history.size() - 1; i >= 0; --i) {
        const Message &message = history.at(i);
        if (message.role == Message::Role::System)
            continue;
        QString part = (message.role == Message::Role::User ? QStringLiteral("[user]: ")
                                                            : QStringLiteral("[main agent]: ")) +
                       message.content.trimmed();
        if (message.hasToolActivity()) {
            for (const ToolActivity &activity : message.turnMemory->toolActivity) {
                QString input = activity.input.isUndefined() ? QString() : serializeJson(activity.input);
                if (input.size() > MaxToolInput)
                    input = input.left(MaxToolInput) + QStringLiteral("…");
                part += QStringLiteral("\n[main agent used %1 %2: %3]")
                            .arg(activity.tool, input,
                                 activity.status.isEmpty() ? QStringLiteral("?") : activity.status);
            }
        }
        tokens += ContextBudget::estimateTokens(ContextBudget::utf8Bytes(part));
        if (tokens > allowed && !parts.isEmpty()) {
            left = i + 1;
            break;
        }
        parts.append(part);
    }
    std::reverse(parts.begin(), parts.end());
    QString text = QStringLiteral("The conversation to review:\n\n");
    if (left > 0)
        text += QStringLiteral("(%1 earlier messages are left out.)\n\n").arg(left);
    text += parts.join(QStringLiteral("\n\n")) + QStringLiteral("\n\n---\n\n") +
            (focus.trimmed().isEmpty() ? QStringLiteral("Review this conversation.") : focus.trimmed());
    return {Message::system(reviewSystemPrompt(workspace)), Message::user(text)};
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
    m_reviewPermissions.reset();
}

void AsideQuestion::start(const MessageList &request)
{
    m_runner = std::make_unique<StreamRunner>(*m_thread, this);
    connectRunner();
    StreamOptions options;
    options.oneShot = true; // no pending state saved or replayed, no compaction
    options.disableAutoCompaction = true;
    options.disableToolCalls = true;
    m_runner->start(m_client, request, std::make_shared<const ToolRegistry>(), options, m_cancel);
}

void AsideQuestion::connectRunner()
{
    connect(m_runner.get(), &StreamRunner::event, this, [this](const StreamEvent &event) {
        if (event.type == StreamEvent::Type::Error || event.type == StreamEvent::Type::Incomplete)
            m_error = event.error;
        Q_EMIT this->event(event);
    });
    connect(m_runner.get(), &StreamRunner::finished, this, [this] {
        Q_EMIT finished(m_cancel.isCancelled() ? QString() : m_error, m_cancel.isCancelled());
    });
}

void AsideQuestion::startReview(const MessageList &request, const ToolRegistry &sessionTools)
{
    ToolRegistry tools;
    for (const QString &name : reviewToolNames()) {
        if (auto tool = sessionTools.find(name))
            tools.add(tool);
    }
    ToolContext context = sessionTools.context();
    m_reviewPermissions = std::make_unique<PermissionPolicy>(context.workspace, nullptr, false);
    context.permissions = m_reviewPermissions.get();
    context.interactive = false;
    context.askUser = {};
    context.mode = AgentMode::Plan;
    tools.setContext(context);

    m_runner = std::make_unique<StreamRunner>(*m_thread, this);
    connectRunner();
    StreamOptions options;
    options.oneShot = true;
    options.disableAutoCompaction = true;
    m_runner->start(m_client, request, std::make_shared<const ToolRegistry>(tools), options, m_cancel);
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
