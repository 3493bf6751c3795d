#include "agent/skillcatalog.h"
#include "agent/systemprompt.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace keen;

// Skills (reference 7.2): what a person who drops a SKILL.md into .agents/skills sees in /skills, what the
// model is offered in the system prompt, and what /<name> sends.
class TestSkillCatalog : public QObject
{
    Q_OBJECT

private:
    static void write(const QString &path, const QByteArray &bytes) { QVERIFY(test::writeFile(path, bytes)); }

    static QByteArray skillFile(const QByteArray &name, const QByteArray &description,
                                const QByteArray &body = "Do the thing.")
    {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body + "\n";
    }

    static QStringList names(const SkillCatalog &catalog)
    {
        QStringList result;
        for (const SkillCatalog::Skill &skill : catalog.skills())
            result.append(skill.name);
        return result;
    }

private Q_SLOTS:
    void frontMatterForms()
    {
        const auto parsed = SkillCatalog::parse(
            QStringLiteral("/x/SKILL.md"),
            "\xEF\xBB\xBF---\r\nname: \"deploy\"\r\ndescription: >\r\n  Ship the build\r\n  to staging.\r\n"
            "license: MIT\r\nallowed-tools:\r\n  - bash\r\n---\r\n\r\n# Deploy\r\nRun make.\r\n");
        QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
        QCOMPARE(parsed->name, QStringLiteral("deploy"));
        QCOMPARE(parsed->description, QStringLiteral("Ship the build to staging."));
        QCOMPARE(parsed->body, QStringLiteral("# Deploy\nRun make."));
        QCOMPARE(parsed->path, QStringLiteral("/x/SKILL.md"));

        const auto literal = SkillCatalog::parse(
            QStringLiteral("/y/SKILL.md"), "---\nname: 'notes'\ndescription: |\n  line one\n  line two\n"
                                           "---\nbody");
        QVERIFY(literal.ok());
        QCOMPARE(literal->description, QStringLiteral("line one\nline two"));

        const auto continued = SkillCatalog::parse(
            QStringLiteral("/z/SKILL.md"), "---\nname: tidy\ndescription: Clean up the\n  imports.\n---\n");
        QVERIFY(continued.ok());
        QCOMPARE(continued->description, QStringLiteral("Clean up the imports."));
        QCOMPARE(continued->body, QString());
    }

    void badFrontMatterSaysWhat()
    {
        const QString path = QStringLiteral("/p/SKILL.md");
        const auto none = SkillCatalog::parse(path, "# Just a heading\n");
        QVERIFY(!none.ok());
        QVERIFY2(none.error().contains(QStringLiteral("/p/SKILL.md has no front matter")),
                 qPrintable(none.error()));
        const auto open = SkillCatalog::parse(path, "---\nname: a\ndescription: b\n");
        QVERIFY(open.error().contains(QStringLiteral("no closing")));
        const auto noName = SkillCatalog::parse(path, "---\ndescription: b\n---\n");
        QVERIFY(noName.error().endsWith(QStringLiteral("has no name")));
        const auto noDescription = SkillCatalog::parse(path, "---\nname: a\n---\n");
        QVERIFY(noDescription.error().endsWith(QStringLiteral("has no description")));
        const auto spaced = SkillCatalog::parse(path, "---\nname: two words\ndescription: b\n---\n");
        QVERIFY(spaced.error().contains(QStringLiteral("\"two words\" must be one word")));
    }

    void activationSubstitutesArguments()
    {
        SkillCatalog::Skill skill;
        skill.name = QStringLiteral("greet");
        skill.body = QStringLiteral("Greet $1 and then $2 ($3 is empty). All: $ARGUMENTS. Not $10.");
        QCOMPARE(
            SkillCatalog::activationText(skill, QStringLiteral(" Ada \"Grace Hopper\" ")),
            QStringLiteral("[Activate skill: greet]\n\nGreet Ada and then Grace Hopper ( is empty). All: "
                           "Ada \"Grace Hopper\". Not $10."));
        QVERIFY(SkillCatalog::isActivation(SkillCatalog::activationText(skill, QString())));
        QVERIFY(!SkillCatalog::isActivation(QStringLiteral("Activate skill: greet")));

        // A body without a place for them still gets the arguments: nothing the person typed is dropped.
        skill.body = QStringLiteral("Check the build.");
        QCOMPARE(SkillCatalog::activationText(skill, QStringLiteral("only tests")),
                 QStringLiteral("[Activate skill: greet]\n\nCheck the build.\n\nARGUMENTS: only tests"));
        QCOMPARE(SkillCatalog::activationText(skill, QString()),
                 QStringLiteral("[Activate skill: greet]\n\nCheck the build."));
    }

    void discoveryOrderAndDuplicates()
    {
        test::TestEnvironment env;
        QTemporaryDir home;
        QTemporaryDir project;
        const QString data = env.path(QStringLiteral("data"));
        write(project.filePath(QStringLiteral(".claude/skills/lint/SKILL.md")),
              skillFile("lint", "Project lint (claude folder)"));
        write(project.filePath(QStringLiteral(".agents/skills/lint/SKILL.md")),
              skillFile("lint", "Project lint"));
        write(home.filePath(QStringLiteral(".agents/skills/lint/SKILL.md")), skillFile("lint", "Home lint"));
        write(home.filePath(QStringLiteral(".claude/skills/zap/SKILL.md")), skillFile("zap", "Home zap"));
        write(QDir(data).filePath(QStringLiteral("skills/alpha/SKILL.md")), skillFile("alpha", "Data alpha"));
        // A folder without SKILL.md is not a skill and not a warning; a broken one is a warning.
        QDir().mkpath(project.filePath(QStringLiteral(".keen/skills/empty")));
        write(project.filePath(QStringLiteral(".keen/skills/broken/SKILL.md")), "no front matter\n");

        const SkillCatalog catalog = SkillCatalog::discover(project.path(), data, home.path());
        // Project first (.agents, .keen, .claude), then the person's folders, then the bundled skills.
        QCOMPARE(names(catalog),
                 (QStringList{QStringLiteral("lint"), QStringLiteral("alpha"), QStringLiteral("zap"),
                              QStringLiteral("commit"), QStringLiteral("review")}));
        QCOMPARE(catalog.find(QStringLiteral("lint"))->description, QStringLiteral("Project lint"));
        QVERIFY(catalog.find(QStringLiteral("commit"))->bundled);
        QVERIFY(!catalog.find(QStringLiteral("lint"))->bundled);
        const QString warnings = catalog.warnings().join(QLatin1Char('\n'));
        QVERIFY2(
            warnings.contains(QStringLiteral("The skill lint in ") +
                              QDir(home.path()).filePath(QStringLiteral(".agents/skills/lint/SKILL.md")) +
                              QStringLiteral(" is hidden by the one in ") +
                              project.filePath(QStringLiteral(".agents/skills/lint/SKILL.md"))),
            qPrintable(warnings));
        QVERIFY(warnings.contains(project.filePath(QStringLiteral(".keen/skills/broken/SKILL.md")) +
                                  QStringLiteral(" has no front matter")));
        QCOMPARE(catalog.warnings().size(), 3); // lint twice hidden, broken once

        const QString table = catalog.markdownTable(SkillCatalog::View::Status);
        QVERIFY(table.contains(QStringLiteral("| `/lint` | ✓ enabled | `") +
                               project.filePath(QStringLiteral(".agents/skills/lint/SKILL.md"))));
        QVERIFY(table.contains(QStringLiteral("(bundled)")));
        QVERIFY(table.contains(QStringLiteral("**Warnings**")));
    }

    void bundledSkillsAreInstalledAndRepaired()
    {
        test::TestEnvironment env;
        QTemporaryDir home;
        const QString data = env.path(QStringLiteral("data"));
        SkillCatalog::discover(QString(), data, home.path());
        const QString commit = QDir(data).filePath(QStringLiteral("skills/bundled/commit/SKILL.md"));
        QFile installed(commit);
        QVERIFY(installed.open(QIODevice::ReadOnly));
        QFile shipped(QStringLiteral(":/keen/skills/commit/SKILL.md"));
        QVERIFY(shipped.open(QIODevice::ReadOnly));
        const QByteArray original = shipped.readAll();
        QCOMPARE(installed.readAll(), original);
        installed.close();

        // An edited copy is the app's, not the person's (theirs go in <data>/skills): put back on next start.
        write(commit, skillFile("commit", "tampered"));
        const SkillCatalog again = SkillCatalog::discover(QString(), data, home.path());
        QVERIFY(installed.open(QIODevice::ReadOnly));
        QCOMPARE(installed.readAll(), original);
        QVERIFY(again.find(QStringLiteral("commit"))
                    ->description.startsWith(QStringLiteral("Commit the current")));
        QVERIFY(again.warnings().isEmpty());
    }

    void enabledStateIsSavedBesideOtherEntries()
    {
        test::TestEnvironment env;
        QTemporaryDir home;
        const QString data = env.path(QStringLiteral("data"));
        write(SkillCatalog::configPath(data), R"({"is_enabled":{"other":false},"note":"kept"})");
        QVERIFY(SkillCatalog::setEnabled(data, QStringLiteral("review"), false).ok());
        QFile file(SkillCatalog::configPath(data));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject config = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(config.value(QStringLiteral("note")).toString(), QStringLiteral("kept"));
        QCOMPARE(
            config.value(QStringLiteral("is_enabled")).toObject().value(QStringLiteral("other")).toBool(true),
            false);

        const SkillCatalog catalog = SkillCatalog::discover(QString(), data, home.path());
        QVERIFY(!catalog.find(QStringLiteral("review"))->enabled);
        QVERIFY(catalog.find(QStringLiteral("commit"))->enabled); // enabled unless switched off
        const QString section = catalog.promptSection();
        QVERIFY(section.contains(QStringLiteral("- commit: ")));
        QVERIFY(!section.contains(QStringLiteral("- review: ")));
        QVERIFY(catalog.markdownTable().contains(QStringLiteral("| `/review` | ✗ disabled |")));

        QVERIFY(SkillCatalog::setEnabled(data, QStringLiteral("commit"), false).ok());
        QCOMPARE(SkillCatalog::discover(QString(), data, home.path()).promptSection(), QString());
    }

    void unreadableAndOversizedSkillsAreWarnings()
    {
        test::TestEnvironment env;
        QTemporaryDir home;
        QTemporaryDir project;
        const QString data = env.path(QStringLiteral("data"));
        write(project.filePath(QStringLiteral(".agents/skills/huge/SKILL.md")),
              skillFile("huge", "Too big", QByteArray(SkillCatalog::MaxSkillBytes, 'x')));
        const QString fifo = project.filePath(QStringLiteral(".agents/skills/pipe/SKILL.md"));
        QDir().mkpath(QFileInfo(fifo).absolutePath());
        QCOMPARE(mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);

        // Returns (a FIFO read would block forever) and names each file.
        const SkillCatalog catalog = SkillCatalog::discover(project.path(), data, home.path());
        QVERIFY(!catalog.find(QStringLiteral("huge")));
        const QString warnings = catalog.warnings().join(QLatin1Char('\n'));
        QVERIFY2(warnings.contains(project.filePath(QStringLiteral(".agents/skills/huge/SKILL.md")) +
                                   QStringLiteral(" is larger than 256 KiB")),
                 qPrintable(warnings));
        QVERIFY(warnings.contains(fifo));
        QVERIFY(warnings.contains(QStringLiteral("named pipe")));
    }

    // Without a data folder nothing is switched off, and no config.json is looked for where the program runs.
    void noDataFolderReadsNoRelativeConfig()
    {
        QTemporaryDir cwd;
        QTemporaryDir home;
        QTemporaryDir project;
        write(cwd.filePath(QStringLiteral("skills/config.json")), R"({"is_enabled":{"lint":false}})");
        write(project.filePath(QStringLiteral(".agents/skills/lint/SKILL.md")), skillFile("lint", "Lint"));
        const QString previous = QDir::currentPath();
        QVERIFY(QDir::setCurrent(cwd.path()));
        const SkillCatalog catalog = SkillCatalog::discover(project.path(), QString(), home.path());
        QVERIFY(QDir::setCurrent(previous));
        QVERIFY(catalog.find(QStringLiteral("lint"))->enabled);
        QVERIFY(!catalog.find(QStringLiteral("lint"))->bundled);
        QVERIFY(!catalog.find(QStringLiteral("commit"))); // nowhere to copy the bundled ones to
    }

    void systemPromptOffersEnabledSkills()
    {
        test::TestEnvironment env;
        QTemporaryDir home;
        QTemporaryDir project;
        const QByteArray previousHome = qgetenv("HOME");
        qputenv("HOME", QFile::encodeName(home.path()));
        const QString data = env.path(QStringLiteral("data"));
        write(project.filePath(QStringLiteral(".agents/skills/lint/SKILL.md")),
              skillFile("lint", "Run the linters and fix what they report"));
        write(project.filePath(QStringLiteral("AGENTS.md")), "Use tabs.\n");
        const QString prompt = SystemPromptBuilder::build(project.path(), data);
        qputenv("HOME", previousHome);

        const QString line = QStringLiteral("- lint: Run the linters and fix what they report → read ") +
                             project.filePath(QStringLiteral(".agents/skills/lint/SKILL.md"));
        QVERIFY2(prompt.contains(line), qPrintable(prompt));
        QVERIFY(prompt.contains(QStringLiteral("- commit: Commit the current changes")));
        // After the project instructions, before the memory and the mode (reference 7.1).
        QVERIFY(prompt.indexOf(QStringLiteral("# Project Instructions")) <
                prompt.indexOf(QStringLiteral("## Available Skills")));
        QVERIFY(prompt.contains(QStringLiteral("[Activate skill: <name>] already contains")));
    }
};

QTEST_GUILESS_MAIN(TestSkillCatalog)
#include "tst_skillcatalog.moc"
