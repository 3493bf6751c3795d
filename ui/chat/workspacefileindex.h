#pragma once

#include <QObject>
#include <QStringList>

namespace keen {

// The workspace's file paths for `@` completion. Scanned in the background (QtConcurrent: `git ls-files`,
// else a directory walk that skips dot-folders; WorkspaceInfo::listFiles), never on the GUI thread.
class WorkspaceFileIndex final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceFileIndex)

public:
    // Enough for a large monorepo: at 20,000 a file deep in a repository of 50,000 never completed.
    static constexpr int MaxFiles = 250000;

    explicit WorkspaceFileIndex(QObject *parent = nullptr);
    ~WorkspaceFileIndex() override;

    void rescan(const QString &workspace);
    QStringList files() const { return m_files; }
    QString workspace() const { return m_workspace; }
    // Runs on a worker thread: relative paths, sorted.
    static QStringList scan(const QString &workspace);

Q_SIGNALS:
    void filesChanged();

private:
    QString m_workspace;
    QStringList m_files;
    quint64 m_generation = 0;
};

} // namespace keen
