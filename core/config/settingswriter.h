#pragma once

#include "config/settings.h"

#include <QObject>
#include <QString>

#include <functional>

namespace keen {

// Writes the window's changes of settings.json on a thread of its own, in the order they were made: a save
// syncs the file to disk (QSaveFile), which a busy disk can stall for a good part of a second, and the GUI
// thread never waits for a disk (issue 11). Every read of the file in this process (Settings::load and
// loadOrDefaults, on any thread) sees the changes still queued: they are applied to what the file holds, so a
// value set a moment ago is read back at once. That applies a change that was just written a second time,
// so a change sets values (a key, a folder put first) and gives the same settings applied twice.
class SettingsWriter
{
public:
    using Change = std::function<void(Settings &)>;
    using Failed = std::function<void(const QString &error)>;

    // Queues change for the file at path. When the file cannot be read or written (a broken file is never
    // replaced), failed is called with Settings::modify's error on the application's thread (where context
    // lives), unless context is gone by then.
    static void modify(const Change &change, QObject *context, const Failed &failed,
                       const QString &path = Settings::defaultPath());
    // The file at path as read(), with the changes still queued for it applied, oldest first (none when the
    // file has a problem: they will fail to be written).
    static LoadedSettings readWithQueued(const QString &path, const std::function<LoadedSettings()> &read);
    // Blocks until every queued change is written: at exit, before a save made directly (Settings::save,
    // so it comes after them), and for a test that reads the bytes of the file. Nothing on the writer's
    // thread.
    static void waitForWrites();
};

} // namespace keen
