#include "headless/signalwatcher.h"

#include <QDeadlineTimer>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace keen {

namespace {

// One watcher per process: the handler can only reach globals.
int signalPipe[2] = {-1, -1};
constexpr char QuitByte = 0;

void onSignal(int number)
{
    const int saved = errno; // a handler must leave errno as it found it
    const char byte = char(number);
    [[maybe_unused]] const auto written = ::write(signalPipe[1], &byte, 1);
    errno = saved;
}

void setHandler(void (*handler)(int))
{
    struct sigaction action = {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

// Blocks until a byte arrives or timeoutMs passed (-1: no limit). -1 on timeout or a closed pipe.
int readByte(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs < 0 ? QDeadlineTimer::Forever : QDeadlineTimer(timeoutMs));
    for (;;) {
        pollfd readable{signalPipe[0], POLLIN, 0};
        const qint64 left = deadline.remainingTime();
        const int ready = ::poll(&readable, 1, int(left));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return -1;
        char byte = 0;
        const auto got = ::read(signalPipe[0], &byte, 1);
        if (got < 0 && errno == EINTR)
            continue;
        return got == 1 ? int(static_cast<unsigned char>(byte)) : -1;
    }
}

} // namespace

SignalWatcher::SignalWatcher(const CancellationToken &stop)
    : m_stop(stop)
{
    if (signalPipe[0] < 0 && ::pipe2(signalPipe, O_CLOEXEC) != 0)
        return;
    // A full pipe must never block the handler: more signals than it holds say nothing new.
    ::fcntl(signalPipe[1], F_SETFL, ::fcntl(signalPipe[1], F_GETFL) | O_NONBLOCK);
    m_thread = std::thread([this] { watch(); });
    setHandler(keen::onSignal);
}

SignalWatcher::~SignalWatcher()
{
    if (!m_thread.joinable())
        return;
    if (m_signalled.load()) {
        m_thread.detach(); // still the watchdog; it touches nothing of this object any more
        return;
    }
    setHandler(SIG_DFL);
    const char quit = QuitByte;
    [[maybe_unused]] const auto written = ::write(signalPipe[1], &quit, 1);
    m_thread.join();
}

void SignalWatcher::watch()
{
    const int first = readByte(-1);
    if (first <= 0)
        return; // quit: the run ended without a signal
    // From the moment m_signalled is set the destructor no longer waits: nothing of this object is used
    // after.
    const CancellationToken stop = m_stop;
    m_signalled = true;
    stop.cancel(); // from this thread: the stream's worker sees it without the main thread
    const QDeadlineTimer deadline(GraceMs);
    for (;;) {
        const int next = readByte(int(deadline.remainingTime()));
        if (next > 0 || next < 0)
            break; // a second signal, or the grace period is over
        // The quit byte: the main thread is tearing down; the watchdog stays armed until the deadline.
    }
    // Only when stderr can take it at once: a blocked stderr may be why the main thread did not finish.
    pollfd writable{STDERR_FILENO, POLLOUT, 0};
    if (::poll(&writable, 1, 0) == 1 && (writable.revents & POLLOUT)) {
        static const char message[] = "Interrupted.\n";
        [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message, sizeof message - 1);
    }
    ::_exit(130);
}

} // namespace keen
