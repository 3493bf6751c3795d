#include "fakepermissionrequester.h"
#include "testenvironment.h"
#include "tools/askusertool.h"
#include "tools/filesystemguard.h"
#include "tools/filewalker.h"
#include "tools/globtool.h"
#include "tools/greptool.h"
#include "tools/hashline.h"
#include "tools/outputcompressor.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace keen;

// glob, grep, ask_user and the LLM-facing output compressor.
class TestSearchTools : public QObject
{
    Q_OBJECT

private:
    struct Fixture
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        QString root;
        test::FakePermissionRequester person;
        std::unique_ptr<FilesystemGuard> guard;
        ToolContext context;
        Fixture()
        {
            root = QFileInfo(ws.path()).canonicalFilePath();
            QProcess git;
            git.setWorkingDirectory(ws.path());
            git.start(QStringLiteral("git"), {QStringLiteral("init"), QStringLiteral("-q")});
            git.waitForFinished();
            write(QStringLiteral(".gitignore"), "build/\n*.log\n");
            write(QStringLiteral("src/main.cpp"), "int main()\n{\n    return foo();\n}\n");
            write(QStringLiteral("src/foo.cpp"), "int foo() { return 42; }\n");
            write(QStringLiteral("src/foo.h"), "int foo();\n");
            write(QStringLiteral("docs/readme.md"), "call foo here\n");
            write(QStringLiteral("build/gen.cpp"), "int foo_generated;\n");
            write(QStringLiteral("run.log"), "foo\n");
            write(QStringLiteral("blob.bin"), QByteArray("foo\0bar", 7));
            guard = std::make_unique<FilesystemGuard>(ws.path(), env.path(QStringLiteral("data")),
                                                      env.path(QStringLiteral("home")));
            context.workspace = ws.path();
            context.dataDir = env.path(QStringLiteral("data"));
            context.permissions = &person;
            context.guard = guard.get();
            context.interactive = true;
        }
        void write(const QString &name, const QByteArray &bytes) const
        {
            QDir().mkpath(QFileInfo(ws.filePath(name)).absolutePath());
            QFile file(ws.filePath(name));
            file.open(QIODevice::WriteOnly);
            file.write(bytes);
        }
        QString abs(const QString &name) const { return root + QLatin1Char('/') + name; }
    };

    static QStringList strings(const QJsonValue &value)
    {
        QStringList list;
        for (const QJsonValue &v : value.toArray())
            list.append(v.toString());
        return list;
    }

private Q_SLOTS:
    void globPatterns()
    {
        QVERIFY(
            FileWalker::globToRegex(QStringLiteral("**/*.cpp")).match(QStringLiteral("a.cpp")).hasMatch());
        QVERIFY(FileWalker::globToRegex(QStringLiteral("**/*.cpp"))
                    .match(QStringLiteral("a/b/c.cpp"))
                    .hasMatch());
        QVERIFY(
            !FileWalker::globToRegex(QStringLiteral("*.cpp")).match(QStringLiteral("a/b.cpp")).hasMatch());
        QVERIFY(FileWalker::globToRegex(QStringLiteral("src/*.{h,cpp}"))
                    .match(QStringLiteral("src/x.h"))
                    .hasMatch());
        QVERIFY(
            FileWalker::globToRegex(QStringLiteral("f?o.[ch]")).match(QStringLiteral("foo.c")).hasMatch());
        QVERIFY(!FileWalker::globToRegex(QStringLiteral("a.cpp")).match(QStringLiteral("aXcpp")).hasMatch());
    }

    void globIsGitignoreAware()
    {
        Fixture f;
        GlobTool tool;
        const ToolResult result =
            tool.execute({{QStringLiteral("pattern"), QStringLiteral("**/*.cpp")}}, f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QCOMPARE(strings(out.value(QStringLiteral("files"))),
                 (QStringList{f.abs(QStringLiteral("src/foo.cpp")), f.abs(QStringLiteral("src/main.cpp"))}));
        QCOMPARE(out.value(QStringLiteral("count")).toInt(), 2);
        QCOMPARE(out.value(QStringLiteral("pattern")).toString(), QStringLiteral("**/*.cpp"));
        QCOMPARE(out.value(QStringLiteral("base_path")).toString(), f.root);
        QVERIFY(tool.execute({{QStringLiteral("pattern"), QStringLiteral("*.log")}}, f.context)
                    .output.toObject()
                    .value(QStringLiteral("files"))
                    .toArray()
                    .isEmpty());

        // LLM-facing: common prefix and relative names.
        const QJsonObject llm = OutputCompressor::forLlm(QStringLiteral("glob"), out).toObject();
        QCOMPARE(llm.value(QStringLiteral("common_prefix")).toString(), f.abs(QStringLiteral("src/")));
        QCOMPARE(strings(llm.value(QStringLiteral("files"))),
                 (QStringList{QStringLiteral("foo.cpp"), QStringLiteral("main.cpp")}));
    }

    void globCapsAtThousand()
    {
        Fixture f;
        for (int i = 0; i < 1005; ++i)
            f.write(QStringLiteral("many/f%1.txt").arg(i, 4, 10, QLatin1Char('0')), "x");
        GlobTool tool;
        const QJsonObject out =
            tool.execute({{QStringLiteral("pattern"), QStringLiteral("many/*.txt")}}, f.context)
                .output.toObject();
        QCOMPARE(out.value(QStringLiteral("count")).toInt(), 1000);
        QVERIFY(out.value(QStringLiteral("truncated")).toBool());
    }

    void grepContentAndFileModes()
    {
        Fixture f;
        GrepTool tool;
        ToolResult result = tool.execute({{QStringLiteral("pattern"), QStringLiteral("foo\\(")}}, f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("output_mode")).toString(), QStringLiteral("content"));
        const QJsonArray matches = out.value(QStringLiteral("matches")).toArray();
        QCOMPARE(matches.size(), 3); // not build/ (ignored), not run.log (ignored), not blob.bin (binary)
        const QJsonObject first = matches.first().toObject();
        QCOMPARE(first.value(QStringLiteral("file")).toString(), f.abs(QStringLiteral("src/foo.cpp")));
        QCOMPARE(first.value(QStringLiteral("line_number")).toInt(), 1);
        QCOMPARE(first.value(QStringLiteral("line")).toString(), QStringLiteral("int foo() { return 42; }"));
        QCOMPARE(first.value(QStringLiteral("line_hash")).toString(),
                 Hashline::hash("int foo() { return 42; }"));

        const QJsonObject llm = OutputCompressor::forLlm(QStringLiteral("grep"), out).toObject();
        QCOMPARE(llm.value(QStringLiteral("common_prefix")).toString(), f.abs(QStringLiteral("src/")));
        const QJsonObject grouped = llm.value(QStringLiteral("matches")).toObject();
        QCOMPARE(grouped.keys(), (QStringList{QStringLiteral("foo.cpp"), QStringLiteral("foo.h"),
                                              QStringLiteral("main.cpp")}));
        QVERIFY(!grouped.value(QStringLiteral("main.cpp"))
                     .toArray()
                     .first()
                     .toObject()
                     .contains(QStringLiteral("file")));
        QCOMPARE(grouped.value(QStringLiteral("main.cpp"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("line_number"))
                     .toInt(),
                 3);

        result = tool.execute({{QStringLiteral("pattern"), QStringLiteral("foo")},
                               {QStringLiteral("include"), QStringLiteral("*.{md,h}")},
                               {QStringLiteral("output_mode"), QStringLiteral("file")}},
                              f.context);
        out = result.output.toObject();
        QCOMPARE(strings(out.value(QStringLiteral("files"))),
                 (QStringList{f.abs(QStringLiteral("docs/readme.md")), f.abs(QStringLiteral("src/foo.h"))}));
        QCOMPARE(out.value(QStringLiteral("count")).toInt(), 2);

        // A single file as path.
        result = tool.execute({{QStringLiteral("pattern"), QStringLiteral("return")},
                               {QStringLiteral("path"), QStringLiteral("src/main.cpp")}},
                              f.context);
        QCOMPARE(result.output.toObject().value(QStringLiteral("count")).toInt(), 1);

        QVERIFY(!tool.validateInput({{QStringLiteral("pattern"), QStringLiteral("(")}}).isEmpty());
        QVERIFY(!tool.validateInput({{QStringLiteral("pattern"), QStringLiteral("x")},
                                     {QStringLiteral("output_mode"), QStringLiteral("lines")}})
                     .isEmpty());
    }

    void grepCapsAtThousand()
    {
        Fixture f;
        f.write(QStringLiteral("lots.txt"), QByteArray("hit\n").repeated(1500));
        GrepTool tool;
        const QJsonObject out =
            tool.execute({{QStringLiteral("pattern"), QStringLiteral("^hit$")}}, f.context).output.toObject();
        QCOMPARE(out.value(QStringLiteral("count")).toInt(), 1000);
        QVERIFY(out.value(QStringLiteral("truncated")).toBool());
    }

    void compressorLeavesOthersAlone()
    {
        const QJsonObject read{{QStringLiteral("path"), QStringLiteral("a")},
                               {QStringLiteral("bytes_read"), 3},
                               {QStringLiteral("lines_read"), 1},
                               {QStringLiteral("content"), QStringLiteral("x")}};
        const QJsonObject compact = OutputCompressor::forLlm(QStringLiteral("read_file"), read).toObject();
        QVERIFY(!compact.contains(QStringLiteral("bytes_read")));
        QVERIFY(!compact.contains(QStringLiteral("lines_read")));
        QCOMPARE(compact.value(QStringLiteral("content")).toString(), QStringLiteral("x"));
        QCOMPARE(OutputCompressor::forLlm(QStringLiteral("bash"), read), QJsonValue(read));
        QCOMPARE(OutputCompressor::forLlm(QStringLiteral("glob"), QJsonValue(QStringLiteral("s"))),
                 QJsonValue(QStringLiteral("s")));
        QCOMPARE(
            OutputCompressor::commonDirectoryPrefix({QStringLiteral("/a/bc/x"), QStringLiteral("/a/bd/y")}),
            QStringLiteral("/a/"));
        QCOMPARE(OutputCompressor::commonDirectoryPrefix({QStringLiteral("x"), QStringLiteral("y")}),
                 QString());
    }

    void askUser()
    {
        AskUserTool tool;
        const QJsonObject input{
            {QStringLiteral("questions"),
             QJsonArray{QJsonObject{
                 {QStringLiteral("question"), QStringLiteral("Which?")},
                 {QStringLiteral("options"), QJsonArray{QStringLiteral("A"), QStringLiteral("B")}}}}}};
        QCOMPARE(tool.validateInput(input), QString());
        QVERIFY(!tool.validateInput(
                         {{QStringLiteral("questions"),
                           QJsonArray{QJsonObject{{QStringLiteral("question"), QStringLiteral("Q")},
                                                  {QStringLiteral("options"),
                                                   QJsonArray{QStringLiteral("A"), QStringLiteral("A")}}}}}})
                     .isEmpty());
        QVERIFY(!tool.validateInput({{QStringLiteral("questions"),
                                      QJsonArray{QJsonObject{
                                          {QStringLiteral("question"), QStringLiteral("Q")},
                                          {QStringLiteral("options"), QJsonArray{QStringLiteral("A")}}}}}})
                     .isEmpty());
        QVERIFY(!tool.validateInput({{QStringLiteral("questions"), QJsonArray()}}).isEmpty());

        ToolContext context;
        QVERIFY(!tool.execute(input, context).ok()); // nobody to ask
        context.interactive = true;
        context.askUser = [](const QJsonObject &in, const CancellationToken &) {
            return QJsonObject{{QStringLiteral("answers"), QJsonArray{in.value(QStringLiteral("questions"))
                                                                          .toArray()
                                                                          .first()
                                                                          .toObject()
                                                                          .value(QStringLiteral("options"))
                                                                          .toArray()
                                                                          .first()}},
                               {QStringLiteral("cancelled"), false}};
        };
        const ToolResult result = tool.execute(input, context);
        QVERIFY(result.ok());
        QCOMPARE(result.output.toObject().value(QStringLiteral("answers")).toArray().first().toString(),
                 QStringLiteral("A"));

        // Found when tried: the card of a question answered after a minute said "1m 10s", the person's time.
        // The clock starts again when the answer comes, as after a permission request.
        context.askUser = [](const QJsonObject &, const CancellationToken &) {
            QThread::msleep(300); // the person reads and answers
            return QJsonObject{{QStringLiteral("answers"), QJsonArray{QStringLiteral("B")}}};
        };
        context.running.start();
        QVERIFY(tool.execute(input, context).ok());
        QVERIFY2(context.running.elapsed() < 250, qPrintable(QString::number(context.running.elapsed())));
    }
};

QTEST_GUILESS_MAIN(TestSearchTools)
#include "tst_searchtools.moc"
