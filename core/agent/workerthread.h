#pragma once

#include <QThread>

#include <functional>

namespace keen {

// A thread with an event loop that runs the jobs posted to it one after another, for as long as its owner
// lives. AgentSession runs its turns on one: what a thread keeps (the HttpStreamer of
// HttpStreamer::forCurrentThread(), and with it the provider's open connection) then serves turn after turn,
// instead of a new TCP and TLS handshake for every message.
class WorkerThread
{
public:
    explicit WorkerThread(const QString &name);
    // Stops the thread after the job it runs, and waits. Jobs not started by then never run: whoever posted
    // one waits for it before this (StreamRunner does, in its destructor).
    ~WorkerThread();
    WorkerThread(const WorkerThread &) = delete;
    WorkerThread &operator=(const WorkerThread &) = delete;

    void post(std::function<void()> job);

private:
    QThread m_thread;
    QObject *m_context; // lives on m_thread, where it is deleted when the thread finishes
};

} // namespace keen
