// What a compaction's summary left out (issue 16 point 3): paths, identifiers, numbers and error messages of
// the compacted range that the summary does not mention, found without a model call.
#include "loop/compactionprompts.h"
#include "loop/droppeddetails.h"

#include <QTest>

using namespace keen;

class TestDroppedDetails : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void findsWhatTheSummaryLeftOut();
    void nothingWhenTheSummaryKeepsItAll();
    void isBoundedAndDeterministic();
    void manyPathsLeaveRoomForTheOtherKinds();
    void framingAndKeptTextAreNoDetails();
    void toolJsonGivesItsValuesNotItsSyntax();
    void proseNamingAnErrorIsNoErrorLine();
    void datesAndVersionsStayWhole();
    void readableTextHasNoEmphasisMarks();
    void absoluteAndHomePathsAreFound();
    void identifiersOfEveryShape();
    void errorLinesOfCommonTools();
};

namespace {

MessageList range()
{
    ToolActivity build;
    build.tool = QStringLiteral("bash");
    build.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("cmake --build build")}};
    build.status = QStringLiteral("error");
    build.hasRawOutput = true;
    build.rawOutput = QStringLiteral("[12/40] Building core/loop/toolloopclient.cpp\n"
                                     "core/loop/toolloopclient.cpp:418: error: no member named 'runSlices'\n"
                                     "ninja: build stopped: subcommand failed.\n");
    return {Message::system(QStringLiteral("You are Keen. SystemOnlyIdentifier")),
            Message::user(QStringLiteral("Fix the build; the budget is 15904 tokens and maxParts stays 8.")),
            Message::assistant(QStringLiteral("Building."), TurnMemory{{build}})};
}

ToolActivity bashRun(const QString &command, const QString &out, const QString &err, int exitCode)
{
    ToolActivity run;
    run.tool = QStringLiteral("bash");
    run.input = QJsonObject{{QStringLiteral("command"), command}};
    run.status = exitCode == 0 ? QStringLiteral("success") : QStringLiteral("error");
    run.hasRawOutput = true;
    run.rawOutput = QJsonObject{{QStringLiteral("stdout"), out},
                                {QStringLiteral("stderr"), err},
                                {QStringLiteral("exit_code"), exitCode}};
    return run;
}

QStringList texts(const QList<DroppedDetail> &details, DroppedDetail::Kind kind)
{
    QStringList result;
    for (const DroppedDetail &detail : details) {
        if (detail.kind == kind)
            result.append(detail.text);
    }
    return result;
}

} // namespace

void TestDroppedDetails::findsWhatTheSummaryLeftOut()
{
    const QString summary = QStringLiteral("## Goal\nFix the build of core/loop/toolloopclient.cpp.");
    const QList<DroppedDetail> details = DroppedDetails::find(range(), summary);
    QVERIFY(
        !texts(details, DroppedDetail::Kind::Path).contains(QStringLiteral("core/loop/toolloopclient.cpp")));
    QVERIFY(texts(details, DroppedDetail::Kind::Error)
                .contains(
                    QStringLiteral("core/loop/toolloopclient.cpp:418: error: no member named 'runSlices'")));
    QVERIFY(texts(details, DroppedDetail::Kind::Error)
                .contains(QStringLiteral("ninja: build stopped: subcommand failed.")));
    QVERIFY(texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("maxParts")));
    QVERIFY(texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("runSlices")));
    QVERIFY(texts(details, DroppedDetail::Kind::Number).contains(QStringLiteral("15904")));
    QVERIFY(texts(details, DroppedDetail::Kind::Number).contains(QStringLiteral("418")));
    // The system prompt is not part of the compacted range.
    QVERIFY(
        !texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("SystemOnlyIdentifier")));
    // Each comes with the original lines around it, to pin.
    for (const DroppedDetail &detail : details)
        QVERIFY2(detail.excerpt.contains(detail.text),
                 qPrintable(detail.text + QStringLiteral(" / ") + detail.excerpt));
}

void TestDroppedDetails::nothingWhenTheSummaryKeepsItAll()
{
    const QString summary =
        QStringLiteral("## Goal\nFix the build; budget 15904 tokens, maxParts stays 8.\n## Relevant Files\n"
                       "core/loop/toolloopclient.cpp:418: error: no member named 'runSlices'\n"
                       "ninja: build stopped: subcommand failed.\n`cmake --build build`, step [12/40]");
    const QList<DroppedDetail> details = DroppedDetails::find(range(), summary);
    QVERIFY2(details.isEmpty(), qPrintable(details.isEmpty() ? QString() : details.first().text));
}

void TestDroppedDetails::isBoundedAndDeterministic()
{
    MessageList many{Message::user(QStringLiteral("start"))};
    QString numbers;
    for (int i = 1000; i < 1200; ++i)
        numbers += QString::number(i) + QLatin1Char(' ');
    many.append(Message::user(numbers));
    const QList<DroppedDetail> first = DroppedDetails::find(many, QString(), 50);
    QCOMPARE(first.size(), 50);
    QCOMPARE(first.first().text, QStringLiteral("1000"));
    QCOMPARE(DroppedDetails::find(many, QString(), 50), first);
}

// Issue 16, found by a tester: a grep of 70 paths before the file read that holds the error filled the
// whole list with paths; the error line, the identifier and the version were never listed. Every kind gets
// its share, error lines first; a range of only paths still lists limit of them, in order.
void TestDroppedDetails::manyPathsLeaveRoomForTheOtherKinds()
{
    QStringList grepped;
    for (int i = 0; i < 70; ++i)
        grepped.append(QStringLiteral("src/feature%1/widget_%1.cpp").arg(i));
    ToolActivity grep;
    grep.tool = QStringLiteral("bash");
    grep.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("grep -rl Widget src")}};
    grep.status = QStringLiteral("success");
    grep.hasRawOutput = true;
    grep.rawOutput = grepped.join(QLatin1Char('\n'));
    ToolActivity read;
    read.tool = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("build.log")}};
    read.status = QStringLiteral("success");
    read.hasRawOutput = true;
    read.rawOutput = QStringLiteral("src/parser/lexer.cpp:88: error: unexpected token at offset 4711\n"
                                    "in parseExpressionTree of release 2.14.7\n");
    const MessageList range{
        Message::user(QStringLiteral("Why does the build fail?")),
        Message::assistant(QStringLiteral("Searching, then reading the log."), TurnMemory{{grep, read}})};
    const QString summary = QStringLiteral("## Goal\nFix the build.");

    const QList<DroppedDetail> details = DroppedDetails::find(range, summary, 50);
    QVERIFY(details.size() <= 50);
    QCOMPARE(texts(details, DroppedDetail::Kind::Error),
             QStringList{QStringLiteral("src/parser/lexer.cpp:88: error: unexpected token at offset 4711")});
    QVERIFY(texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("parseExpressionTree")));
    QVERIFY(texts(details, DroppedDetail::Kind::Number).contains(QStringLiteral("2.14.7")));
    // The error line leads the list (the chat's row names the first three); the paths fill what the other
    // kinds leave, in the order the grep gave them.
    QCOMPARE(details.first().kind, DroppedDetail::Kind::Error);
    const QStringList paths = texts(details, DroppedDetail::Kind::Path);
    QCOMPARE(paths.size(), 50 - texts(details, DroppedDetail::Kind::Error).size() -
                               texts(details, DroppedDetail::Kind::Identifier).size() -
                               texts(details, DroppedDetail::Kind::Number).size());
    QCOMPARE(paths, grepped.mid(0, paths.size()));
    // A part of a path left out of the list ("widget_69" of src/feature69/widget_69.cpp) is still no detail.
    QCOMPARE(texts(details, DroppedDetail::Kind::Identifier),
             QStringList{QStringLiteral("parseExpressionTree")});

    // Only paths: all of the limit is theirs.
    const MessageList onlyPaths{Message::user(QStringLiteral("List the widgets.")),
                                Message::assistant(QStringLiteral("Searching."), TurnMemory{{grep}})};
    const QList<DroppedDetail> pathsOnly = DroppedDetails::find(onlyPaths, summary, 50);
    QCOMPARE(pathsOnly.size(), 50);
    QCOMPARE(texts(pathsOnly, DroppedDetail::Kind::Path), grepped.mid(0, 50));
}

// Issue 16, found re-checking it: an earlier replacement in the range gave its own tags as identifiers
// (compacted_context, pinned_context, last_user_message), read_file output its JSON keys and line:hash|
// prefixes, a sentence its full stop ("vendor/."), and text the new replacement keeps verbatim (a pin) was
// listed as dropped.
void TestDroppedDetails::framingAndKeptTextAreNoDetails()
{
    const Pin pin{QStringLiteral("pin-1"), Pin::Kind::Note, QStringLiteral("Never edit vendor/."), QString()};
    const auto earlier = CompactionPrompts::automaticReplacement(
        QStringLiteral("## Goal\nRead the parser."),
        {Message::user(QStringLiteral("read the parser, keep it under 8443 lines"))},
        CompactionPrompts::pinnedContext({pin}));
    QVERIFY(earlier);
    ToolActivity read;
    read.tool = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("src/parser.cpp")}};
    read.status = QStringLiteral("success");
    read.hasRawOutput = true;
    read.rawOutput =
        QStringLiteral(R"({"content":"1:a3f|int value = 27611;\n120:052|src/lexer.cpp:88: )"
                       R"(error: unexpected token\n121:9be|// see docs/grammar.md.","has_more":false})");
    MessageList range = *earlier;
    range.append(Message::assistant(QStringLiteral("Reading."), TurnMemory{{read}}));

    const QString summary = QStringLiteral("## Goal\nRead src/parser.cpp.");
    const QString kept =
        CompactionPrompts::manualReplacement(summary, CompactionPrompts::pinnedContext({pin}));
    const QList<DroppedDetail> details = DroppedDetails::find(range, kept);
    const QStringList paths = texts(details, DroppedDetail::Kind::Path);
    const QStringList identifiers = texts(details, DroppedDetail::Kind::Identifier);
    const QStringList numbers = texts(details, DroppedDetail::Kind::Number);
    for (const QString &markup : {QStringLiteral("compacted_context"), QStringLiteral("pinned_context"),
                                  QStringLiteral("last_user_message"), QStringLiteral("has_more")})
        QVERIFY2(!identifiers.contains(markup), qPrintable(identifiers.join(QLatin1Char(' '))));
    QVERIFY2(!numbers.contains(QStringLiteral("052")) && !numbers.contains(QStringLiteral("120")) &&
                 !numbers.contains(QStringLiteral("121")),
             qPrintable(numbers.join(QLatin1Char(' '))));
    // The pin is kept verbatim, so its path is not dropped; the content of the read is.
    QVERIFY2(!paths.contains(QStringLiteral("vendor/")) && !paths.contains(QStringLiteral("vendor/.")),
             qPrintable(paths.join(QLatin1Char(' '))));
    QVERIFY2(paths.contains(QStringLiteral("docs/grammar.md")), qPrintable(paths.join(QLatin1Char(' '))));
    QVERIFY2(paths.contains(QStringLiteral("src/lexer.cpp")), qPrintable(paths.join(QLatin1Char(' '))));
    QVERIFY2(numbers.contains(QStringLiteral("27611")), qPrintable(numbers.join(QLatin1Char(' '))));
    QVERIFY2(numbers.contains(QStringLiteral("8443")), qPrintable(numbers.join(QLatin1Char(' '))));
    QVERIFY(texts(details, DroppedDetail::Kind::Error)
                .contains(QStringLiteral("src/lexer.cpp:88: error: unexpected token")));

    // A sentence's full stop is not part of the path.
    const QList<DroppedDetail> unpinned = DroppedDetails::find(
        {Message::user(QStringLiteral("Never edit vendor/. Then see docs/a.md."))}, summary);
    QCOMPARE(texts(unpinned, DroppedDetail::Kind::Path),
             QStringList({QStringLiteral("vendor/"), QStringLiteral("docs/a.md")}));
}

// Tried as a user, 2026-12-04: the list named raw tool JSON (`{"status":"error","message":...}` as an error,
// excerpts of JSON syntax). A compacted range as the loop keeps it: an edit_file call that failed, a bash
// call whose output was not retained, a read whose JSON content holds an error line.
void TestDroppedDetails::toolJsonGivesItsValuesNotItsSyntax()
{
    ToolActivity edit;
    edit.tool = QStringLiteral("edit_file");
    edit.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("src/main.cpp")},
                             {QStringLiteral("old_string"), QStringLiteral("bool verbose = false;")},
                             {QStringLiteral("new_string"), QStringLiteral("bool verboseOutput = false;")}};
    edit.status = QStringLiteral("error");
    edit.hasRawOutput = true;
    edit.rawOutput = QJsonObject{
        {QStringLiteral("status"), QStringLiteral("error")},
        {QStringLiteral("message"), QStringLiteral("the text to replace was not found in src/main.cpp")}};
    edit.retainedOutput = edit.rawOutput;
    ToolActivity test;
    test.tool = QStringLiteral("bash");
    test.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("ctest --test-dir build")}};
    test.status = QStringLiteral("error");
    test.exitCode = 8;
    ToolActivity read;
    read.tool = QStringLiteral("read_file");
    read.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("build/Testing/LastTest.log")}};
    read.status = QStringLiteral("success");
    read.hasRawOutput = true;
    read.rawOutput = QJsonObject{
        {QStringLiteral("content"), QStringLiteral("1:a3f|Start testing\n2:9c0|tst_cli failed: "
                                                   "expected \"--json\" to list 3 sessions, got 2")},
        {QStringLiteral("has_more"), false}};
    const QString reply = QStringLiteral("Editing, testing, reading the log.");
    edit.textOffset = 0;
    test.textOffset = 0;
    read.textOffset = 0;
    const MessageList range{Message::user(QStringLiteral("Rename the verbose flag and run the tests.")),
                            Message::assistant(reply, TurnMemory{{edit, test, read}})};

    const QList<DroppedDetail> details =
        DroppedDetails::find(range, QStringLiteral("## Goal\nRename a flag."));
    QStringList all;
    for (const DroppedDetail &detail : details) {
        all.append(detail.text);
        // Neither the detail nor the excerpt pinned for it is JSON syntax.
        for (const QString &text : {detail.text, detail.excerpt}) {
            for (const QString &syntax :
                 {QStringLiteral("{\""), QStringLiteral("\":"), QStringLiteral("\",\""),
                  QStringLiteral("\"}"), QStringLiteral("\\n"), QStringLiteral("\\\"")})
                QVERIFY2(!text.contains(syntax), qPrintable(detail.text + QStringLiteral(" / ") + text));
        }
    }
    const QString listed = all.join(QStringLiteral(" | "));
    // Each detail once.
    QCOMPARE(QSet<QString>(all.cbegin(), all.cend()).size(), all.size());
    const QStringList paths = texts(details, DroppedDetail::Kind::Path);
    QVERIFY2(paths.contains(QStringLiteral("src/main.cpp")), qPrintable(listed));
    QVERIFY2(paths.contains(QStringLiteral("build/Testing/LastTest.log")), qPrintable(listed));
    const QStringList errors = texts(details, DroppedDetail::Kind::Error);
    QVERIFY2(errors.contains(QStringLiteral("the text to replace was not found in src/main.cpp")),
             qPrintable(listed));
    QVERIFY2(errors.contains(QStringLiteral("tst_cli failed: expected \"--json\" to list 3 sessions, got 2")),
             qPrintable(listed));
    QVERIFY2(texts(details, DroppedDetail::Kind::Identifier).contains(QStringLiteral("verboseOutput")),
             qPrintable(listed));
    // A part of a path is no second detail.
    QVERIFY2(!all.contains(QStringLiteral("LastTest")), qPrintable(listed));
    // The keys of the tool JSON and its status are no details.
    for (const QString &syntax :
         {QStringLiteral("old_string"), QStringLiteral("new_string"), QStringLiteral("has_more"),
          QStringLiteral("status"), QStringLiteral("error")})
        QVERIFY2(!all.contains(syntax), qPrintable(listed));
    // The path's excerpt reads as the call: the tool and its values.
    const auto path = std::find_if(details.cbegin(), details.cend(), [](const DroppedDetail &detail) {
        return detail.text == QLatin1String("src/main.cpp");
    });
    QVERIFY(path != details.cend());
    QVERIFY2(path->excerpt.contains(QLatin1String("edit_file")), qPrintable(path->excerpt));
}

// Tried as a user: an assistant sentence with "error code E1234" was listed as an Error. Error messages are
// what a tool reported as its error and lines that look like error output, in prose (pasted) and tool output
// alike; a sentence that only names an error, or that something failed, is none.
void TestDroppedDetails::proseNamingAnErrorIsNoErrorLine()
{
    const QStringList errorOutput{
        QStringLiteral("src/a.cpp:12:5: error: expected ';' after expression"),
        QStringLiteral("fatal: not a git repository (or any of the parent directories): .git"),
        QStringLiteral("TypeError: parser is undefined"),
        QStringLiteral("java.lang.IllegalStateException: closed twice"),
        QStringLiteral("error[E0425]: cannot find value `tokens` in this scope"),
        QStringLiteral("FAILED tests/test_lexer.py::test_unicode - AssertionError"),
        QStringLiteral("make: *** [Makefile:12: all] Error 2"),
        QStringLiteral("Traceback (most recent call last):"),
    };
    const QStringList prose{
        QStringLiteral("You said: *First turn: we are building a parser.* We saw error code E1234 there."),
        QStringLiteral("The error handling in the lexer is fine; nothing failed since."),
        QStringLiteral("It failed: the linker ran out of memory, an Exception we expected."),
        QStringLiteral("Note: the old build failed."),
    };
    ToolActivity run;
    run.tool = QStringLiteral("bash");
    run.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("make")}};
    run.status = QStringLiteral("error");
    run.hasRawOutput = true;
    run.rawOutput =
        QJsonObject{{QStringLiteral("stdout"), QStringLiteral("Checking for error handling... yes")},
                    {QStringLiteral("stderr"), errorOutput.mid(0, 4).join(QLatin1Char('\n'))},
                    {QStringLiteral("exit_code"), 2}};
    const MessageList range{
        Message::user(QStringLiteral("It breaks like this:\n") + errorOutput.mid(4).join(QLatin1Char('\n'))),
        Message::assistant(prose.join(QLatin1Char('\n')), TurnMemory{{run}})};

    const QList<DroppedDetail> details = DroppedDetails::find(range, QStringLiteral("## Goal\nFix it."));
    QStringList errors = texts(details, DroppedDetail::Kind::Error);
    QStringList expected = errorOutput;
    std::sort(errors.begin(), errors.end());
    std::sort(expected.begin(), expected.end());
    QCOMPARE(errors, expected);
}

// Tried as a user: the date 2026-12-20 was listed as the Number "2026". Dates and versions are one detail
// each, whole, also at the end of a sentence; plain numbers and ranges as before.
void TestDroppedDetails::datesAndVersionsStayWhole()
{
    const MessageList range{
        Message::user(QStringLiteral("Ship it on 2026-12-20, the build of 2026-12-18T09:30 was 1.2.3.")),
        Message::assistant(QStringLiteral("Qt 6.4.2 and v2.0.1-rc.1 differ; the server is 192.168.10.20. The "
                                          "budget is 15904 tokens, 1,234.5 per part, 10000-20000 in all, "
                                          "due 20.12.2026."))};
    const QList<DroppedDetail> details = DroppedDetails::find(range, QStringLiteral("## Goal\nShip it."));
    QCOMPARE(texts(details, DroppedDetail::Kind::Number),
             (QStringList{QStringLiteral("2026-12-20"), QStringLiteral("2026-12-18T09:30"),
                          QStringLiteral("1.2.3"), QStringLiteral("6.4.2"), QStringLiteral("v2.0.1-rc.1"),
                          QStringLiteral("192.168.10.20"), QStringLiteral("15904"), QStringLiteral("1,234.5"),
                          QStringLiteral("10000-20000"), QStringLiteral("20.12.2026")}));
    // A version the summary keeps is not dropped, nor is any part of it.
    const QList<DroppedDetail> kept =
        DroppedDetails::find(range, QStringLiteral("## Goal\nShip 1.2.3 on 2026-12-20."));
    QVERIFY(!texts(kept, DroppedDetail::Kind::Number).contains(QStringLiteral("1.2.3")));
    QVERIFY(!texts(kept, DroppedDetail::Kind::Number).contains(QStringLiteral("2026")));
}

// Tried as a user: the row read "(You said: *First turn: we are building a, ...)": what the chat and the list
// show of a detail reads without Markdown emphasis; marks that are no emphasis stay.
void TestDroppedDetails::readableTextHasNoEmphasisMarks()
{
    QCOMPARE(
        DroppedDetail::readable(QStringLiteral("You said: *First turn: we are building a parser.* Then")),
        QStringLiteral("You said: First turn: we are building a parser. Then"));
    QCOMPARE(DroppedDetail::readable(QStringLiteral("**Bold**, __strong__, _it_, ~~gone~~ and ***both***.")),
             QStringLiteral("Bold, strong, it, gone and both."));
    QCOMPARE(DroppedDetail::readable(QStringLiteral("**see *the* parser**")),
             QStringLiteral("see the parser"));
    for (const QString &plain :
         {QStringLiteral("snake_case_name and max_parts_count"), QStringLiteral("match *.cpp and *.h"),
          QStringLiteral("* a bullet"), QStringLiteral("2 * 3 * 4"), QStringLiteral("a_b_c")})
        QCOMPARE(DroppedDetail::readable(plain), plain);
}

// Tried 2026-12-07: after fetching http://docs.example.test:8767/guide the window listed "8767/guide" as a
// path not in the summary. Audit 2026-12-06: a message naming /etc/nginx/nginx.conf,
// /home/dev/project/src/server.cpp and ~/.config/keen/settings.json gave "left out none of the paths":
// absolute and home paths were never found.
void TestDroppedDetails::absoluteAndHomePathsAreFound()
{
    const QStringList named{QStringLiteral("/etc/nginx/nginx.conf"),
                            QStringLiteral("/home/dev/project/src/http_server_v2.cpp"),
                            QStringLiteral("~/.config/keen/settings.json"), QStringLiteral("/var/log/nginx/"),
                            QStringLiteral("./run.sh")};
    const MessageList range{Message::user(QStringLiteral(
                                "nginx refuses to start since I edited /etc/nginx/nginx.conf; the upstream "
                                "is /home/dev/project/src/http_server_v2.cpp and my key is in "
                                "~/.config/keen/settings.json. Logs go to /var/log/nginx/, start it with "
                                "./run.sh. Type /compact when done, see "
                                "https://nginx.org/en/docs/beginners_guide.html and check "
                                "http://localhost:8080/health/live")),
                            Message::assistant(QStringLiteral("Reading /etc/nginx/nginx.conf first."))};

    const QList<DroppedDetail> details = DroppedDetails::find(range, QStringLiteral("## Goal\nStart nginx."));
    const QStringList paths = texts(details, DroppedDetail::Kind::Path);
    QVERIFY2(paths == named, qPrintable(paths.join(QLatin1Char(' '))));
    // A part of a path is no detail of its own, a slash command and a web address are no paths.
    QStringList all;
    for (const DroppedDetail &detail : details)
        all.append(detail.text);
    const QString listed = all.join(QStringLiteral(" | "));
    for (const QString &part :
         {QStringLiteral("http_server_v2"), QStringLiteral("/compact"),
          QStringLiteral("/en/docs/beginners_guide.html"), QStringLiteral("nginx.org"),
          QStringLiteral("//nginx.org/en/docs/beginners_guide.html"), QStringLiteral("beginners_guide"),
          QStringLiteral("8080/health/live"), QStringLiteral("8080"), QStringLiteral("health/live")})
        QVERIFY2(!all.contains(part), qPrintable(listed));

    // The summary keeps them: none is listed.
    const QList<DroppedDetail> kept =
        DroppedDetails::find(range, QStringLiteral("## Relevant Files\n") + named.join(QLatin1Char('\n')));
    QVERIFY2(texts(kept, DroppedDetail::Kind::Path).isEmpty(),
             qPrintable(texts(kept, DroppedDetail::Kind::Path).join(QLatin1Char(' '))));

    // A summary names the project's files by their path in the project: the absolute path is kept by it,
    // not by its file name alone.
    const QList<DroppedDetail> relative =
        DroppedDetails::find(range, QStringLiteral("## Relevant Files\nsrc/http_server_v2.cpp, nginx.conf"));
    const QStringList left = texts(relative, DroppedDetail::Kind::Path);
    QVERIFY2(!left.contains(QStringLiteral("/home/dev/project/src/http_server_v2.cpp")),
             qPrintable(left.join(QLatin1Char(' '))));
    QVERIFY2(left.contains(QStringLiteral("/etc/nginx/nginx.conf")), qPrintable(left.join(QLatin1Char(' '))));
}

// Audit 2026-12-06: constants and environment variables (MAX_RETRY_COUNT, KEEN_HOME), errno names (ENOENT),
// commit hashes, UUIDs and ticket keys were never listed. A sentence's capitalised words, acronyms and
// standard names (UTF-8, SHA-256) are no identifiers, nor is an English word made of hex letters.
void TestDroppedDetails::identifiersOfEveryShape()
{
    const QStringList named{QStringLiteral("MAX_RETRY_COUNT"),
                            QStringLiteral("KEEN_HOME"),
                            QStringLiteral("ENOENT"),
                            QStringLiteral("3f9a2c1"),
                            QStringLiteral("9fceb02d0ae598e95dc970b74767f19372d61af8"),
                            QStringLiteral("550e8400-e29b-41d4-a716-446655440000"),
                            QStringLiteral("ABC-123"),
                            QStringLiteral("PLAT-4521")};
    ToolActivity log =
        bashRun(QStringLiteral("git log --oneline -2"),
                QStringLiteral("3f9a2c1 Raise the retry limit (ABC-123)\n"
                               "9fceb02d0ae598e95dc970b74767f19372d61af8 Read KEEN_HOME first\n"),
                QString(), 0);
    const MessageList range{
        Message::user(QStringLiteral("Set MAX_RETRY_COUNT back to 3 and KEEN_HOME to a temp folder; open() "
                                     "fails with ENOENT. The Parser Works Again on OK builds. README and the "
                                     "API docs say UTF-8, SHA-256 and ISO-8601; the facade was defaced. "
                                     "Session 550e8400-e29b-41d4-a716-446655440000, tickets ABC-123 and "
                                     "PLAT-4521.")),
        Message::assistant(QStringLiteral("Looking at the history."), TurnMemory{{log}})};

    const QList<DroppedDetail> details = DroppedDetails::find(range, QStringLiteral("## Goal\nFix retries."));
    const QStringList identifiers = texts(details, DroppedDetail::Kind::Identifier);
    const QString listed = identifiers.join(QLatin1Char(' '));
    for (const QString &identifier : named)
        QVERIFY2(identifiers.contains(identifier), qPrintable(identifier + QStringLiteral(" / ") + listed));
    QCOMPARE(identifiers.size(), named.size());
    // No part of a hash, a UUID or a ticket key is a number.
    QVERIFY2(texts(details, DroppedDetail::Kind::Number).isEmpty(),
             qPrintable(texts(details, DroppedDetail::Kind::Number).join(QLatin1Char(' '))));

    const QList<DroppedDetail> kept =
        DroppedDetails::find(range, QStringLiteral("## Key Facts\n") + named.join(QLatin1Char('\n')));
    QVERIFY2(texts(kept, DroppedDetail::Kind::Identifier).isEmpty(),
             qPrintable(texts(kept, DroppedDetail::Kind::Identifier).join(QLatin1Char(' '))));
}

// Audit 2026-12-06: the error lines of common tools were not listed (an errno message, a crash, a linker's
// undefined reference, Permission denied, curl, a Java exception, a Go panic, a Python traceback whose last
// line names the exception, git's fatal, a test runner's FAILED). A session as it runs them; the assistant's
// prose about the same errors is none.
void TestDroppedDetails::errorLinesOfCommonTools()
{
    const QStringList errors{
        QStringLiteral("ENOENT: no such file or directory, open '/home/dev/app/config.json'"),
        QStringLiteral("Segmentation fault (core dumped)"),
        QStringLiteral("FAILED: app"),
        QStringLiteral("main.cpp:(.text+0x1d): undefined reference to `foo_init'"),
        QStringLiteral("collect2: error: ld returned 1 exit status"),
        QStringLiteral("ninja: build stopped: subcommand failed."),
        QStringLiteral("bash: ./deploy.sh: Permission denied"),
        QStringLiteral(
            "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server"),
        QStringLiteral("Exception in thread \"main\" java.lang.NullPointerException"),
        QStringLiteral("panic: runtime error: index out of range [5] with length 3"),
        QStringLiteral("AssertionError"),
        QStringLiteral("fatal: unable to access 'https://github.com/dev/app.git/': Could not resolve host: "
                       "github.com"),
        QStringLiteral("FAILED tests/test_sync.py::test_manifest - KeyError: 'version'"),
    };
    const QList<ToolActivity> runs{
        bashRun(QStringLiteral("node server.js"), QString(),
                QStringLiteral("node:internal/fs/utils:347\n    throw err;\n    ^\n\n") + errors.at(0), 1),
        bashRun(QStringLiteral("./build/app --selftest"), QStringLiteral("running 4 checks\n"), errors.at(1),
                139),
        bashRun(QStringLiteral("cmake --build build"),
                QStringLiteral("[1/2] Building CXX object CMakeFiles/app.dir/src/main.cpp.o\n"
                               "[2/2] Linking CXX executable app\nFAILED: app \n"
                               ": && /usr/bin/c++ CMakeFiles/app.dir/src/main.cpp.o -o app && :\n"
                               "/usr/bin/ld: CMakeFiles/app.dir/src/main.cpp.o: in function `main':\n") +
                    errors.at(3) + QLatin1Char('\n') + errors.at(4) + QLatin1Char('\n') + errors.at(5),
                QString(), 1),
        bashRun(QStringLiteral("./deploy.sh"), QString(), errors.at(6), 126),
        bashRun(QStringLiteral("curl -sS http://localhost:8080/health"), QString(), errors.at(7), 7),
        bashRun(QStringLiteral("java -jar app.jar"), QString(),
                errors.at(8) + QStringLiteral("\n\tat com.example.App.start(App.java:27)\n"
                                              "\tat com.example.App.main(App.java:12)"),
                1),
        bashRun(QStringLiteral("go run ."), QString(),
                errors.at(9) + QStringLiteral("\n\ngoroutine 1 [running]:\nmain.main()\n"
                                              "\t/home/dev/svc/main.go:14 +0x1d\nexit status 2"),
                1),
        bashRun(QStringLiteral("python3 tools/sync.py"), QString(),
                QStringLiteral("Traceback (most recent call last):\n"
                               "  File \"/home/dev/tools/sync.py\", line 61, in <module>\n"
                               "    assert manifest[\"version\"] == 2\n") +
                    errors.at(10),
                1),
        bashRun(QStringLiteral("git push"), QString(), errors.at(11), 128),
        bashRun(QStringLiteral("pytest -q"), errors.at(12) + QStringLiteral("\n1 failed, 12 passed in 0.42s"),
                QString(), 1),
    };
    const MessageList range{
        Message::user(QStringLiteral("Get the app running again.")),
        Message::assistant(
            QStringLiteral("The error is clear: permission denied on the script, so I will chmod "
                           "it. There was a segmentation fault earlier and an undefined "
                           "reference to foo_init, both fixed; nothing failed since.\n"
                           "If you see Exception in thread errors again, tell me: a panic or a "
                           "fatal error would show in the log."),
            TurnMemory{runs})};

    // Every kind of this range fits a larger list; the default limit shares it out as before.
    const QList<DroppedDetail> details =
        DroppedDetails::find(range, QStringLiteral("## Goal\nRun the app."), 200);
    QStringList found = texts(details, DroppedDetail::Kind::Error);
    QStringList expected = errors;
    std::sort(found.begin(), found.end());
    std::sort(expected.begin(), expected.end());
    QVERIFY2(found == expected, qPrintable(found.join(QLatin1Char('\n'))));
    // The traceback is listed by the exception it ended with, its frames in the excerpt to pin.
    const auto traceback = std::find_if(details.cbegin(), details.cend(), [](const DroppedDetail &detail) {
        return detail.text == QLatin1String("AssertionError");
    });
    QVERIFY(traceback != details.cend());
    QVERIFY2(traceback->excerpt.startsWith(QLatin1String("Traceback (most recent call last):")) &&
                 traceback->excerpt.contains(QLatin1String("sync.py\", line 61")),
             qPrintable(traceback->excerpt));

    // The summary keeps them: none is listed.
    const QList<DroppedDetail> kept =
        DroppedDetails::find(range, QStringLiteral("## Errors\n") + errors.join(QLatin1Char('\n')), 200);
    QVERIFY2(texts(kept, DroppedDetail::Kind::Error).isEmpty(),
             qPrintable(texts(kept, DroppedDetail::Kind::Error).join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestDroppedDetails)
#include "tst_droppeddetails.moc"
