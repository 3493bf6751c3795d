#pragma once

#include "base/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

namespace keen {

// Reads files the app did not write itself in this run (transcripts, settings.json, permissions.json, titles)
// without trusting what is at the path: only a regular file is read (a FIFO would block forever, /dev/zero
// would never end), it is opened without blocking and checked on the open descriptor (no swap between check
// and read), and it must fit maxBytes. Every failure names the file and the reason.
class RegularFile
{
    Q_DECLARE_TR_FUNCTIONS(RegularFile)

public:
    enum class Problem { None, Missing, NotRegular, TooLarge, Unreadable };

    struct Read
    {
        QByteArray bytes;
        Problem problem = Problem::None;
        QString reason;         // why it was not read ("Permission denied", "a folder is in its place", ...)
        QString error;          // "Cannot read <path>: <reason>", empty when read
        qint64 offset = 0;      // where bytes start in the file (readTail)
        qint64 modifiedMs = -1; // the file's modification time (ms since the epoch), from the open descriptor

        bool ok() const { return problem == Problem::None; }
    };

    static Read read(const QString &path, qint64 maxBytes);
    // Only the last tailBytes (or all, when shorter), with the same checks: the end of a long transcript,
    // read first so a window can show it before the rest.
    static Read readTail(const QString &path, qint64 maxBytes, qint64 tailBytes);
    // The reason read() would fail, without reading: empty for a readable regular file within maxBytes.
    static QString problem(const QString &path, qint64 maxBytes);
};

} // namespace keen
