#pragma once

#include "base/result.h"
#include "session/sessionstore.h"

#include <QList>
#include <QPair>
#include <QString>

namespace keen {

// One session that matches a search, with the best matching passage.
struct SessionSearchHit
{
    SessionInfo session;
    QString snippet;                   // plain text of the matching passage
    QList<QPair<int, int>> highlights; // (start, length) of each matched term inside snippet
    quint64 seq = 0;                   // the event that matched, to open the session there
    QString source;                    // "user", "assistant", "tool_input", "tool_output", "compaction"

    // The snippet with every match wrapped in open/close, e.g. "**" for terminals and JSON.
    QString markedSnippet(const QString &open, const QString &close) const;
};

// What the last update() did, for tests and logs.
struct SessionIndexStats
{
    bool fullRebuild = false; // the database was missing, corrupt or of an older schema
    int sessionsScanned = 0;
    int sessionsAppended = 0; // read only their new lines
    int sessionsRebuilt = 0;  // shrank or changed in place: indexed again from the start
    int sessionsRemoved = 0;  // transcript gone
    qint64 linesRead = 0;     // transcript lines parsed in this update
};

// Full-text index over every session's searchable text (user text, assistant text, tool inputs and outputs,
// a manual compaction's status and visible summary; never an automatic compaction's private summary), kept in
// SQLite FTS5 at <sessions root>/../index/sessions.sqlite. It is only a cache: transcripts are the source of
// truth, so a missing, corrupt or outdated database is rebuilt from them, and a transcript that grew is read
// from where the index stopped.
//
// Every call opens its own connection, named after the thread and the call, so an index may be used from
// any worker thread (never from the GUI thread: this reads transcripts and runs SQL).
class SessionIndex
{
public:
    // 2: automatic compaction summaries are no longer indexed (an index of version 1 holds them).
    // 3: tool inputs and outputs are indexed as their values, not as JSON (version 2 shows JSON snippets).
    // 4: long texts are indexed as passages of at most 8,192 characters (one row per text made a snippet of
    //    a long pasted log take minutes).
    // 5: a read's output is indexed as the file's text, without the "NUMBER:HASH|" line prefixes.
    static constexpr int kSchemaVersion = 5;

    explicit SessionIndex(const QString &sessionsRoot = SessionStore::defaultRoot(),
                          const QString &databasePath = QString());

    static QString defaultDatabasePath(const QString &sessionsRoot);
    QString sessionsRoot() const { return m_root; }
    QString databasePath() const { return m_databasePath; }

    // Brings the index in line with the transcripts on disk: new lines of grown transcripts, sessions
    // that changed in place, new and removed sessions. search() calls it first.
    Result<SessionIndexStats> update();

    // Every indexed session, newest first (updatedAt, then lastSeq), after an update(): a fast listing
    // for the browser that reads only the transcripts that changed. Empty workspace lists all workspaces.
    Result<QList<SessionInfo>> sessions(const QString &workspace = QString());

    static constexpr int kSearchLimit = 200;

    // Sessions matching every term of query (each term a phrase prefix), newest first. An empty workspace
    // searches every workspace; otherwise only that workspace's namespace. At most limit sessions;
    // matchingSessions, when given, receives how many sessions match in all, so a caller can say what the
    // limit left out.
    Result<QList<SessionSearchHit>> search(const QString &query, const QString &workspace = QString(),
                                           int limit = kSearchLimit, int *matchingSessions = nullptr);

    // FTS5 query text for what a person typed: each whitespace-separated term as a quoted prefix phrase,
    // quotes doubled, so no user input is ever read as FTS5 syntax. Empty when there is no term.
    static QString ftsQuery(const QString &userInput);

private:
    // One pass of update(); busy is set when another process holds the index (not a reason to rebuild).
    Result<SessionIndexStats> updateOnce(bool *busy);

    QString m_root;
    QString m_databasePath;
};

} // namespace keen
