#include "base/cancellationtoken.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <thread>

namespace keen {

struct CancellationToken::State
{
    std::atomic_bool cancelled{false};
    std::mutex mutex;
    std::condition_variable callbackDone;
    int nextId = 1;
    std::map<int, std::function<void()>> callbacks;
    std::vector<std::weak_ptr<State>> children;
    // The callback cancel() is running (0: none), and on which thread, so removeCallback can wait for it.
    int runningId = 0;
    std::thread::id runningThread;

    void cancel()
    {
        std::vector<std::weak_ptr<State>> kids;
        std::unique_lock lock(mutex);
        if (cancelled.exchange(true))
            return;
        kids.swap(children);
        // One callback at a time, outside the lock (a callback may use the token), each taken out of the map
        // just before it runs: removeCallback then either removes it before it runs or waits for it to end.
        while (!callbacks.empty()) {
            auto node = callbacks.extract(callbacks.begin());
            runningId = node.key();
            runningThread = std::this_thread::get_id();
            lock.unlock();
            node.mapped()();
            lock.lock();
            runningId = 0;
            callbackDone.notify_all();
        }
        lock.unlock();
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
    std::unique_lock lock(m_state->mutex);
    m_state->callbacks.erase(id);
    // A callback running on another thread may still use what the caller is about to destroy: wait for it
    // (a callback that removes itself, on the cancelling thread, must not wait for itself).
    if (id != 0 && m_state->runningThread != std::this_thread::get_id())
        m_state->callbackDone.wait(lock, [&] { return m_state->runningId != id; });
}

} // namespace keen
