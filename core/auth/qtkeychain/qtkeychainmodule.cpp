// The keychain module: the only code that uses QtKeychain. Built as libkeen-keychain.so and opened by
// Keychain on the first request (see auth/keychainbackend.h for why it is not linked).
#include "auth/keychainbackend.h"

#include <qt6keychain/keychain.h>

using keen::KeychainBackend;
using keen::KeychainReply;

extern "C" Q_DECL_EXPORT void keen_keychain_start(KeychainBackend::Operation operation,
                                                  const QString &service, const QString &key,
                                                  const QString &secret, KeychainBackend::Done done,
                                                  void *context)
{
    QKeychain::Job *job = nullptr;
    switch (operation) {
    case KeychainBackend::Operation::Read:
        job = new QKeychain::ReadPasswordJob(service);
        break;
    case KeychainBackend::Operation::Write: {
        auto *write = new QKeychain::WritePasswordJob(service);
        write->setTextData(secret);
        job = write;
        break;
    }
    case KeychainBackend::Operation::Remove:
        job = new QKeychain::DeletePasswordJob(service);
        break;
    }
    job->setAutoDelete(true);
    job->setInsecureFallback(false); // our own fallback asks the user first
    job->setKey(key);
    QObject::connect(
        job, &QKeychain::Job::finished, job, [operation, done, context](QKeychain::Job *finished) {
            KeychainReply reply;
            switch (finished->error()) {
            case QKeychain::NoError:
                reply.status = KeychainReply::Status::Ok;
                if (operation == KeychainBackend::Operation::Read)
                    reply.secret = static_cast<QKeychain::ReadPasswordJob *>(finished)->textData();
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
                reply.error = finished->errorString();
            done(context, reply);
        });
    job->start();
}

// The module's entry point has exactly the type Keychain looks it up as.
[[maybe_unused]] static constexpr KeychainBackend::Start checkedSignature = &keen_keychain_start;
