#include "auth/keychain.h"

#include "auth/keychainbackend.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPromise>
#include <QSemaphore>
#include <QThread>

#include <atomic>
#include <memory>
#include <mutex>

#ifdef KEEN_HAVE_QTKEYCHAIN
#include <dlfcn.h>
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

using Operation = KeychainBackend::Operation;

// Where the keychain module may be: beside this program (the build tree, and the window program installed in
// libexec/keen-desktop), in libexec/keen-desktop seen from bin/ (keen-desktop installed), and for a test or
// benchmark program of the build tree, the build's own folder.
QStringList moduleCandidates()
{
    const QString programDir = QCoreApplication::applicationDirPath();
    QStringList candidates{programDir + QLatin1Char('/') + QLatin1String(KeychainBackend::ModuleFileName),
                           QDir::cleanPath(programDir + QStringLiteral("/" KEEN_MODULE_DIR_FROM_BINDIR "/")) +
                               QLatin1Char('/') + QLatin1String(KeychainBackend::ModuleFileName)};
    const QString buildTree = QStringLiteral(KEEN_BUILD_TREE);
    if (programDir.startsWith(buildTree + QLatin1Char('/')))
        candidates.append(QStringLiteral(KEEN_BUILD_MODULE_DIR "/") +
                          QLatin1String(KeychainBackend::ModuleFileName));
    return candidates;
}

struct LoadedBackend
{
    KeychainBackend::Start start = nullptr;
    QString error;
};

// Opens the module once (never closed: its QtKeychain state lives as long as the process).
const LoadedBackend &backend()
{
    static const LoadedBackend loaded = [] {
        LoadedBackend result;
        QStringList failures;
        for (const QString &candidate : moduleCandidates()) {
            if (!QFileInfo(candidate).isFile())
                continue;
            void *handle = dlopen(QFile::encodeName(candidate).constData(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                failures.append(QString::fromLocal8Bit(dlerror()));
                continue;
            }
            result.start =
                reinterpret_cast<KeychainBackend::Start>(dlsym(handle, KeychainBackend::StartSymbol));
            if (result.start)
                return result;
            failures.append(
                Keychain::tr("%1 has no %2").arg(candidate, QLatin1String(KeychainBackend::StartSymbol)));
        }
        result.error = failures.isEmpty()
                           ? Keychain::tr("the keychain module %1 is not installed (looked in %2)")
                                 .arg(QLatin1String(KeychainBackend::ModuleFileName),
                                      moduleCandidates().join(QStringLiteral(", ")))
                           : Keychain::tr("the keychain module cannot be loaded: %1")
                                 .arg(failures.join(QStringLiteral("; ")));
        return result;
    }();
    return loaded;
}

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
        const LoadedBackend &loaded = backend();
        if (!loaded.start) {
            finish(new Promise(promise), {KeychainReply::Status::Unavailable, {}, loaded.error});
            return;
        }
        // The module calls back once with the reply; the promise travels as a heap copy of the pointer.
        loaded.start(operation, Keychain::serviceName(), key, secret, &KeychainThread::finish,
                     new Promise(promise));
    }

    static void finish(void *context, const KeychainReply &reply)
    {
        const std::unique_ptr<Promise> promise(static_cast<Promise *>(context));
        (*promise)->addResult(reply);
        (*promise)->finish();
    }

    QThread m_thread;
    QObject m_context;
};

#endif

QString disabledText()
{
    return Keychain::tr("the keychain is disabled by KEEN_DISABLE_KEYCHAIN");
}

#ifdef KEEN_HAVE_QTKEYCHAIN
QString noBusText()
{
    return Keychain::tr(
        "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and no display to start one)");
}
#else
QString noSupportText()
{
    return Keychain::tr("this build has no keychain support");
}
#endif

QFuture<KeychainReply> runOperation([[maybe_unused]] KeychainBackend::Operation operation,
                                    [[maybe_unused]] const QString &key,
                                    [[maybe_unused]] const QString &secret)
{
    if (qEnvironmentVariableIntValue("KEEN_DISABLE_KEYCHAIN") == 1)
        return finished({KeychainReply::Status::Unavailable, {}, disabledText()});
#ifdef KEEN_HAVE_QTKEYCHAIN
    // The status a failed D-Bus connection gets from QtKeychain, so callers decide as before.
    if (sessionBusUnreachable())
        return finished({KeychainReply::Status::Failed, {}, noBusText()});
    return KeychainThread::instance().run(operation, key, secret);
#else
    return finished({KeychainReply::Status::Unavailable, {}, noSupportText()});
#endif
}

} // namespace

QString Keychain::serviceName()
{
    return QStringLiteral("Keen Desktop");
}

QFuture<KeychainReply> Keychain::read(const QString &key)
{
    return runOperation(KeychainBackend::Operation::Read, key, QString());
}

QFuture<KeychainReply> Keychain::write(const QString &key, const QString &secret)
{
    return runOperation(KeychainBackend::Operation::Write, key, secret);
}

QFuture<KeychainReply> Keychain::remove(const QString &key)
{
    return runOperation(KeychainBackend::Operation::Remove, key, QString());
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

QString Keychain::unavailableReason()
{
    if (qEnvironmentVariableIntValue("KEEN_DISABLE_KEYCHAIN") == 1)
        return disabledText();
#ifdef KEEN_HAVE_QTKEYCHAIN
    return sessionBusUnreachable() ? noBusText() : QString();
#else
    return noSupportText();
#endif
}

bool Keychain::isGuiThread()
{
    QCoreApplication *app = QCoreApplication::instance();
    return app && QThread::currentThread() == app->thread() && app->inherits("QGuiApplication");
}

} // namespace keen
