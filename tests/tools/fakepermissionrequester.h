#pragma once

#include "tools/permissionrequester.h"

#include <QList>

namespace keen::test {

// Answers every permission request with a fixed decision and remembers what it was asked.
class FakePermissionRequester final : public PermissionRequester
{
public:
    explicit FakePermissionRequester(PermissionDecision answer = PermissionDecision::Allow)
        : m_answer(answer)
    {}
    PermissionDecision request(const PermissionRequest &request, const CancellationToken &) override
    {
        m_requests.append(request);
        return m_answer;
    }
    void setAnswer(PermissionDecision answer) { m_answer = answer; }
    const QList<PermissionRequest> &requests() const { return m_requests; }
    int count() const { return int(m_requests.size()); }

private:
    PermissionDecision m_answer;
    QList<PermissionRequest> m_requests;
};

} // namespace keen::test
