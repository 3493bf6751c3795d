#include "auth/keychain.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QPromise>
#include <QSemaphore>
#include <QThread>

#include <atomic>
#include <memory>
#include <mutex>

#ifdef KEEN_HAVE_QTKEYCHAIN
#include <qt6keychain/keychain.h>
#endif

namespace keen {

namespace {

using Promise = std::shared_ptr<QPromise<KeychainReply>>;

// Set when the application object is being destroyed. ~QCoreApplication runs its post routines and then waits
// for every thread-pool task; a lookup waiting on a keychain that never answers would hold the process open
// for 30 s per queued lookup (seen as a test that passed and then hung at exit).
std::atomic_bool g_quitting{false};

void stopWaiting()
{
    g_quitting = true;
}

void stopWaitingWhenTheApplicationQuits()
{
    static std::once_flag once;
    std::call_once(once, [] { qAddPostRoutine(stopWaiting); });
}

QFuture<KeychainReply> finished(const KeychainReply &reply)
{
    QPromise<KeychainReply> promise;
    promise.start();
    promise.addResult(reply);
    promise.finish();
    return promise.future();
}

#ifdef KEEN_HAVE_QTKEYCHAIN

#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
// The Secret Service (and KWallet) are reached over the D-Bus session bus. GIO finds it from
// DBUS_SESSION_BUS_ADDRESS, else the user's runtime folder's "bus" socket, else it starts one through X11
// (which needs $DISPLAY). Without any of them (ssh, CI, containers) the lookup can only fail, after
// QtKeychain has loaded libsecret and GIO: about 6 ms on every headless start (docs/PERFORMANCE.md). Unsure
// is "reachable".
bool sessionBusUnreachable()
{
    if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS") || !qEnvironmentVariableIsEmpty("DISPLAY"))
        return false;
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty() && QFileInfo::exists(runtime + QStringLiteral("/bus")))
        return false;
    // GIO's runtime folder when XDG_RUNTIME_DIR is not set.
    return !QFileInfo::exists(QDir::homePath() + QStringLiteral("/.cache/bus"));
}
#else
bool sessionBusUnreachable()
{
    return false;
}
#endif

enum class Operation { Read, Write, Remove };

// Owns the keychain thread for the life of the process.
class KeychainThread
{
public:
    KeychainThread()
    {
        m_thread.setObjectName(QStringLiteral("keychain"));
        m_context.moveToThread(&m_thread);
        m_thread.start();
    }
    ~KeychainThread()
    {
        m_thread.quit();
        m_thread.wait();
    }

    static KeychainThread &instance()
    {
        static KeychainThread thread;
        return thread;
    }

    QFuture<KeychainReply> run(Operation operation, const QString &key, const QString &secret)
    {
        auto promise = std::make_shared<QPromise<KeychainReply>>();
        promise->start();
        QFuture<KeychainReply> future = promise->future();
        QMetaObject::invokeMethod(
            &m_context, [operation, key, secret, promise]() { start(operation, key, secret, promise); },
            Qt::QueuedConnection);
        return future;
    }

private:
    static void start(Operation operation, const QString &key, const QString &secret, const Promise &promise)
    {
        QKeychain::Job *job = nullptr;
        switch (operation) {
        case Operation::Read:
            job = new QKeychain::ReadPasswordJob(Keychain::serviceName());
            break;
        case Operation::Write: {
            auto *write = new QKeychain::WritePasswordJob(Keychain::serviceName());
            write->setTextData(secret);
            job = write;
            break;
        }
        case Operation::Remove:
            job = new QKeychain::DeletePasswordJob(Keychain::serviceName());
            break;
        }
        job->setAutoDelete(true);
        job->setInsecureFallback(false); // our own fallback asks the user first
        job->setKey(key);
        QObject::connect(job, &QKeychain::Job::finished, job, [promise, operation](QKeychain::Job *done) {
            KeychainReply reply;
            switch (done->error()) {
            case QKeychain::NoError:
                reply.status = KeychainReply::Status::Ok;
                if (operation == Operation::Read)
                    reply.secret = static_cast<QKeychain::ReadPasswordJob *>(done)->textData();
                break;
            case QKeychain::EntryNotFound:
                reply.status = KeychainReply::Status::NotFound;
                break;
            case QKeychain::NoBackendAvailable:
            case QKeychain::NotImplemented:
                reply.status = KeychainReply::Status::Unavailable;
                break;
            default:
                reply.status = KeychainReply::Status::Failed;
                break;
            }
            if (!reply.ok())
                reply.error = done->errorString();
            promise->addResult(reply);
            promise->finish();
        });
        job->start();
    }

    QThread m_thread;
    QObject m_context;
};

#endif

QFuture<KeychainReply> runOperation([[maybe_unused]] int operation, [[maybe_unused]] const QString &key,
                                    [[maybe_unused]] const QString &secret)
{
    if (qEnvironmentVariableIntValue("KEEN_DISABLE_KEYCHAIN") == 1)
        return finished({KeychainReply::Status::Unavailable,
                         {},
                         Keychain::tr("the keychain is disabled by KEEN_DISABLE_KEYCHAIN")});
#ifdef KEEN_HAVE_QTKEYCHAIN
    // The status a failed D-Bus connection gets from QtKeychain, so callers decide as before.
    if (sessionBusUnreachable())
        return finished(
            {KeychainReply::Status::Failed,
             {},
             Keychain::tr("there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and no "
                          "display to start one)")});
    return KeychainThread::instance().run(Operation(operation), key, secret);
#else
    return finished(
        {KeychainReply::Status::Unavailable, {}, Keychain::tr("this build has no keychain support")});
#endif
}

} // namespace

QString Keychain::serviceName()
{
    return QStringLiteral("Keen Desktop");
}

QFuture<KeychainReply> Keychain::read(const QString &key)
{
    return runOperation(0, key, QString());
}

QFuture<KeychainReply> Keychain::write(const QString &key, const QString &secret)
{
    return runOperation(1, key, secret);
}

QFuture<KeychainReply> Keychain::remove(const QString &key)
{
    return runOperation(2, key, QString());
}

KeychainReply Keychain::wait(const QFuture<KeychainReply> &future, int timeoutMs)
{
    if (!future.isFinished()) {
        if (isGuiThread())
            return {
                KeychainReply::Status::Failed,
                {},
                Keychain::tr(
                    "internal error: a blocking keychain call on the GUI thread (use the asynchronous API)")};
        stopWaitingWhenTheApplicationQuits();
        // No event loop here: once the application object is gone Qt delivers no more events (not even
        // timers), so a loop waiting for the reply or its own timeout would never return. The keychain
        // thread wakes us directly; we look at the clock and the quit flag every 100 ms.
        auto answered = std::make_shared<QSemaphore>(0);
        QFuture<KeychainReply>(future).then(QtFuture::Launch::Sync,
                                            [answered](const KeychainReply &) { answered->release(); });
        const QDeadlineTimer deadline(timeoutMs);
        while (!future.isFinished() && !g_quitting && !deadline.hasExpired())
            answered->tryAcquire(1, int(qMin<qint64>(100, deadline.remainingTime())));
    }
    if (future.isFinished() && future.resultCount() > 0)
        return future.result();
    if (future.isFinished())
        return {KeychainReply::Status::Failed, {}, Keychain::tr("the keychain request was cancelled")};
    if (g_quitting)
        return {KeychainReply::Status::Unavailable, {}, Keychain::tr("the application is quitting")};
    return {KeychainReply::Status::Unavailable,
            {},
            Keychain::tr("the system keychain did not answer within %1 seconds").arg(timeoutMs / 1000)};
}

bool Keychain::isGuiThread()
{
    QCoreApplication *app = QCoreApplication::instance();
    return app && QThread::currentThread() == app->thread() && app->inherits("QGuiApplication");
}

} // namespace keen
