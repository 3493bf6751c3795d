// On-demand benchmarks of the core's hot paths. Prints numbers; asserts nothing about speed.
// Run: cmake --build build --target keen_benchmarks && ./build/tests/bench/keen_bench_core
#include "agent/datacleanup.h"
#include "agent/delegatetasktool.h"
#include "agent/skillcatalog.h"
#include "agent/systemprompt.h"
#include "agent/usageledger.h"
#include "conversation/message.h"
#include "mcp/callmcptooltool.h"
#include "mcp/mcphub.h"
#include "providers/openai/chatcompletionsstreamdecoder.h"
#include "scriptedllmclient.h"
#include "session/diffline.h"
#include "session/sessionevent.h"
#include "session/sessionexporter.h"
#include "session/sessionindex.h"
#include "session/sessionstore.h"
#include "stream/sseparser.h"
#include "tools/editfiletool.h"
#include "tools/filesystemguard.h"
#include "tools/greptool.h"
#include "tools/hashline.h"
#include "tools/htmltomarkdown.h"
#include "tools/permissionrequester.h"
#include "tools/readfiletool.h"
#include "tools/unifieddiff.h"
#include "tools/writefiletool.h"
#include "workloads.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTextStream>

#include <ctime>

using namespace keen;

namespace {

QTextStream out(stdout);

void report(const char *what, qint64 nanoseconds, const QString &extra = QString())
{
    out << QString::fromLatin1(what).leftJustified(52)
        << QString::number(nanoseconds / 1e6, 'f', 2).rightJustified(10) << " ms  " << extra << '\n';
    out.flush();
}

void benchSse()
{
    QByteArray stream;
    const QByteArray event =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"some streamed words \"}}]}\n\n";
    while (stream.size() < 16 * 1024 * 1024)
        stream += event;
    QElapsedTimer timer;
    timer.start();
    SseParser parser;
    qsizetype events = 0;
    for (qsizetype at = 0; at < stream.size(); at += 4096)
        events += parser.feed(stream.mid(at, 4096)).size();
    events += parser.finish().size();
    const qint64 ns = timer.nsecsElapsed();
    report("SSE parser: 16 MiB in 4 KiB reads", ns,
           QStringLiteral("%1 events, %2 MiB/s").arg(events).arg(16.0 / (ns / 1e9), 0, 'f', 1));
}

qint64 threadCpuNs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// The stream thread's share of `run` (issue 11 row 1): a 200,000-char reply in 7-char chunks, read 4 KiB at a
// time, through the Chat Completions decoder, against the least a client must do (split the events, parse
// each one's JSON, take the text out). Thread CPU time, best of five.
void benchDecoder()
{
    const QByteArray stream = keen::test::Workloads::chatCompletionsSse(
        keen::test::Workloads::chunks(keen::test::Workloads::markdownReply(200000), 7));
    qint64 decoderNs = -1;
    qint64 plainNs = -1;
    qsizetype decoded = 0;
    for (int round = 0; round < 5; ++round) {
        qint64 start = threadCpuNs();
        qsizetype text = 0;
        ChatCompletionsStreamDecoder decoder(
            [&text](const StreamEvent &event) { text += event.content.size(); });
        for (qsizetype at = 0; at < stream.size(); at += 4096)
            decoder.feed(stream.mid(at, 4096));
        const auto turn = decoder.finish();
        qint64 ns = threadCpuNs() - start;
        if (decoderNs < 0 || ns < decoderNs)
            decoderNs = ns;
        decoded = turn ? turn->text.size() : -1;

        start = threadCpuNs();
        QString plain;
        QByteArray buffer;
        for (qsizetype at = 0; at < stream.size(); at += 4096) {
            buffer += stream.mid(at, 4096);
            qsizetype begin = 0;
            qsizetype end;
            while ((end = buffer.indexOf("\n\n", begin)) >= 0) {
                const QByteArrayView event = QByteArrayView(buffer).sliced(begin, end - begin);
                begin = end + 2;
                if (!event.startsWith("data: {"))
                    continue;
                plain += QJsonDocument::fromJson(event.sliced(6).toByteArray())
                             .object()
                             .value(QLatin1String("choices"))
                             .toArray()
                             .at(0)
                             .toObject()
                             .value(QLatin1String("delta"))
                             .toObject()
                             .value(QLatin1String("content"))
                             .toString();
            }
            buffer.remove(0, begin);
        }
        ns = threadCpuNs() - start;
        if (plainNs < 0 || ns < plainNs)
            plainNs = ns;
    }
    report("Chat Completions decoder: 200,000 chars, 7-char chunks", decoderNs,
           QStringLiteral("thread CPU, %1 chars decoded").arg(decoded));
    report("  plain split + JSON parse of the same stream", plainNs,
           QStringLiteral("ratio %1").arg(double(decoderNs) / double(plainNs), 0, 'f', 2));
}

// The diff that write_file and edit_file show in the permission prompt and return to the model, on a file of
// 100,000 lines: one line changed, a block of 1,000 lines rewritten, and the whole file replaced.
void benchDiff()
{
    QString original;
    for (int i = 0; i < 100000; ++i)
        original +=
            QStringLiteral("    value_%1 = compute(%1, \"line %1 of the generated table\");\n").arg(i);
    QString oneLine = original;
    oneLine.replace(QStringLiteral("value_50000 = "), QStringLiteral("value_50000 += "));
    QString block = original;
    const qsizetype from = block.indexOf(QStringLiteral("value_40000 "));
    const qsizetype to = block.indexOf(QStringLiteral("value_41000 "));
    block.replace(from, to - from,
                  QString(to - from, QLatin1Char('x'))
                      .replace(QStringLiteral("xxxxxxxxxx"), QStringLiteral("changed\n  ")));
    QString replaced;
    for (int i = 0; i < 100000; ++i)
        replaced += QStringLiteral("other_%1 = %2;\n").arg(i).arg(i * 7);
    const QList<std::pair<const char *, QString>> cases{
        {"diff, 100,000 lines, one line changed", oneLine},
        {"diff, 100,000 lines, 1,000 lines rewritten", block},
        {"diff, 100,000 lines, every line replaced", replaced}};
    for (const auto &[what, changed] : cases) {
        qint64 best = -1;
        QString diff;
        for (int round = 0; round < 3; ++round) { // best of three: the first also pays for fresh memory
            QElapsedTimer timer;
            timer.start();
            diff = UnifiedDiff::make(QStringLiteral("table.py"), original, changed);
            const qint64 ns = timer.nsecsElapsed();
            best = best < 0 ? ns : std::min(best, ns);
        }
        report(what, best, QStringLiteral("%1 diff lines, best of 3").arg(diff.count(QLatin1Char('\n'))));
        // What the window and the transcript make of it (TurnRecorder and ChatModel, on the GUI thread).
        QElapsedTimer parse;
        parse.start();
        const qsizetype parsed = DiffLine::parseUnified(diff).size();
        report("  parsed into diff lines", parse.nsecsElapsed(), QStringLiteral("%1 lines").arg(parsed));
    }
}

class AllowEverything final : public PermissionRequester
{
public:
    PermissionDecision request(const PermissionRequest &, const CancellationToken &) override
    {
        return PermissionDecision::Allow;
    }
};

// read_file, grep, edit_file and write_file on a source file of 100,000 lines (about 6 MB), each a whole
// tool run as the tool loop's worker does it (permission asked and allowed, diff made, file written).
void benchFileTools()
{
    QTemporaryDir dir;
    const QString workspace = dir.filePath(QStringLiteral("work"));
    QDir().mkpath(workspace);
    QByteArray content;
    for (int i = 1; i <= 100000; ++i)
        content += QStringLiteral("    value_%1 = compute(%1, \"line %1 of the generated table\");\n")
                       .arg(i)
                       .toUtf8();
    const QString path = QDir(workspace).filePath(QStringLiteral("table.py"));
    auto reset = [&] {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
            qFatal("cannot write %s", qPrintable(path));
    };
    reset();
    AllowEverything person;
    FilesystemGuard guard(workspace, dir.filePath(QStringLiteral("data")),
                          dir.filePath(QStringLiteral("home")));
    ToolContext context;
    context.workspace = workspace;
    context.dataDir = dir.filePath(QStringLiteral("data"));
    context.permissions = &person;
    context.guard = &guard;
    context.interactive = true;
    auto timed = [&](const char *what, Tool &tool, const QJsonObject &input) {
        QElapsedTimer timer;
        timer.start();
        const ToolResult result = tool.execute(input, context);
        const qint64 ns = timer.nsecsElapsed();
        const QByteArray output = QJsonDocument(QJsonObject{{QStringLiteral("o"), result.output}}).toJson();
        report(what, ns,
               result.ok() ? QStringLiteral("ok, output %1 KB, diff %2 lines")
                                 .arg(output.size() / 1024)
                                 .arg(result.diff.count(QLatin1Char('\n')))
                           : QStringLiteral("ERROR %1").arg(result.error));
    };
    ReadFileTool read;
    timed("read_file, 100,000-line file, first 1,000 lines", read,
          QJsonObject{{QStringLiteral("path"), QStringLiteral("table.py")}});
    timed(
        "read_file, same, lines 99,001 to 100,000", read,
        QJsonObject{{QStringLiteral("path"), QStringLiteral("table.py")}, {QStringLiteral("offset"), 99001}});
    GrepTool grep;
    timed("grep, one match in the 100,000-line file", grep,
          QJsonObject{{QStringLiteral("pattern"), QStringLiteral("value_77777 =")}});
    timed("grep, 10,000 matches (capped)", grep,
          QJsonObject{{QStringLiteral("pattern"), QStringLiteral("value_\\d+7 =")}});
    const QByteArray line =
        QByteArray("    value_50000 = compute(50000, \"line 50000 of the generated table\");");
    EditFileTool edit;
    timed("edit_file, one line in the middle", edit,
          QJsonObject{{QStringLiteral("path"), QStringLiteral("table.py")},
                      {QStringLiteral("ops"),
                       QJsonArray{QJsonObject{
                           {QStringLiteral("op"), QStringLiteral("replace")},
                           {QStringLiteral("start"), QStringLiteral("50000:%1").arg(Hashline::hash(line))},
                           {QStringLiteral("text"), QStringLiteral("    value_50000 = 0;")}}}}});
    reset();
    QString rewritten;
    for (int i = 1; i <= 100000; ++i)
        rewritten += QStringLiteral("other_%1 = %2;\n").arg(i).arg(i * 7);
    WriteFileTool write;
    timed("write_file, the whole file replaced", write,
          QJsonObject{{QStringLiteral("path"), QStringLiteral("table.py")},
                      {QStringLiteral("content"), rewritten}});
}

void benchSessions()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sessions")));
    const int sessions = 1000;
    QElapsedTimer timer;
    timer.start();
    QString lastId;
    for (int i = 0; i < sessions; ++i) {
        const QString workspace = QStringLiteral("/work/project-%1").arg(i % 10);
        auto session = store.create(workspace);
        if (!session)
            qFatal("create failed: %s", qPrintable(session.error()));
        for (int turn = 0; turn < 10; ++turn) {
            store.append(*session,
                         SessionEvent::userMessage(
                             QStringLiteral("question %1 about the parser in session %2").arg(turn).arg(i)));
            store.append(*session, SessionEvent::assistantTurn(
                                       {}, QStringLiteral("answer %1 with some detail").arg(turn),
                                       std::nullopt, false, {}));
        }
        lastId = session->id;
    }
    report("SessionStore: write 1,000 sessions x 21 events", timer.nsecsElapsed(),
           QStringLiteral("fsync per line"));

    timer.restart();
    const auto all = store.list();
    report("SessionStore::list(all) over 1,000 sessions", timer.nsecsElapsed(),
           QStringLiteral("%1 listed").arg(all.size()));

    timer.restart();
    auto loaded = store.load(lastId);
    report("SessionStore::load one session by id", timer.nsecsElapsed(),
           QStringLiteral("%1 events").arg(loaded ? loaded->events.size() : 0));

    auto big = store.create(QStringLiteral("/work/big"));
    for (int i = 0; i < 5000; ++i)
        store.append(*big, SessionEvent::userMessage(QStringLiteral("line %1").arg(i)));
    timer.restart();
    auto batch = store.appendBatch(
        *big, {SessionEvent::assistantTurn({}, QStringLiteral("checkpoint"), std::nullopt, false, {}),
               SessionEvent::compactionApplied(QString(), {}, {Message::user(QStringLiteral("summary"))})});
    report("SessionStore::appendBatch on a 5,000-event transcript", timer.nsecsElapsed(),
           batch ? QStringLiteral("ok") : batch.error());

    SessionIndex index(store.root(), dir.filePath(QStringLiteral("index/sessions.sqlite")));
    timer.restart();
    auto built = index.update();
    report("SessionIndex::update: full build, 1,001 sessions", timer.nsecsElapsed(),
           built ? QStringLiteral("ok") : built.error());
    store.append(*big, SessionEvent::userMessage(QStringLiteral("one more line")));
    timer.restart();
    built = index.update();
    report("SessionIndex::update: incremental after one append", timer.nsecsElapsed(),
           built ? QStringLiteral("ok") : built.error());
    timer.restart();
    auto hits = index.search(QStringLiteral("parser session 77"));
    report("SessionIndex::search over every message", timer.nsecsElapsed(),
           QStringLiteral("%1 hits").arg(hits ? hits->size() : -1));

    // A pasted 100,000-line log with the searched word on every line (100 s before passages).
    auto pasted = store.create(QStringLiteral("/work/pasted"));
    QString log;
    for (int line = 0; line < 100000; ++line)
        log += QStringLiteral("line %1: some pasted log output src/file%1.cpp:123 error E%1\n").arg(line);
    store.append(*pasted, SessionEvent::userMessage(log));
    timer.restart();
    built = index.update();
    report("SessionIndex::update: one 100,000-line message", timer.nsecsElapsed(),
           built ? QStringLiteral("%1 MB").arg(log.size() / 1e6, 0, 'f', 1) : built.error());
    timer.restart();
    hits = index.search(QStringLiteral("pasted"));
    report("SessionIndex::search: a word on each of its lines", timer.nsecsElapsed(),
           QStringLiteral("%1 hits").arg(hits ? hits->size() : -1));
}

// A 10,000-event, about 30 MB session (tool calls, diffs, compactions): exported to Markdown and indexed,
// both of which read every tool output as its card shows it (ToolOutputText).
void benchBigSession()
{
    QTemporaryDir dir;
    const QString root = dir.filePath(QStringLiteral("sessions"));
    const QString path = test::Workloads::writeBigSession(root, QStringLiteral("/work/big"), 10000);
    SessionStore store(root);
    const auto listed = store.list();
    if (listed.isEmpty())
        qFatal("the big session is not listed");
    QElapsedTimer timer;
    timer.start();
    const auto loaded = store.load(listed.constFirst().id);
    if (!loaded)
        qFatal("load failed: %s", qPrintable(loaded.error()));
    report("SessionStore::load, 10,000 events", timer.nsecsElapsed(),
           QStringLiteral("%1 MB").arg(QFileInfo(path).size() / 1e6, 0, 'f', 1));
    timer.restart();
    const QString markdown = SessionExporter::toMarkdown(listed.constFirst(), loaded->events);
    report("SessionExporter::toMarkdown, 10,000 events", timer.nsecsElapsed(),
           QStringLiteral("%1 MB of Markdown").arg(markdown.toUtf8().size() / 1e6, 0, 'f', 1));
    SessionIndex index(root, dir.filePath(QStringLiteral("index/sessions.sqlite")));
    timer.restart();
    const auto built = index.update();
    report("SessionIndex::update: the 10,000-event session", timer.nsecsElapsed(),
           built ? QStringLiteral("ok") : built.error());
}

// A year of heavy use in the usage ledger: 200,000 requests (about 40 MB, more than /usage reads), recorded
// one by one as the app does, then summed as /usage sums them.
void benchUsageLedger()
{
    QTemporaryDir dir;
    const QString path = UsageLedger::defaultPath(dir.path());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QElapsedTimer timer;
    timer.start();
    constexpr int requests = 200000;
    for (int i = 0; i < requests; ++i) {
        TokenUsage usage;
        usage.inputTokens = 20000 + i % 5000;
        usage.outputTokens = 300 + i % 700;
        UsageLedger::record(path,
                            {now.addSecs(-qint64(i) * 150), QStringLiteral("anthropic"),
                             i % 3 ? QStringLiteral("claude-fable-5-1") : QStringLiteral("claude-haiku"),
                             QStringLiteral("turn"), usage});
    }
    UsageLedger::flush();
    report("UsageLedger::record, 200,000 requests (each)", timer.nsecsElapsed() / requests,
           QStringLiteral("%1 MB").arg(QFileInfo(path).size() / 1e6, 0, 'f', 1));
    timer.restart();
    const UsageLedger::Summary summary = UsageLedger::summarize(path, now);
    report("UsageLedger::summarize (the newest 32 MiB)", timer.nsecsElapsed(),
           QStringLiteral("%1 models, %2 requests counted")
               .arg(summary.rows.size())
               .arg(summary.rows.isEmpty()
                        ? 0
                        : summary.rows.constFirst().all.requests + summary.rows.constLast().all.requests));
}

// A folder with 300 skills (2 KB each): what every request pays to list them in the system prompt.
void benchSkills()
{
    QTemporaryDir project;
    QTemporaryDir data;
    QTemporaryDir home;
    const QByteArray body =
        QByteArray("Step of the procedure, with enough words to be a real line.\n").repeated(32);
    for (int i = 0; i < 300; ++i) {
        const QString path = project.filePath(QStringLiteral(".agents/skills/skill-%1/SKILL.md").arg(i));
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        file.write("---\nname: skill-" + QByteArray::number(i) + "\ndescription: Does task number " +
                   QByteArray::number(i) + " of the project's release procedure\n---\n" + body);
    }
    QElapsedTimer timer;
    timer.start();
    const SkillCatalog first = SkillCatalog::discover(project.path(), data.path(), home.path());
    report("SkillCatalog::discover, 300 skills (first: bundled ones installed)", timer.nsecsElapsed(),
           QStringLiteral("%1 skills").arg(first.skills().size()));
    timer.restart();
    const SkillCatalog again = SkillCatalog::discover(project.path(), data.path(), home.path());
    report("SkillCatalog::discover, 300 skills (again)", timer.nsecsElapsed(),
           QStringLiteral("%1 skills").arg(again.skills().size()));
    timer.restart();
    const QString prompt = SystemPromptBuilder::build(project.path(), data.path());
    report("SystemPromptBuilder::build with 300 skills (each request)", timer.nsecsElapsed(),
           QStringLiteral("%1 KB").arg(prompt.size() / 1024));
}

// /cleanup over 1,000 sessions (half of them a month old) and 2,000 command outputs (half old).
void benchCleanup()
{
    QTemporaryDir data;
    SessionStore store(QDir(data.path()).filePath(QStringLiteral("sessions")));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (int i = 0; i < 1000; ++i) {
        auto session = store.create(QStringLiteral("/work/project-%1").arg(i % 10));
        if (!session)
            qFatal("create failed: %s", qPrintable(session.error()));
        store.append(*session, SessionEvent::userMessage(QStringLiteral("question %1").arg(i)));
        QFile transcript(session->transcriptPath);
        if (i % 2 && (!transcript.open(QIODevice::ReadWrite) ||
                      !transcript.setFileTime(now.addDays(-30), QFileDevice::FileModificationTime)))
            qFatal("cannot age %s", qPrintable(session->transcriptPath));
    }
    for (int i = 0; i < 2000; ++i) {
        QFile file(QDir(data.path()).filePath(QStringLiteral("bash/keen-bash-%1.stdout").arg(i)));
        QDir().mkpath(QFileInfo(file).absolutePath());
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write an artifact");
        file.write(QByteArray(4096, 'x'));
        file.flush();
        if (i % 2)
            file.setFileTime(now.addDays(-10), QFileDevice::FileModificationTime);
    }
    QElapsedTimer timer;
    timer.start();
    const DataCleanup::Plan plan = DataCleanup::plan(data.path(), store, now, QString());
    report("DataCleanup::plan, 1,000 sessions and 2,000 outputs", timer.nsecsElapsed(),
           QStringLiteral("%1 sessions, %2 files planned").arg(plan.sessions.size()).arg(plan.files.size()));
    timer.restart();
    const DataCleanup::Outcome outcome = DataCleanup::apply(plan, store);
    report("DataCleanup::apply", timer.nsecsElapsed(),
           QStringLiteral("%1 sessions, %2 files removed")
               .arg(outcome.sessionsRemoved)
               .arg(outcome.filesRemoved));
}

// web_fetch's HTML to Markdown over a page of 100,000 lines (about 5 MB): a long changelog or log page.
void benchWebFetch()
{
    QString html =
        QStringLiteral("<!doctype html><html><head><title>Changelog</title><style>p{}</style></head>"
                       "<body><h1>Changelog</h1><ul>\n");
    for (int i = 1; i <= 100000; ++i)
        html += QStringLiteral("<li><a href=\"/c/%1\">item %1</a> &amp; <b>ok</b></li>\n").arg(i);
    html += QStringLiteral("</ul></body></html>");
    QElapsedTimer timer;
    timer.start();
    const QString markdown = HtmlToMarkdown::convert(html, QUrl(QStringLiteral("https://example.org/log")));
    const qint64 elapsed = timer.nsecsElapsed(); // before the sizes below are counted
    report("HtmlToMarkdown::convert, 100,000 lines", elapsed,
           QStringLiteral("%1 MB of HTML, %2 MB of Markdown")
               .arg(html.toUtf8().size() / 1e6, 0, 'f', 1)
               .arg(markdown.toUtf8().size() / 1e6, 0, 'f', 1));
}

} // namespace

// delegate_task with the most children a call may have (10), each answering 200,000 characters in 7-character
// chunks (a scripted provider, so only the app's own work is measured), against one such child alone.
void benchSubagents()
{
    QTemporaryDir project;
    QTemporaryDir home;
    QString answer;
    while (answer.size() < 200000)
        answer += QStringLiteral("A finding with a path, src/module/file.cpp:120, and a reason.\n");
    const auto run = [&](int children) {
        QMap<QString, std::shared_ptr<test::ScriptedLlmClient>> clients;
        QJsonArray tasks;
        for (int i = 0; i < children; ++i) {
            const QString name = QStringLiteral("agent%1").arg(i);
            QDir().mkpath(project.filePath(QStringLiteral(".agents/agents")));
            QFile profile(project.filePath(QStringLiteral(".agents/agents/%1.md").arg(name)));
            if (!profile.open(QIODevice::WriteOnly))
                qFatal("cannot write a profile");
            profile.write("---\nname: " + name.toUtf8() +
                          "\ndescription: d\npermissions: [read]\n---\nBe brief.\n");
            auto client = std::make_shared<test::ScriptedLlmClient>();
            test::ScriptedLlmClient::Turn turn;
            for (qsizetype at = 0; at < answer.size(); at += 7)
                turn.append(test::ScriptedLlmClient::chunk(answer.mid(at, 7)));
            turn.append(test::ScriptedLlmClient::event(StreamEvent::done()));
            client->addTurn(turn);
            clients.insert(name, client);
            tasks.append(
                QJsonObject{{QStringLiteral("agent"), name}, {QStringLiteral("task"), QStringLiteral("t")}});
        }
        DelegateTaskTool tool(
            [&clients](const SubagentCatalog::Profile &profile) {
                return Result<std::shared_ptr<LlmClient>>(
                    std::static_pointer_cast<LlmClient>(clients.value(profile.name)));
            },
            {}, home.path());
        ToolContext context;
        context.workspace = project.path();
        context.mode = AgentMode::Plan;
        QElapsedTimer timer;
        timer.start();
        const std::clock_t cpu = std::clock();
        const ToolResult result = tool.execute(QJsonObject{{QStringLiteral("tasks"), tasks}}, context);
        const qint64 elapsed = timer.nsecsElapsed();
        const double cpuMs = double(std::clock() - cpu) * 1000.0 / CLOCKS_PER_SEC;
        report(children == 1 ? "delegate_task, 1 child answering 200,000 chars in 7-char chunks"
                             : "delegate_task, 10 children answering 200,000 chars each",
               elapsed,
               QStringLiteral("%1 completed; CPU of all threads %2 ms")
                   .arg(result.output.toObject().value(QStringLiteral("completed")).toInt())
                   .arg(cpuMs, 0, 'f', 0));
    };
    run(1);
    run(10);
}

// An MCP server (the tests' stand-in program over stdio): starting it (initialize and a tool list of six
// pages), 1,000 calls one after another through call_mcp_tool, and one 10 MB result cut and saved.
void benchMcp()
{
    QTemporaryDir data;
    QTemporaryDir workspace;
    McpServerConfig server;
    server.name = QStringLiteral("bench");
    server.command = QStringLiteral(KEEN_FAKE_MCP_SERVER);
    auto hub = std::make_shared<McpHub>(workspace.path(), data.path(), QStringList());
    QElapsedTimer timer;
    timer.start();
    hub->configure({server});
    hub->waitUntilSettled(60000);
    report("MCP server start: initialize, 11 tools in 6 pages", timer.nsecsElapsed(),
           QStringLiteral("%1 tools").arg(hub->server(server.name)->tools.size()));

    struct Yes final : PermissionRequester
    {
        PermissionDecision request(const PermissionRequest &, const CancellationToken &) override
        {
            return PermissionDecision::Allow;
        }
    } yes;
    CallMcpToolTool tool(hub);
    ToolContext context;
    context.workspace = workspace.path();
    context.dataDir = data.path();
    context.permissions = &yes;
    const QJsonObject echo{
        {QStringLiteral("server"), server.name},
        {QStringLiteral("tool"), QStringLiteral("echo")},
        {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("text"), QStringLiteral("ping")}}}};
    timer.restart();
    int ok = 0;
    for (int i = 0; i < 1000; ++i)
        ok += tool.execute(echo, context).ok() ? 1 : 0;
    const qint64 calls = timer.nsecsElapsed();
    report("call_mcp_tool echo, 1,000 calls in a row", calls,
           QStringLiteral("%1 succeeded, %2 µs a call").arg(ok).arg(calls / 1000 / 1000));

    const QJsonObject big{
        {QStringLiteral("server"), server.name},
        {QStringLiteral("tool"), QStringLiteral("big")},
        {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("bytes"), 10 * 1000 * 1000}}}};
    timer.restart();
    const ToolResult result = tool.execute(big, context);
    report(
        "call_mcp_tool, a 10 MB result (cut, saved to a file)", timer.nsecsElapsed(),
        QStringLiteral("%1 KB inline, artifact %2")
            .arg(result.output.toObject().value(QStringLiteral("content")).toString().toUtf8().size() / 1024)
            .arg(result.output.toObject().contains(QStringLiteral("artifact_path"))
                     ? QStringLiteral("saved")
                     : QStringLiteral("missing")));
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2)
        benchSse();
    if (args.size() < 2 || args.contains(QStringLiteral("decoder")))
        benchDecoder();
    if (args.size() < 2 || args.contains(QStringLiteral("diff")))
        benchDiff();
    if (args.size() < 2 || args.contains(QStringLiteral("tools")))
        benchFileTools();
    if (args.size() < 2 || args.contains(QStringLiteral("sessions")))
        benchSessions();
    if (args.size() < 2 || args.contains(QStringLiteral("bigsession")))
        benchBigSession();
    if (args.size() < 2 || args.contains(QStringLiteral("usage")))
        benchUsageLedger();
    if (args.size() < 2 || args.contains(QStringLiteral("skills")))
        benchSkills();
    if (args.size() < 2 || args.contains(QStringLiteral("cleanup")))
        benchCleanup();
    if (args.size() < 2 || args.contains(QStringLiteral("webfetch")))
        benchWebFetch();
    if (args.size() < 2 || args.contains(QStringLiteral("subagents")))
        benchSubagents();
    if (args.size() < 2 || args.contains(QStringLiteral("mcp")))
        benchMcp();
    return 0;
}
