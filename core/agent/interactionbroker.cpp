#include "agent/interactionbroker.h"

#include "conversation/userquestion.h"

#include <chrono>

namespace keen {

InteractionBroker::InteractionBroker(QObject *parent)
    : QObject(parent)
{}

InteractionBroker::~InteractionBroker()
{
    cancelAll();
}

quint64 InteractionBroker::open()
{
    std::lock_guard lock(m_mutex);
    const quint64 id = m_nextId++;
    m_pending.emplace(id, Pending{});
    return id;
}

PermissionDecision InteractionBroker::request(const PermissionRequest &request,
                                              const CancellationToken &cancel)
{
    PermissionRequest copy = request;
    copy.id = open();
    QMetaObject::invokeMethod(
        this, [this, copy] { Q_EMIT permissionRequested(copy); }, Qt::QueuedConnection);

    std::unique_lock lock(m_mutex);
    PermissionDecision decision = PermissionDecision::Deny;
    for (;;) {
        auto it = m_pending.find(copy.id);
        if (it == m_pending.end())
            break;
        if (it->second.decision) {
            decision = *it->second.decision;
            m_pending.erase(it);
            break;
        }
        if (cancel.isCancelled()) {
            m_pending.erase(it);
            break; // a cancelled turn denies
        }
        m_answered.wait_for(lock, std::chrono::milliseconds(50));
    }
    lock.unlock();
    const quint64 id = copy.id;
    QMetaObject::invokeMethod(
        this, [this, id] { Q_EMIT settled(id); }, Qt::QueuedConnection);
    return decision;
}

QJsonObject InteractionBroker::ask(const QJsonObject &questions, const CancellationToken &cancel)
{
    const quint64 id = open();
    QMetaObject::invokeMethod(
        this, [this, id, questions] { Q_EMIT questionAsked(id, questions); }, Qt::QueuedConnection);
    std::unique_lock lock(m_mutex);
    QJsonObject answer = UserAnswer::cancel().toJson();
    for (;;) {
        auto it = m_pending.find(id);
        if (it == m_pending.end())
            break;
        if (it->second.answer) {
            answer = *it->second.answer;
            m_pending.erase(it);
            break;
        }
        if (cancel.isCancelled()) {
            m_pending.erase(it);
            break;
        }
        m_answered.wait_for(lock, std::chrono::milliseconds(50));
    }
    lock.unlock();
    QMetaObject::invokeMethod(
        this, [this, id] { Q_EMIT settled(id); }, Qt::QueuedConnection);
    return answer;
}

void InteractionBroker::answerPermission(quint64 requestId, PermissionDecision decision)
{
    {
        std::lock_guard lock(m_mutex);
        auto it = m_pending.find(requestId);
        if (it == m_pending.end())
            return;
        it->second.decision = decision;
    }
    m_answered.notify_all();
}

void InteractionBroker::answerQuestion(quint64 questionId, const QJsonObject &answer)
{
    {
        std::lock_guard lock(m_mutex);
        auto it = m_pending.find(questionId);
        if (it == m_pending.end())
            return;
        it->second.answer = answer;
    }
    m_answered.notify_all();
}

void InteractionBroker::cancelAll()
{
    {
        std::lock_guard lock(m_mutex);
        for (auto &[id, pending] : m_pending) {
            if (!pending.decision)
                pending.decision = PermissionDecision::Deny;
            if (!pending.answer)
                pending.answer = QJsonObject{{QStringLiteral("answers"), QJsonArray()},
                                             {QStringLiteral("cancelled"), true}};
        }
    }
    m_answered.notify_all();
}

} // namespace keen
