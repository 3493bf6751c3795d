#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

// Skills (reference 7.2): a folder with a SKILL.md whose front matter names the skill and says when it
// helps. Enabled skills are listed in the system prompt so the model reads one when a task matches, and a
// person activates one with /<name> [arguments], which sends its instructions as the message. Discovery
// reads the disk: call it off the GUI thread.
class SkillCatalog
{
    Q_DECLARE_TR_FUNCTIONS(SkillCatalog)

public:
    // A SKILL.md is instructions for one task; anything bigger is not a skill and would flood the context.
    static constexpr qint64 MaxSkillBytes = 256 * 1024;
    static constexpr int TableDescriptionWords = 50;

    struct Skill
    {
        QString name;
        QString description;
        QString path; // the SKILL.md, absolute
        QString body; // what follows the front matter
        bool enabled = true;
        bool bundled = false; // shipped with the app, copied to <dataDir>/skills/bundled
    };

    // The folders searched, first definition of a name wins: the project's .agents, .keen and .claude skill
    // folders, then the person's (<dataDir>/skills is this app's ~/.keen/skills), then the bundled skills.
    static QStringList roots(const QString &workspace, const QString &dataDir, const QString &home);
    // Copies the bundled skills to <dataDir>/skills/bundled when missing or different, then reads every
    // root. enabled comes from <dataDir>/skills/config.json.
    static SkillCatalog discover(const QString &workspace, const QString &dataDir, const QString &home);

    // The front matter's name and description (both required) and the body; the error says what is wrong.
    static Result<Skill> parse(const QString &path, const QByteArray &bytes);
    // `[Activate skill: <name>]` and the body, $ARGUMENTS and $1..$9 replaced by the arguments (split like
    // a shell would); arguments the body has no place for follow it.
    static QString activationText(const Skill &skill, const QString &arguments);
    static bool isActivation(const QString &message);

    static QString configPath(const QString &dataDir);
    // Records in config.json whether the named skill is offered; other entries stay as they are.
    static Result<void> setEnabled(const QString &dataDir, const QString &name, bool enabled);

    const QList<Skill> &skills() const { return m_skills; }
    // Duplicates, front matter that is missing or wrong, files that cannot be read: each names the file.
    const QStringList &warnings() const { return m_warnings; }
    // Of those, the files that could not be read (a FIFO, a device, too large): a run says these, since a
    // skill the person wrote is missing from the turn without them knowing.
    const QStringList &unreadableFiles() const { return m_unreadable; }
    std::optional<Skill> find(const QString &name) const;
    // `/<name> [arguments]` naming a skill of this catalog: its activation text, or an error for a disabled
    // skill; nullopt when text names no skill (a prompt that starts with a path, say).
    std::optional<Result<QString>> activate(const QString &text) const;
    // The `## Available Skills` section of the system prompt; empty when no skill is enabled.
    QString promptSection() const;
    // What /skills shows: a table of the skills and their state, with the description (List) or the file
    // (Status), then the warnings.
    enum class View { List, Status };
    QString markdownTable(View view = View::List) const;

private:
    QList<Skill> m_skills;
    QStringList m_warnings;
    QStringList m_unreadable;
};

} // namespace keen
