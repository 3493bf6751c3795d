#include "sessionnotifications.h"

#include "agent/agentsession.h"
#include "notifier.h"

#include <QWidget>

#include <utility>

namespace keen {

SessionNotifications::SessionNotifications(AgentSession *session, QWidget *window, Notifier *notifier)
    : QObject(window)
    , m_session(session)
    , m_window(window)
    , m_notifier(notifier)
{
    setObjectName(QStringLiteral("sessionNotifications"));
    connect(session, &AgentSession::compactionStarted, this, [this](AgentSession::CompactionMode mode) {
        if (mode == AgentSession::CompactionMode::Manual)
            m_manualCompaction = true;
    });
    connect(session, &AgentSession::compactionFinished, this,
            [this](AgentSession::CompactionMode mode, bool applied, const QString &message) {
                if (mode != AgentSession::CompactionMode::Manual)
                    return; // automatic ones happen inside a turn; the turn's end is what matters
                if (applied)
                    notifyIfAway(tr("Context compacted"),
                                 tr("The conversation goes on from its summary: %1").arg(message));
                else
                    notifyIfAway(tr("Compaction did not finish"), message);
            });
    // With review on, a manual compaction stops at its summary until the person accepts it: someone who
    // pressed Compact and went elsewhere would otherwise wait for nothing.
    connect(session, &AgentSession::compactionReviewRequested, this, [this] {
        notifyIfAway(tr("Summary ready to review"),
                     tr("Accept, edit or regenerate it before it replaces the conversation."));
    });
    connect(session, &AgentSession::turnFinished, this,
            [this](AgentSession::TurnOutcome outcome, const QString &error) {
                if (std::exchange(m_manualCompaction, false))
                    return; // reported by compactionFinished
                switch (outcome) {
                case AgentSession::TurnOutcome::Done: {
                    const MessageList &history = m_session->messages();
                    const bool replied =
                        !history.isEmpty() && history.last().role == Message::Role::Assistant;
                    notifyIfAway(tr("Reply finished"), replied ? history.last().content : QString());
                    break;
                }
                case AgentSession::TurnOutcome::Error:
                case AgentSession::TurnOutcome::Incomplete:
                    notifyIfAway(tr("The reply failed"), error);
                    break;
                case AgentSession::TurnOutcome::Cancelled:
                    break; // the person stopped it
                }
            });
    // A `!command` started and left to run (a build, the tests): its end is worth knowing about.
    connect(session, &AgentSession::shellCommandStarted, this,
            [this](const QString &command) { m_shellCommand = command; });
    connect(session, &AgentSession::shellCommandFinished, this, [this](bool cancelled) {
        const QString command = std::exchange(m_shellCommand, QString());
        if (!cancelled)
            notifyIfAway(tr("Command finished"), command);
    });
    connect(session, &AgentSession::permissionRequested, this, [this](const PermissionRequest &request) {
        const QString body = !request.command.isEmpty()
                                 ? tr("Run %1?").arg(request.command)
                                 : tr("Allow %1 on %2?").arg(request.toolName, request.path);
        notifyIfAway(tr("Permission needed"), body);
    });
    connect(session, &AgentSession::questionAsked, this, [this](quint64, const UserQuestionList &questions) {
        notifyIfAway(tr("The agent has a question"),
                     questions.isEmpty() ? QString() : questions.constFirst().question);
    });
}

SessionNotifications::~SessionNotifications() = default;

void SessionNotifications::notifyIfAway(const QString &summary, const QString &body)
{
    if (!m_window || !m_notifier || m_window->isActiveWindow())
        return;
    m_notifier->notify(summary, body, m_session->sessionId());
    m_notifier->requestAttention(m_window);
}

} // namespace keen

#include "moc_sessionnotifications.cpp"
