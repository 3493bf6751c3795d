#pragma once

#include "base/cancellationtoken.h"

#include <atomic>
#include <thread>

namespace keen {

// SIGINT and SIGTERM for `keen-desktop run` (issue 14: a busy main thread must not delay them). The handler
// only writes the signal's number to a pipe. A thread of its own reads it and cancels stop: the running
// turn's token descends from it, so the stream's worker stops within its poll interval whatever the main
// thread is doing, and the main thread, when it gets to it, saves the partial reply as an interrupted
// assistant_turn and exits 130. If it has not finished GraceMs after the signal, or a second signal comes,
// the watcher ends the process with _exit(130): the transcript is still consistent (every event is one
// appended line or one atomic batch, and a torn last line is skipped on load), only that partial reply is not
// in it.
class SignalWatcher final
{
public:
    static constexpr int GraceMs = 750;

    explicit SignalWatcher(const CancellationToken &stop);
    // Without a signal: the handlers are reset and the thread ends. After one: the watchdog stays armed until
    // the process exits, so a hang in the teardown still ends it.
    ~SignalWatcher();
    SignalWatcher(const SignalWatcher &) = delete;
    SignalWatcher &operator=(const SignalWatcher &) = delete;

private:
    void watch();

    CancellationToken m_stop;
    std::atomic_bool m_signalled = false;
    std::thread m_thread;
};

} // namespace keen
