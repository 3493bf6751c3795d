#include "testenvironment.h"
#include "tools/editfiletool.h"
#include "tools/filesystemguard.h"
#include "tools/hashline.h"
#include "tools/readfiletool.h"
#include "tools/unifieddiff.h"
#include "tools/writefiletool.h"
#include "tooltestworkspace.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace keen;

// read_file, edit_file and write_file: limits, errors, hashlines, anchors, atomic edits and diffs.
class TestFileTools : public QObject
{
    Q_OBJECT

private:
    struct Fixture : test::ToolTestWorkspace
    {
        QString path(const QString &name) const { return ws.filePath(name); }
        void write(const QString &name, const QByteArray &bytes) const
        {
            QDir().mkpath(QFileInfo(path(name)).absolutePath());
            QFile file(path(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        }
        QByteArray read(const QString &name) const
        {
            QFile file(path(name));
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        }
    };

    static QString anchor(int line, const QByteArray &raw)
    {
        return QStringLiteral("%1:%2").arg(line).arg(Hashline::hash(raw));
    }

private Q_SLOTS:
    void hashlineFormat()
    {
        // FNV-1a-32 reference values.
        QCOMPARE(Hashline::fnv1a32(""), 0x811c9dc5u);
        QCOMPARE(Hashline::fnv1a32("a"), 0xe40c292cu);
        QCOMPARE(Hashline::hash("a"), QStringLiteral("e40"));
        QCOMPARE(Hashline::hash(""), QStringLiteral("811"));
        QCOMPARE(Hashline::splitLines("a\r\nb\nc"), (QList<QByteArray>{"a", "b", "c"}));
        QCOMPARE(Hashline::splitLines("a\n\n"), (QList<QByteArray>{"a", ""}));
        QCOMPARE(Hashline::splitLines(""), QList<QByteArray>());
        QCOMPARE(Hashline::parseAnchor(QStringLiteral("12:ABC")).line, 12);
        QCOMPARE(Hashline::parseAnchor(QStringLiteral("12:ABC")).hash, QStringLiteral("abc"));
        QVERIFY(!Hashline::parseAnchor(QStringLiteral("12")).isValid());
        QVERIFY(!Hashline::parseAnchor(QStringLiteral("0:abc")).isValid());
    }

    void readFileHashlines()
    {
        Fixture f;
        f.write(QStringLiteral("a.txt"), "alpha\r\nbeta\ngamma\n");
        ReadFileTool tool;
        const ToolResult result =
            tool.execute({{QStringLiteral("path"), QStringLiteral("a.txt")}}, f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("content")).toString(),
                 QStringLiteral("1:%1|alpha\n2:%2|beta\n3:%3|gamma")
                     .arg(Hashline::hash("alpha"), Hashline::hash("beta"), Hashline::hash("gamma")));
        QCOMPARE(out.value(QStringLiteral("total_lines")).toInt(), 3);
        QCOMPARE(out.value(QStringLiteral("bytes_read")).toInt(), 18);
        QCOMPARE(out.value(QStringLiteral("offset")).toInt(), 1);
        QCOMPARE(out.value(QStringLiteral("limit")).toInt(), 1000);
        QCOMPARE(out.value(QStringLiteral("truncated")).toBool(), false);
        QCOMPARE(out.value(QStringLiteral("path")).toString(),
                 QFileInfo(f.path(QStringLiteral("a.txt"))).canonicalFilePath());
        QCOMPARE(f.person.count(), 0); // inside the workspace: no question
    }

    void readFileOffsetLimitAndLongLines()
    {
        Fixture f;
        QByteArray content;
        for (int i = 1; i <= 1500; ++i)
            content += "line " + QByteArray::number(i) + '\n';
        f.write(QStringLiteral("big.txt"), content);
        ReadFileTool tool;
        ToolResult result = tool.execute({{QStringLiteral("path"), QStringLiteral("big.txt")}}, f.context);
        QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("content")).toString().count(QLatin1Char('\n')), 999);
        QVERIFY(out.value(QStringLiteral("truncated")).toBool());
        QCOMPARE(out.value(QStringLiteral("total_lines")).toInt(), 1500);

        result = tool.execute({{QStringLiteral("path"), QStringLiteral("big.txt")},
                               {QStringLiteral("offset"), 1499},
                               {QStringLiteral("limit"), 5}},
                              f.context);
        out = result.output.toObject();
        QVERIFY(out.value(QStringLiteral("content")).toString().startsWith(QStringLiteral("1499:")));
        QCOMPARE(out.value(QStringLiteral("content")).toString().count(QLatin1Char('\n')), 1);
        QVERIFY(!out.value(QStringLiteral("truncated")).toBool());

        result = tool.execute(
            {{QStringLiteral("path"), QStringLiteral("big.txt")}, {QStringLiteral("offset"), 2000}},
            f.context);
        QVERIFY(!result.ok());

        // A file of 100,000 lines with CRLF ends and no final line end: the last lines carry their numbers
        // and hashes (without the CR) and the count is of every line.
        QByteArray huge;
        for (int i = 1; i <= 100000; ++i)
            huge += "row " + QByteArray::number(i) + (i < 100000 ? "\r\n" : "");
        f.write(QStringLiteral("huge.txt"), huge);
        result = tool.execute(
            {{QStringLiteral("path"), QStringLiteral("huge.txt")}, {QStringLiteral("offset"), 99999}},
            f.context);
        out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("content")).toString(),
                 QStringLiteral("99999:%1|row 99999\n100000:%2|row 100000")
                     .arg(Hashline::hash("row 99999"), Hashline::hash("row 100000")));
        QCOMPARE(out.value(QStringLiteral("total_lines")).toInt(), 100000);
        QVERIFY(!out.value(QStringLiteral("truncated")).toBool());
        result = tool.execute(
            {{QStringLiteral("path"), QStringLiteral("huge.txt")}, {QStringLiteral("offset"), 100001}},
            f.context);
        QCOMPARE(result.error,
                 QStringLiteral("offset 100001 is past the end of huge.txt, which has 100000 lines"));

        const QByteArray longLine(1500, 'x');
        f.write(QStringLiteral("long.txt"), longLine + "\n");
        result = tool.execute({{QStringLiteral("path"), QStringLiteral("long.txt")}}, f.context);
        const QString line = result.output.toObject().value(QStringLiteral("content")).toString();
        QCOMPARE(line, QStringLiteral("1:%1|").arg(Hashline::hash(longLine)) +
                           QString(1000, QLatin1Char('x')) + QStringLiteral("... (line truncated)"));
    }

    void readFileRefusals()
    {
        Fixture f;
        ReadFileTool tool;
        f.write(QStringLiteral("bin.dat"), QByteArray("abc\0def", 7));
        f.write(QStringLiteral("latin1.txt"), "caf\xe9\n");
        QDir().mkpath(f.path(QStringLiteral("folder")));
        for (const char *name : {"bin.dat", "latin1.txt", "folder", "missing.txt"}) {
            const ToolResult result =
                tool.execute({{QStringLiteral("path"), QString::fromLatin1(name)}}, f.context);
            QVERIFY2(!result.ok(), name);
        }
        QVERIFY(tool.execute({{QStringLiteral("path"), QStringLiteral("bin.dat")}}, f.context)
                    .error.contains(QStringLiteral("binary")));
        QVERIFY(tool.execute({{QStringLiteral("path"), QStringLiteral("latin1.txt")}}, f.context)
                    .error.contains(QStringLiteral("UTF-8")));

        // 25 MB cap: a sparse file is enough.
        QFile big(f.path(QStringLiteral("huge.txt")));
        QVERIFY(big.open(QIODevice::WriteOnly));
        QVERIFY(big.resize(ReadFileTool::MaxFileBytes + 1));
        big.close();
        QVERIFY(tool.execute({{QStringLiteral("path"), QStringLiteral("huge.txt")}}, f.context)
                    .error.contains(QStringLiteral("25 MB")));

        // Outside the workspace: the person is asked; denial is an error.
        QTemporaryDir other;
        QFile outside(other.filePath(QStringLiteral("o.txt")));
        QVERIFY(outside.open(QIODevice::WriteOnly));
        outside.write("x\n");
        outside.close();
        f.person.setAnswer(PermissionDecision::Deny);
        QVERIFY(!tool.execute({{QStringLiteral("path"), outside.fileName()}}, f.context).ok());
        QCOMPARE(f.person.count(), 1);
        QCOMPARE(f.person.requests().first().toolName, QStringLiteral("read_file"));
        f.person.setAnswer(PermissionDecision::Allow);
        QVERIFY(tool.execute({{QStringLiteral("path"), outside.fileName()}}, f.context).ok());
    }

    void validationMessages()
    {
        ReadFileTool read;
        QCOMPARE(read.validateInput({}),
                 QStringLiteral(
                     "invalid input: missing required \"path\" parameter. Retry read_file with all required "
                     "fields: {\"path\":\"<file path>\"}"));
        QVERIFY(read.validateInput({{QStringLiteral("path"), QStringLiteral("a")}, {QStringLiteral("x"), 1}})
                    .contains(QStringLiteral("unknown parameter")));
        QVERIFY(!read.validateInput(
                         {{QStringLiteral("path"), QStringLiteral("a")}, {QStringLiteral("offset"), 0}})
                     .isEmpty());
        QVERIFY(!read.validateInput(
                         {{QStringLiteral("path"), QStringLiteral("a")}, {QStringLiteral("limit"), 1.5}})
                     .isEmpty());
        QVERIFY(
            read.validateInput({{QStringLiteral("path"), QStringLiteral("a")}, {QStringLiteral("offset"), 3}})
                .isEmpty());
        QCOMPARE(read.inputSchema().value(QStringLiteral("additionalProperties")).toBool(true), false);

        EditFileTool edit;
        QVERIFY(edit.validateInput({{QStringLiteral("path"), QStringLiteral("a")}})
                    .startsWith(QStringLiteral(
                        "invalid input: missing required \"ops\" parameter. Retry edit_file")));
        QVERIFY(!edit.validateInput({{QStringLiteral("path"), QStringLiteral("a")},
                                     {QStringLiteral("ops"), QJsonArray()}})
                     .isEmpty());
        QVERIFY(!edit.validateInput({{QStringLiteral("path"), QStringLiteral("a")},
                                     {QStringLiteral("ops"), QJsonArray{QJsonObject{{QStringLiteral("text"),
                                                                                     QStringLiteral("x")}}}}})
                     .isEmpty()); // replace needs start
        QVERIFY(
            edit.validateInput({{QStringLiteral("path"), QStringLiteral("a")},
                                {QStringLiteral("ops"),
                                 QJsonArray{QJsonObject{{QStringLiteral("op"), QStringLiteral("insert_tail")},
                                                        {QStringLiteral("text"), QStringLiteral("x")}}}}})
                .isEmpty());

        WriteFileTool write;
        QVERIFY(write.validateInput({{QStringLiteral("path"), QStringLiteral("a")}})
                    .startsWith(QStringLiteral(
                        "invalid input: missing required \"content\" parameter. Retry write_file")));
    }

    void editFileReplaceInsertAndDiff()
    {
        Fixture f;
        f.write(QStringLiteral("e.txt"), "one\ntwo\nthree\nfour\n");
        EditFileTool tool;
        const QJsonArray ops{
            QJsonObject{{QStringLiteral("op"), QStringLiteral("replace")},
                        {QStringLiteral("start"), anchor(2, "two")},
                        {QStringLiteral("end"), anchor(3, "three")},
                        {QStringLiteral("text"), QStringLiteral("TWO-THREE\n")}},
            QJsonObject{{QStringLiteral("op"), QStringLiteral("insert_after")},
                        {QStringLiteral("start"), anchor(4, "four")},
                        {QStringLiteral("text"), QStringLiteral("five")}},
            QJsonObject{{QStringLiteral("op"), QStringLiteral("insert_before")},
                        {QStringLiteral("start"), anchor(1, "one")},
                        {QStringLiteral("text"), QStringLiteral("zero")}},
            QJsonObject{{QStringLiteral("op"), QStringLiteral("insert_head")},
                        {QStringLiteral("text"), QStringLiteral("#!")}},
            QJsonObject{{QStringLiteral("op"), QStringLiteral("insert_tail")},
                        {QStringLiteral("text"), QStringLiteral("end")}},
        };
        const QJsonObject input{{QStringLiteral("path"), QStringLiteral("e.txt")},
                                {QStringLiteral("ops"), ops}};
        QCOMPARE(tool.validateInput(input), QString());
        const ToolResult result = tool.execute(input, f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(f.read(QStringLiteral("e.txt")), QByteArray("#!\nzero\none\nTWO-THREE\nfour\nfive\nend\n"));
        QCOMPARE(result.output.toObject().value(QStringLiteral("success")).toBool(), true);

        // The diff was in the permission request, before the write, and in the result.
        QCOMPARE(f.person.count(), 1);
        const QString diff = f.person.requests().first().diff;
        QCOMPARE(diff, result.diff);
        QVERIFY(diff.startsWith(QStringLiteral("--- a/e.txt\n+++ b/e.txt\n@@ -1,4 +1,7 @@\n")));
        QVERIFY(diff.contains(QStringLiteral("\n-two\n-three\n+TWO-THREE\n")));
        QVERIFY(diff.contains(QStringLiteral("\n+five\n+end\n")));
    }

    void editFileDeleteAndCrlf()
    {
        Fixture f;
        f.write(QStringLiteral("w.txt"), "a\r\nb\r\nc\r\n");
        EditFileTool tool;
        const ToolResult result = tool.execute(
            {{QStringLiteral("path"), QStringLiteral("w.txt")},
             {QStringLiteral("ops"), QJsonArray{QJsonObject{{QStringLiteral("start"), anchor(2, "b")},
                                                            {QStringLiteral("text"), QString()}}}}},
            f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(f.read(QStringLiteral("w.txt")), QByteArray("a\r\nc\r\n"));
    }

    void editFileStaleAnchorIsAtomic()
    {
        Fixture f;
        const QByteArray original = "one\ntwo\nthree\n";
        f.write(QStringLiteral("s.txt"), original);
        EditFileTool tool;
        const QJsonArray ops{
            QJsonObject{{QStringLiteral("start"), anchor(1, "one")},
                        {QStringLiteral("text"), QStringLiteral("ONE")}},
            QJsonObject{{QStringLiteral("start"), QStringLiteral("2:fff")},
                        {QStringLiteral("text"), QStringLiteral("TWO")}},
        };
        const ToolResult result = tool.execute(
            {{QStringLiteral("path"), QStringLiteral("s.txt")}, {QStringLiteral("ops"), ops}}, f.context);
        QCOMPARE(result.error,
                 QStringLiteral("op 2: anchor \"2:fff\" does not exist in the current file snapshot; "
                                "re-read the file and retry"));
        QCOMPARE(f.read(QStringLiteral("s.txt")), original);
        QCOMPARE(f.person.count(), 0);

        // Out of range, and overlapping replaces, are refused as a whole too.
        QVERIFY(!tool.execute({{QStringLiteral("path"), QStringLiteral("s.txt")},
                               {QStringLiteral("ops"),
                                QJsonArray{QJsonObject{{QStringLiteral("start"), QStringLiteral("9:abc")},
                                                       {QStringLiteral("text"), QStringLiteral("x")}}}}},
                              f.context)
                     .ok());
        const QJsonArray overlapping{
            QJsonObject{{QStringLiteral("start"), anchor(1, "one")},
                        {QStringLiteral("end"), anchor(2, "two")},
                        {QStringLiteral("text"), QStringLiteral("x")}},
            QJsonObject{{QStringLiteral("start"), anchor(2, "two")},
                        {QStringLiteral("text"), QStringLiteral("y")}},
        };
        QVERIFY(tool.execute({{QStringLiteral("path"), QStringLiteral("s.txt")},
                              {QStringLiteral("ops"), overlapping}},
                             f.context)
                    .error.contains(QStringLiteral("overlaps")));
        QCOMPARE(f.read(QStringLiteral("s.txt")), original);
    }

    void editFileDeniedKeepsFileAndRedirectStopsTurn()
    {
        Fixture f;
        f.write(QStringLiteral("d.txt"), "x\n");
        EditFileTool tool;
        const QJsonObject input{
            {QStringLiteral("path"), QStringLiteral("d.txt")},
            {QStringLiteral("ops"), QJsonArray{QJsonObject{{QStringLiteral("start"), anchor(1, "x")},
                                                           {QStringLiteral("text"), QStringLiteral("y")}}}}};
        f.person.setAnswer(PermissionDecision::Deny);
        ToolResult result = tool.execute(input, f.context);
        QVERIFY(!result.ok());
        QVERIFY(!result.stopTurn);
        QVERIFY(!result.diff.isEmpty());
        QCOMPARE(f.read(QStringLiteral("d.txt")), QByteArray("x\n"));

        f.person.setAnswer(PermissionDecision::Redirect);
        result = tool.execute(input, f.context);
        QVERIFY(!result.ok());
        QVERIFY(result.stopTurn);
        QCOMPARE(f.read(QStringLiteral("d.txt")), QByteArray("x\n"));
    }

    void planModeRefusesWrites()
    {
        Fixture f;
        f.context.mode = AgentMode::Plan;
        f.write(QStringLiteral("p.txt"), "x\n");
        const QString expected =
            QStringLiteral("Write tools (write_file, edit_file) are disabled in plan mode; ask the "
                           "user to switch with `/mode build` or `Shift+Tab`.");
        WriteFileTool write;
        QCOMPARE(write
                     .execute({{QStringLiteral("path"), QStringLiteral("n.txt")},
                               {QStringLiteral("content"), QStringLiteral("y")}},
                              f.context)
                     .error,
                 expected);
        EditFileTool edit;
        QCOMPARE(edit.execute({{QStringLiteral("path"), QStringLiteral("p.txt")},
                               {QStringLiteral("ops"),
                                QJsonArray{QJsonObject{{QStringLiteral("start"), anchor(1, "x")},
                                                       {QStringLiteral("text"), QStringLiteral("y")}}}}},
                              f.context)
                     .error,
                 expected);
        QVERIFY(!QFile::exists(f.path(QStringLiteral("n.txt"))));
        QCOMPARE(f.person.count(), 0);
        // The definitions stay: plan mode changes execution only.
        QVERIFY(write.isWriteTool() && edit.isWriteTool());
    }

    void writeFileCreatesParentsAtomically()
    {
        Fixture f;
        WriteFileTool tool;
        ToolResult result = tool.execute({{QStringLiteral("path"), QStringLiteral("deep/er/new.txt")},
                                          {QStringLiteral("content"), QStringLiteral("héllo\n")}},
                                         f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("created")).toBool(), true);
        QCOMPARE(out.value(QStringLiteral("bytes_written")).toInt(), 7);
        QCOMPARE(f.read(QStringLiteral("deep/er/new.txt")), QByteArray("héllo\n"));
        QVERIFY(result.diff.startsWith(
            QStringLiteral("--- /dev/null\n+++ b/deep/er/new.txt\n@@ -0,0 +1,1 @@\n+héllo\n")));
        QCOMPARE(f.person.requests().first().diff, result.diff);

        result = tool.execute({{QStringLiteral("path"), QStringLiteral("deep/er/new.txt")},
                               {QStringLiteral("content"), QStringLiteral("bye\n")}},
                              f.context);
        out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("created")).toBool(), false);
        QCOMPARE(f.read(QStringLiteral("deep/er/new.txt")), QByteArray("bye\n"));
        QVERIFY(result.diff.contains(QStringLiteral("-héllo\n+bye\n")));
        // Nothing but the file itself is left behind (QSaveFile cleans up its temporary).
        QCOMPARE(QDir(f.path(QStringLiteral("deep/er"))).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("new.txt")});
    }

    // Found when tried: writing a file's own content again asked "Allow Write?" over an empty card, and a
    // binary file to replace or an empty file to create showed an empty card too.
    void writeFileOfTheSameBytesAsksNothingAndEveryCardSaysWhatChanges()
    {
        Fixture f;
        f.write(QStringLiteral("same.txt"), "hello\nworld\n");
        QFile same(f.path(QStringLiteral("same.txt")));
        QVERIFY(same.open(QIODevice::ReadWrite));
        const QDateTime longAgo = QDateTime::currentDateTimeUtc().addDays(-3);
        QVERIFY(same.setFileTime(longAgo, QFileDevice::FileModificationTime));
        same.close();
        WriteFileTool tool;
        ToolResult result = tool.execute({{QStringLiteral("path"), QStringLiteral("same.txt")},
                                          {QStringLiteral("content"), QStringLiteral("hello\nworld\n")}},
                                         f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(f.person.count(), 0);
        QCOMPARE(result.output.toObject().value(QStringLiteral("unchanged")).toBool(), true);
        QCOMPARE(result.output.toObject().value(QStringLiteral("bytes_written")).toInt(), 0);
        QCOMPARE(QFileInfo(f.path(QStringLiteral("same.txt"))).lastModified().toSecsSinceEpoch(),
                 longAgo.toSecsSinceEpoch());

        // One byte more is a change again, with its diff.
        result = tool.execute({{QStringLiteral("path"), QStringLiteral("same.txt")},
                               {QStringLiteral("content"), QStringLiteral("hello\nworld\n!")}},
                              f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(f.person.count(), 1);
        QVERIFY(f.person.requests().last().diff.contains(QStringLiteral("+!")));

        f.write(QStringLiteral("logo.bin"), QByteArray("\x89PNG\0\0", 6));
        result = tool.execute({{QStringLiteral("path"), QStringLiteral("logo.bin")},
                               {QStringLiteral("content"), QStringLiteral("text now\n")}},
                              f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(f.person.requests().last().diff, QStringLiteral("Binary file logo.bin will be replaced."));

        result = tool.execute(
            {{QStringLiteral("path"), QStringLiteral("empty.txt")}, {QStringLiteral("content"), QString()}},
            f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(f.person.requests().last().diff, QStringLiteral("empty.txt will be created empty."));
        QVERIFY(QFileInfo::exists(f.path(QStringLiteral("empty.txt"))));
    }

    void writeFileGuardAndSecrets()
    {
        Fixture f;
        WriteFileTool tool;
        QVERIFY(tool.execute({{QStringLiteral("path"), QStringLiteral("/etc/keen-test")},
                              {QStringLiteral("content"), QStringLiteral("x")}},
                             f.context)
                    .error.startsWith(QStringLiteral("Access denied")));
        QCOMPARE(f.person.count(), 0);
        const ToolResult secret =
            tool.execute({{QStringLiteral("path"), QStringLiteral(".keen/MEMORY.md")},
                          {QStringLiteral("content"), QStringLiteral("key AKIAABCDEFGHIJKLMNOP\n")}},
                         f.context);
        QVERIFY(secret.error.contains(QStringLiteral("secret")));
        QVERIFY(!QFile::exists(f.path(QStringLiteral(".keen/MEMORY.md"))));
    }

    // A FIFO at the path: write_file read the old content first and waited for a writer forever.
    void writeFileOverAFifoIsRefusedWithoutWaiting()
    {
        Fixture f;
        const QString fifo = f.path(QStringLiteral("pipe"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        WriteFileTool tool;
        const ToolResult result = tool.execute({{QStringLiteral("path"), QStringLiteral("pipe")},
                                                {QStringLiteral("content"), QStringLiteral("x")}},
                                               f.context);
        QVERIFY(!result.ok());
        QVERIFY2(result.error.contains(QLatin1String("pipe is not a regular file")),
                 qPrintable(result.error));
        QCOMPARE(f.person.count(), 0);              // nothing asked
        QVERIFY(QFileInfo(fifo).isFile() == false); // the FIFO is still there, not replaced
        QVERIFY(QFileInfo::exists(fifo));
    }

    void unifiedDiffContext()
    {
        QString before, after;
        for (int i = 1; i <= 20; ++i) {
            before += QStringLiteral("l%1\n").arg(i);
            after += (i == 10 ? QStringLiteral("changed\n") : QStringLiteral("l%1\n").arg(i));
        }
        QCOMPARE(UnifiedDiff::make(QStringLiteral("f"), before, after),
                 QStringLiteral(
                     "--- a/f\n+++ b/f\n@@ -7,7 +7,7 @@\n l7\n l8\n l9\n-l10\n+changed\n l11\n l12\n l13\n"));
        QCOMPARE(UnifiedDiff::make(QStringLiteral("f"), before, before), QString());
    }

    // Files of 100,000 lines: the unchanged lines at both ends are left out of the edit script's search
    // (tests/bench keen_bench_core diff), and the hunks keep their line numbers and context; changes near
    // the ends, lines added at the end and a file emptied still come out as diff(1) writes them.
    void unifiedDiffOfABigFile()
    {
        QString before;
        for (int i = 1; i <= 100000; ++i)
            before += QStringLiteral("line %1\n").arg(i);
        QString after = before;
        after.replace(QStringLiteral("line 50000\n"), QStringLiteral("line fifty thousand\n"));
        after.replace(QStringLiteral("line 50004\n"), QStringLiteral("line 50004 changed\n"));
        QCOMPARE(UnifiedDiff::make(QStringLiteral("f"), before, after),
                 QStringLiteral(
                     "--- a/f\n+++ b/f\n@@ -49997,11 +49997,11 @@\n line 49997\n line 49998\n line 49999\n"
                     "-line 50000\n+line fifty thousand\n line 50001\n line 50002\n line 50003\n"
                     "-line 50004\n+line 50004 changed\n line 50005\n line 50006\n line 50007\n"));

        QString first = before;
        first.replace(0, 7, QStringLiteral("line one\n"));
        QCOMPARE(UnifiedDiff::make(QStringLiteral("f"), before, first),
                 QStringLiteral(
                     "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-line 1\n+line one\n line 2\n line 3\n line 4\n"));

        const QString appended = before + QStringLiteral("line 100001\n");
        QCOMPARE(UnifiedDiff::make(QStringLiteral("f"), before, appended),
                 QStringLiteral(
                     "--- a/f\n+++ b/f\n@@ -99998,3 +99998,4 @@\n line 99998\n line 99999\n line 100000\n"
                     "+line 100001\n"));

        const QString emptied = UnifiedDiff::make(QStringLiteral("f"), before, QString());
        QVERIFY(emptied.startsWith(QStringLiteral("--- a/f\n+++ b/f\n@@ -1,100000 +0,0 @@\n-line 1\n")));
        QCOMPARE(emptied.count(QLatin1Char('\n')), 3 + 100000);
    }
};

QTEST_GUILESS_MAIN(TestFileTools)
#include "tst_filetools.moc"
