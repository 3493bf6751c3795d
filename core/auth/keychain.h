#pragma once

#include <QCoreApplication>
#include <QFuture>
#include <QString>

namespace keen {

struct KeychainReply
{
    enum class Status { Ok, NotFound, Unavailable, Failed };
    Status status = Status::Failed;
    QString secret; // read only
    QString error;  // the keychain's own text; never contains the secret

    bool ok() const { return status == Status::Ok; }
};

// The OS keychain through QtKeychain. Every job runs on one dedicated thread: QtKeychain queues jobs in a
// global object that lives on whichever thread used it first, so mixing threads (or a worker thread that
// ends) would stall it. Callers get a QFuture: hand it to whenFinished on the GUI thread, or wait()
// elsewhere.
class Keychain
{
    Q_DECLARE_TR_FUNCTIONS(Keychain)

public:
    static QString serviceName();

    static QFuture<KeychainReply> read(const QString &key);
    static QFuture<KeychainReply> write(const QString &key, const QString &secret);
    static QFuture<KeychainReply> remove(const QString &key);

    // Waits with a local QEventLoop. Refused on the GUI thread (a nested loop there re-enters the UI). Gives
    // up when the application object is destroyed, so a keychain that never answers cannot hold the exit.
    static KeychainReply wait(const QFuture<KeychainReply> &future, int timeoutMs = 30000);

    // Why no keychain can be used, without asking it (KEEN_DISABLE_KEYCHAIN, a build without keychain
    // support, no D-Bus session bus); empty when it may be. Cheap enough for the GUI thread.
    static QString unavailableReason();

    // The main thread of a QGuiApplication. A headless QCoreApplication's main thread may block.
    static bool isGuiThread();
};

} // namespace keen
