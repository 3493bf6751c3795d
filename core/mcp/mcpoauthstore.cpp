#include "mcp/mcpoauthstore.h"

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

} // namespace

QString McpOAuthStore::path(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("mcp/oauth.json"));
}

std::optional<McpOAuthCredentials> McpOAuthStore::load(const QString &dataDir, const QString &server)
{
    const QMutexLocker lock(&storeMutex());
    return McpOAuthCredentials::fromJson(readEntries(path(dataDir)).value(server).toObject());
}

Result<void> McpOAuthStore::save(const QString &dataDir, const QString &server,
                                 const McpOAuthCredentials &credentials)
{
    const QMutexLocker lock(&storeMutex());
    QJsonObject entries = readEntries(path(dataDir));
    entries.insert(server, credentials.toJson());
    return writeEntries(path(dataDir), entries);
}

Result<void> McpOAuthStore::remove(const QString &dataDir, const QString &server)
{
    const QMutexLocker lock(&storeMutex());
    QJsonObject entries = readEntries(path(dataDir));
    if (!entries.contains(server))
        return {};
    entries.remove(server);
    return writeEntries(path(dataDir), entries);
}

} // namespace keen
