#include "tools/projectallowlist.h"

#include "base/regularfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace keen {

QString ProjectAllowList::path(const QString &workspace)
{
    return QDir(workspace).filePath(QStringLiteral(".keen/permissions.json"));
}

ProjectAllowList::Loaded ProjectAllowList::load(const QString &workspace)
{
    Loaded loaded;
    const RegularFile::Read read = RegularFile::read(path(workspace), MaxBytes);
    if (read.problem == RegularFile::Problem::Missing)
        return loaded; // no allow-list: nothing is allowed in advance
    if (!read.ok()) {
        loaded.problem = read.reason;
        return loaded;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(read.bytes, &parseError);
    const QJsonValue allow = document.object().value(QLatin1String("allow"));
    if (parseError.error != QJsonParseError::NoError) {
        loaded.problem =
            tr("it is not valid JSON: %1 (at byte %2)").arg(parseError.errorString()).arg(parseError.offset);
        return loaded;
    }
    if (!document.isObject() || !allow.isArray()) {
        loaded.problem = tr("it must hold {\"allow\": [tool names]}");
        return loaded;
    }
    for (const QJsonValue &value : allow.toArray()) {
        if (!value.isString()) {
            // A hand-edited list that is half wrong is not trusted at all.
            loaded.problem = tr("\"allow\" must list tool names (strings)");
            loaded.names.clear();
            return loaded;
        }
        loaded.names.append(value.toString());
    }
    loaded.document = document.object();
    return loaded;
}

Result<QStringList> ProjectAllowList::allow(const QString &workspace, const QStringList &names)
{
    return change(workspace, names, {});
}

Result<QStringList> ProjectAllowList::reset(const QString &workspace, const QStringList &names)
{
    return change(workspace, {}, names);
}

Result<QStringList> ProjectAllowList::change(const QString &workspace, const QStringList &add,
                                             const QStringList &remove)
{
    const QString file = path(workspace);
    Loaded loaded = load(workspace);
    if (!loaded.problem.isEmpty())
        return Result<QStringList>::failure(
            tr("%1 was not changed: %2. Fix or remove it, then try again.").arg(file, loaded.problem));
    QStringList names = loaded.names;
    for (const QString &name : add) {
        if (!names.contains(name))
            names.append(name);
    }
    for (const QString &name : remove)
        names.removeAll(name);
    if (names == loaded.names)
        return names; // nothing to write: a reset on a missing file makes none

    QJsonObject document = loaded.document;
    document.insert(QStringLiteral("allow"), QJsonArray::fromStringList(names));
    if (!QDir().mkpath(QFileInfo(file).absolutePath()))
        return Result<QStringList>::failure(tr("Cannot create the folder of %1").arg(file));
    QSaveFile out(file); // a temporary file renamed over the old one: a crash leaves one or the other
    if (!out.open(QIODevice::WriteOnly))
        return Result<QStringList>::failure(tr("Cannot write %1: %2").arg(file, out.errorString()));
    out.write(QJsonDocument(document).toJson(QJsonDocument::Indented));
    if (!out.commit())
        return Result<QStringList>::failure(tr("Cannot write %1: %2").arg(file, out.errorString()));
    return names;
}

} // namespace keen
