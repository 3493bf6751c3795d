// CancellationToken's callbacks run on the thread that cancels (issue 14, "look for the same shapes
// elsewhere"): the window registers one on the shutdown token that the signal watcher's thread cancels, and
// removes it in its destructor. Once removeCallback returns, the callback must be neither pending nor still
// running on the other thread, or it uses a destroyed window.
#include "base/cancellationtoken.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <thread>

namespace keen {

class TestCancellationToken : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void callbacksRunOnceWhenCancelled()
    {
        CancellationToken token;
        int runs = 0;
        token.onCancelled([&runs] { ++runs; });
        const CancellationToken child = token.child();
        int childRuns = 0;
        child.onCancelled([&childRuns] { ++childRuns; });
        token.cancel();
        token.cancel();
        QCOMPARE(runs, 1);
        QCOMPARE(childRuns, 1);
        QVERIFY(child.isCancelled());
        // Registered after the cancel: runs at once.
        int late = 0;
        QCOMPARE(token.onCancelled([&late] { ++late; }), 0);
        QCOMPARE(late, 1);
    }

    void removedCallbackNeverRuns()
    {
        CancellationToken token;
        bool ran = false;
        const int id = token.onCancelled([&ran] { ran = true; });
        token.removeCallback(id);
        token.cancel();
        QVERIFY(!ran);
    }

    // The window's shape: the token is cancelled on another thread while the owner removes its callback.
    void removeCallbackWaitsForTheCallbackRunningOnAnotherThread()
    {
        CancellationToken token;
        std::atomic_bool started{false};
        std::atomic_bool finished{false};
        const int id = token.onCancelled([&] {
            started = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(300)); // still using its owner
            finished = true;
        });
        std::thread canceller([token] { token.cancel(); });
        QTRY_VERIFY(started.load());
        token.removeCallback(id);
        // The owner may now be destroyed: the callback is done with it.
        QVERIFY(finished.load());
        canceller.join();
    }

    void callbackMayRemoveItselfWithoutWaitingForItself()
    {
        CancellationToken token;
        int id = 0;
        bool ran = false;
        id = token.onCancelled([&] {
            token.removeCallback(id);
            ran = true;
        });
        token.cancel(); // returns: no wait on its own running callback
        QVERIFY(ran);
    }

    void callbackMayRemoveAnotherThatHasNotRunYet()
    {
        CancellationToken token;
        int second = 0;
        bool secondRan = false;
        token.onCancelled([&] { token.removeCallback(second); });
        second = token.onCancelled([&secondRan] { secondRan = true; });
        token.cancel();
        QVERIFY(!secondRan);
    }
};

} // namespace keen

QTEST_GUILESS_MAIN(keen::TestCancellationToken)
#include "tst_cancellationtoken.moc"
