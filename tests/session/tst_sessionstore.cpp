// The durable session store (reference 5.1, 5.2, 5.4 and 4.8 items 27-29): layout, permissions, append,
// atomic batch, torn-line load, listing, rename, remove and pruning.
#include "session/sessionstore.h"
#include "sessionfixtures.h"
#include "testenvironment.h"
#include "workloads.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include <sys/stat.h>

#include <unistd.h>

#include <list>

using namespace keen;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

QList<QByteArray> nonEmptyLines(const QString &path)
{
    QList<QByteArray> lines = readAll(path).split('\n');
    lines.removeAll(QByteArray());
    return lines;
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}

void setMtime(const QString &path, const QDateTime &time)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(time, QFileDevice::FileModificationTime));
}

QFileDevice::Permissions ownerOnly(bool directory)
{
    QFileDevice::Permissions permissions = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    if (directory)
        permissions |= QFileDevice::ExeOwner;
    return permissions;
}

// Permissions without the Qt "User" duplicates, which depend on who runs the test.
QFileDevice::Permissions modeOf(const QString &path)
{
    const QFileDevice::Permissions all = QFileInfo(path).permissions();
    return all & (QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                  QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                  QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther);
}

QString expectedNamespace(const QString &sanitized, const QString &path)
{
    return sanitized + QLatin1Char('-') +
           QString::fromLatin1(
               QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1).toHex().left(10));
}

QStringList entriesOf(const QString &directory)
{
    return QDir(directory).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

// What a full parse of a transcript says a listing shows: every line parsed, in order (the reference the
// listing's head and tail reads must agree with).
SessionInfo fullParse(const QString &directory)
{
    const QString path = directory + QStringLiteral("/transcript_events.jsonl");
    SessionInfo info;
    info.id = QFileInfo(directory).fileName();
    info.path = path;
    info.directory = directory;
    info.updatedAt = QFileInfo(path).lastModified();
    QString firstUser;
    bool started = false;
    QByteArray bytes = readAll(path);
    bytes.replace('\r', '\n');
    for (const QByteArray &line : bytes.split('\n')) {
        const QJsonDocument document = QJsonDocument::fromJson(line);
        if (!document.isObject())
            continue;
        const auto event = SessionEvent::fromJson(document.object());
        if (!event)
            continue;
        info.lastSeq = event->seq;
        if (const SessionEvent::Started *payload = event->started(); payload && !started) {
            started = true;
            info.workspace = payload->cwd;
            info.createdAt = payload->createdTime();
        } else if (event->kind == SessionEvent::Kind::UserMessage) {
            if (firstUser.isEmpty())
                firstUser = event->content();
            info.lastUserMessage = event->content().simplified();
        }
    }
    if (!info.createdAt.isValid())
        info.createdAt = info.updatedAt;
    info.title = QString::fromUtf8(readAll(directory + QStringLiteral("/title.txt"))).simplified();
    if (info.title.isEmpty()) {
        info.title = firstUser.simplified();
        if (info.title.size() > 80)
            info.title = info.title.left(79).trimmed() + QChar(0x2026);
    }
    return info;
}

} // namespace

class TestSessionStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void namespaceExamples_data();
    void namespaceExamples();
    void sessionIdsAreRandomUuidV4();
    void defaultRootFollowsKeenHome();

    void createWritesSessionStartedAsSeqOne();
    void foldersArePrivateAndTranscriptIs0600();
    void appendWritesOneCompactLineWithNextSeq();
    void appendBatchAtomicallyAppendsSequentialEvents_S60_S61();
    void appendBatchFailureLeavesNoPartialEvents();
    void appendBatchFailureInReadOnlyFolderLeavesNoTemp();
    void storeRejectsInvalidAppendAndLoad();
    void emptyBatchIsANoOp();

    void loadSkipsMalformedAndTornLines();
    void appendAfterTornLineStartsOnItsOwnLine();
    void loadTailReadsOnlyTheLastEvents();
    void loadTailNeverTakesACutLine();
    void longTranscriptLoadsLineForLineAsParsedInOrder();
    void loadByIdAndByPath();
    void loadReadsReferenceAgentTranscripts();
    void loadErrorsNameTheFileOrId();
    void badSeqIsSkippedWithItsReasonAndTheNextTurnSurvives_data();
    void badSeqIsSkippedWithItsReasonAndTheNextTurnSurvives();
    void seqAtTheLimitRefusesToAppendClearly();
    void malformedCompactionNeverReplacesHistory_data();
    void malformedCompactionNeverReplacesHistory();
    void crOnlyAndCrlfLineEndingsLoad();
    void unreadableTranscriptIsListedWithFileAndReason_data();
    void unreadableTranscriptIsListedWithFileAndReason();
    void idIsTheFolderNameWhateverSessionStartedSays();

    void listIsNewestFirstPerWorkspaceOrAll();
    void listTieBreaksOnLastSeq();
    void listSkipsFoldersWithoutTranscript();
    void listTitleIsShortenedFirstUserMessage();
    void renameOverridesTitleAndCanBeCleared();
    void removeDeletesTheSessionFolder();
    void listIsFastForAThousandSessions();
    void listEqualsAFullParseOfEveryLine();

private:
    std::unique_ptr<test::TestEnvironment> m_env;
    std::unique_ptr<SessionStore> m_store;
    QString m_workspace;
};

void TestSessionStore::init()
{
    m_env = std::make_unique<test::TestEnvironment>();
    m_store = std::make_unique<SessionStore>();
    m_workspace = m_env->path(QStringLiteral("workspace"));
    QDir().mkpath(m_workspace);
}

void TestSessionStore::cleanup()
{
    m_store.reset();
    m_env.reset();
}

void TestSessionStore::namespaceExamples_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("sanitized");
    QTest::newRow("plain") << QStringLiteral("/home/user/project") << QStringLiteral("home-user-project");
    QTest::newRow("root") << QStringLiteral("/") << QStringLiteral("root");
    QTest::newRow("spaces and brackets")
        << QStringLiteral("/tmp/my project (2)") << QStringLiteral("tmp-my-project-2");
    QTest::newRow("keeps dots underscores dashes")
        << QStringLiteral("/srv/app_v1.2-beta") << QStringLiteral("srv-app_v1.2-beta");
    QTest::newRow("trims dots and dashes") << QStringLiteral("/srv/.cache.") << QStringLiteral("srv-.cache");
    QTest::newRow("backslashes") << QStringLiteral("C:\\Users\\me") << QStringLiteral("C--Users-me");
    QTest::newRow("non-ascii run") << QStringLiteral("/home/J\u00fcrgen \u00e9t\u00e9/x")
                                   << QStringLiteral("home-J-rgen-t--x");
    QTest::newRow("only unsafe") << QStringLiteral("/\u00e9\u00e9/") << QStringLiteral("root");
    // A character outside the BMP (two UTF-16 units) is one unsafe character; a run of them is one dash.
    QTest::newRow("emoji run") << QStringLiteral("/a/\U0001F600\U0001F600b/c d")
                               << QStringLiteral("a--b-c-d");
}

void TestSessionStore::namespaceExamples()
{
    QFETCH(QString, path);
    QFETCH(QString, sanitized);
    QCOMPARE(SessionStore::namespaceFor(path), expectedNamespace(sanitized, path));
}

void TestSessionStore::sessionIdsAreRandomUuidV4()
{
    static const QRegularExpression uuidV4(
        QStringLiteral("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"));
    QSet<QString> seen;
    for (int i = 0; i < 200; ++i) {
        const QString id = SessionStore::newSessionId();
        QVERIFY2(uuidV4.match(id).hasMatch(), qPrintable(id));
        seen.insert(id);
    }
    QCOMPARE(seen.size(), 200);
}

void TestSessionStore::defaultRootFollowsKeenHome()
{
    QCOMPARE(SessionStore::defaultRoot(), m_env->path(QStringLiteral("sessions")));
    QCOMPARE(m_store->root(), m_env->path(QStringLiteral("sessions")));
}

void TestSessionStore::createWritesSessionStartedAsSeqOne()
{
    const auto session = m_store->create(m_workspace);
    QVERIFY2(session.ok(), qPrintable(session.error()));
    QCOMPARE(session->nextSeq, quint64(2));
    QCOMPARE(session->workspace, m_workspace);
    QCOMPARE(session->directory, m_store->root() + QLatin1Char('/') +
                                     SessionStore::namespaceFor(m_workspace) + QLatin1Char('/') +
                                     session->id);
    QCOMPARE(session->transcriptPath, session->directory + QStringLiteral("/transcript_events.jsonl"));

    const QList<QByteArray> lines = nonEmptyLines(session->transcriptPath);
    QCOMPARE(lines.size(), 1);
    const QJsonObject line = QJsonDocument::fromJson(lines.first()).object();
    QCOMPARE(line.value(QStringLiteral("seq")).toInt(), 1);
    QCOMPARE(line.value(QStringLiteral("kind")).toString(), QStringLiteral("session_started"));
    const QJsonObject started = line.value(QStringLiteral("session_started")).toObject();
    QCOMPARE(started.value(QStringLiteral("session_id")).toString(), session->id);
    QCOMPARE(started.value(QStringLiteral("cwd")).toString(), m_workspace);
    const QDateTime created =
        QDateTime::fromString(started.value(QStringLiteral("created_at")).toString(), Qt::ISODateWithMs);
    QVERIFY(created.isValid());
    QVERIFY(qAbs(created.secsTo(QDateTime::currentDateTimeUtc())) < 60);
}

void TestSessionStore::foldersArePrivateAndTranscriptIs0600()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QCOMPARE(modeOf(m_store->root()), ownerOnly(true));
    QCOMPARE(modeOf(QFileInfo(session->directory).path()), ownerOnly(true));
    QCOMPARE(modeOf(session->directory), ownerOnly(true));
    QCOMPARE(modeOf(session->transcriptPath), ownerOnly(false));

    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("hi"))).ok());
    QCOMPARE(modeOf(session->transcriptPath), ownerOnly(false));
    QVERIFY(m_store->appendBatch(*session, {SessionEvent::userMessage(QStringLiteral("a"))}).ok());
    QCOMPARE(modeOf(session->transcriptPath), ownerOnly(false));
    QVERIFY(m_store->rename(session->id, QStringLiteral("title")).ok());
    QCOMPARE(modeOf(session->directory + QStringLiteral("/title.txt")), ownerOnly(false));
}

void TestSessionStore::appendWritesOneCompactLineWithNextSeq()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const auto seq = m_store->append(*session, SessionEvent::userMessage(QStringLiteral("hello\nworld")));
    QVERIFY2(seq.ok(), qPrintable(seq.error()));
    QCOMPARE(*seq, quint64(2));
    QCOMPARE(session->nextSeq, quint64(3));
    const QByteArray bytes = readAll(session->transcriptPath);
    QVERIFY(bytes.endsWith('\n'));
    const QList<QByteArray> lines = nonEmptyLines(session->transcriptPath);
    QCOMPARE(lines.size(), 2);
    QVERIFY(!lines.at(1).contains(' ')); // compact JSON
    const QJsonObject line = QJsonDocument::fromJson(lines.at(1)).object();
    QCOMPARE(line.value(QStringLiteral("seq")).toInt(), 2);
    QCOMPARE(line.value(QStringLiteral("kind")).toString(), QStringLiteral("user_message"));
    QCOMPARE(
        line.value(QStringLiteral("user_message")).toObject().value(QStringLiteral("content")).toString(),
        QStringLiteral("hello\nworld"));
}

// Reference 4.8 item 27 (TestStoreAppendBatch_AtomicallyAppendsSequentialEvents).
void TestSessionStore::appendBatchAtomicallyAppendsSequentialEvents_S60_S61()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const SessionEvent checkpoint =
        SessionEvent::assistantTurn({}, QStringLiteral("before checkpoint"), std::nullopt, false, QString());
    const SessionEvent compaction = SessionEvent::compactionApplied(
        QString(), {}, {Message::user(QStringLiteral("<compacted_context>summary</compacted_context>"))});
    // What a crash between QSaveFile's link and rename would leave behind.
    writeFile(session->transcriptPath + QStringLiteral(".AbC123"), "stale");
    const auto seqs = m_store->appendBatch(*session, {checkpoint, compaction});
    QVERIFY2(seqs.ok(), qPrintable(seqs.error()));
    QCOMPARE(*seqs, (QList<quint64>{2, 3}));
    QCOMPARE(session->nextSeq, quint64(4));

    const auto loaded = m_store->load(session->transcriptPath);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->events.size(), 3);
    QCOMPARE(loaded->events.at(1).seq, quint64(2));
    QCOMPARE(loaded->events.at(1).kind, SessionEvent::Kind::AssistantTurn);
    QCOMPARE(loaded->events.at(2).seq, quint64(3));
    QCOMPARE(loaded->events.at(2).kind, SessionEvent::Kind::CompactionApplied);
    QCOMPARE(loaded->session.nextSeq, quint64(4));
    // Only the transcript is left in the folder: the temporary file was renamed over it.
    QCOMPARE(entriesOf(session->directory), QStringList{QStringLiteral("transcript_events.jsonl")});
}

// Reference 4.8 item 28 (TestStoreAppendBatch_FailureLeavesNoPartialEvents).
void TestSessionStore::appendBatchFailureLeavesNoPartialEvents()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(QDir(session->directory).removeRecursively());

    const auto seqs = m_store->appendBatch(*session, {SessionEvent::userMessage(QStringLiteral("a")),
                                                      SessionEvent::userMessage(QStringLiteral("b"))});
    QVERIFY(!seqs.ok());
    QVERIFY2(seqs.error().contains(session->transcriptPath), qPrintable(seqs.error()));
    QCOMPARE(session->nextSeq, quint64(2));
    QVERIFY(!QFile::exists(session->transcriptPath));
    QVERIFY(!QFileInfo::exists(session->directory));

    // A single append does not revive the deleted session either.
    const auto seq = m_store->append(*session, SessionEvent::userMessage(QStringLiteral("c")));
    QVERIFY(!seq.ok());
    QVERIFY2(seq.error().contains(session->transcriptPath), qPrintable(seq.error()));
    QCOMPARE(session->nextSeq, quint64(2));
    QVERIFY(!QFile::exists(session->transcriptPath));
}

void TestSessionStore::appendBatchFailureInReadOnlyFolderLeavesNoTemp()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const QByteArray before = readAll(session->transcriptPath);
    QVERIFY(QFile::setPermissions(session->directory, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    // Root ignores folder permissions: write as an unprivileged user for the duration of the call instead.
    const bool asRoot = ::geteuid() == 0;
    if (asRoot)
        QCOMPARE(::seteuid(65534), 0);
    const auto seqs = m_store->appendBatch(*session, {SessionEvent::userMessage(QStringLiteral("a"))});
    if (asRoot)
        QCOMPARE(::seteuid(0), 0);
    QVERIFY(QFile::setPermissions(session->directory, ownerOnly(true)));
    QVERIFY(!seqs.ok());
    QCOMPARE(session->nextSeq, quint64(2));
    QCOMPARE(readAll(session->transcriptPath), before);
    QCOMPARE(entriesOf(session->directory), QStringList{QStringLiteral("transcript_events.jsonl")});
}

// Reference 4.8 item 29 (TestStoreRejectsInvalidAppendAndLoad).
void TestSessionStore::storeRejectsInvalidAppendAndLoad()
{
    Session invalid;
    QVERIFY(!invalid.isValid());
    const auto seq = m_store->append(invalid, SessionEvent::userMessage(QStringLiteral("x")));
    QVERIFY(!seq.ok());
    QVERIFY(seq.error().contains(QStringLiteral("invalid session")));
    const auto seqs = m_store->appendBatch(invalid, {SessionEvent::userMessage(QStringLiteral("x"))});
    QVERIFY(!seqs.ok());
    QVERIFY(seqs.error().contains(QStringLiteral("invalid session")));
    QCOMPARE(invalid.nextSeq, quint64(1));
    QVERIFY(!m_store->load(QString()).ok());
    QVERIFY(!m_store->load(QStringLiteral("../../etc")).ok());
    QVERIFY(entriesOf(m_store->root()).isEmpty());
}

void TestSessionStore::emptyBatchIsANoOp()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const QByteArray before = readAll(session->transcriptPath);
    const auto seqs = m_store->appendBatch(*session, {});
    QVERIFY(seqs.ok());
    QVERIFY(seqs->isEmpty());
    QCOMPARE(session->nextSeq, quint64(2));
    QCOMPARE(readAll(session->transcriptPath), before);
}

void TestSessionStore::loadSkipsMalformedAndTornLines()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("one"))).ok());
    {
        QFile file(session->transcriptPath);
        QVERIFY(file.open(QIODevice::Append));
        file.write("not json at all\n");
        file.write("{\"seq\":3,\"kind\":\"unknown_kind\",\"unknown_kind\":{}}\n");
        file.write("\n");
        file.write("{\"seq\":4,\"kind\":\"user_message\",\"user_message\":{\"content\":\"four\"}}\n");
        file.write("{\"seq\":5,\"kind\":\"user_mess"); // torn by a crash
    }
    const auto loaded = m_store->load(session->transcriptPath);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    // The unknown kind is another writer's event: kept (issue 13), not counted as malformed.
    QCOMPARE(loaded->skippedLines, 2);
    QCOMPARE(loaded->events.size(), 4);
    QCOMPARE(loaded->events.at(2).kind, SessionEvent::Kind::Unknown);
    QCOMPARE(loaded->events.at(2).kindName(), QStringLiteral("unknown_kind"));
    QCOMPARE(loaded->events.last().content(), QStringLiteral("four"));
    QCOMPARE(loaded->session.nextSeq, quint64(5));
    QCOMPARE(loaded->session.id, session->id);
    QCOMPARE(loaded->session.workspace, m_workspace);
    QCOMPARE(loaded->session.directory, session->directory);
}

void TestSessionStore::appendAfterTornLineStartsOnItsOwnLine()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    {
        QFile file(session->transcriptPath);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{\"seq\":2,\"kind\":\"user_mess");
    }
    auto loaded = m_store->load(session->id);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->session.nextSeq, quint64(2));
    Session resumed = loaded->session;
    QVERIFY(m_store->append(resumed, SessionEvent::userMessage(QStringLiteral("after"))).ok());
    QVERIFY(m_store->appendBatch(resumed, {SessionEvent::userMessage(QStringLiteral("batched"))}).ok());
    loaded = m_store->load(session->id);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->skippedLines, 1);
    QCOMPARE(loaded->events.size(), 3);
    QCOMPARE(loaded->events.at(1).content(), QStringLiteral("after"));
    QCOMPARE(loaded->events.at(2).content(), QStringLiteral("batched"));
    QCOMPARE(loaded->session.nextSeq, quint64(4));
}

// Issue 11: a window shows a long session's last screen from the end of its transcript, before the rest is
// read. Those events are exactly the last ones the whole load returns, a torn or damaged line among them or
// not.
void TestSessionStore::loadTailReadsOnlyTheLastEvents()
{
    const QString root = m_env->path(QStringLiteral("sessions"));
    const QString path = test::Workloads::writeBigSession(root, m_workspace, 3000, 3000); // about 9 MB
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        file.write("not json at all\n");
        file.write("{\"seq\":999999,\"kind\":\"user_mess"); // torn by a crash
    }
    const SessionStore store(root);
    const QString id = QFileInfo(path).dir().dirName();
    const auto whole = store.load(id);
    QVERIFY2(whole.ok(), qPrintable(whole.error()));
    for (const int wanted : {1, 60, 200, 5000}) {
        const auto tail = store.loadTail(id, wanted);
        QVERIFY2(tail.ok(), qPrintable(tail.error()));
        const qsizetype expected = qMin<qsizetype>(wanted, whole->events.size());
        QVERIFY2(tail->events.size() >= expected && tail->events.size() < expected + 200,
                 qPrintable(QString::number(tail->events.size())));
        const qsizetype offset = whole->events.size() - tail->events.size();
        for (qsizetype i = 0; i < tail->events.size(); ++i) {
            QCOMPARE(tail->events.at(i).seq, whole->events.at(offset + i).seq);
            QCOMPARE(tail->events.at(i).toJson(), whole->events.at(offset + i).toJson());
        }
        QCOMPARE(tail->session.id, id);
        QCOMPARE(tail->session.nextSeq, whole->session.nextSeq);
    }
    // A missing session is the same clear error as load()'s.
    const auto missing = store.loadTail(QStringLiteral("0b1c2d3e-0000-4000-8000-00000000dead"), 60);
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().contains(QStringLiteral("0b1c2d3e-0000-4000-8000-00000000dead")));
}

// Issue 11: a long transcript is parsed in parts on several threads. What load() returns is still every
// valid line's event in file order, and each damaged line is named by its own line number, wherever the
// parts were cut.
void TestSessionStore::longTranscriptLoadsLineForLineAsParsedInOrder()
{
    const QString root = m_env->path(QStringLiteral("sessions"));
    const QString path = test::Workloads::writeBigSession(root, m_workspace, 3000, 3000); // about 9 MB
    QList<QByteArray> lines = readAll(path).split('\n');
    while (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast();
    // Damaged lines spread over the file: near the start, around every quarter, at the end.
    for (const qsizetype at : {qsizetype(2), lines.size() / 4, lines.size() / 2, lines.size() / 2 + 1,
                               3 * lines.size() / 4, lines.size()})
        lines.insert(at, "{\"seq\":\"damaged\"");
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(lines.join('\n') + '\n');
    }
    QList<SessionEvent> expected;
    QList<int> damagedLineNumbers;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const auto event = SessionEvent::fromJson(QJsonDocument::fromJson(lines.at(i)).object());
        if (event)
            expected.append(*event);
        else
            damagedLineNumbers.append(int(i + 1));
    }
    QCOMPARE(damagedLineNumbers.size(), 6);

    const auto loaded = SessionStore(root).load(path);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->events.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(loaded->events.at(i) == expected.at(i), qPrintable(QString::number(i)));
    QCOMPARE(loaded->skippedLines, 6);
    QCOMPARE(loaded->problems.size(), 6);
    for (qsizetype i = 0; i < damagedLineNumbers.size(); ++i)
        QVERIFY2(loaded->problems.at(i).startsWith(QStringLiteral("line %1:").arg(damagedLineNumbers.at(i))),
                 qPrintable(loaded->problems.at(i)));
    QCOMPARE(loaded->session.nextSeq, expected.constLast().seq + 1);
}

// The tail is read from a byte offset, which mostly falls inside a line: that line is never taken for an
// event, and a line that starts exactly at the offset is.
void TestSessionStore::loadTailNeverTakesACutLine()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QString(300000, QLatin1Char('a')))).ok());
    // How many bytes a user message's line has besides its content (the same for every such line here).
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("probe"))).ok());
    const qsizetype overhead = nonEmptyLines(session->transcriptPath).constLast().size() + 1 - 5;
    constexpr qsizetype firstStep = 256 * 1024; // loadTail's first read
    // Last lines that start just before, exactly at and just after where that read starts.
    for (qsizetype lineBytes = firstStep - 2; lineBytes <= firstStep + 2; ++lineBytes) {
        const QString content(lineBytes - overhead, QLatin1Char('b'));
        QVERIFY(m_store->append(*session, SessionEvent::userMessage(content)).ok());
        QCOMPARE(nonEmptyLines(session->transcriptPath).constLast().size() + 1, lineBytes);
        const auto whole = m_store->load(session->id);
        QVERIFY(whole.ok());
        for (const int wanted : {1, 2, 3}) {
            const auto tail = m_store->loadTail(session->id, wanted);
            QVERIFY2(tail.ok(), qPrintable(tail.error()));
            QVERIFY(tail->events.size() >= wanted);
            QCOMPARE(tail->skippedLines, 0);
            const qsizetype offset = whole->events.size() - tail->events.size();
            for (qsizetype i = 0; i < tail->events.size(); ++i)
                QCOMPARE(tail->events.at(i).toJson(), whole->events.at(offset + i).toJson());
            QCOMPARE(tail->events.constLast().content(), content);
        }
    }
}

void TestSessionStore::loadByIdAndByPath()
{
    auto first = m_store->create(m_workspace);
    const QString other = m_env->path(QStringLiteral("other"));
    QDir().mkpath(other);
    auto second = m_store->create(other);
    QVERIFY(first.ok() && second.ok());
    QVERIFY(m_store->append(*second, SessionEvent::userMessage(QStringLiteral("x"))).ok());

    const auto byId = m_store->load(second->id);
    QVERIFY2(byId.ok(), qPrintable(byId.error()));
    QCOMPARE(byId->session.transcriptPath, second->transcriptPath);
    QCOMPARE(byId->session.workspace, other);
    QCOMPARE(byId->session.nextSeq, quint64(3));
    QCOMPARE(byId->events.size(), 2);

    const auto byPath = m_store->load(first->transcriptPath);
    QVERIFY(byPath.ok());
    QCOMPARE(byPath->session.id, first->id);
    QCOMPARE(byPath->session.nextSeq, quint64(2));

    const auto byFolder = m_store->load(first->directory);
    QVERIFY(byFolder.ok());
    QCOMPARE(byFolder->session.id, first->id);
}

void TestSessionStore::loadReadsReferenceAgentTranscripts()
{
    // Go's encoder writes fields in struct order and RFC 3339 with nanoseconds.
    const QString workspace = QStringLiteral("/abs/dir");
    const QString directory = m_store->root() + QLatin1Char('/') + SessionStore::namespaceFor(workspace) +
                              QStringLiteral("/0b1c2d3e-0000-4000-8000-000000000001");
    writeFile(
        directory + QStringLiteral("/transcript_events.jsonl"),
        "{\"seq\":1,\"kind\":\"session_started\",\"session_started\":{\"session_id\":"
        "\"0b1c2d3e-0000-4000-8000-000000000001\",\"created_at\":\"2025-03-04T05:06:07.123456789+02:00\","
        "\"cwd\":\"/abs/dir\"}}\n"
        "{\"seq\":2,\"kind\":\"user_message\",\"user_message\":{\"content\":\"fix   the\\n bug\"}}\n"
        "{\"seq\":3,\"kind\":\"assistant_turn\",\"assistant_turn\":{\"transcript\":[{\"kind\":\"text\","
        "\"content\":\"done\"}],\"message\":\"done\",\"turn_memory\":{\"tool_activity\":[{\"text_offset\":0,"
        "\"tool\":\"read_file\",\"input\":{\"path\":\"a.go\"},\"status\":\"success\"}]}}}\n");
    const auto loaded = m_store->load(QStringLiteral("0b1c2d3e-0000-4000-8000-000000000001"));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->events.size(), 3);
    QCOMPARE(loaded->session.workspace, workspace);
    QCOMPARE(loaded->session.nextSeq, quint64(4));

    const QList<SessionInfo> sessions = m_store->list(workspace);
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions.first().createdAt, QDateTime(QDate(2025, 3, 4), QTime(3, 6, 7, 123), Qt::UTC));
    QCOMPARE(sessions.first().title, QStringLiteral("fix the bug"));
    QCOMPARE(sessions.first().lastSeq, quint64(3));
}

void TestSessionStore::loadErrorsNameTheFileOrId()
{
    const auto missingId = m_store->load(QStringLiteral("00000000-0000-4000-8000-000000000000"));
    QVERIFY(!missingId.ok());
    QVERIFY2(missingId.error().contains(QStringLiteral("00000000-0000-4000-8000-000000000000")),
             qPrintable(missingId.error()));
    const QString missingPath = m_env->path(QStringLiteral("nowhere/transcript_events.jsonl"));
    const auto missingFile = m_store->load(missingPath);
    QVERIFY(!missingFile.ok());
    QVERIFY2(missingFile.error().contains(missingPath), qPrintable(missingFile.error()));
}

void TestSessionStore::badSeqIsSkippedWithItsReasonAndTheNextTurnSurvives_data()
{
    QTest::addColumn<QByteArray>("seq");
    QTest::addColumn<QString>("shown"); // how the warning prints it: as written (2^63 - 1 printed 2^63)
    QTest::newRow("2^63 - 1") << QByteArray("9223372036854775807")
                              << QStringLiteral("its seq 9223372036854775807 ");
    QTest::newRow("2^63") << QByteArray("9223372036854775808")
                          << QStringLiteral("its seq 9223372036854775808 ");
    QTest::newRow("2^64") << QByteArray("18446744073709551616")
                          << QStringLiteral("its seq 18446744073709551616 ");
    QTest::newRow("2^53 + 2") << QByteArray("9007199254740994")
                              << QStringLiteral("its seq 9007199254740994 ");
    QTest::newRow("1e300") << QByteArray("1e300") << QStringLiteral("its seq 1e+300 ");
    QTest::newRow("fraction") << QByteArray("2.5") << QStringLiteral("its seq 2.5 ");
    QTest::newRow("negative") << QByteArray("-7") << QStringLiteral("its seq -7 ");
    QTest::newRow("string") << QByteArray("\"3\"") << QStringLiteral("it has no seq");
}

void TestSessionStore::badSeqIsSkippedWithItsReasonAndTheNextTurnSurvives()
{
    // issue 14: a seq of 2^63 made every new event's seq negative, so the loader dropped the next turn.
    QFETCH(QByteArray, seq);
    QFETCH(QString, shown);
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("two"))).ok());
    {
        QFile file(session->transcriptPath);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{\"seq\":" + seq +
                   ",\"kind\":\"user_message\",\"user_message\":{\"content\":\"huge\"}}\n");
    }
    auto loaded = m_store->load(session->id);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->skippedLines, 1);
    QCOMPARE(loaded->problems.size(), 1);
    QVERIFY2(loaded->problems.first().startsWith(QStringLiteral("line 3: ")),
             qPrintable(loaded->problems.first()));
    QVERIFY2(loaded->problems.first().contains(shown), qPrintable(loaded->problems.first()));
    // The notice a person sees names the file, the line and why.
    QVERIFY(loaded->problemSummary().contains(session->transcriptPath));
    QVERIFY(loaded->problemSummary().contains(loaded->problems.first()));

    // The next turn gets the seq after the last good one, and it is there when the session loads again.
    Session resumed = loaded->session;
    QCOMPARE(resumed.nextSeq, quint64(3));
    QVERIFY(m_store->append(resumed, SessionEvent::userMessage(QStringLiteral("next turn"))).ok());
    QVERIFY(m_store->appendBatch(resumed, {SessionEvent::userMessage(QStringLiteral("batched"))}).ok());
    loaded = m_store->load(session->id);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->events.size(), 4);
    QCOMPARE(loaded->events.at(2).content(), QStringLiteral("next turn"));
    QCOMPARE(loaded->events.at(3).content(), QStringLiteral("batched"));
    QCOMPARE(loaded->events.at(3).seq, quint64(4));
}

void TestSessionStore::seqAtTheLimitRefusesToAppendClearly()
{
    // 2^53 is the last seq a JSON number holds exactly: loaded, but nothing can follow it.
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    {
        QFile file(session->transcriptPath);
        QVERIFY(file.open(QIODevice::Append));
        file.write(
            "{\"seq\":9007199254740992,\"kind\":\"user_message\",\"user_message\":{\"content\":\"last\"}}\n");
    }
    auto loaded = m_store->load(session->id);
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->skippedLines, 0);
    QCOMPARE(loaded->events.last().content(), QStringLiteral("last"));
    Session resumed = loaded->session;
    const auto appended = m_store->append(resumed, SessionEvent::userMessage(QStringLiteral("more")));
    QVERIFY(!appended.ok());
    QVERIFY2(appended.error().contains(session->transcriptPath) &&
                 appended.error().contains(QStringLiteral("2^53")),
             qPrintable(appended.error()));
    const auto batch = m_store->appendBatch(resumed, {SessionEvent::userMessage(QStringLiteral("more"))});
    QVERIFY(!batch.ok());
    QCOMPARE(m_store->load(session->id)->events.size(), 2); // nothing half-written
}

void TestSessionStore::malformedCompactionNeverReplacesHistory_data()
{
    QTest::addColumn<QByteArray>("payload");
    QTest::newRow("messages is a string") << QByteArray(R"({"status":"","messages":"oops"})");
    QTest::newRow("messages is an object") << QByteArray(R"({"status":"","messages":{}})");
    QTest::newRow("no messages") << QByteArray(R"({"status":""})");
    QTest::newRow("empty list, kept but not applied") << QByteArray(R"({"status":"","messages":[]})");
    QTest::newRow("not messages") << QByteArray(R"({"status":"","messages":[1,"two",null]})");
    QTest::newRow("objects without a role") << QByteArray(R"({"status":"","messages":[{"Content":"x"}]})");
    QTest::newRow("one good, one bad")
        << QByteArray(R"({"status":"","messages":[{"Role":"user","Content":"ok"},{"Role":"robot"}]})");
    QTest::newRow("payload is a list") << QByteArray(R"([1])");
}

void TestSessionStore::malformedCompactionNeverReplacesHistory()
{
    // issue 14: a damaged compaction_applied was accepted and wiped the replayed history.
    QFETCH(QByteArray, payload);
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("question"))).ok());
    QVERIFY(m_store
                ->append(*session, SessionEvent::assistantTurn({}, QStringLiteral("answer"), std::nullopt,
                                                               false, QString()))
                .ok());
    {
        QFile file(session->transcriptPath);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{\"seq\":4,\"kind\":\"compaction_applied\",\"compaction_applied\":" + payload + "}\n");
    }
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("after"))).ok());
    const auto loaded = m_store->load(session->id);
    QVERIFY(loaded.ok());
    // An empty list is a well-formed event (written back unchanged) that is simply not applied.
    QCOMPARE(loaded->skippedLines, payload.contains("[]") ? 0 : 1);
    QCOMPARE(loaded->problems.size(), 1);
    QVERIFY2(loaded->problems.first().startsWith(QStringLiteral("line 4: ")),
             qPrintable(loaded->problems.first()));
    QVERIFY2(loaded->problems.first().contains(QStringLiteral("compaction_applied")) ||
                 loaded->problems.first().contains(QStringLiteral("payload")),
             qPrintable(loaded->problems.first()));
    const MessageList history = buildConversation(loaded->events);
    QCOMPARE(history.size(), 3);
    QCOMPARE(history.at(0).content, QStringLiteral("question"));
    QCOMPARE(history.at(1).content, QStringLiteral("answer"));
    QCOMPARE(history.at(2).content, QStringLiteral("after"));
}

void TestSessionStore::crOnlyAndCrlfLineEndingsLoad()
{
    // issue 14: a transcript saved by an editor with CR-only line endings loaded as one damaged line.
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("one"))).ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("two"))).ok());
    const QByteArray lf = readAll(session->transcriptPath);
    for (const QByteArray &ending : {QByteArray("\r"), QByteArray("\r\n")}) {
        QByteArray converted = lf;
        converted.replace("\n", ending);
        writeFile(session->transcriptPath, converted);
        auto loaded = m_store->load(session->id);
        QVERIFY(loaded.ok());
        QCOMPARE(loaded->skippedLines, 0);
        QCOMPARE(loaded->events.size(), 3);
        QCOMPARE(loaded->events.at(2).content(), QStringLiteral("two"));
        const auto listed = m_store->find(session->id);
        QVERIFY(listed);
        QCOMPARE(listed->lastUserMessage, QStringLiteral("two"));
        QCOMPARE(listed->lastSeq, quint64(3));
        // And the next event is a line of its own.
        Session resumed = loaded->session;
        QVERIFY(m_store->append(resumed, SessionEvent::userMessage(QStringLiteral("three"))).ok());
        loaded = m_store->load(session->id);
        QCOMPARE(loaded->skippedLines, 0);
        QCOMPARE(loaded->events.last().content(), QStringLiteral("three"));
    }
}

void TestSessionStore::unreadableTranscriptIsListedWithFileAndReason_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("a folder in its place")
        << QStringLiteral("folder") << QStringLiteral("a folder is in its place");
    QTest::newRow("a symbolic link loop") << QStringLiteral("loop") << QStringLiteral("symbolic links");
    QTest::newRow("a FIFO") << QStringLiteral("fifo") << QStringLiteral("FIFO");
    QTest::newRow("a link to /dev/zero") << QStringLiteral("zero") << QStringLiteral("device");
    QTest::newRow("a dangling link") << QStringLiteral("dangling") << QStringLiteral("No such file");
}

void TestSessionStore::unreadableTranscriptIsListedWithFileAndReason()
{
    // issue 14: such a session vanished from the list and `run --session ID` said "No saved session"; a FIFO
    // hung the reader and /dev/zero grew memory until abort.
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const QString path = session->transcriptPath;
    const QByteArray native = QFile::encodeName(path);
    QVERIFY(QFile::remove(path));
    if (kind == QLatin1String("folder")) {
        QVERIFY(QDir().mkpath(path));
    } else if (kind == QLatin1String("loop")) {
        QVERIFY(QFile::link(path, path));
    } else if (kind == QLatin1String("fifo")) {
        QCOMPARE(::mkfifo(native.constData(), 0600), 0);
    } else if (kind == QLatin1String("zero")) {
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
    } else {
        QVERIFY(QFile::link(path + QStringLiteral(".gone"), path));
    }

    const QList<SessionInfo> sessions = m_store->list(m_workspace);
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions.first().id, session->id);
    QCOMPARE(sessions.first().path, path);
    QVERIFY2(sessions.first().problem.contains(path), qPrintable(sessions.first().problem));
    QVERIFY2(sessions.first().problem.contains(reason), qPrintable(sessions.first().problem));

    const auto found = m_store->find(session->id);
    QVERIFY(found);
    QCOMPARE(found->problem, sessions.first().problem);
    const auto loaded = m_store->load(session->id);
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error().contains(path) && loaded.error().contains(reason), qPrintable(loaded.error()));
    QVERIFY(!loaded.error().contains(QStringLiteral("No saved session")));
}

void TestSessionStore::idIsTheFolderNameWhateverSessionStartedSays()
{
    // issue 14: `sessions` listed session_started.session_id, which `run --session` then rejected.
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("hello"))).ok());
    QByteArray bytes = readAll(session->transcriptPath);
    bytes.replace(session->id.toUtf8(), "copied-from-elsewhere");
    writeFile(session->transcriptPath, bytes);

    const QList<SessionInfo> sessions = m_store->list(m_workspace);
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions.first().id, session->id);
    const auto loaded = m_store->load(sessions.first().id);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error()));
    QCOMPARE(loaded->session.id, session->id);
    QCOMPARE(loaded->events.first().started()->sessionId,
             QStringLiteral("copied-from-elsewhere")); // kept as written
    QVERIFY(!m_store->find(QStringLiteral("copied-from-elsewhere")));
}

void TestSessionStore::listIsNewestFirstPerWorkspaceOrAll()
{
    const QString other = m_env->path(QStringLiteral("other"));
    QDir().mkpath(other);
    auto older = m_store->create(m_workspace);
    auto newer = m_store->create(m_workspace);
    auto elsewhere = m_store->create(other);
    QVERIFY(older.ok() && newer.ok() && elsewhere.ok());
    QVERIFY(m_store->append(*older, SessionEvent::userMessage(QStringLiteral("first   question\n\tabout x")))
                .ok());
    QVERIFY(m_store->append(*older, SessionEvent::userMessage(QStringLiteral("second  one"))).ok());
    QVERIFY(m_store->append(*newer, SessionEvent::userMessage(QStringLiteral("newer"))).ok());
    QVERIFY(m_store->append(*elsewhere, SessionEvent::userMessage(QStringLiteral("elsewhere"))).ok());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    setMtime(older->transcriptPath, now.addSecs(-300));
    setMtime(newer->transcriptPath, now.addSecs(-100));
    setMtime(elsewhere->transcriptPath, now.addSecs(-200));

    const QList<SessionInfo> mine = m_store->list(m_workspace);
    QCOMPARE(mine.size(), 2);
    QCOMPARE(mine.at(0).id, newer->id);
    QCOMPARE(mine.at(1).id, older->id);
    const SessionInfo &info = mine.at(1);
    QCOMPARE(info.path, older->transcriptPath);
    QCOMPARE(info.directory, older->directory);
    QCOMPARE(info.workspace, m_workspace);
    QCOMPARE(info.title, QStringLiteral("first question about x"));
    QCOMPARE(info.lastUserMessage, QStringLiteral("second one"));
    QCOMPARE(info.lastSeq, quint64(3));
    QCOMPARE(info.updatedAt.toSecsSinceEpoch(), now.addSecs(-300).toSecsSinceEpoch());
    QVERIFY(info.createdAt.isValid());
    QVERIFY(qAbs(info.createdAt.secsTo(now)) < 60);

    const QList<SessionInfo> all = m_store->list();
    QCOMPARE(all.size(), 3);
    QCOMPARE(all.at(0).id, newer->id);
    QCOMPARE(all.at(1).id, elsewhere->id);
    QCOMPARE(all.at(2).id, older->id);

    QVERIFY(m_store->list(m_env->path(QStringLiteral("never-used"))).isEmpty());
    const auto found = m_store->find(elsewhere->id);
    QVERIFY(found.has_value());
    QCOMPARE(found->workspace, other);
}

void TestSessionStore::listTieBreaksOnLastSeq()
{
    auto shorter = m_store->create(m_workspace);
    auto longer = m_store->create(m_workspace);
    QVERIFY(shorter.ok() && longer.ok());
    QVERIFY(m_store->append(*longer, SessionEvent::userMessage(QStringLiteral("x"))).ok());
    const QDateTime when = QDateTime::currentDateTimeUtc().addSecs(-60);
    setMtime(shorter->transcriptPath, when);
    setMtime(longer->transcriptPath, when);
    const QList<SessionInfo> sessions = m_store->list(m_workspace);
    QCOMPARE(sessions.size(), 2);
    QCOMPARE(sessions.at(0).id, longer->id);
    QCOMPARE(sessions.at(0).lastSeq, quint64(2));
    QCOMPARE(sessions.at(1).lastSeq, quint64(1));
}

void TestSessionStore::listSkipsFoldersWithoutTranscript()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const QString namespaceDir = QFileInfo(session->directory).path();
    QVERIFY(QDir().mkpath(namespaceDir + QStringLiteral("/empty-session")));
    writeFile(namespaceDir + QStringLiteral("/stray-file"), "x");
    writeFile(m_store->root() + QStringLiteral("/other-ns/half/notes.txt"), "x");
    const QList<SessionInfo> sessions = m_store->list();
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions.first().id, session->id);
    // A session without a user message yet has an empty title and the transcript's mtime as updatedAt.
    QVERIFY(sessions.first().title.isEmpty());
    QVERIFY(sessions.first().lastUserMessage.isEmpty());
}

void TestSessionStore::listTitleIsShortenedFirstUserMessage()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    const QString longText = QStringLiteral("word ").repeated(60);
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(longText)).ok());
    const auto info = m_store->find(session->id);
    QVERIFY(info.has_value());
    QVERIFY(info->title.size() <= 80);
    QVERIFY(info->title.endsWith(QChar(0x2026)));
    QVERIFY(info->title.startsWith(QStringLiteral("word word")));
    // The last prompt is a preview too (found when tried: a pasted log of 7 MB was kept whole and elided on
    // every paint of the session list, seconds per paint).
    QCOMPARE(info->lastUserMessage.size(), SessionInfo::PreviewLength);
    QVERIFY(info->lastUserMessage.endsWith(QChar(0x2026)));
    QVERIFY(longText.simplified().startsWith(info->lastUserMessage.chopped(1)));
    QString log;
    for (int i = 0; i < 100000; ++i)
        log += QStringLiteral("line %1:\tsome pasted log output\n").arg(i);
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(log)).ok());
    const auto pasted = m_store->find(session->id);
    QVERIFY(pasted.has_value());
    QVERIFY(
        pasted->lastUserMessage.startsWith(QStringLiteral("line 0: some pasted log output line 1: some")));
    QVERIFY(pasted->lastUserMessage.size() <= SessionInfo::PreviewLength);
    QVERIFY(pasted->lastUserMessage.endsWith(QChar(0x2026)));
    QCOMPARE(SessionInfo::preview(QStringLiteral("  short\n\nprompt ")), QStringLiteral("short prompt"));
    // Whitespace past what is collapsed still counts as nothing more; words past it as more.
    QCOMPARE(SessionInfo::preview(QStringLiteral("a") + QString(5000, QLatin1Char(' '))),
             QStringLiteral("a"));
    QCOMPARE(
        SessionInfo::preview(QStringLiteral("a") + QString(5000, QLatin1Char(' ')) + QStringLiteral("b")),
        QStringLiteral("a") + QChar(0x2026));
    // A session started with a skill is named by the command, not by its marker.
    QCOMPARE(SessionInfo::preview(QStringLiteral("[Activate skill: changelog]\n\nAdd an entry."), 80),
             QStringLiteral("/changelog · Add an entry."));
    QCOMPARE(SessionInfo::preview(QStringLiteral("[Activate skill: ]"), 80),
             QStringLiteral("[Activate skill: ]"));
}

void TestSessionStore::renameOverridesTitleAndCanBeCleared()
{
    auto session = m_store->create(m_workspace);
    QVERIFY(session.ok());
    QVERIFY(m_store->append(*session, SessionEvent::userMessage(QStringLiteral("original question"))).ok());
    const QByteArray transcript = readAll(session->transcriptPath);
    QVERIFY(m_store->rename(session->id, QStringLiteral("  My\nrenamed session ")).ok());
    QCOMPARE(m_store->find(session->id)->title, QStringLiteral("My renamed session"));
    QCOMPARE(readAll(session->transcriptPath), transcript); // the schema is untouched
    QVERIFY(m_store->rename(session->id, QString()).ok());
    QCOMPARE(m_store->find(session->id)->title, QStringLiteral("original question"));
    const auto missing = m_store->rename(QStringLiteral("no-such-session"), QStringLiteral("x"));
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().contains(QStringLiteral("no-such-session")));
}

void TestSessionStore::removeDeletesTheSessionFolder()
{
    auto keep = m_store->create(m_workspace);
    auto drop = m_store->create(m_workspace);
    QVERIFY(keep.ok() && drop.ok());
    QVERIFY(m_store->remove(drop->id).ok());
    QVERIFY(!QFileInfo::exists(drop->directory));
    QVERIFY(!m_store->find(drop->id).has_value());
    QVERIFY(m_store->find(keep->id).has_value());
    QVERIFY(!m_store->remove(drop->id).ok());
    QVERIFY(!m_store->remove(QStringLiteral("..")).ok());
    QVERIFY(QFileInfo::exists(m_store->root()));
}

void TestSessionStore::listIsFastForAThousandSessions()
{
    // Realistic sessions: a few turns each, with large assistant transcripts that list() need not parse.
    const QString bigTranscript = QStringLiteral("lorem ipsum dolor sit amet ").repeated(300);
    QByteArray assistantLine;
    {
        SessionEvent turn = SessionEvent::assistantTurn(
            {TranscriptItem::text(bigTranscript)}, QStringLiteral("answer"), std::nullopt, false, QString());
        turn.seq = 3;
        assistantLine = QJsonDocument(turn.toJson()).toJson(QJsonDocument::Compact) + '\n';
    }
    for (int i = 0; i < 1000; ++i) {
        const QString workspace = QStringLiteral("/projects/p%1").arg(i % 20);
        const QString id = SessionStore::newSessionId();
        SessionEvent started = SessionEvent::sessionStarted(id, QDateTime::currentDateTimeUtc(), workspace);
        started.seq = 1;
        SessionEvent user = SessionEvent::userMessage(QStringLiteral("question %1").arg(i));
        user.seq = 2;
        QByteArray bytes = QJsonDocument(started.toJson()).toJson(QJsonDocument::Compact) + '\n' +
                           QJsonDocument(user.toJson()).toJson(QJsonDocument::Compact) + '\n';
        for (int turn = 0; turn < 8; ++turn)
            bytes += assistantLine;
        writeFile(m_store->root() + QLatin1Char('/') + SessionStore::namespaceFor(workspace) +
                      QLatin1Char('/') + id + QStringLiteral("/transcript_events.jsonl"),
                  bytes);
    }
    QElapsedTimer timer;
    timer.start();
    const QList<SessionInfo> sessions = m_store->list();
    const qint64 elapsed = timer.elapsed();
    qInfo("list() of 1000 sessions (%lld MB) took %lld ms", qint64(1000) * 8 * assistantLine.size() / 1000000,
          elapsed);
    QCOMPARE(sessions.size(), 1000);
    QVERIFY2(elapsed < 5000, qPrintable(QStringLiteral("list took %1 ms").arg(elapsed)));
    // Each of the thousand exactly once, with its own title, workspace and seq, newest first.
    QSet<QString> titles;
    for (qsizetype i = 0; i < sessions.size(); ++i) {
        const SessionInfo &info = sessions.at(i);
        const int number = info.title.section(QLatin1Char(' '), 1).toInt();
        QCOMPARE(info.title, QStringLiteral("question %1").arg(number));
        QCOMPARE(info.workspace, QStringLiteral("/projects/p%1").arg(number % 20));
        QCOMPARE(info.lastSeq, quint64(3));
        titles.insert(info.title);
        if (i > 0)
            QVERIFY(sessions.at(i - 1).updatedAt >= info.updatedAt);
    }
    QCOMPARE(titles.size(), 1000);
    QCOMPARE(m_store->list(QStringLiteral("/projects/p3")).size(), 50);
}

// Issue 11: list() reads only the start and the end of a transcript. On varied sessions (renamed, compacted,
// damaged lines, torn last lines, CR and CRLF endings, no user message, a long last turn, an unknown event
// last) it reports exactly what a full parse of every line says, in the same order.
void TestSessionStore::listEqualsAFullParseOfEveryLine()
{
    using keen::test::TranscriptWriter;
    const QString root = m_store->root();
    const QString workspace = m_workspace;
    const QDateTime base = QDateTime::currentDateTimeUtc().addDays(-1);
    std::list<TranscriptWriter> writers; // the references below stay valid
    auto session = [&](int minute) -> TranscriptWriter & {
        return writers.emplace_back(root, workspace, QString(), base.addSecs(-3600 + minute));
    };

    TranscriptWriter &plain = session(1);
    plain.user(QStringLiteral("  first   question\twith spaces "));
    plain.assistant(QStringLiteral("answer"));
    plain.user(QStringLiteral("second question"));
    plain.assistantWithTool(QStringLiteral("reading"), QStringLiteral("read_file"),
                            QJsonObject{{QStringLiteral("path"), QStringLiteral("a.cpp")}},
                            QStringLiteral("int x;\n").repeated(2000));

    TranscriptWriter &renamed = session(2);
    renamed.user(QStringLiteral("the original first message"));
    renamed.assistant(QStringLiteral("ok"));
    QVERIFY(m_store->rename(renamed.id(), QStringLiteral("A   renamed title")));

    TranscriptWriter &compacted = session(3);
    for (int turn = 0; turn < 5; ++turn) {
        compacted.user(QStringLiteral("turn %1").arg(turn));
        compacted.assistant(QStringLiteral("answer %1 ").arg(turn).repeated(500));
    }
    compacted.compaction(QStringLiteral("Context compacted."), QStringLiteral("## Goal\nsummary"),
                         QStringLiteral("summary shown"));
    compacted.user(QStringLiteral("after the compaction"));
    compacted.compaction(QString(), QStringLiteral("## Goal\nautomatic"));
    compacted.assistant(QStringLiteral("done"));

    TranscriptWriter &damaged = session(4);
    damaged.appendRawBytes("not json at all\n{\"seq\":99}\n\n   \n");
    damaged.user(QStringLiteral("a question after damage"));
    damaged.appendRawBytes("{\"seq\":3,\"kind\":\"user_message\",\"user_message\":{\"content\":\"torn");

    TranscriptWriter &tornLast = session(5);
    tornLast.user(QStringLiteral("only question"));
    tornLast.assistant(QStringLiteral("a long last answer ").repeated(5000));
    tornLast.appendRawBytes("{\"seq\":4,\"kind\":\"assistant_turn\",\"assis");

    TranscriptWriter &emptyFirst = session(6);
    emptyFirst.user(QString());
    emptyFirst.user(
        QStringLiteral("the first words, which name the session, are longer than eighty characters "
                       "so the title is cut at a word"));
    emptyFirst.user(QString()); // the last user message is empty

    TranscriptWriter &noUser = session(7);
    noUser.assistant(QStringLiteral("a turn without a question"));

    TranscriptWriter &quoted = session(8);
    quoted.user(QStringLiteral("what does \"user_message\" or \"session_started\" mean?"));
    quoted.assistant(QStringLiteral("{\"kind\":\"user_message\",\"seq\":1} is a \"user_message\""));
    quoted.appendPayload(QStringLiteral("some_other_writers_event"), QJsonObject{{QStringLiteral("x"), 1}});
    quoted.appendRawBytes("\n\n  \n");

    TranscriptWriter &startedTorn = session(9);
    {
        QByteArray bytes = readAll(startedTorn.path());
        bytes.insert(10, "#");
        writeFile(startedTorn.path(), bytes);
    }
    startedTorn.user(QStringLiteral("no session_started"));

    for (const QByteArray &ending : {QByteArray("\r"), QByteArray("\r\n")}) {
        TranscriptWriter &converted = session(10 + ending.size());
        converted.user(QStringLiteral("question one"));
        converted.assistant(QStringLiteral("answer one"));
        converted.user(QStringLiteral("question two"));
        converted.assistant(QStringLiteral("answer two"));
        QByteArray bytes = readAll(converted.path());
        bytes.replace("\n", ending);
        writeFile(converted.path(), bytes);
    }

    TranscriptWriter &tail = session(13); // the last user message is far from the end
    tail.user(QStringLiteral("start"));
    tail.user(QStringLiteral("the last question"));
    for (int turn = 0; turn < 50; ++turn)
        tail.assistantWithTool(QStringLiteral("step %1").arg(turn), QStringLiteral("read_file"),
                               QJsonObject{{QStringLiteral("path"), QStringLiteral("f%1").arg(turn)}},
                               QStringLiteral("line\n").repeated(3000));

    // Distinct times, and two sessions with the same time (ordered by their last seq).
    int index = 0;
    for (const TranscriptWriter &writer : writers) {
        writer.setModified(base.addSecs(index == 1 ? 0 : 60 * index));
        ++index;
    }

    QList<SessionInfo> expected;
    for (const TranscriptWriter &writer : std::as_const(writers))
        expected.append(fullParse(writer.directory()));
    std::sort(expected.begin(), expected.end(), [](const SessionInfo &a, const SessionInfo &b) {
        return a.updatedAt != b.updatedAt ? a.updatedAt > b.updatedAt : a.lastSeq > b.lastSeq;
    });

    const QList<SessionInfo> listed = m_store->list(workspace);
    QCOMPARE(listed.size(), expected.size());
    for (qsizetype i = 0; i < listed.size(); ++i) {
        const SessionInfo &actual = listed.at(i);
        const SessionInfo &wanted = expected.at(i);
        QCOMPARE(actual.id, wanted.id);
        QCOMPARE(actual.path, wanted.path);
        QCOMPARE(actual.directory, wanted.directory);
        QCOMPARE(actual.workspace, wanted.workspace);
        QCOMPARE(actual.title, wanted.title);
        QCOMPARE(actual.createdAt, wanted.createdAt);
        QCOMPARE(actual.updatedAt, wanted.updatedAt);
        QCOMPARE(actual.lastSeq, wanted.lastSeq);
        QCOMPARE(actual.lastUserMessage, wanted.lastUserMessage);
        QCOMPARE(actual.problem, QString());
        const auto found = m_store->find(actual.id);
        QVERIFY(found);
        QCOMPARE(found->lastSeq, wanted.lastSeq);
        QCOMPARE(found->title, wanted.title);
    }
    // The cases are what they say.
    auto wanted = [&](const TranscriptWriter &writer) {
        for (const SessionInfo &info : std::as_const(expected)) {
            if (info.id == writer.id())
                return info;
        }
        return SessionInfo();
    };
    QCOMPARE(wanted(renamed).title, QStringLiteral("A renamed title"));
    QCOMPARE(wanted(damaged).lastSeq, quint64(2));
    QCOMPARE(wanted(tornLast).lastSeq, quint64(3));
    QVERIFY(wanted(emptyFirst).title.endsWith(QChar(0x2026)));
    QCOMPARE(wanted(emptyFirst).lastUserMessage, QString());
    QCOMPARE(wanted(noUser).title, QString());
    QCOMPARE(wanted(quoted).lastSeq, quint64(4));
    QCOMPARE(wanted(startedTorn).workspace, QString());
    QCOMPARE(wanted(tail).lastUserMessage, QStringLiteral("the last question"));
    QCOMPARE(wanted(compacted).lastUserMessage, QStringLiteral("after the compaction"));
}

QTEST_GUILESS_MAIN(TestSessionStore)
#include "tst_sessionstore.moc"
