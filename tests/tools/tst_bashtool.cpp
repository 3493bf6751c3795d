#include "testenvironment.h"
#include "tools/bashtool.h"
#include "tools/filesystemguard.h"
#include "tools/recentoutput.h"
#include "tooltestworkspace.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>
#include <sys/stat.h>

using namespace keen;

class TestBashTool : public QObject
{
    Q_OBJECT

private:
    using Fixture = test::ToolTestWorkspace;

    // True while a process of the group is alive. Zombies whose parent is gone may linger where PID 1 does
    // not reap them; they run nothing, so they do not count.
    static bool groupAlive(pid_t group)
    {
        if (::kill(-group, 0) != 0)
            return false;
        const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &pid : pids) {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray line = stat.readAll();
            const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
            if (fields.size() > 2 && fields.at(2).toInt() == group && fields.at(0) != "Z")
                return true;
        }
        return false;
    }

private Q_SLOTS:
    void runsInWorkspaceAndReportsExitCode()
    {
        Fixture f;
        BashTool tool;
        ToolResult result = tool.execute({{QStringLiteral("command"), QStringLiteral("pwd; echo err >&2")},
                                          {QStringLiteral("summary"), QStringLiteral("print the folder")}},
                                         f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QJsonObject out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("stdout")).toString().trimmed(),
                 QFileInfo(f.ws.path()).canonicalFilePath());
        QCOMPARE(out.value(QStringLiteral("exit_code")).toInt(), 0);
        QCOMPARE(out.value(QStringLiteral("truncated")).toBool(), false);
        QVERIFY(!out.contains(QStringLiteral("stderr"))); // only when the command fails
        QVERIFY(!out.contains(QStringLiteral("failed_command")));
        QCOMPARE(out.value(QStringLiteral("summary")).toString(), QStringLiteral("print the folder"));
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(f.person.count(), 0); // not dangerous: no question

        result = tool.execute(
            {{QStringLiteral("command"), QStringLiteral("echo out; echo oops >&2; exit 3")}}, f.context);
        QVERIFY(result.ok()); // a failing command is a result, not a tool error
        out = result.output.toObject();
        QCOMPARE(out.value(QStringLiteral("exit_code")).toInt(), 3);
        QCOMPARE(result.exitCode, 3);
        QCOMPARE(out.value(QStringLiteral("stderr")).toString(), QStringLiteral("oops\n"));
        QCOMPARE(out.value(QStringLiteral("failed_command")).toString(),
                 QStringLiteral("echo out; echo oops >&2; exit 3"));
    }

    // Seen when tried: a command that ran for minutes showed only its command line until it ended. Its card
    // now gets what it has printed so far, a few times a second: the last lines, whole, and how many came
    // before them. A command printing 100,000 lines (about 1.2 MB) while it runs.
    void aRunningCommandReportsItsOutputSoFar()
    {
        Fixture f;
        BashTool tool;
        struct Report
        {
            QString text;
            qint64 earlierLines;
            bool gateExisted;
        };
        QList<Report> reports;
        const QString gate = QDir(f.ws.path()).filePath(QStringLiteral("go"));
        f.context.outputProgress = [&](const QString &text, qint64 earlierLines) {
            reports.append({text, earlierLines, QFile::exists(gate)});
            if (text.contains(QStringLiteral("line 100000\n")) && !QFile::exists(gate))
                QFile(gate).open(QIODevice::WriteOnly); // the command goes on only once this was reported
        };
        const ToolResult result = tool.execute(
            {{QStringLiteral("command"),
              QStringLiteral(
                  "seq -f 'line %g' 1 100000; echo 'to stderr' >&2; "
                  "for i in $(seq 1 400); do [ -e go ] && break; sleep 0.05; done; echo finished")}},
            f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        QVERIFY(result.output.toObject()
                    .value(QStringLiteral("stdout"))
                    .toString()
                    .endsWith(QStringLiteral("finished\n")));

        QVERIFY(!reports.isEmpty());
        const auto seen = std::find_if(reports.cbegin(), reports.cend(), [](const Report &report) {
            return report.text.endsWith(QStringLiteral("line 100000\n")) ||
                   report.text.endsWith(QStringLiteral("line 100000\nto stderr\n"));
        });
        QVERIFY2(seen != reports.cend(), qPrintable(reports.constLast().text.right(200)));
        QVERIFY(!seen->gateExisted); // reported while the command still waited
        for (const Report &report : std::as_const(reports)) {
            QVERIFY(report.text.size() <= RecentOutput::Capacity);
            QVERIFY(report.text.startsWith(QStringLiteral("line ")));   // whole lines only
            QVERIFY(!report.text.contains(QStringLiteral("finished"))); // the last comes with the result
        }
        // The lines before the kept ones are counted: the first kept line's number follows them.
        const qsizetype firstNumber = seen->text.section(QLatin1Char('\n'), 0, 0).mid(5).toLongLong();
        QCOMPARE(firstNumber, seen->earlierLines + 1);
        QVERIFY(reports.size() < 200); // a few a second, not one per read
    }

    void recentOutputKeepsWholeLastLinesAndCountsTheRest()
    {
        RecentOutput recent;
        QVERIFY(recent.isEmpty());
        recent.append("first\nsecond\n");
        QCOMPARE(recent.text(), QStringLiteral("first\nsecond\n"));
        QCOMPARE(recent.earlierLines(), 0);
        for (int i = 0; i < 5000; ++i)
            recent.append(QByteArray("row ") + QByteArray::number(i) + '\n');
        QVERIFY(recent.text().size() <= RecentOutput::Capacity);
        QVERIFY(recent.text().endsWith(QStringLiteral("row 4999\n")));
        const QString first = recent.text().section(QLatin1Char('\n'), 0, 0);
        QVERIFY2(first.startsWith(QStringLiteral("row ")), qPrintable(first));
        QCOMPARE(recent.earlierLines(), 2 + first.mid(4).toLongLong()); // first, second, row 0 ..

        // One line longer than the capacity, of three-byte characters: its end is kept, decoded cleanly.
        RecentOutput wide;
        wide.append(QStringLiteral("\u2500").repeated(10000).toUtf8());
        QVERIFY(wide.text().size() > 0);
        QVERIFY(!wide.text().contains(QChar::ReplacementCharacter));
        QCOMPARE(wide.text(), QStringLiteral("\u2500").repeated(wide.text().size()));
    }

    // Found trying it headless: a command could print the provider's API key from its environment into
    // the tool result, the transcript and the next request.
    void providerKeysAreHiddenFromCommands()
    {
        Fixture f;
        f.context.hiddenEnvironment = {QStringLiteral("KEEN_TEST_PROVIDER_KEY")};
        qputenv("KEEN_TEST_PROVIDER_KEY", "sk-test-hidden-canary");
        qputenv("KEEN_TEST_OTHER", "visible");
        BashTool tool;
        const ToolResult result =
            tool.execute({{QStringLiteral("command"),
                           QStringLiteral("echo \"[$KEEN_TEST_PROVIDER_KEY] [$KEEN_TEST_OTHER]\"")}},
                         f.context);
        qunsetenv("KEEN_TEST_PROVIDER_KEY");
        qunsetenv("KEEN_TEST_OTHER");
        QVERIFY2(result.ok(), qPrintable(result.error));
        QCOMPARE(result.output.toObject().value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("[] [visible]\n"));
    }

    void dangerousCommandsAsk()
    {
        Fixture f;
        BashTool tool;
        QFile::copy(QStringLiteral("/dev/null"), f.ws.filePath(QStringLiteral("keep")));
        f.person.setAnswer(PermissionDecision::Deny);
        ToolResult result = tool.execute({{QStringLiteral("command"), QStringLiteral("rm keep")}}, f.context);
        QVERIFY(!result.ok());
        QCOMPARE(f.person.count(), 1);
        QVERIFY(f.person.requests().first().isDangerous);
        QCOMPARE(f.person.requests().first().command, QStringLiteral("rm keep"));
        QVERIFY(QFile::exists(f.ws.filePath(QStringLiteral("keep"))));

        // The model's own flag counts too.
        result = tool.execute(
            {{QStringLiteral("command"), QStringLiteral("echo hi")}, {QStringLiteral("isDangerous"), true}},
            f.context);
        QVERIFY(!result.ok());
        QCOMPARE(f.person.count(), 2);

        f.person.setAnswer(PermissionDecision::Redirect);
        result = tool.execute({{QStringLiteral("command"), QStringLiteral("rm keep")}}, f.context);
        QVERIFY(result.stopTurn);

        f.person.setAnswer(PermissionDecision::Allow);
        result = tool.execute({{QStringLiteral("command"), QStringLiteral("rm keep")}}, f.context);
        QVERIFY(result.ok());
        QVERIFY(!QFile::exists(f.ws.filePath(QStringLiteral("keep"))));
    }

    void largeOutputIsTruncatedAndSaved()
    {
        Fixture f;
        BashTool tool;
        // 100,000 bytes on stdout (digits) and on stderr, then fail so stderr is included.
        const QString command = QStringLiteral("head -c 100000 /dev/zero | tr '\\0' a; printf END; "
                                               "head -c 100000 /dev/zero | tr '\\0' b >&2; exit 1");
        const ToolResult result = tool.execute({{QStringLiteral("command"), command}}, f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QVERIFY(out.value(QStringLiteral("truncated")).toBool());
        const QString stdoutFile = out.value(QStringLiteral("stdout_file")).toString();
        const QString stderrFile = out.value(QStringLiteral("stderr_file")).toString();
        QVERIFY(stdoutFile.startsWith(f.env.path(QStringLiteral("data/bash/keen-bash-"))));
        QVERIFY(stdoutFile.endsWith(QStringLiteral(".stdout")));
        QVERIFY(stderrFile.endsWith(QStringLiteral(".stderr")));
        const QString text = out.value(QStringLiteral("stdout")).toString();
        const QString marker = QStringLiteral("\n... (%1 bytes omitted; full stdout saved to %2) ...\n")
                                   .arg(100003 - 32768 - 16384)
                                   .arg(stdoutFile);
        QVERIFY2(text.contains(marker), qPrintable(text.mid(32760, 200)));
        QCOMPARE(text.size(), 32768 + marker.size() + 16384);
        QVERIFY(text.endsWith(QStringLiteral("aaaEND")));

        QFile saved(stdoutFile);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(saved.size(), 100003);
        struct stat info;
        QCOMPARE(::stat(QFile::encodeName(stdoutFile).constData(), &info), 0);
        QCOMPARE(int(info.st_mode & 0777), 0600);
        QCOMPARE(::stat(QFile::encodeName(f.env.path(QStringLiteral("data/bash"))).constData(), &info), 0);
        QCOMPARE(int(info.st_mode & 0777), 0700);
        QVERIFY(
            out.value(QStringLiteral("stderr")).toString().contains(QStringLiteral("full stderr saved to")));
    }

    // A log of 300,001 lines keeps its start and end; how many lines it had is said, for the model and the
    // card ("... 299986 earlier lines"), which the preview alone cannot tell.
    void aLongOutputSaysHowManyLinesItHad()
    {
        Fixture f;
        BashTool tool;
        const ToolResult result = tool.execute(
            {{QStringLiteral("command"), QStringLiteral("seq 1 300000; printf 'no newline'")}}, f.context);
        QVERIFY2(result.ok(), qPrintable(result.error));
        const QJsonObject out = result.output.toObject();
        QVERIFY(out.value(QStringLiteral("truncated")).toBool());
        QCOMPARE(out.value(QStringLiteral("stdout_lines")).toInteger(), 300001);
        QVERIFY(!out.contains(QStringLiteral("stderr_lines"))); // it succeeded: stderr is not kept
        const QJsonObject small =
            tool.execute({{QStringLiteral("command"), QStringLiteral("seq 1 3")}}, f.context)
                .output.toObject();
        QVERIFY(!small.contains(QStringLiteral("stdout_lines"))); // whole: nothing to say
    }

    void cancellingKillsTheProcessGroup()
    {
        Fixture f;
        BashTool tool;
        CancellationToken token;
        f.context.cancel = token;
        // Cancel from another thread once the command is running.
        QThread *canceller = QThread::create([token] {
            QThread::msleep(400);
            token.cancel();
        });
        canceller->start();
        QElapsedTimer timer;
        timer.start();
        const ToolResult result = tool.execute(
            {{QStringLiteral("command"), QStringLiteral("echo $$ > pid; sleep 30; echo x")}}, f.context);
        const qint64 elapsed = timer.elapsed();
        canceller->wait();
        delete canceller;
        QVERIFY(!result.ok());
        QVERIFY2(elapsed < 1400, qPrintable(QString::number(elapsed)));

        QFile pidFile(f.ws.filePath(QStringLiteral("pid")));
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const pid_t group = pid_t(pidFile.readAll().trimmed().toInt());
        QVERIFY(group > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(group), 1000);
    }

    void timeoutStopsTheCommand()
    {
        Fixture f;
        BashTool tool;
        tool.setTimeoutMs(300);
        QElapsedTimer timer;
        timer.start();
        const ToolResult result =
            tool.execute({{QStringLiteral("command"), QStringLiteral("echo started; sleep 20")}}, f.context);
        QVERIFY(timer.elapsed() < 3000);
        QVERIFY(!result.ok());
        QVERIFY(result.error.contains(QStringLiteral("timed out")));
        QCOMPARE(result.output.toObject().value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("started\n"));
    }

    void validation()
    {
        BashTool tool;
        QCOMPARE(tool.validateInput({}),
                 QStringLiteral("invalid input: missing required \"command\" parameter. Retry bash "
                                "with all required fields: {\"command\":\"<shell command>\"}"));
        QVERIFY(!tool.validateInput({{QStringLiteral("command"), QStringLiteral(" ")}}).isEmpty());
        QVERIFY(!tool.validateInput({{QStringLiteral("command"), QStringLiteral("ls")},
                                     {QStringLiteral("isDangerous"), QStringLiteral("yes")}})
                     .isEmpty());
        QVERIFY(tool.validateInput({{QStringLiteral("command"), QStringLiteral("ls")},
                                    {QStringLiteral("isDangerous"), false}})
                    .isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBashTool)
#include "tst_bashtool.moc"
