#include "tools/textartifact.h"

#include "base/privatefolder.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace keen {

QString TextArtifact::head(const QByteArray &utf8, qsizetype maxBytes)
{
    if (utf8.size() <= maxBytes)
        return QString::fromUtf8(utf8);
    qsizetype cut = maxBytes;
    while (cut > 0 && (static_cast<unsigned char>(utf8.at(cut)) & 0xC0) == 0x80)
        --cut; // never inside a character
    const qsizetype line = utf8.lastIndexOf('\n', cut - 1);
    if (line > cut / 2)
        cut = line;
    QString text = QString::fromUtf8(utf8.left(cut));
    while (text.endsWith(QLatin1Char('\n')))
        text.chop(1);
    return text;
}

QString TextArtifact::path(const QString &dataDir, const QString &folder, const QString &prefix,
                           const QString &key, const QString &content)
{
    const QByteArray hash =
        QCryptographicHash::hash((key + QLatin1Char('\n') + content).toUtf8(), QCryptographicHash::Sha256)
            .toHex()
            .left(16);
    const QString base = dataDir.isEmpty() ? QDir::tempPath() : dataDir;
    return QDir(base).filePath(QStringLiteral("%1/%2-%3.txt").arg(folder, prefix, QString::fromLatin1(hash)));
}

Result<void> TextArtifact::save(const QString &path, const QByteArray &utf8)
{
    if (const Result<void> folder = PrivateFolder::ensure(QFileInfo(path).path()); !folder)
        return folder;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(file.errorString());
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(utf8);
    if (!file.commit())
        return Result<void>::failure(file.errorString());
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return {};
}

} // namespace keen
