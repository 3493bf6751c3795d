#pragma once

#include "base/result.h"
#include "conversation/tokenusage.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QList>
#include <QString>

#include <functional>

namespace keen {

// Every request's token usage, across sessions, windows and headless runs (reference 8.3: `usage/usage.jsonl`
// in the data folder, one JSON object a line), for /usage: what the person spent, per model, over the last
// 7 and 30 days and in all.
class UsageLedger
{
    Q_DECLARE_TR_FUNCTIONS(UsageLedger)

public:
    // Read from its end: a ledger of years stays quick to sum (about 150 bytes a request).
    static constexpr qint64 MaxReadBytes = 32 * 1024 * 1024;

    struct Entry
    {
        QDateTime time;
        QString provider;
        QString model;
        QString kind; // "turn", "compaction" or "aside"
        TokenUsage usage;
    };

    struct Totals
    {
        qint64 requests = 0;
        qint64 input = 0;
        qint64 output = 0;
        qint64 cached = 0;
        void add(const TokenUsage &usage);
    };

    struct Row
    {
        QString model; // "provider/model"
        Totals week, month, all;
    };

    struct Summary
    {
        QList<Row> rows; // most used (all time, input + output) first
        qint64 damagedLines = 0;
        QString error; // the ledger could not be read
    };

    static QString defaultPath(const QString &dataDir);

    // Appends entry on the ledger's own thread, in the order recorded: never on the caller's. The first time
    // a path cannot be written in this process the reason goes to the log (stderr headless) and, when given,
    // to failed, called on the ledger's thread (the window says it in the chat).
    static void record(const QString &path, const Entry &entry,
                       const std::function<void(const QString &why)> &failed = {});
    // Waits until every recorded entry is on disk (a headless run before it exits, tests).
    static void flush();
    // The blocking append record() runs.
    static Result<void> append(const QString &path, const Entry &entry);

    // Reads the ledger (its newest MaxReadBytes) and sums it per provider/model. Reads the disk: off the GUI
    // thread. A missing ledger is an empty summary; damaged lines are skipped and counted.
    static Summary summarize(const QString &path, const QDateTime &now);
    // The summary as a Markdown table for the chat.
    static QString markdown(const Summary &summary);
};

} // namespace keen
