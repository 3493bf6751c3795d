#pragma once

#include "base/result.h"
#include "session/sessionevent.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QList>
#include <QString>

namespace keen {

// An open session: where it lives and the seq the next event gets.
struct Session
{
    QString id;
    QString workspace;      // absolute workspace path (session_started.cwd)
    QString directory;      // <root>/<namespace>/<id>
    QString transcriptPath; // <directory>/transcript_events.jsonl
    quint64 nextSeq = 1;

    bool isValid() const { return !id.isEmpty() && !transcriptPath.isEmpty(); }
};

// What List() reports about a session, newest first.
struct SessionInfo
{
    QString id;
    QString path; // transcript path
    QString directory;
    QString workspace;
    QString title; // the rename kept beside the transcript, else the first user message
    QDateTime createdAt;
    QDateTime updatedAt;
    quint64 lastSeq = 0;
    QString lastUserMessage; // preview(): whitespace collapsed, at most PreviewLength characters
    // Not empty when the transcript cannot be read ("Cannot read <path>: <reason>"): the session is still
    // listed, under its folder's name, so it does not silently vanish.
    QString problem;

    // A prompt as a list shows it: whitespace collapsed, cut at length characters with "…" (never inside a
    // surrogate pair). A pasted log of megabytes, kept whole, was measured and elided on every paint of
    // the session list, seconds each time.
    static constexpr qsizetype PreviewLength = 200;
    static QString preview(const QString &text, qsizetype length = PreviewLength);
    // A session without a title of its own is named by this much of its first prompt.
    static constexpr qsizetype TitleLength = 80;
    // The latest prompt reads as the title: the session has one prompt (or asked the same again), and a
    // list showing both would say the same thing twice.
    bool previewRepeatsTitle() const;
};

struct LoadedSession
{
    Session session;
    QList<SessionEvent> events;
    int skippedLines = 0;           // malformed or torn lines that were skipped
    QStringList problems;           // one per skipped line: "line N: why"
    QString problemSummary() const; // "<path>: N damaged line(s) skipped (line 3: ...; ...)", empty if none
};

// The durable, append-only session store (reference 5.1). Root: $KEEN_HOME/sessions when KEEN_HOME is set,
// else <AppDataLocation>/sessions. Folders 0700, transcripts 0600. Not thread-safe per session: one writer.
class SessionStore
{
    Q_DECLARE_TR_FUNCTIONS(SessionStore)

public:
    explicit SessionStore(const QString &root = defaultRoot());
    virtual ~SessionStore() = default;
    SessionStore(const SessionStore &) = default;
    SessionStore &operator=(const SessionStore &) = default;

    static QString defaultRoot();
    // The files of a session's folder: its transcript, and the title a person gave it.
    static QString transcriptFileName();
    static QString titleFileName();
    // sanitize(absWorkspace) + "-" + first 10 hex digits of sha1(absWorkspace).
    static QString namespaceFor(const QString &absoluteWorkspace);
    static QString newSessionId(); // random UUIDv4, 8-4-4-4-12 lower-case hex

    QString root() const { return m_root; }

    // Creates the folder and writes session_started as seq 1: plan() then createFiles().
    Result<Session> create(const QString &workspace);
    // A new session's id and paths, without touching the disk (the window names a session at once and
    // creates it on the writer's thread).
    Result<Session> plan(const QString &workspace) const;
    // Creates a planned session's folder and transcript with session_started as seq 1 and the following
    // events after it, under one fsync (a new session's first words reach the disk with it); returns their
    // seqs, session_started's first. On failure nothing of the session remains.
    // The three writes are virtual so tests can watch which thread writes and hold a write.
    virtual Result<QList<quint64>> createFiles(Session &session, const QList<SessionEvent> &following = {});
    // Writes one event with the next seq, flushed to disk. Returns the seq.
    Result<quint64> append(Session &session, const SessionEvent &event);
    // Writes events with consecutive seqs in one write and one fsync (the writer's group commit: appends that
    // queued up while the disk was busy). Unlike appendBatch not atomic across a crash: the first of them
    // can be on disk without the rest, as with appends one by one. On an error none of them is there.
    virtual Result<QList<quint64>> appendGroup(Session &session, const QList<SessionEvent> &events);
    // Writes events atomically with consecutive seqs (temp file in the session folder, fsync, rename,
    // fsync the folder). nextSeq advances only on success; on failure nothing is visible and no temp remains.
    virtual Result<QList<quint64>> appendBatch(Session &session, const QList<SessionEvent> &events);

    // The most this app reads of one transcript (a session of 10,000 events is about 30 MB).
    static constexpr qint64 MaxTranscriptBytes = qint64(1) << 30;

    // Loads by transcript path or by session id (searched in every namespace). The id is always the session's
    // folder name, the one list() reports and find() takes, whatever session_started says. Fails with the
    // file and the reason when the transcript is not a readable regular file within MaxTranscriptBytes.
    Result<LoadedSession> load(const QString &idOrPath) const;
    // The last events only (at least minEvents of them, or all there are), read from the end of the
    // transcript back as far as needed: what a window shows first of a long session. The events are the same
    // as the last ones load() returns; problems are left to load().
    Result<LoadedSession> loadTail(const QString &idOrPath, int minEvents) const;
    // Newest first (updatedAt, then lastSeq). Empty workspace lists every namespace. A session whose
    // transcript cannot be read is listed too, with SessionInfo::problem set.
    QList<SessionInfo> list(const QString &workspace = QString()) const;
    std::optional<SessionInfo> find(const QString &sessionId) const;

    // Rename is kept in a file beside the transcript (title.txt), so the transcript schema is untouched.
    Result<void> rename(const QString &sessionId, const QString &title);
    Result<void> remove(const QString &sessionId);

private:
    Result<QString> transcriptOf(const QString &idOrPath) const;
    // appendGroup() without the hook, for createFiles().
    static Result<QList<quint64>> appendLines(Session &session, const QList<SessionEvent> &events);
    // Events of the transcript's lines (only the last lastEvents valid ones when lastEvents > 0).
    static LoadedSession parseTranscript(const QString &transcriptPath, const QByteArray &bytes,
                                         int lastEvents);

    QString m_root;
};

// Projection (reference 5.3): user messages, assistant turns with text or tool activity, and
// compaction_applied replacing the whole list with an independent copy of its messages; Keen's
// pinned_context adds its user message (issue 16).
MessageList buildConversation(const QList<SessionEvent> &events);

} // namespace keen
