#include "testenvironment.h"
#include "tools/filesystemguard.h"
#include "tools/gitinfo.h"
#include "tools/libgit2.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace keen;
using Decision = FilesystemGuard::Decision;
using Op = FilesystemGuard::Operation;

class TestFilesystemGuard : public QObject
{
    Q_OBJECT

private:
    static void writeFile(const QString &path, const QByteArray &content = "x\n")
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
    }
    static bool git(const QString &dir, const QStringList &args)
    {
        QProcess process;
        process.setWorkingDirectory(dir);
        process.start(QStringLiteral("git"), args);
        return process.waitForFinished(10000) && process.exitCode() == 0;
    }

    static QString gitOutput(const QString &dir, const QStringList &args)
    {
        QProcess process;
        process.setWorkingDirectory(dir);
        process.start(QStringLiteral("git"), args);
        process.waitForFinished(10000);
        return QString::fromUtf8(process.readAllStandardOutput()).trimmed();
    }
    static bool commitAll(const QString &dir)
    {
        return git(dir, {QStringLiteral("add"), QStringLiteral("-A")}) &&
               git(dir, {QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"),
                         QStringLiteral("user.email=t@e"), QStringLiteral("commit"), QStringLiteral("-qm"),
                         QStringLiteral("x")});
    }

private Q_SLOTS:
    // First, while nothing in this process has touched git yet: a folder outside any repository (a plain
    // `run` there) is served without loading libgit2, whose load costs every start about 6 ms; the first
    // question about a repository's ignore rules loads it.
    void libgit2IsLoadedOnlyForARepository()
    {
        test::TestEnvironment env;
        QTemporaryDir plain;
        writeFile(plain.filePath(QStringLiteral("a.txt")));
        QVERIFY2(GitInfo::findGitDirectory(plain.path()).isEmpty(),
                 "the temporary folder is inside a repository");
        FilesystemGuard plainGuard(plain.path(), env.path(QStringLiteral("data")),
                                   env.path(QStringLiteral("home")));
        QVERIFY(plainGuard.checkPath(QStringLiteral("a.txt"), Op::Read).granted());
        QCOMPARE(GitInfo::currentBranch(plain.path()), QString());
        QVERIFY(!LibGit2::isLoaded());

        QTemporaryDir repo;
        QVERIFY(git(repo.path(), {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"),
                                  QStringLiteral("main")}));
        writeFile(repo.filePath(QStringLiteral(".gitignore")), "secret.env\n");
        writeFile(repo.filePath(QStringLiteral("secret.env")));
        QCOMPARE(GitInfo::currentBranch(repo.path()), QStringLiteral("main"));
        FilesystemGuard repoGuard(repo.path(), env.path(QStringLiteral("data")),
                                  env.path(QStringLiteral("home")));
        QVERIFY(!LibGit2::isLoaded()); // constructing the guard asks nothing yet
        const auto check = repoGuard.checkPath(QStringLiteral("secret.env"), Op::Read);
        QVERIFY(check.denied());
        QCOMPARE(check.reason, QStringLiteral("the path is ignored by .gitignore"));
        QVERIFY(LibGit2::isLoaded());
        QVERIFY(LibGit2::loadError().isEmpty());
    }

    // The branch is read from the repository's own files; each case is checked against git itself.
    void branchOfDetachedHeadsAndLinkedWorkTrees()
    {
        QTemporaryDir root;
        const QString main = root.filePath(QStringLiteral("main"));
        QDir().mkpath(main);
        QVERIFY(git(main, {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"),
                           QStringLiteral("develop")}));
        writeFile(main + QStringLiteral("/a.txt"));
        QVERIFY(commitAll(main));
        QCOMPARE(GitInfo::currentBranch(main), QStringLiteral("develop"));
        QDir().mkpath(main + QStringLiteral("/deep/er"));
        QCOMPARE(GitInfo::findGitDirectory(main + QStringLiteral("/deep/er")),
                 main + QStringLiteral("/.git"));

        // A linked work tree: .git is a file naming the repository's worktrees/<name> folder.
        const QString linked = root.filePath(QStringLiteral("linked"));
        QVERIFY(git(main, {QStringLiteral("worktree"), QStringLiteral("add"), QStringLiteral("-q"),
                           QStringLiteral("-b"), QStringLiteral("feature/x"), linked}));
        QVERIFY(QFileInfo(linked + QStringLiteral("/.git")).isFile());
        QCOMPARE(GitInfo::currentBranch(linked), QStringLiteral("feature/x"));
        QCOMPARE(GitInfo::currentBranch(linked),
                 gitOutput(linked, {QStringLiteral("branch"), QStringLiteral("--show-current")}));

        // Detached: the short commit id, as git prints it.
        QVERIFY(git(main, {QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("--detach")}));
        const QString shortId = gitOutput(
            main, {QStringLiteral("rev-parse"), QStringLiteral("--short=7"), QStringLiteral("HEAD")});
        QCOMPARE(shortId.size(), 7);
        QCOMPARE(GitInfo::currentBranch(main), shortId);
        // The linked work tree's HEAD is its own.
        QCOMPARE(GitInfo::currentBranch(linked), QStringLiteral("feature/x"));

        // A .git file that names nothing usable is not a repository.
        const QString broken = root.filePath(QStringLiteral("broken"));
        writeFile(broken + QStringLiteral("/.git"), "gitdir: /nonexistent/path\n");
        QCOMPARE(GitInfo::findGitDirectory(broken), QString());

        // A FIFO in place of HEAD or of a .git file is not read (reading it would block the turn forever).
        const QString fifoHead = root.filePath(QStringLiteral("fifohead"));
        QDir().mkpath(fifoHead + QStringLiteral("/.git"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifoHead + QStringLiteral("/.git/HEAD")).constData(), 0600), 0);
        QCOMPARE(GitInfo::currentBranch(fifoHead), QString());
        const QString fifoDotGit = root.filePath(QStringLiteral("fifodotgit"));
        QDir().mkpath(fifoDotGit);
        QCOMPARE(::mkfifo(QFile::encodeName(fifoDotGit + QStringLiteral("/.git")).constData(), 0600), 0);
        QCOMPARE(GitInfo::currentBranch(fifoDotGit), QString());
    }

    void readsInsideWorkspaceAreGranted()
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        writeFile(ws.filePath(QStringLiteral("src/a.cpp")));
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        const auto check = guard.checkPath(QStringLiteral("src/a.cpp"), Op::Read);
        QCOMPARE(check.decision, Decision::Granted);
        QVERIFY(check.insideWorkspace);
        QCOMPARE(check.resolvedPath, QFileInfo(ws.filePath(QStringLiteral("src/a.cpp"))).canonicalFilePath());
        // Not yet existing files resolve through their nearest existing parent.
        QCOMPARE(guard.checkPath(QStringLiteral("src/new/b.cpp"), Op::Read).decision, Decision::Granted);
        QCOMPARE(guard.checkPath(QStringLiteral("."), Op::Read).decision, Decision::Granted);
    }

    void writesAndEditsAlwaysPending()
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        QCOMPARE(guard.checkPath(QStringLiteral("a.txt"), Op::Write).decision, Decision::Pending);
        QCOMPARE(guard.checkPath(QStringLiteral("a.txt"), Op::Edit).decision, Decision::Pending);
        QDir().mkpath(env.path(QStringLiteral("data/memory/global")));
        QCOMPARE(
            guard.checkPath(env.path(QStringLiteral("data/memory/global/MEMORY.md")), Op::Write).decision,
            Decision::Pending);
    }

    void dotDotEscapeIsOutside()
    {
        test::TestEnvironment env;
        QTemporaryDir outer;
        const QString ws = outer.filePath(QStringLiteral("ws"));
        QDir().mkpath(ws);
        writeFile(outer.filePath(QStringLiteral("secret.txt")));
        FilesystemGuard guard(ws, env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        const auto check = guard.checkPath(QStringLiteral("../secret.txt"), Op::Read);
        QCOMPARE(check.decision, Decision::Pending);
        QVERIFY(!check.insideWorkspace);
        QCOMPARE(guard.checkPath(QStringLiteral("sub/../../secret.txt"), Op::Read).decision,
                 Decision::Pending);
        QCOMPARE(guard.checkPath(QStringLiteral("sub/../inside.txt"), Op::Read).decision, Decision::Granted);
    }

    void absolutePathsOutsideArePendingOrDenied()
    {
        test::TestEnvironment env;
        QTemporaryDir ws, other;
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        QCOMPARE(guard.checkPath(other.filePath(QStringLiteral("x")), Op::Read).decision, Decision::Pending);
        QCOMPARE(guard.checkPath(ws.filePath(QStringLiteral("x")), Op::Read).decision, Decision::Granted);
        for (const char *system : {"/etc/passwd", "/usr/bin/env", "/bin/sh", "/sbin", "/lib/x", "/lib64/x",
                                   "/proc/self/environ", "/sys/kernel", "/dev/sda", "/root/.bashrc"}) {
            const auto check = guard.checkPath(QString::fromLatin1(system), Op::Read);
            QVERIFY2(check.denied(), system);
            QVERIFY(!check.reason.isEmpty());
        }
        // A prefix is a folder, not a string prefix.
        QVERIFY(!guard.checkPath(QStringLiteral("/etcetera/x"), Op::Read).denied());
        QCOMPARE(guard.checkPath(QStringLiteral("/etc/../etc/shadow"), Op::Read).decision, Decision::Denied);
    }

    void symlinkOutOfWorkspaceIsOutside()
    {
        test::TestEnvironment env;
        QTemporaryDir ws, other;
        writeFile(other.filePath(QStringLiteral("target.txt")));
        QVERIFY(QFile::link(other.filePath(QStringLiteral("target.txt")),
                            ws.filePath(QStringLiteral("link.txt"))));
        QVERIFY(QFile::link(other.path(), ws.filePath(QStringLiteral("linkdir"))));
        QVERIFY(QFile::link(QStringLiteral("/etc/hostname"), ws.filePath(QStringLiteral("etc-link"))));
        QVERIFY(QFile::link(other.filePath(QStringLiteral("missing.txt")),
                            ws.filePath(QStringLiteral("dangling"))));
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));

        auto check = guard.checkPath(QStringLiteral("link.txt"), Op::Read);
        QCOMPARE(check.decision, Decision::Pending);
        QVERIFY(!check.insideWorkspace);
        QCOMPARE(guard.checkPath(QStringLiteral("linkdir/target.txt"), Op::Read).decision, Decision::Pending);
        QCOMPARE(guard.checkPath(QStringLiteral("linkdir/new/file.txt"), Op::Read).decision,
                 Decision::Pending);
        QCOMPARE(guard.checkPath(QStringLiteral("etc-link"), Op::Read).decision, Decision::Denied);
        check = guard.checkPath(QStringLiteral("dangling"), Op::Read);
        QCOMPARE(check.decision, Decision::Pending);
        QVERIFY(!check.insideWorkspace);
    }

    void homeDotfilesDeniedWithExceptions()
    {
        test::TestEnvironment env;
        const QString home = env.path(QStringLiteral("home"));
        const QString data = home + QStringLiteral("/.local/share/keen");
        QDir().mkpath(home + QStringLiteral("/.ssh"));
        QDir().mkpath(home + QStringLiteral("/project"));
        QDir().mkpath(data + QStringLiteral("/bash"));
        QDir().mkpath(data + QStringLiteral("/sessions"));
        QDir().mkpath(home + QStringLiteral("/.claude/skills/x"));
        FilesystemGuard guard(home + QStringLiteral("/project"), data, home);

        QVERIFY(guard.checkPath(home + QStringLiteral("/.ssh/id_rsa"), Op::Read).denied());
        QVERIFY(guard.checkPath(home + QStringLiteral("/.bashrc"), Op::Read).denied());
        QVERIFY(guard.checkPath(QStringLiteral("~/.aws/credentials"), Op::Read).denied());
        QVERIFY(guard.checkPath(QStringLiteral("../.ssh/config"), Op::Write).denied());
        QCOMPARE(guard.checkPath(home + QStringLiteral("/notes.txt"), Op::Read).decision, Decision::Pending);
        // The data folder's bash artifacts, memory and skills stay reachable; the rest of it does not.
        QCOMPARE(guard.checkPath(data + QStringLiteral("/bash/keen-bash-1.stdout"), Op::Read).decision,
                 Decision::Granted);
        QCOMPARE(guard.checkPath(data + QStringLiteral("/memory/global/MEMORY.md"), Op::Read).decision,
                 Decision::Granted);
        QCOMPARE(guard.checkPath(data + QStringLiteral("/memory/global/MEMORY.md"), Op::Write).decision,
                 Decision::Pending);
        QVERIFY(guard.checkPath(data + QStringLiteral("/sessions/x.jsonl"), Op::Read).denied());
        QCOMPARE(guard.checkPath(home + QStringLiteral("/.claude/skills/x/SKILL.md"), Op::Read).decision,
                 Decision::Granted);

        // A workspace that is the home folder itself does not open the dotfiles.
        FilesystemGuard homeGuard(home, data, home);
        QVERIFY(homeGuard.checkPath(QStringLiteral(".ssh/id_rsa"), Op::Read).denied());
        QCOMPARE(homeGuard.checkPath(QStringLiteral("project/a"), Op::Read).decision, Decision::Granted);
    }

    void gitignoredPathsDenied()
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        QVERIFY(git(ws.path(), {QStringLiteral("init"), QStringLiteral("-q")}));
        writeFile(ws.filePath(QStringLiteral(".gitignore")), "build/\n*.log\n.env\n");
        writeFile(ws.filePath(QStringLiteral("build/out.o")));
        writeFile(ws.filePath(QStringLiteral("app.log")));
        writeFile(ws.filePath(QStringLiteral("src/main.cpp")));
        writeFile(ws.filePath(QStringLiteral("src/.env")));
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));

        QVERIFY(guard.checkPath(QStringLiteral("build/out.o"), Op::Read).denied());
        QVERIFY(guard.checkPath(QStringLiteral("build/new.o"), Op::Write).denied());
        QVERIFY(guard.checkPath(QStringLiteral("app.log"), Op::Read).denied());
        QVERIFY(guard.checkPath(QStringLiteral("src/.env"), Op::Read).denied());
        QVERIFY(guard.checkPath(ws.filePath(QStringLiteral("build/out.o")), Op::Read).denied());
        QCOMPARE(guard.checkPath(QStringLiteral("src/main.cpp"), Op::Read).decision, Decision::Granted);
        QCOMPARE(guard.checkPath(QStringLiteral(".gitignore"), Op::Read).decision, Decision::Granted);

        // A subfolder workspace still sees the repository's rules.
        FilesystemGuard sub(ws.filePath(QStringLiteral("src")), env.path(QStringLiteral("data")),
                            env.path(QStringLiteral("home")));
        QVERIFY(sub.checkPath(QStringLiteral(".env"), Op::Read).denied());
        QVERIFY(sub.checkPath(QStringLiteral("../app.log"), Op::Read).denied());
    }

    void unresolvablePathDenied()
    {
        test::TestEnvironment env;
        QTemporaryDir ws;
        FilesystemGuard guard(ws.path(), env.path(QStringLiteral("data")), env.path(QStringLiteral("home")));
        QVERIFY(guard.checkPath(QString(), Op::Read).denied());
        QVERIFY(guard.checkPath(QString::fromLatin1("a\0b", 3), Op::Read).denied());
    }

    void gitInfoBranchAndFiles()
    {
        QTemporaryDir ws;
        QCOMPARE(GitInfo::currentBranch(ws.path()), QString());
        writeFile(ws.filePath(QStringLiteral("plain.txt")));
        writeFile(ws.filePath(QStringLiteral(".hidden/x")));
        QCOMPARE(GitInfo::listFiles(ws.path()), QStringList{QStringLiteral("plain.txt")});

        QVERIFY(git(ws.path(), {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"),
                                QStringLiteral("trunk")}));
        QCOMPARE(GitInfo::currentBranch(ws.path()), QStringLiteral("trunk")); // unborn
        writeFile(ws.filePath(QStringLiteral(".gitignore")), "*.o\n.hidden/\n");
        writeFile(ws.filePath(QStringLiteral("src/a.cpp")));
        writeFile(ws.filePath(QStringLiteral("src/a.o")));
        QVERIFY(git(ws.path(), {QStringLiteral("add"), QStringLiteral("src/a.cpp")}));
        QVERIFY(git(ws.path(), {QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"),
                                QStringLiteral("user.email=t@e"), QStringLiteral("commit"),
                                QStringLiteral("-qm"), QStringLiteral("x")}));
        QCOMPARE(GitInfo::currentBranch(ws.path()), QStringLiteral("trunk"));
        QCOMPARE(GitInfo::currentBranch(ws.filePath(QStringLiteral("src"))), QStringLiteral("trunk"));
        const QStringList files = GitInfo::listFiles(ws.path());
        QCOMPARE(files, (QStringList{QStringLiteral(".gitignore"), QStringLiteral("plain.txt"),
                                     QStringLiteral("src/a.cpp")}));
        QCOMPARE(GitInfo::listFiles(ws.filePath(QStringLiteral("src"))),
                 QStringList{QStringLiteral("a.cpp")});
    }
};

QTEST_GUILESS_MAIN(TestFilesystemGuard)
#include "tst_filesystemguard.moc"
