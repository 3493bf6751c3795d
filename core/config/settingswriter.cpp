#include "config/settingswriter.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QMutex>
#include <QMutexLocker>
#include <QPointer>
#include <QThreadPool>

#include <list>

namespace keen {

namespace {

struct QueuedChange
{
    quint64 id = 0;
    QString path;
    SettingsWriter::Change change;
};

// One writer for the process: one thread, so changes reach the file in the order they were made.
struct WriteQueue
{
    WriteQueue() { pool.setMaxThreadCount(1); }

    QMutex mutex;
    std::list<QueuedChange> queued; // oldest first; a change leaves once it is on disk (or failed)
    quint64 lastId = 0;
    quint64 lastDone = 0; // the last change that left the queue
    QThreadPool pool;
};

thread_local bool t_onWriterThread = false;

WriteQueue &writeQueue()
{
    static WriteQueue queue;
    return queue;
}

} // namespace

void SettingsWriter::modify(const Change &change, QObject *context, const Failed &failed, const QString &path)
{
    WriteQueue &queue = writeQueue();
    quint64 id = 0;
    {
        const QMutexLocker locker(&queue.mutex);
        id = ++queue.lastId;
        queue.queued.push_back({id, path, change});
    }
    QPointer<QObject> guard(context);
    queue.pool.start([&queue, id, path, change, guard, failed] {
        t_onWriterThread = true;
        // Read, change and write the file as it is now (changes queued after this one are not applied yet),
        // and only then leave the queue: a read in between applies this change to the old file itself.
        const Result<Settings> saved = Settings::modify(change, path);
        {
            const QMutexLocker locker(&queue.mutex);
            queue.queued.remove_if([id](const QueuedChange &queued) { return queued.id == id; });
            queue.lastDone = id;
        }
        if (saved || !failed)
            return;
        // Told on the application's thread, where context lives (and may be deleted meanwhile).
        if (QCoreApplication *application = QCoreApplication::instance())
            QMetaObject::invokeMethod(
                application,
                [guard, failed, error = saved.error()] {
                    if (guard)
                        failed(error);
                },
                Qt::QueuedConnection);
    });
}

LoadedSettings SettingsWriter::readWithQueued(const QString &path,
                                              const std::function<LoadedSettings()> &read)
{
    WriteQueue &queue = writeQueue();
    for (;;) {
        // The changes still queued before the file is read: the file then holds every change before them
        // and perhaps some of them, which applied again in order give the same settings. When a change
        // leaves the queue during the read, the file may hold one queued after these: read it again.
        std::list<Change> changes;
        quint64 doneBefore = 0;
        {
            const QMutexLocker locker(&queue.mutex);
            doneBefore = queue.lastDone;
            for (const QueuedChange &queued : queue.queued) {
                if (queued.path == path)
                    changes.push_back(queued.change);
            }
        }
        LoadedSettings loaded = read();
        {
            const QMutexLocker locker(&queue.mutex);
            if (queue.lastDone != doneBefore)
                continue;
        }
        if (loaded.problem.isEmpty()) {
            for (const Change &change : changes)
                change(loaded.settings);
        }
        return loaded;
    }
}

void SettingsWriter::waitForWrites()
{
    if (!t_onWriterThread)
        writeQueue().pool.waitForDone();
}

} // namespace keen
