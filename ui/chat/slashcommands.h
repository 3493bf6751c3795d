#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

// The chat window's slash commands (reference 6.1, the subset issue 6 names) and their parsing.
class SlashCommands
{
    Q_DECLARE_TR_FUNCTIONS(SlashCommands)

public:
    enum class Id {
        Compact,
        Context,
        Clear,
        New,
        Sessions,
        Resume,
        Mode,
        Model,
        Thinking,
        ShowThinking,
        ToolHistory,
        Pin,
        Pins,
        AllowPermission,
        ResetPermission,
        Btw,
        Adversary,
        Usage,
        Memory,
        EmptyQueue,
        Logout,
        Skills,
        Subagents,
        Mcp,
        Cleanup,
        Exit,
        Help,
        Skill // `/<skill-name>`: not in all(), made by skillCommand() for the completion list
    };

    struct Command
    {
        Id id;
        QString name;  // "/compact"
        QString usage; // "/compact [focus]"
        QString description;
        bool runsWhileBusy; // false: "Operation not permitted" while a turn or compaction runs
    };

    struct Parsed
    {
        Id id;
        QString argument; // trimmed text after the name
    };

    static const QList<Command> &all();
    static const Command &command(Id id);
    static bool looksLikeCommand(const QString &text); // starts with "/" followed by a letter
    // nullopt for an unknown command.
    static std::optional<Parsed> parse(const QString &text);
    // The /help table as Markdown.
    static QString helpMarkdown();
    // A skill's `/<name>` entry for the completion list: its description shortened.
    static Command skillCommand(const QString &name, const QString &description);
};

} // namespace keen
