#include "agent/subagentcatalog.h"

#include "agent/extensionfolders.h"
#include "agent/frontmatter.h"
#include "agent/markdowntable.h"
#include "config/modelregistry.h"

#include <QDir>
#include <QFileInfo>

namespace keen {

namespace {

const QStringList &permissionWords()
{
    static const QStringList words = {QStringLiteral("read"), QStringLiteral("write"), QStringLiteral("bash"),
                                      QStringLiteral("web"), QStringLiteral("mcp")};
    return words;
}

} // namespace

QStringList SubagentCatalog::roots(const QString &workspace, const QString &dataDir, const QString &home)
{
    return ExtensionFolders::roots(QStringLiteral("agents"), workspace, dataDir, home);
}

SubagentCatalog SubagentCatalog::discover(const QString &workspace, const QString &dataDir,
                                          const QString &home)
{
    SubagentCatalog catalog;
    for (const QString &root : roots(workspace, dataDir, home)) {
        const QDir dir(root);
        for (const QString &entry : dir.entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name)) {
            const QString path = dir.filePath(entry);
            const Result<QByteArray> bytes = FrontMatter::readFile(path, MaxProfileBytes);
            if (!bytes) {
                catalog.m_warnings.append(bytes.error());
                continue;
            }
            Result<Profile> parsed = parse(path, *bytes);
            if (!parsed) {
                catalog.m_warnings.append(parsed.error());
                continue;
            }
            if (const std::optional<Profile> first = catalog.find(parsed->name)) {
                catalog.m_warnings.append(tr("The subagent %1 in %2 is hidden by the one in %3")
                                              .arg(parsed->name, parsed->path, first->path));
                continue;
            }
            catalog.m_profiles.append(*parsed);
        }
    }
    return catalog;
}

Result<SubagentCatalog::Profile> SubagentCatalog::parse(const QString &path, const QByteArray &bytes)
{
    using R = Result<Profile>;
    const Result<FrontMatter> front = FrontMatter::parseNamed(path, bytes);
    if (!front)
        return R::failure(front.error());
    Profile profile;
    profile.path = QFileInfo(path).absoluteFilePath();
    profile.name = front->value(QStringLiteral("name"));
    profile.description = front->value(QStringLiteral("description"));
    profile.provider = front->value(QStringLiteral("provider"));
    profile.model = front->value(QStringLiteral("model"));
    // Claude Code's profiles say `model: inherit` for the parent's model.
    if (profile.provider.isEmpty() && profile.model == QLatin1String("inherit"))
        profile.model.clear();
    if (profile.provider.isEmpty() != profile.model.isEmpty())
        return R::failure(tr("%1: provider and model go together; give both or neither").arg(path));
    profile.thinkingEffort = front->value(QStringLiteral("thinking_effort"));
    // A model the registry knows takes only the efforts it lists; the provider would refuse the request.
    if (!profile.thinkingEffort.isEmpty() && !profile.model.isEmpty()) {
        if (const auto info = ModelRegistry::builtIn().model(profile.provider, profile.model);
            info && !info->thinkingEfforts.contains(profile.thinkingEffort))
            return R::failure(info->thinkingEfforts.isEmpty()
                                  ? tr("%1: %2/%3 has no thinking efforts; leave thinking_effort out")
                                        .arg(path, profile.provider, profile.model)
                                  : tr("%1: thinking_effort \"%2\" is not one of %3/%4's (%5)")
                                        .arg(path, profile.thinkingEffort, profile.provider, profile.model,
                                             info->thinkingEfforts.join(QStringLiteral(", "))));
    }
    if (front->contains(QStringLiteral("permissions"))) {
        profile.permissions = front->list(QStringLiteral("permissions"));
        if (profile.permissions.isEmpty())
            return R::failure(tr("%1: permissions is empty; leave it out to give the subagent this "
                                 "conversation's tools")
                                  .arg(path));
        for (const QString &word : std::as_const(profile.permissions)) {
            if (!permissionWords().contains(word))
                return R::failure(
                    tr("%1: unknown permission \"%2\" (use read, write, bash, web or mcp)").arg(path, word));
        }
        profile.permissions.removeDuplicates();
    }
    if (const QString timeout = front->value(QStringLiteral("timeout_seconds")); !timeout.isEmpty()) {
        bool ok = false;
        const int seconds = timeout.toInt(&ok);
        if (!ok || seconds <= 0)
            return R::failure(tr("%1: timeout_seconds must be a positive number of seconds, not \"%2\"")
                                  .arg(path, timeout));
        profile.timeoutSeconds = seconds;
    }
    const QString hidden = front->value(QStringLiteral("hidden")).toLower();
    profile.hidden = hidden == QLatin1String("true") || hidden == QLatin1String("yes");
    profile.body = front->body();
    return profile;
}

QStringList SubagentCatalog::toolsFor(const QString &permission)
{
    if (permission == QLatin1String("read"))
        return {QStringLiteral("glob"), QStringLiteral("grep"), QStringLiteral("read_file")};
    if (permission == QLatin1String("write"))
        return {QStringLiteral("edit_file"), QStringLiteral("write_file")};
    if (permission == QLatin1String("bash"))
        return {QStringLiteral("bash")};
    if (permission == QLatin1String("web"))
        return {QStringLiteral("web_fetch")};
    if (permission == QLatin1String("mcp"))
        return {QStringLiteral("call_mcp_tool")};
    return {};
}

QList<SubagentCatalog::Profile> SubagentCatalog::visibleProfiles() const
{
    QList<Profile> visible;
    for (const Profile &profile : m_profiles) {
        if (!profile.hidden)
            visible.append(profile);
    }
    return visible;
}

std::optional<SubagentCatalog::Profile> SubagentCatalog::find(const QString &name) const
{
    for (const Profile &profile : m_profiles) {
        if (profile.name == name)
            return profile;
    }
    return std::nullopt;
}

QString SubagentCatalog::promptSection() const
{
    QString list;
    for (const Profile &profile : m_profiles) {
        if (!profile.hidden)
            list += QStringLiteral("- %1: %2\n").arg(profile.name, profile.description.simplified());
    }
    if (list.isEmpty())
        return {};
    // Instructions to the model, in English like the rest of the prompt.
    return QStringLiteral("## Available Subagents\n\n"
                          "You can hand self-contained tasks to these subagents with the delegate_task tool. "
                          "Each one works on its own with a fresh context: it does not see this "
                          "conversation, so write every task with all it needs (the goal, the files, the "
                          "constraints and what to report back). Tasks given in one call run in parallel. "
                          "Delegate work that is large or separable, such as a review or an investigation "
                          "across many files; do small steps yourself.\n\n") +
           list.chopped(1);
}

QString SubagentCatalog::markdownTable() const
{
    QString text = QStringLiteral("**") + tr("Subagents") + QStringLiteral("**\n\n");
    const QList<Profile> visible = visibleProfiles();
    if (visible.isEmpty()) {
        text +=
            tr("No subagents found. A subagent is a Markdown file with name: and description: in its front "
               "matter, in .agents/agents, .keen/agents or .claude/agents of this folder or of your home "
               "folder.");
    } else {
        text += QStringLiteral("| ") + tr("Subagent") + QStringLiteral(" | ") + tr("Description") +
                QStringLiteral(" | ") + tr("Model") + QStringLiteral(" | ") + tr("Tools") +
                QStringLiteral(" |\n|---|---|---|---|\n");
        for (const Profile &profile : visible) {
            const QString model =
                profile.model.isEmpty()
                    ? tr("this conversation's")
                    : MarkdownTable::cell(profile.provider + QLatin1Char('/') + profile.model);
            const QString tools = profile.permissions.isEmpty()
                                      ? tr("this conversation's")
                                      : profile.permissions.join(QStringLiteral(", "));
            text +=
                QStringLiteral("| `") + MarkdownTable::cell(profile.name) + QStringLiteral("` | ") +
                MarkdownTable::cell(MarkdownTable::firstWords(profile.description, TableDescriptionWords)) +
                QStringLiteral(" | ") + model + QStringLiteral(" | ") + tools + QStringLiteral(" |\n");
        }
        text += QStringLiteral("\n") +
                tr("The model hands tasks to them with the delegate_task tool; each runs on "
                   "its own, without this conversation, and reports back.");
    }
    if (!m_warnings.isEmpty()) {
        text += QStringLiteral("\n\n**") + tr("Warnings") + QStringLiteral("**\n");
        for (const QString &warning : m_warnings)
            text += QStringLiteral("\n- ") + warning;
    }
    return text;
}

} // namespace keen
