#include "chat/slashcommands.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace keen {

const QList<SlashCommands::Command> &SlashCommands::all()
{
    static const QList<Command> commands{
        {Id::Compact, QStringLiteral("/compact"), QStringLiteral("/compact [focus]"),
         SlashCommands::tr("Summarize the conversation into a smaller context; the focus guides the summary"),
         false},
        {Id::Context, QStringLiteral("/context"), QStringLiteral("/context"),
         SlashCommands::tr("Show what fills the context window"), true},
        {Id::Clear, QStringLiteral("/clear"), QStringLiteral("/clear"),
         SlashCommands::tr("Start a new session"), false},
        {Id::New, QStringLiteral("/new"), QStringLiteral("/new"), SlashCommands::tr("Start a new session"),
         false},
        {Id::Sessions, QStringLiteral("/sessions"), QStringLiteral("/sessions"),
         SlashCommands::tr("Browse and search sessions"), true},
        {Id::Resume, QStringLiteral("/resume"), QStringLiteral("/resume"),
         SlashCommands::tr("Resume the last session"), false},
        {Id::Mode, QStringLiteral("/mode"), QStringLiteral("/mode [plan|build|yolo]"),
         SlashCommands::tr("Show or switch the mode"), true},
        {Id::Model, QStringLiteral("/model"), QStringLiteral("/model [name|provider/name]"),
         SlashCommands::tr("Use this model of the current provider, or switch provider and model; alone: "
                           "open the provider settings"),
         false},
        {Id::Thinking, QStringLiteral("/thinking"), QStringLiteral("/thinking <effort>"),
         SlashCommands::tr("Set the thinking effort"), false},
        {Id::ShowThinking, QStringLiteral("/show-thinking"), QStringLiteral("/show-thinking [on|off]"),
         SlashCommands::tr("Show or hide reasoning"), true},
        {Id::ToolHistory, QStringLiteral("/tool-history"), QStringLiteral("/tool-history [full|none]"),
         SlashCommands::tr("Keep full tool activity in history, or none"), true},
        {Id::Pin, QStringLiteral("/pin"), QStringLiteral("/pin <text>"),
         SlashCommands::tr("Pin a note that every compaction keeps verbatim"), true},
        {Id::Pins, QStringLiteral("/pins"), QStringLiteral("/pins"),
         SlashCommands::tr("List the pins and the pin budget; unpin"), true},
        {Id::AllowPermission, QStringLiteral("/allow-permission"),
         QStringLiteral("/allow-permission <tools…>"),
         SlashCommands::tr("Let these tools run without asking in this folder (.keen/permissions.json)"),
         true},
        {Id::ResetPermission, QStringLiteral("/reset-permission"),
         QStringLiteral("/reset-permission <tools…>"),
         SlashCommands::tr("Make these tools ask again in this folder"), true},
        {Id::Btw, QStringLiteral("/btw"), QStringLiteral("/btw <question>"),
         SlashCommands::tr("Ask a quick side question, also while the agent works; it is not kept"), true},
        {Id::Adversary, QStringLiteral("/adversary"),
         QStringLiteral("/adversary [focus] | model [<provider>/<model>|default]"),
         SlashCommands::tr(
             "A second look critically reviews the conversation; it may read the project but "
             "changes nothing, and it is not kept. /adversary model picks the model that reviews"),
         true},
        {Id::Usage, QStringLiteral("/usage"), QStringLiteral("/usage"),
         SlashCommands::tr("Tokens used per model over the last 7 and 30 days and in all"), true},
        {Id::Memory, QStringLiteral("/memory"), QStringLiteral("/memory [show global|project]"),
         SlashCommands::tr("List the memory files the agent reads, or show one"), true},
        {Id::EmptyQueue, QStringLiteral("/emptyq"), QStringLiteral("/emptyq"),
         SlashCommands::tr("Remove the prompts waiting in the queue"), true},
        {Id::Logout, QStringLiteral("/logout"), QStringLiteral("/logout"),
         SlashCommands::tr("Sign out of ChatGPT (the ChatGPT sign-in provider)"), false},
        {Id::Skills, QStringLiteral("/skills"),
         QStringLiteral("/skills [list|status|reload|enable <name>|disable <name>]"),
         SlashCommands::tr("List the skills, read them again, or choose which the model is offered"), true},
        {Id::Subagents, QStringLiteral("/subagents"), QStringLiteral("/subagents [list]"),
         SlashCommands::tr("List the subagents the model can hand tasks to (delegate_task)"), true},
        {Id::Mcp, QStringLiteral("/mcp"),
         QStringLiteral("/mcp [status|connect <server-or-tool>|logout <server>]"),
         SlashCommands::tr(
             "Show the MCP servers and their state, connect (or sign in to) one again, or sign out"),
         true},
        {Id::Cleanup, QStringLiteral("/cleanup"), QStringLiteral("/cleanup"),
         SlashCommands::tr(
             "Delete old command output (7 days) and sessions not used for 14 days, after asking"),
         false},
        {Id::Exit, QStringLiteral("/exit"), QStringLiteral("/exit"), SlashCommands::tr("Quit Keen Desktop"),
         true},
        {Id::Help, QStringLiteral("/help"), QStringLiteral("/help"), SlashCommands::tr("List the commands"),
         true},
    };
    return commands;
}

const SlashCommands::Command &SlashCommands::command(Id id)
{
    for (const Command &entry : all()) {
        if (entry.id == id)
            return entry;
    }
    return all().constFirst();
}

bool SlashCommands::looksLikeCommand(const QString &text)
{
    const QString trimmed = text.trimmed();
    return trimmed.size() >= 2 && trimmed.at(0) == QLatin1Char('/') && trimmed.at(1).isLetter();
}

std::optional<SlashCommands::Parsed> SlashCommands::parse(const QString &text)
{
    const QString trimmed = text.trimmed();
    const qsizetype space = trimmed.indexOf(QRegularExpression(QStringLiteral("\\s")));
    const QString name = (space < 0 ? trimmed : trimmed.left(space)).toLower();
    const QString argument = space < 0 ? QString() : trimmed.mid(space + 1).trimmed();
    for (const Command &entry : all()) {
        if (entry.name == name)
            return Parsed{entry.id, argument};
    }
    return std::nullopt;
}

QString SlashCommands::helpMarkdown()
{
    QString text = QStringLiteral("**") + SlashCommands::tr("Available Commands") +
                   QStringLiteral("**\n\n| ") + SlashCommands::tr("Command") + QStringLiteral(" | ") +
                   SlashCommands::tr("Description") + QStringLiteral(" |\n|---|---|\n");
    for (const Command &entry : all()) {
        QString usage = entry.usage;
        usage.replace(QLatin1Char('|'), QStringLiteral("\\|"));
        text += QStringLiteral("| `") + usage + QStringLiteral("` | ") + entry.description +
                QStringLiteral(" |\n");
    }
    text += QStringLiteral("| `/<skill> [arguments]` | ") +
            SlashCommands::tr("Use a skill: its instructions are sent as your message (see /skills)") +
            QStringLiteral(" |\n");
    // Not a slash command, so not in the completion list; listed here so it can be found.
    text +=
        QStringLiteral("| `!<command>` | ") +
        SlashCommands::tr("Run a shell command in the working folder yourself; the model does not see it") +
        QStringLiteral(" |\n");
    return text;
}

SlashCommands::Command SlashCommands::skillCommand(const QString &name, const QString &description)
{
    constexpr int Words = 12;
    const QStringList words = description.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString shown = words.mid(0, Words).join(QLatin1Char(' '));
    if (words.size() > Words)
        shown += QStringLiteral(" …");
    // Queued like a prompt while a turn runs (reference 6.2).
    return {Id::Skill, QLatin1Char('/') + name, QLatin1Char('/') + name + QStringLiteral(" [arguments]"),
            SlashCommands::tr("Skill: %1").arg(shown), true};
}

} // namespace keen
