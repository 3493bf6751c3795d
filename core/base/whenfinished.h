#pragma once

#include <QFuture>
#include <QMetaObject>
#include <QObject>

#include <type_traits>
#include <utility>

namespace keen {

// Calls function (with the future's result, unless it is a QFuture<void>) on context's thread, from its event
// loop, once future has finished; never once context is gone.
//
// Why not future.then(context, function): with Qt 6.4, when the future has already finished by the time the
// continuation is attached (a worker thread that was faster than this one), the function runs at once, inside
// the call that attached it. Whoever started the work and then connected to what the function emits missed
// it: `run --pin` and `run --compact-threshold` waited forever that way under load (issue 14). Here the
// function always runs after the call that started the work has returned.
template<typename T, typename Function>
void whenFinished(QFuture<T> future, QObject *context, Function function)
{
    future.then(context, [context, function = std::move(function)](QFuture<T> finished) mutable {
        // Already on context's thread (then() delivered it there), so context is alive here; the queued call
        // is dropped if it is deleted before the event loop runs it.
        QMetaObject::invokeMethod(
            context,
            [function = std::move(function), finished = std::move(finished)]() mutable {
                if constexpr (std::is_void_v<T>)
                    function();
                else
                    function(finished.result());
            },
            Qt::QueuedConnection);
    });
}

} // namespace keen
