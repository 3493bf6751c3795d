#include "headless/commandline.h"

#include "agent/agentsession.h"
#include "base/logfile.h"
#include "config/configresolver.h"
#include "config/settings.h"
#include "headless/headlessrunner.h"

#include "headless/sessionscommand.h"
#include "headless/signalwatcher.h"
#include "headless/streamoutput.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <unistd.h>

namespace keen {

namespace {

// Piped standard input is part of the prompt; a terminal is not read.
QString readPipedStdin()
{
    if (::isatty(STDIN_FILENO))
        return {};
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(in.readAll()).trimmed();
}

// Arguments `run` refuses: the error and the usage on stderr, and with --format json the failure object on
// stdout, so a script reading it is told too.
int refuseArguments(const QStringList &arguments, const QString &error, QTextStream &out, QTextStream &err)
{
    err << "Error: " << error << "\n\n" << usageText();
    err.flush();
    if (HeadlessRunner::asksForJson(arguments)) {
        StreamOutput::writeUtf8(
            out, QJsonDocument(HeadlessRunner::failureJson(error)).toJson(QJsonDocument::Compact) + '\n');
        out.flush();
    }
    return HeadlessRunner::Failure;
}

int runHeadless(const QStringList &arguments, QTextStream &out, QTextStream &err)
{
    // Parse the flags first so a bad flag fails fast, before anything waits on standard input.
    auto flagsOnly = HeadlessRunner::parseArguments(arguments, QStringLiteral("-"));
    if (!flagsOnly)
        return refuseArguments(arguments, flagsOnly.error(), out, err);
    const bool pinsOnly = flagsOnly->pinWork();
    auto options = HeadlessRunner::parseArguments(
        arguments,
        flagsOnly->compact || flagsOnly->undoCompaction || pinsOnly ? QString() : readPipedStdin());
    if (!options)
        return refuseArguments(arguments, options.error(), out, err);
    // A damaged settings.json is named and its valid keys are used; flags and defaults do the rest.
    const LoadedSettings settings = Settings::loadOrDefaults();
    if (!settings.problem.isEmpty())
        err << "Warning: " << settings.problem << "\n";
    HeadlessRunner runner(out, err);
    runner.session().setToolHistoryFull(settings.settings.toolHistory == Settings::ToolHistory::Full);
    runner.session().setPinBudgetPercent(
        settings.settings.pinBudgetPercent.value_or(AgentSession::DefaultPinBudgetPercent));
    const Settings loaded = settings.settings;
    // --pins, --pin or --unpin without a prompt, and --undo-compaction, read the provider's context window
    // and send nothing: a warning about where the key is kept would be noise there.
    const bool sendsRequest =
        !options->undoCompaction && (options->compact || !options->prompt.trimmed().isEmpty());
    runner.setConfigResolver(
        [loaded, sendsRequest, &err](const LaunchOptions &launch) -> Result<ClientConfig> {
            auto resolved = ConfigResolver(loaded).resolve(launch, SecretStore::FileFallback::Allow);
            if (!resolved)
                return Result<ClientConfig>::failure(resolved.error());
            if (sendsRequest && !resolved->warning.isEmpty())
                err << "Warning: " << resolved->warning << "\n";
            return resolved->config;
        });
    const SignalWatcher watcher(runner.session().shutdownToken());
    return runner.run(*options);
}

} // namespace

QString usageText()
{
    return QStringLiteral(
        "Usage:\n"
        "  keen-desktop [--provider ID] [--model ID] [--base-url URL] [--workspace DIR]\n"
        "               [--context-window N] [--session ID] [DIR]\n"
        "                                                          open the window (in DIR)\n"
        "  keen-desktop run [flags] <prompt...>                    run one turn headless\n"
        "    --format text|json        text (default), or one JSON line with session_id, text, usage\n"
        "                              (and error, partial: true when the run fails)\n"
        "    --session ID              continue a saved session\n"
        "    --provider ID --model ID  override the configured provider and model\n"
        "    --base-url URL            override the provider's base URL\n"
        "    --context-window N        override the model's context window, in tokens\n"
        "    --workspace DIR           where tools act (default: the current directory)\n"
        "    --completion-signal STR   exit 2 when the final text does not contain STR\n"
        "    --compact [FOCUS]         with --session and no prompt: compact that session\n"
        "    --review                  with --compact: accept, edit ($EDITOR), regenerate or cancel the "
        "summary\n"
        "    --undo-compaction         with --session and no prompt: undo its latest compaction\n"
        "    --compact-threshold N|off automatic compaction at N% (50 to 95) of the input budget, or\n"
        "                              never; kept in the session (default 90)\n"
        "    --compact-detail LEVEL    brief, normal or detailed summaries; kept in the session\n"
        "    --pin TEXT                pin a note that every compaction keeps verbatim (repeatable)\n"
        "    --unpin ID                with --session: remove a pin\n"
        "    --pins                    with --session: list the pins and the pin budget\n"
        "    --dropped                 with --session: list what its compaction's summary left out\n"
        "    --pin-dropped N           with --session: pin the original text of detail N of --dropped\n"
        "    --pinnable                with --session: list its messages, code blocks and tool results\n"
        "    --pin-item N              with --session: pin item N of --pinnable (repeatable)\n"
        "    --yolo                    allow dangerous commands too\n"
        "    --                        the end of the flags: the rest is the prompt, even words with --\n"
        "  keen-desktop sessions [--all] [--json] [--search QUERY] [--workspace DIR]\n"
        "                                                          list saved sessions\n"
        "  keen-desktop --version | --help\n");
}

int runCommandLine(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString command = arguments.value(1);
    if (command == QLatin1String("--version") || command == QLatin1String("-v")) {
        out << "keen-desktop " << QCoreApplication::applicationVersion() << "\n";
        return 0;
    }
    if (command == QLatin1String("--help") || command == QLatin1String("-h") ||
        command == QLatin1String("help")) {
        out << usageText();
        return 0;
    }
    // A script's runs keep a log file only when asked: KEEN_LOG_LEVEL.
    if (const QString asked = qEnvironmentVariable("KEEN_LOG_LEVEL"); !asked.isEmpty()) {
        if (const Result<LogFile::Level> level = LogFile::parseLevel(asked))
            LogFile::install(LogFile::defaultFolder(), *level);
        else
            err << "Warning: " << level.error() << '\n';
    }
    if (command == QLatin1String("run"))
        return runHeadless(arguments.mid(2), out, err);
    if (command == QLatin1String("sessions"))
        return runSessionsCommand(arguments.mid(2), out, err);
    err << "Error: unknown command " << command << "\n\n" << usageText();
    return 1;
}

} // namespace keen
