#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace keen {

// The project allow-list <workspace>/.keen/permissions.json {"allow":["bash",...]} (reference 2.3): tools
// that run without asking in this folder. PermissionPolicy reads it on every request; /allow-permission and
// /reset-permission change it. A file that cannot be used is never overwritten: what a person wrote by hand
// stays as it is until they fix it.
class ProjectAllowList
{
    Q_DECLARE_TR_FUNCTIONS(ProjectAllowList)

public:
    static constexpr qint64 MaxBytes = 1024 * 1024;

    struct Loaded
    {
        QStringList names;    // empty when the file is missing or cannot be used
        QJsonObject document; // the whole file, other keys included, to write back
        QString problem;      // why the file cannot be used; empty when it is fine or missing
    };

    static QString path(const QString &workspace);
    static Loaded load(const QString &workspace);
    // Adds the names (allow) or removes them (reset), keeps every other key and the order of the rest, and
    // replaces the file atomically (the .keen folder is made when missing). Returns the list as written.
    static Result<QStringList> allow(const QString &workspace, const QStringList &names);
    static Result<QStringList> reset(const QString &workspace, const QStringList &names);

private:
    static Result<QStringList> change(const QString &workspace, const QStringList &add,
                                      const QStringList &remove);
};

} // namespace keen
