#pragma once

#include "base/cancellationtoken.h"

#include <QString>

#include <condition_variable>
#include <mutex>
#include <optional>

namespace keen {

// The handshake of an applied automatic compaction. The provider loop reports the replacement, then waits
// here until the app has persisted the checkpoint and the compaction (S61); only an accepted commit switches
// the loop to the replacement, so memory and disk never disagree.
class CompactionCommit
{
public:
    void accept();
    void reject(const QString &reason);
    // Blocks the worker until resolved or cancelled. Returns true when accepted; otherwise reason says why.
    bool wait(const CancellationToken &cancel, QString *reason);

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::optional<bool> m_accepted;
    QString m_reason;
};

} // namespace keen
