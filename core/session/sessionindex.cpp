#include "session/sessionindex.h"

#include "base/logcategories.h"
#include "base/regularfile.h"
#include "conversation/tooloutputtext.h"
#include "session/sessionevent.h"
#include "session/sessionstore.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QMutexLocker>
#include <QRandomGenerator>
#include <QRecursiveMutex>
#include <QRegularExpression>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>

#include <atomic>
#include <filesystem>
#include <limits>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace keen {

namespace {

constexpr qint64 kHashWindow = 4096;
constexpr qint64 kMaxTitleBytes = 64 * 1024;
constexpr QChar kMarkOpen = QChar(0x02);
constexpr QChar kMarkClose = QChar(0x03);

QString collapseWhitespace(const QString &text)
{
    return text.simplified();
}

QString translateIndex(const char *text)
{
    return QCoreApplication::translate("keen::SessionIndex", text);
}

// One database connection for the duration of one call, on the calling thread.
class Connection
{
public:
    explicit Connection(const QString &path)
    {
        static std::atomic<quint64> counter{0};
        m_name = QStringLiteral("keen.sessionindex.%1.%2")
                     .arg(quintptr(QThread::currentThreadId()))
                     .arg(counter.fetch_add(1));
        m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        m_db.setDatabaseName(path);
        m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    }
    ~Connection()
    {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
    }
    Q_DISABLE_COPY_MOVE(Connection)

    QSqlDatabase &db() { return m_db; }

private:
    QString m_name;
    QSqlDatabase m_db;
};

bool exec(QSqlDatabase &db, const QString &sql, QString *error = nullptr)
{
    QSqlQuery query(db);
    if (query.exec(sql))
        return true;
    if (error)
        *error = query.lastError().text();
    qCWarning(LogCategories::sessionIndex) << "SQL failed:" << sql << query.lastError().text();
    return false;
}

bool createSchema(QSqlDatabase &db, QString *error)
{
    const QStringList statements = {
        QStringLiteral("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"),
        QStringLiteral(
            "CREATE TABLE sessions("
            "path TEXT PRIMARY KEY, id TEXT NOT NULL, directory TEXT NOT NULL, "
            "namespace TEXT NOT NULL, workspace TEXT NOT NULL DEFAULT '', "
            "title_override TEXT NOT NULL DEFAULT '', title_mtime INTEGER NOT NULL DEFAULT -1, "
            "first_user_message TEXT NOT NULL DEFAULT '', last_user_message TEXT NOT NULL DEFAULT '', "
            "created_at INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL DEFAULT 0, "
            "last_seq INTEGER NOT NULL DEFAULT 0, size INTEGER NOT NULL DEFAULT 0, "
            "indexed_bytes INTEGER NOT NULL DEFAULT 0, head_hash BLOB, tail_hash BLOB)"),
        QStringLiteral("CREATE INDEX sessions_namespace ON sessions(namespace)"),
        QStringLiteral(
            "CREATE TABLE entries(id INTEGER PRIMARY KEY, path TEXT NOT NULL, seq INTEGER NOT NULL, "
            "source TEXT NOT NULL, body TEXT NOT NULL)"),
        QStringLiteral("CREATE INDEX entries_path ON entries(path)"),
        QStringLiteral(
            "CREATE VIRTUAL TABLE entries_fts USING fts5(body, content='entries', content_rowid='id', "
            "tokenize='unicode61 remove_diacritics 2')"),
        QStringLiteral("CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN "
                       "INSERT INTO entries_fts(rowid, body) VALUES (new.id, new.body); END"),
        QStringLiteral(
            "CREATE TRIGGER entries_ad AFTER DELETE ON entries BEGIN "
            "INSERT INTO entries_fts(entries_fts, rowid, body) VALUES ('delete', old.id, old.body); END"),
        QStringLiteral("INSERT INTO meta(key, value) VALUES ('schema_version', '%1')")
            .arg(SessionIndex::kSchemaVersion),
    };
    if (!db.transaction()) {
        *error = db.lastError().text();
        return false;
    }
    for (const QString &statement : statements) {
        if (!exec(db, statement, error)) {
            db.rollback();
            return false;
        }
    }
    return db.commit();
}

// One writer per process: updates and rebuilds of the database file never interleave between threads.
QRecursiveMutex &indexMutex()
{
    static QRecursiveMutex mutex;
    return mutex;
}

enum class Health { Current, Unusable, Busy };

bool isBusy(const QSqlError &error)
{
    // SQLITE_BUSY and SQLITE_LOCKED: another connection is writing; not a reason to throw the index away.
    const QString code = error.nativeErrorCode();
    return code == QLatin1String("5") || code == QLatin1String("6");
}

Health checkHealth(QSqlDatabase &db)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")))
        return isBusy(query.lastError()) ? Health::Busy : Health::Unusable;
    if (!query.next() || query.value(0).toString() != QString::number(SessionIndex::kSchemaVersion))
        return Health::Unusable;
    // The tables a current index must have; a damaged file fails here.
    QSqlQuery check(db);
    if (!check.exec(QStringLiteral("SELECT count(*) FROM sessions JOIN entries ON 0 JOIN entries_fts ON 0")))
        return isBusy(check.lastError()) ? Health::Busy : Health::Unusable;
    return Health::Current;
}

// SQLite's files beside the index (its rollback journal, and the WAL files should the mode ever change).
// SQLite opens and reads a journal it finds there: a folder in its place failed every statement with "disk
// I/O error", a FIFO blocked the read forever. What is not a regular file there is removed (a folder only
// when empty); an error names what could not be.
Result<void> clearCompanions(const QString &path)
{
    for (const char *suffix : {"-journal", "-wal", "-shm"}) {
        const QString companion = path + QLatin1String(suffix);
        const QByteArray native = QFile::encodeName(companion);
        struct stat status
        {};
        if (::lstat(native.constData(), &status) != 0 || S_ISREG(status.st_mode))
            continue;
        const bool removed =
            S_ISDIR(status.st_mode) ? ::rmdir(native.constData()) == 0 : ::unlink(native.constData()) == 0;
        if (!removed)
            return Result<void>::failure(
                translateIndex("Cannot use the search index %1: %2 is not a regular file and cannot be "
                               "removed (%3). Remove it; the index is rebuilt from the transcripts.")
                    .arg(path, companion, QString::fromLocal8Bit(::strerror(errno))));
        qCInfo(LogCategories::sessionIndex) << "Removed what was in the place of" << companion;
    }
    return {};
}

// Opens the index, replacing it when missing, unreadable or of another schema. A fresh database is built
// in a temporary file and renamed over the old one, so another process never sees a half-made index.
Result<void> openIndex(Connection &connection, const QString &path, bool *fullRebuild, bool *busy = nullptr)
{
    *fullRebuild = false;
    // The index holds the text of every conversation: private like the transcripts it caches.
    const QString folder = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(folder))
        return Result<void>::failure(
            translateIndex("Cannot create the folder of the search index %1.").arg(path));
    QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (Result<void> cleared = clearCompanions(path); !cleared)
        return cleared;
    QSqlDatabase &db = connection.db();
    // The index is a cache: whatever is wrong with it (unreadable, a FIFO or device in its place, corrupt,
    // another schema) it is built again from the transcripts. SQLite must never open a FIFO: it would block.
    const bool present = QFileInfo::exists(path) || QFileInfo(path).isSymLink();
    if (present && QFileInfo(path).isFile())
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QString unusable =
        present ? RegularFile::problem(path, std::numeric_limits<qint64>::max()) : QString();
    if (!unusable.isEmpty()) {
        qCInfo(LogCategories::sessionIndex) << "Rebuilding the session index:" << unusable;
    } else if (present) {
        if (db.open()) {
            switch (checkHealth(db)) {
            case Health::Current:
                return {};
            case Health::Busy:
                if (busy)
                    *busy = true;
                return Result<void>::failure(
                    translateIndex("The search index %1 is busy; try again.").arg(path));
            case Health::Unusable:
                qCInfo(LogCategories::sessionIndex)
                    << "Rebuilding the session index: corrupt or outdated" << path;
                break;
            }
        } else {
            qCInfo(LogCategories::sessionIndex)
                << "Rebuilding the session index:" << path << db.lastError().text();
        }
        db.close();
    }

    const QString temporary =
        path + QStringLiteral(".new-%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    QString error;
    {
        // Created 0600 before SQLite opens it (SQLite gives its journal the same mode).
        QFile placeholder(temporary);
        if (placeholder.open(QIODevice::WriteOnly))
            placeholder.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        placeholder.close();
        Connection fresh(temporary);
        if (!fresh.db().open() || !createSchema(fresh.db(), &error)) {
            if (error.isEmpty())
                error = fresh.db().lastError().text();
        }
    }
    if (!error.isEmpty()) {
        QFile::remove(temporary);
        return Result<void>::failure(
            translateIndex("Cannot create the search index %1: %2").arg(path, error));
    }
    QFile::remove(path + QStringLiteral("-journal"));
    std::error_code renameError;
    std::filesystem::rename(QFile::encodeName(temporary).toStdString(), QFile::encodeName(path).toStdString(),
                            renameError);
    if (renameError) {
        QFile::remove(temporary);
        return Result<void>::failure(translateIndex("Cannot create the search index %1: %2")
                                         .arg(path, QString::fromStdString(renameError.message())));
    }
    if (!db.open())
        return Result<void>::failure(
            translateIndex("Cannot open the search index %1: %2").arg(path, db.lastError().text()));
    *fullRebuild = true;
    return {};
}

// A tool's input or output as a person reads it: its string values, then its numbers after their keys, with
// no JSON syntax, so a snippet shows `read_file src/main.cpp` rather than `{"path":"src/main.cpp"}` (tried as
// a user, 2026-12-04). A string that is itself a JSON object or array is read the same way. Every value stays
// findable; keys, true, false and null are no content.
QString readableJson(const QJsonValue &value)
{
    if (value.isString()) {
        const QString text = value.toString();
        const QString trimmed = text.trimmed();
        if (trimmed.startsWith(QLatin1Char('{')) || trimmed.startsWith(QLatin1Char('['))) {
            QJsonParseError error{};
            const QJsonDocument document = QJsonDocument::fromJson(trimmed.toUtf8(), &error);
            if (error.error == QJsonParseError::NoError)
                return readableJson(document.isObject() ? QJsonValue(document.object())
                                                        : QJsonValue(document.array()));
        }
        return text;
    }
    if (value.isDouble())
        return QString::number(value.toDouble());
    QStringList strings;
    QStringList numbers;
    auto add = [&](const QString &key, const QJsonValue &item) {
        const QString text = readableJson(item);
        if (text.trimmed().isEmpty())
            return;
        if (item.isDouble() && !key.isEmpty())
            numbers.append(key + QLatin1Char(' ') + text);
        else
            strings.append(text);
    };
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it)
            add(it.key(), it.value());
    } else if (value.isArray()) {
        for (const QJsonValue &item : value.toArray())
            add(QString(), item);
    }
    return (strings + numbers).join(QLatin1Char(' '));
}

// A tool's output as its card showed it where its shape is known: a read's text without the "NUMBER:HASH|"
// prefixes (a search for "add", "bad" or "fed" found a hash on every line of every file read), a command's
// output, a search's matches. Any other output as readableJson() reads it.
QString readableOutput(const QJsonValue &output)
{
    QJsonValue value = output;
    if (output.isString() && output.toString().trimmed().startsWith(QLatin1Char('{'))) {
        const QJsonDocument document = QJsonDocument::fromJson(output.toString().toUtf8());
        if (document.isObject())
            value = document.object();
    }
    if (value.isObject()) {
        if (QString text = ToolOutputText::readable(value.toObject()); !text.trimmed().isEmpty())
            return text;
    }
    return readableJson(output);
}

void appendPart(QString &body, const QString &part)
{
    if (part.trimmed().isEmpty())
        return;
    if (!body.isEmpty())
        body += QLatin1Char('\n');
    body += part;
}

struct Entry
{
    QString source;
    QString body;
};

// The longest text indexed as one row. SQLite's snippet() weighs every match in a row against every other,
// so a pasted 100,000-line log that matched a word on each line took 100 s to show one snippet; passages
// this long keep a snippet instant and still hold a paragraph or a screen of output for the words of a
// query to meet in.
constexpr qsizetype kPassageLength = 8192;

// body cut into passages of at most kPassageLength characters, each ending at a line break (or else a
// space) where there is one in its second half, so a cut rarely splits a word.
QList<QStringView> passagesOf(const QString &body)
{
    QList<QStringView> passages;
    QStringView rest(body);
    while (rest.size() > kPassageLength) {
        QStringView head = rest.first(kPassageLength);
        qsizetype cut = head.lastIndexOf(QLatin1Char('\n'));
        if (cut < kPassageLength / 2)
            cut = head.lastIndexOf(QLatin1Char(' '));
        if (cut < kPassageLength / 2)
            cut = kPassageLength - 1;
        if (cut + 1 < rest.size() && rest.at(cut).isHighSurrogate())
            --cut; // a character outside the BMP stays whole
        passages.append(rest.first(cut + 1));
        rest = rest.sliced(cut + 1);
    }
    if (!rest.isEmpty())
        passages.append(rest);
    return passages;
}

// What a person would search for in one event. Reasoning is left out.
QList<Entry> searchableEntries(const SessionEvent &event)
{
    QList<Entry> entries;
    auto add = [&entries](const QString &source, const QString &body) {
        if (!body.trimmed().isEmpty())
            entries.append(Entry{source, body});
    };
    if (event.kind == SessionEvent::Kind::UserMessage) {
        add(QStringLiteral("user"), event.content());
        return entries;
    }
    QString text;
    QString toolInput;
    QString toolOutput;
    for (const TranscriptItem &item : event.transcript()) {
        switch (item.kind) {
        case TranscriptItem::Kind::Text:
            text += item.content;
            break;
        case TranscriptItem::Kind::ToolStart:
            appendPart(toolInput, item.name + QLatin1Char(' ') + readableJson(item.input));
            break;
        case TranscriptItem::Kind::ToolEnd:
            appendPart(toolOutput, readableOutput(item.output));
            appendPart(toolOutput, item.error);
            break;
        case TranscriptItem::Kind::Bash:
            appendPart(toolInput, item.command);
            appendPart(toolOutput, item.bashOutput());
            appendPart(toolOutput, item.error);
            break;
        case TranscriptItem::Kind::Reasoning:
        case TranscriptItem::Kind::Notice:
        case TranscriptItem::Kind::Diff:
        case TranscriptItem::Kind::Unknown:
            break;
        }
    }
    if (event.kind == SessionEvent::Kind::AssistantTurn) {
        if (text.trimmed().isEmpty())
            text = event.assistantMessage();
        appendPart(text, event.error());
        add(QStringLiteral("assistant"), text);
        add(QStringLiteral("tool_input"), toolInput);
        add(QStringLiteral("tool_output"), toolOutput);
    } else if (event.kind == SessionEvent::Kind::CompactionApplied) {
        // A manual compaction's summary was streamed to the person and stays findable. An automatic one's is
        // private (S17, S54): it is stored with an empty status (S64) and never indexed; what it summarised
        // is indexed already in the turns and tool output it checkpointed.
        const QString status = event.status();
        if (status.isEmpty())
            return entries;
        QString body = status;
        appendPart(body, text);
        for (const Message &message : event.messages()) {
            if (!message.content.startsWith(QLatin1String("<compacted_context>")))
                appendPart(body, message.content);
        }
        add(QStringLiteral("compaction"), body);
    }
    return entries;
}

QByteArray hashRange(QFile &file, qint64 from, qint64 to)
{
    if (to <= from || !file.seek(from))
        return {};
    return QCryptographicHash::hash(file.read(to - from), QCryptographicHash::Sha1);
}

// The per-session row, as stored.
struct SessionRow
{
    bool exists = false;
    QString id;
    QString workspace;
    QString titleOverride;
    qint64 titleMtime = -1;
    QString firstUserMessage;
    QString lastUserMessage;
    qint64 createdAt = 0;
    qint64 updatedAt = 0;
    quint64 lastSeq = 0;
    qint64 size = 0;
    qint64 indexedBytes = 0;
    QByteArray headHash;
    QByteArray tailHash;
};

SessionRow loadRow(QSqlDatabase &db, const QString &path)
{
    SessionRow row;
    QSqlQuery query(db);
    query.prepare(QStringLiteral(
        "SELECT id, workspace, title_override, title_mtime, first_user_message, last_user_message, "
        "created_at, "
        "updated_at, last_seq, size, indexed_bytes, head_hash, tail_hash FROM sessions WHERE path = ?"));
    query.addBindValue(path);
    if (!query.exec() || !query.next())
        return row;
    row.exists = true;
    row.id = query.value(0).toString();
    row.workspace = query.value(1).toString();
    row.titleOverride = query.value(2).toString();
    row.titleMtime = query.value(3).toLongLong();
    row.firstUserMessage = query.value(4).toString();
    row.lastUserMessage = query.value(5).toString();
    row.createdAt = query.value(6).toLongLong();
    row.updatedAt = query.value(7).toLongLong();
    row.lastSeq = query.value(8).toULongLong();
    row.size = query.value(9).toLongLong();
    row.indexedBytes = query.value(10).toLongLong();
    row.headHash = query.value(11).toByteArray();
    row.tailHash = query.value(12).toByteArray();
    return row;
}

bool deleteEntries(QSqlDatabase &db, const QString &path)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("DELETE FROM entries WHERE path = ?"));
    query.addBindValue(path);
    return query.exec();
}

bool saveRow(QSqlDatabase &db, const QString &path, const QString &directory, const QString &nameSpace,
             const SessionRow &row)
{
    QSqlQuery query(db);
    query.prepare(QStringLiteral("INSERT OR REPLACE INTO sessions(path, id, directory, namespace, workspace, "
                                 "title_override, title_mtime, "
                                 "first_user_message, last_user_message, created_at, updated_at, last_seq, "
                                 "size, indexed_bytes, head_hash, "
                                 "tail_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    query.addBindValue(path);
    query.addBindValue(row.id);
    query.addBindValue(directory);
    query.addBindValue(nameSpace);
    query.addBindValue(row.workspace);
    query.addBindValue(row.titleOverride);
    query.addBindValue(row.titleMtime);
    query.addBindValue(row.firstUserMessage);
    query.addBindValue(row.lastUserMessage);
    query.addBindValue(row.createdAt);
    query.addBindValue(row.updatedAt);
    query.addBindValue(qint64(row.lastSeq));
    query.addBindValue(row.size);
    query.addBindValue(row.indexedBytes);
    query.addBindValue(row.headHash);
    query.addBindValue(row.tailHash);
    if (!query.exec()) {
        qCWarning(LogCategories::sessionIndex)
            << "Cannot save session row" << path << query.lastError().text();
        return false;
    }
    return true;
}

// Reads the transcript from row->indexedBytes (0 for a rebuild) and indexes every complete new line.
bool indexTranscript(QSqlDatabase &db, QFile &file, const QString &path, SessionRow *row, qint64 *linesRead)
{
    if (!file.seek(row->indexedBytes))
        return false;
    QSqlQuery insert(db);
    insert.prepare(QStringLiteral("INSERT INTO entries(path, seq, source, body) VALUES (?, ?, ?, ?)"));
    qint64 offset = row->indexedBytes;
    const QByteArray rest = file.readAll();
    qsizetype start = 0;
    while (start < rest.size()) {
        // LF, CRLF and CR alone end a line, as in the store. A line without its ending is still being
        // written: leave it for the next update.
        qsizetype end = start;
        while (end < rest.size() && rest.at(end) != '\n' && rest.at(end) != '\r')
            ++end;
        if (end >= rest.size())
            break;
        qsizetype next = end + 1;
        if (rest.at(end) == '\r' && next < rest.size() && rest.at(next) == '\n')
            ++next;
        const QByteArray line = rest.mid(start, end - start);
        offset += next - start;
        start = next;
        if (line.trimmed().isEmpty())
            continue;
        ++*linesRead;
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(line, &parseError);
        if (parseError.error != QJsonParseError::NoError || !document.isObject())
            continue; // malformed lines are skipped, as the store does
        const std::optional<SessionEvent> event = SessionEvent::fromJson(document.object());
        if (!event || event->seq < 1)
            continue;
        const quint64 seq = event->seq;
        if (seq <= row->lastSeq)
            continue;
        row->lastSeq = seq;
        if (const SessionEvent::Started *started = event->started()) {
            // The id stays the folder's name (row->id), the one `run --session` and the store take.
            const QDateTime created = started->createdTime();
            if (created.isValid())
                row->createdAt = created.toMSecsSinceEpoch();
            row->workspace = started->cwd;
        } else if (event->kind == SessionEvent::Kind::UserMessage) {
            const QString content = SessionInfo::preview(event->content());
            if (row->firstUserMessage.isEmpty())
                row->firstUserMessage = content;
            if (!content.isEmpty())
                row->lastUserMessage = content;
        }
        const QList<Entry> entries = searchableEntries(*event);
        for (const Entry &entry : entries) {
            for (const QStringView passage : passagesOf(entry.body)) {
                insert.addBindValue(path);
                insert.addBindValue(qint64(seq));
                insert.addBindValue(entry.source);
                insert.addBindValue(passage.toString());
                if (!insert.exec()) {
                    qCWarning(LogCategories::sessionIndex)
                        << "Cannot index" << path << insert.lastError().text();
                    return false;
                }
            }
        }
    }
    row->indexedBytes = offset;
    return true;
}

SessionInfo sessionInfoFrom(const QSqlQuery &query, int column)
{
    // Columns: path, id, directory, workspace, title_override, first_user_message, created_at, updated_at,
    // last_seq, last_user_message.
    SessionInfo info;
    info.path = query.value(column).toString();
    info.id = query.value(column + 1).toString();
    info.directory = query.value(column + 2).toString();
    info.workspace = query.value(column + 3).toString();
    const QString titleOverride = query.value(column + 4).toString();
    // The same fallback title as SessionStore::list(): the first user message, cut at 80 characters.
    info.title = titleOverride.isEmpty() ? SessionInfo::preview(query.value(column + 5).toString(), 80)
                                         : titleOverride;
    info.createdAt = QDateTime::fromMSecsSinceEpoch(query.value(column + 6).toLongLong());
    info.updatedAt = QDateTime::fromMSecsSinceEpoch(query.value(column + 7).toLongLong());
    info.lastSeq = query.value(column + 8).toULongLong();
    info.lastUserMessage =
        SessionInfo::preview(query.value(column + 9).toString()); // an older index kept it whole
    return info;
}

const QString kSessionColumns = QStringLiteral("s.path, s.id, s.directory, s.workspace, s.title_override, "
                                               "s.first_user_message, s.created_at, s.updated_at, "
                                               "s.last_seq, s.last_user_message");

QString namespaceFilterFor(const QString &workspace)
{
    if (workspace.isEmpty())
        return {};
    return SessionStore::namespaceFor(QDir::cleanPath(QFileInfo(workspace).absoluteFilePath()));
}

// Strips the snippet markers into highlight ranges and folds whitespace so a passage reads as one line.
void parseSnippet(const QString &marked, SessionSearchHit *hit)
{
    // A reply or a manual summary is Markdown: its snippet reads without a heading's hashes and the ** of
    // bold ("Goal Keep working", not "## Goal Keep working"). Tool text and the person's words stay as
    // written.
    const bool markdown =
        hit->source == QLatin1String("assistant") || hit->source == QLatin1String("compaction");
    QString plain;
    plain.reserve(marked.size());
    int start = -1;
    bool lastWasSpace = true;
    bool lineStart = true; // in the text as written, before spaces are joined
    for (qsizetype i = 0; i < marked.size(); ++i) {
        const QChar c = marked.at(i);
        if (markdown && lineStart && c == QLatin1Char('#')) {
            qsizetype hashes = 0;
            while (i + hashes < marked.size() && marked.at(i + hashes) == QLatin1Char('#'))
                ++hashes;
            if (hashes <= 6 && i + hashes < marked.size() && marked.at(i + hashes) == QLatin1Char(' ')) {
                i += hashes; // the space after them goes the way of any space
                lineStart = false;
                continue;
            }
        }
        if (markdown && c == QLatin1Char('*') && i + 1 < marked.size() &&
            marked.at(i + 1) == QLatin1Char('*')) {
            ++i;
            continue;
        }
        if (c == kMarkOpen) {
            start = int(plain.size());
            continue; // the marks are not text: a heading's hashes after one are still at the line's start
        }
        if (c == kMarkClose) {
            if (start >= 0 && plain.size() > start)
                hit->highlights.append({start, int(plain.size()) - start});
            start = -1;
            continue;
        }
        lineStart = c == QLatin1Char('\n') || (lineStart && c == QLatin1Char(' '));
        if (c.isSpace()) {
            if (!lastWasSpace)
                plain += QLatin1Char(' ');
            lastWasSpace = true;
        } else {
            plain += c;
            lastWasSpace = false;
        }
    }
    while (plain.endsWith(QLatin1Char(' ')))
        plain.chop(1);
    hit->snippet = plain;
}

} // namespace

QString SessionSearchHit::markedSnippet(const QString &open, const QString &close) const
{
    QString result;
    int position = 0;
    for (const auto &[start, length] : highlights) {
        if (start < position || start + length > snippet.size())
            continue;
        result += QStringView(snippet).mid(position, start - position);
        result += open + QStringView(snippet).mid(start, length) + close;
        position = start + length;
    }
    result += QStringView(snippet).mid(position);
    return result;
}

SessionIndex::SessionIndex(const QString &sessionsRoot, const QString &databasePath)
    : m_root(sessionsRoot)
    , m_databasePath(databasePath.isEmpty() ? defaultDatabasePath(sessionsRoot) : databasePath)
{}

QString SessionIndex::defaultDatabasePath(const QString &sessionsRoot)
{
    return QDir::cleanPath(sessionsRoot + QStringLiteral("/../index/sessions.sqlite"));
}

QString SessionIndex::ftsQuery(const QString &userInput)
{
    const QStringList terms = userInput.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
    QStringList phrases;
    for (QString term : terms) {
        term.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        phrases.append(QLatin1Char('"') + term + QStringLiteral("\"*"));
    }
    return phrases.join(QLatin1Char(' '));
}

Result<SessionIndexStats> SessionIndex::update()
{
    const QMutexLocker locker(&indexMutex());
    bool busy = false;
    Result<SessionIndexStats> updated = updateOnce(&busy);
    if (updated || busy)
        return updated;
    // The index is a cache: one that opened but cannot be used (a damaged journal, an I/O error) is
    // removed and built again from the transcripts, once.
    qCInfo(LogCategories::sessionIndex) << "Rebuilding the session index:" << updated.error();
    QFile::remove(m_databasePath);
    QFile::remove(m_databasePath + QStringLiteral("-journal"));
    busy = false;
    updated = updateOnce(&busy);
    if (updated || busy || updated.error().contains(m_databasePath))
        return updated;
    return Result<SessionIndexStats>::failure(
        translateIndex("Cannot use the search index %1: %2").arg(m_databasePath, updated.error()));
}

Result<SessionIndexStats> SessionIndex::updateOnce(bool *busy)
{
    const auto sqlFailure = [busy](const QSqlError &error) {
        if (isBusy(error))
            *busy = true;
        return Result<SessionIndexStats>::failure(error.text());
    };
    SessionIndexStats stats;
    Connection connection(m_databasePath);
    bool fullRebuild = false;
    if (auto opened = openIndex(connection, m_databasePath, &fullRebuild, busy); !opened)
        return Result<SessionIndexStats>::failure(opened.error());
    stats.fullRebuild = fullRebuild;
    QSqlDatabase &db = connection.db();

    QSet<QString> known;
    {
        QSqlQuery query(db);
        if (!query.exec(QStringLiteral("SELECT path FROM sessions")))
            return sqlFailure(query.lastError());
        while (query.next())
            known.insert(query.value(0).toString());
    }

    if (!db.transaction())
        return sqlFailure(db.lastError());
    const QDir rootDir(m_root);
    const QStringList namespaces = rootDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &nameSpace : namespaces) {
        const QDir namespaceDir(rootDir.filePath(nameSpace));
        const QStringList sessionDirs = namespaceDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &sessionDir : sessionDirs) {
            const QString directory = namespaceDir.filePath(sessionDir);
            const QString path = directory + QLatin1Char('/') + SessionStore::transcriptFileName();
            const QFileInfo transcriptInfo(path);
            if (!transcriptInfo.isFile())
                continue;
            ++stats.sessionsScanned;
            known.remove(path);

            SessionRow row = loadRow(db, path);
            const qint64 size = transcriptInfo.size();
            const qint64 mtime = transcriptInfo.lastModified().toMSecsSinceEpoch();
            const QFileInfo titleInfo(directory + QLatin1Char('/') + SessionStore::titleFileName());
            const qint64 titleMtime = titleInfo.exists() ? titleInfo.lastModified().toMSecsSinceEpoch() : -1;

            const bool transcriptUnchanged = row.exists && row.size == size && row.updatedAt == mtime;
            if (transcriptUnchanged && row.titleMtime == titleMtime)
                continue;
            if (row.titleMtime != titleMtime) {
                row.titleMtime = titleMtime;
                row.titleOverride.clear();
                // The same rule as the store's list: a regular file of at most 64 KiB, else no title.
                if (titleMtime >= 0) {
                    const RegularFile::Read title = RegularFile::read(titleInfo.filePath(), kMaxTitleBytes);
                    if (title.ok())
                        row.titleOverride = collapseWhitespace(QString::fromUtf8(title.bytes));
                    else
                        qCWarning(LogCategories::sessionIndex).noquote() << title.error;
                }
            }
            if (!transcriptUnchanged) {
                // Checked on the descriptor's type and size first: the isFile() above was a look at the
                // path, and something else may be there by now.
                if (const QString problem = RegularFile::problem(path, SessionStore::MaxTranscriptBytes);
                    !problem.isEmpty()) {
                    qCWarning(LogCategories::sessionIndex).noquote() << problem;
                    continue;
                }
                QFile file(path);
                if (!file.open(QIODevice::ReadOnly)) {
                    qCWarning(LogCategories::sessionIndex) << "Cannot read" << path << file.errorString();
                    continue;
                }
                // Append-only transcripts only grow; anything else means it was rewritten: index it again.
                bool append = row.exists && size > row.size && row.indexedBytes <= size;
                if (append) {
                    const qint64 headEnd = qMin(row.indexedBytes, kHashWindow);
                    const qint64 tailStart = qMax<qint64>(0, row.indexedBytes - kHashWindow);
                    append = hashRange(file, 0, headEnd) == row.headHash &&
                             hashRange(file, tailStart, row.indexedBytes) == row.tailHash;
                }
                if (append) {
                    ++stats.sessionsAppended;
                } else {
                    if (row.exists) {
                        ++stats.sessionsRebuilt;
                        if (!deleteEntries(db, path)) {
                            db.rollback();
                            return sqlFailure(db.lastError());
                        }
                    }
                    const qint64 keptTitleMtime = row.titleMtime;
                    const QString keptTitle = row.titleOverride;
                    row = SessionRow{};
                    row.titleMtime = keptTitleMtime;
                    row.titleOverride = keptTitle;
                    row.id = sessionDir;
                    row.createdAt = mtime;
                }
                if (!indexTranscript(db, file, path, &row, &stats.linesRead)) {
                    db.rollback();
                    return Result<SessionIndexStats>::failure(
                        translateIndex("Cannot index the session %1.").arg(path));
                }
                row.size = size;
                row.updatedAt = mtime;
                row.headHash = hashRange(file, 0, qMin(row.indexedBytes, kHashWindow));
                row.tailHash =
                    hashRange(file, qMax<qint64>(0, row.indexedBytes - kHashWindow), row.indexedBytes);
            }
            if (!saveRow(db, path, directory, nameSpace, row)) {
                db.rollback();
                return sqlFailure(db.lastError());
            }
        }
    }
    for (const QString &gone : std::as_const(known)) {
        QSqlQuery remove(db);
        remove.prepare(QStringLiteral("DELETE FROM sessions WHERE path = ?"));
        remove.addBindValue(gone);
        if (!deleteEntries(db, gone) || !remove.exec()) {
            db.rollback();
            return sqlFailure(db.lastError());
        }
        ++stats.sessionsRemoved;
    }
    if (!db.commit())
        return sqlFailure(db.lastError());
    return stats;
}

Result<QList<SessionInfo>> SessionIndex::sessions(const QString &workspace)
{
    using Infos = QList<SessionInfo>;
    const QMutexLocker locker(&indexMutex());
    if (auto updated = update(); !updated)
        return Result<Infos>::failure(updated.error());
    Connection connection(m_databasePath);
    bool fullRebuild = false;
    if (auto opened = openIndex(connection, m_databasePath, &fullRebuild); !opened)
        return Result<Infos>::failure(opened.error());
    const QString nameSpace = namespaceFilterFor(workspace);
    QString sql = QStringLiteral("SELECT ") + kSessionColumns + QStringLiteral(" FROM sessions s");
    if (!nameSpace.isEmpty())
        sql += QStringLiteral(" WHERE s.namespace = ?");
    sql += QStringLiteral(" ORDER BY s.updated_at DESC, s.last_seq DESC");
    QSqlQuery select(connection.db());
    select.prepare(sql);
    if (!nameSpace.isEmpty())
        select.addBindValue(nameSpace);
    if (!select.exec())
        return Result<Infos>::failure(select.lastError().text());
    Infos infos;
    while (select.next())
        infos.append(sessionInfoFrom(select, 0));
    return infos;
}

Result<QList<SessionSearchHit>> SessionIndex::search(const QString &query, const QString &workspace,
                                                     int limit, int *matchingSessions)
{
    using Hits = QList<SessionSearchHit>;
    if (matchingSessions)
        *matchingSessions = 0;
    const QString match = ftsQuery(query);
    if (match.isEmpty())
        return Hits{};
    const QMutexLocker locker(&indexMutex());
    if (auto updated = update(); !updated)
        return Result<Hits>::failure(updated.error());

    Connection connection(m_databasePath);
    bool fullRebuild = false;
    if (auto opened = openIndex(connection, m_databasePath, &fullRebuild); !opened)
        return Result<Hits>::failure(opened.error());
    QSqlDatabase &db = connection.db();

    const QString nameSpace = namespaceFilterFor(workspace);
    // Every match, sessions newest first and inside a session the best passage (bm25, then the latest event)
    // first; the first row of each session is its hit. Snippets are then made only for those rows.
    QString sql = QStringLiteral("SELECT e.seq, e.source, entries_fts.rowid, ") + kSessionColumns +
                  QStringLiteral(" FROM entries_fts JOIN entries e ON e.id = entries_fts.rowid "
                                 "JOIN sessions s ON s.path = e.path WHERE entries_fts MATCH ?");
    if (!nameSpace.isEmpty())
        sql += QStringLiteral(" AND s.namespace = ?");
    sql +=
        QStringLiteral(" ORDER BY s.updated_at DESC, s.last_seq DESC, s.path, bm25(entries_fts), e.seq DESC");

    QSqlQuery select(db);
    select.setForwardOnly(true);
    select.prepare(sql);
    select.addBindValue(match);
    if (!nameSpace.isEmpty())
        select.addBindValue(nameSpace);
    if (!select.exec())
        return Result<Hits>::failure(translateIndex("Search failed: %1").arg(select.lastError().text()));
    Hits hits;
    QList<qint64> rowIds;
    QString previousPath;
    int matching = 0;
    // Past the limit the rows are only counted, and only when the caller asks how many there are.
    while ((hits.size() < limit || matchingSessions) && select.next()) {
        const QString path = select.value(3).toString();
        if (path == previousPath)
            continue;
        previousPath = path;
        ++matching;
        if (hits.size() >= limit)
            continue;
        SessionSearchHit hit;
        hit.seq = select.value(0).toULongLong();
        hit.source = select.value(1).toString();
        hit.session = sessionInfoFrom(select, 3);
        hits.append(hit);
        rowIds.append(select.value(2).toLongLong());
    }
    select.finish();
    if (matchingSessions)
        *matchingSessions = matching;

    QSqlQuery snippet(db);
    snippet.prepare(
        QStringLiteral("SELECT snippet(entries_fts, 0, char(2), char(3), '…', 24) FROM entries_fts "
                       "WHERE entries_fts MATCH ? AND rowid = ?"));
    for (qsizetype i = 0; i < hits.size(); ++i) {
        snippet.addBindValue(match);
        snippet.addBindValue(rowIds.at(i));
        if (snippet.exec() && snippet.next())
            parseSnippet(snippet.value(0).toString(), &hits[i]);
        snippet.finish();
    }
    return hits;
}

} // namespace keen
