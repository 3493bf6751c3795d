#pragma once

// A transcript under fuzzing is loaded the way the app loads one: from a file, by SessionStore::load. The
// file lives in one private temporary folder for the whole run.

#include "fuzzsupport.h"
#include "session/sessionstore.h"

#include <QFile>
#include <QTemporaryDir>

#include <optional>

namespace keen::fuzz {

inline std::optional<LoadedSession> loadTranscript(const uint8_t *data, size_t size)
{
    static QTemporaryDir folder;
    static const QString path = folder.filePath(QStringLiteral("transcript_events.jsonl"));
    static const SessionStore store(folder.path());
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            __builtin_trap();
        file.write(reinterpret_cast<const char *>(data), qsizetype(size));
    }
    Result<LoadedSession> loaded = store.load(path);
    if (!loaded) {
        if (loaded.error().isEmpty())
            __builtin_trap();
        return std::nullopt;
    }
    return std::move(*loaded);
}

} // namespace keen::fuzz
