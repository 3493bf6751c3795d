#pragma once

#include "session/sessionstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace keen {

// /cleanup (reference 6.1): what the data folder keeps that only grows. The full output of long commands and
// other tool artifacts older than ArtifactDays, logs older than LogDays, and sessions nobody touched for
// SessionDays. Planned first, so the person sees what goes and confirms, then applied; both read and delete
// the disk: call them off the GUI thread.
class DataCleanup
{
    Q_DECLARE_TR_FUNCTIONS(DataCleanup)

public:
    static constexpr int ArtifactDays = 7;
    static constexpr int LogDays = 14;
    static constexpr int SessionDays = 14;

    struct Plan
    {
        QStringList files; // artifacts and logs, absolute paths
        qint64 fileBytes = 0;
        QList<SessionInfo> sessions;
        qint64 sessionBytes = 0;

        bool isEmpty() const { return files.isEmpty() && sessions.isEmpty(); }
    };

    struct Outcome
    {
        int filesRemoved = 0;
        int sessionsRemoved = 0;
        qint64 bytesFreed = 0;
        QStringList problems; // what could not be removed, and why
    };

    // Never plans the session open in this window (openSessionId), nor a session whose transcript cannot be
    // read (it may be a disk problem to look at, not old data).
    static Plan plan(const QString &dataDir, const SessionStore &store, const QDateTime &now,
                     const QString &openSessionId);
    // Skips a session another window has open (its transcript's lock is held).
    static Outcome apply(const Plan &plan, SessionStore &store);

    // What goes, for the confirmation: counts, sizes and the titles of the first sessions.
    static QString describe(const Plan &plan);
    // What went: "Removed 12 files and 3 sessions (4.2 MB freed)." and the problems.
    static QString report(const Outcome &outcome);
};

} // namespace keen
