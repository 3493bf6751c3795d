#include "mcp/mcpoauthstore.h"

#include "auth/keychain.h"
#include "base/privatefolder.h"
#include "base/regularfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QSaveFile>

namespace keen {

namespace {

QMutex &storeMutex()
{
    static QMutex mutex;
    return mutex;
}

// The stored entries; a damaged file counts as empty (a sign-in replaces it) but is named in the log.
QJsonObject readEntries(const QString &path)
{
    if (!QFileInfo::exists(path))
        return {};
    const RegularFile::Read read = RegularFile::read(path, McpOAuthStore::MaxFileBytes);
    if (!read.ok()) {
        qWarning("%s", qPrintable(read.error));
        return {};
    }
    const QJsonDocument document = QJsonDocument::fromJson(read.bytes);
    if (!document.isObject())
        qWarning("%s is not a JSON object; MCP sign-ins start afresh", qPrintable(path));
    return document.object();
}

Result<void> writeEntries(const QString &path, const QJsonObject &entries)
{
    if (Result<void> folder = PrivateFolder::ensure(QFileInfo(path).absolutePath()); !folder)
        return folder;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(McpOAuthStore::tr("cannot write %1: %2").arg(path, file.errorString()));
    // Owner-only before the tokens are in it; the rename keeps the mode.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(entries).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return Result<void>::failure(McpOAuthStore::tr("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

// The keychain when one may answer and this thread may wait for it.
bool keychainUsable()
{
    return Keychain::unavailableReason().isEmpty() && !Keychain::isGuiThread();
}

Result<void> removeFromFile(const QString &dataDir, const QString &server)
{
    const QMutexLocker lock(&storeMutex());
    const QString file = McpOAuthStore::path(dataDir);
    QJsonObject entries = readEntries(file);
    if (!entries.contains(server))
        return {};
    entries.remove(server);
    return writeEntries(file, entries);
}

} // namespace

QString McpOAuthStore::path(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("mcp/oauth.json"));
}

QString McpOAuthStore::keychainKey(const QString &server)
{
    return QStringLiteral("mcp-oauth:") + server;
}

std::optional<McpOAuthCredentials> McpOAuthStore::load(const QString &dataDir, const QString &server)
{
    if (keychainUsable()) {
        const KeychainReply reply = Keychain::wait(Keychain::read(keychainKey(server)));
        if (reply.ok())
            return McpOAuthCredentials::fromJson(QJsonDocument::fromJson(reply.secret.toUtf8()).object());
    }
    // No keychain, or not in it: a sign-in kept in the file.
    const QMutexLocker lock(&storeMutex());
    return McpOAuthCredentials::fromJson(readEntries(path(dataDir)).value(server).toObject());
}

Result<McpOAuthStore::Place> McpOAuthStore::save(const QString &dataDir, const QString &server,
                                                 const McpOAuthCredentials &credentials)
{
    const QJsonObject json = credentials.toJson();
    if (keychainUsable()) {
        const KeychainReply reply = Keychain::wait(Keychain::write(
            keychainKey(server), QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact))));
        if (reply.ok()) {
            (void)removeFromFile(dataDir, server); // no plain copy once the keychain holds it
            return Place::Keychain;
        }
        // Whatever kept the keychain from answering, the sign-in is not lost: it goes to the private file.
        qWarning("MCP sign-in of %s kept in %s: the keychain refused it (%s)", qPrintable(server),
                 qPrintable(path(dataDir)), qPrintable(reply.error));
    }
    const QMutexLocker lock(&storeMutex());
    QJsonObject entries = readEntries(path(dataDir));
    entries.insert(server, json);
    if (Result<void> written = writeEntries(path(dataDir), entries); !written)
        return Result<Place>::failure(written.error());
    return Place::File;
}

Result<void> McpOAuthStore::remove(const QString &dataDir, const QString &server)
{
    QString error;
    if (keychainUsable()) {
        const KeychainReply reply = Keychain::wait(Keychain::remove(keychainKey(server)));
        if (!reply.ok() && reply.status != KeychainReply::Status::NotFound &&
            reply.status != KeychainReply::Status::Unavailable)
            error = reply.error;
    }
    if (Result<void> removed = removeFromFile(dataDir, server); !removed && error.isEmpty())
        error = removed.error();
    if (!error.isEmpty())
        return Result<void>::failure(error);
    return {};
}

} // namespace keen
