#include "tools/bashtool.h"

#include "tools/bashcommandclassifier.h"
#include "tools/recentoutput.h"
#include "tools/toolinput.h"
#include "tools/toolpermissions.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QRandomGenerator>
#include <QThread>

#include <memory>

#include <csignal>
#include <unistd.h>

namespace keen {

namespace {

// Keeps what an output stream needs: the head and a rolling tail in memory, and, once the stream outgrows
// the inline limit, everything in an artifact file, so a chatty command cannot exhaust memory.
class StreamCapture
{
public:
    StreamCapture(QString artifactDir, QString artifactName)
        : m_dir(std::move(artifactDir))
        , m_name(std::move(artifactName))
    {}

    void append(const QByteArray &data)
    {
        if (data.isEmpty())
            return;
        m_total += data.size();
        m_newlines += data.count('\n');
        m_endsWithNewline = data.endsWith('\n');
        if (!m_spilled && m_head.size() + data.size() <= BashTool::InlineLimit) {
            m_head += data;
            return;
        }
        if (!m_spilled) {
            m_spilled = true;
            openArtifact(); // starts the file with everything so far
            if (m_head.size() > BashTool::HeadBytes) {
                m_tail = m_head.mid(BashTool::HeadBytes);
                m_head.truncate(BashTool::HeadBytes);
            }
        }
        if (m_file)
            m_file->write(data);
        QByteArray rest = data;
        if (m_head.size() < BashTool::HeadBytes) {
            const qsizetype take = BashTool::HeadBytes - m_head.size();
            m_head += data.left(take);
            rest = data.mid(take);
        }
        m_tail += rest;
        if (m_tail.size() > BashTool::TailBytes)
            m_tail = m_tail.right(BashTool::TailBytes);
    }

    bool truncated() const { return m_total > BashTool::InlineLimit; }
    // Lines written, a last one without a line break counted too: what a preview cannot say.
    qint64 lines() const { return m_newlines + (m_total > 0 && !m_endsWithNewline ? 1 : 0); }
    QString artifactPath() const { return m_file ? m_path : QString(); }

    QString text(const QString &streamName) const
    {
        if (!truncated())
            return QString::fromUtf8(m_head);
        // Cut on UTF-8 character boundaries so the preview decodes cleanly.
        QByteArray head = m_head;
        while (!head.isEmpty() && (quint8(head.back()) & 0xC0) == 0x80)
            head.chop(1);
        if (!head.isEmpty() && quint8(head.back()) >= 0xC0)
            head.chop(1);
        QByteArray tail = m_tail;
        while (!tail.isEmpty() && (quint8(tail.front()) & 0xC0) == 0x80)
            tail.remove(0, 1);
        const qint64 omitted = m_total - head.size() - tail.size();
        const QString where = m_file ? m_path : BashTool::tr("(could not be saved)");
        return QString::fromUtf8(head) +
               BashTool::tr("\n... (%1 bytes omitted; full %2 saved to %3) ...\n")
                   .arg(omitted)
                   .arg(streamName, where) +
               QString::fromUtf8(tail);
    }

    void finish()
    {
        if (m_file)
            m_file->close();
    }
    void discardArtifact()
    {
        if (m_file) {
            m_file->close();
            QFile::remove(m_path);
            m_file.reset();
        }
    }

private:
    void openArtifact()
    {
        if (!QDir().mkpath(m_dir))
            return;
        QFile::setPermissions(m_dir,
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        m_path = QDir(m_dir).filePath(m_name);
        auto file = std::make_unique<QFile>(m_path);
        if (!file->open(QIODevice::WriteOnly | QIODevice::NewOnly))
            return;
        file->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file->write(m_head);
        m_file = std::move(file);
    }

    QString m_dir;
    QString m_name;
    QString m_path;
    QByteArray m_head;
    QByteArray m_tail;
    qint64 m_total = 0;
    qint64 m_newlines = 0;
    bool m_endsWithNewline = false;
    bool m_spilled = false;
    std::unique_ptr<QFile> m_file;
};

void killGroup(qint64 pid)
{
    if (pid <= 0)
        return;
    ::kill(-pid_t(pid), SIGTERM);
    // Give well-behaved programs a moment, then make sure; the whole stop stays well under a second.
    for (int i = 0; i < 10; ++i) {
        if (::kill(-pid_t(pid), 0) != 0)
            return;
        QThread::msleep(20);
    }
    ::kill(-pid_t(pid), SIGKILL);
}

} // namespace

QString BashTool::name() const
{
    return QStringLiteral("bash");
}

QString BashTool::description() const
{
    return QStringLiteral(
        "Run a shell command with `bash -c` in the working directory (timeout 300 s). Use it for builds, "
        "tests, "
        "git and other programs; to read or search files prefer read_file, glob and grep. Output over 64 KiB "
        "per stream is shortened to its beginning and end, with the full text saved to a file you can read. "
        "stderr is returned only when the command fails. Set isDangerous to true for anything destructive or "
        "hard to undo: deleting files (rm), git commit/push/reset/rebase, killing processes, changing system "
        "files, or reading secrets such as environment variables; the user is asked first. Give a 5-10 word "
        "summary of what the command does.");
}

QJsonObject BashTool::inputSchema() const
{
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"),
         QJsonObject{
             {QStringLiteral("command"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                          {QStringLiteral("description"), QStringLiteral("The command line to run")}}},
             {QStringLiteral("isDangerous"),
              QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                          {QStringLiteral("description"),
                           QStringLiteral("True when the command is destructive or exposes secrets")}}},
             {QStringLiteral("summary"),
              QJsonObject{
                  {QStringLiteral("type"), QStringLiteral("string")},
                  {QStringLiteral("description"), QStringLiteral("What the command does, in 5-10 words")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("command")}},
        {QStringLiteral("additionalProperties"), false},
    };
}

QString BashTool::validateInput(const QJsonObject &input) const
{
    const QString tool = name();
    if (QString error = ToolInput::requireStrings(tool, input, {QStringLiteral("command")},
                                                  QStringLiteral("{\"command\":\"<shell command>\"}"));
        !error.isEmpty())
        return error;
    if (input.value(QLatin1String("command")).toString().trimmed().isEmpty())
        return ToolInput::invalid(tool, BashTool::tr("\"command\" is empty"));
    const QJsonValue dangerous = input.value(QLatin1String("isDangerous"));
    if (!dangerous.isUndefined() && !dangerous.isNull() && !dangerous.isBool())
        return ToolInput::wrongType(tool, QStringLiteral("isDangerous"), BashTool::tr("a boolean"));
    const QJsonValue summary = input.value(QLatin1String("summary"));
    if (!summary.isUndefined() && !summary.isNull() && !summary.isString())
        return ToolInput::wrongType(tool, QStringLiteral("summary"), BashTool::tr("a string"));
    return ToolInput::unknownParameters(
        tool, input, {QStringLiteral("command"), QStringLiteral("isDangerous"), QStringLiteral("summary")});
}

ToolResult BashTool::execute(const QJsonObject &input, ToolContext &context)
{
    const QString command = input.value(QLatin1String("command")).toString();
    const QString summary = input.value(QLatin1String("summary")).toString();

    const FilesystemGuard::Check check =
        ToolPermissions::checkPath(context, QStringLiteral("."), FilesystemGuard::Operation::Read);
    if (check.denied())
        return ToolResult::failure(
            BashTool::tr("Access denied to the working directory: %1.").arg(check.reason));

    const BashCommandClassifier::Verdict verdict = BashCommandClassifier::classify(command);
    const bool dangerous = input.value(QLatin1String("isDangerous")).toBool() || verdict.dangerous;
    if (dangerous || check.pending()) {
        PermissionRequest request;
        request.toolName = name();
        request.path = QStringLiteral(".");
        request.resolvedPath = check.resolvedPath;
        request.command = command;
        request.summary = summary.isEmpty() ? verdict.reason : summary;
        request.isDangerous = dangerous;
        const PermissionDecision decision = ToolPermissions::ask(context, request);
        if (decision != PermissionDecision::Allow)
            return ToolPermissions::refusal(decision, request, context);
    }
    if (context.cancel.isCancelled())
        return ToolResult::failure(BashTool::tr("cancelled"));

    QProcess process;
    process.setProgram(QStringLiteral("bash"));
    process.setArguments({QStringLiteral("-c"), command});
    process.setWorkingDirectory(check.resolvedPath);
    process.setStandardInputFile(QProcess::nullDevice());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &hidden : std::as_const(context.hiddenEnvironment))
        environment.remove(hidden);
    // Nobody can page through output here.
    environment.insert(QStringLiteral("PAGER"), QStringLiteral("cat"));
    environment.insert(QStringLiteral("GIT_PAGER"), QStringLiteral("cat"));
    process.setProcessEnvironment(environment);
    // A session of its own makes the command a process-group leader: cancelling signals the whole group,
    // including whatever it started in the background.
    process.setChildProcessModifier([] { ::setsid(); });
    process.start();
    if (!process.waitForStarted(10000))
        return ToolResult::failure(BashTool::tr("cannot start bash: %1").arg(process.errorString()));
    const qint64 pid = process.processId();

    const QString artifactDir =
        QDir(context.dataDir.isEmpty() ? QDir::tempPath() : context.dataDir).filePath(QStringLiteral("bash"));
    const QString artifactBase = QStringLiteral("keen-bash-%1")
                                     .arg(QRandomGenerator::global()->generate64(), 16, 16, QLatin1Char('0'));
    StreamCapture out(artifactDir, artifactBase + QStringLiteral(".stdout"));
    StreamCapture err(artifactDir, artifactBase + QStringLiteral(".stderr"));

    // What the command prints so far goes to its card a few times a second: a build or a test run of
    // minutes otherwise shows nothing but its command line until it ends.
    RecentOutput recent;
    bool unreported = false;
    QElapsedTimer sinceReport;
    auto capture = [&] {
        const QByteArray stdoutBytes = process.readAllStandardOutput();
        const QByteArray stderrBytes = process.readAllStandardError();
        out.append(stdoutBytes);
        err.append(stderrBytes);
        if (!context.outputProgress || (stdoutBytes.isEmpty() && stderrBytes.isEmpty()))
            return;
        recent.append(stdoutBytes);
        recent.append(stderrBytes);
        unreported = true;
    };

    QElapsedTimer timer;
    timer.start();
    bool cancelled = false;
    bool timedOut = false;
    while (process.state() != QProcess::NotRunning) {
        // Short slices so a cancel is noticed within ~50 ms.
        process.waitForFinished(50);
        capture();
        if (process.state() == QProcess::NotRunning)
            break;
        if (unreported && (!sinceReport.isValid() || sinceReport.elapsed() >= ProgressIntervalMs)) {
            context.outputProgress(recent.text(), recent.earlierLines());
            unreported = false;
            sinceReport.start();
        }
        if (context.cancel.isCancelled()) {
            cancelled = true;
        } else if (timer.elapsed() > m_timeoutMs) {
            timedOut = true;
        } else {
            continue;
        }
        killGroup(pid);
        process.waitForFinished(1000);
        break;
    }
    capture();
    out.finish();
    err.finish();

    if (cancelled) {
        out.discardArtifact();
        err.discardArtifact();
        return ToolResult::failure(BashTool::tr("Command cancelled."));
    }

    const int exitCode = timedOut || process.exitStatus() == QProcess::CrashExit ? -1 : process.exitCode();
    QJsonObject output{
        {QStringLiteral("command"), command},
        {QStringLiteral("exit_code"), exitCode},
        {QStringLiteral("stdout"), out.text(QStringLiteral("stdout"))},
        {QStringLiteral("truncated"), out.truncated() || (exitCode != 0 && err.truncated())},
    };
    if (out.truncated()) {
        output.insert(QStringLiteral("stdout_lines"), out.lines());
        if (!out.artifactPath().isEmpty())
            output.insert(QStringLiteral("stdout_file"), out.artifactPath());
    }
    if (exitCode != 0) {
        output.insert(QStringLiteral("stderr"), err.text(QStringLiteral("stderr")));
        if (err.truncated()) {
            output.insert(QStringLiteral("stderr_lines"), err.lines());
            if (!err.artifactPath().isEmpty())
                output.insert(QStringLiteral("stderr_file"), err.artifactPath());
        }
        output.insert(QStringLiteral("failed_command"), command);
    } else {
        err.discardArtifact();
    }
    if (!summary.isEmpty())
        output.insert(QStringLiteral("summary"), summary);

    ToolResult result = ToolResult::success(output);
    result.exitCode = exitCode;
    if (timedOut)
        result.error = BashTool::tr("Command timed out after %1 seconds.").arg(m_timeoutMs / 1000.0);
    return result;
}

} // namespace keen
