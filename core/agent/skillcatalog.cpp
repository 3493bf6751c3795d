#include "agent/skillcatalog.h"

#include "agent/extensionfolders.h"
#include "agent/frontmatter.h"
#include "agent/markdowntable.h"

#include "base/privatefolder.h"
#include "base/regularfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSaveFile>

namespace keen {

namespace {

const QString BundledResources = QStringLiteral(":/keen/skills");
const QString ActivationPrefix = QStringLiteral("[Activate skill: ");
constexpr qint64 MaxConfigBytes = 1024 * 1024;

// Like everything in the data folder, readable by its owner only.
bool writePrivate(QSaveFile &file, const QByteArray &bytes)
{
    return file.open(QIODevice::WriteOnly) &&
           file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) &&
           file.write(bytes) == bytes.size() && file.commit();
}

QJsonObject readConfig(const QString &path)
{
    const RegularFile::Read read = RegularFile::read(path, MaxConfigBytes);
    return read.ok() ? QJsonDocument::fromJson(read.bytes).object() : QJsonObject();
}

// Shipped skills are files in the program; the model reads skills with read_file, so they are copied to the
// data folder. Rewritten only when the program's copy differs (a newer version of the app).
void installBundled(const QString &dataDir, QStringList &warnings, QStringList &unreadable)
{
    const QDir resources(BundledResources);
    const QString target = QDir(dataDir).filePath(QStringLiteral("skills/bundled"));
    for (const QString &name : resources.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QFile source(resources.filePath(name + QStringLiteral("/SKILL.md")));
        if (!source.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = source.readAll();
        const QString folder = target + QLatin1Char('/') + name;
        const QString path = folder + QStringLiteral("/SKILL.md");
        // Never waits on a FIFO in the copy's place; what is not a regular file is named and left alone.
        const RegularFile::Read existing = RegularFile::read(path, SkillCatalog::MaxSkillBytes);
        if (existing.ok() && existing.bytes == bytes)
            continue;
        if (existing.problem == RegularFile::Problem::NotRegular) {
            warnings.append(
                SkillCatalog::tr("Cannot install the bundled skill %1: %2").arg(name, existing.error));
            unreadable.append(warnings.constLast());
            continue;
        }
        QSaveFile file(path);
        if (const Result<void> made = PrivateFolder::ensure(folder); !made) {
            warnings.append(
                SkillCatalog::tr("Cannot install the bundled skill %1: %2").arg(name, made.error()));
            continue;
        }
        if (!writePrivate(file, bytes))
            warnings.append(
                SkillCatalog::tr("Cannot install the bundled skill %1: %2").arg(path, file.errorString()));
    }
}

} // namespace

QStringList SkillCatalog::roots(const QString &workspace, const QString &dataDir, const QString &home)
{
    QStringList roots = ExtensionFolders::roots(QStringLiteral("skills"), workspace, dataDir, home);
    if (!dataDir.isEmpty())
        roots.append(QDir::cleanPath(QDir(dataDir).filePath(QStringLiteral("skills/bundled"))));
    return roots;
}

SkillCatalog SkillCatalog::discover(const QString &workspace, const QString &dataDir, const QString &home)
{
    SkillCatalog catalog;
    if (!dataDir.isEmpty())
        installBundled(dataDir, catalog.m_warnings, catalog.m_unreadable);
    // Without a data folder nothing is switched off (and no relative path is read).
    const QJsonObject enabled =
        dataDir.isEmpty() ? QJsonObject()
                          : readConfig(configPath(dataDir)).value(QStringLiteral("is_enabled")).toObject();
    const QString bundledRoot =
        dataDir.isEmpty() ? QString()
                          : QDir::cleanPath(QDir(dataDir).filePath(QStringLiteral("skills/bundled")));
    for (const QString &root : roots(workspace, dataDir, home)) {
        const QDir dir(root);
        for (const QString &entry : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QString path = dir.filePath(entry + QStringLiteral("/SKILL.md"));
            if (!QFileInfo::exists(path))
                continue; // a folder that is not a skill (bundled/ inside <dataDir>/skills, for one)
            const Result<QByteArray> bytes = FrontMatter::readFile(path, MaxSkillBytes);
            if (!bytes) {
                catalog.m_warnings.append(bytes.error());
                catalog.m_unreadable.append(bytes.error());
                continue;
            }
            Result<Skill> parsed = parse(path, *bytes);
            if (!parsed) {
                catalog.m_warnings.append(parsed.error());
                continue;
            }
            Skill skill = *parsed;
            if (const std::optional<Skill> first = catalog.find(skill.name)) {
                catalog.m_warnings.append(tr("The skill %1 in %2 is hidden by the one in %3")
                                              .arg(skill.name, skill.path, first->path));
                continue;
            }
            skill.enabled = enabled.value(skill.name).toBool(true);
            skill.bundled = root == bundledRoot;
            catalog.m_skills.append(skill);
        }
    }
    return catalog;
}

Result<SkillCatalog::Skill> SkillCatalog::parse(const QString &path, const QByteArray &bytes)
{
    using R = Result<Skill>;
    const Result<FrontMatter> front = FrontMatter::parseNamed(path, bytes);
    if (!front)
        return R::failure(front.error());
    Skill skill;
    skill.path = QFileInfo(path).absoluteFilePath();
    skill.name = front->value(QStringLiteral("name"));
    skill.description = front->value(QStringLiteral("description"));
    skill.body = front->body();
    return skill;
}

QString SkillCatalog::activationText(const Skill &skill, const QString &arguments)
{
    const QString trimmed = arguments.trimmed();
    const QStringList words = QProcess::splitCommand(trimmed);
    QString body = skill.body;
    bool placed = body.contains(QLatin1String("$ARGUMENTS"));
    body.replace(QLatin1String("$ARGUMENTS"), trimmed);
    static const QRegularExpression positional(QStringLiteral("\\$([1-9])(?![0-9])"));
    QString result;
    qsizetype last = 0;
    for (auto it = positional.globalMatch(body); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        const int index = match.captured(1).toInt() - 1;
        result += QStringView(body).mid(last, match.capturedStart() - last);
        result += index < words.size() ? words.at(index) : QString();
        last = match.capturedEnd();
        placed = true;
    }
    result += QStringView(body).mid(last);
    QString text = ActivationPrefix + skill.name + QStringLiteral("]\n\n") + result;
    if (!placed && !trimmed.isEmpty())
        text += QStringLiteral("\n\nARGUMENTS: ") + trimmed;
    return text;
}

bool SkillCatalog::isActivation(const QString &message)
{
    return message.startsWith(ActivationPrefix);
}

QString SkillCatalog::configPath(const QString &dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("skills/config.json"));
}

Result<void> SkillCatalog::setEnabled(const QString &dataDir, const QString &name, bool enabled)
{
    const QString path = configPath(dataDir);
    QJsonObject config = readConfig(path);
    QJsonObject states = config.value(QStringLiteral("is_enabled")).toObject();
    states.insert(name, enabled);
    config.insert(QStringLiteral("is_enabled"), states);
    if (const Result<void> made = PrivateFolder::ensure(QFileInfo(path).absolutePath()); !made)
        return made;
    QSaveFile file(path);
    const QByteArray bytes = QJsonDocument(config).toJson(QJsonDocument::Indented);
    if (!writePrivate(file, bytes))
        return Result<void>::failure(tr("Cannot save %1: %2").arg(path, file.errorString()));
    return {};
}

std::optional<SkillCatalog::Skill> SkillCatalog::find(const QString &name) const
{
    for (const Skill &skill : m_skills) {
        if (skill.name == name)
            return skill;
    }
    return std::nullopt;
}

std::optional<Result<QString>> SkillCatalog::activate(const QString &text) const
{
    const QString trimmed = text.trimmed();
    if (!trimmed.startsWith(QLatin1Char('/')))
        return std::nullopt;
    static const QRegularExpression space(QStringLiteral("\\s"));
    const qsizetype end = trimmed.indexOf(space);
    const std::optional<Skill> skill = find((end < 0 ? trimmed : trimmed.left(end)).mid(1));
    if (!skill)
        return std::nullopt;
    if (!skill->enabled)
        return Result<QString>::failure(
            tr("The skill %1 is disabled; /skills enable %1 offers it again").arg(skill->name));
    return Result<QString>(activationText(*skill, end < 0 ? QString() : trimmed.mid(end + 1)));
}

QString SkillCatalog::promptSection() const
{
    QString list;
    for (const Skill &skill : m_skills) {
        if (skill.enabled)
            list += QStringLiteral("- %1: %2 → read %3\n")
                        .arg(skill.name, skill.description.simplified(), skill.path);
    }
    if (list.isEmpty())
        return {};
    // Instructions to the model, in English like the rest of the prompt.
    return QStringLiteral("## Available Skills\n\n"
                          "You have access to specialized skills. To activate a skill, use the read_file "
                          "tool to read the "
                          "skill's SKILL.md file when the task matches its description, then follow its "
                          "instructions.\n\n") +
           list +
           QStringLiteral("\nA user message that starts with [Activate skill: <name>] already contains that "
                          "skill's instructions; follow them without reading its SKILL.md.");
}

QString SkillCatalog::markdownTable(View view) const
{
    QString text = QStringLiteral("**") + tr("Skills") + QStringLiteral("**\n\n");
    if (m_skills.isEmpty()) {
        text += tr("No skills found. A skill is a folder with a SKILL.md in .agents/skills, .keen/skills or "
                   ".claude/skills of this folder or of your home folder.");
    } else {
        text += QStringLiteral("| ") + tr("Skill") + QStringLiteral(" | ") + tr("Status") +
                QStringLiteral(" | ") + (view == View::List ? tr("Description") : tr("File")) +
                QStringLiteral(" |\n|---|---|---|\n");
        for (const Skill &skill : m_skills) {
            const QString last =
                view == View::List
                    ? MarkdownTable::cell(MarkdownTable::firstWords(skill.description, TableDescriptionWords))
                    : QStringLiteral("`") + MarkdownTable::cell(skill.path) + QStringLiteral("`") +
                          (skill.bundled ? QStringLiteral(" ") + tr("(bundled)") : QString());
            text += QStringLiteral("| `/") + MarkdownTable::cell(skill.name) + QStringLiteral("` | ") +
                    (skill.enabled ? tr("✓ enabled") : tr("✗ disabled")) + QStringLiteral(" | ") + last +
                    QStringLiteral(" |\n");
        }
        text +=
            QStringLiteral("\n") +
            tr("Type /<skill> [arguments] to use one. `/skills enable <name>` and `/skills disable <name>` "
               "choose which are offered to the model; `/skills reload` reads the folders again.");
    }
    if (!m_warnings.isEmpty()) {
        text += QStringLiteral("\n\n**") + tr("Warnings") + QStringLiteral("**\n");
        for (const QString &warning : m_warnings)
            text += QStringLiteral("\n- ") + warning;
    }
    return text;
}

} // namespace keen
