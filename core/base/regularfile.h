#pragma once

#include "base/result.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

namespace keen {

// Reads files the app did not write itself in this run (transcripts, settings.json, keys, memory files,
// titles) without trusting what is at the path: only a regular file is read (a FIFO would block forever,
// /dev/zero would never end), it is opened without blocking and checked on the open descriptor (no swap
// between check and read), and it must fit maxBytes. Appends (logs such as usage.jsonl) are held to the same
// rule. Every failure names the file and the reason.
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
    // Only the first headBytes (or all, when shorter) of a regular file of any size: a file whose start is
    // all that is used (a memory file cut at its cap). Bytes past headBytes are never read.
    static Read readHead(const QString &path, qint64 headBytes);
    // The reason read() would fail, without reading: empty for a readable regular file within maxBytes.
    static QString problem(const QString &path, qint64 maxBytes);
    // Appends bytes in one write to the regular file at path, created with mode 0600 when missing. Anything
    // else in its place (a FIFO would block the writer until a reader came) is refused, naming the file.
    static Result<void> append(const QString &path, const QByteArray &bytes);
};

} // namespace keen
