// A keychain that never answers cannot hold the process open at exit: ~QCoreApplication waits for every
// thread-pool task, and a lookup waiting in Keychain::wait gives up as soon as the application is destroyed.
// A plain program, because what it checks happens after the application object is gone.
#include "auth/keychain.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPromise>
#include <QtConcurrent>

#include <atomic>
#include <cstdio>

using namespace keen;

int main(int argc, char **argv)
{
    // Outlives the application: the lookup must end because the application quits, not because its
    // promise was dropped.
    QPromise<KeychainReply> neverAnswered;
    neverAnswered.start();
    std::atomic_bool waiting{false};
    KeychainReply reply;
    QElapsedTimer sinceQuit;
    {
        QCoreApplication app(argc, argv);
        const QFuture<KeychainReply> lookup = neverAnswered.future();
        // Not awaited on purpose: ~QCoreApplication waits for it, which is what is under test.
        (void)QtConcurrent::run([lookup, &waiting, &reply] {
            waiting = true;
            reply = Keychain::wait(lookup, 60000);
        });
        while (!waiting)
            QThread::msleep(10);
        QThread::msleep(200); // let it enter its wait
        sinceQuit.start();
    }
    const qint64 elapsed = sinceQuit.elapsed();
    std::printf("the application was destroyed %lld ms after quitting; the lookup said: %s\n",
                static_cast<long long>(elapsed), qPrintable(reply.error));
    // A generous hang guard, not a benchmark: without the fix the exit takes the full 60 s.
    if (elapsed > 10000 || reply.status != KeychainReply::Status::Unavailable) {
        std::printf("FAIL: a waiting keychain lookup held the exit\n");
        return 1;
    }
    std::printf("PASS\n");
    return 0;
}
