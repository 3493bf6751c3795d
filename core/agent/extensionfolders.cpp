#include "agent/extensionfolders.h"

#include <QDir>
#include <QFileInfo>

namespace keen {

QStringList ExtensionFolders::roots(const QString &kind, const QString &workspace, const QString &dataDir,
                                    const QString &home)
{
    QStringList roots;
    const auto add = [&roots](const QString &path) {
        const QString clean = QDir::cleanPath(path);
        if (!path.isEmpty() && !roots.contains(clean))
            roots.append(clean);
    };
    if (!workspace.isEmpty()) {
        const QDir project(QFileInfo(workspace).absoluteFilePath());
        for (const char *folder : {".agents/", ".keen/", ".claude/"})
            add(project.filePath(QLatin1String(folder) + kind));
    }
    if (!home.isEmpty())
        add(QDir(home).filePath(QStringLiteral(".agents/") + kind));
    if (!dataDir.isEmpty())
        add(QDir(dataDir).filePath(kind));
    if (!home.isEmpty()) {
        add(QDir(home).filePath(QStringLiteral(".keen/") + kind));
        add(QDir(home).filePath(QStringLiteral(".claude/") + kind));
    }
    return roots;
}

} // namespace keen
