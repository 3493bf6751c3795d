#pragma once

#include <QMetaType>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace keen {

// A thread-safe cancellation flag shared by value. Cancelling a token cancels every child made from it;
// cancelling a child never reaches the parent. Callbacks run on the thread that cancels.
class CancellationToken
{
public:
    CancellationToken();

    bool isCancelled() const;
    void cancel() const;
    CancellationToken child() const;

    // Runs callback once when the token is cancelled (immediately if it already is). Returns an id for
    // removeCallback so a finished operation can stop listening.
    int onCancelled(std::function<void()> callback) const;
    // After it returns, the callback will not run and is not running on another thread (it waits for one
    // that is), so an object its callback uses can be destroyed right after.
    void removeCallback(int id) const;

    bool operator==(const CancellationToken &other) const { return m_state == other.m_state; }

private:
    struct State;
    explicit CancellationToken(std::shared_ptr<State> state);
    std::shared_ptr<State> m_state;
};

} // namespace keen

Q_DECLARE_METATYPE(keen::CancellationToken)
