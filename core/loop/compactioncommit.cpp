#include "loop/compactioncommit.h"

#include <chrono>

namespace keen {

void CompactionCommit::accept()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_accepted)
            m_accepted = true;
    }
    m_changed.notify_all();
}

void CompactionCommit::reject(const QString &reason)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_accepted) {
            m_accepted = false;
            m_reason = reason;
        }
    }
    m_changed.notify_all();
}

bool CompactionCommit::wait(const CancellationToken &cancel, QString *reason)
{
    std::unique_lock lock(m_mutex);
    while (!m_accepted) {
        if (cancel.isCancelled()) {
            if (reason)
                *reason = QStringLiteral("cancelled");
            return false;
        }
        m_changed.wait_for(lock, std::chrono::milliseconds(50));
    }
    if (!*m_accepted && reason)
        *reason = m_reason;
    return *m_accepted;
}

} // namespace keen
