#include "base/cancellationtoken.h"

#include <atomic>
#include <map>

namespace keen {

struct CancellationToken::State
{
    std::atomic_bool cancelled{false};
    std::mutex mutex;
    int nextId = 1;
    std::map<int, std::function<void()>> callbacks;
    std::vector<std::weak_ptr<State>> children;

    void cancel()
    {
        std::map<int, std::function<void()>> toRun;
        std::vector<std::weak_ptr<State>> kids;
        {
            std::lock_guard lock(mutex);
            if (cancelled.exchange(true))
                return;
            toRun.swap(callbacks);
            kids.swap(children);
        }
        for (auto &[id, callback] : toRun)
            callback();
        for (auto &weak : kids) {
            if (auto kid = weak.lock())
                kid->cancel();
        }
    }
};

CancellationToken::CancellationToken()
    : m_state(std::make_shared<State>())
{}

CancellationToken::CancellationToken(std::shared_ptr<State> state)
    : m_state(std::move(state))
{}

bool CancellationToken::isCancelled() const
{
    return m_state->cancelled.load();
}

void CancellationToken::cancel() const
{
    m_state->cancel();
}

CancellationToken CancellationToken::child() const
{
    auto kid = std::make_shared<State>();
    bool parentCancelled = false;
    {
        std::lock_guard lock(m_state->mutex);
        parentCancelled = m_state->cancelled.load();
        if (!parentCancelled) {
            // Drop children that are gone so a long-lived parent does not grow without bound.
            std::erase_if(m_state->children, [](const std::weak_ptr<State> &w) { return w.expired(); });
            m_state->children.push_back(kid);
        }
    }
    if (parentCancelled)
        kid->cancel();
    return CancellationToken(kid);
}

int CancellationToken::onCancelled(std::function<void()> callback) const
{
    {
        std::lock_guard lock(m_state->mutex);
        if (!m_state->cancelled.load()) {
            const int id = m_state->nextId++;
            m_state->callbacks.emplace(id, std::move(callback));
            return id;
        }
    }
    callback();
    return 0;
}

void CancellationToken::removeCallback(int id) const
{
    std::lock_guard lock(m_state->mutex);
    m_state->callbacks.erase(id);
}

} // namespace keen
