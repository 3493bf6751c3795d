#pragma once

// For the end-to-end tool loop tests in this folder: runs a ToolLoopClient turn against the loopback fake
// provider and collects what it streamed.

#include "fakeproviderserver.h"

#include "loop/toolloopclient.h"

#include <QList>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

namespace keen::test {

// Runs client.streamChat on a worker thread while this thread serves the fake provider. The events streamed,
// or std::nullopt when the turn did not finish within timeoutMs (the server's connections are closed then).
inline std::optional<QList<StreamEvent>> runToolLoop(ToolLoopClient &client, FakeProviderServer &server,
                                                     const MessageList &messages, const ToolRegistry &tools,
                                                     const StreamOptions &options, int timeoutMs)
{
    std::mutex mutex;
    QList<StreamEvent> events;
    std::atomic_bool finished = false;
    std::thread worker([&] {
        client.streamChat(messages, &tools, options, CancellationToken(), [&](const StreamEvent &event) {
            std::lock_guard lock(mutex);
            events.append(event);
        });
        finished = true;
    });
    const bool done = FakeProviderServer::spinUntil([&] { return finished.load(); }, timeoutMs);
    if (!done)
        server.closeAllConnections();
    worker.join();
    if (!done)
        return std::nullopt;
    return events;
}

} // namespace keen::test
