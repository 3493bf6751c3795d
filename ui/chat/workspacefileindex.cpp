#include "chat/workspacefileindex.h"

#include "agent/workspaceinfo.h"
#include "base/whenfinished.h"

#include <QFuture>
#include <QtConcurrent/QtConcurrentRun>

namespace keen {

WorkspaceFileIndex::WorkspaceFileIndex(QObject *parent)
    : QObject(parent)
{}

WorkspaceFileIndex::~WorkspaceFileIndex() = default;

void WorkspaceFileIndex::rescan(const QString &workspace)
{
    m_workspace = workspace;
    const quint64 generation = ++m_generation;
    if (workspace.isEmpty()) {
        m_files.clear();
        Q_EMIT filesChanged();
        return;
    }
    whenFinished(QtConcurrent::run(&WorkspaceFileIndex::scan, workspace), this,
                 [this, generation](const QStringList &files) {
                     if (generation != m_generation)
                         return; // a newer scan is on its way
                     m_files = files;
                     Q_EMIT filesChanged();
                 });
}

QStringList WorkspaceFileIndex::scan(const QString &workspace)
{
    return WorkspaceInfo::listFiles(workspace, MaxFiles);
}

} // namespace keen

#include "moc_workspacefileindex.cpp"
