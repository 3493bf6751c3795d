#include "base/cancellationwatch.h"

namespace keen {

CancellationWatch::CancellationWatch(const CancellationToken &token, std::function<void()> onCancelled)
    : m_token(token)
    , m_flag(std::make_shared<std::atomic_bool>(false))
    , m_onCancelled(std::move(onCancelled))
{
    // The callback owns its own reference to the flag: it stays valid even if this watch is gone by the time
    // a late callback runs.
    m_callbackId = m_token.onCancelled([flag = m_flag] { flag->store(true); });
    m_poll.setInterval(PollIntervalMs);
    QObject::connect(&m_poll, &QTimer::timeout, &m_poll, [this] {
        if (!m_delivered && m_flag->load()) {
            m_delivered = true;
            m_poll.stop();
            if (m_onCancelled)
                m_onCancelled();
        }
    });
    m_poll.start();
}

CancellationWatch::~CancellationWatch()
{
    m_token.removeCallback(m_callbackId);
}

} // namespace keen
