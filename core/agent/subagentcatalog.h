#pragma once

#include "base/result.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace keen {

// Subagents (reference 7.3): Markdown profiles with a front matter, each a specialist the model can hand a
// self-contained task to with the delegate_task tool. A child runs on its own, with a fresh context (no
// history, no memory, no further delegation), and its final answer comes back as the tool's result.
// Discovery reads the disk: call it off the GUI thread.
class SubagentCatalog
{
    Q_DECLARE_TR_FUNCTIONS(SubagentCatalog)

public:
    static constexpr qint64 MaxProfileBytes = 256 * 1024;
    static constexpr int DefaultTimeoutSeconds = 1800;
    static constexpr int TableDescriptionWords = 30;

    struct Profile
    {
        QString name;
        QString description;
        QString provider; // with model: the child runs on this provider and model; both empty: the parent's
        QString model;
        QString thinkingEffort; // empty: the parent's
        // A subset of "read", "write", "bash", "web"; empty: the parent's tools (without delegate_task and
        // ask_user).
        QStringList permissions;
        int timeoutSeconds = DefaultTimeoutSeconds;
        bool hidden = false; // not listed in the system prompt nor by /subagents, still callable by name
        QString path;        // the profile file, absolute
        QString body;        // the instructions that follow the front matter
    };

    // The folders searched, first definition of a name wins: the project's .agents/agents, .keen/agents
    // and .claude/agents, then the person's (<dataDir>/agents is this app's ~/.keen/agents).
    static QStringList roots(const QString &workspace, const QString &dataDir, const QString &home);
    static SubagentCatalog discover(const QString &workspace, const QString &dataDir, const QString &home);
    // name and description are required; provider and model come together or not at all; permissions, when
    // given, is a non-empty list of known words; timeout_seconds a positive number.
    static Result<Profile> parse(const QString &path, const QByteArray &bytes);
    // The tool names a permission word grants.
    static QStringList toolsFor(const QString &permission);

    const QList<Profile> &profiles() const { return m_profiles; }
    QList<Profile> visibleProfiles() const;
    // Duplicates, invalid front matter, files that cannot be read: each names the file.
    const QStringList &warnings() const { return m_warnings; }
    std::optional<Profile> find(const QString &name) const;
    bool isEmpty() const { return m_profiles.isEmpty(); }

    // The `## Available Subagents` section of the system prompt; empty when no profile is visible.
    QString promptSection() const;
    // What /subagents shows: the visible profiles, what they run on and may use, then the warnings.
    QString markdownTable() const;

private:
    QList<Profile> m_profiles;
    QStringList m_warnings;
};

} // namespace keen
