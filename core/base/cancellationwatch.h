#pragma once

#include "base/cancellationtoken.h"

#include <QObject>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>

namespace keen {

// Delivers a token's cancellation to the thread that created the watch. CancellationToken runs its callbacks
// on the cancelling thread and outside its lock, so a callback may still be running after removeCallback()
// returned; the one registered here therefore only sets a shared atomic flag, and a timer on this thread
// polls it and calls onCancelled. No object of this thread is ever touched from another one.
class CancellationWatch final
{
public:
    static constexpr int PollIntervalMs = 50;

    // onCancelled runs at most once, from this thread's event loop.
    CancellationWatch(const CancellationToken &token, std::function<void()> onCancelled);
    ~CancellationWatch();
    CancellationWatch(const CancellationWatch &) = delete;
    CancellationWatch &operator=(const CancellationWatch &) = delete;

    bool isCancelled() const { return m_flag->load(); }

private:
    CancellationToken m_token;
    std::shared_ptr<std::atomic_bool> m_flag;
    std::function<void()> m_onCancelled;
    int m_callbackId = 0;
    bool m_delivered = false;
    QTimer m_poll;
};

} // namespace keen
