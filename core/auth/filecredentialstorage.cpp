#include "auth/filecredentialstorage.h"

#include "base/appfolders.h"
#include "base/regularfile.h"

#include <QCoreApplication>
#include <QDebug>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

namespace keen {

namespace {

constexpr QFileDevice::Permissions OwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr qint64 MaxFileBytes = 1024 * 1024;

} // namespace

FileCredentialStorage::FileCredentialStorage(QString path, QString providerKey)
    : m_path(std::move(path))
    , m_key(std::move(providerKey))
{}

QString FileCredentialStorage::defaultPath()
{
    return QDir(AppFolders::config()).filePath(QStringLiteral("auth.json"));
}

QJsonObject FileCredentialStorage::readAll(QString *error) const
{
    // Sign-in tokens are a few KiB; a FIFO or device in its place is named, never waited on.
    const RegularFile::Read read = RegularFile::read(m_path, MaxFileBytes);
    if (read.problem == RegularFile::Problem::Missing)
        return {};
    if (!read.ok()) {
        if (error)
            *error = FileCredentialStorage::tr("cannot read %1: %2").arg(m_path, read.reason);
        return {};
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(read.bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        if (error)
            *error = FileCredentialStorage::tr("%1 is not valid JSON").arg(m_path);
        return {};
    }
    return document.object();
}

Result<void> FileCredentialStorage::writeAll(const QJsonObject &entries)
{
    const QFileInfo info(m_path);
    if (!QDir().mkpath(info.absolutePath()))
        return Result<void>::failure(
            FileCredentialStorage::tr("cannot create the folder %1").arg(info.absolutePath()));
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(
            FileCredentialStorage::tr("cannot write %1: %2").arg(m_path, file.errorString()));
    // Restrict the temporary file before the secret is in it; the rename keeps the mode.
    file.setPermissions(OwnerOnly);
    file.write(QJsonDocument(entries).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return Result<void>::failure(
            FileCredentialStorage::tr("cannot write %1: %2").arg(m_path, file.errorString()));
    QFile::setPermissions(m_path, OwnerOnly);
    return {};
}

std::optional<CodexCredentials> FileCredentialStorage::load() const
{
    std::lock_guard lock(m_mutex);
    QString error;
    const QJsonObject entries = readAll(&error);
    // Not signed in, and why: the sign-in's own message would not name the file.
    if (!error.isEmpty())
        qWarning().noquote()
            << FileCredentialStorage::tr("Warning: the ChatGPT sign-in is not used: %1").arg(error);
    return CodexCredentials::fromJson(entries.value(m_key).toObject());
}

Result<void> FileCredentialStorage::save(const CodexCredentials &credentials)
{
    std::lock_guard lock(m_mutex);
    QString error;
    QJsonObject entries = readAll(&error);
    if (!error.isEmpty())
        return Result<void>::failure(error); // never overwrite a file we could not understand
    entries.insert(m_key, credentials.toJson());
    return writeAll(entries);
}

Result<void> FileCredentialStorage::remove()
{
    std::lock_guard lock(m_mutex);
    QString error;
    QJsonObject entries = readAll(&error);
    if (!error.isEmpty())
        return Result<void>::failure(error);
    if (!entries.contains(m_key))
        return {};
    entries.remove(m_key);
    return writeAll(entries);
}

} // namespace keen
