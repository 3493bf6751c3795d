// On-demand benchmarks of issue 11's turn path, each as a ratio against a baseline measured in the same run
// (absolute times drift on a shared machine). Prints numbers; asserts nothing.
// Run: cmake --build build --target keen_benchmarks && ./build/tests/bench/keen_bench_turnpath
#include "agent/agentsession.h"
#include "agent/contextestimator.h"
#include "conversation/historyreplay.h"
#include "conversation/message.h"
#include "fakeproviderserver.h"
#include "loop/contextbudget.h"
#include "scriptedllmclient.h"
#include "session/sessionstore.h"
#include "sessionfixtures.h"
#include "tools/defaulttools.h"
#include "tools/toolregistry.h"
#include "workloads.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

using namespace keen;
using keen::test::FakeProviderServer;
using keen::test::ScriptedLlmClient;
using keen::test::Workloads;

namespace {

QTextStream out(stdout);

void line(const QString &what, double value, const QString &unit, const QString &extra = QString())
{
    out << what.leftJustified(64) << QString::number(value, 'f', 2).rightJustified(10) << ' '
        << unit.leftJustified(4) << ' ' << extra << '\n';
    out.flush();
}

FakeProviderServer::Response streamResponse(const QByteArray &body)
{
    FakeProviderServer::Response response;
    response.contentType = "text/event-stream";
    response.body = body;
    response.split = FakeProviderServer::SplitMode::randomSplits(7, 4096);
    response.delayMs = 0;
    return response;
}

// CPU time (user + system) of this process, or of its waited-for children: unlike wall time, it does not grow
// while other processes have the cores.
double cpuMs(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}

struct Run
{
    qint64 ms = -1;
    double cpuMs = -1; // the child's and this process's (which serves it meanwhile)
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    // (ns since the start, stderr bytes so far) at each read: text runs stream the reply to stderr as it
    // arrives (stdout gets the final answer at the end)
    QList<std::pair<qint64, qint64>> printed;
};

// keen-desktop with a private KEEN_HOME, talking to the loopback server. This thread serves it meanwhile; a
// second thread reads its stdout as it comes, so the times of the printed text do not wait for the server.
Run runKeen(const QString &home, const QStringList &args)
{
    Run run;
    std::atomic_bool finished = false;
    const double cpuBefore = cpuMs(RUSAGE_SELF) + cpuMs(RUSAGE_CHILDREN);
    QElapsedTimer timer;
    timer.start();
    std::thread reader([&] {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("KEEN_HOME"), home);
        process.setProcessEnvironment(environment);
        process.setWorkingDirectory(home);
        process.start(QStringLiteral(KEEN_BINARY_PATH), args);
        process.closeWriteChannel();
        process.setReadChannel(QProcess::StandardError);
        while (process.waitForReadyRead(20 * 60 * 1000)) {
            run.err += process.readAllStandardError();
            run.printed.append({timer.nsecsElapsed(), run.err.size()});
        }
        process.waitForFinished(); // reaped, so its CPU time is counted
        run.err += process.readAllStandardError();
        run.out = process.readAllStandardOutput();
        run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        run.ms = timer.elapsed();
        finished = true;
    });
    FakeProviderServer::spinUntil([&] { return finished.load(); }, 20 * 60 * 1000);
    reader.join();
    run.cpuMs = cpuMs(RUSAGE_SELF) + cpuMs(RUSAGE_CHILDREN) - cpuBefore;
    return run;
}

// When stderr first held at least that many bytes, in ns since the start; -1 if it never did.
qint64 printedBy(const Run &run, qint64 bytes)
{
    for (const auto &[ns, size] : run.printed) {
        if (size >= bytes)
            return ns;
    }
    return -1;
}

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    return values.isEmpty() ? -1 : values.at(values.size() / 2);
}

QString listed(const QList<double> &values, int precision = 0)
{
    QStringList parts;
    for (const double value : values)
        parts.append(QString::number(value, 'f', precision));
    return parts.join(QStringLiteral(", "));
}

QStringList providerArgs(const FakeProviderServer &server, const QString &workspace)
{
    return {QStringLiteral("--provider"),  QStringLiteral("openai-compatible"),
            QStringLiteral("--base-url"),  server.baseUrl().toString() + QStringLiteral("/v1"),
            QStringLiteral("--model"),     QStringLiteral("bench"),
            QStringLiteral("--workspace"), workspace};
}

// The baseline client: reads the same stream from the same server and parses every event's JSON.
struct Baseline
{
    qint64 ms = -1;
    double cpuMs = -1;
};

Baseline plainClient(FakeProviderServer &server, const QByteArray &body)
{
    server.enqueue(streamResponse(body));
    QNetworkAccessManager network;
    QNetworkRequest request(QUrl(server.baseUrl().toString() + QStringLiteral("/v1/chat/completions")));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    const double cpuBefore = cpuMs(RUSAGE_SELF);
    QElapsedTimer timer;
    timer.start();
    QNetworkReply *reply = network.post(request, QByteArray("{}"));
    QByteArray buffer;
    QString text;
    auto drain = [&] {
        buffer += reply->readAll();
        qsizetype end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
            const QByteArray event = buffer.left(end);
            buffer.remove(0, end + 2);
            if (!event.startsWith("data: {"))
                continue;
            const QJsonObject object = QJsonDocument::fromJson(event.mid(6)).object();
            text += object.value(QStringLiteral("choices"))
                        .toArray()
                        .at(0)
                        .toObject()
                        .value(QStringLiteral("delta"))
                        .toObject()
                        .value(QStringLiteral("content"))
                        .toString();
        }
    };
    QObject::connect(reply, &QNetworkReply::readyRead, reply, drain);
    FakeProviderServer::spinUntil([&] { return reply->isFinished(); }, 600000);
    drain();
    Baseline baseline;
    baseline.ms = timer.elapsed();
    baseline.cpuMs = cpuMs(RUSAGE_SELF) - cpuBefore;
    delete reply;
    return text.isEmpty() ? Baseline() : baseline;
}

void benchRunStreaming()
{
    out << "\n== run: a reply streamed in 7-char chunks (issue 11 table row 1)\n";
    // Rounds alternate the baseline and the run, so both see the same moments of a shared machine; the
    // medians are compared. KEEN_BENCH_ROUNDS sets how many (default 5).
    const int rounds = qMax(1, qEnvironmentVariableIntValue("KEEN_BENCH_ROUNDS") ?: 5);
    FakeProviderServer server;
    QTemporaryDir home;
    QDir().mkpath(home.filePath(QStringLiteral("work")));
    // Once untimed: the first start after a build reads the binary and its libraries from disk. Then the
    // fixed cost of any run, measured the same way: starting keen-desktop and exiting.
    runKeen(home.path(), {QStringLiteral("--version")});
    QList<double> versionMs;
    for (int round = 0; round < rounds; ++round)
        versionMs.append(double(runKeen(home.path(), {QStringLiteral("--version")}).ms));
    line(QStringLiteral("keen-desktop --version (start and exit, for scale)"), median(versionMs),
         QStringLiteral("ms"), QStringLiteral("(%1)").arg(listed(versionMs)));
    // The medians of each size's runs, for the cost of the text beyond the first 100,000 chars (below).
    std::map<int, std::pair<double, double>> runMedians; // size -> (wall ms, CPU ms)
    for (const int size : {1000, 100000, 200000}) {
        const QByteArray body =
            Workloads::chatCompletionsSse(Workloads::chunks(Workloads::markdownReply(size), 7));
        QList<double> plainMs, plainCpu, runMs, runCpu, ratios, cpuRatios, firstTextMs, lastTextMs;
        bool complete = true;
        for (int round = 0; round < rounds; ++round) {
            const Baseline baseline = plainClient(server, body);
            server.enqueue(streamResponse(body));
            const Run run =
                runKeen(home.path(), QStringList{QStringLiteral("run")} +
                                         providerArgs(server, home.filePath(QStringLiteral("work"))) +
                                         QStringList{QStringLiteral("go")});
            complete = complete && run.exitCode == 0 && run.out.size() >= size;
            plainMs.append(double(baseline.ms));
            plainCpu.append(baseline.cpuMs);
            runMs.append(double(run.ms));
            runCpu.append(run.cpuMs);
            ratios.append(double(run.ms) / double(baseline.ms));
            cpuRatios.append(run.cpuMs / baseline.cpuMs);
            // Where the wall time goes: until the first text (process start, configuration, session files,
            // request), the stream, and after the last text (saving the reply, printing it, exiting).
            firstTextMs.append(double(printedBy(run, 1)) / 1e6);
            lastTextMs.append(double(printedBy(run, size)) / 1e6);
        }
        line(QStringLiteral("plain client (read + JSON parse), %1 chars").arg(size), median(plainMs),
             QStringLiteral("ms"),
             QStringLiteral("median of %1 (%2); CPU %3 ms")
                 .arg(rounds)
                 .arg(listed(plainMs))
                 .arg(median(plainCpu), 0, 'f', 0));
        line(QStringLiteral("keen-desktop run, %1 chars").arg(size), median(runMs), QStringLiteral("ms"),
             (complete ? QStringLiteral("complete") : QStringLiteral("INCOMPLETE")) +
                 QStringLiteral(" (%1); CPU %2 ms").arg(listed(runMs)).arg(median(runCpu), 0, 'f', 0));
        line(QStringLiteral("  of which until the first text"), median(firstTextMs), QStringLiteral("ms"),
             QStringLiteral("(%1)").arg(listed(firstTextMs)));
        line(QStringLiteral("  of which after the last text"), median(runMs) - median(lastTextMs),
             QStringLiteral("ms"), QStringLiteral("(last text at %1 ms)").arg(listed(lastTextMs)));
        line(QStringLiteral("  ratio run / plain client, %1 chars").arg(size),
             median(runMs) / median(plainMs), QStringLiteral("x"),
             QStringLiteral("goal <= 2.0 (medians, wall clock, includes process start); per round %1")
                 .arg(listed(ratios, 2)));
        line(QStringLiteral("  same, by CPU time (both count serving the stream)"),
             median(runCpu) / median(plainCpu), QStringLiteral("x"),
             QStringLiteral("per round %1").arg(listed(cpuRatios, 2)));
        runMedians[size] = {median(runMs), median(runCpu)};
    }
    // Time per chunk at the end against the start: what the second 100,000 chars of a reply cost over what
    // the first 99,000 did (each beyond a 1,000-char run, which carries the start, the request and the exit).
    // A step that grew with the text already streamed would make the second part dearer; linear is 1.0.
    // (Measured on whole runs: the loopback server sends faster than Qt's HTTP thread reads a chunked body,
    // and the thread hands on what it has read only when it catches up, so the text reaches stderr in a few
    // large deliveries and their times no longer show the pace per chunk.)
    const auto perChar = [&](int from, int to, bool cpu) {
        const double cost = cpu ? runMedians[to].second - runMedians[from].second
                                : runMedians[to].first - runMedians[from].first;
        return cost / double(to - from);
    };
    for (const bool cpu : {false, true}) {
        const double start = perChar(1000, 100000, cpu);
        const double end = perChar(100000, 200000, cpu);
        line(cpu ? QStringLiteral("  same, by CPU time")
                 : QStringLiteral("time per chunk, chars 100k-200k / chars 1k-100k of a reply"),
             start > 0 ? end / start : -1, QStringLiteral("x"),
             QStringLiteral("%1goal <= 1.5; %2 vs %3 us per 1,000 chars (medians)")
                 .arg(cpu ? QString() : QStringLiteral("wall clock; "))
                 .arg(end * 1e6, 0, 'f', 0)
                 .arg(start * 1e6, 0, 'f', 0));
    }
}

void benchResume()
{
    out << "\n== run --session on a 10,000-event, about 30 MB session (row 3)\n";
    FakeProviderServer server;
    QTemporaryDir home;
    const QString workspace = home.filePath(QStringLiteral("work"));
    QDir().mkpath(workspace);
    const QString path =
        Workloads::writeBigSession(home.filePath(QStringLiteral("sessions")), workspace, 10000, 3000);
    const qint64 bytes = QFileInfo(path).size();
    const double cpuBefore = cpuMs(RUSAGE_SELF);
    QElapsedTimer timer;
    timer.start();
    int parsed = 0;
    {
        QFile file(path);
        file.open(QIODevice::ReadOnly);
        const QList<QByteArray> lines = file.readAll().split('\n');
        for (const QByteArray &jsonLine : lines)
            parsed += QJsonDocument::fromJson(jsonLine).isObject() ? 1 : 0;
    }
    const qint64 baseline = timer.elapsed();
    const double baselineCpu = cpuMs(RUSAGE_SELF) - cpuBefore;
    const QString id = QFileInfo(path).dir().dirName();
    server.enqueue(streamResponse(Workloads::chatCompletionsSse({QStringLiteral("ok")})));
    const Run run =
        runKeen(home.path(), QStringList{QStringLiteral("run"), QStringLiteral("--session"), id} +
                                 providerArgs(server, workspace) + QStringList{QStringLiteral("go on")});
    line(QStringLiteral("plain JSON parse of the file (%1 MB, %2 lines)")
             .arg(bytes / 1e6, 0, 'f', 1)
             .arg(parsed),
         double(baseline), QStringLiteral("ms"), QStringLiteral("CPU %1 ms").arg(baselineCpu, 0, 'f', 0));
    line(QStringLiteral("keen-desktop run --session (one short turn)"), double(run.ms), QStringLiteral("ms"),
         (run.exitCode == 0 ? QStringLiteral("ok") : QStringLiteral("exit %1").arg(run.exitCode)) +
             QStringLiteral(", CPU %1 ms").arg(run.cpuMs, 0, 'f', 0));
    line(QStringLiteral("  ratio"), double(run.ms) / double(baseline), QStringLiteral("x"),
         QStringLiteral("goal <= 2.0 (wall clock, includes process start)"));
    line(QStringLiteral("  same, by CPU time"), run.cpuMs / baselineCpu, QStringLiteral("x"));
}

void benchList()
{
    out << "\n== sessions --all --json over 1,000 sessions (row 5)\n";
    // KEEN_BENCH_HOME keeps the 1,000 sessions in that folder, to profile `sessions` on them afterwards.
    QTemporaryDir temporary;
    const QString kept = qEnvironmentVariable("KEEN_BENCH_HOME");
    const QDir home(kept.isEmpty() ? temporary.path() : kept);
    const QString root = home.filePath(QStringLiteral("sessions"));
    for (int i = 0; i < 1000; ++i) {
        keen::test::TranscriptWriter writer(root, QStringLiteral("/projects/p%1").arg(i % 20));
        for (int turn = 0; turn < 5; ++turn) {
            writer.user(QStringLiteral("question %1 of session %2").arg(turn).arg(i));
            writer.assistantWithTool(QStringLiteral("answer ").repeated(200), QStringLiteral("read_file"),
                                     QJsonObject{{QStringLiteral("path"), QStringLiteral("a.cpp")}},
                                     QStringLiteral("int x;\n").repeated(100));
        }
    }
    const double cpuBefore = cpuMs(RUSAGE_SELF);
    QElapsedTimer timer;
    timer.start();
    int transcripts = 0;
    QDirIterator it(root, {QStringLiteral("transcript_events.jsonl")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        file.open(QIODevice::ReadOnly);
        const QList<QByteArray> lines = file.readAll().split('\n');
        for (const QByteArray &jsonLine : lines)
            QJsonDocument::fromJson(jsonLine);
        ++transcripts;
    }
    const qint64 baseline = timer.elapsed();
    const double baselineCpu = cpuMs(RUSAGE_SELF) - cpuBefore;
    const Run run =
        runKeen(home.path(), {QStringLiteral("sessions"), QStringLiteral("--all"), QStringLiteral("--json")});
    const int listed = int(QJsonDocument::fromJson(run.out).array().size());
    line(QStringLiteral("plain parse of all %1 transcripts").arg(transcripts), double(baseline),
         QStringLiteral("ms"), QStringLiteral("CPU %1 ms").arg(baselineCpu, 0, 'f', 0));
    line(QStringLiteral("keen-desktop sessions --all --json (%1 listed)").arg(listed), double(run.ms),
         QStringLiteral("ms"), QStringLiteral("CPU %1 ms").arg(run.cpuMs, 0, 'f', 0));
    line(QStringLiteral("  ratio"), double(run.ms) / double(baseline), QStringLiteral("x"),
         QStringLiteral("goal <= 1.0 (wall clock, includes process start)"));
    line(QStringLiteral("  same, by CPU time"), run.cpuMs / baselineCpu, QStringLiteral("x"));
}

// A tool turn as the tool loop leaves it in the history.
Message toolTurn(int i)
{
    TurnMemory memory;
    ToolActivity activity;
    activity.tool = QStringLiteral("read_file");
    activity.status = QStringLiteral("success");
    activity.input = QJsonObject{{QStringLiteral("path"), QStringLiteral("src/file%1.cpp").arg(i)}};
    activity.retainedOutput = QStringLiteral("int x = %1;\n").arg(i).repeated(60);
    memory.toolActivity.append(activity);
    return Message::assistant(QStringLiteral("answer %1 ").arg(i).repeated(40), memory);
}

void benchContextEstimate()
{
    out << "\n== context estimate on a 1 MB history (row 6)\n";
    MessageList history;
    qint64 bytes = 0;
    int turns = 0;
    for (; bytes < 1000000; ++turns) {
        history.append(Message::user(QStringLiteral("question %1 ").arg(turns).repeated(20)));
        history.append(toolTurn(turns));
        bytes += 20 * 12 + 40 * 10 + 60 * 14;
    }
    // The tools the app offers, as /context measures them.
    const ToolRegistry tools = createDefaultTools(false);
    const QString prompt = QStringLiteral("You are a coding agent. ").repeated(200);
    const int rounds = 50;
    QElapsedTimer timer;
    timer.start();
    qint64 total = 0;
    for (int i = 0; i < rounds; ++i)
        total += ContextEstimator::breakdown(prompt, tools, history, 200000, std::nullopt).totalTokens;
    line(QStringLiteral("from scratch, ContextEstimator::breakdown on %1 messages").arg(history.size()),
         timer.nsecsElapsed() / 1e6 / rounds, QStringLiteral("ms"),
         QStringLiteral("%1 tokens").arg(total / rounds));

    // What /context does (AgentSession keeps one estimator): after each tool turn, a breakdown.
    ContextEstimator estimator;
    timer.restart();
    estimator.estimate(prompt, tools, history, 200000, std::nullopt);
    line(QStringLiteral("ContextEstimator::estimate, first call"), timer.nsecsElapsed() / 1e6,
         QStringLiteral("ms"));
    qint64 elapsed = 0;
    const double cpuBefore = cpuMs(RUSAGE_SELF);
    for (int i = 0; i < rounds; ++i) {
        history.append(Message::user(QStringLiteral("question %1 ").arg(turns + i).repeated(20)));
        history.append(toolTurn(turns + i));
        timer.restart();
        total = estimator.estimate(prompt, tools, history, 200000, std::nullopt).totalTokens;
        elapsed += timer.nsecsElapsed();
    }
    const double cpu = cpuMs(RUSAGE_SELF) - cpuBefore; // building the turns included
    line(QStringLiteral("ContextEstimator::estimate (/context) after each tool turn"), elapsed / 1e6 / rounds,
         QStringLiteral("ms"),
         QStringLiteral("goal < 1 ms; CPU %1 ms per round with building the turn; %2 messages, %3 tokens, "
                        "%4 measured in all")
             .arg(cpu / rounds, 0, 'f', 2)
             .arg(history.size())
             .arg(total)
             .arg(estimator.measuredMessages()));
}

// What the GUI thread does when a person sends a message or pins something while pins exist: each pin the
// history does not hold yet must go in with the message (issue 16), so the history is searched for every pin.
// The history is as big as a 1M-token window holds: 1,000 tool turns, half of them command outputs.
void benchPins()
{
    out << "\n== pins: send and pin on a 1,000-turn, about 4 MB history with 6 pins (issue 16)\n";
    QTemporaryDir home;
    const QString workspace = home.filePath(QStringLiteral("work"));
    QDir().mkpath(workspace);
    const QString sessions = home.filePath(QStringLiteral("sessions"));
    keen::test::TranscriptWriter writer(sessions, workspace);
    const QString paragraph = Workloads::markdownReply(1500);
    // Each turn's tool call is saved as the app saves it with the full tool history: its output retained in
    // the turn memory, which the next requests replay.
    for (int turn = 0; turn < 1000; ++turn) {
        writer.user(
            QStringLiteral("Question %1: please look at `src/file%1.cpp` and fix the parser.").arg(turn));
        ToolActivity activity;
        activity.status = QStringLiteral("success");
        if (turn % 2 == 0) {
            activity.tool = QStringLiteral("read_file");
            activity.input =
                QJsonObject{{QStringLiteral("path"), QStringLiteral("src/file%1.cpp").arg(turn)}};
            activity.retainedOutput =
                QJsonObject{{QStringLiteral("content"),
                             QStringLiteral("int main() { return %1; }\n").arg(turn).repeated(80)}};
        } else {
            activity.tool = QStringLiteral("bash");
            activity.input = QJsonObject{{QStringLiteral("command"), QStringLiteral("make")}};
            activity.retainedOutput = QJsonObject{
                {QStringLiteral("stdout"), QStringLiteral("PASS tst_%1\n").arg(turn).repeated(120)},
                {QStringLiteral("stderr"), QStringLiteral("warning %1\n").arg(turn).repeated(15)},
                {QStringLiteral("exit_code"), 0}};
        }
        TurnMemory memory;
        memory.toolActivity.append(activity);
        writer.appendPayload(
            QStringLiteral("assistant_turn"),
            QJsonObject{{QStringLiteral("transcript"),
                         QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("text")},
                                                {QStringLiteral("content"), paragraph}}}},
                        {QStringLiteral("message"), paragraph},
                        {QStringLiteral("turn_memory"), memory.toJson()}});
    }
    auto client = std::make_shared<ScriptedLlmClient>();
    AgentSession session;
    session.setWorkspace(workspace);
    session.setSessionStore(std::make_shared<SessionStore>(sessions));
    ClientConfig config;
    config.providerId = QStringLiteral("test");
    config.model = QStringLiteral("scripted");
    session.setClientConfig(config);
    session.setClientFactory(ScriptedLlmClient::factory(client));
    session.setToolHistoryFull(true); // every output replayed in full: the most to search
    if (!session.openSession(writer.id())) {
        out << "could not open the session\n";
        return;
    }
    qint64 historyChars = 0;
    qint64 outputChars = 0;
    for (const Message &message : session.messages()) {
        historyChars += message.content.size();
        if (message.turnMemory) {
            for (const ToolActivity &activity : message.turnMemory->toolActivity)
                outputChars += replayResult(activity).size();
        }
    }

    // The least any check can cost: one search of every message's text for one pin.
    const QString absent = QStringLiteral("NOTE: the release branch is frozen until Friday");
    QElapsedTimer timer;
    timer.start();
    int found = 0;
    for (const Message &message : session.messages())
        found += message.content.contains(absent) ? 1 : 0;
    const double baseline = timer.nsecsElapsed() / 1e6;

    auto pinned = [&session](qsizetype count) {
        FakeProviderServer::spinUntil([&] { return session.pins().size() == count; }, 60000);
    };
    // Five notes, then the last command's output as its card shows it (stdout and stderr joined), which the
    // history replays: found only at its end.
    QList<double> pinTimes;
    for (int i = 0; i < 5; ++i) {
        Pin note;
        note.text = QStringLiteral("NOTE %1: keep the public ABI of libparser stable").arg(i);
        timer.restart();
        session.addPin(note);
        pinTimes.append(timer.nsecsElapsed() / 1e6);
        pinned(i + 1);
        client->addTurn({ScriptedLlmClient::chunk(QStringLiteral("noted")),
                         ScriptedLlmClient::event(StreamEvent::done())});
        session.submit(QStringLiteral("noted %1").arg(i)); // the note joins the history; then it is held
        FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 60000);
    }
    Pin output;
    output.kind = Pin::Kind::ToolResult;
    output.text = QStringLiteral("PASS tst_999\nwarning 999\nwarning 999");
    timer.restart();
    session.addPin(output);
    pinTimes.append(timer.nsecsElapsed() / 1e6);
    pinned(6);

    // Sending a message: every pin is looked for.
    QList<double> sendTimes;
    for (int i = 0; i < 5; ++i) {
        client->addTurn(
            {ScriptedLlmClient::chunk(QStringLiteral("ok")), ScriptedLlmClient::event(StreamEvent::done())});
        timer.restart();
        session.submit(QStringLiteral("go on %1").arg(i));
        sendTimes.append(timer.nsecsElapsed() / 1e6);
        FakeProviderServer::spinUntil([&] { return !session.isBusy(); }, 60000);
    }
    line(QStringLiteral("one search of %1 messages (%2 M chars; outputs %3 M more) for a text")
             .arg(session.messages().size())
             .arg(historyChars / 1e6, 0, 'f', 1)
             .arg(outputChars / 1e6, 0, 'f', 1),
         baseline, QStringLiteral("ms"), found == 0 ? QString() : QStringLiteral("found?"));
    line(QStringLiteral("AgentSession::addPin on the GUI thread (median)"), median(pinTimes),
         QStringLiteral("ms"), QStringLiteral("each: ") + listed(pinTimes, 1));
    line(QStringLiteral("AgentSession::submit with 6 pins on the GUI thread (median)"), median(sendTimes),
         QStringLiteral("ms"), QStringLiteral("goal < 16 ms; each: ") + listed(sendTimes, 1));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto wanted = [&](const QString &name) { return args.size() < 2 || args.contains(name); };
    if (wanted(QStringLiteral("run")))
        benchRunStreaming();
    if (wanted(QStringLiteral("resume")))
        benchResume();
    if (wanted(QStringLiteral("list")))
        benchList();
    if (wanted(QStringLiteral("context")))
        benchContextEstimate();
    if (wanted(QStringLiteral("pins")))
        benchPins();
    return 0;
}
