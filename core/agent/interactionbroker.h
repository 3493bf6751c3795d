#pragma once

#include "tools/permissionrequester.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

namespace keen {

// Carries questions from the worker thread to the person and their answers back (DESIGN.md step 5): the
// worker blocks in request()/ask() until answered or cancelled; the GUI thread only gets signals and calls
// answer*(), so it never blocks.
class InteractionBroker final : public QObject, public PermissionRequester
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InteractionBroker)

public:
    explicit InteractionBroker(QObject *parent = nullptr);
    ~InteractionBroker() override;

    // Worker thread.
    PermissionDecision request(const PermissionRequest &request, const CancellationToken &cancel) override;
    QJsonObject ask(const QJsonObject &questions, const CancellationToken &cancel);

    // Any thread (the GUI thread in practice).
    void answerPermission(quint64 requestId, PermissionDecision decision);
    void answerQuestion(quint64 questionId, const QJsonObject &answer);
    // Answers everything still open with Deny / cancelled (a new session, shutdown).
    void cancelAll();

Q_SIGNALS:
    void permissionRequested(const keen::PermissionRequest &request);
    void questionAsked(quint64 questionId, const QJsonObject &questions);
    void settled(quint64 id);

private:
    struct Pending
    {
        std::optional<PermissionDecision> decision;
        std::optional<QJsonObject> answer;
    };
    quint64 open(); // registers a pending entry, returns its id
    std::mutex m_mutex;
    std::condition_variable m_answered;
    std::map<quint64, Pending> m_pending;
    quint64 m_nextId = 1;
};

} // namespace keen
