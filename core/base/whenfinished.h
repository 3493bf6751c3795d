#pragma once

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>

#include <type_traits>
#include <utility>

namespace keen {

// Calls function (with the future's result, unless it is a QFuture<void>) on context's thread, from its event
// loop, once future has finished; never once context is gone, and not when the future was cancelled. Call it
// on context's thread.
//
// Why not future.then(context, function): with Qt 6.4, when the future has already finished by the time the
// continuation is attached (a worker thread that was faster than this one), the function runs at once, inside
// the call that attached it. Whoever started the work and then connected to what the function emits missed
// it: `run --pin` and `run --compact-threshold` waited forever that way under load (issue 14). Here the
// function always runs after the call that started the work has returned.
//
// And then(context, ...) is not safe when context is deleted while the work finishes: Qt 6.4 checks its
// QPointer to context on the worker thread and then posts the call to context, unsynchronised with the
// deletion on context's thread. A worker preempted between the two posts an event to a deleted object, which
// the event loop then delivers: a segfault (the likely cause of tst_settingsdialog's rare crash under a
// loaded ctest -j2, whose dialogs are destroyed while their stored-key lookups finish). A QFutureWatcher
// owned by context is safe: the future posts to it under its own mutex, and the watcher's destructor
// disconnects under that mutex and removes what was posted.
template<typename T, typename Function>
void whenFinished(QFuture<T> future, QObject *context, Function function)
{
    auto *watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, watcher,
                     [watcher, function = std::move(function)]() mutable {
                         // function may delete context, and with it the watcher: take what is needed first.
                         Function call = std::move(function);
                         const QFuture<T> finished = watcher->future();
                         watcher->disconnect();
                         watcher->deleteLater();
                         if (finished.isCanceled())
                             return;
                         if constexpr (std::is_void_v<T>)
                             call();
                         else
                             call(finished.result());
                     });
    // Even a future that has already finished is reported through context's event loop, never from here.
    watcher->setFuture(std::move(future));
}

} // namespace keen
