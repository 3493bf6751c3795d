#include "session/sessionstore.h"

#include "base/appfolders.h"
#include "base/logcategories.h"
#include "base/privatefolder.h"
#include "base/regularfile.h"
#include "session/compactionundo.h"
#include "session/sessionwriter.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>
#include <QSaveFile>
#include <QThread>
#include <QUuid>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <string_view>
#include <vector>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace keen {

namespace {

const QString kTranscriptName = SessionStore::transcriptFileName();
const QString kTitleName = SessionStore::titleFileName();
constexpr QFileDevice::Permissions kPrivateFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

QString errnoText(int error)
{
    return QString::fromLocal8Bit(::strerror(error));
}

QByteArray encodedPath(const QString &path)
{
    return QFile::encodeName(path);
}

// A session folder is never briefly readable by others (PrivateFolder).
Result<void> ensureDirectory(const QString &path)
{
    Result<void> made = PrivateFolder::ensure(path);
    if (!made)
        return Result<void>::failure(
            SessionStore::tr("Cannot create the session folder %1").arg(made.error()));
    return {};
}

// Makes a rename durable: the directory entry itself must reach the disk.
bool fsyncDirectory(const QString &path)
{
    const int fd = ::open(encodedPath(path).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

bool writeAll(int fd, const QByteArray &data)
{
    qsizetype written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + written, size_t(data.size() - written));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        written += n;
    }
    return true;
}

QByteArray eventLine(const SessionEvent &event)
{
    return QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact) + '\n';
}

// Appends the events' lines to bytes with consecutive seqs from firstSeq; returns the seqs.
QList<quint64> appendLinesOf(const QList<SessionEvent> &events, quint64 firstSeq, QByteArray &bytes)
{
    QList<quint64> seqs;
    seqs.reserve(events.size());
    quint64 seq = firstSeq;
    for (const SessionEvent &event : events) {
        SessionEvent stamped = event;
        stamped.seq = seq;
        bytes.append(eventLine(stamped));
        seqs.append(seq++);
    }
    return seqs;
}

// A session id names a folder, so it must not be able to climb out of the store.
bool isPlausibleId(const QString &id)
{
    return !id.isEmpty() && id != QLatin1String(".") && id != QLatin1String("..") &&
           !id.contains(QLatin1Char('/')) && !id.contains(QLatin1Char('\\'));
}

std::optional<SessionEvent> parseLine(const char *data, qsizetype size, QString *problem = nullptr)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromRawData(data, size), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        if (problem)
            *problem = error.error != QJsonParseError::NoError
                           ? SessionStore::tr("not JSON (%1)").arg(error.errorString())
                           : SessionStore::tr("not a JSON object");
        return std::nullopt;
    }
    return SessionEvent::fromJson(document.object(), problem);
}

struct LineSpan
{
    qsizetype start;
    qsizetype size;
    qsizetype number; // 1-based, counting blank lines too
};

// Non-blank lines, without their line ending. LF, CRLF and CR alone (an old Mac editor's) all end a line:
// JSON never holds a raw CR or LF inside a value, so none of them can be part of an event.
QList<LineSpan> splitLines(const QByteArray &bytes)
{
    QList<LineSpan> lines;
    const char *data = bytes.constData();
    const qsizetype total = bytes.size();
    qsizetype start = 0;
    qsizetype number = 0;
    while (start < total) {
        qsizetype end = start;
        while (end < total && data[end] != '\n' && data[end] != '\r')
            ++end;
        ++number;
        bool blank = true;
        for (qsizetype i = start; i < end && blank; ++i)
            blank = std::isspace(static_cast<unsigned char>(data[i]));
        if (!blank)
            lines.append(LineSpan{start, end - start, number});
        start = end + 1;
        if (end + 1 < total && data[end] == '\r' && data[end + 1] == '\n')
            ++start; // CRLF is one line ending
    }
    return lines;
}

struct ParsedLine
{
    std::optional<SessionEvent> event;
    QString problem;
};

// Every line parsed, in order. A long transcript (issue 11: 30 MB) is parsed in as many contiguous parts as
// there are cores, one of them on this thread; JSON parsing is most of the time of opening it. A part that no
// pool thread has started yet when this thread is done is run here (QFuture::waitForFinished takes it back
// from the pool), so this never waits on a busy pool.
std::vector<ParsedLine> parseLines(const QByteArray &bytes, const QList<LineSpan> &lines)
{
    std::vector<ParsedLine> parsed(size_t(lines.size()));
    auto parseRange = [&bytes, &lines, &parsed](qsizetype from, qsizetype to) {
        for (qsizetype i = from; i < to; ++i) {
            ParsedLine &line = parsed[size_t(i)];
            line.event = parseLine(bytes.constData() + lines.at(i).start, lines.at(i).size, &line.problem);
        }
    };
    constexpr qsizetype MinBytesPerPart = 1024 * 1024;
    const qsizetype parts =
        qBound<qsizetype>(1, bytes.size() / MinBytesPerPart, qsizetype(QThread::idealThreadCount()));
    if (parts <= 1 || lines.size() < parts) {
        parseRange(0, lines.size());
        return parsed;
    }
    // Parts of about the same number of bytes, cut at line boundaries.
    QList<qsizetype> cuts{0};
    for (qsizetype i = 0, part = 1; i < lines.size() && part < parts; ++i) {
        if (lines.at(i).start >= bytes.size() * part / parts) {
            cuts.append(i);
            ++part;
        }
    }
    cuts.append(lines.size());
    QList<QFuture<void>> others;
    for (qsizetype part = 1; part + 1 < cuts.size(); ++part)
        others.append(QtConcurrent::run(parseRange, cuts.at(part), cuts.at(part + 1)));
    parseRange(cuts.at(0), cuts.at(1));
    for (QFuture<void> &other : others)
        other.waitForFinished();
    return parsed;
}

QString notATranscript(const QString &transcriptPath)
{
    return SessionStore::tr("%1 is not a session transcript: no line of it is a session event")
        .arg(transcriptPath);
}

QString readTitle(const QString &directory)
{
    const RegularFile::Read title = RegularFile::read(QDir(directory).filePath(kTitleName), 64 * 1024);
    return title.ok() ? QString::fromUtf8(title.bytes).simplified() : QString();
}

// Whether anything at all is at the path, even a dangling or looping symbolic link.
bool somethingAt(const QString &path)
{
    struct stat status
    {};
    return ::lstat(QFile::encodeName(path).constData(), &status) == 0;
}

bool containsToken(const QByteArray &bytes, const LineSpan &line, std::string_view token)
{
    return std::string_view(bytes.constData() + line.start, size_t(line.size)).find(token) !=
           std::string_view::npos;
}

// The non-blank lines of a transcript, walked from the start or from the end without splitting the whole
// file: the same lines splitLines() gives (LF, CRLF and CR all end a line).
class LineWalker
{
public:
    explicit LineWalker(const QByteArray &bytes)
        : m_data(bytes.constData())
        , m_size(bytes.size())
    {}

    // The next non-blank line from the start; false at the end.
    bool next(LineSpan *line)
    {
        while (m_forward < m_size) {
            if (m_nextLf < m_forward)
                m_nextLf = find('\n', m_forward);
            if (m_nextCr < m_forward)
                m_nextCr = find('\r', m_forward);
            const qsizetype start = m_forward;
            const qsizetype end = std::min(m_nextLf, m_nextCr);
            m_forward = end + 1;
            if (!isBlank(start, end)) {
                *line = LineSpan{start, end - start, 0};
                return true;
            }
        }
        return false;
    }

    // The next non-blank line from the end; false at the start.
    bool previous(LineSpan *line)
    {
        while (m_backward > 0) {
            if (m_previousLf >= m_backward)
                m_previousLf = findBackward('\n', m_backward);
            if (m_previousCr >= m_backward)
                m_previousCr = findBackward('\r', m_backward);
            const qsizetype end = m_backward;
            const qsizetype start = std::max(m_previousLf, m_previousCr) + 1;
            m_backward = start - 1;
            if (!isBlank(start, end)) {
                *line = LineSpan{start, end - start, 0};
                return true;
            }
        }
        return false;
    }

private:
    // The first c at or after from, or the size.
    qsizetype find(char c, qsizetype from) const
    {
        const void *hit = std::memchr(m_data + from, c, size_t(m_size - from));
        return hit ? static_cast<const char *>(hit) - m_data : m_size;
    }
    // The last c before end, or -1.
    qsizetype findBackward(char c, qsizetype end) const
    {
        const void *hit = ::memrchr(m_data, c, size_t(end));
        return hit ? static_cast<const char *>(hit) - m_data : -1;
    }
    bool isBlank(qsizetype start, qsizetype end) const
    {
        for (qsizetype i = start; i < end; ++i) {
            if (!std::isspace(static_cast<unsigned char>(m_data[i])))
                return false;
        }
        return true;
    }

    const char *m_data;
    qsizetype m_size;
    qsizetype m_forward = 0;
    qsizetype m_nextLf = -1;
    qsizetype m_nextCr = -1;
    qsizetype m_backward = m_size;
    qsizetype m_previousLf = m_size;
    qsizetype m_previousCr = m_size;
};

// Reads one transcript once and keeps only what the session browser shows, parsing as little as it can: from
// the start, up to session_started and the first user message with text (the title); from the end, back to
// the last valid event (the seq) and the last user message. Only lines that can be one of those are parsed,
// so a long session costs little more than finding its first and last lines. tst_sessionstore compares the
// result with a full parse.
std::optional<SessionInfo> summarize(const QString &directory)
{
    const QString transcriptPath = QDir(directory).filePath(kTranscriptName);
    const RegularFile::Read read = RegularFile::read(transcriptPath, SessionStore::MaxTranscriptBytes);
    if (read.problem == RegularFile::Problem::Missing && !somethingAt(transcriptPath))
        return std::nullopt; // a folder without a transcript is not a session (a dangling link is one)
    const QByteArray &bytes = read.bytes;

    SessionInfo info;
    info.id = QFileInfo(directory).fileName(); // what find() and load() take
    info.path = transcriptPath;
    info.directory = directory;
    if (!read.ok()) {
        info.problem = read.error;
        info.updatedAt = QFileInfo(transcriptPath).lastModified();
        if (!info.updatedAt.isValid())
            info.updatedAt = QFileInfo(directory).lastModified();
        info.createdAt = info.updatedAt;
        info.title = readTitle(directory);
        return info;
    }
    // The time of the descriptor that was read, in UTC: no time zone lookups while listing.
    info.updatedAt = QDateTime::fromMSecsSinceEpoch(read.modifiedMs, Qt::UTC);

    LineWalker walker(bytes);
    LineSpan line{};
    QString firstUserMessage;
    bool haveStarted = false;
    while ((!haveStarted || firstUserMessage.isEmpty()) && walker.next(&line)) {
        const bool maybeStarted = !haveStarted && containsToken(bytes, line, "\"session_started\"");
        const bool maybeUser = firstUserMessage.isEmpty() && containsToken(bytes, line, "\"user_message\"");
        if (!maybeStarted && !maybeUser)
            continue;
        const auto event = parseLine(bytes.constData() + line.start, line.size);
        if (!event)
            continue;
        if (const SessionEvent::Started *started = event->started(); started && !haveStarted) {
            haveStarted = true;
            info.workspace = started->cwd;
            info.createdAt = started->createdTime();
        } else if (event->kind == SessionEvent::Kind::UserMessage && firstUserMessage.isEmpty()) {
            firstUserMessage = event->content();
        }
    }

    bool haveSeq = false;
    bool haveLastUser = false;
    bool haveLine = false;
    while ((!haveSeq || !haveLastUser) && walker.previous(&line)) {
        haveLine = true;
        const bool maybeUser = !haveLastUser && containsToken(bytes, line, "\"user_message\"");
        if (haveSeq && !maybeUser)
            continue;
        const auto event = parseLine(bytes.constData() + line.start, line.size);
        if (!event)
            continue;
        if (!haveSeq) {
            haveSeq = true;
            info.lastSeq = event->seq;
        }
        if (maybeUser && event->kind == SessionEvent::Kind::UserMessage) {
            haveLastUser = true;
            info.lastUserMessage = event->content();
        }
    }

    // Walked back to the start without one event: what load() refuses, the list says too (random bytes
    // were listed as an ordinary untitled session).
    if (haveLine && !haveSeq)
        info.problem = notATranscript(transcriptPath);
    if (!info.createdAt.isValid())
        info.createdAt = info.updatedAt;
    info.lastUserMessage = SessionInfo::preview(info.lastUserMessage);
    info.title = readTitle(directory);
    if (info.title.isEmpty())
        info.title = SessionInfo::preview(firstUserMessage, SessionInfo::TitleLength);
    return info;
}

void sortNewestFirst(QList<SessionInfo> &sessions)
{
    std::sort(sessions.begin(), sessions.end(), [](const SessionInfo &a, const SessionInfo &b) {
        if (a.updatedAt != b.updatedAt)
            return a.updatedAt > b.updatedAt;
        return a.lastSeq > b.lastSeq;
    });
}

QStringList subdirectories(const QString &path)
{
    return QDir(path).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

// QSaveFile names its temporary file "<transcript>.XXXXXX" (or links an unnamed one under that name just
// before the rename). Only a crash can leave one behind; one writer per session means any such file is stale.
// "<transcript>.lock" is that writer's own lock (SessionWriter), never stale here: removing it let another
// process write the session after the first automatic compaction.
void removeStaleTemporaries(const QString &directory)
{
    QDir dir(directory);
    const QStringList stale =
        dir.entryList({kTranscriptName + QStringLiteral(".*")}, QDir::Files | QDir::Hidden | QDir::System);
    for (const QString &name : stale) {
        if (name != SessionWriter::lockPath(kTranscriptName))
            dir.remove(name);
    }
}

// The transcript of a session id in any namespace (also one that cannot be read), or empty.
QString locate(const QString &root, const QString &sessionId)
{
    if (!isPlausibleId(sessionId))
        return {};
    const QStringList namespaces = subdirectories(root);
    for (const QString &name : namespaces) {
        const QString path =
            QDir(root).filePath(name + QLatin1Char('/') + sessionId + QLatin1Char('/') + kTranscriptName);
        if (somethingAt(path)) // also when unreadable: load() then says why
            return path;
    }
    return {};
}

QString seqExhausted(const Session &session)
{
    return SessionStore::tr(
               "Cannot write to the transcript %1: its seq has reached 2^53, the most a transcript "
               "can count to; start a new session")
        .arg(session.transcriptPath);
}

QString canonicalWorkspace(const QString &workspace)
{
    return QDir::cleanPath(QFileInfo(workspace).absoluteFilePath());
}

} // namespace

QString SessionInfo::preview(const QString &text, qsizetype length)
{
    // Only the start is collapsed: enough for length characters unless it is nearly all whitespace.
    const qsizetype head = length * 8 + 64;
    QString collapsed = text.left(head).simplified();
    // A skill's activation (`[Activate skill: commit]` and its instructions) reads as the command typed.
    static const QString skillMarker = QStringLiteral("[Activate skill: ");
    if (collapsed.startsWith(skillMarker)) {
        if (const qsizetype end = collapsed.indexOf(QLatin1Char(']')); end > skillMarker.size())
            collapsed = QLatin1Char('/') + collapsed.mid(skillMarker.size(), end - skillMarker.size()) +
                        QStringLiteral(" · ") + collapsed.mid(end + 1).trimmed();
    }
    const bool more = text.size() > head && !QStringView(text).sliced(head).trimmed().isEmpty();
    if (collapsed.size() <= length && !more)
        return collapsed;
    qsizetype cut = qMin(collapsed.size(), length - 1);
    if (cut > 0 && collapsed.at(cut - 1).isHighSurrogate())
        --cut;
    return collapsed.left(cut).trimmed() + QChar(0x2026);
}

bool SessionInfo::previewRepeatsTitle() const
{
    return !lastUserMessage.isEmpty() && preview(lastUserMessage, TitleLength) == title;
}

SessionStore::SessionStore(const QString &root)
    : m_root(root)
{}

QString SessionStore::transcriptFileName()
{
    return QStringLiteral("transcript_events.jsonl");
}

QString SessionStore::titleFileName()
{
    return QStringLiteral("title.txt");
}

QString SessionStore::defaultRoot()
{
    return QDir(AppFolders::data()).filePath(QStringLiteral("sessions"));
}

QString SessionStore::namespaceFor(const QString &absoluteWorkspace)
{
    // Every run of characters outside [A-Za-z0-9._-] becomes one '-', and so does each separator. A plain
    // loop: a regular expression here cost every `run` a PCRE2 compile and JIT, about a millisecond.
    auto safe = [](QChar c) {
        const char16_t u = c.unicode();
        return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') ||
               u == u'.' || u == u'_' || u == u'-';
    };
    QString name;
    name.reserve(absoluteWorkspace.size());
    bool inUnsafeRun = false;
    for (const QChar c : absoluteWorkspace) {
        if (c == QLatin1Char('/') || c == QLatin1Char('\\')) {
            name += QLatin1Char('-');
            inUnsafeRun = false;
        } else if (safe(c)) {
            name += c;
            inUnsafeRun = false;
        } else if (!inUnsafeRun) {
            name += QLatin1Char('-');
            inUnsafeRun = true;
        }
    }
    qsizetype begin = 0;
    qsizetype end = name.size();
    auto trimmable = [](QChar c) { return c == QLatin1Char('-') || c == QLatin1Char('.'); };
    while (begin < end && trimmable(name.at(begin)))
        ++begin;
    while (end > begin && trimmable(name.at(end - 1)))
        --end;
    name = name.mid(begin, end - begin);
    if (name.isEmpty())
        name = QStringLiteral("root");
    const QByteArray digest =
        QCryptographicHash::hash(absoluteWorkspace.toUtf8(), QCryptographicHash::Sha1).toHex();
    return name + QLatin1Char('-') + QString::fromLatin1(digest.left(10));
}

QString SessionStore::newSessionId()
{
    // QUuid::createUuid draws from the system's cryptographic generator and sets the v4 version/variant bits.
    return QUuid::createUuid().toString(QUuid::WithoutBraces).toLower();
}

Result<Session> SessionStore::plan(const QString &workspace) const
{
    if (workspace.isEmpty())
        return Result<Session>::failure(
            SessionStore::tr("Cannot create a session without a workspace folder"));
    Session session;
    session.workspace = canonicalWorkspace(workspace);
    session.id = newSessionId();
    session.directory =
        QDir(m_root).filePath(namespaceFor(session.workspace) + QLatin1Char('/') + session.id);
    session.transcriptPath = QDir(session.directory).filePath(kTranscriptName);
    session.nextSeq = 1;
    return session;
}

Result<QList<quint64>> SessionStore::createFiles(Session &session, const QList<SessionEvent> &following)
{
    using Created = Result<QList<quint64>>;
    Result<void> made = ensureDirectory(session.directory);
    if (!made)
        return Created::failure(made.error());

    const int fd = ::open(encodedPath(session.transcriptPath).constData(),
                          O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        const QString error = SessionStore::tr("Cannot create the transcript %1: %2")
                                  .arg(session.transcriptPath, errnoText(errno));
        QDir(session.directory).removeRecursively();
        return Created::failure(error);
    }
    ::close(fd);

    QList<SessionEvent> events{
        SessionEvent::sessionStarted(session.id, QDateTime::currentDateTimeUtc(), session.workspace)};
    events.append(following);
    const Created written = appendLines(session, events);
    if (!written) {
        QDir(session.directory).removeRecursively();
        return written;
    }
    // The new file's folder entry too; after the file's own fsync this costs little on a journaling file
    // system, which commits the entry with it (before it, it was a second full wait for the disk).
    fsyncDirectory(session.directory);
    return written;
}

Result<Session> SessionStore::create(const QString &workspace)
{
    Result<Session> session = plan(workspace);
    if (!session)
        return session;
    if (const Result<QList<quint64>> made = createFiles(*session); !made)
        return Result<Session>::failure(made.error());
    return session;
}

Result<quint64> SessionStore::append(Session &session, const SessionEvent &event)
{
    const Result<QList<quint64>> written = appendGroup(session, {event});
    if (!written)
        return Result<quint64>::failure(written.error());
    return written->first();
}

Result<QList<quint64>> SessionStore::appendGroup(Session &session, const QList<SessionEvent> &events)
{
    return appendLines(session, events);
}

Result<QList<quint64>> SessionStore::appendLines(Session &session, const QList<SessionEvent> &events)
{
    using Appended = Result<QList<quint64>>;
    if (!session.isValid())
        return Appended::failure(
            SessionStore::tr("Cannot append to an invalid session (no id or transcript path)"));
    if (events.isEmpty())
        return QList<quint64>{};

    // No O_CREAT: a transcript only comes into being through createFiles(), so a deleted session is never
    // revived as a transcript without its session_started event.
    const int fd = ::open(encodedPath(session.transcriptPath).constData(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return Appended::failure(SessionStore::tr("Cannot open the transcript %1: %2")
                                     .arg(session.transcriptPath, errnoText(errno)));

    struct stat status
    {};
    off_t originalSize = 0;
    QByteArray lines;
    if (::fstat(fd, &status) == 0) {
        originalSize = status.st_size;
        // A torn last line (a crash mid-write) must not swallow the next event.
        char last = '\n';
        if (originalSize > 0 && ::pread(fd, &last, 1, originalSize - 1) == 1 && last != '\n')
            lines.append('\n');
    }
    if (session.nextSeq + quint64(events.size()) - 1 > SessionEvent::MaxSeq) {
        ::close(fd);
        return Appended::failure(seqExhausted(session));
    }
    const QList<quint64> seqs = appendLinesOf(events, session.nextSeq, lines);

    if (!writeAll(fd, lines) || ::fsync(fd) != 0) {
        const int error = errno;
        // Take back a partial write so nothing half-written stays visible.
        if (::ftruncate(fd, originalSize) != 0)
            qCWarning(LogCategories::sessionStore)
                << "could not truncate a failed append in" << session.transcriptPath;
        ::close(fd);
        return Appended::failure(SessionStore::tr("Cannot write to the transcript %1: %2")
                                     .arg(session.transcriptPath, errnoText(error)));
    }
    ::close(fd);
    session.nextSeq = seqs.last() + 1;
    return seqs;
}

// S60, S61: the events of a batch (an automatic compaction's checkpoint and compaction_applied) get
// consecutive seqs and become visible together, through a temporary file in the session folder renamed over
// the transcript.
Result<QList<quint64>> SessionStore::appendBatch(Session &session, const QList<SessionEvent> &events)
{
    using BatchResult = Result<QList<quint64>>;
    if (!session.isValid())
        return BatchResult::failure(
            SessionStore::tr("Cannot append to an invalid session (no id or transcript path)"));
    if (events.isEmpty())
        return QList<quint64>{};

    if (session.nextSeq + quint64(events.size()) - 1 > SessionEvent::MaxSeq)
        return BatchResult::failure(seqExhausted(session));
    RegularFile::Read existing = RegularFile::read(session.transcriptPath, SessionStore::MaxTranscriptBytes);
    if (!existing.ok())
        return BatchResult::failure(existing.error);
    QByteArray bytes = std::move(existing.bytes);
    removeStaleTemporaries(session.directory);
    if (!bytes.isEmpty() && !bytes.endsWith('\n'))
        bytes.append('\n');

    const QList<quint64> seqs = appendLinesOf(events, session.nextSeq, bytes);

    // QSaveFile writes a temporary file beside the transcript and renames it over the transcript on commit;
    // an uncommitted QSaveFile removes its temporary file, so no failure below leaves one behind.
    QSaveFile file(session.transcriptPath);
    file.setDirectWriteFallback(false);
    if (!file.open(QIODevice::WriteOnly))
        return BatchResult::failure(SessionStore::tr("Cannot write the transcript %1: %2")
                                        .arg(session.transcriptPath, file.errorString()));
    file.setPermissions(kPrivateFile);
    if (file.write(bytes) != bytes.size() || !file.flush() || ::fsync(file.handle()) != 0) {
        const QString error = file.errorString();
        file.cancelWriting();
        return BatchResult::failure(
            SessionStore::tr("Cannot write the transcript %1: %2").arg(session.transcriptPath, error));
    }
    if (!file.commit())
        return BatchResult::failure(SessionStore::tr("Cannot replace the transcript %1: %2")
                                        .arg(session.transcriptPath, file.errorString()));

    // The new content is visible from here on, so the counter must move even if the folder sync fails.
    session.nextSeq = seqs.last() + 1;
    if (!fsyncDirectory(session.directory))
        qCWarning(LogCategories::sessionStore) << "could not sync the session folder" << session.directory;
    return seqs;
}

Result<QString> SessionStore::transcriptOf(const QString &idOrPath) const
{
    const QFileInfo asPath(idOrPath);
    if (idOrPath.contains(QLatin1Char('/')) || asPath.isFile())
        return asPath.isDir() ? QDir(idOrPath).filePath(kTranscriptName) : idOrPath;
    // Only located here: summarising it (find()) would read the whole transcript a second time.
    const QString transcriptPath = locate(m_root, idOrPath);
    if (transcriptPath.isEmpty())
        return Result<QString>::failure(
            SessionStore::tr("No saved session with id %1 in %2").arg(idOrPath, m_root));
    return transcriptPath;
}

Result<LoadedSession> SessionStore::load(const QString &idOrPath) const
{
    const Result<QString> transcriptPath = transcriptOf(idOrPath);
    if (!transcriptPath)
        return Result<LoadedSession>::failure(transcriptPath.error());
    const RegularFile::Read read = RegularFile::read(*transcriptPath, MaxTranscriptBytes);
    if (read.problem == RegularFile::Problem::Missing && !somethingAt(*transcriptPath))
        return Result<LoadedSession>::failure(
            SessionStore::tr("The transcript %1 does not exist").arg(*transcriptPath));
    if (!read.ok())
        return Result<LoadedSession>::failure(read.error);
    LoadedSession loaded = parseTranscript(*transcriptPath, read.bytes, 0);
    // Any file can be named (`run --session notes.txt`): one with lines but no session event is not a
    // transcript, and appending the next turn to it would damage someone's file.
    if (loaded.events.isEmpty() && loaded.skippedLines > 0)
        return Result<LoadedSession>::failure(notATranscript(*transcriptPath));
    return loaded;
}

Result<LoadedSession> SessionStore::loadTail(const QString &idOrPath, int minEvents) const
{
    const Result<QString> transcriptPath = transcriptOf(idOrPath);
    if (!transcriptPath)
        return Result<LoadedSession>::failure(transcriptPath.error());
    // Back from the end in growing steps until enough whole lines were read.
    for (qint64 step = 256 * 1024;; step *= 4) {
        // One byte more than the step tells whether the first line read is whole.
        RegularFile::Read read = RegularFile::readTail(*transcriptPath, MaxTranscriptBytes, step + 1);
        if (!read.ok())
            return Result<LoadedSession>::failure(read.error);
        if (read.offset > 0) {
            qsizetype skip = read.bytes.indexOf('\n');
            skip = skip < 0 ? read.bytes.size() : skip + 1; // the line cut by the start is not read
            read.bytes.remove(0, skip);
        }
        LoadedSession loaded = parseTranscript(*transcriptPath, read.bytes, minEvents);
        if (loaded.events.size() >= minEvents || read.offset == 0)
            return loaded;
    }
}

LoadedSession SessionStore::parseTranscript(const QString &transcriptPath, const QByteArray &bytes,
                                            int lastEvents)
{
    LoadedSession loaded;
    quint64 maxSeq = 0;
    QList<LineSpan> lines = splitLines(bytes);
    if (lastEvents > 0) {
        // Only the last lines that hold lastEvents valid events are parsed (the whole load reports problems).
        qsizetype first = lines.size();
        int valid = 0;
        while (first > 0 && valid < lastEvents) {
            --first;
            auto event = parseLine(bytes.constData() + lines.at(first).start, lines.at(first).size);
            if (!event) {
                ++loaded.skippedLines;
                continue;
            }
            maxSeq = std::max(maxSeq, event->seq);
            loaded.events.append(std::move(*event));
            ++valid;
        }
        std::reverse(loaded.events.begin(), loaded.events.end());
        lines.clear();
    }
    std::vector<ParsedLine> parsed = parseLines(bytes, lines);
    loaded.events.reserve(loaded.events.size() + lines.size());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const LineSpan &line = lines.at(i);
        QString &problem = parsed[size_t(i)].problem;
        std::optional<SessionEvent> &event = parsed[size_t(i)].event;
        if (!event) {
            ++loaded.skippedLines;
            loaded.problems.append(SessionStore::tr("line %1: %2").arg(line.number).arg(problem));
            continue;
        }
        maxSeq = std::max(maxSeq, event->seq);
        if (event->kind == SessionEvent::Kind::CompactionApplied && event->messages().isEmpty())
            loaded.problems.append(
                SessionStore::tr("line %1: compaction_applied has no messages, so it was not "
                                 "applied")
                    .arg(line.number));
        if (const SessionEvent::Started *started = event->started();
            started && loaded.session.workspace.isEmpty())
            loaded.session.workspace = started->cwd;
        loaded.events.append(std::move(*event));
    }
    if (loaded.skippedLines > 0)
        qCInfo(LogCategories::sessionStore)
            << "skipped" << loaded.skippedLines << "malformed lines in" << transcriptPath;

    const QFileInfo transcriptInfo(transcriptPath);
    loaded.session.directory = transcriptInfo.absolutePath();
    loaded.session.transcriptPath = transcriptInfo.absoluteFilePath();
    // The folder names the session (session_started.session_id may say otherwise in a copied or edited file).
    loaded.session.id = QFileInfo(loaded.session.directory).fileName();
    loaded.session.nextSeq = maxSeq + 1;
    return loaded;
}

QString LoadedSession::problemSummary() const
{
    if (problems.isEmpty())
        return {};
    const QStringList shown = problems.mid(0, 3);
    QString summary = problems.size() == 1
                          ? SessionStore::tr("%1: 1 damaged line was ignored (%2")
                                .arg(session.transcriptPath, shown.join(QStringLiteral("; ")))
                          : SessionStore::tr("%1: %2 damaged lines were ignored (%3")
                                .arg(session.transcriptPath, QString::number(problems.size()),
                                     shown.join(QStringLiteral("; ")));
    if (problems.size() > shown.size())
        summary += SessionStore::tr("; and %1 more").arg(problems.size() - shown.size());
    return summary + QLatin1Char(')');
}

QList<SessionInfo> SessionStore::list(const QString &workspace) const
{
    QStringList namespaces;
    if (workspace.isEmpty())
        namespaces = subdirectories(m_root);
    else
        namespaces.append(namespaceFor(canonicalWorkspace(workspace)));

    QList<SessionInfo> sessions;
    for (const QString &name : std::as_const(namespaces)) {
        const QString namespaceDir = QDir(m_root).filePath(name);
        const QStringList ids = subdirectories(namespaceDir);
        for (const QString &id : ids) {
            if (auto info = summarize(QDir(namespaceDir).filePath(id)))
                sessions.append(std::move(*info));
        }
    }
    sortNewestFirst(sessions);
    return sessions;
}

std::optional<SessionInfo> SessionStore::find(const QString &sessionId) const
{
    const QString transcriptPath = locate(m_root, sessionId);
    if (transcriptPath.isEmpty())
        return std::nullopt;
    return summarize(QFileInfo(transcriptPath).path());
}

Result<void> SessionStore::rename(const QString &sessionId, const QString &title)
{
    const auto info = find(sessionId);
    if (!info)
        return Result<void>::failure(
            SessionStore::tr("No saved session with id %1 in %2").arg(sessionId, m_root));
    const QString titlePath = QDir(info->directory).filePath(kTitleName);
    const QString cleaned = title.simplified();
    if (cleaned.isEmpty()) {
        // An empty title goes back to the first user message.
        if (QFile::exists(titlePath) && !QFile::remove(titlePath))
            return Result<void>::failure(SessionStore::tr("Cannot remove the title file %1").arg(titlePath));
        return {};
    }
    QSaveFile file(titlePath);
    if (!file.open(QIODevice::WriteOnly))
        return Result<void>::failure(
            SessionStore::tr("Cannot write the title file %1: %2").arg(titlePath, file.errorString()));
    file.setPermissions(kPrivateFile);
    file.write(cleaned.toUtf8() + '\n');
    if (!file.commit())
        return Result<void>::failure(
            SessionStore::tr("Cannot write the title file %1: %2").arg(titlePath, file.errorString()));
    return {};
}

Result<void> SessionStore::remove(const QString &sessionId)
{
    const auto info = find(sessionId);
    if (!info)
        return Result<void>::failure(
            SessionStore::tr("No saved session with id %1 in %2").arg(sessionId, m_root));
    if (!QDir(info->directory).removeRecursively())
        return Result<void>::failure(
            SessionStore::tr("Cannot remove the session folder %1").arg(info->directory));
    QDir().rmdir(QFileInfo(info->directory).path()); // the namespace, when it was its last session
    return {};
}

// S62: compaction_applied replaces everything before it with a copy of its messages; S63: the events before
// it stay in the transcript for replay, they just stop contributing to the conversation.
MessageList buildConversation(const QList<SessionEvent> &events)
{
    // Issue 16: an undone compaction (compaction_reverted) never applied, as far as the conversation goes.
    const QSet<quint64> reverted = CompactionUndo::revertedSeqs(events);
    MessageList messages;
    for (const SessionEvent &event : events) {
        if (const SessionEvent::User *user = event.user()) {
            messages.append(Message::user(user->content));
        } else if (const SessionEvent::Assistant *turn = event.assistant()) {
            std::optional<TurnMemory> memory = turn->turnMemory;
            if (memory && memory->isEmpty())
                memory.reset();
            if (!turn->message.isEmpty() || memory)
                messages.append(Message::assistant(turn->message, std::move(memory)));
        } else if (const SessionEvent::Compaction *compaction = event.compaction();
                   compaction && !reverted.contains(event.seq) && !compaction->messages.isEmpty()) {
            // An empty replacement would wipe the history: it is not applied (load() names it). A copy of the
            // payload's messages: the result shares nothing with the event.
            MessageList replacement = compaction->messages;
            replacement.detach();
            messages = std::move(replacement);
        } else if (const SessionEvent::PinContext *pinned = event.pinContext();
                   pinned && !pinned->content.isEmpty()) {
            // Issue 16: pins the history did not hold reach the model where they were added, as live.
            messages.append(Message::user(pinned->content));
        }
        // session_started, compaction_reverted, pins and kinds this app does not know add nothing.
    }
    return messages;
}

} // namespace keen
